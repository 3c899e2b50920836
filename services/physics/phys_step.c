/*  phys_step.c - substeps and what is published after each (see
    phys_step.h). */
#include "phys_step.h"

#include "phys_epoch.h"
#include "phys_publish.h"
#include "phys_report.h"

/* One substep and what must be published after it; delay_ns is vision's
   delay of the configuration in force (worked out once per run of
   substeps: no request is applied within one). */
static void
s_substep (phys_service_t *self, bool has_step, uint64_t step_id, uint64_t delay_ns)
{
    phys_world_step (self->world);
    /* before anything of it is published; the restart journal promises
       exactly this substep, and only when something of it goes out, so a
       physics killed -9 resumes where its vision last saw it */
    if (self->user_journal)
        phys_journal_reached (self->user_journal, self->world);
    bool snapshot = phys_policy_substep (self->schedule, phys_world_time_ns (self->world), delay_ns);
    const phys_event_t *events;
    if (self->journal && (snapshot || phys_world_events (self->world, &events) > 0))
        phys_journal_promise (self->journal, self->world, 0);
    phys_publish_events (self);
    if (snapshot)
        phys_publish_snapshot (self, has_step, step_id);
    self->status_substeps++;
}

void
phys_step_run (phys_service_t *self, uint64_t n, bool has_step, uint64_t step_id, bool yield)
{
    double start = phys_report_cpu_us ();
    sim_link_batch (self->link, !has_step);
    uint64_t done = 0;
    uint64_t delay_ns = sim_schedule_delay_ns (self->cfg.realism.vision_delay);
    for (uint64_t i = 1; i <= n; i++) {
        s_substep (self, has_step, step_id, delay_ns);
        done = i;
        if (yield && i % PHYS_FAST_CHECK == 0 && sim_link_input_waiting (self->link))
            break;
    }
    /* what comes after the run (a reply, the clock) tells its end */
    if (self->journal)
        phys_journal_promise (self->journal, self->world, 0);
    sim_link_batch (self->link, false);
    phys_report_substeps (self, done, phys_report_cpu_us () - start);
}

void
phys_step_clock (phys_service_t *self, int64_t now)
{
    uint64_t n = phys_clock_owed (&self->clock, now);
    phys_epoch_follow (self, phys_clock_running (&self->clock, now), n);
    if (n)
        phys_step_run (self, n, false, 0, self->cfg.run.mode == SIM_MODE_FAST);
}
