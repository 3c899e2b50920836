/*  gw_strip.h - dropping what the gateway cannot vouch for before a
    client's message is embedded in a bus request (protocol.md, "Unknown
    fields").

    protobuf-c keeps the fields it does not know as they came and packs
    them again as it stored them. Some of those it takes but cannot write
    back in a form it reads: a field number 0 in a non-canonical key
    (`80 00`) is stored and packed again as `00 00`, which no decoder
    accepts, so physics could not read the bus request that carried it.
    The gateway forwards known fields only. A field number 0 is no
    protobuf at all (the league's parsers refuse the whole message), so a
    message holding one is not taken: gw_strip_field_zero finds it.
*/
#ifndef GW_STRIP_H_INCLUDED
#define GW_STRIP_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

/* Free and forget the unknown fields of `msg` and of every message nested
   in it (singular, repeated and the set member of a oneof), with
   `allocator`, the one that unpacked msg (NULL: protobuf-c's default).
   Returns how many fields were dropped. */
size_t gw_strip_unknown (ProtobufCMessage *msg, ProtobufCAllocator *allocator);

/* Whether `msg` or a message nested in it holds an unknown field with
   field number 0 (call before gw_strip_unknown, which forgets them). */
bool gw_strip_field_zero (ProtobufCMessage *msg);

#endif
