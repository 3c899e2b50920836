/*  sim_ws.c - the tests' WebSocket and HTTP client (sim_ws.h). */
#include "sim_ws.h"

#include <civetweb.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define S_QUEUE_MAX 4096
#define S_CLOSE_MS  2000 /* sim_ws_destroy's wait for the server's close */

struct sim_ws_t {
    struct mg_connection *conn;
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    cJSON *queue[S_QUEUE_MAX];
    int head, len;
    bool closed;
    bool close_sent; /* this side's close frame went out (sim_ws_close) */
    int close_code;  /* of the server's close frame, 0 before one */
    long worlds, results, statuses, others;
    long long bytes;
};

static void
s_init_once (void)
{
    mg_init_library (0);
}

/* civetweb's client needs the library set up once per process. */
static void
s_init_library (void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once (&once, s_init_once);
}

static int
s_on_data (struct mg_connection *conn, int flags, char *data, size_t len, void *arg)
{
    sim_ws_t *self = arg;
    if ((flags & 0xf) == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) {
        /* the code noted, then the answer a browser gives a close: its
           own, echoing the status code (RFC 6455, 5.5.1); the server's
           thread then ends at once */
        pthread_mutex_lock (&self->lock);
        self->close_code =
            len >= 2 ? ((uint8_t) data[0] << 8 | (uint8_t) data[1]) : 1005; /* 1005: none given */
        bool answer = !self->close_sent; /* else this is the answer to ours */
        self->close_sent = true;
        pthread_mutex_unlock (&self->lock);
        if (answer)
            mg_websocket_client_write (conn, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, data, len >= 2 ? 2 : 0);
        return 0;
    }
    if ((flags & 0xf) != MG_WEBSOCKET_OPCODE_TEXT)
        return 1;
    cJSON *msg = cJSON_ParseWithLength (data, len);
    pthread_mutex_lock (&self->lock);
    self->bytes += (long long) len;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive (msg, "type");
    const char *t = cJSON_IsString (type) ? type->valuestring : "";
    if (strcmp (t, "world") == 0)
        self->worlds++;
    else if (strcmp (t, "result") == 0)
        self->results++;
    else if (strcmp (t, "status") == 0)
        self->statuses++;
    else
        self->others++;
    if (msg && self->len < S_QUEUE_MAX)
        self->queue[(self->head + self->len++) % S_QUEUE_MAX] = msg;
    else
        cJSON_Delete (msg);
    pthread_cond_broadcast (&self->arrived);
    pthread_mutex_unlock (&self->lock);
    return 1;
}

static void
s_on_close (const struct mg_connection *conn, void *arg)
{
    (void) conn;
    sim_ws_t *self = arg;
    pthread_mutex_lock (&self->lock);
    self->closed = true;
    pthread_cond_broadcast (&self->arrived);
    pthread_mutex_unlock (&self->lock);
}

sim_ws_t *
sim_ws_connect (int port, const char *path)
{
    s_init_library ();
    sim_ws_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    pthread_mutex_init (&self->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init (&attr);
    pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
    pthread_cond_init (&self->arrived, &attr);
    pthread_condattr_destroy (&attr);
    char err[256] = "";
    self->conn = mg_connect_websocket_client ("127.0.0.1", port, 0, err, sizeof err, path, NULL, s_on_data,
                                              s_on_close, self);
    if (!self->conn) {
        fprintf (stderr, "sim_ws: ws://127.0.0.1:%d%s: %s\n", port, path, err);
        sim_ws_destroy (&self);
    }
    return self;
}

static struct timespec
s_deadline (int ms)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long) (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

int
sim_ws_close (sim_ws_t *self, int ms)
{
    static const char normal[2] = { 0x03, (char) 0xe8 };
    pthread_mutex_lock (&self->lock);
    bool send = !self->close_sent; /* not after the server's close was answered */
    self->close_sent = true;
    pthread_mutex_unlock (&self->lock);
    if (send
        && mg_websocket_client_write (self->conn, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, normal, sizeof normal)
               <= 0)
        return sim_ws_close_code (self);
    struct timespec end = s_deadline (ms);
    pthread_mutex_lock (&self->lock);
    while (!self->closed && pthread_cond_timedwait (&self->arrived, &self->lock, &end) != ETIMEDOUT)
        ;
    int code = self->close_code;
    pthread_mutex_unlock (&self->lock);
    return code;
}

void
sim_ws_destroy (sim_ws_t **self_p)
{
    sim_ws_t *self = *self_p;
    if (!self)
        return;
    if (self->conn) {
        /* a page's close, then the server's close ends civetweb's client
           thread at once. mg_close_connection alone joins a thread that
           notices only at its next read timeout (0.5-2 s a page); a
           server that never answers costs the same after S_CLOSE_MS. */
        sim_ws_close (self, S_CLOSE_MS);
        mg_close_connection (self->conn); /* joins the client thread */
    }
    sim_ws_clear (self);
    pthread_cond_destroy (&self->arrived);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

int
sim_ws_send (sim_ws_t *self, const char *text)
{
    return mg_websocket_client_write (self->conn, MG_WEBSOCKET_OPCODE_TEXT, text, strlen (text)) > 0 ? 0 : -1;
}

static bool
s_matches (const cJSON *msg, const char *type, bool by_id, double id)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive (msg, "type");
    if (!cJSON_IsString (t) || strcmp (t->valuestring, type) != 0)
        return false;
    if (!by_id)
        return true;
    const cJSON *i = cJSON_GetObjectItemCaseSensitive (msg, "id");
    return cJSON_IsNumber (i) && i->valuedouble == id;
}

static cJSON *
s_take (sim_ws_t *self, const char *type, bool by_id, double id, int ms)
{
    struct timespec end = s_deadline (ms);
    pthread_mutex_lock (&self->lock);
    cJSON *found = NULL;
    for (;;) {
        while (self->len > 0 && !found) {
            cJSON *msg = self->queue[self->head];
            self->head = (self->head + 1) % S_QUEUE_MAX;
            self->len--;
            if (s_matches (msg, type, by_id, id))
                found = msg;
            else
                cJSON_Delete (msg);
        }
        if (found || self->closed)
            break;
        if (pthread_cond_timedwait (&self->arrived, &self->lock, &end) == ETIMEDOUT && self->len == 0)
            break;
    }
    pthread_mutex_unlock (&self->lock);
    return found;
}

cJSON *
sim_ws_wait (sim_ws_t *self, const char *type, int ms)
{
    return s_take (self, type, false, 0, ms);
}

cJSON *
sim_ws_result (sim_ws_t *self, double id, int ms)
{
    return s_take (self, "result", true, id, ms);
}

cJSON *
sim_ws_op (sim_ws_t *self, int id, const char *fields, int ms)
{
    char text[1024];
    int len = snprintf (text, sizeof text, "{\"id\":%d,%s}", id, fields);
    if (len < 0 || (size_t) len >= sizeof text || sim_ws_send (self, text) != 0)
        return NULL;
    return sim_ws_result (self, id, ms);
}

bool
sim_ws_ok (const cJSON *result)
{
    return cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (result, "ok"));
}

