/*  gw_pace.h - sync steps in turn (docs/protocol.md, "Fair sync").

    A sync step keeps physics busy for as long as its substeps take (the
    longest, 10 s: tens of milliseconds, by the machine's load),
    and physics takes requests in order. Four sockets looping long steps
    kept physics' queue full, and a team's RobotControl waited behind
    several steps: seconds. So the gateway lets one sync step at a time
    go to physics; a sync request that comes meanwhile waits here, and
    the next to go is from the source (ip:port) that went least recently
    (round robin), so a client that loops long steps gets one step per
    turn, like every other stepping client. Plain requests never wait
    here: they reach physics behind at most one step.

    A bounded table of datagram copies: at most `capacity` waiting, at
    most `per_source` from one source (a lock-step client has one). Pure:
    no socket, no clock of its own, no log.
*/
#ifndef GW_PACE_H_INCLUDED
#define GW_PACE_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_port.h"

/* A sync datagram waiting for its turn. */
typedef struct {
    gw_port_kind_t port;
    struct sockaddr_in from;
    uint8_t *data; /* a copy of the datagram, owned */
    size_t len;
    size_t cap; /* the largest answer its source may get (sim_trust_cap) */
    int64_t arrived_us;
} gw_pace_item_t;

typedef struct gw_pace_t gw_pace_t;

/* Room for `capacity` waiting datagrams, `per_source` from one source.
   NULL when out of memory. */
gw_pace_t *gw_pace_new (int capacity, int per_source);

/* Free it and what waits; nulls *self_p. Safe twice. */
void gw_pace_destroy (gw_pace_t **self_p);

/* Keep a copy of the len bytes at data from `from` on `port` until their
   turn. Returns 0, or -1 when the table or the source's share is full (or
   out of memory): then the caller answers BUSY. */
int gw_pace_wait (gw_pace_t *self, gw_port_kind_t port, const struct sockaddr_in *from, const uint8_t *data,
                  size_t len, size_t cap, int64_t now_us);

/* Take the next datagram to run into *out (its data is the caller's to
   free): of the waiting sources, the one whose last turn is the oldest
   (a source never served first), its oldest datagram. Returns false when
   none waits. */
bool gw_pace_next (gw_pace_t *self, gw_pace_item_t *out);

/* Datagrams waiting, in all and from `from` (ip:port). */
int gw_pace_count (const gw_pace_t *self);
int gw_pace_source_count (const gw_pace_t *self, const struct sockaddr_in *from);

#endif
