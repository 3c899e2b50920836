/*  sim_trust.c - the sources that get full answers (see sim_trust.h). */
#include "sim_trust.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/config/config.h"

#define S_ADDRS_MAX (SIM_TRUSTED_ADDRS_MAX + 3 * SIM_TOURNAMENT_ADDRS_MAX)

struct sim_trust_t {
    uint32_t addrs[S_ADDRS_MAX]; /* network order */
    int count;
};

/* Append the addresses of `list` (key `key` in the log). */
static int
s_add (sim_trust_t *self, const char *list, int max, const char *key, char *why, size_t whylen)
{
    char reason[200];
    int n = sim_config_addr_list (list, self->addrs + self->count, max, reason, sizeof reason);
    if (n < 0) {
        snprintf (why, whylen, "%s: %s", key, reason);
        return -1;
    }
    self->count += n;
    return 0;
}

sim_trust_t *
sim_trust_new (const sim_config_t *cfg, char *why, size_t whylen)
{
    sim_trust_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (why, whylen, "out of memory");
        return NULL;
    }
    int rc = s_add (self, cfg->network.trusted_sources, SIM_TRUSTED_ADDRS_MAX, "[network] trusted_sources",
                    why, whylen);
    if (cfg->tournament.enabled) {
        rc = rc ? rc
                : s_add (self, cfg->tournament.control, SIM_TOURNAMENT_ADDRS_MAX, "[tournament] control", why,
                         whylen);
        rc = rc ? rc
                : s_add (self, cfg->tournament.blue, SIM_TOURNAMENT_ADDRS_MAX, "[tournament] blue", why,
                         whylen);
        rc = rc ? rc
                : s_add (self, cfg->tournament.yellow, SIM_TOURNAMENT_ADDRS_MAX, "[tournament] yellow", why,
                         whylen);
    }
    if (rc)
        sim_trust_destroy (&self);
    return self;
}

void
sim_trust_destroy (sim_trust_t **self_p)
{
    if (!*self_p)
        return;
    free (*self_p);
    *self_p = NULL;
}

bool
sim_trust_full (const sim_trust_t *self, const struct sockaddr_in *from)
{
    uint32_t addr = from->sin_addr.s_addr;
    if ((ntohl (addr) >> 24) == 127)
        return true;
    for (int i = 0; i < self->count; i++)
        if (self->addrs[i] == addr)
            return true;
    return false;
}

size_t
sim_trust_cap (const sim_trust_t *self, const struct sockaddr_in *from, size_t request_len)
{
    return sim_trust_full (self, from) ? SIZE_MAX : SIM_TRUST_RATIO * request_len;
}

void
sim_trust_earn (sim_trust_budget_t *budget, const sim_trust_t *self, const struct sockaddr_in *from,
                size_t request_len)
{
    size_t cap = sim_trust_cap (self, from, request_len);
    budget->credit = cap > SIZE_MAX - budget->credit ? SIZE_MAX : budget->credit + cap;
}

bool
sim_trust_spend (sim_trust_budget_t *budget, size_t len)
{
    if (len > budget->credit)
        return false;
    if (budget->credit != SIZE_MAX)
        budget->credit -= len;
    return true;
}
