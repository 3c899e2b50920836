/*  gw_loss.c - keyed packet-loss draws (see gw_loss.h). */
#include "gw_loss.h"

#include <string.h>

#include "common/base/sim_rng.h"

bool
gw_loss_draw (gw_loss_t *self, uint64_t seed, uint64_t sim_time_ns, gw_port_kind_t port, double p)
{
    if (!(p > 0))
        return false;
    if (self->time_ns != sim_time_ns) {
        self->time_ns = sim_time_ns;
        memset (self->index, 0, sizeof self->index);
    }
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, seed, SIM_STREAM_PACKET_LOSS, ((uint64_t) port << 32) | self->index[port]++,
                        sim_time_ns);
    return sim_rng_chance (&rng, p);
}