long
sim_ws_count (sim_ws_t *self, const char *type)
{
    pthread_mutex_lock (&self->lock);
    long n = strcmp (type, "world") == 0  ? self->worlds
           : strcmp (type, "result") == 0 ? self->results
           : strcmp (type, "status") == 0 ? self->statuses
                                          : self->others;
    pthread_mutex_unlock (&self->lock);
    return n;
}

long long
sim_ws_bytes (sim_ws_t *self)
{
    pthread_mutex_lock (&self->lock);
    long long n = self->bytes;
    pthread_mutex_unlock (&self->lock);
    return n;
}

void
sim_ws_clear (sim_ws_t *self)
{
    pthread_mutex_lock (&self->lock);
    while (self->len > 0) {
        cJSON_Delete (self->queue[self->head]);
        self->head = (self->head + 1) % S_QUEUE_MAX;
        self->len--;
    }
    pthread_mutex_unlock (&self->lock);
}

/* GET http://127.0.0.1:port/path: the connection with the answer's head
   read (*info), or NULL when there was no answer; close it with
   mg_close_connection. */
static struct mg_connection *
s_http_get (int port, const char *path, const struct mg_response_info **info)
{
    s_init_library ();
    char err[256] = "";
    struct mg_connection *conn = mg_connect_client ("127.0.0.1", port, 0, err, sizeof err);
    if (!conn)
        return NULL;
    mg_printf (conn, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (mg_get_response (conn, err, sizeof err, 10000) < 0 || !(*info = mg_get_response_info (conn))) {
        mg_close_connection (conn);
        return NULL;
    }
    return conn;
}

int
sim_http_get (int port, const char *path, char **body)
{
    *body = NULL;
    const struct mg_response_info *info;
    struct mg_connection *conn = s_http_get (port, path, &info);
    if (!conn)
        return -1;
    int status = info->status_code;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc (cap);
    int n;
    while (buf && (n = mg_read (conn, buf + len, cap - len - 1)) > 0) {
        len += (size_t) n;
        if (cap - len < 1024) {
            char *grown = realloc (buf, cap * 2);
            if (!grown)
                break;
            buf = grown;
            cap *= 2;
        }
    }
    if (buf)
        buf[len] = '\0';
    *body = buf;
    mg_close_connection (conn);
    return status;
}

int
sim_http_header (int port, const char *path, const char *name, char *value, size_t len)
{
    const struct mg_response_info *info;
    struct mg_connection *conn = s_http_get (port, path, &info);
    if (!conn)
        return -1;
    int count = 0;
    for (int i = 0; i < info->num_headers; i++)
        if (strcasecmp (info->http_headers[i].name, name) == 0) {
            count++;
            snprintf (value, len, "%s", info->http_headers[i].value);
        }
    mg_close_connection (conn);
    return count;
}

int
sim_ws_close_code (sim_ws_t *self)
{
    pthread_mutex_lock (&self->lock);
    int code = self->close_code;
    pthread_mutex_unlock (&self->lock);
    return code;
}
