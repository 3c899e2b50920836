/*  sim_bus.c - endpoints and envelope codec of the internal bus. */
#include "sim_bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/base/sim_log.h"

/* Make `path` (mode 0700) when `create`, and accept the one that exists
   only when it is a real directory of ours that nobody else can enter:
   whoever could write there first could bind our sockets and lanes and
   read every command, or plant the pid files a query reads. Returns 0, 1
   when it does not exist and `create` is false (nothing logged), or -1
   with the reason logged. */
static int
s_private_dir (const char *path, bool create)
{
    if (create) {
        if (mkdir (path, 0700) == 0)
            chmod (path, 0700); /* whatever the umask took away (ssl-sim's takes x) */
        else if (errno != EEXIST) {
            sim_error ("cannot create runtime directory %s: %s", path, strerror (errno));
            return -1;
        }
    }
    struct stat st;
    if (lstat (path, &st) != 0) {
        if (!create && errno == ENOENT)
            return 1;
        sim_error ("cannot check runtime directory %s: %s", path, strerror (errno));
        return -1;
    }
    if (!S_ISDIR (st.st_mode)) {
        sim_error ("refusing runtime directory %s: it is not a directory%s", path,
                   S_ISLNK (st.st_mode) ? " but a symbolic link" : "");
        return -1;
    }
    if (st.st_uid != geteuid ()) {
        sim_error ("refusing runtime directory %s: it belongs to uid %u, not to me (uid %u); "
                   "remove it, or set XDG_RUNTIME_DIR to a directory of mine",
                   path, (unsigned) st.st_uid, (unsigned) geteuid ());
        return -1;
    }
    if (st.st_mode & 077) {
        sim_error ("refusing runtime directory %s: its mode %04o lets group or others in; "
                   "`chmod 700 %s` if it is yours",
                   path, (unsigned) (st.st_mode & 0777), path);
        return -1;
    }
    return 0;
}

/* The runtime directory's path into buf, each level made when `create`
   and checked when it exists (s_private_dir); 0, 1 (not there, buf holds
   the whole path) or -1. */
static int
s_runtime_dir (const sim_config_t *cfg, char *buf, size_t len, bool create)
{
    const char *xdg = getenv ("XDG_RUNTIME_DIR");
    int n;
    if (xdg && *xdg)
        n = snprintf (buf, len, "%s/ssl-sim", xdg);
    else
        n = snprintf (buf, len, "/tmp/ssl-sim-%u", (unsigned) getuid ());
    if (n < 0 || (size_t) n >= len)
        return -1;
    int rc = s_private_dir (buf, create);
    if (rc < 0)
        return -1;
    if (cfg->network.port_offset != 0) {
        size_t used = strlen (buf);
        n = snprintf (buf + used, len - used, "/%d", cfg->network.port_offset);
        if (n < 0 || (size_t) n >= len - used)
            return -1;
        /* under a parent that is not there, neither is the child */
        rc = rc == 1 ? 1 : s_private_dir (buf, create);
    }
    return rc;
}

int
sim_bus_runtime_dir (const sim_config_t *cfg, char *buf, size_t len)
{
    return s_runtime_dir (cfg, buf, len, true);
}

int
sim_bus_runtime_dir_find (const sim_config_t *cfg, char *buf, size_t len)
{
    return s_runtime_dir (cfg, buf, len, false);
}

static void
s_fill (char *endpoint, const char *dir, const char *prefix, const char *name)
{
    if (*endpoint)
        return;
    if (prefix)
        snprintf (endpoint, SIM_STRING_MAX, "inproc://%s-%s", name, prefix);
    else
        snprintf (endpoint, SIM_STRING_MAX, "ipc://%s/%s.sock", dir, name);
}

int
sim_bus_resolve (sim_config_t *cfg, const char *inproc_prefix)
{
    char dir[SIM_STRING_MAX - 32] = "";
    if (!inproc_prefix && sim_bus_runtime_dir (cfg, dir, sizeof dir))
        return -1;
    sim_bus_cfg_t *b = &cfg->bus;
    s_fill (b->cmd_bind, dir, inproc_prefix, "cmd");
    s_fill (b->cmd_connect, dir, inproc_prefix, "cmd");
    s_fill (b->world_bind, dir, inproc_prefix, "world");
    s_fill (b->world_connect, dir, inproc_prefix, "world");
    s_fill (b->frames_bind, dir, inproc_prefix, "frames");
    s_fill (b->frames_connect, dir, inproc_prefix, "frames");
    return 0;
}

