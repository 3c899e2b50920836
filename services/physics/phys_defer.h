/*  phys_defer.h - realtime: commands read at the clock's own wake-ups.

    In realtime physics sleeps until the next instant anyone can observe
    (a vision packet's release, a few milliseconds away) and was woken as
    well by every request from the gateway, two per 10 ms for two teams
    that command at 100 Hz. On the virtual machines labs use, the wake-up,
    not the work in it, is what a turn costs. So when the clock will wake
    within PHYS_DEFER_US anyway, the gateway's lane is left quiet
    (sim_link_defer_lane) and the requests that came are read at the start
    of that wake-up, before the clock runs: the clock steps to each one's
    arrival (the gateway's receive time, Request.received_us), applies it
    and answers it there, and then steps on to now. A command acts from
    the substep after its arrival as before, no vision packet can show the
    difference, and the answer comes at most PHYS_DEFER_US later (the
    protocol does not bound it; docs/protocol.md says so). Only the lane
    is deferred: tools, legacy-grsim and tcp peers wake physics as before,
    and so does everything outside a running realtime clock (sync, fast,
    paused, a replay, a held --journal start).
*/
#ifndef PHYS_DEFER_H_INCLUDED
#define PHYS_DEFER_H_INCLUDED

#include "physics_internal.h"

/* The longest a lane request waits for the clock's own wake-up (about one
   camera frame at 73 Hz). */
#define PHYS_DEFER_US 15000

/* Deferring stops when no request came on the lane for this long (vision
   only, or a team that stopped): an empty read per wake-up is not free. */
#define PHYS_DEFER_IDLE_US 1000000

/* A catch-up that reads this many requests found the lane near full: an
   AF_UNIX datagram queue holds 10 (net.unix.max_dgram_qlen), and what
   does not fit waits in the gateway until a later wake-up. A team
   commanding at 1 kHz fills it within one deferred wait, and every
   other team's commands then queued behind its backlog (their answers
   p90 105 ms at 1 kHz, 330 ms at 2 kHz, instead of 15 ms at most).
   Such a wake-up saves nothing by waiting anyway (its cost is shared by
   many requests), so the lane stays loud, each request read as it
   comes, until PHYS_DEFER_BUSY_US passed without a full catch-up. */
#define PHYS_DEFER_FULL    8
#define PHYS_DEFER_BUSY_US 1000000

/* Before the wait (from the clock's wake function): defer the lane when
   the clock runs in realtime, a request came on the lane within
   PHYS_DEFER_IDLE_US, no catch-up found the lane near full within
   PHYS_DEFER_BUSY_US, and the clock's next wake-up, `at`, is at most
   PHYS_DEFER_US after now. */
void phys_defer_plan (phys_service_t *self, int64_t now, int64_t at);

/* After the wait, before the clock runs: the deferred requests, each
   applied at its arrival (through the bus handler, which calls
   phys_defer_arrival). */
void phys_defer_catch_up (phys_service_t *self);

/* In the bus handler, before a request is applied: while catching up,
   the clock steps to the request's arrival (never back, never past now;
   a request without a receive time, or a sync step, at now). Notes when
   a request came on the lane. */
void phys_defer_arrival (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from);

#endif
