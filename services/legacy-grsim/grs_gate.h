/*  grs_gate.h - tournament mode on the grSim port (docs/protocol.md,
    "Tournament mode"; the rules are sim_tournament.h's): a packet's
    commands move its team's robots and need that team's role, its
    replacement teleports anything and needs the control role. grSim
    answers nothing, so a refused part is dropped: counted (Stats'
    refused) and logged at most once a second, and a refused sender never
    becomes a team's Robots_Status peer.
*/
#ifndef GRS_GATE_H_INCLUDED
#define GRS_GATE_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>

#include "common/bus/sim_tournament.h"
#include "common/config/sim_config.h"

typedef struct grs_service_t grs_service_t;

/* The rules of cfg's [tournament]; NULL, logged, when they do not hold or
   out of memory. */
sim_tournament_t *grs_gate_new (const sim_config_t *cfg);

/* Whether tournament mode refuses a part of a packet from `from` that
   needs `role`; a refused one is counted and logged (at most once a
   second). */
bool grs_gate_refuses (grs_service_t *self, sim_role_t role, const struct sockaddr_in *from);

#endif
