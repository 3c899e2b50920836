/*  gw_loss.h - the configured packet loss of the gateway's ports
    ([realism] robot_command_loss, robot_response_loss): whether one
    datagram is lost, drawn from a keyed stream (ARCHITECTURE.md §4) so the
    same seed loses the same datagrams of a replayed run.

    The key is (seed, port, sim time, index of the datagram within that
    substep on that port): the index counts from 0 again whenever the sim
    time moves on. Pure: told the seed and the sim time, no clock of its
    own.
*/
#ifndef GW_LOSS_H_INCLUDED
#define GW_LOSS_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "gw_port.h"

/* The draws' position: zero it to start (a field of the actor's state). */
typedef struct {
    uint64_t time_ns;  /* sim time of the draws counted below */
    uint32_t index[3]; /* datagrams drawn for at that time, by port */
} gw_loss_t;

/* Whether a datagram on `port` at sim time sim_time_ns is lost with
   probability p (never when p is not above 0; then nothing is counted). */
bool gw_loss_draw (gw_loss_t *self, uint64_t seed, uint64_t sim_time_ns, gw_port_kind_t port, double p);

#endif
