/*  vw_door.h - who may come in through the viewer's HTTP port, and who
    may act (docs/viewer.md "The door").

    Every request must name the viewer by a Host it serves: with a
    loopback listen address `localhost` or a loopback IP literal; with any
    other listen address also an IP literal of this host (0.0.0.0: any IP
    literal) and this machine's name (alone or followed by a domain). A
    host name an attacker controls (DNS rebinding) is refused before
    anything is read, /metrics included. A WebSocket handshake must come
    without Origin (not a browser) or with the viewer's own origin,
    http://HOST that the Host names. Refusals are 403 with one log line,
    at most one a second (the count since the previous line).

    Acting (every op but "next") needs the token when the viewer listens
    beyond loopback or when tournament mode is on; in tournament mode the
    page's address must also be in [tournament] control, as the operator's
    datagrams must. The token is 32 random bytes in hex, kept in the
    runtime directory as viewer.token (mode 0600) and reused while that
    file exists, so a viewer restarted alone keeps the pages' token.

    The pure checks take strings; the refusal counter is locked inside.
*/
#ifndef VW_DOOR_H_INCLUDED
#define VW_DOOR_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"

#define VW_DOOR_TOKEN_LEN 64      /* hex characters */
#define VW_DOOR_LOG_US    1000000 /* refusals logged at most once a second */
#define VW_DOOR_FILE      "viewer.token"
#define VW_DOOR_URL_FILE  "viewer.url" /* the page's address while the viewer runs */

typedef struct vw_door_t vw_door_t;

/* The door of a viewer listening on listen_host:port under cfg (copied).
   With `token_dir` (the runtime directory) and a token needed, the token
   is read from or written to token_dir/viewer.token; with token_dir, the
   page's address (vw_door_url) is written to token_dir/viewer.url and
   removed by vw_door_destroy. NULL (logged) when the token cannot be kept
   or the tournament list does not parse. */
vw_door_t *vw_door_new (const sim_config_t *cfg, const char *listen_host, int port, const char *token_dir);
void vw_door_destroy (vw_door_t **self_p);

/* Whether a request whose Host header is `host` (NULL: none) names this
   viewer. */
bool vw_door_host_ok (const vw_door_t *self, const char *host);

/* Whether a WebSocket handshake with these Origin and Host headers (NULL:
   absent) comes from the viewer's own page or from no browser. */
bool vw_door_origin_ok (const vw_door_t *self, const char *origin, const char *host);

/* Whether ops need the token: listening beyond loopback, or tournament
   mode. The first for a configuration and listen host, the second for
   this door. */
bool vw_door_token_needed (const sim_config_t *cfg, const char *listen_host);
bool vw_door_needs_token (const vw_door_t *self);

/* The token ("" when none is needed); borrowed, lives as the door. */
const char *vw_door_token (const vw_door_t *self);

/* Whether a WebSocket URL's query string (NULL: none) carries the token,
   as token=HEX; true when no token is needed. Constant time in the
   token's characters. */
bool vw_door_token_ok (const vw_door_t *self, const char *query);

/* May a page at `remote_ip` (civetweb's dotted text) that holds the token
   or not act? 0, or -1 with the FORBIDDEN message in why. */
int vw_door_may_act (const vw_door_t *self, const char *remote_ip, bool has_token, char *why, size_t whylen);

/* The door's verdict on one request, from what civetweb read of its
   head: the method, the path (no query), the query string, and the Host,
   Origin and Upgrade headers (NULL: absent). */
typedef struct {
    int status;      /* 0: let in; else the HTTP status to refuse with (403, 405) */
    const char *why; /* the refusal's sentence (static), NULL when let in */
    bool handshake;  /* a WebSocket handshake at /ws: a page to count */
    bool has_token;  /* a handshake whose query carries the token (or none is needed) */
} vw_door_verdict_t;

/* Decide on a request before anything answers it: a Host this viewer
   serves, GET or HEAD, and for a handshake the viewer's own Origin (or
   none) and whether it holds the token. Pure but for reading the door;
   returns verdict.status. The page limits are the server's (vw_http). */
int vw_door_admit (const vw_door_t *self, const char *method, const char *path, const char *query,
                   const char *host, const char *origin, const char *upgrade, vw_door_verdict_t *verdict);

/* Count one refusal at now_us; returns how many to report in a log line
   now (this one and those since the last line), 0 within VW_DOOR_LOG_US of
   the last line. Any thread. */
uint64_t vw_door_refused (vw_door_t *self, int64_t now_us);

/* The token kept in dir/viewer.token, into token; 0, or -1 when there is
   none (or the file is not a private one of this user's). */
int vw_door_read_token (const char *dir, char token[VW_DOOR_TOKEN_LEN + 1]);

/* The page's address for a viewer on listen_host:port, with #token=TOKEN
   when token is not NULL or "" (the page takes it from there): this
   machine's name for 0.0.0.0. */
void vw_door_url (const char *listen_host, int port, const char *token, char *buf, size_t len);

/* The page's address a running viewer wrote to dir/viewer.url, into
   buf; 0, or -1 when there is none. */
int vw_door_read_url (const char *dir, char *buf, size_t len);

/* Whether `host` (a [viewer] addr host part) is on loopback: 127.0.0.0/8,
   ::1 or localhost. */
bool vw_door_is_loopback (const char *host);

#endif
