/*  sim_curve.c - CURVE on the tcp bus: certificates and the sockets'
    keys (see sim_curve.h); the process's authenticator and the thread
    that logs refused handshakes are sim_curve_guard.c's. */
#include "sim_curve.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "sim_curve_guard.h"

#define S_ZAP_DOMAIN "ssl-sim"
#define S_EVENTS \
    (ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL \
     | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_MONITOR_STOPPED)

struct sim_curve_t {
    zcert_t *cert;                /* ours, with the secret key */
    char physics[41], vision[41]; /* the servers' public keys (Z85), "" = not needed */
    bool serves;                  /* holds a reference on the authenticator and the guard */
    bool watches;                 /* holds a reference on the guard for its clients */
    sim_bus_cfg_t bus;            /* the files the clients' log lines name */
    const char *service;          /* names the guard's log lines (static) */
};

/* ---- certificates ---------------------------------------------------- */

static int s_fail (char *err, size_t len, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static int
s_fail (char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (err, len, fmt, ap);
    va_end (ap);
    return -1;
}

/* A certificate named by [bus] `key`: with its secret (ours) or public
   only (a server's). NULL with the reason in err. */
static zcert_t *
s_load (const char *key, const char *path, bool secret, char *err, size_t len)
{
    if (!path[0]) {
        if (secret)
            s_fail (err, len, "[bus] %s is empty: curve = true needs it (ssl-sim keygen FILE makes one)",
                    key);
        else
            s_fail (
                err, len,
                "[bus] %s is empty: curve = true needs the server's public certificate (the FILE, not "
                "FILE_secret, that ssl-sim keygen wrote for its computer; on that computer, its own curve_cert)",
                key);
        return NULL;
    }
    char secret_path[SIM_STRING_MAX + 8];
    snprintf (secret_path, sizeof secret_path, "%s_secret", path);
    struct stat st;
    if (secret) {
        if (stat (secret_path, &st) != 0) {
            s_fail (err, len, "[bus] %s: cannot read the secret key %s: %s", key, secret_path,
                    strerror (errno));
            return NULL;
        }
        /* like ssh: a key others can read is no longer secret */
        if (st.st_mode & (S_IRWXG | S_IRWXO)) {
            s_fail (err, len, "[bus] %s: %s is open to other users (mode %04o); chmod 600 it", key,
                    secret_path, (unsigned) (st.st_mode & 07777));
            return NULL;
        }
    }
    const char *file = secret ? secret_path : path;
    if (access (file, R_OK) != 0) {
        s_fail (err, len, "[bus] %s: cannot read %s: %s", key, file, strerror (errno));
        return NULL;
    }
    zcert_t *cert = zcert_load (path);
    if (!cert) {
        s_fail (err, len, "[bus] %s: %s is not a certificate (ssl-sim keygen writes them)", key, file);
        return NULL;
    }
    static const byte s_zero[32] = { 0 };
    if (secret && memcmp (zcert_secret_key (cert), s_zero, sizeof s_zero) == 0) {
        s_fail (err, len, "[bus] %s: %s holds no secret key", key, secret_path);
        zcert_destroy (&cert);
    }
    return cert;
}

/* A server's public key, Z85, into key[41]. Returns 0 or -1. */
static int
s_load_public (const char *name, const char *path, char *key, char *err, size_t len)
{
    zcert_t *cert = s_load (name, path, false, err, len);
    if (!cert)
        return -1;
    snprintf (key, 41, "%s", zcert_public_txt (cert));
    zcert_destroy (&cert);
    return 0;
}

bool
sim_curve_applies (const char *endpoint)
{
    return endpoint && strncmp (endpoint, "tcp://", 6) == 0;
}

sim_curve_t *
sim_curve_new (const sim_bus_cfg_t *bus, unsigned needs, const char *service, char *err, size_t len)
{
    assert (bus && service && err);
    err[0] = '\0';
    sim_curve_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->bus = *bus;
    self->service = service;
    if (needs == 0)
        return self;
    int rc = 0;
    if (!zsys_has_curve ())
        rc = s_fail (err, len, "[bus] curve: this libzmq was built without CURVE");
    if (rc == 0 && !(self->cert = s_load ("curve_cert", bus->curve_cert, true, err, len)))
        rc = -1;
    if (rc == 0 && (needs & SIM_CURVE_PHYSICS))
        rc = s_load_public ("curve_server", bus->curve_server, self->physics, err, len);
    if (rc == 0 && (needs & SIM_CURVE_VISION)) {
        bool own = bus->curve_frames_server[0] != '\0';
        rc = s_load_public (own ? "curve_frames_server" : "curve_server",
                            own ? bus->curve_frames_server : bus->curve_server, self->vision, err, len);
    }
    if (rc == 0 && (needs & SIM_CURVE_SERVE)) {
        struct stat st;
        if (!bus->curve_allow[0])
            rc = s_fail (err, len,
                         "[bus] curve_allow is empty: a bound tcp socket needs the directory of "
                         "the certificates it accepts");
        else if (stat (bus->curve_allow, &st) != 0 || !S_ISDIR (st.st_mode))
            rc = s_fail (err, len, "[bus] curve_allow: %s is not a directory", bus->curve_allow);
        else if ((rc = sim_curve_guard_join (bus->curve_allow, service, err, len)) == 0)
            self->serves = true;
    }
    if (rc)
        sim_curve_destroy (&self);
    return self;
}

void
sim_curve_destroy (sim_curve_t **self_p)
{
    sim_curve_t *self = *self_p;
    if (!self)
        return;
    if (self->serves)
        sim_curve_guard_leave (true);
    if (self->watches)
        sim_curve_guard_leave (false);
    zcert_destroy (&self->cert);
    free (self);
    *self_p = NULL;
}

int
sim_curve_serve (sim_curve_t *self, zsock_t *sock, const char *name, const char *endpoint)
{
    assert (self && self->serves && sock);
    zcert_apply (self->cert, sock);
    zsock_set_curve_server (sock, 1);
    zsock_set_zap_domain (sock, S_ZAP_DOMAIN);
    int rc = sim_curve_guard_watch (sock, S_EVENTS, name, endpoint, NULL, NULL, NULL, NULL);
    if (rc)
        sim_error ("bus %s %s: cannot watch its refused peers", name, endpoint);
    return rc;
}

int
sim_curve_watch_client (sim_curve_t *self, zsock_t *sock, bool of_vision, const char *name,
                        const char *endpoint)
{
    assert (self && self->cert && sock);
    if (!self->watches) {
        char err[SIM_STRING_MAX + 128];
        if (sim_curve_guard_join (NULL, self->service, err, sizeof err)) {
            sim_error ("bus %s %s: %s", name, endpoint, err);
            return -1;
        }
        self->watches = true;
    }
    bool own = of_vision && self->bus.curve_frames_server[0];
    int rc = sim_curve_guard_watch (sock, S_EVENTS | ZMQ_EVENT_HANDSHAKE_SUCCEEDED, name, endpoint,
                                    of_vision ? "vision" : "physics", self->bus.curve_cert,
                                    own ? "curve_frames_server" : "curve_server",
                                    own ? self->bus.curve_frames_server : self->bus.curve_server);
    if (rc)
        sim_error ("bus %s %s: cannot watch its handshakes", name, endpoint);
    return rc;
}

void
sim_curve_client (sim_curve_t *self, zsock_t *sock, bool of_vision)
{
    assert (self && sock);
    const char *server = of_vision ? self->vision : self->physics;
    assert (self->cert && server[0]);
    zcert_apply (self->cert, sock);
    zsock_set_curve_serverkey (sock, server);
}

/* Create `path` empty with `mode`, refusing one that exists. */
static int
s_create (const char *path, mode_t mode, char *err, size_t len)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0)
        return s_fail (err, len, "cannot create %s: %s", path, strerror (errno));
    /* the umask may have taken bits away, never added them: set exactly */
    int rc = fchmod (fd, mode);
    close (fd);
    return rc ? s_fail (err, len, "cannot set the mode of %s: %s", path, strerror (errno)) : 0;
}

int
sim_curve_keygen (const char *path, char *err, size_t len)
{
    assert (path && err);
    if (!zsys_has_curve ())
        return s_fail (err, len, "this libzmq was built without CURVE");
    char secret[PATH_MAX];
    if (!path[0] || snprintf (secret, sizeof secret, "%s_secret", path) >= (int) sizeof secret)
        return s_fail (err, len, "keygen needs a FILE name");
    /* created empty and private first, so the secret is never readable by
       others, not even for a moment, and nothing is overwritten */
    if (s_create (secret, 0600, err, len))
        return -1;
    if (s_create (path, 0644, err, len)) {
        unlink (secret);
        return -1;
    }
    zcert_t *cert = zcert_new ();
    int rc = cert ? 0 : -1;
    if (cert) {
        zcert_set_meta (cert, "created-by", "ssl-sim keygen");
        rc = zcert_save_secret (cert, secret) || zcert_save_public (cert, path) ? -1 : 0;
    }
    zcert_destroy (&cert);
    if (rc) {
        unlink (secret);
        unlink (path);
        return s_fail (err, len, "cannot write the certificate %s: %s", path, strerror (errno));
    }
    return 0;
}
