/*  gw_sources.h - which client sources (address and port) each gateway
    port has heard from, so the gateway logs a new client once instead of
    every datagram, and lists its recent clients in Stats.

    A bounded table per port with no clock of its own: when a port's table
    is full, the source heard from least recently makes room, so a source
    that comes back after that is logged again, and its next RobotControl
    counts as its first one (exempt from the configured loss,
    docs/protocol.md "Loss").
*/
#ifndef GW_SOURCES_H_INCLUDED
#define GW_SOURCES_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct gw_sources_t gw_sources_t;

/* Room for `capacity` sources on each of `ports` ports. NULL when out of
   memory. */
gw_sources_t *gw_sources_new (int ports, int capacity);

/* Free the table; nulls *self_p. Safe twice. */
void gw_sources_destroy (gw_sources_t **self_p);

/* A datagram from `from` arrived on `port` (0..ports-1) at now_us.
   Returns true when that port had not heard from this address and port
   before (or had forgotten it to make room). */
bool gw_sources_arrived (gw_sources_t *self, int port, const struct sockaddr_in *from, int64_t now_us);

/* Up to `max` sources of `port` heard at or after since_us, copied to
   out[]; returns how many. */
int gw_sources_recent (const gw_sources_t *self, int port, int64_t since_us, struct sockaddr_in *out,
                       int max);

#endif
