/*  phys_step.h - running substeps: each one steps the core, marks the
    journals (before anything of it is published), publishes its events,
    and a snapshot when the step policy says one is due (phys_policy.h);
    and the free-running clock's turn, which runs what phys_clock owes.
*/
#ifndef PHYS_STEP_H_INCLUDED
#define PHYS_STEP_H_INCLUDED

#include "physics_internal.h"

#define PHYS_FAST_CHECK 16 /* fast mode: substeps between looks for a request */

/* Up to n substeps; has_step/step_id name the sync step they belong to. A
   free-running clock stops early (every PHYS_FAST_CHECK) when `yield` and
   a request waits, so that a request applies within a few ms of sim time
   of its arrival. A free-running clock's messages travel as one batch; a
   sync step's go one by one, so vision works while physics steps (the
   answer waits for both). */
void phys_step_run (phys_service_t *self, uint64_t n, bool has_step, uint64_t step_id, bool yield);

/* The free-running clock's turn at now: the substeps it owes, the wire
   timestamps following it (phys_epoch_follow). */
void phys_step_clock (phys_service_t *self, int64_t now);

#endif
