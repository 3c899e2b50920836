/*  phys_seeking.h - `ssl-sim replay` with its page (docs/viewer.md
    "Replaying a journal"): the replay's timeline, moved by the viewer's
    ReplayControl requests (pause, resume, speed, step, seek), with the
    state answered in the Reply and in physics' Stats.

    A seek takes the world a little before the target (vision's delay
    and 100 ms) from engine/world/phys_seek (checkpoints in memory, the
    journal's inputs run on from the newest one before it), installs it
    with its configuration, starts the capture schedule and the
    timestamps' base again from there, tells vision (a StepDone with
    SIM_BUS_REPLAY_SEEK_STEP, in order with the snapshots), and runs on
    to the target as the replay does, so vision has released by then the
    frames a straight replay would have; a snapshot of the target itself
    ends it. The pre-roll's packets go on the wire like the replay's.

    The checkpoints are built from the start by a thread of its own at a
    lower priority (nice 10), so seeking anywhere soon costs a copy and a
    few thousand substeps, while the replay itself keeps the wall clock.
    The thread only runs phys_seek on its own copies of the world; a seek
    takes the same lock. Without the page none of this exists, and the
    replay is the one it always was.
*/
#ifndef PHYS_SEEKING_H_INCLUDED
#define PHYS_SEEKING_H_INCLUDED

#include <stdbool.h>

#include "physics_internal.h"

#define PHYS_SEEKING_EVERY_S    10.0      /* sim seconds between checkpoints */
#define PHYS_SEEKING_PREROLL_NS 100000000 /* a seek runs this much more than vision's delay */

/* Start the checkpoints of self->replay from the world as it is now (its
   first substep). Returns 0, or -1 (logged). */
int phys_seeking_open (phys_service_t *self);

/* Stop the thread and free the checkpoints. Safe when not open. */
void phys_seeking_close (phys_service_t *self);

/* A request while replaying with the page: a ReplayControl is applied and
   answered (true). Anything else is refused with no change (true): only
   the journal changes the world. False when the replay has no page. */
bool phys_seeking_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from);

/* The timeline now into *out (Simbus__ReplayState, initialised here). */
void phys_seeking_state (phys_service_t *self, Simbus__ReplayState *out);

#endif
