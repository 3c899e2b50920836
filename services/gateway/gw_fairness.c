/*  gw_fairness.c - the shares of the pending table and the BUSY answer
    (see gw_fairness.h). */
#include "gw_fairness.h"

#include "gateway_internal.h"
#include "gw_answers.h"

gw_pending_t *
gw_fairness_pending_new (void)
{
    gw_pending_t *pending = gw_pending_new (GW_PENDING_MAX);
    if (pending)
        gw_pending_set_quota (pending, GW_PORT_SHARE, GW_SOURCE_SHARE);
    return pending;
}

gw_pace_t *
gw_fairness_pace_new (void)
{
    return gw_pace_new (GW_PACE_WAITING, GW_PACE_PER_SOURCE);
}

void
gw_fairness_answer_busy (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync)
{
    gw_admit_t why = gw_pending_admit (self->pending, port, from);
    sim_errors_t errors;
    sim_errors_init (&errors);
    if (why == GW_ADMIT_OK && sync)
        sim_errors_add (&errors, "BUSY",
                        "sync steps run one at a time and %d wait their turn (at most %d from one address)",
                        gw_pace_count (self->pace), GW_PACE_PER_SOURCE);
    else if (why == GW_ADMIT_SOURCE)
        sim_errors_add (&errors, "BUSY", "%d requests from this address already wait for the simulator",
                        GW_SOURCE_SHARE);
    else if (why == GW_ADMIT_PORT)
        sim_errors_add (&errors, "BUSY", "%d requests on the %s port already wait for the simulator",
                        GW_PORT_SHARE, gw_port_name (port));
    else
        sim_errors_add (&errors, "BUSY", "the gateway cannot take the request now");
    gw_answer_errors (self, port, from, sync, &errors);
}
