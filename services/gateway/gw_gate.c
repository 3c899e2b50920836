/*  gw_gate.c - tournament mode's start-up lines and FORBIDDEN answers (see
    gw_gate.h). */
#include "gw_gate.h"

#include <inttypes.h>

#include "gateway_internal.h"
#include "gw_answers.h"
#include "common/base/sim_log.h"

gw_tournament_t *
gw_gate_new (const sim_config_t *cfg)
{
    char why[256] = "";
    gw_tournament_t *tournament = gw_tournament_new (&cfg->tournament, why, sizeof why);
    if (!tournament)
        sim_error ("tournament mode: %s", why);
    else if (gw_tournament_enabled (tournament)) {
        sim_info ("tournament mode: blue %s; yellow %s; control %s", cfg->tournament.blue,
                  cfg->tournament.yellow, cfg->tournament.control);
        if (cfg->run.legacy_grsim)
            sim_warn ("tournament mode does not cover the grSim port; set [run] legacy_grsim = false");
    }
    return tournament;
}

bool
gw_gate_refuses (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync)
{
    gw_tournament_verdict_t verdict = gw_tournament_check (self->tournament, port, from, sync);
    if (verdict == GW_TOURNAMENT_ALLOWED)
        return false;
    char why[160];
    gw_tournament_explain (verdict, port, from, why, sizeof why);
    uint64_t report = gw_tournament_refused (self->tournament, port, zclock_usecs ());
    if (report > 1)
        sim_warn ("%s (%" PRIu64 " refused since the last such line, %" PRIu64 " on the %s port in all)", why,
                  report, gw_tournament_refused_count (self->tournament, port), gw_port_name (port));
    else if (report)
        sim_warn ("%s (%" PRIu64 " on the %s port in all)", why,
                  gw_tournament_refused_count (self->tournament, port), gw_port_name (port));
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "FORBIDDEN", "%s", why);
    gw_answer_errors (self, port, from, sync, &errors);
    return true;
}
