/*  phys_defer.c - realtime: commands read at the clock's own wake-ups
    (see phys_defer.h). */
#include "phys_defer.h"

#include "common/logs/sim_stats.h"
#include "phys_step.h"

void
phys_defer_plan (phys_service_t *self, int64_t now, int64_t at)
{
    /* without a team commanding there is nothing to wait for, and a quiet
       lane would cost an empty read per wake-up */
    bool defer = self->cfg.run.mode == SIM_MODE_REALTIME && !self->replay && !self->hold_clock
              && now - self->lane_request_us < PHYS_DEFER_IDLE_US
              && now - self->lane_busy_us >= PHYS_DEFER_BUSY_US && phys_clock_running (&self->clock, now)
              && at != SIM_LOOP_NEVER && at - now <= PHYS_DEFER_US;
    if (defer != self->lane_deferred)
        self->lane_deferred = sim_link_defer_lane (self->link, defer) && defer;
}

void
phys_defer_catch_up (phys_service_t *self)
{
    if (!self->lane_deferred)
        return;
    self->catching_up = true;
    self->lane_caught = 0;
    sim_link_receive_spun (self->link);
    self->catching_up = false;
    if (self->lane_caught >= PHYS_DEFER_FULL)
        self->lane_busy_us = zclock_usecs ();
}

void
phys_defer_arrival (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from)
{
    int64_t now = zclock_usecs ();
    if (from && sim_link_from_lane (from)) {
        self->lane_request_us = now;
        if (self->catching_up)
            self->lane_caught++;
    }
    if (!self->catching_up)
        return;
    int64_t at = now;
    if (req->has_received_us && !(req->has_sync && req->sync)) {
        /* the gateway's receive time is wall time: as long ago on our clock */
        int64_t ago = sim_stats_wall_us () - req->received_us;
        if (ago > 0)
            at = now - ago;
    }
    if (at < self->clock.last_tick_us)
        at = self->clock.last_tick_us;
    phys_step_clock (self, at);
}
