/*  gw_port.h - the gateway's three UDP ports (protocol.md §1): which kind a
    port is, its name in logs, errors and Stats ("control", "blue",
    "yellow"), and the team a team port speaks for. One home for these, so
    the actor, tournament mode and the pending table name a port alike.
    Pure and inline.
*/
#ifndef GW_PORT_H_INCLUDED
#define GW_PORT_H_INCLUDED

#include "common/base/sim_team.h"

/* numbered like tournament mode's roles (sim_tournament.h), whose port
   each is */
typedef enum { GW_PORT_CONTROL = 0, GW_PORT_BLUE = 1, GW_PORT_YELLOW = 2 } gw_port_kind_t;

/* The team whose port `port` is: yellow for GW_PORT_YELLOW, blue for the
   others (the control port has no team; callers ask only of team ports). */
static inline sim_team_t
gw_port_team (gw_port_kind_t port)
{
    return port == GW_PORT_YELLOW ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
}

/* "control", "blue" or "yellow" (static storage). */
static inline const char *
gw_port_name (gw_port_kind_t port)
{
    return port == GW_PORT_CONTROL ? "control" : sim_team_name (gw_port_team (port));
}

#endif
