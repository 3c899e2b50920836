/*  phys_answer.c - applying and answering a request (see phys_answer.h). */
#include "phys_answer.h"

#include "common/bus/sim_bus.h"
#include "phys_epoch.h"
#include "phys_publish.h"
#include "phys_recovery.h"
#include "phys_report.h"
#include "phys_step.h"

/* What a request changed beyond the world: the schedule's rig or its
   capture jitter, and the configuration (its serial, the clock, the timestamps' base). */
static void
s_config_changed (phys_service_t *self, const phys_changes_t *changes)
{
    phys_policy_changed (self->schedule, &self->cfg, changes->rig, changes->config,
                         phys_world_time_ns (self->world));
    if (changes->config) {
        self->config_serial++;
        self->config_due = true;
        bool was_unix = self->epoch_us != 0;
        phys_clock_configure (&self->clock, self->cfg.run.mode, self->cfg.run.speed);
        if (was_unix != phys_epoch_unix (&self->cfg))
            phys_epoch_rebase (self, "a mode change"); /* the mode changed what the timestamps count from */
        bool was_paused = self->paused;
        phys_report_pause (self);
        /* the world where it stopped, at once: the last snapshot out was a
           capture's, up to a frame period of substeps older, and the
           heartbeat would tell the pages a second later */
        if (self->paused && !was_paused)
            phys_publish_snapshot (self, false, 0);
    }
}

/* The end of a sync step: its closing snapshot and the mark, which
   carries the reply to vision, which hands it on with the step's frames,
   so the requester gets the whole answer in one message. Returns true
   when a receiver took the mark; otherwise (no vision) the caller answers
   itself. */
static bool
s_step_done (phys_service_t *self, uint64_t step_id, uint64_t substeps, Simbus__Reply *reply)
{
    sim_link_batch (self->link, true);
    if (phys_policy_step_closes (&self->published, substeps, phys_world_time_ns (self->world)))
        phys_publish_snapshot (self, true, step_id);
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = phys_world_time_ns (self->world);
    done.reply = reply;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STEP_DONE, &done);
    int taken = sim_link_send (self->link, &env);
    if (sim_link_batch (self->link, false))
        taken = 0;
    return taken > 0;
}

void
phys_answer_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from,
                     const void *wire, size_t wire_len)
{
    if (phys_recovery_repeat (self, req)) {
        /* applied already (before a restart, or a copy crossed its
           answer): answered with the time, changing nothing */
        Simbus__Reply reply = SIMBUS__REPLY__INIT;
        reply.id = req->id;
        reply.time_ns = phys_world_time_ns (self->world);
        Simbus__Envelope env;
        sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
        if (from)
            sim_link_reply (self->link, from, &env);
        return;
    }
    bool sync = req->has_sync && req->sync;
    if (sync)
        phys_clock_sync_request (&self->clock, zclock_usecs ());
    phys_recovery_journal (self, req, wire, wire_len); /* on file before anything of it can be seen */
    phys_journal_apply (self->world, &self->cfg, req, &self->applied);
    /* the newest applied, not the largest: a clock stepped back (or one
       absurd stamp from a tcp peer) must not stop the measurement */
    if (req->team_control && req->has_received_us)
        self->command_us = req->received_us;
    if (req->team_control)
        phys_publish_commands (self, req->team_control);
    s_config_changed (self, &self->applied.changes);
    if (self->config_due)
        phys_publish_config (self); /* vision must see it before the step's snapshots */
    uint64_t substeps = req->has_substeps ? req->substeps : 0;
    /* a sync step waits for vision whatever the mode: a realtime clock
       taken over by a sync client would otherwise drop what vision cannot
       take at once, and with it the step's frames and its end (the
       answer would come empty, sync_timeout late) */
    sim_link_pacing_t pacing = sim_link_pacing (self->link);
    bool paced = req->has_step_id && pacing == SIM_LINK_DROP;
    if (paced)
        sim_link_set_pacing (self->link, SIM_LINK_WAIT_PIPELINE);
    if (substeps > 0)
        phys_step_run (self, req->substeps, req->has_step_id, req->step_id, false);
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = req->id;
    reply.n_errors = self->applied.errors.count;
    reply.errors = self->applied.errors.ptrs;
    reply.n_robot_errors = self->applied.robot_errors.count;
    reply.robot_errors = self->applied.robot_errors.ptrs;
    reply.n_feedback = self->applied.feedback.count;
    reply.feedback = self->applied.feedback.ptrs;
    reply.time_ns = phys_world_time_ns (self->world);
    if (!(req->has_step_id && s_step_done (self, req->step_id, substeps, &reply))) {
        Simbus__Envelope env;
        sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
        if (from) /* a replayed input has no one to answer */
            sim_link_reply (self->link, from, &env);
    }
    if (paced)
        sim_link_set_pacing (self->link, pacing);
    if (sync)
        phys_clock_sync_answered (&self->clock, zclock_usecs ());
}
