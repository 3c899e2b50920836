/*  phys_recovery.h - what lets a physics process be killed and come back
    to the state it had (docs/journal.md), and what lets a run be replayed
    (docs/logs.md):

    - separate processes keep a checkpoint in the runtime directory, once
      a second and at $TERM, and a journal of every input beside it; a
      world saved by an earlier process of the same run is resumed (same
      robots, ball, clock, random stream and effective configuration) and
      the journal replayed on it;
    - --journal FILE keeps every input of the run from its first substep,
      with the configuration first, for `ssl-sim replay`.

    Each input is journaled before it is answered and a mark before any
    later sim time is published (phys_step.c), so a restarted physics
    never publishes an earlier time than before.
*/
#ifndef PHYS_RECOVERY_H_INCLUDED
#define PHYS_RECOVERY_H_INCLUDED

#include "physics_internal.h"

/* At the start, with the configuration `own` (the process's): for
   separate processes, the checkpoint and journal paths, and the world and
   configuration of an earlier process of the run when there is one
   (self->world then set, the journal replayed on it). Sets the
   configuration serial. */
void phys_recovery_resume (phys_service_t *self, const sim_config_t *own);

/* A checkpoint, then a new journal after it (when checkpoints are on). */
void phys_recovery_checkpoint (phys_service_t *self);

/* --journal FILE: a new journal from the first substep with the
   configuration (seed included) first, or, for a physics restarted in the
   middle of the run (`resumed`), the same file continued, after the inputs
   the restart journal holds and it lacks (a kill between the two writes
   of an input): call it before the restart journal starts again after a
   checkpoint. Returns 0, or -1 when a new journal cannot be written
   (logged). */
int phys_recovery_open_journal (phys_service_t *self, bool resumed);

/* Journal req, about to be applied, in the restart journal and the
   --journal file: from wire[wire_len], the bus Envelope it came in, or
   packed again when wire is NULL (phys_journal_input_wire). */
void phys_recovery_journal (phys_service_t *self, const Simbus__Request *req, const void *wire,
                            size_t wire_len);

/* Whether req is a repeat of one already applied: its id asks to be
   applied once (SIM_BUS_ID_ONCE) and is among the newest PHYS_ONCE_KEEP
   such ids applied in the run: by this process, or by an earlier one
   (read back at resume from the checkpoint, which keeps them, and from
   the restart journal after it). Otherwise its id, if it asks,
   is remembered from now on. A repeat is answered, not applied. */
bool phys_recovery_repeat (phys_service_t *self, const Simbus__Request *req);

#endif
