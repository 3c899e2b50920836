/*  gw_wire.h - top-level protobuf wire scans of the gateway: telling a
    SimulationSyncRequest from a port's normal message by its tags
    (protocol.md §3), and splicing already packed submessages into an
    answer without unpacking and packing them again.
*/
#ifndef GW_WIRE_H_INCLUDED
#define GW_WIRE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_port.h"

/* True when the datagram is a sync candidate on this kind of port. Never
   reads past `len`; stops at the first malformed field. */
bool gw_wire_sync_candidate (const uint8_t *data, size_t len, gw_port_kind_t port);

/* The payload of the last length-delimited top-level field `field` of a
   packed message (the detection frame inside an SSL_WrapperPacket, say):
   true and *out (borrowed from data) / *out_len, or false when it is
   absent or the message is malformed before it. */
bool gw_wire_bytes_field (const uint8_t *data, size_t len, uint32_t field, const uint8_t **out,
                          size_t *out_len);

/* Bytes taken by field `field` holding n bytes, length-delimited. */
size_t gw_wire_bytes_size (uint32_t field, size_t n);

/* Write that field at buf (room for gw_wire_bytes_size); returns its size.
   Packed protobuf-c output is this, field after field, so a message built
   from spliced fields in field order has the same bytes as if packed. */
size_t gw_wire_put_bytes (uint8_t *buf, uint32_t field, const uint8_t *data, size_t n);

#endif
