/*  gw_gate.c - tournament mode's start-up lines and FORBIDDEN answers (see
    gw_gate.h). */
#include "gw_gate.h"

#include <inttypes.h>

#include "gateway_internal.h"
#include "gw_answers.h"
#include "common/base/sim_log.h"

_Static_assert(GW_PORT_CONTROL == (int) SIM_ROLE_CONTROL && GW_PORT_BLUE == (int) SIM_ROLE_BLUE
                   && GW_PORT_YELLOW == (int) SIM_ROLE_YELLOW,
               "each gateway port is the port of the tournament role of its number");

sim_tournament_t *
gw_gate_new (const sim_config_t *cfg)
{
    char why[256] = "";
    sim_tournament_t *tournament = sim_tournament_new (&cfg->tournament, why, sizeof why);
    if (!tournament)
        sim_error ("tournament mode: %s", why);
    else if (sim_tournament_enabled (tournament)) {
        sim_info ("tournament mode: blue %s; yellow %s; control %s", cfg->tournament.blue,
                  cfg->tournament.yellow, cfg->tournament.control);
    }
    return tournament;
}

bool
gw_gate_refuses (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync)
{
    sim_role_t role = (sim_role_t) port; /* the port of each role (gw_port.h) */
    sim_tournament_verdict_t verdict = sim_tournament_check (self->tournament, role, from, sync);
    if (verdict == SIM_TOURNAMENT_ALLOWED)
        return false;
    char why[160];
    sim_tournament_explain (verdict, role, from, why, sizeof why);
    uint64_t report = sim_tournament_refused (self->tournament, role, zclock_usecs ());
    if (report > 1)
        sim_warn ("%s (%" PRIu64 " refused since the last such line, %" PRIu64 " on the %s port in all)", why,
                  report, sim_tournament_refused_count (self->tournament, role), gw_port_name (port));
    else if (report)
        sim_warn ("%s (%" PRIu64 " on the %s port in all)", why,
                  sim_tournament_refused_count (self->tournament, role), gw_port_name (port));
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "FORBIDDEN", "%s", why);
    gw_answer_errors (self, port, from, sync, &errors);
    return true;
}
