/*  grs_gate.c - tournament mode on the grSim port (see grs_gate.h). */
#include "grs_gate.h"

#include <czmq.h>
#include <inttypes.h>

#include "grs_service_internal.h"
#include "common/base/sim_log.h"

sim_tournament_t *
grs_gate_new (const sim_config_t *cfg)
{
    char why[256] = "";
    sim_tournament_t *tournament = sim_tournament_new (&cfg->tournament, why, sizeof why);
    if (!tournament)
        sim_error ("tournament mode: %s", why);
    else if (sim_tournament_enabled (tournament))
        sim_info ("tournament mode on the grSim port: commands from each team's addresses, "
                  "replacements from control's");
    return tournament;
}

bool
grs_gate_refuses (grs_service_t *self, sim_role_t role, const struct sockaddr_in *from)
{
    /* grSim's commands are a team's: the "port" a role uses here is the
       one this packet part would need on the gateway */
    sim_tournament_verdict_t verdict = sim_tournament_check (self->tournament, role, from, false);
    if (verdict == SIM_TOURNAMENT_ALLOWED)
        return false;
    self->forbidden++;
    char why[160];
    sim_tournament_explain (verdict, role, from, why, sizeof why);
    uint64_t report = sim_tournament_refused (self->tournament, role, zclock_usecs ());
    if (report)
        sim_warn ("grSim port: %s; dropped (%" PRIu64 " since the last such line, %" PRIu64 " in all)", why,
                  report, self->forbidden);
    return true;
}
