/*  sim_curve_guard.c - the process's CURVE guard (sim_curve_guard.h):
    czmq's authenticator and a thread that logs the handshakes refused to
    the bound sockets and by the servers of the connecting ones. */
#include "sim_curve_guard.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_log.h"
#include "common/config/sim_config.h"

#define S_WATCH_MAX  16       /* sockets of one process: 3 per link, a few links */
#define S_LOG_BURST  5        /* refusals logged one by one per window and socket */
#define S_LOG_WINDOW 10000000 /* us; then the rest are counted in one line */

/* libzmq has one ZAP handler per context and czmq one context per
   process, so this cannot be per link: the links of a process share it. */
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
static zactor_t *s_auth;  /* czmq's zauth: answers libzmq's ZAP requests */
static zactor_t *s_guard; /* s_guard_actor: logs the refused handshakes */
static int s_auth_users, s_guard_users;
static unsigned s_guard_monitors;
static char s_guard_allow[SIM_STRING_MAX];

typedef struct {
    const char *service;
    sim_log_level_t level;
} s_guard_args_t;

/* One watched socket: its monitor and the rate of its log lines. A bound
   socket logs the peers it refuses; a connecting one (a client) the
   server that refused it, with the [bus] files to check: `server`
   (physics or vision), `cert` (its curve_cert), `key` and `key_file` (the
   server key it holds); NULL for a bound socket. */
typedef struct {
    zsock_t *monitor;
    char *name, *endpoint;
    char *server, *cert, *key, *key_file;
    int64_t window_us;
    int lines;
    uint64_t unlogged;
    bool refused; /* a client refused since its last handshake */
} s_watch_t;

/* The lines of a window past its burst, counted in one line at its end. */
static void
s_watch_flush (s_watch_t *w, int64_t now)
{
    if (now - w->window_us < S_LOG_WINDOW)
        return;
    if (w->unlogged)
        sim_warn ("bus %s %s: %llu more peers refused in %d s", w->name, w->endpoint,
                  (unsigned long long) w->unlogged, S_LOG_WINDOW / 1000000);
    w->window_us = now;
    w->lines = 0;
    w->unlogged = 0;
}

static const char *
s_reason (uint16_t event, uint32_t value, char *buf, size_t len)
{
    /* a peer without CURVE may see the mismatch first and hang up: then
       the server only sees the connection break mid-handshake */
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
        snprintf (buf, len, "its handshake broke off (%s): no key, or not ZeroMQ", strerror ((int) value));
    else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        snprintf (buf, len, "its certificate is not allowed (ZAP status %u)", value);
    else if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
        snprintf (buf, len, "it does not use CURVE (no key)");
    else if (value == ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)
        snprintf (buf, len, "its handshake does not decrypt (a wrong server key)");
    else
        snprintf (buf, len, "handshake protocol error 0x%x", value);
    return buf;
}

/* Why a server refused this client, and what to check on which host. */
static const char *
s_client_reason (const s_watch_t *w, uint16_t event, uint32_t value, char *buf, size_t len)
{
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        snprintf (buf, len,
                  "%s refused this service's certificate (ZAP status %u): the [bus] curve_allow "
                  "directory of %s must hold %s, the public half of this [bus] curve_cert",
                  w->server, value, w->server, w->cert);
    else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
             && value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
        snprintf (buf, len, "%s does not use CURVE: set [bus] curve = true on its host too", w->server);
    else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
        snprintf (
            buf, len,
            "%s broke off the CURVE handshake (%s): this [bus] %s %s must be the public certificate of %s",
            w->server, strerror ((int) value), w->key, w->key_file, w->server);
    else
        snprintf (buf, len,
                  "the CURVE handshake with %s failed (protocol error 0x%x): this [bus] %s %s must be the "
                  "public certificate of %s",
                  w->server, value, w->key, w->key_file, w->server);
    return buf;
}