bool
sim_bus_subs_update (sim_bus_subs_t *self, const uint8_t *data, size_t size)
{
    if (size < 1)
        return false;
    bool on = data[0] == 1;
    const char *prefix = (const char *) data + 1;
    size_t len = size - 1;
    if (len > sizeof self->prefix[0])
        len = 0; /* too long to keep: treat as "everything" */
    int found = -1;
    for (int i = 0; i < self->count && found < 0; i++)
        if (self->len[i] == len && memcmp (self->prefix[i], prefix, len) == 0)
            found = i;
    if (on && found < 0) {
        if (self->count < SIM_BUS_SUBS_MAX) {
            self->len[self->count] = len;
            memcpy (self->prefix[self->count], prefix, len);
            self->count++;
        } else
            self->len[SIM_BUS_SUBS_MAX - 1] = 0; /* full: the last one matches everything */
    } else if (!on && found >= 0 && size - 1 == len) {
        self->count--;
        self->len[found] = self->len[self->count];
        memcpy (self->prefix[found], self->prefix[self->count], sizeof self->prefix[0]);
    }
    return on;
}

bool
sim_bus_subs_read (sim_bus_subs_t *self, zsock_t *xpub)
{
    bool joined = false;
    while (zsock_events (xpub) & ZMQ_POLLIN) {
        zframe_t *frame = zframe_recv (xpub);
        if (!frame)
            break;
        joined |= sim_bus_subs_update (self, zframe_data (frame), zframe_size (frame));
        zframe_destroy (&frame);
    }
    return joined;
}

bool
sim_bus_subs_want (const sim_bus_subs_t *self, const char *topic)
{
    size_t n = strlen (topic);
    for (int i = 0; i < self->count; i++)
        if (self->len[i] <= n && memcmp (self->prefix[i], topic, self->len[i]) == 0)
            return true;
    return false;
}

static zframe_t *
s_pack (Simbus__Envelope *env)
{
    env->version = SIM_BUS_VERSION;
    size_t size = simbus__envelope__get_packed_size (env);
    zframe_t *frame = zframe_new (NULL, size);
    if (frame)
        simbus__envelope__pack (env, zframe_data (frame));
    return frame;
}

int
sim_bus_send (zsock_t *sock, const char *topic, Simbus__Envelope *env)
{
    zframe_t *frame = s_pack (env);
    if (!frame)
        return -1;
    if (topic && zstr_sendm (sock, topic)) {
        zframe_destroy (&frame);
        return -1;
    }
    return zframe_send (&frame, sock, 0);
}

int
sim_bus_send_to (zsock_t *router, zframe_t *identity, Simbus__Envelope *env)
{
    zframe_t *frame = s_pack (env);
    if (!frame)
        return -1;
    if (zframe_send (&identity, router, ZFRAME_MORE | ZFRAME_REUSE)) {
        zframe_destroy (&frame);
        return -1;
    }
    return zframe_send (&frame, router, 0);
}

Simbus__Envelope *
sim_bus_decode (const void *data, size_t size, bool *warned)
{
    return sim_bus_decode_in (data, size, warned, NULL);
}

Simbus__Envelope *
sim_bus_decode_in (const void *data, size_t size, bool *warned, ProtobufCAllocator *alloc)
{
    Simbus__Envelope *env = simbus__envelope__unpack (alloc, size, data);
    if (!env)
        return NULL;
    if (env->version != SIM_BUS_VERSION) {
        if (warned && !*warned) {
            sim_warn ("bus message of protocol version %u dropped (mine is %u)", env->version,
                      SIM_BUS_VERSION);
            *warned = true;
        }
        simbus__envelope__free_unpacked (env, alloc);
        return NULL;
    }
    return env;
}

Simbus__Envelope *
sim_bus_recv_sub (zsock_t *sub, char *topic, bool *warned)
{
    zmsg_t *msg = zmsg_recv (sub);
    if (!msg)
        return NULL;
    Simbus__Envelope *env = NULL;
    zframe_t *t = zmsg_first (msg);
    zframe_t *body = zmsg_next (msg);
    if (t && body && zframe_size (t) >= 1) {
        *topic = (char) zframe_data (t)[0];
        env = sim_bus_decode (zframe_data (body), zframe_size (body), warned);
    }
    zmsg_destroy (&msg);
    return env;
}
