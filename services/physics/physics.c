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
      phys_hold      a --journal run's clock held for vision, with the
                     requests that came meanwhile
      phys_playback  `ssl-sim replay` driving
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
#include "phys_epoch.h"
#include "phys_hold.h"
#include "phys_playback.h"
#include "phys_publish.h"
#include "phys_recovery.h"
#include "phys_report.h"
#include "phys_step.h"

#define PHYS_CLOCK_PERIOD_US      100000  /* Clock heartbeat, while someone reads it */
#define PHYS_SNAPSHOT_PERIOD_US   1000000 /* snapshot heartbeat */
#define PHYS_CONFIG_PERIOD_US     1000000 /* configuration re-publish */
#define PHYS_CHECKPOINT_PERIOD_US 1000000 /* ARCHITECTURE.md §3: a kill -9 loses at most this */
#define PHYS_SPIN_POLL_US         1000    /* while spinning, poll every input this often */

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
    if (self->terminated || env->body_case != SIMBUS__ENVELOPE__BODY_REQUEST)
        return false;
    if (phys_hold_request (self, env, from))
        return true; /* the clock waits for vision: applied when it starts */
    size_t len;
    const uint8_t *wire = sim_link_received (self->link, &len);
    phys_answer_request (self, env->request, from, wire, len);
    return false;
}

static void
s_on_pipe (void *arg)
{
    phys_service_t *self = arg;
    while (zsock_events (self->pipe) & ZMQ_POLLIN && !self->terminated)
        if (sim_service_term_requested (self->pipe))
            self->terminated = true;
}

/* ---- periodic duties -------------------------------------------------- */

static int64_t
s_min (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The poll timeout: the next periodic duty, the clock's next instant, or
   what the link needs. */
static int
s_timeout_ms (phys_service_t *self, int64_t now)
{
    if (self->config_due)
        return 0;
    if (self->replay && !self->replay_done) /* fast: at once; realtime: the next substep or so */
        return self->replay_started && self->cfg.run.mode == SIM_MODE_FAST ? 0 : 1;
    int64_t until = s_min (self->next_config_us, self->next_snapshot_us);
    until = s_min (until, self->status_wall_us + PHYS_STATUS_PERIOD_US);
    if (*self->checkpoint_path)
        until = s_min (until, self->next_checkpoint_us);
    if (sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_CLOCK))
        until = s_min (until, self->next_clock_us);
    until = s_min (until, sim_link_next_us (self->link, now));
    /* realtime: the next instant anyone can observe is a release of a
       vision packet (captures on the way are snapshot at their own sim
       times in the same turn): one wake-up per packet, not two */
    uint64_t t = phys_world_time_ns (self->world);
    uint64_t due =
        sim_schedule_next_release (self->schedule, sim_schedule_delay_ns (self->cfg.realism.vision_delay));
    until = phys_clock_next_us (&self->clock, now, due > t ? due - t : 0, until);
    return sim_service_timeout_ms (now, until);
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

static void
s_periodic (phys_service_t *self, int64_t now)
{
    /* the mode can change at runtime; a replay loses nothing, whatever its pace */
    sim_link_set_pacing (self->link, self->replay ? SIM_LINK_WAIT_ALL : s_pacing (self->cfg.run.mode));
    if (now >= self->next_checkpoint_us) {
        phys_recovery_checkpoint (self);
        self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    }
    if (sim_link_joined (self->link))
        self->config_due = true;
    if (now >= self->next_config_us) {
        self->config_due = true;
        self->next_config_us = now + PHYS_CONFIG_PERIOD_US;
    }
    if (self->config_due)
        phys_publish_config (self);
    if (now >= self->next_clock_us) {
        phys_publish_clock (self, now);
        self->next_clock_us = now + PHYS_CLOCK_PERIOD_US;
    }
    if (now >= self->next_snapshot_us) {
        phys_publish_snapshot (self, false, 0);
        self->next_snapshot_us = now + PHYS_SNAPSHOT_PERIOD_US;
    }
    phys_report_status (self, now);
}

/* ---- life ------------------------------------------------------------- */

static void
s_destroy (phys_service_t **self_p)
{
    phys_service_t *self = *self_p;
    if (!self)
        return;
    phys_hold_flush (self, false);
    sim_loop_destroy (&self->loop);
    sim_link_destroy (&self->link);
    phys_journal_destroy (&self->journal);
    phys_journal_destroy (&self->user_journal);
    phys_replay_destroy (&self->replay);
    sim_schedule_destroy (&self->schedule);
    phys_world_destroy (&self->world);
    free (self);
    *self_p = NULL;
}

static phys_service_t *
s_new (zsock_t *pipe, const sim_config_t *cfg, const sim_service_args_t *sargs)
{
    phys_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->pipe = pipe;
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
    self->loop = sim_loop_new ();
    if (!self->world || !self->schedule || !self->loop || (*self->checkpoint_path && !self->journal)) {
        sim_error ("cannot create the world%s%s", *why ? ": " : "", why);
        s_destroy (&self);
        return NULL;
    }
    /* the journal starts after a checkpoint of the world as it is now
       (fresh, or resumed and replayed), which also covers the time to the
       first periodic one */
    bool resumed = phys_world_frame (self->world) > 0;
    phys_recovery_checkpoint (self);
    if ((sargs->replay && phys_playback_open (self, sargs->replay, sargs->replay_until_s))
        || (!sargs->replay && cfg->run.journal[0] && phys_recovery_open_journal (self, resumed))) {
        s_destroy (&self);
        return NULL;
    }
    self->link = sim_link_new (cfg, SIM_LINK_PHYSICS);
    if (!self->link || sim_loop_add_sock (self->loop, "pipe", pipe, s_on_pipe, self)
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)) {
        s_destroy (&self);
        return NULL;
    }
    int64_t now = zclock_usecs ();
    phys_clock_init (&self->clock, self->cfg.run.mode, self->cfg.run.speed, phys_world_dt_ns (self->world),
                     now);
    sim_link_set_pacing (self->link, self->replay ? SIM_LINK_WAIT_ALL : s_pacing (self->cfg.run.mode));
    phys_epoch_rebase (self);
    phys_report_pause (self);
    self->status_wall_us = now;
    self->started_us = now;
    self->status_sim_ns = phys_world_time_ns (self->world);
    self->next_config_us = now;
    self->next_clock_us = now;
    self->next_snapshot_us = now + PHYS_SNAPSHOT_PERIOD_US;
    self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    self->hold_clock = self->user_journal && !resumed;
    self->hold_until_us = now + PHYS_HOLD_US;
    return self;
}

