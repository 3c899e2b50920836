/*  phys_hold.h - a fast or --journal run on a fresh world starts its
    clock when vision joins (at most PHYS_HOLD_US after the start), so
    vision sees the world from its first substep: a replay reproduces the
    run's vision from frame one, and two fast runs of one seed give the
    same packets from frame one, where a free-running fast clock had
    already run tens of simulated seconds while vision started
    (docs/logs.md). Requests that come meanwhile are held (at most
    PHYS_HELD_MAX, a lock-step client's first steps included) and
    applied, in order, when the clock starts.
*/
#ifndef PHYS_HOLD_H_INCLUDED
#define PHYS_HOLD_H_INCLUDED

#include "physics_internal.h"

/* At the start (now): hold the clock of a fast or journaled run, unless
   it resumed a world from its checkpoint (a restarted physics goes on at
   once). */
void phys_hold_begin (phys_service_t *self, bool resumed, int64_t now);

/* While the clock is held: keep env (a request) with copies of where it
   came from and of the bytes it came in, to apply and answer it later. Returns true when kept (the
   caller gives env up), false when not held or full. */
bool phys_hold_request (phys_service_t *self, Simbus__Envelope *env, const sim_link_from_t *from);

/* The held clock starts when vision joined or the wait is over (logged):
   the clock from now, sim time at Unix time now, the configuration
   published before the first snapshot, the held requests applied. True
   when it started. */
bool phys_hold_release (phys_service_t *self, int64_t now);

/* The held requests, applied and answered in order (`apply`), or only
   freed. */
void phys_hold_flush (phys_service_t *self, bool apply);

#endif
