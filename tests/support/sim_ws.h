/*  sim_ws.h - a real WebSocket and HTTP client of the viewer for tests and
    benchmarks (civetweb's client, cJSON to read the messages).

    Messages arrive on civetweb's client thread and wait, in order, in the
    client's queue; sim_ws_wait takes them out. Every wait is bounded and
    wakes on an arriving message (a condition variable), never a sleep.
*/
#ifndef SIM_WS_H_INCLUDED
#define SIM_WS_H_INCLUDED

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sim_ws_t sim_ws_t;

/* Connect to ws://127.0.0.1:port/path. NULL (reason on stderr) when the
   handshake fails. */
sim_ws_t *sim_ws_connect (int port, const char *path);

/* A page's close: a close frame (1000, normal) unless one went out
   already, then a wait of at most ms for the connection to end. Returns
   the code of the server's close frame (sim_ws_close_code), 0 when none
   came. The connection stays to be freed by sim_ws_destroy. */
int sim_ws_close (sim_ws_t *self, int ms);

/* Close (sim_ws_close, up to 2 s) and free; nulls *self_p. */
void sim_ws_destroy (sim_ws_t **self_p);

/* Send one text frame. Returns 0 or -1. */
int sim_ws_send (sim_ws_t *self, const char *text);

/* The first queued or arriving message whose "type" is `type` within ms;
   the messages before it are dropped. Yours to cJSON_Delete; NULL on
   timeout or a closed connection. */
cJSON *sim_ws_wait (sim_ws_t *self, const char *type, int ms);

/* The "result" with this id, within ms (other messages dropped). */
cJSON *sim_ws_result (sim_ws_t *self, double id, int ms);

/* An op as a page sends it: {"id":id,<fields>} (fields: the op's other
   members, e.g. "\"op\":\"pause\""), then its result within ms. Yours to
   cJSON_Delete; NULL when it could not be sent or no result came. */
cJSON *sim_ws_op (sim_ws_t *self, int id, const char *fields, int ms);

/* Whether a result says "ok": true. */
bool sim_ws_ok (const cJSON *result);

/* Messages of `type` received so far (taken or not), and bytes in all. */
long sim_ws_count (sim_ws_t *self, const char *type);
long long sim_ws_bytes (sim_ws_t *self);

/* The status code of the close frame the server sent (1005 for one
   without a code), 0 while none came. */
int sim_ws_close_code (sim_ws_t *self);

/* Drop every message queued but not taken. */
void sim_ws_clear (sim_ws_t *self);

/* GET http://127.0.0.1:port/path. Returns the status code and the body in
   *body (yours to free), or -1 when there was no answer. */
int sim_http_get (int port, const char *path, char **body);

/* GET http://127.0.0.1:port/path and the header `name` of the answer:
   how often it came (the last value in value, up to len), or -1 when there
   was no answer. */
int sim_http_header (int port, const char *path, const char *name, char *value, size_t len);

#endif
