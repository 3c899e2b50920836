/*  sim_team.h - the one place where a team changes form. A team is
    sim_team_t inside the simulator (sim_params.h: 0 blue, 1 yellow); the
    bus carries that same number (TeamControl.team, Snapshot.robot_team);
    the league's messages carry the Team enum of ssl_gc_common.proto
    (YELLOW = 1, BLUE = 2, UNKNOWN = 0: not the same numbers); grSim says
    `yellowteam`; people, logs, the viewer's JSON and the config's team
    sections ([blue], [yellow.drive]) say "blue" and "yellow".

    Every conversion between these forms is one of the functions below, so
    no caller writes `== 1 ? SIM_TEAM_YELLOW` or `? TEAM__YELLOW` again.
    Pure and inline: no state, no allocation.
*/
#ifndef SIM_TEAM_H_INCLUDED
#define SIM_TEAM_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim_params.h"
#include "ssl_gc_common.pb-c.h"

/* The team the bus numbers n: 1 is yellow, any other number blue (a
   decoder that must refuse other numbers checks them first). */
static inline sim_team_t
sim_team_from_number (uint64_t n)
{
    return n == 1 ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
}

/* The number the bus carries for `team`: 0 blue, 1 yellow. */
static inline uint32_t
sim_team_number (sim_team_t team)
{
    return team == SIM_TEAM_YELLOW ? 1 : 0;
}

/* The team of a yes/no "is it yellow" flag (grSim's yellowteam). */
static inline sim_team_t
sim_team_from_yellow (bool yellow)
{
    return yellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
}

/* The league's Team enum value for `team`. */
static inline Team
sim_team_league (sim_team_t team)
{
    return team == SIM_TEAM_YELLOW ? TEAM__YELLOW : TEAM__BLUE;
}

/* The team of a league Team value: SIM_TEAM_BLUE or SIM_TEAM_YELLOW, or -1
   for UNKNOWN and any value the enum does not have. */
static inline int
sim_team_from_league (int league)
{
    return league == TEAM__YELLOW ? SIM_TEAM_YELLOW : league == TEAM__BLUE ? SIM_TEAM_BLUE : -1;
}

/* "blue" or "yellow" (static storage). */
static inline const char *
sim_team_name (sim_team_t team)
{
    return team == SIM_TEAM_YELLOW ? "yellow" : "blue";
}

/* The team called `name` ("blue" or "yellow", exactly): SIM_TEAM_BLUE or
   SIM_TEAM_YELLOW, or -1 for any other text. */
static inline int
sim_team_parse (const char *name)
{
    if (strcmp (name, "blue") == 0)
        return SIM_TEAM_BLUE;
    if (strcmp (name, "yellow") == 0)
        return SIM_TEAM_YELLOW;
    return -1;
}

#endif
