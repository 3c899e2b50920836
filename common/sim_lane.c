/*  sim_lane.c - same-host datagram lanes (see sim_lane.h). */
#include "sim_lane.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_bus.h"
#include "sim_log.h"

/* Largest lane datagram. The biggest message is the configuration text
   (about 7 KB); AF_UNIX datagrams are charged to the sender's buffer,
   which is raised to hold several of these. */
#define SIM_LANE_MAX     (256 * 1024)
#define SIM_LANE_SNDBUF  (2 * 1024 * 1024)
#define SIM_LANE_TOPIC   8

static const char *const s_names[SIM_LANE_COUNT] = { "physics", "vision", "gateway" };

struct sim_lane_t {
    int fd;
    sim_lane_id_t id;
    sim_lane_peer_t peers[SIM_LANE_COUNT];   /* every service's address, ours included */
    bool in_fs;                              /* a file system path (ipc), not abstract */
    ino_t ino;                               /* of our bound path, to remove only our own */
    int sndtimeo_ms;                         /* the SO_SNDTIMEO in force; -1 unknown */
    uint8_t *buf;                            /* SIM_LANE_MAX, for sends and receives */
};

/* The addresses of every lane for cfg; 0, or -1 when lanes do not apply. */
static int
s_addresses (const sim_config_t *cfg, sim_lane_peer_t peers[SIM_LANE_COUNT], bool *in_fs)
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
    for (int i = 0; i < SIM_LANE_COUNT; i++) {
        sim_lane_peer_t *p = &peers[i];
        memset (p, 0, sizeof *p);
        p->addr.sun_family = AF_UNIX;
        size_t cap = sizeof p->addr.sun_path;
        int n;
        if (ipc) {
            /* beside the cmd socket: same directory, same permissions */
            const char *path = b->cmd_connect + 6;
            const char *slash = strrchr (path, '/');
            int dir_len = slash ? (int) (slash - path) : 0;
            n = snprintf (p->addr.sun_path, cap, "%.*s%s%s.lane", dir_len, path, slash ? "/" : "",
                          s_names[i]);
            if (n < 0 || (size_t) n >= cap)
                return -1;
            p->len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + (size_t) n + 1);
        } else {
            /* abstract name (leading NUL): no file, gone with the process */
            n = snprintf (p->addr.sun_path + 1, cap - 1, "ssl-sim-lane:%s:%s", b->cmd_connect + 9,
                          s_names[i]);
            if (n < 0 || (size_t) n >= cap - 1)
                return -1;
            p->len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + (size_t) n);
        }
    }
    *in_fs = ipc;
    return 0;
}

bool
sim_lane_enabled (const sim_config_t *cfg)
{
    sim_lane_peer_t peers[SIM_LANE_COUNT];
    bool in_fs;
    return s_addresses (cfg, peers, &in_fs) == 0;
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
    if (s_addresses (cfg, self->peers, &self->in_fs)) {
        free (self);
        return NULL;
    }
    self->buf = malloc (SIM_LANE_MAX);
    self->fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (!self->buf || self->fd < 0) {
        sim_error ("cannot create the %s lane: %s", s_names[id], strerror (errno));
        sim_lane_destroy (&self);
        return NULL;
    }
    int size = SIM_LANE_SNDBUF;
    setsockopt (self->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    const sim_lane_peer_t *own = &self->peers[id];
    if (self->in_fs)
        unlink (own->addr.sun_path);     /* left by a killed process */
    if (bind (self->fd, (const struct sockaddr *) &own->addr, own->len) < 0) {
        sim_error ("cannot bind the %s lane %s: %s", s_names[id],
                   self->in_fs ? own->addr.sun_path : own->addr.sun_path + 1, strerror (errno));
        sim_lane_destroy (&self);
        return NULL;
    }
    struct stat st;
    if (self->in_fs && stat (own->addr.sun_path, &st) == 0)
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
        if (self->in_fs && self->ino && stat (path, &st) == 0 && st.st_ino == self->ino)
            unlink (path);
    }
    free (self->buf);
    free (self);
    *self_p = NULL;
}

