/*  vw_http.c - the viewer's HTTP server (vw_http.h). */
#include "vw_http.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <czmq.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "vw_door.h"

#define VW_OP_TIMEOUT_MS 3000 /* the gateway answers a plain request within 4 s or says UNAVAILABLE */

/* civetweb gives each connection a thread of its own for as long as it
   lasts (docs/viewer.md "Under load"): the pages take at most
   VW_CLIENTS_MAX of them, a connection that has not sent its whole
   request holds one at most VW_REQUEST_MS, an idle keep-alive one at most
   VW_KEEPALIVE_MS, so the rest answer /healthz, /metrics and files even
   with that many stalled connections open at once. */
#define VW_THREADS      "320"
#define VW_REQUEST_MS   "1000"  /* a whole request header, and any one write to a page */
#define VW_KEEPALIVE_MS "1000"  /* between two requests on one connection */
#define VW_WS_IDLE_MS   "10000" /* a silent page is pinged this often; dropped after 6 unanswered */
#define VW_QUEUE        "256"   /* connections accepted and waiting for a thread */
#define VW_BACKLOG      "1024"  /* connections the kernel holds before civetweb accepts them */

/* The marker civetweb keeps on a WebSocket that showed the token (its
   address only; never written). */
static const char s_acting = 1;

/* A WebSocket the door let in whose handshake is not done: counted with
   the pages, so pages racing in cannot pass the limits together. */
typedef struct {
    const struct mg_connection *conn; /* NULL: free */
    char addr[48];
} vw_pending_t;

struct vw_http_t {
    struct mg_context *ctx;
    struct sockaddr_in addr; /* where it listens, to wake it when it stops */
    vw_hub_t *hub;
    vw_door_t *door; /* borrowed */
    char root[SIM_STRING_MAX];
    pthread_mutex_t pending_lock; /* taken inside the hub's lock, or alone */
    vw_pending_t pending[VW_CLIENTS_MAX];
};

int
vw_http_send (struct mg_connection *conn, const char *text)
{
    if (!text)
        return -1;
    return mg_websocket_write (conn, MG_WEBSOCKET_OPCODE_TEXT, text, strlen (text)) > 0 ? 0 : -1;
}

int
vw_http_close (struct mg_connection *conn, int code)
{
    const char status[2] = { (char) (code >> 8), (char) code };
    return mg_websocket_write (conn, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, status, code ? sizeof status : 0)
                 > 0
             ? 0
             : -1;
}

static int
s_log_message (const struct mg_connection *conn, const char *message)
{
    (void) conn;
    sim_debug ("http: %s", message);
    return 1; /* logged here, not on civetweb's stderr */
}

/* ---- the door (vw_door.h) ------------------------------------------------- */

/* Answer `status` with a one-line reason, logged at most once a second. */
static int
s_refuse (vw_http_t *self, struct mg_connection *conn, int status, const char *why)
{
    const struct mg_request_info *ri = mg_get_request_info (conn);
    uint64_t count = vw_door_refused (self->door, zclock_usecs ());
    if (count)
        sim_warn ("refused %s %.64s from %s: %s (%llu refusals since the last such line)", ri->request_method,
                  ri->local_uri ? ri->local_uri : "?", ri->remote_addr, why, (unsigned long long) count);
    /* written by hand: civetweb's error page sends no status line for a
       WebSocket handshake */
    mg_printf (conn,
               "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
               "Cache-Control: no-cache\r\nConnection: close\r\n\r\n%s\n",
               status, mg_get_response_code_text (conn, status), strlen (why) + 1, why);
    return status;
}

/* Pages (connected or in their handshake) from `addr`, or in all with
   NULL; with both locks held. */
static int
s_pages_from (const vw_http_t *self, const char *addr)
{
    int n = 0;
    for (int i = 0; i < VW_CLIENTS_MAX; i++) {
        const vw_client_t *c = &self->hub->clients[i];
        const vw_pending_t *p = &self->pending[i];
        n += c->conn && (!addr || strcmp (c->addr, addr) == 0);
        n += p->conn && (!addr || strcmp (p->addr, addr) == 0);
    }
    return n;
}

/* Forget `conn`'s handshake (done, or the connection closed); with the
   pending lock held. */
