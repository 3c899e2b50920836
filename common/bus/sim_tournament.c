/*  sim_tournament.c - tournament mode: the address lists of [tournament]
    and the decision per (port, source) (sim_tournament.h).
*/
#include "sim_tournament.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/base/sim_team.h"
#include "common/config/config.h"

struct sim_tournament_t {
    bool enabled;
    uint32_t addrs[3][SIM_TOURNAMENT_ADDRS_MAX]; /* by sim_role_t, network order */
    int count[3];
    uint64_t refused[3];
    uint64_t unreported; /* refusals since the last report */
    int64_t reported_us; /* time of the last report */
    bool reported;       /* there was one */
};

sim_tournament_t *
sim_tournament_new (const sim_tournament_cfg_t *cfg, char *why, size_t whylen)
{
    sim_tournament_t *self = calloc (1, sizeof *self);
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
            snprintf (why, whylen, "[tournament] %s: %s", sim_role_name (port), reason);
            sim_tournament_destroy (&self);
            return NULL;
        }
    }
    /* one address for both teams would let a team drive the other's robots */
    for (int i = 0; i < self->count[SIM_ROLE_BLUE]; i++)
        for (int j = 0; j < self->count[SIM_ROLE_YELLOW]; j++)
            if (self->addrs[SIM_ROLE_BLUE][i] == self->addrs[SIM_ROLE_YELLOW][j]) {
                char text[INET_ADDRSTRLEN] = "?";
                struct in_addr addr = { self->addrs[SIM_ROLE_BLUE][i] };
                inet_ntop (AF_INET, &addr, text, sizeof text);
                snprintf (why, whylen,
                          "[tournament] yellow: %s is blue's address too; a team may not use "
                          "the other team's port",
                          text);
                sim_tournament_destroy (&self);
                return NULL;
            }
    return self;
}

void
sim_tournament_destroy (sim_tournament_t **self_p)
{
    if (!*self_p)
        return;
    free (*self_p);
    *self_p = NULL;
}

bool
sim_tournament_enabled (const sim_tournament_t *self)
{
    return self->enabled;
}

unsigned
sim_tournament_roles (const sim_tournament_t *self, const struct sockaddr_in *from)
{
    unsigned roles = 0;
    for (int port = 0; port < 3; port++) {
        if (!self->enabled) {
            roles |= SIM_TOURNAMENT_ROLE (port);
            continue;
        }
        for (int i = 0; i < self->count[port]; i++)
            if (self->addrs[port][i] == from->sin_addr.s_addr)
                roles |= SIM_TOURNAMENT_ROLE (port);
    }
    return roles;
}

sim_tournament_verdict_t
sim_tournament_check (const sim_tournament_t *self, sim_role_t port, const struct sockaddr_in *from,
                      bool sync)
{
    unsigned roles = sim_tournament_roles (self, from);
    if (!(roles & SIM_TOURNAMENT_ROLE (port))) {
        unsigned teams = SIM_TOURNAMENT_ROLE (SIM_ROLE_BLUE) | SIM_TOURNAMENT_ROLE (SIM_ROLE_YELLOW);
        return port != SIM_ROLE_CONTROL && (roles & teams) ? SIM_TOURNAMENT_OTHER_TEAM
                                                           : SIM_TOURNAMENT_NOT_LISTED;
    }
    if (sync && !(roles & SIM_TOURNAMENT_ROLE (SIM_ROLE_CONTROL)))
        return SIM_TOURNAMENT_NO_SYNC;
    return SIM_TOURNAMENT_ALLOWED;
}

const char *
sim_tournament_explain (sim_tournament_verdict_t verdict, sim_role_t port, const struct sockaddr_in *from,
                        char *buf, size_t size)
{
    char addr[INET_ADDRSTRLEN] = "?";
    inet_ntop (AF_INET, &from->sin_addr, addr, sizeof addr);
    const char *other = sim_team_name (port == SIM_ROLE_BLUE ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE);
    switch (verdict) {
    case SIM_TOURNAMENT_ALLOWED:
        snprintf (buf, size, "tournament mode: %s may use the %s port", addr, sim_role_name (port));
        break;
    case SIM_TOURNAMENT_NOT_LISTED:
        snprintf (buf, size, "tournament mode: %s is not in [tournament] %s; the %s port refuses it", addr,
                  sim_role_name (port), sim_role_name (port));
        break;
    case SIM_TOURNAMENT_OTHER_TEAM:
        snprintf (buf, size, "tournament mode: %s is %s's address and may not use the %s port", addr, other,
                  sim_role_name (port));
        break;
    case SIM_TOURNAMENT_NO_SYNC:
        snprintf (buf, size, "tournament mode: sync requests only from [tournament] control, not from %s",
                  addr);
        break;
    }
    return buf;
}

uint64_t
sim_tournament_refused (sim_tournament_t *self, sim_role_t port, int64_t now_us)
{
    self->refused[port]++;
    self->unreported++;
    if (self->reported && now_us - self->reported_us < SIM_TOURNAMENT_LOG_US)
        return 0;
    uint64_t n = self->unreported;
    self->unreported = 0;
    self->reported_us = now_us;
    self->reported = true;
    return n;
}

uint64_t
sim_tournament_refused_count (const sim_tournament_t *self, sim_role_t port)
{
    return self->refused[port];
}