int
sim_lane_fd (const sim_lane_t *self)
{
    assert (self);
    return self->fd;
}

/* Pack into buf[cap]: topic length, topic, envelope. Returns the size, or
   0 when it does not fit. */
static size_t
s_pack_into (const char *topic, Simbus__Envelope *env, uint8_t *buf, size_t cap)
{
    size_t t = strlen (topic);
    assert (t < SIM_LANE_TOPIC);
    env->version = SIM_BUS_VERSION;
    size_t size = simbus__envelope__get_packed_size (env);
    if (1 + t + size > cap)
        return 0;
    buf[0] = (uint8_t) t;
    memcpy (buf + 1, topic, t);
    simbus__envelope__pack (env, buf + 1 + t);
    return 1 + t + size;
}

void *
sim_lane_pack (const char *topic, Simbus__Envelope *env, size_t *len)
{
    env->version = SIM_BUS_VERSION;
    size_t cap = 1 + strlen (topic) + simbus__envelope__get_packed_size (env);
    if (cap > SIM_LANE_MAX)
        return NULL;
    uint8_t *buf = malloc (cap);
    if (buf)
        *len = s_pack_into (topic, env, buf, cap);
    return buf;
}

static int
s_send_to (sim_lane_t *self, const sim_lane_peer_t *to, const void *data, size_t len, int wait_ms)
{
    int flags = MSG_NOSIGNAL;
    if (wait_ms < 0)
        flags |= MSG_DONTWAIT;
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
sim_lane_send_bytes (sim_lane_t *self, sim_lane_id_t to, const void *data, size_t len, int wait_ms)
{
    assert (self && to >= 0 && to < SIM_LANE_COUNT);
    return s_send_to (self, &self->peers[to], data, len, wait_ms);
}

int
sim_lane_reply (sim_lane_t *self, const sim_lane_peer_t *to, const char *topic, Simbus__Envelope *env,
                int wait_ms)
{
    assert (self && to);
    size_t len = s_pack_into (topic, env, self->buf, SIM_LANE_MAX);
    if (len == 0) {
        sim_warn ("a %s message of %zu bytes is too big for a lane; dropped", topic,
                  simbus__envelope__get_packed_size (env));
        errno = EMSGSIZE;
        return -1;
    }
    return s_send_to (self, to, self->buf, len, wait_ms);
}

int
sim_lane_send (sim_lane_t *self, sim_lane_id_t to, const char *topic, Simbus__Envelope *env, int wait_ms)
{
    assert (self && to >= 0 && to < SIM_LANE_COUNT);
    return sim_lane_reply (self, &self->peers[to], topic, env, wait_ms);
}

void
sim_lane_hello (sim_lane_t *self)
{
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    sim_lane_send (self, SIM_LANE_PHYSICS, SIM_TOPIC_HELLO, &env, -1);
}

int
sim_lane_recv (sim_lane_t *self, Simbus__Envelope **env, char *topic, size_t cap,
               sim_lane_peer_t *from, bool *warned)
{
    assert (self && env && topic && cap > 0);
    *env = NULL;
    *topic = 0;
    sim_lane_peer_t src;
    src.len = sizeof src.addr;
    ssize_t n;
    do
        n = recvfrom (self->fd, self->buf, SIM_LANE_MAX, MSG_DONTWAIT | MSG_TRUNC,
                      (struct sockaddr *) &src.addr, &src.len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return 0;
    if (from)
        *from = src;
    /* anything on the same host can write to an abstract name: trust no
       length or byte of it */
    if (n < 1 || n > SIM_LANE_MAX)
        return 1;
    size_t t = self->buf[0];
    if (t >= SIM_LANE_TOPIC || 1 + t > (size_t) n)
        return 1;
    size_t copy = t < cap - 1 ? t : cap - 1;
    memcpy (topic, self->buf + 1, copy);
    topic[copy] = 0;
    *env = sim_bus_decode (self->buf + 1 + t, (size_t) n - 1 - t, warned);
    return 1;
}