static void
s_pending_drop (vw_http_t *self, const struct mg_connection *conn)
{
    for (int i = 0; i < VW_CLIENTS_MAX; i++)
        if (self->pending[i].conn == conn)
            self->pending[i].conn = NULL;
}

/* civetweb's connection_close: a handshake that never finished. */
static void
s_on_close (const struct mg_connection *conn)
{
    vw_http_t *self = mg_get_user_data (mg_get_context (conn));
    pthread_mutex_lock (&self->pending_lock);
    s_pending_drop (self, conn);
    pthread_mutex_unlock (&self->pending_lock);
}

/* civetweb's begin_request: every request, once its header is read and
   before anything answers it. 0 lets it in. */
static int
s_door (struct mg_connection *conn)
{
    vw_http_t *self = mg_get_user_data (mg_get_context (conn));
    const struct mg_request_info *ri = mg_get_request_info (conn);
    vw_door_verdict_t verdict;
    if (vw_door_admit (self->door, ri->request_method, ri->local_uri, ri->query_string,
                       mg_get_header (conn, "Host"), mg_get_header (conn, "Origin"),
                       mg_get_header (conn, "Upgrade"), &verdict))
        return s_refuse (self, conn, verdict.status, verdict.why);
    if (!verdict.handshake)
        return 0;
    pthread_mutex_lock (&self->hub->lock);
    pthread_mutex_lock (&self->pending_lock);
    int all = s_pages_from (self, NULL), mine = s_pages_from (self, ri->remote_addr), slot = -1;
    /* every local page comes from loopback: there only the total counts */
    bool crowded = mine >= VW_CLIENTS_PER_ADDR && !vw_door_is_loopback (ri->remote_addr);
    for (int i = 0; i < VW_CLIENTS_MAX && slot < 0 && all < VW_CLIENTS_MAX && !crowded; i++)
        if (!self->pending[i].conn)
            slot = i;
    if (slot >= 0) {
        self->pending[slot].conn = conn;
        snprintf (self->pending[slot].addr, sizeof self->pending[slot].addr, "%s", ri->remote_addr);
    }
    pthread_mutex_unlock (&self->pending_lock);
    pthread_mutex_unlock (&self->hub->lock);
    if (crowded)
        return s_refuse (self, conn, 503, "too many pages from this address");
    if (slot < 0)
        return s_refuse (self, conn, 503, "too many pages are connected");
    mg_set_user_connection_data (conn, verdict.has_token ? (void *) &s_acting : NULL);
    return 0;
}

/* ---- /metrics and /healthz --------------------------------------------- */

/* The status as of now: the loop's numbers, the alive flags fresh. */
static void
s_status_now (vw_hub_t *hub, vw_status_t *out)
{
    pthread_mutex_lock (&hub->lock);
    *out = hub->status;
    vw_hub_alive (hub, zclock_usecs (), out->alive);
    out->uptime_s[VW_SERVICES - 1] = (double) (zclock_usecs () - hub->started_us) / 1e6;
    pthread_mutex_unlock (&hub->lock);
}

static int
s_on_metrics (struct mg_connection *conn, void *arg)
{
    vw_status_t st;
    s_status_now (arg, &st);
    char *text = vw_metrics_text (&st);
    if (!text) {
        mg_send_http_error (conn, 500, "out of memory");
        return 500;
    }
    size_t len = strlen (text);
    mg_send_http_ok (conn, "text/plain; version=0.0.4; charset=utf-8", (long long) len);
    mg_write (conn, text, len);
    free (text);
    return 200;
}

static int
s_on_healthz (struct mg_connection *conn, void *arg)
{
    vw_status_t st;
    s_status_now (arg, &st);
    /* healthy while the world runs: physics and vision */
    static const sim_service_id_t needed[] = { SIM_SERVICE_PHYSICS, SIM_SERVICE_VISION };
    char why[2 * (SIM_SERVICE_NAME_MAX + 16)] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!st.alive[needed[i]])
            used += (size_t) snprintf (why + used, sizeof why - used, "%s is not running\n",
                                       sim_service_names[needed[i]]);
    if (used == 0) {
        static const char ok[] = "ok\n";
        mg_send_http_ok (conn, "text/plain; charset=utf-8", (long long) strlen (ok));
        mg_write (conn, ok, strlen (ok));
        return 200;
    }
    mg_send_http_error (conn, 503, "%s", why);
    return 503;
}

