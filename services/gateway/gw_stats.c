/*  gw_stats.c - the gateway's Stats for the bus (see gw_stats.h). */
#include "gw_stats.h"

#include "gateway_internal.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_udp.h"
#include "common/logs/sim_stats.h"
#include "common/bus/sim_service.h"

void
gw_stats_publish (gw_service_t *self, int64_t now)
{
    Simbus__Stats st;
    sim_stats_begin (&st, sim_service_names[SIM_SERVICE_GATEWAY], self->started_us);
    Simbus__PortStats ports[3], *port_ptrs[3];
    char text[3][GW_STAT_SOURCES][32];
    char *source_ptrs[3][GW_STAT_SOURCES];
    for (int i = 0; i < 3; i++) {
        gw_port_stats_t *s = &self->stats[i];
        simbus__port_stats__init (&ports[i]);
        ports[i].name = (char *) gw_port_name ((gw_port_kind_t) i);
        ports[i].port = (uint32_t) (self->fds[i] >= 0 ? sim_udp_local_port (self->fds[i]) : 0);
        ports[i].received = s->received;
        ports[i].refused = s->refused;
        ports[i].lost = s->lost;
        ports[i].has_rate = true;
        ports[i].rate = now > self->last_stats_us ? (double) (s->received - s->last_received) * 1e6
                                                        / (double) (now - self->last_stats_us)
                                                  : 0;
        s->last_received = s->received;
        ports[i].sources = source_ptrs[i];
        struct sockaddr_in recent[GW_STAT_SOURCES];
        int n = gw_sources_recent (self->sources, i, now - GW_SOURCE_SEEN_US, recent, GW_STAT_SOURCES);
        for (int k = 0; k < n; k++) {
            sim_udp_addr_str (&recent[k], text[i][k], sizeof text[i][k]);
            source_ptrs[i][k] = text[i][k];
        }
        ports[i].n_sources = (size_t) n;
        port_ptrs[i] = &ports[i];
    }
    self->last_stats_us = now;
    st.n_ports = 3;
    st.ports = port_ptrs;
    st.has_sync_round_trips = true;
    st.sync_round_trips = self->sync_answers;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}
