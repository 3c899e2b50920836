/*  gw_detect.h - telling a SimulationSyncRequest from a port's normal
    message by its top-level protobuf tags (protocol.md §3).
*/
#ifndef GW_DETECT_H_INCLUDED
#define GW_DETECT_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { GW_PORT_CONTROL = 0, GW_PORT_BLUE = 1, GW_PORT_YELLOW = 2 } gw_port_kind_t;

/* True when the datagram is a sync candidate on this kind of port. Never
   reads past `len`; stops at the first malformed field. */
bool gw_detect_sync_candidate (const uint8_t *data, size_t len, gw_port_kind_t port);

#endif
