/*  viewer.h - the browser viewer service (docs/viewer.md): a bus consumer
    that serves the field view page, a WebSocket with the world, the
    status and the page's actions, /metrics and /healthz over HTTP.

    With no page connected it reads only the configuration and the
    services' Stats (a few messages a second); the first page makes it
    subscribe to snapshots, events and frames, the last one leaving ends
    that. Each page gets a "world" only when it asked for one, always the
    newest state, so a slow page is sent less, never a queue.

    Actor: sim_service_start (vw_service_actor, args).
*/
#ifndef VW_SERVICE_H_INCLUDED
#define VW_SERVICE_H_INCLUDED

#include <czmq.h>
#include <stddef.h>

#include "common/config/sim_config.h"

void vw_service_actor (zsock_t *pipe, void *args);

/* The directory the page's files are served from: [viewer] www_dir when
   set, else the installed PREFIX/share/ssl-sim/www next to this
   executable's bin/, else the source tree's services/viewer/www (a build
   that was not installed). Writes it into buf; returns 0, or -1 when
   none of them has an index.html. */
int vw_www_dir (const sim_config_t *cfg, char *buf, size_t len);

/* The page's address as the running viewer of cfg's runtime directory
   announced it (for `ssl-sim status`): http://HOST:PORT/, with
   #token=... when its actions need the token (docs/viewer.md "The
   door"). Returns 0, or -1 when no viewer wrote one. */
int vw_viewer_url (const sim_config_t *cfg, char *buf, size_t len);

#endif