/* Read one monitor event; returns false when the socket is gone. */
static bool
s_watch_read (s_watch_t *w)
{
    zmsg_t *msg = zmsg_recv (w->monitor);
    if (!msg)
        return true;
    zframe_t *head = zmsg_first (msg);
    uint16_t event = 0;
    uint32_t value = 0;
    if (head && zframe_size (head) >= 6) {
        memcpy (&event, zframe_data (head), 2);
        memcpy (&value, zframe_data (head) + 2, 4);
    }
    zmsg_destroy (&msg);
    if (event == ZMQ_EVENT_MONITOR_STOPPED)
        return false;
    if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        if (w->refused)
            sim_info ("bus %s %s: %s admitted this service", w->name, w->endpoint, w->server);
        w->refused = false;
        return true;
    }
    int64_t now = zclock_usecs ();
    s_watch_flush (w, now);
    char why[SIM_STRING_MAX * 2 + 256];
    if (w->lines < S_LOG_BURST) {
        w->lines++;
        if (w->server)
            sim_warn ("bus %s %s: %s", w->name, w->endpoint,
                      s_client_reason (w, event, value, why, sizeof why));
        else
            sim_warn ("bus %s %s: refused a peer: %s", w->name, w->endpoint,
                      s_reason (event, value, why, sizeof why));
    } else
        w->unlogged++;
    w->refused = true;
    return true;
}

static void
s_watch_close (s_watch_t *w, zpoller_t *poller)
{
    zpoller_remove (poller, w->monitor);
    zsock_destroy (&w->monitor);
    zstr_free (&w->name);
    zstr_free (&w->endpoint);
    zstr_free (&w->server);
    zstr_free (&w->cert);
    zstr_free (&w->key);
    zstr_free (&w->key_file);
}

/* "WATCH" monitor-endpoint name endpoint [server cert key key-file]:
   connect to a socket's monitor (a client's with the four last). Returns
   0 or -1. */
static int
s_guard_watch (s_watch_t *watches, zpoller_t *poller, zmsg_t *msg)
{
    char *monitor = zmsg_popstr (msg);
    s_watch_t *w = NULL;
    for (int i = 0; i < S_WATCH_MAX && !w; i++)
        if (!watches[i].monitor)
            w = &watches[i];
    int rc = -1;
    if (monitor && w && (w->monitor = zsock_new_pair (NULL))) {
        if (zsock_connect (w->monitor, "%s", monitor) == 0) {
            w->name = zmsg_popstr (msg);
            w->endpoint = zmsg_popstr (msg);
            w->server = zmsg_popstr (msg);
            w->cert = zmsg_popstr (msg);
            w->key = zmsg_popstr (msg);
            w->key_file = zmsg_popstr (msg);
            w->window_us = zclock_usecs ();
            zpoller_add (poller, w->monitor);
            rc = 0;
        } else
            zsock_destroy (&w->monitor);
    }
    zstr_free (&monitor);
    return rc;
}

static void
s_guard_actor (zsock_t *pipe, void *arg)
{
    s_guard_args_t *args = arg;
    sim_log_set_service (args->service);
    sim_log_set_level (args->level);
    free (args);
    zpoller_t *poller = zpoller_new (pipe, NULL);
    zsock_signal (pipe, 0);
    s_watch_t watches[S_WATCH_MAX];
    memset (watches, 0, sizeof watches);
    while (true) {
        void *which = zpoller_wait (poller, S_LOG_WINDOW / 1000);
        if (which == pipe) {
            zmsg_t *msg = zmsg_recv (pipe);
            char *command = msg ? zmsg_popstr (msg) : NULL;
            bool term = !command || streq (command, "$TERM");
            if (command && streq (command, "WATCH"))
                zsock_signal (pipe, s_guard_watch (watches, poller, msg) ? 1 : 0);
            zstr_free (&command);
            zmsg_destroy (&msg);
            if (term)
                break;
        } else if (which) {
            for (int i = 0; i < S_WATCH_MAX; i++)
                if (watches[i].monitor == which && !s_watch_read (&watches[i]))
                    s_watch_close (&watches[i], poller);
        } else if (zpoller_terminated (poller))
            break;
        int64_t now = zclock_usecs ();
        for (int i = 0; i < S_WATCH_MAX; i++)
            if (watches[i].monitor)
                s_watch_flush (&watches[i], now);
    }
    for (int i = 0; i < S_WATCH_MAX; i++)
        if (watches[i].monitor)
            s_watch_close (&watches[i], poller);
    zpoller_destroy (&poller);
}

