/*  grs_wire.h - a grSim_Packet read the way grSim reads it (protocol.md,
    "Legacy grSim").

    grSim's messages are proto2 with most fields `required`, but grSim
    itself ignores what ParseFromArray says about missing ones: it reads
    each field it finds and takes a missing one as 0 or false. Senders
    that leave fields out are real (protobuf.js and C++ release builds
    write what was set; a proto3 copy of the messages leaves every zero
    out), and protobuf-c refuses such a datagram whole, so their commands
    were lost without a word. grs_wire_unpack first tries protobuf-c as it
    is; only when that fails does it complete the datagram (each missing
    required field appended as its zero) and unpack that. Anything that is
    not protobuf stays refused. One difference from grSim: it skips a
    robot command or replacement without `id`, which is how a proto3
    sender writes robot 0, so robot 0 of such a client never moved there;
    here a missing `id` is robot 0, like every other missing field is 0.

    Pure: no socket, no clock, no log, no state; the legacy-grsim actor
    and the fuzz harness (tests/fuzz/fuzz_grsim.c) call it.
*/
#ifndef GRS_WIRE_H_INCLUDED
#define GRS_WIRE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "grSim_Packet.pb-c.h"

/* The packet in data[len], or NULL when it is no protobuf; free it with
   gr_sim__packet__free_unpacked (p, NULL). */
GrSimPacket *grs_wire_unpack (const uint8_t *data, size_t len);

#endif
