/*  vw_http.h - the viewer's HTTP server (civetweb): the page's files from
    the www directory, the WebSocket at /ws, /metrics and /healthz
    (docs/viewer.md). Its threads read and write the hub (vw_hub.h) and
    answer each op with one UDP round trip to the gateway (vw_ops.h).
*/
#ifndef VW_HTTP_H_INCLUDED
#define VW_HTTP_H_INCLUDED

#include "vw_door.h"
#include "vw_hub.h"

typedef struct vw_http_t vw_http_t;

/* Listen on `host`:`port` serving `www_dir` (borrowed for the call only);
   the hub and the door (who may come in and act, vw_door.h) are borrowed
   and must outlive the server. NULL (logged: which address and why) when
   the server cannot start. */
vw_http_t *vw_http_new (const char *host, int port, const char *www_dir, vw_hub_t *hub, vw_door_t *door);

/* Stop: close every connection and join the threads. Nulls *self_p. */
void vw_http_destroy (vw_http_t **self_p);

/* Write `text` to one page as a text frame (any thread; civetweb locks
   the connection). Returns 0, or -1 when it could not be sent. */
int vw_http_send (struct mg_connection *conn, const char *text);

/* Write a close frame to one page with status `code` (RFC 6455, 7.4; 0:
   none), as vw_http_send. Returns 0 or -1. */
int vw_http_close (struct mg_connection *conn, int code);

#endif
