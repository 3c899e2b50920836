/*  phys_epoch.c - the wire timestamps' Unix base (see phys_epoch.h). */
#include "phys_epoch.h"

#include <stdlib.h>

#include "common/base/sim_log.h"

bool
phys_epoch_unix (const sim_config_t *cfg)
{
    return cfg->vision.timestamp_base == SIM_TS_UNIX
        || (cfg->vision.timestamp_base == SIM_TS_AUTO && cfg->run.mode == SIM_MODE_REALTIME);
}

/* A replay of a journal that holds the bases takes them from it only. */
static bool
s_from_journal (const phys_service_t *self)
{
    return self->replay && phys_replay_epoch_count (self->replay) > 0;
}

/* Set the base; a change is journaled at the current substep. */
static void
s_set (phys_service_t *self, int64_t epoch_us)
{
    if (epoch_us == self->epoch_us)
        return;
    self->epoch_us = epoch_us;
    phys_epoch_journal (self);
}

void
phys_epoch_journal (phys_service_t *self)
{
    if (!self->user_journal)
        return;
    uint8_t payload[PHYS_JOURNAL_EPOCH_BYTES];
    phys_journal_epoch_encode (self->epoch_us, payload);
    phys_journal_note (self->user_journal, self->world, PHYS_JOURNAL_EPOCH, payload, sizeof payload);
}

/* Sim time now + ahead_ns at Unix time now. */
static void
s_rebase (phys_service_t *self, const char *why, uint64_t ahead_ns)
{
    self->epoch_speed = self->cfg.run.speed;
    if (s_from_journal (self))
        return;
    if (!phys_epoch_unix (&self->cfg)) {
        s_set (self, 0);
        return;
    }
    int64_t epoch = sim_stats_wall_us () - (int64_t) ((phys_world_time_ns (self->world) + ahead_ns) / 1000);
    if (self->epoch_us && why && llabs (epoch - self->epoch_us) >= 1000) /* 1 ms: worth a line */
        sim_info ("timestamps back on the wall clock after %s: moved by %+.3fs", why,
                  (double) (epoch - self->epoch_us) / 1e6);
    s_set (self, epoch);
}

void
phys_epoch_rebase (phys_service_t *self, const char *why)
{
    s_rebase (self, why, 0);
}

void
phys_epoch_follow (phys_service_t *self, bool running, uint64_t owed)
{
    /* the owed substeps stand for wall time already gone by */
    uint64_t ahead_ns = owed * phys_world_dt_ns (self->world);
    bool realtime = self->cfg.run.mode == SIM_MODE_REALTIME;
    if (realtime && self->clock.skipped > 0) {
        /* the host stalled (or this process was stopped): the clock
           catches up PHYS_CLOCK_CATCH_UP_S and drops the rest, and the
           timestamps jump over what was dropped so they stay on the wall
           clock */
        sim_warn ("realtime clock fell behind by %.3fs (stall); caught up %.3fs, skipped %.3fs of sim "
                  "time at sim %.3fs",
                  self->clock.skipped + PHYS_CLOCK_CATCH_UP_S, PHYS_CLOCK_CATCH_UP_S, self->clock.skipped,
                  (double) phys_world_time_ns (self->world) / 1e9);
        if (self->epoch_us && !s_from_journal (self))
            s_set (self, self->epoch_us + (int64_t) (self->clock.skipped * 1e6));
    }
    if (realtime && running && phys_epoch_unix (&self->cfg)) {
        if (!self->was_running)
            s_rebase (self, "a pause", ahead_ns); /* or a sync hold: sim time was not owed */
        else if (self->cfg.run.speed != self->epoch_speed)
            s_rebase (self, "a speed change", ahead_ns); /* the timestamps ran at the old speed */
    }
    self->was_running = running;
}

uint64_t
phys_epoch_replay (phys_service_t *self)
{
    size_t count = phys_replay_epoch_count (self->replay);
    uint64_t frame = phys_world_frame (self->world);
    while (self->replay_epoch_next < count) {
        uint64_t at;
        int64_t epoch_us;
        phys_replay_epoch (self->replay, self->replay_epoch_next, &at, &epoch_us);
        if (at > frame)
            return at;
        self->epoch_us = epoch_us;
        self->replay_epoch_next++;
    }
    return UINT64_MAX;
}