/* ---- the WebSocket ------------------------------------------------------ */

static void
s_ws_ready (struct mg_connection *conn, void *arg)
{
    vw_hub_t *hub = arg;
    bool placed = false;
    const struct mg_request_info *ri = mg_get_request_info (conn);
    vw_http_t *self = mg_get_user_data (mg_get_context (conn));
    pthread_mutex_lock (&hub->lock);
    pthread_mutex_lock (&self->pending_lock);
    s_pending_drop (self, conn); /* a page now, in the same breath */
    pthread_mutex_unlock (&self->pending_lock);
    for (int i = 0; i < VW_CLIENTS_MAX && !placed; i++)
        if (!hub->clients[i].conn) {
            hub->clients[i] = (vw_client_t) { .conn = conn, .asked_us = zclock_usecs () };
            snprintf (hub->clients[i].addr, sizeof hub->clients[i].addr, "%s", ri->remote_addr);
            hub->client_count++;
            placed = true;
        }
    pthread_mutex_unlock (&hub->lock);
    if (!placed) {
        /* two pages passed the connect check at once and the other took
           the last slot: this one is told and closed, not left waiting */
        vw_http_send (conn, "{\"type\":\"result\",\"id\":-1,\"ok\":false,\"code\":\"UNAVAILABLE\","
                            "\"message\":\"too many pages are connected\"}");
        vw_http_close (conn, 0);
        return;
    }
    vw_hub_wake (hub); /* the loop greets it and subscribes if it is the first */
}

static void
s_ws_close (const struct mg_connection *conn, void *arg)
{
    vw_hub_t *hub = arg;
    pthread_mutex_lock (&hub->lock);
    for (int i = 0; i < VW_CLIENTS_MAX; i++)
        if (hub->clients[i].conn == conn) {
            hub->clients[i].conn = NULL;
            hub->client_count--;
        }
    pthread_mutex_unlock (&hub->lock);
    vw_hub_wake (hub);
}

static void
s_answer (struct mg_connection *conn, int64_t id, const char *code, const char *message)
{
    char *text = vw_json_result (id, code, message);
    vw_http_send (conn, text);
    free (text);
}

/* One op through the hub's one socket, one op at a time (vw_ops_call). */
static int
s_call (vw_hub_t *hub, const struct sockaddr_in *to, const uint8_t *req, size_t len, bool sync, char *code,
        size_t code_len, char *message, size_t message_len)
{
    pthread_mutex_lock (&hub->ops_lock);
    int rc = -1;
    if (hub->ops_fd >= 0)
        rc = vw_ops_call (hub->ops_fd, to, req, len, sync, VW_OP_TIMEOUT_MS, code, code_len, message,
                          message_len);
    else {
        snprintf (code, code_len, "UNAVAILABLE");
        snprintf (message, message_len, "no UDP socket to send to the gateway from");
    }
    pthread_mutex_unlock (&hub->ops_lock);
    return rc;
}

/* `ssl-sim play` and `replay`: the timeline's ops go to the player
   (vw_player.h) or to the replay's physics (vw_replay.h),
   queued for the loop and answered here; the others have nothing to
   change. False when no log is played (the op goes to the gateway). */
static bool
s_player_op (vw_hub_t *hub, struct mg_connection *conn, const vw_op_t *op)
{
    pthread_mutex_lock (&hub->lock);
    if (!hub->player) {
        pthread_mutex_unlock (&hub->lock);
        return false;
    }
    const char *code = NULL, *message = NULL;
    switch (op->kind) {
    case VW_OP_PAUSE:
    case VW_OP_RESUME:
    case VW_OP_SPEED:
    case VW_OP_STEP:
    case VW_OP_SEEK:
    case VW_OP_JUMP:
        if (op->kind == VW_OP_JUMP
            && (op->to_goal ? hub->status.player_next_goal : hub->status.player_next_command) < 0) {
            code = "NOT_FOUND";
            message = hub->status.player_journal ? "a journal holds no referee commands or goals"
                    : op->to_goal                ? "no goal after this time in the log"
                                                 : "no referee command after this time in the log";
        } else if (hub->n_player_ops == VW_PLAYER_OPS) {
            code = "UNAVAILABLE";
            message = "too many timeline actions waiting; try again";
        } else
            hub->player_ops[hub->n_player_ops++] = *op;
        break;
    default:
        code = "UNSUPPORTED";
        message = "a log or journal being played cannot be changed: only its timeline moves";
        break;
    }
    pthread_mutex_unlock (&hub->lock);
    if (!code)
        vw_hub_wake (hub);
    s_answer (conn, op->id, code, message);
    return true;
}

