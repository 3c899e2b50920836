/*  gw_fairness.h - the gateway's fairness rules in one place
    (docs/protocol.md, "Fairness" and "Amplification"): how much of the
    pending table each port and each source address may hold (gw_pending),
    how many sync requests may wait for their turn (gw_pace) and what a
    refused request hears (BUSY). How large an answer a source
    may get is sim_trust's.

    The actor makes its table here and answers a refusal with
    gw_fairness_answer_busy.
*/
#ifndef GW_FAIRNESS_H_INCLUDED
#define GW_FAIRNESS_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "gw_pace.h"
#include "gw_pending.h"
#include "gw_port.h"

#define GW_PORT_SHARE   512                 /* pending requests one port may hold: its reserved third */
#define GW_PENDING_MAX  (3 * GW_PORT_SHARE) /* the whole table */
#define GW_SOURCE_SHARE 256                 /* pending requests one source address (ip:port) may hold */
/* sync requests waiting for their turn (gw_pace): in all, from one source */
#define GW_PACE_WAITING    64
#define GW_PACE_PER_SOURCE 4

typedef struct gw_service_t gw_service_t;

/* The pending table with every port's and source's share; NULL when out
   of memory. */
gw_pending_t *gw_fairness_pending_new (void);

/* The table of sync requests waiting for their turn; NULL when out of
   memory. */
gw_pace_t *gw_fairness_pace_new (void);

/* A request the pending table refused (gw_pending_add returned NULL),
   answered at once with BUSY and the share it met, so a client that asks
   too much hears so (a sync request's in a SimulationSyncResponse). */
void gw_fairness_answer_busy (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
                              bool sync);

#endif
