/*  sim_lane.c - same-host datagram lanes (see sim_lane.h). */
#include "common/base/sim_hash.h"
#include "sim_lane.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_bus.h"
#include "sim_bus_codec.h"
#include "common/base/sim_log.h"

/* Largest lane datagram. The biggest message is the configuration text
   (about 7 KB); AF_UNIX datagrams are charged to the sender's buffer,
   which is raised to hold several of these. */
#define SIM_LANE_MAX      (256 * 1024) /* > SIM_LINK_MESSAGE_MAX plus record headers */
#define SIM_LANE_SNDBUF   (2 * 1024 * 1024)
#define SIM_LANE_TOPIC    8
#define SIM_LANE_HELLO_US 1000000 /* see sim_lane_hello */

struct sim_lane_t {
    int fd;
    sim_lane_id_t id;
    sim_lane_peer_t peers[SIM_LANE_COUNT]; /* every service's address, ours included */
    ino_t ino;                             /* of our bound path, to remove only our own */
    int sndtimeo_ms;                       /* the SO_SNDTIMEO in force; -1 unknown */
    /* the batch being filled: records for one destination */
    uint8_t *out; /* SIM_LANE_MAX */
    size_t out_len;
    sim_lane_peer_t out_to;
    /* the datagram being read, record by record */
    uint8_t *in; /* SIM_LANE_MAX */
    size_t in_len, in_pos;
    sim_lane_peer_t in_from;
    const uint8_t *in_body; /* the last record's envelope bytes (sim_lane_record) */
    size_t in_body_len;
};

/* The lane file name part for inproc endpoint `name`: the name itself
   when it is plain and leaves a lane path within `room` characters, else
   a hash of it (another prefix, so the two forms never meet). */
static void
s_inproc_tag (const char *name, size_t room, char *tag, size_t cap)
{
    size_t n = strlen (name);
    bool plain = n > 0 && strlen ("inproc-.gateway.lane") + n <= room;
    for (size_t i = 0; plain && i < n; i++)
        plain = isalnum ((unsigned char) name[i]) || name[i] == '-' || name[i] == '_' || name[i] == '.';
    if (plain) {
        snprintf (tag, cap, "inproc-%s", name);
        return;
    }
    uint64_t h = sim_fnv1a (SIM_FNV1A_BASIS, name, n);
    snprintf (tag, cap, "inproc#%016llx", (unsigned long long) h);
}

/* The addresses of every lane for cfg; 0, or -1 when lanes do not apply. */
static int
s_addresses (const sim_config_t *cfg, sim_lane_peer_t peers[SIM_LANE_COUNT])
{
    const sim_bus_cfg_t *b = &cfg->bus;
    if (!b->lanes)
        return -1;
    bool ipc = strncmp (b->cmd_connect, "ipc://", 6) == 0 && strncmp (b->world_connect, "ipc://", 6) == 0
            && strncmp (b->frames_connect, "ipc://", 6) == 0;
    bool inproc = strncmp (b->cmd_connect, "inproc://", 9) == 0
               && strncmp (b->world_connect, "inproc://", 9) == 0
               && strncmp (b->frames_connect, "inproc://", 9) == 0;
    if (!ipc && !inproc)
        return -1;
    /* ipc: beside the cmd socket, same directory, same permissions.
       inproc: in the private runtime directory, named after the cmd
       endpoint (which keeps two simulators of one user apart); not an
       abstract name, which every local user could write to. */
    char dir[sizeof peers[0].addr.sun_path], tag[sizeof peers[0].addr.sun_path];
    if (ipc) {
        const char *path = b->cmd_connect + 6;
        const char *slash = strrchr (path, '/');
        int dir_len = slash ? (int) (slash - path) + 1 : 0; /* with its slash */
        if (dir_len >= (int) sizeof dir)
            return -1;
        snprintf (dir, sizeof dir, "%.*s", dir_len, path);
        *tag = 0;
    } else {
        if (sim_bus_runtime_dir (cfg, dir, sizeof dir - 1))
            return -1;
        strcat (dir, "/");
        s_inproc_tag (b->cmd_connect + 9, sizeof peers[0].addr.sun_path - 1 - strlen (dir), tag, sizeof tag);
    }
    for (int i = 0; i < SIM_LANE_COUNT; i++) {
        sim_lane_peer_t *p = &peers[i];
        memset (p, 0, sizeof *p);
        p->addr.sun_family = AF_UNIX;
        size_t cap = sizeof p->addr.sun_path;
        int n = snprintf (p->addr.sun_path, cap, "%s%s%s%s.lane", dir, tag, *tag ? "." : "",
                          sim_service_names[i]);
        if (n < 0 || (size_t) n >= cap)
            return -1;
        p->len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + (size_t) n + 1);
    }
    return 0;
}

