/*  grs_stats.c - the legacy-grsim actor's Stats for the bus (see
    grs_stats.h). */
#include "grs_stats.h"

#include <czmq.h>

#include "grs_service_internal.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_udp.h"
#include "common/logs/sim_stats.h"

void
grs_stats_publish (grs_service_t *self)
{
    int64_t now = zclock_usecs ();
    Simbus__Stats st;
    sim_stats_begin (&st, sim_service_names[SIM_SERVICE_LEGACY], self->started_us);
    Simbus__PortStats port = SIMBUS__PORT_STATS__INIT, *ports[] = { &port };
    char text[2][48], *sources[2];
    port.name = (char *) "grsim";
    port.port = (uint32_t) (self->fd >= 0 ? sim_udp_local_port (self->fd) : 0);
    port.received = self->received;
    port.refused = self->dropped + self->forbidden;
    port.has_rate = true;
    port.rate = now > self->last_stats_us ? (double) (self->received - self->last_received) * 1e6
                                                / (double) (now - self->last_stats_us)
                                          : 0;
    port.sources = sources;
    for (int team = 0; team < 2; team++)
        if (self->have_peer[team]) {
            sim_udp_addr_str (&self->peer[team], text[port.n_sources], sizeof text[0]);
            sources[port.n_sources] = text[port.n_sources];
            port.n_sources++;
        }
    st.n_ports = 1;
    st.ports = ports;
    self->last_received = self->received;
    self->last_stats_us = now;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}
