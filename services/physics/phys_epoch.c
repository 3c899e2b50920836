/*  phys_epoch.c - the wire timestamps' Unix base (see phys_epoch.h). */
#include "phys_epoch.h"

#include "common/base/sim_log.h"

bool
phys_epoch_unix (const sim_config_t *cfg)
{
    return cfg->vision.timestamp_base == SIM_TS_UNIX
        || (cfg->vision.timestamp_base == SIM_TS_AUTO && cfg->run.mode == SIM_MODE_REALTIME);
}

void
phys_epoch_rebase (phys_service_t *self)
{
    self->epoch_us = sim_stats_wall_us () - (int64_t) (phys_world_time_ns (self->world) / 1000);
    if (!phys_epoch_unix (&self->cfg))
        self->epoch_us = 0;
}

void
phys_epoch_follow (phys_service_t *self, bool running)
{
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
        if (self->epoch_us)
            self->epoch_us += (int64_t) (self->clock.skipped * 1e6);
    }
    if (realtime && running && !self->was_running && phys_epoch_unix (&self->cfg))
        phys_epoch_rebase (self); /* after a pause or a sync hold: sim time was not owed */
    self->was_running = running;
}
