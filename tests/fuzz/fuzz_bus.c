/*  fuzz_bus.c - libFuzzer harness: one packed bus envelope (what a ZeroMQ
    message body carries) through sim_bus_decode and the receiver of its
    body: physics for a request, the codec's decoders for snapshots, events
    and the configuration, the gateway for replies and sync-step ends. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_support.h"
#include "common/bus/sim_bus.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        ready = true;
    }
    bool warned = true;
    Simbus__Envelope *env = sim_bus_decode (data, size, &warned);
    if (!env)
        return 0;
    fz_physics_t phys;
    fz_physics_init (&phys);
    fz_receive (&phys, env);
    fz_physics_fini (&phys);
    return 0;
}
