/*  gw_peers.h - which source addresses have shown that they receive what
    the gateway sends them (protocol.md, "Amplification").

    UDP sources can be forged: a small request with a victim's address as
    its source would have the gateway send that victim a large answer. An
    address counts as proven once a datagram from it arrives after the
    gateway answered it, and stays proven while it keeps talking (a
    lock-step client asks again after every answer); idle for idle_us, it
    has to prove itself again. Until then the gateway keeps its answers
    small (gw_sync). Addresses are IPs: a client may answer from another
    port of the same host.

    A bounded table with no clock of its own: every call says what time it
    is. When it is full, the oldest unproven address (else the oldest) makes
    room.
*/
#ifndef GW_PEERS_H_INCLUDED
#define GW_PEERS_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct gw_peers_t gw_peers_t;

/* Room for `capacity` addresses, proven for idle_us after their last
   datagram. NULL when out of memory. */
gw_peers_t *gw_peers_new (int capacity, int64_t idle_us);

/* Free the table; nulls *self_p. Safe twice. */
void gw_peers_destroy (gw_peers_t **self_p);

/* A datagram from `from` arrived at now_us. Returns true when its address
   is proven (an answer went to it before, and it was not idle since). */
bool gw_peers_arrived (gw_peers_t *self, const struct sockaddr_in *from, int64_t now_us);

/* The gateway sent an answer to `to` at now_us. */
void gw_peers_answered (gw_peers_t *self, const struct sockaddr_in *to, int64_t now_us);

/* Addresses known (answered at least once and not evicted). */
int gw_peers_count (const gw_peers_t *self);

#endif