bool
sim_lane_enabled (const sim_config_t *cfg)
{
    sim_lane_peer_t peers[SIM_LANE_COUNT];
    return s_addresses (cfg, peers) == 0;
}

int
sim_lane_address (const sim_config_t *cfg, sim_lane_id_t id, sim_lane_peer_t *addr)
{
    assert (id >= 0 && id < SIM_LANE_COUNT && addr);
    sim_lane_peer_t peers[SIM_LANE_COUNT];
    if (s_addresses (cfg, peers))
        return -1;
    *addr = peers[id];
    return 0;
}

sim_lane_t *
sim_lane_new (const sim_config_t *cfg, sim_lane_id_t id)
{
    assert (id >= 0 && id < SIM_LANE_COUNT);
    sim_lane_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->fd = -1;
    self->id = id;
    self->sndtimeo_ms = -1;
    if (s_addresses (cfg, self->peers)) {
        free (self);
        return NULL;
    }
    self->out = malloc (SIM_LANE_MAX);
    self->in = malloc (SIM_LANE_MAX);
    self->fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (!self->out || !self->in || self->fd < 0) {
        sim_error ("cannot create the %s lane: %s", sim_service_names[id], strerror (errno));
        sim_lane_destroy (&self);
        return NULL;
    }
    int size = SIM_LANE_SNDBUF;
    setsockopt (self->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    const sim_lane_peer_t *own = &self->peers[id];
    unlink (own->addr.sun_path); /* left by a killed process */
    if (bind (self->fd, (const struct sockaddr *) &own->addr, own->len) < 0) {
        sim_error ("cannot bind the %s lane %s: %s", sim_service_names[id], own->addr.sun_path,
                   strerror (errno));
        sim_lane_destroy (&self);
        return NULL;
    }
    /* writing to a socket needs write permission on its file: only we
       may (the directory should keep others out already) */
    chmod (own->addr.sun_path, 0600);
    struct stat st;
    if (stat (own->addr.sun_path, &st) == 0)
        self->ino = st.st_ino;
    return self;
}

void
sim_lane_destroy (sim_lane_t **self_p)
{
    sim_lane_t *self = *self_p;
    if (!self)
        return;
    if (self->fd >= 0) {
        close (self->fd);
        /* a restarted service may already have bound the same path */
        struct stat st;
        const char *path = self->peers[self->id].addr.sun_path;
        if (self->ino && stat (path, &st) == 0 && st.st_ino == self->ino)
            unlink (path);
    }
    free (self->out);
    free (self->in);
    free (self);
    *self_p = NULL;
}

int
sim_lane_fd (const sim_lane_t *self)
{
    assert (self);
    return self->fd;
}

/* A record: topic length (1 byte), topic, envelope length (4 bytes,
   little endian), envelope. A datagram holds one or more. */
#define SIM_LANE_HEAD(topic_len) (1 + (topic_len) + 4)

/* The record topic of a snapshot sent flat (sim_bus_snapshot_flatten)
   instead of as a packed envelope; readers get it as a snapshot
   envelope of topic SIM_TOPIC_SNAPSHOT, as if it had been packed. */
#define SIM_LANE_FLAT_SNAPSHOT "Sf"

/* A snapshot written flat into a record at buf[cap]; its size, or 0 when
   it is not one (or does not fit): then it is packed. */
static size_t
s_flat_into (const char *topic, const Simbus__Envelope *env, uint8_t *buf, size_t cap)
{
    size_t t = strlen (SIM_LANE_FLAT_SNAPSHOT);
    if (env->body_case != SIMBUS__ENVELOPE__BODY_SNAPSHOT || !env->snapshot
        || strcmp (topic, SIM_TOPIC_SNAPSHOT) != 0 || cap < SIM_LANE_HEAD (t))
        return 0;
    size_t size = sim_bus_snapshot_flatten (env->snapshot, buf + SIM_LANE_HEAD (t), cap - SIM_LANE_HEAD (t));
    if (size == 0)
        return 0;
    buf[0] = (uint8_t) t;
    memcpy (buf + 1, SIM_LANE_FLAT_SNAPSHOT, t);
    for (int i = 0; i < 4; i++)
        buf[1 + t + (size_t) i] = (uint8_t) (size >> (8 * i));
    return SIM_LANE_HEAD (t) + size;
}

/* Append the record of (topic, env) to buf[cap], a snapshot flat when
   may_flat; returns its size, or 0 when it does not fit. */
static size_t
s_pack_into (const char *topic, Simbus__Envelope *env, uint8_t *buf, size_t cap, bool may_flat)
{
    size_t t = strlen (topic);
    assert (t < SIM_LANE_TOPIC);
    env->version = SIM_BUS_VERSION;
    size_t flat = may_flat ? s_flat_into (topic, env, buf, cap) : 0;
    if (flat)
        return flat;
    size_t size = simbus__envelope__get_packed_size (env);
    if (SIM_LANE_HEAD (t) + size > cap)
        return 0;
    buf[0] = (uint8_t) t;
    memcpy (buf + 1, topic, t);
    for (int i = 0; i < 4; i++)
        buf[1 + t + (size_t) i] = (uint8_t) (size >> (8 * i));
    simbus__envelope__pack (env, buf + SIM_LANE_HEAD (t));
    return SIM_LANE_HEAD (t) + size;
}

void *
sim_lane_pack (const char *topic, Simbus__Envelope *env, size_t *len)
{
    env->version = SIM_BUS_VERSION;
    size_t cap = SIM_LANE_HEAD (strlen (topic)) + simbus__envelope__get_packed_size (env);
    if (cap > SIM_LANE_MAX)
        return NULL;
    uint8_t *buf = malloc (cap);
    if (buf)
        *len = s_pack_into (topic, env, buf, cap, false); /* sim_lane_envelope's packed bytes */
    return buf;
}

const void *
sim_lane_envelope (const void *record, size_t len, size_t *env_len)
{
    const uint8_t *r = record;
    size_t head = SIM_LANE_HEAD ((size_t) r[0]);
    assert (len >= head);
    *env_len = len - head;
    return r + head;
}

static int
s_send_to (sim_lane_t *self, const sim_lane_peer_t *to, const void *data, size_t len, int wait_ms)
{
    int flags = MSG_NOSIGNAL;
    if (wait_ms <= 0)
        flags |= MSG_DONTWAIT; /* an SO_SNDTIMEO of 0 would wait forever */
    else if (wait_ms != self->sndtimeo_ms) {
        /* a blocking AF_UNIX datagram send waits for room in the peer's
           queue, up to SO_SNDTIMEO */
        struct timeval tv = { wait_ms / 1000, (wait_ms % 1000) * 1000 };
        if (setsockopt (self->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0)
            self->sndtimeo_ms = wait_ms;
    }
    ssize_t n;
    do
        n = sendto (self->fd, data, len, flags, (const struct sockaddr *) &to->addr, to->len);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EWOULDBLOCK)
        errno = EAGAIN;
    return n < 0 ? -1 : 0;
}

int
sim_lane_flush (sim_lane_t *self, int wait_ms)
{
    assert (self);
    if (self->out_len == 0)
        return 0;
    size_t len = self->out_len;
    self->out_len = 0; /* sent or dropped: a batch is never sent twice */
    return s_send_to (self, &self->out_to, self->out, len, wait_ms);
}

static bool
s_same_peer (const sim_lane_peer_t *a, const sim_lane_peer_t *b)
{
    return a->len == b->len && memcmp (&a->addr, &b->addr, a->len) == 0;
}

/* Add a record for `to` to the batch; a batch for another address, or
   one without room, is sent first. */
static int
s_queue (sim_lane_t *self, const sim_lane_peer_t *to, const char *topic, Simbus__Envelope *env, int wait_ms)
{
    int rc = 0;
    if (self->out_len > 0 && !s_same_peer (&self->out_to, to))
        rc = sim_lane_flush (self, wait_ms);
    size_t n = s_pack_into (topic, env, self->out + self->out_len, SIM_LANE_MAX - self->out_len, true);
    if (n == 0 && self->out_len > 0) {
        rc = sim_lane_flush (self, wait_ms);
        n = s_pack_into (topic, env, self->out, SIM_LANE_MAX, true);
    }
    if (n == 0) {
        sim_warn ("a %s message of %zu bytes is too big for a lane; dropped", topic,
                  simbus__envelope__get_packed_size (env));
        errno = EMSGSIZE;
        return -1;
    }
    self->out_to = *to;
    self->out_len += n;
    return rc;
}

int
sim_lane_queue (sim_lane_t *self, sim_lane_id_t to, const char *topic, Simbus__Envelope *env, int wait_ms)
{
    assert (self && to >= 0 && to < SIM_LANE_COUNT);
    return s_queue (self, &self->peers[to], topic, env, wait_ms);
}

int
sim_lane_send_bytes (sim_lane_t *self, sim_lane_id_t to, const void *data, size_t len, int wait_ms)
{
    assert (self && to >= 0 && to < SIM_LANE_COUNT);
    if (self->out_len > 0 && sim_lane_flush (self, wait_ms))
        return -1;
    return s_send_to (self, &self->peers[to], data, len, wait_ms);
}

int
sim_lane_reply (sim_lane_t *self, const sim_lane_peer_t *to, const char *topic, Simbus__Envelope *env,
                int wait_ms)
{
    assert (self && to);
    int rc = s_queue (self, to, topic, env, wait_ms);
    return sim_lane_flush (self, wait_ms) || rc ? -1 : 0;
}

int
sim_lane_send (sim_lane_t *self, sim_lane_id_t to, const char *topic, Simbus__Envelope *env, int wait_ms)
{
    assert (self && to >= 0 && to < SIM_LANE_COUNT);
    return sim_lane_reply (self, &self->peers[to], topic, env, wait_ms);
}

int64_t
sim_lane_hello (sim_lane_t *self, int64_t now, int64_t *next_us)
{
    assert (self && next_us);
    if (now >= *next_us) {
        Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
        sim_lane_send (self, SIM_LANE_PHYSICS, SIM_TOPIC_HELLO, &env, -1);
        *next_us = now + SIM_LANE_HELLO_US;
    }
    return *next_us;
}

size_t
sim_lane_unread (const sim_lane_t *self)
{
    assert (self);
    int bytes = 0;
    return ioctl (self->fd, SIOCOUTQ, &bytes) == 0 && bytes > 0 ? (size_t) bytes : 0;
}

bool
sim_lane_buffered (const sim_lane_t *self)
{
    assert (self);
    return self->in_pos < self->in_len;
}

int
sim_lane_recv (sim_lane_t *self, Simbus__Envelope **env, char *topic, size_t cap, sim_lane_peer_t *from,
               bool *warned)
{
    return sim_lane_recv_in (self, NULL, NULL, env, topic, cap, from, warned);
}

const uint8_t *
sim_lane_record (const sim_lane_t *self, size_t *len)
{
    assert (self && len);
    *len = self->in_body ? self->in_body_len : 0;
    return self->in_body;
}

int
sim_lane_recv_in (sim_lane_t *self, ProtobufCAllocator *alloc, const char *alloc_topic,
                  Simbus__Envelope **env, char *topic, size_t cap, sim_lane_peer_t *from, bool *warned)
{
    assert (self && env && topic && cap > 0);
    *env = NULL;
    *topic = 0;
    self->in_body = NULL;
    if (self->in_pos >= self->in_len) {
        ssize_t n;
        self->in_from.len = sizeof self->in_from.addr;
        do
            n = recvfrom (self->fd, self->in, SIM_LANE_MAX, MSG_DONTWAIT | MSG_TRUNC,
                          (struct sockaddr *) &self->in_from.addr, &self->in_from.len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return 0;
        /* any process of ours can write to a lane: trust no length or
           byte of it; a datagram that lies is dropped whole */
        self->in_len = n > SIM_LANE_MAX ? 0 : (size_t) n;
        self->in_pos = 0;
    }
    if (from)
        *from = self->in_from;
    const uint8_t *r = self->in + self->in_pos;
    size_t left = self->in_len - self->in_pos;
    size_t t = left > 0 ? r[0] : SIM_LANE_TOPIC;
    if (t >= SIM_LANE_TOPIC || left < SIM_LANE_HEAD (t)) {
        self->in_pos = self->in_len;
        return 1;
    }
    size_t size = 0;
    for (int i = 0; i < 4; i++)
        size |= (size_t) r[1 + t + (size_t) i] << (8 * i);
    if (size > left - SIM_LANE_HEAD (t)) {
        self->in_pos = self->in_len;
        return 1;
    }
    self->in_pos += SIM_LANE_HEAD (t) + size;
    const uint8_t *body = r + SIM_LANE_HEAD (t);
    bool flat = t == strlen (SIM_LANE_FLAT_SNAPSHOT) && memcmp (r + 1, SIM_LANE_FLAT_SNAPSHOT, t) == 0;
    /* a flat snapshot is read under the topic it stands for */
    const void *name = flat ? SIM_TOPIC_SNAPSHOT : (const void *) (r + 1);
    size_t name_len = flat ? strlen (SIM_TOPIC_SNAPSHOT) : t;
    size_t copy = name_len < cap - 1 ? name_len : cap - 1;
    memcpy (topic, name, copy);
    topic[copy] = 0;
    bool in_alloc = alloc && alloc_topic && strcmp (topic, alloc_topic) == 0;
    if (!flat) {
        self->in_body = body;
        self->in_body_len = size;
        *env = sim_bus_decode_in (body, size, warned, in_alloc ? alloc : NULL);
    } else if (!(*env = sim_bus_snapshot_unflatten (body, size, in_alloc ? alloc : NULL)) && warned
               && !*warned) {
        sim_warn ("a flat snapshot of another layout or bus version dropped (mine is version %u)",
                  SIM_BUS_VERSION);
        *warned = true;
    }
    return 1;
}
