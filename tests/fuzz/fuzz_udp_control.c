/*  fuzz_udp_control.c - libFuzzer harness: one datagram on the control
    port (SimulatorCommand or SimulationSyncRequest) through the gateway's
    detection and decode, forwarded over the bus and applied by physics to
    a fresh default world. */
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
    fz_datagram (0, data, size);
    return 0;
}
