/*  gw_tournament.c - tournament mode: the address lists of [tournament]
    and the decision per (port, source) (gw_tournament.h).
*/
#include "gw_tournament.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/config/config.h"

struct gw_tournament_t {
    bool enabled;
    uint32_t addrs[3][SIM_TOURNAMENT_ADDRS_MAX]; /* by gw_port_kind_t, network order */
    int count[3];
    uint64_t refused[3];
    uint64_t unreported; /* refusals since the last report */
    int64_t reported_us; /* time of the last report */
    bool reported;       /* there was one */
};

gw_tournament_t *
gw_tournament_new (const sim_tournament_cfg_t *cfg, char *why, size_t whylen)
{
    gw_tournament_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (why, whylen, "out of memory");
        return NULL;
    }
    self->enabled = cfg->enabled;
    const char *lists[3] = { cfg->control, cfg->blue, cfg->yellow };
    for (int port = 0; port < 3; port++) {
        char reason[200];
        self->count[port] = sim_config_addr_list (lists[port], self->addrs[port], SIM_TOURNAMENT_ADDRS_MAX,
                                                  reason, sizeof reason);
        if (self->count[port] < 0) {
            snprintf (why, whylen, "[tournament] %s: %s", gw_port_name (port), reason);
            gw_tournament_destroy (&self);
            return NULL;
        }
    }
    /* one address for both teams would let a team drive the other's robots */
    for (int i = 0; i < self->count[GW_PORT_BLUE]; i++)
        for (int j = 0; j < self->count[GW_PORT_YELLOW]; j++)
            if (self->addrs[GW_PORT_BLUE][i] == self->addrs[GW_PORT_YELLOW][j]) {
                char text[INET_ADDRSTRLEN] = "?";
                struct in_addr addr = { self->addrs[GW_PORT_BLUE][i] };
                inet_ntop (AF_INET, &addr, text, sizeof text);
                snprintf (why, whylen,
                          "[tournament] yellow: %s is blue's address too; a team may not use "
                          "the other team's port",
                          text);
                gw_tournament_destroy (&self);
                return NULL;
            }
    return self;
}

void
gw_tournament_destroy (gw_tournament_t **self_p)
{
    if (!*self_p)
        return;
    free (*self_p);
    *self_p = NULL;
}

bool
gw_tournament_enabled (const gw_tournament_t *self)
{
    return self->enabled;
}

unsigned
gw_tournament_roles (const gw_tournament_t *self, const struct sockaddr_in *from)
{
    unsigned roles = 0;
    for (int port = 0; port < 3; port++) {
        if (!self->enabled) {
            roles |= GW_TOURNAMENT_ROLE (port);
            continue;
        }
        for (int i = 0; i < self->count[port]; i++)
            if (self->addrs[port][i] == from->sin_addr.s_addr)
                roles |= GW_TOURNAMENT_ROLE (port);
    }
    return roles;
}

gw_tournament_verdict_t
gw_tournament_check (const gw_tournament_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
                     bool sync)
{
    unsigned roles = gw_tournament_roles (self, from);
    if (!(roles & GW_TOURNAMENT_ROLE (port))) {
        unsigned teams = GW_TOURNAMENT_ROLE (GW_PORT_BLUE) | GW_TOURNAMENT_ROLE (GW_PORT_YELLOW);
        return port != GW_PORT_CONTROL && (roles & teams) ? GW_TOURNAMENT_OTHER_TEAM
                                                          : GW_TOURNAMENT_NOT_LISTED;
    }
    if (sync && !(roles & GW_TOURNAMENT_ROLE (GW_PORT_CONTROL)))
        return GW_TOURNAMENT_NO_SYNC;
    return GW_TOURNAMENT_ALLOWED;
}

const char *
gw_tournament_explain (gw_tournament_verdict_t verdict, gw_port_kind_t port, const struct sockaddr_in *from,
                       char *buf, size_t size)
{
    char addr[INET_ADDRSTRLEN] = "?";
    inet_ntop (AF_INET, &from->sin_addr, addr, sizeof addr);
    const char *other = sim_team_name (port == GW_PORT_BLUE ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE);
    switch (verdict) {
    case GW_TOURNAMENT_ALLOWED:
        snprintf (buf, size, "tournament mode: %s may use the %s port", addr, gw_port_name (port));
        break;
    case GW_TOURNAMENT_NOT_LISTED:
        snprintf (buf, size, "tournament mode: %s is not in [tournament] %s; the %s port refuses it", addr,
                  gw_port_name (port), gw_port_name (port));
        break;
    case GW_TOURNAMENT_OTHER_TEAM:
        snprintf (buf, size, "tournament mode: %s is %s's address and may not use the %s port", addr, other,
                  gw_port_name (port));
        break;
    case GW_TOURNAMENT_NO_SYNC:
        snprintf (buf, size, "tournament mode: sync requests only from [tournament] control, not from %s",
                  addr);
        break;
    }
    return buf;
}

uint64_t
gw_tournament_refused (gw_tournament_t *self, gw_port_kind_t port, int64_t now_us)
{
    self->refused[port]++;
    self->unreported++;
    if (self->reported && now_us - self->reported_us < GW_TOURNAMENT_LOG_US)
        return 0;
    uint64_t n = self->unreported;
    self->unreported = 0;
    self->reported_us = now_us;
    self->reported = true;
    return n;
}

uint64_t
gw_tournament_refused_count (const gw_tournament_t *self, gw_port_kind_t port)
{
    return self->refused[port];
}