/* An op other than "next": one request to the gateway, one "result". */
static void
s_run_op (struct mg_connection *conn, vw_hub_t *hub, const vw_op_t *op)
{
    vw_http_t *self = mg_get_user_data (mg_get_context (conn));
    char refusal[256];
    if (vw_door_may_act (self->door, mg_get_request_info (conn)->remote_addr,
                         mg_get_user_connection_data (conn) == &s_acting, refusal, sizeof refusal)) {
        s_answer (conn, op->id, "FORBIDDEN", refusal);
        return;
    }
    if (s_player_op (hub, conn, op))
        return;
    vw_ops_ctx_t *ctx = malloc (sizeof *ctx);
    uint8_t *buf = malloc (VW_OPS_DATAGRAM_MAX);
    if (!ctx || !buf) {
        free (ctx);
        free (buf);
        s_answer (conn, op->id, "UNAVAILABLE", "out of memory");
        return;
    }
    pthread_mutex_lock (&hub->lock);
    bool ready = hub->have_config;
    *ctx = hub->ctx;
    struct sockaddr_in to = hub->control;
    pthread_mutex_unlock (&hub->lock);
    char why[256] = "", code[64] = "", message[512] = "";
    bool sync = false;
    int len = ready ? vw_ops_encode (op, ctx, buf, VW_OPS_DATAGRAM_MAX, &sync, why, sizeof why) : -1;
    if (!ready)
        s_answer (conn, op->id, "UNAVAILABLE", "no configuration from physics yet");
    else if (len < 0)
        s_answer (conn, op->id, "BAD_REQUEST", why);
    else if (s_call (hub, &to, buf, (size_t) len, sync, code, sizeof code, message, sizeof message) == 0)
        s_answer (conn, op->id, NULL, NULL);
    else
        s_answer (conn, op->id, code, message);
    free (ctx);
    free (buf);
}

static int
s_ws_data (struct mg_connection *conn, int flags, char *data, size_t len, void *arg)
{
    vw_hub_t *hub = arg;
    int opcode = flags & 0xf;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) {
        if (vw_hub_answer_close (hub, conn)) /* its status code echoed; none for none */
            vw_http_close (conn, len >= 2 ? (uint8_t) data[0] << 8 | (uint8_t) data[1] : 0);
        return 0;
    }
    if (opcode != MG_WEBSOCKET_OPCODE_TEXT)
        return 1; /* pings are civetweb's; binary frames mean nothing here */
    vw_op_t op;
    char why[160];
    if (vw_json_parse_op (data, len, &op, why, sizeof why)) {
        s_answer (conn, op.has_id ? op.id : -1, "BAD_REQUEST", why);
        return 1;
    }
    if (op.kind == VW_OP_NEXT) {
        pthread_mutex_lock (&hub->lock);
        for (int i = 0; i < VW_CLIENTS_MAX; i++)
            if (hub->clients[i].conn == conn) {
                hub->clients[i].want = true;
                hub->clients[i].asked_us = zclock_usecs ();
            }
        pthread_mutex_unlock (&hub->lock);
        vw_hub_wake (hub);
        return 1;
    }
    s_run_op (conn, hub, &op);
    return 1;
}

/* ---- life --------------------------------------------------------------- */

