/*  phys_playback.h - `ssl-sim replay`: physics takes its inputs from a
    --journal file (phys_replay.h) instead of the bus, each applied at the
    substep it applied at in the run, and runs to the run's end or --until.
    It starts once vision listens, so vision sees every snapshot, and
    paces like the run's mode: fast and sync as fast as vision goes,
    realtime on the wall clock times the speed.
*/
#ifndef PHYS_PLAYBACK_H_INCLUDED
#define PHYS_PLAYBACK_H_INCLUDED

#include "physics_internal.h"

/* Load the script at `path`, cut at until_s seconds of sim time (< 0: its
   end). Returns 0, or -1 (logged) when it cannot be read or was written
   with another substep length. */
int phys_playback_open (phys_service_t *self, const char *path, double until_s);

/* One turn at now: apply the inputs pinned to this substep, then run
   towards the next one (fast: a chunk; realtime: what the wall clock
   owes at the speed); at the end, tell vision (SIM_BUS_REPLAY_END_STEP).
   With the page (phys_seeking.h): paused, nothing moves but a step, run
   in chunks to replay_step_to; at the end it only pauses. */
void phys_playback_turn (phys_service_t *self, int64_t now);

#endif
