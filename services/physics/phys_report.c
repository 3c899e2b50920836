/*  phys_report.c - the status line, Stats and the pause note (see
    phys_report.h). */
#include "phys_report.h"

#include <time.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/config/config.h"
#include "common/bus/sim_service.h"
#include "phys_seeking.h"

/* The substep cost is measured in this thread's CPU time, not in wall
   time: a run of substeps ends by handing its snapshots to vision, and in
   fast mode that send blocks while vision's queue is full; wall time
   counted that wait, and every moment another process had the core. The
   CPU clock counts what physics itself spends: the core, the journal
   marks, encoding and sending the events and snapshots (the kernel's copy
   of a lane datagram included), and its looks for a request. */
double
phys_report_cpu_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

void
phys_report_substeps (phys_service_t *self, uint64_t done, double cost_us)
{
    self->status_cost_us += cost_us;
    sim_stats_substeps (self->substep_buckets, done, cost_us);
    self->substeps_timed += done;
    self->substep_sum_us += cost_us;
}

/* Stats once a second, with the status line (sim_stats.h). */
static void
s_publish_stats (phys_service_t *self, int64_t now)
{
    if (!sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_STATS))
        return;
    Simbus__Stats st;
    sim_stats_begin (&st, sim_service_names[SIM_SERVICE_PHYSICS], self->started_us);
    st.has_time_ns = true;
    st.time_ns = phys_world_time_ns (self->world);
    st.has_rtf = true;
    st.rtf = self->last_rtf;
    st.has_substep_us = true;
    st.substep_us = self->last_cost_us;
    st.n_substep_buckets = SIM_STATS_SUBSTEP_BUCKETS;
    st.substep_buckets = self->substep_buckets;
    st.has_substeps = true;
    st.substeps = self->substeps_timed;
    st.has_substep_sum_us = true;
    st.substep_sum_us = self->substep_sum_us;
    st.has_speed = true;
    st.speed = self->cfg.run.speed;
    st.has_running = true;
    st.running = phys_clock_running (&self->clock, now);
    st.has_mode = true;
    st.mode = (uint32_t) self->cfg.run.mode;
    Simbus__ReplayState replay;
    if (self->seeking) {
        phys_seeking_state (self, &replay);
        st.replay = &replay;
    }
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}

void
phys_report_status (phys_service_t *self, int64_t now)
{
    int64_t wall = now - self->status_wall_us;
    if (wall < PHYS_STATUS_PERIOD_US)
        return;
    uint64_t t = phys_world_time_ns (self->world);
    double rtf = (double) (t - self->status_sim_ns) / 1e3 / (double) wall;
    double cost = self->status_substeps && self->cfg.run.mode != SIM_MODE_SYNC
                    ? self->status_cost_us / (double) self->status_substeps
                    : 0.0;
    sim_info ("sim %.2fs | rtf %.2fx | substep %.1fus | robots %d | mode %s%s", (double) t / 1e9, rtf, cost,
              phys_world_robot_count (self->world), sim_config_mode_name (self->cfg.run.mode),
              self->paused ? " | paused" : "");
    self->last_rtf = rtf;
    self->last_cost_us = cost;
    s_publish_stats (self, now);
    self->status_wall_us = now;
    self->status_sim_ns = t;
    self->status_substeps = 0;
    self->status_cost_us = 0;
}

void
phys_report_jumped (phys_service_t *self)
{
    self->status_sim_ns = phys_world_time_ns (self->world);
}

void
phys_report_pause (phys_service_t *self)
{
    bool paused = self->cfg.run.mode != SIM_MODE_SYNC && self->cfg.run.speed <= 0;
    if (paused != self->paused)
        sim_info (paused ? "paused (simulation speed 0)" : "running again at speed %.3g",
                  self->cfg.run.speed);
    self->paused = paused;
}
