/*  physics.c - the physics service actor: world, clock, configuration.

    One loop driven by absolute deadlines: wait, run the substeps the clock
    owes (phys_clock, phys_step), hand the bus messages to their handlers,
    do what is due. This file is the table of contents: the loop, the
    handlers, life (start, ready, stop); each feature's glue has its own
    file, sharing the state in physics_internal.h:

      phys_step      substeps, and what is published after each (the step
                     policy of engine/world/phys_policy.h)
      phys_publish   snapshots, events, configuration, clock to the bus
      phys_answer    a request applied and answered
      phys_recovery  checkpoints, the restart journal and its replay, the
                     --journal file (docs/journal.md, docs/logs.md)
      phys_hold      a fast or --journal run's clock held for vision,
                     with the requests that came meanwhile
      phys_defer     realtime: the gateway's requests read at the clock's
                     own wake-ups, each applied at its arrival
      phys_playback  `ssl-sim replay` driving
      phys_seeking   its timeline when the page moves it (seek, pause, step)
      phys_epoch     the wire timestamps' Unix base
      phys_report    the status line, Stats, the pause note
*/
#include "physics.h"

#include <stdlib.h>
#include <string.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "common/config/config.h"
#include "common/config/sim_schedule_config.h"
#include "engine/world/phys_def.h"
#include "phys_answer.h"
#include "phys_defer.h"
#include "phys_epoch.h"
#include "phys_hold.h"
#include "phys_playback.h"
#include "phys_publish.h"
#include "phys_recovery.h"
#include "phys_report.h"
#include "phys_seeking.h"
#include "phys_step.h"

#define PHYS_CLOCK_PERIOD_US      100000  /* Clock heartbeat, while someone reads it */
#define PHYS_SNAPSHOT_PERIOD_US   1000000 /* snapshot heartbeat */
#define PHYS_CONFIG_PERIOD_US     1000000 /* configuration re-publish */
#define PHYS_CHECKPOINT_PERIOD_US 1000000 /* ARCHITECTURE.md §3: a kill -9 loses at most this */

/* ---- handlers --------------------------------------------------------- */

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    phys_service_t *self = arg;
    if (env->body_case == SIMBUS__ENVELOPE__BODY_STATS) {
        if (sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_STATS))
            sim_link_send (self->link, env); /* the gateway's: physics publishes them */
        return false;
    }
    if (sim_loop_stopped (self->loop) || env->body_case != SIMBUS__ENVELOPE__BODY_REQUEST)
        return false;
    if (self->replay && phys_seeking_request (self, env->request, from))
        return false; /* the page's timeline; nothing else changes a replay */
    if (phys_hold_request (self, env, from))
        return true; /* the clock waits for vision: applied when it starts */
    phys_defer_arrival (self, env->request, from);
    size_t len;
    const uint8_t *wire = sim_link_received (self->link, &len);
    phys_answer_request (self, env->request, from, wire, len);
    return false;
}

/* ---- the loop: the clock first, then the input, then what is due ------- */

/* The clock's next instant (sim_loop_wake_fn): a replay's next turn, or
   phys_clock's wake-up. Realtime: the next instant anyone can observe is
   a release of a vision packet (captures on the way are snapshot at their
   own sim times in the same turn): one wake-up per packet, not two. The
   gateway's requests wait for it when it is near (phys_defer). */
static int64_t
s_clock_wake (void *arg, int64_t now)
{
    phys_service_t *self = arg;
    if (self->replay && self->replay_paused && phys_world_frame (self->world) >= self->replay_step_to)
        return SIM_LOOP_NEVER; /* the page paused it: a request wakes the loop */
    int64_t at;
    if (self->replay && !self->replay_done) /* fast: at once; realtime: the next substep or so */
        at = self->replay_started && self->cfg.run.mode == SIM_MODE_FAST ? now : now + 1000;
    else {
        uint64_t t = phys_world_time_ns (self->world);
        uint64_t due = sim_schedule_next_release (self->schedule,
                                                  sim_schedule_delay_ns (self->cfg.realism.vision_delay));
        at = phys_clock_next_us (&self->clock, now, due > t ? due - t : 0, SIM_LOOP_NEVER);
    }
    phys_defer_plan (self, now, at);
    return at;
}

