/*  phys_epoch.h - the base of the wire timestamps (sim_snapshot_t
    epoch_us): Unix time at sim time 0 when they follow the wall clock
    ([vision] timestamp_base: unix, or auto in realtime mode), else 0 so
    they count from zero.

    The rule (docs/vision.md, "Timestamps on the wire"): at any speed the timestamps
    advance with sim time, so between two frames they step by exactly the
    sim time between them; they are put back on the wall clock (sim time
    now = Unix time now) at the start, after a pause or a sync hold (no
    sim time was owed), after every speed change (at 1.58x they ran ahead
    of the wall clock), and over what a stall dropped. Each re-base is
    logged.

    With --journal every change of the base is journaled at its substep
    (PHYS_JOURNAL_EPOCH), and `ssl-sim replay` takes the bases from the
    journal instead of deciding them (phys_epoch_replay), so a replay's
    packets carry the run's timestamps byte for byte. A journal written
    before the bases were recorded holds none: its replay decides them as
    a run would.
*/
#ifndef PHYS_EPOCH_H_INCLUDED
#define PHYS_EPOCH_H_INCLUDED

#include "physics_internal.h"

/* True when cfg's timestamps follow the wall clock. */
bool phys_epoch_unix (const sim_config_t *cfg);

/* Put sim time now at Unix time now (or the base back to 0 when the
   timestamps count from zero); `why` is logged when a wall-clock base
   moves. */
void phys_epoch_rebase (phys_service_t *self, const char *why);

/* After the free-running clock's turn (phys_clock_owed gave `owed`
   substeps, not run yet), `running` at this turn: follow a stall's skip
   (logged), a restart of the clock or a change of speed. */
void phys_epoch_follow (phys_service_t *self, bool running, uint64_t owed);

/* --journal: record the current base (the first record of a new journal,
   so its replay takes every base from it). */
void phys_epoch_journal (phys_service_t *self);

/* `ssl-sim replay`: take the journal's bases up to the current substep.
   Returns the substep of the next change, or UINT64_MAX when none is
   left. */
uint64_t phys_epoch_replay (phys_service_t *self);

#endif
