/*  fuzz_udp_team.c - libFuzzer harness: one datagram on the blue and then
    on the yellow port (RobotControl or SimulationSyncRequest) through the
    gateway's detection and decode, forwarded over the bus and applied by
    physics to a fresh default world each time. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        ready = true;
    }
    fz_datagram (1, data, size);
    fz_datagram (2, data, size);
    return 0;
}
