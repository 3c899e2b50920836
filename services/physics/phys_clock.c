/*  phys_clock.c - the physics clock policies (see phys_clock.h). */
#include "phys_clock.h"

#include <math.h>

void
phys_clock_init (phys_clock_t *self, sim_mode_t mode, double speed, uint64_t substep_ns, int64_t now_us)
{
    *self = (phys_clock_t) {
        .mode = mode,
        .speed = speed,
        .dt = (double) substep_ns / 1e9,
        .last_tick_us = now_us,
        .last_sync_us = now_us - 10 * PHYS_CLOCK_SYNC_HOLD_US,
    };
}

void
phys_clock_configure (phys_clock_t *self, sim_mode_t mode, double speed)
{
    self->mode = mode;
    self->speed = speed;
}

bool
phys_clock_running (const phys_clock_t *self, int64_t now_us)
{
    return self->mode != SIM_MODE_SYNC && self->speed > 0
        && now_us - self->last_sync_us > PHYS_CLOCK_SYNC_HOLD_US;
}

uint64_t
phys_clock_owed (phys_clock_t *self, int64_t now_us)
{
    /* the loop may sleep through a sync hold: the held time is not owed */
    int64_t from = self->last_tick_us;
    if (from < self->last_sync_us + PHYS_CLOCK_SYNC_HOLD_US
        && now_us > self->last_sync_us + PHYS_CLOCK_SYNC_HOLD_US)
        from = self->last_sync_us + PHYS_CLOCK_SYNC_HOLD_US;
    double wall_dt = (double) (now_us - from) / 1e6;
    self->last_tick_us = now_us;
    self->skipped = 0;
    if (!phys_clock_running (self, now_us)) {
        self->acc = 0;
        return 0;
    }
    if (self->mode == SIM_MODE_FAST)
        return PHYS_CLOCK_FAST_BATCH;
    double owed = self->acc + wall_dt * self->speed;
    if (owed > PHYS_CLOCK_CATCH_UP_S)
        self->skipped = owed - PHYS_CLOCK_CATCH_UP_S;
    self->acc = fmin (owed, PHYS_CLOCK_CATCH_UP_S);
    uint64_t n = 0;
    while (self->acc >= self->dt) {
        self->acc -= self->dt;
        n++;
    }
    return n;
}

void
phys_clock_sync_request (phys_clock_t *self, int64_t now_us)
{
    self->last_sync_us = now_us;
    if (self->sync_end_us) {
        /* a moving average of pauses, each counted up to a bound so one
           long pause does not stop the spinning for long */
        int64_t gap = now_us - self->sync_end_us;
        if (gap > 4 * PHYS_CLOCK_SPIN_US)
            gap = 4 * PHYS_CLOCK_SPIN_US;
        self->sync_gap_us += (gap - self->sync_gap_us) / 8;
    }
}

void
phys_clock_sync_answered (phys_clock_t *self, int64_t now_us)
{
    self->sync_end_us = now_us;
}

static int64_t
s_min (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int64_t
phys_clock_next_us (const phys_clock_t *self, int64_t now_us, uint64_t sim_needed_ns, int64_t until)
{
    /* a free-running clock held by sync requests resumes on its own */
    if (self->mode != SIM_MODE_SYNC && now_us - self->last_sync_us <= PHYS_CLOCK_SYNC_HOLD_US)
        until = s_min (until, self->last_sync_us + PHYS_CLOCK_SYNC_HOLD_US + 1);
    if (!phys_clock_running (self, now_us))
        return until;
    if (self->mode == SIM_MODE_FAST)
        return now_us;
    /* realtime: wake when the sim clock reaches the next observable
       instant; commands wake the service themselves. Every needless
       wake-up costs CPU that a lab machine's teams want. */
    double sim_needed = (double) sim_needed_ns / 1e9 - self->acc;
    if (sim_needed < 1e3)
        until = s_min (until, now_us + (int64_t) ceil (fmax (sim_needed, 0) / self->speed * 1e6));
    return until;
}

int64_t
phys_clock_spin_until (const phys_clock_t *self)
{
    if (self->mode != SIM_MODE_SYNC || self->sync_end_us == 0 || self->sync_gap_us > PHYS_CLOCK_SPIN_US)
        return 0;
    return self->sync_end_us + PHYS_CLOCK_SPIN_US;
}