void
phys_service_actor (zsock_t *pipe, void *args)
{
    sim_service_args_t *sargs = args;
    const sim_config_t *cfg = &sargs->cfg;
    sim_service_log_setup ("physics", cfg);
    phys_service_t *self = s_new (pipe, cfg, sargs);
    if (!sim_service_ready (pipe, sargs, self != NULL))
        return;
    sim_info ("division %s, %d robots per team, substep %.3f ms, seed %llu, mode %s",
              cfg->run.division == SIM_DIVISION_A ? "A" : "B", cfg->sim.initial_robots_per_team,
              cfg->sim.substep * 1e3, (unsigned long long) cfg->sim.seed,
              sim_config_mode_name (cfg->run.mode));
    int64_t polled_us = 0;
    while (!self->terminated) {
        int timeout = s_timeout_ms (self, zclock_usecs ());
        /* a lock-step client sends its next step soon after the answer */
        int64_t spin_until = timeout != 0 ? phys_clock_spin_until (&self->clock) : 0;
        bool spun = spin_until && sim_link_spin (self->link, spin_until);
        bool only_spun = spun && zclock_usecs () - polled_us < PHYS_SPIN_POLL_US;
        if (!only_spun) {
            if (sim_loop_wait (self->loop, spun ? 0 : timeout) < 0)
                break;
            polled_us = zclock_usecs ();
        }
        /* substeps owed up to now come first, so a command that woke us
           applies at the sim time matching its arrival */
        if (self->replay)
            phys_playback_turn (self, zclock_usecs ());
        else if (!self->hold_clock || phys_hold_release (self, zclock_usecs ()))
            phys_step_clock (self, zclock_usecs ());
        if (only_spun)
            sim_link_receive_spun (self->link); /* the other inputs wait a little */
        else
            sim_loop_dispatch (self->loop);
        s_periodic (self, zclock_usecs ());
    }
    /* $TERM (SIGTERM of the process, a restart): save the latest state */
    phys_recovery_checkpoint (self);
    s_destroy (&self);
}
