/*  gw_clientlog.h - what the gateway says about its clients: the first
    datagram from each source on each port (at most GW_NEWS_PER_WINDOW
    lines per window, so a flood of forged sources cannot flood the log),
    each configuration change a client asks for with its source (an
    operator sees who changed the field, the realism or the speed), and,
    with --journal, the sender's name a request carries into the journal
    (docs/logs.md).
*/
#ifndef GW_CLIENTLOG_H_INCLUDED
#define GW_CLIENTLOG_H_INCLUDED

#include <netinet/in.h>
#include <stddef.h>

#include "gw_port.h"
#include "bus/sim_bus.pb-c.h"
#include "ssl_simulation_control.pb-c.h"

#define GW_SOURCES         64      /* client sources remembered per port, for the log (gw_sources) */
#define GW_REPEAT_US       5000000 /* the same change from the same source is logged once this long */
#define GW_NEWS_PER_WINDOW 16      /* new sources logged per window; a flood of forged ones is counted */
#define GW_NEWS_WINDOW_US  10000000

typedef struct gw_service_t gw_service_t;

/* "first datagram from A on the P port", or counted when the window has
   had its share of such lines (told in one line when the next window
   starts). */
void gw_clientlog_new_source (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from);

/* Log what configuration `cmd` (may be NULL) from `from` asks to change.
   Physics may still refuse it (the client gets the errors). The same
   request from the same source again within GW_REPEAT_US is not logged
   again (some clients repeat their setup with every packet). */
void gw_clientlog_changes (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
                           const SimulatorCommand *cmd);

/* With --journal FILE: req->source names its sender ("blue port,
   ip:port"), the text kept in buf[size] until the request is sent;
   without, nothing is added. */
void gw_clientlog_source (const gw_service_t *self, Simbus__Request *req, gw_port_kind_t port,
                          const struct sockaddr_in *from, char *buf, size_t size);

#endif
