/*  fuzz_lane.c - libFuzzer harness: one lane datagram (records behind
    their topics, sim_lane.h) sent to a real physics lane, read back record
    by record with sim_lane_recv, each envelope handed to its receiver
    (fuzz_support.h). The lanes are socket files in the private runtime
    directory, named after this process, and removed when it exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "fuzz_support.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_lane.h"

#define FZ_LANE_DATAGRAM_MAX (256 * 1024) /* SIM_LANE_MAX: larger is dropped whole */

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct {
    sim_lane_t *physics, *gateway;
} s_lanes_t;

static s_lanes_t s_lanes;

/* libFuzzer ends a run with exit(): the socket files go with it */
static void
s_lanes_free (void)
{
    sim_lane_destroy (&s_lanes.physics);
    sim_lane_destroy (&s_lanes.gateway);
}

static void
s_lanes_new (s_lanes_t *lanes)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.bus.lanes = true;
    char prefix[64];
    snprintf (prefix, sizeof prefix, "fuzz-lane-%ld", (long) getpid ());
    lanes->physics = lanes->gateway = NULL;
    if (sim_bus_resolve (&cfg, prefix) == 0) {
        lanes->physics = sim_lane_new (&cfg, SIM_LANE_PHYSICS);
        lanes->gateway = sim_lane_new (&cfg, SIM_LANE_GATEWAY);
    }
    if (!lanes->physics || !lanes->gateway) {
        fprintf (stderr, "fuzz_lane: cannot make the lanes\n");
        abort ();
    }
    atexit (s_lanes_free);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    s_lanes_t lanes = s_lanes;
    if (!lanes.physics) {
        fz_init ();
        s_lanes_new (&s_lanes);
        lanes = s_lanes;
    }
    if (size > FZ_LANE_DATAGRAM_MAX)
        return 0;
    if (sim_lane_send_bytes (lanes.gateway, SIM_LANE_PHYSICS, data, size, 1000) != 0) {
        fprintf (stderr, "fuzz_lane: cannot send %zu bytes to the lane\n", size);
        abort ();
    }
    bool warned = true;
    fz_physics_t phys;
    fz_physics_init (&phys);
    int records = 0;
    for (;;) {
        Simbus__Envelope *env = NULL;
        char topic[16];
        sim_lane_peer_t from;
        if (sim_lane_recv (lanes.physics, &env, topic, sizeof topic, &from, &warned) == 0)
            break;
        /* a record takes at least its 5-byte head, a malformed rest one read */
        if ((size_t) ++records > size / 5 + 1) {
            fprintf (stderr, "fuzz_lane: a %zu-byte datagram gives more than %zu records\n", size,
                     size / 5 + 1);
            abort ();
        }
        if (env)
            fz_receive (&phys, env);
    }
    fz_physics_fini (&phys);
    return 0;
}
