/*  phys_clock.h - when the physics service steps: the realtime, fast and
    sync clock policies (protocol.md §8), as a pure function of the wall
    times the service passes in. No clock is read here, so tests drive it
    with made-up times.

    - realtime: sim time follows wall time times the speed; the substeps
      owed accumulate, and a stall catches up at most PHYS_CLOCK_CATCH_UP_S;
    - fast: as many substeps as the machine allows, PHYS_CLOCK_FAST_BATCH
      per loop turn;
    - sync: only requests step the world. A sync request also holds a
      free-running clock for PHYS_CLOCK_SYNC_HOLD_US (protocol.md §8.4).
    After answering a sync step the service may watch for the next request
    without sleeping, while the client's recent pauses are short (spin).
*/
#ifndef PHYS_CLOCK_H_INCLUDED
#define PHYS_CLOCK_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/config/sim_config.h"

#define PHYS_CLOCK_SYNC_HOLD_US 1000000 /* protocol.md §8.4 */
#define PHYS_CLOCK_CATCH_UP_S   0.25    /* protocol.md §8.1 */
#define PHYS_CLOCK_FAST_BATCH   256     /* fast mode: substeps per loop turn */
#define PHYS_CLOCK_SPIN_US      300     /* see phys_clock_spin_until */

typedef struct {
    sim_mode_t mode;
    double speed;         /* sim seconds per wall second */
    double dt;            /* substep, s */
    int64_t last_tick_us; /* wall time of the last phys_clock_owed */
    double acc;           /* realtime: owed sim time, s */
    double skipped;       /* realtime: sim time the last phys_clock_owed dropped (cap), s */
    int64_t last_sync_us; /* the last sync request came */
    int64_t sync_end_us;  /* the last sync request was answered; 0: never */
    int64_t sync_gap_us;  /* moving average of the sync client's pauses */
} phys_clock_t;

/* A clock for `mode` at `speed` with substeps of substep_ns, its last
   tick at now_us, held by no sync request. */
void phys_clock_init (phys_clock_t *self, sim_mode_t mode, double speed, uint64_t substep_ns, int64_t now_us);

/* The mode or speed changed at runtime. */
void phys_clock_configure (phys_clock_t *self, sim_mode_t mode, double speed);

/* True when the free-running clock advances at now_us: not sync mode, a
   speed above 0, and no sync request within the hold. */
bool phys_clock_running (const phys_clock_t *self, int64_t now_us);

/* The substeps to run at now_us: realtime, those owed since the last
   call (their remainder carried; wall time a sync request held the clock
   is not owed; what exceeds PHYS_CLOCK_CATCH_UP_S is dropped and left in
   self->skipped, 0 when nothing was); fast, PHYS_CLOCK_FAST_BATCH (the caller
   may stop early for a request); otherwise 0. */
uint64_t phys_clock_owed (phys_clock_t *self, int64_t now_us);

/* A sync request came at now_us, or was answered at now_us. */
void phys_clock_sync_request (phys_clock_t *self, int64_t now_us);
void phys_clock_sync_answered (phys_clock_t *self, int64_t now_us);

/* When to wake up next for the clock (wall clock, us), at most `until`:
   now in fast mode; in realtime when the sim clock reaches
   `sim_needed_ns` more sim time (the next instant anyone can observe, a
   vision release), rounded up to whole us (the poll timeout then rounds
   up to whole ms: waking up to 1 ms late only runs one more substep in
   the same turn); just after the end of a sync hold. */
int64_t phys_clock_next_us (const phys_clock_t *self, int64_t now_us, uint64_t sim_needed_ns, int64_t until);

/* Sync mode, after an answer: the wall time up to which to watch for the
   next request without sleeping, or 0 when not worth it (the client's
   recent pauses are longer than PHYS_CLOCK_SPIN_US). */
int64_t phys_clock_spin_until (const phys_clock_t *self);

#endif
