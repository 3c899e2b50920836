/*  gw_defer.h - realtime: the replies to a team's commands read at the
    gateway's next wake-up.

    A team commanding at 100 Hz woke the gateway twice per command: for
    its datagram, and again for physics' reply (which physics sends at its
    own wake-ups, phys_defer.h). On the virtual machines labs use, the
    wake-up, not the work in it, is what a turn costs. So while every
    request waiting for physics is a team's RobotControl and the oldest
    was forwarded less than GW_DEFER_US ago, the bus lane is left quiet
    (sim_link_defer_lane): the replies wait there and are read first thing
    in the next turn, which the team's next datagram starts (10 ms later
    at 100 Hz), or at the latest GW_DEFER_US after the oldest forward.
    Replies are answered in the order physics sent them, before the new
    datagrams are read. A SimulatorCommand, a sync step or anything
    outside a running realtime clock keeps the lane loud: those answers
    come at once, as before.
*/
#ifndef GW_DEFER_H_INCLUDED
#define GW_DEFER_H_INCLUDED

#include <stdint.h>

#include "gateway_internal.h"

/* The longest a RobotControl's answer waits on the quiet lane after its
   datagram was read (physics answers within PHYS_DEFER_US of it). */
#define GW_DEFER_US 20000

/* Before the wait (a sim_loop wake function's part): quiet the lane when
   the replies may wait; returns the instant the wait must end for them
   (SIM_LOOP_NEVER when not deferring). */
int64_t gw_defer_plan (gw_service_t *self, int64_t now);

/* After the wait, before the ports: the replies the lane kept. */
void gw_defer_catch_up (gw_service_t *self);

#endif
