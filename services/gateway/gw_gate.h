/*  gw_gate.h - tournament mode at the actor's door (sim_tournament.h has
    the rules): the rules read and told in the log as the gateway starts,
    and every datagram a port may not take answered FORBIDDEN before it is
    decoded, so it takes no pending slot and never reaches physics.
*/
#ifndef GW_GATE_H_INCLUDED
#define GW_GATE_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>

#include "gw_port.h"
#include "common/bus/sim_tournament.h"
#include "common/config/sim_config.h"

typedef struct gw_service_t gw_service_t;

/* The rules of cfg's [tournament], and a line that says them when they
   are on. NULL, logged, when they do not hold or out of memory. */
sim_tournament_t *gw_gate_new (const sim_config_t *cfg);

/* Whether tournament mode refuses a datagram from `from` on `port` (a
   sync request when sync). A refused one has been answered FORBIDDEN in
   the port's response (a sync request's in a SimulationSyncResponse),
   counted, and logged at most once a second. */
bool gw_gate_refuses (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync);

#endif