static sim_link_pacing_t
s_pacing (sim_mode_t mode)
{
    /* in realtime the clock is not ours to slow down, and in sync a
       receiver other than vision that falls behind (an edge under a
       datagram flood) loses messages instead of holding up the answer */
    return mode == SIM_MODE_FAST ? SIM_LINK_WAIT_ALL
         : mode == SIM_MODE_SYNC ? SIM_LINK_WAIT_PIPELINE
                                 : SIM_LINK_DROP;
}

/* Every turn, after the input: the pacing (the mode can change at
   runtime; a replay loses nothing, whatever its pace), and a joiner gets
   the configuration at once (and the Clock, if it reads that). */
static void
s_on_turn (void *arg)
{
    phys_service_t *self = arg;
    sim_link_set_pacing (self->link, self->replay ? SIM_LINK_WAIT_ALL : s_pacing (self->cfg.run.mode));
    if (sim_link_joined (self->link)) {
        sim_loop_timer_set (self->loop, self->config_timer, 0);
        if (sim_loop_timer_deadline (self->loop, self->clock_timer) == SIM_LOOP_NEVER)
            sim_loop_timer_set (self->loop, self->clock_timer, 0);
    }
}

static int64_t
s_on_config_due (void *arg, int64_t deadline, int64_t now)
{
    phys_publish_config (arg);
    return sim_loop_period (deadline, PHYS_CONFIG_PERIOD_US, now);
}

/* The Clock heartbeat, while someone reads it. */
static int64_t
s_on_clock_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    if (!sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_CLOCK))
        return SIM_LOOP_NEVER;
    phys_publish_clock (self, now);
    return sim_loop_period (deadline, PHYS_CLOCK_PERIOD_US, now);
}

/* The checkpoint and the snapshot heartbeat: the same second. */
_Static_assert(PHYS_CHECKPOINT_PERIOD_US == PHYS_SNAPSHOT_PERIOD_US, "one timer for both");

static int64_t
s_on_second_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    phys_recovery_checkpoint (self); /* when separate processes keep one */
    phys_publish_snapshot (self, false, 0);
    return sim_loop_period (deadline, PHYS_SNAPSHOT_PERIOD_US, now);
}

static int64_t
s_on_status_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    (void) deadline;
    phys_report_status (self, now);
    return self->status_wall_us + PHYS_STATUS_PERIOD_US;
}

/* After each wait, before the input: the requests the wait deferred, each
   at its arrival, then the substeps owed up to now, so a command that
   woke us applies at the sim time matching its arrival. */
static void
s_on_wake (void *arg)
{
    phys_service_t *self = arg;
    phys_defer_catch_up (self);
    if (self->replay)
        phys_playback_turn (self, zclock_usecs ());
    else if (!self->hold_clock || phys_hold_release (self, zclock_usecs ()))
        phys_step_clock (self, zclock_usecs ());
}

/* Sync mode: a lock-step client sends its next step soon after the
   answer; watch for it without sleeping (sim_loop_set_spin). */
static bool
s_spin (void *arg)
{
    phys_service_t *self = arg;
    int64_t until = phys_clock_spin_until (&self->clock);
    return until && sim_link_spin (self->link, until);
}

static void
s_read_spun (void *arg)
{
    phys_service_t *self = arg;
    sim_link_receive_spun (self->link);
}

/* The loop's part of a new service: the clock first in every turn, the
   periodic duties after the input, in this order. */
static int
s_add_to_loop (phys_service_t *self, int64_t now)
{
    sim_loop_t *loop = self->loop;
    sim_loop_set_spin (loop, s_spin, s_read_spun, self);
    if (sim_loop_add_first (loop, "clock", s_on_wake, self)
        || sim_loop_add_wake (loop, "clock", s_clock_wake, self)
        || sim_loop_add_tick (loop, "joiners", s_on_turn, self)
        || (self->config_timer = sim_loop_add_timer (loop, "config", now, s_on_config_due, self)) < 0
        || (self->clock_timer = sim_loop_add_timer (loop, "clock", now, s_on_clock_due, self)) < 0
        || sim_loop_add_timer (loop, "second", now + PHYS_SNAPSHOT_PERIOD_US, s_on_second_due, self) < 0
        || sim_loop_add_timer (loop, "status", now + PHYS_STATUS_PERIOD_US, s_on_status_due, self) < 0)
        return -1;
    return 0;
}