vw_http_t *
vw_http_new (const char *host, int port, const char *www_dir, vw_hub_t *hub, vw_door_t *door)
{
    vw_http_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->hub = hub;
    self->door = door;
    pthread_mutex_init (&self->pending_lock, NULL);
    snprintf (self->root, sizeof self->root, "%s", www_dir);
    char listen[SIM_STRING_MAX + 16];
    snprintf (listen, sizeof listen, "%.200s:%d", host, port);
    const char *options[] = { "listening_ports", listen, "document_root", self->root, "num_threads",
                              VW_THREADS, "enable_directory_listing", "no", "websocket_timeout_ms",
                              VW_WS_IDLE_MS, "enable_websocket_ping_pong", "yes",
                              /* also: a send to a page that stopped reading
                                 waits at most this long (then the page is
                                 dropped, and reconnects by itself) */
                              "request_timeout_ms", VW_REQUEST_MS, "enable_keep_alive", "yes",
                              "keep_alive_timeout_ms", VW_KEEPALIVE_MS, "connection_queue", VW_QUEUE,
                              "listen_backlog", VW_BACKLOG,
                              /* a "world" leaves as civetweb's frame header and
                                 payload in two writes: with Nagle the payload
                                 waits for the ACK of the header, which the page
                                 delays by 40 ms, so a page that asks for the next
                                 world when one arrives got about 22 a second */
                              "tcp_nodelay", "1", "static_file_max_age", "0", NULL };
    struct mg_callbacks callbacks;
    memset (&callbacks, 0, sizeof callbacks);
    callbacks.log_message = s_log_message;
    callbacks.begin_request = s_door;
    callbacks.connection_close = s_on_close;
    struct mg_init_data init = { .callbacks = &callbacks,
                                 .user_data = self,
                                 .configuration_options = options };
    struct mg_error_data error;
    char text[256] = "";
    memset (&error, 0, sizeof error);
    error.text = text;
    error.text_buffer_size = sizeof text;
    self->ctx = mg_start2 (&init, &error);
    if (!self->ctx) {
        sim_error ("cannot serve http://%s/ (%s): use --viewer-addr HOST:PORT or --no-viewer", listen,
                   text[0] ? text : "civetweb did not start");
        pthread_mutex_destroy (&self->pending_lock);
        free (self);
        return NULL;
    }
    self->addr.sin_family = AF_INET;
    self->addr.sin_port = htons ((uint16_t) port);
    if (inet_pton (AF_INET, host, &self->addr.sin_addr) != 1
        || self->addr.sin_addr.s_addr == htonl (INADDR_ANY))
        self->addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    mg_set_request_handler (self->ctx, "/metrics$", s_on_metrics, hub);
    mg_set_request_handler (self->ctx, "/healthz$", s_on_healthz, hub);
    /* no connect handler: the door (s_door) decided already */
    mg_set_websocket_handler (self->ctx, "/ws$", NULL, s_ws_ready, s_ws_data, s_ws_close, hub);
    if (vw_door_needs_token (door)) {
        char url[SIM_STRING_MAX + 128];
        vw_door_url (host, port, vw_door_token (door), url, sizeof url);
        sim_info ("viewer on %s (files from %s; the page's actions need the token, which this address "
                  "carries; `ssl-sim status` shows it again)",
                  url, self->root);
    } else
        sim_info ("viewer on http://%s/ (files from %s)", listen, self->root);
    return self;
}

static void *
s_stopper (void *arg)
{
    mg_stop (arg);
    return NULL;
}

void
vw_http_destroy (vw_http_t **self_p)
{
    vw_http_t *self = *self_p;
    if (!self)
        return;
    /* civetweb's listener notices the stop only when its poll of the
       listening socket times out (a second): a connection to it while
       mg_stop waits ends that poll, so a stop (ssl-sim restart, the end
       of a run) takes milliseconds */
    pthread_t stopper;
    if (pthread_create (&stopper, NULL, s_stopper, self->ctx) == 0) {
        for (int i = 0; i < 100 && pthread_tryjoin_np (stopper, NULL) != 0; i++) {
            int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd >= 0) {
                connect (fd, (const struct sockaddr *) &self->addr, sizeof self->addr);
                close (fd);
            }
            struct pollfd none = { -1, 0, 0 };
            poll (&none, 0, 20); /* a stopping thread: nothing to wait on */
        }
        pthread_join (stopper, NULL);
    } else
        mg_stop (self->ctx);
    pthread_mutex_destroy (&self->pending_lock);
    free (self);
    *self_p = NULL;
}
