/*  test_gw_loss.c - services/gateway/gw_loss.c: the keyed packet-loss
    draws of the gateway's ports. The same (seed, port, sim time, index in
    that substep) always decides the same, so a replayed run loses the same
    datagrams; no loss configured draws nothing.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "services/gateway/gw_loss.h"
#include "common/base/sim_rng.h"

/* The draw gw_loss_draw must make for (seed, port, index, time). */
static bool
s_expected (uint64_t seed, gw_port_kind_t port, uint32_t index, uint64_t time_ns, double p)
{
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, seed, SIM_STREAM_PACKET_LOSS, ((uint64_t) port << 32) | index, time_ns);
    return sim_rng_chance (&rng, p);
}

Test (gw_loss, no_loss_draws_nothing)
{
    gw_loss_t loss;
    memset (&loss, 0, sizeof loss);
    for (int i = 0; i < 100; i++) {
        cr_expect (!gw_loss_draw (&loss, 1, 1000, GW_PORT_BLUE, 0));
        cr_expect (!gw_loss_draw (&loss, 1, 1000, GW_PORT_BLUE, -1));
    }
    cr_expect_eq (loss.index[GW_PORT_BLUE], 0, "nothing counted");
}

Test (gw_loss, draws_are_keyed_by_port_time_and_index)
{
    gw_loss_t loss;
    memset (&loss, 0, sizeof loss);
    const uint64_t seed = 7;
    for (uint32_t i = 0; i < 50; i++) {
        cr_expect_eq (gw_loss_draw (&loss, seed, 1000, GW_PORT_BLUE, 0.5),
                      s_expected (seed, GW_PORT_BLUE, i, 1000, 0.5));
        cr_expect_eq (gw_loss_draw (&loss, seed, 1000, GW_PORT_YELLOW, 0.5),
                      s_expected (seed, GW_PORT_YELLOW, i, 1000, 0.5), "each port counts its own");
    }
    /* a new substep counts from 0 again, on every port */
    cr_expect_eq (gw_loss_draw (&loss, seed, 2000, GW_PORT_YELLOW, 0.5),
                  s_expected (seed, GW_PORT_YELLOW, 0, 2000, 0.5));
    cr_expect_eq (loss.index[GW_PORT_BLUE], 0);
    cr_expect_eq (loss.index[GW_PORT_YELLOW], 1);
}

Test (gw_loss, the_same_run_loses_the_same_datagrams)
{
    gw_loss_t a, b;
    memset (&a, 0, sizeof a);
    memset (&b, 0, sizeof b);
    int lost = 0;
    for (uint64_t t = 0; t < 200; t++)
        for (int k = 0; k < 3; k++) {
            bool x = gw_loss_draw (&a, 42, t * 1000, GW_PORT_BLUE, 0.25);
            cr_expect_eq (x, gw_loss_draw (&b, 42, t * 1000, GW_PORT_BLUE, 0.25));
            lost += x;
        }
    cr_expect (lost > 100 && lost < 200, "about a quarter of 600 lost: %d", lost);
}