/* The level this thread logs at, for the guard to log at the same. */
static sim_log_level_t
s_log_level (void)
{
    sim_log_level_t level = SIM_LOG_ERROR;
    while (level < SIM_LOG_TRACE && sim_log_enabled ((sim_log_level_t) (level + 1)))
        level = (sim_log_level_t) (level + 1);
    return level;
}

int
sim_curve_guard_join (const char *allow, const char *service, char *err, size_t len)
{
    pthread_mutex_lock (&s_lock);
    int rc = 0;
    bool started_auth = false;
    if (allow && s_auth && strcmp (s_guard_allow, allow) != 0) {
        snprintf (err, len, "[bus] curve_allow: this process already authenticates peers with %s, not %s",
                  s_guard_allow, allow);
        rc = -1;
    } else if (allow && !s_auth) {
        s_auth = zactor_new (zauth, NULL);
        if (s_auth) {
            zstr_sendx (s_auth, "CURVE", allow, NULL);
            if (zsock_wait (s_auth) != 0)
                zactor_destroy (&s_auth);
        }
        if (s_auth) {
            snprintf (s_guard_allow, sizeof s_guard_allow, "%s", allow);
            started_auth = true;
        } else {
            snprintf (err, len, "[bus] curve: cannot start the authenticator (zauth) for %s", allow);
            rc = -1;
        }
    }
    if (rc == 0 && !s_guard) {
        s_guard_args_t *args = calloc (1, sizeof *args);
        if (args) {
            args->service = service;
            args->level = s_log_level ();
            s_guard = zactor_new (s_guard_actor, args); /* it frees args */
            if (!s_guard)
                free (args);
        }
        if (!s_guard) {
            if (started_auth)
                zactor_destroy (&s_auth);
            snprintf (err, len, "[bus] curve: cannot start the thread that watches the handshakes");
            rc = -1;
        }
    }
    if (rc == 0) {
        s_guard_users++;
        if (allow)
            s_auth_users++;
    }
    pthread_mutex_unlock (&s_lock);
    return rc;
}

/* Give back what sim_curve_guard_join took (`auth`: with an allow directory). */
void
sim_curve_guard_leave (bool auth)
{
    pthread_mutex_lock (&s_lock);
    assert (s_guard_users > 0 && (!auth || s_auth_users > 0));
    if (--s_guard_users == 0)
        zactor_destroy (&s_guard);
    if (auth && --s_auth_users == 0)
        zactor_destroy (&s_auth);
    pthread_mutex_unlock (&s_lock);
}

/* Have the guard watch `sock`'s handshakes (`events`); the four last
   strings name a client's server and files (NULL for a bound socket).
   Returns 0 or -1. */
int
sim_curve_guard_watch (zsock_t *sock, int events, const char *name, const char *endpoint, const char *server,
                       const char *cert, const char *key, const char *key_file)
{
    pthread_mutex_lock (&s_lock);
    char monitor[64];
    snprintf (monitor, sizeof monitor, "inproc://ssl-sim-curve-monitor-%u", s_guard_monitors++);
    int rc = zmq_socket_monitor (zsock_resolve (sock), monitor, events);
    if (rc == 0) {
        if (server)
            zstr_sendx (s_guard, "WATCH", monitor, name, endpoint, server, cert, key, key_file, NULL);
        else
            zstr_sendx (s_guard, "WATCH", monitor, name, endpoint, NULL);
        rc = zsock_wait (s_guard) == 0 ? 0 : -1;
    }
    pthread_mutex_unlock (&s_lock);
    return rc;
}