/* ---- life ------------------------------------------------------------- */

static void
s_destroy (phys_service_t **self_p)
{
    phys_service_t *self = *self_p;
    if (!self)
        return;
    phys_hold_flush (self, false);
    phys_seeking_close (self); /* its thread reads the replay */
    sim_link_destroy (&self->link);
    phys_journal_destroy (&self->journal);
    phys_journal_destroy (&self->user_journal);
    phys_replay_destroy (&self->replay);
    sim_schedule_destroy (&self->schedule);
    phys_world_destroy (&self->world);
    free (self);
    *self_p = NULL;
}

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    phys_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->cfg = *cfg;
    phys_recovery_resume (self, cfg);
    char why[192] = "";
    if (!self->world) {
        phys_world_def_t def;
        phys_world_def_from_config (&def, &self->cfg);
        self->world = phys_world_new (&def, why, sizeof why);
    }
    sim_schedule_def_t sdef;
    sim_schedule_def_from_config (&sdef, &self->cfg);
    self->schedule = sim_schedule_new (&sdef);
    /* a resumed clock: captures up to now are past, as for a restarted
       vision (same function, so both agree on the next instant) */
    if (self->world && self->schedule)
        sim_schedule_skip_to (self->schedule, phys_world_time_ns (self->world));
    if (!self->world || !self->schedule || (*self->checkpoint_path && !self->journal)) {
        sim_error ("cannot create the world%s%s", *why ? ": " : "", why);
        s_destroy (&self);
        return NULL;
    }
    /* a continued --journal file first takes what the restart journal
       holds and it lacks (phys_recovery_open_journal); then the restart
       journal starts again after a checkpoint of the world as it is now
       (fresh, or resumed and replayed), which also covers the time to the
       first periodic one */
    bool resumed = phys_world_frame (self->world) > 0;
    if ((args->replay && phys_playback_open (self, args->replay, args->replay_until_s))
        || (args->replay && args->replay_page && phys_seeking_open (self))
        || (!args->replay && cfg->run.journal[0] && phys_recovery_open_journal (self, resumed))) {
        s_destroy (&self);
        return NULL;
    }
    self->replay_paused = self->seeking && args->replay_paused; /* --speed 0: the page resumes it */
    phys_recovery_checkpoint (self);
    self->link = sim_link_new (cfg, SIM_LINK_PHYSICS);
    int64_t now = zclock_usecs ();
    if (!self->link || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)
        || s_add_to_loop (self, now)) {
        s_destroy (&self);
        return NULL;
    }
    phys_clock_init (&self->clock, self->cfg.run.mode, self->cfg.run.speed, phys_world_dt_ns (self->world),
                     now);
    sim_link_set_pacing (self->link, self->replay ? SIM_LINK_WAIT_ALL : s_pacing (self->cfg.run.mode));
    phys_epoch_rebase (self, NULL);
    phys_report_pause (self);
    self->status_wall_us = now;
    self->started_us = now;
    self->status_sim_ns = phys_world_time_ns (self->world);
    phys_hold_begin (self, resumed, now);
    sim_info ("division %s, %d robots per team, substep %.3f ms, seed %llu, mode %s",
              cfg->run.division == SIM_DIVISION_A ? "A" : "B", cfg->sim.initial_robots_per_team,
              cfg->sim.substep * 1e3, (unsigned long long) cfg->sim.seed,
              sim_config_mode_name (cfg->run.mode));
    return self;
}

/* $TERM (SIGTERM of the process, a restart): save the latest state */
static void
s_stop (void *arg)
{
    phys_service_t *self = arg;
    phys_recovery_checkpoint (self);
    s_destroy (&self);
}

void
phys_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_PHYSICS, s_new, s_stop };
    sim_service_run (pipe, args, &def);
}
