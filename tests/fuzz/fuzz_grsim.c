/*  fuzz_grsim.c - libFuzzer harness: one datagram on the legacy grSim
    port. The grSim_Packet is unpacked as the adapter does (grs_wire.h,
    missing required fields as grSim reads them) and turned into
    bus requests by the adapter's own translation (grs_translate.h:
    commands as a team's RobotControl, replacements as teleports), which go
    through the bus to physics on a fresh world. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_support.h"
#include "services/legacy-grsim/grs_translate.h"
#include "services/legacy-grsim/grs_wire.h"
#include "grSim_Packet.pb-c.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    /* the translations' storage is large: once, not on the stack */
    static grs_commands_t *commands;
    static grs_replacement_t *replacement;
    if (!commands) {
        fz_init ();
        commands = malloc (sizeof *commands);
        replacement = malloc (sizeof *replacement);
        if (!commands || !replacement)
            abort ();
    }
    GrSimPacket *packet = grs_wire_unpack (data, size);
    if (!packet)
        return 0; /* the adapter drops it, counted */
    fz_physics_t phys;
    fz_physics_init (&phys);
    uint64_t id = 1; /* the adapter's ids: one per request, commands first */
    if (packet->commands) {
        grs_translate_commands (commands, packet->commands, &phys.cfg);
        commands->req.id = id++;
        fz_forward (&phys, &commands->req);
    }
    if (packet->replacement) {
        grs_translate_replacement (replacement, packet->replacement);
        replacement->req.id = id++;
        fz_forward (&phys, &replacement->req);
    }
    fz_physics_fini (&phys);
    gr_sim__packet__free_unpacked (packet, NULL);
    return 0;
}
