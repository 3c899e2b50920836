/*  vw_hub.h - what the viewer's loop (viewer.c) and the HTTP server's
    threads (vw_http.c) share, under one lock.

    The loop owns the bus: it publishes here the texts every page gets
    (hello, geometry, status), the status numbers /metrics and /healthz
    read, and what an op needs (vw_ops_ctx_t). The server's threads add and
    remove clients, mark a client's {"op":"next"}, and wake the loop by a
    byte on `wake` (a pipe the loop polls); every server -> page message
    but an op's "result" is written by the loop.
*/
#ifndef VW_HUB_H_INCLUDED
#define VW_HUB_H_INCLUDED

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vw_json.h"
#include "vw_ops.h"

#define VW_CLIENTS_MAX      32      /* WebSocket pages at once; more are refused (503) */
#define VW_CLIENTS_PER_ADDR 8       /* of them from one address */
#define VW_ALIVE_US         3000000 /* a service heard from this recently is alive */
#define VW_PLAYER_OPS       16      /* a log's timeline ops waiting for the loop */

struct mg_connection;

typedef struct {
    struct mg_connection *conn; /* NULL: free slot */
    bool greeted;               /* hello, geometry and status sent */
    bool want;                  /* asked for a "world" and has none outstanding */
    bool dead;                  /* a send failed: sent nothing more until it closes */
    bool closed;                /* a close frame went to it: no other (RFC 6455, 5.5.1) */
    uint64_t sent_serial;       /* state serial of the last "world" it got */
    uint64_t kick_seq;          /* kicks up to this one were sent to it */
    uint64_t command_seq;       /* robot commands up to this one were sent to it */
    int64_t asked_us;           /* its last "next" (or its arrival), zclock_usecs */
    char addr[48];              /* its remote address, civetweb's text */
} vw_client_t;

typedef struct {
    pthread_mutex_t lock;
    int wake[2]; /* [0] polled by the loop, [1] written by the server */

    /* published by the loop */
    char *hello, *geometry; /* JSON texts (owned) */
    vw_status_t status;     /* alive[] recomputed from heard_us when read */
    int64_t heard_us[VW_SERVICES];
    vw_ops_ctx_t ctx;
    struct sockaddr_in control;
    bool have_config;
    int64_t started_us;

    /* the pages' ops, one at a time (ops_lock) from one socket
       (vw_ops_socket, made by the loop before the server starts, then
       never changed), so the gateway counts the viewer as one sender */
    pthread_mutex_t ops_lock;
    int ops_fd;   /* -1: none could be made */
    int ops_port; /* its port, for the status */

    /* `ssl-sim play` (vw_player.h): the page's ops go to the player, not
       the gateway; the server queues them here and wakes the loop */
    bool player;
    char *marks; /* the log's referee marks for the timeline (JSON, owned; NULL: none) */
    vw_op_t player_ops[VW_PLAYER_OPS];
    int n_player_ops;

    /* kept by the server */
    vw_client_t clients[VW_CLIENTS_MAX];
    int client_count;
    uint64_t ops; /* ops answered, for the log */
} vw_hub_t;

/* A hub with no clients and no state; NULL on failure. */
vw_hub_t *vw_hub_new (void);
void vw_hub_destroy (vw_hub_t **self_p);

/* The timeline ops the pages queued (`ssl-sim play` and `replay`), in
   order, moved into ops (the loop's thread; takes the lock). Returns how
   many. */
int vw_hub_take_player_ops (vw_hub_t *self, vw_op_t ops[VW_PLAYER_OPS]);

/* Whether the close frame the page on conn sent needs the viewer's own
   in answer (RFC 6455, 5.5.1: one close frame each way): true once per
   page, and never after vw_pages_close told it, whose frame is then the
   answer. A program that closes and waits for the answer, as WebSocket
   libraries do, then sees a clean close rather than a dropped
   connection. Takes the lock; the answer is written outside it. */
bool vw_hub_answer_close (vw_hub_t *self, const struct mg_connection *conn);

/* Wake the loop (any thread). */
void vw_hub_wake (vw_hub_t *self);

/* With the lock held: which services are alive at now_us (zclock_usecs). */
void vw_hub_alive (const vw_hub_t *self, int64_t now_us, bool alive[VW_SERVICES]);

#endif
