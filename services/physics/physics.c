/*  physics.c - the physics service actor: world, clock, configuration.

    One loop driven by absolute deadlines: wait, run the substeps the clock
    owes (phys_clock), hand the bus messages to their handlers, do what is
    due. Per substep: step the core, publish its events, and publish a
    snapshot only when the capture/release schedule (common/sim_schedule)
    needs one, so bus traffic grows with the camera rate, not the substep
    rate (ARCHITECTURE.md §2).

    Separate processes keep a checkpoint and an input journal in the
    runtime directory (phys_journal.h, docs/journal.md): each request is
    journaled before it is answered and a mark before any later sim time
    is published, so a restarted physics replays to the state it had and
    never publishes an earlier time than before.
*/
#include "physics.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "phys_apply.h"
#include "phys_checkpoint.h"
#include "phys_clock.h"
#include "phys_def.h"
#include "phys_journal.h"
#include "sim_bus.h"
#include "sim_bus_codec.h"
#include "sim_link.h"
#include "sim_log.h"
#include "sim_schedule_config.h"
#include "sim_service.h"
#include "sim_stats.h"
#include "physics/core/phys_world.h"

#define PHYS_CLOCK_PERIOD_US      100000  /* Clock heartbeat, while someone reads it */
#define PHYS_STATUS_PERIOD_US     1000000 /* status line */
#define PHYS_SNAPSHOT_PERIOD_US   1000000 /* snapshot heartbeat */
#define PHYS_CONFIG_PERIOD_US     1000000 /* configuration re-publish */
#define PHYS_FAST_CHECK           16      /* fast mode: substeps between looks for a request */
#define PHYS_CHECKPOINT_PERIOD_US 1000000 /* ARCHITECTURE.md §3: a kill -9 loses at most this */
#define PHYS_SPIN_POLL_US         1000    /* while spinning, poll every input this often */

typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_schedule_t *schedule;
    phys_clock_t clock;
    zsock_t *pipe;
    sim_link_t *link;
    sim_loop_t *loop;
    bool terminated;

    /* checkpoints and the journal: empty path / NULL = off (single
       process: nothing to restart) */
    char checkpoint_path[SIM_STRING_MAX];
    char run_key[80];
    int64_t next_checkpoint_us;
    phys_journal_t *journal;

    uint64_t config_serial;
    bool config_due;
    int64_t next_config_us, next_clock_us, next_snapshot_us;
    uint64_t last_snapshot_ns; /* time of the last published snapshot */
    bool have_snapshot;

    /* what a request collects for its reply; kept here, not allocated per
       request, because sync clients send thousands a second */
    phys_journal_result_t applied;
    sim_bus_snapshot_msg_t snapshot_msg;

    /* status line window */
    int64_t status_wall_us;
    uint64_t status_sim_ns;
    uint64_t status_substeps;
    int64_t status_cost_us;
    double last_rtf, last_cost_us;

    /* Stats (sim_stats.h): counted since start */
    int64_t started_us;
    uint64_t substep_buckets[SIM_STATS_SUBSTEP_BUCKETS];
    uint64_t substeps_timed;
    double substep_sum_us;
} phys_service_t;

/* ---- publishing ------------------------------------------------------- */

static void
s_publish_snapshot (phys_service_t *self, bool has_step, uint64_t step_id)
{
    sim_snapshot_t snap;
    phys_world_snapshot (self->world, &snap);
    if (sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT))
        sim_link_send (self->link, sim_bus_snapshot_encode (&self->snapshot_msg, &snap, has_step, step_id));
    self->last_snapshot_ns = snap.time_ns;
    self->have_snapshot = true;
}

static void
s_publish_events (phys_service_t *self)
{
    const phys_event_t *events;
    int n = phys_world_events (self->world, &events);
    if (n <= 0 || !sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_EVENTS))
        return;
    sim_event_t items[SIM_BUS_EVENTS_MAX];
    if (n > SIM_BUS_EVENTS_MAX)
        n = SIM_BUS_EVENTS_MAX;
    for (int i = 0; i < n; i++) {
        const phys_event_t *e = &events[i];
        items[i] = (sim_event_t) { (sim_event_kind_t) e->kind,
                                   e->time_ns,
                                   e->team,
                                   e->id,
                                   e->other_team,
                                   e->other_id,
                                   e->speed,
                                   e->elevation_deg };
    }
    sim_bus_events_msg_t msg;
    sim_link_send (self->link, sim_bus_events_encode (&msg, items, n));
}

static void
s_publish_config (phys_service_t *self)
{
    sim_bus_config_msg_t msg;
    Simbus__Envelope *env = sim_bus_config_encode (&msg, &self->cfg, self->config_serial);
    if (env)
        sim_link_send (self->link, env);
    sim_bus_config_msg_release (&msg);
    self->config_due = false;
}

static void
s_publish_clock (phys_service_t *self, int64_t now)
{
    sim_bus_clock_msg_t msg;
    sim_link_send (self->link,
                   sim_bus_clock_encode (&msg, phys_world_time_ns (self->world), self->cfg.run.mode,
                                         phys_clock_running (&self->clock, now),
                                         phys_world_robot_count (self->world)));
}

/* Stats once a second, with the status line (sim_stats.h). */
static void
s_publish_stats (phys_service_t *self, int64_t now)
{
    if (!sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_STATS))
        return;
    Simbus__Stats st;
    sim_stats_begin (&st, "physics", self->started_us);
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
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}

/* ---- stepping --------------------------------------------------------- */

/* One substep and what must be published after it. */
static void
s_substep (phys_service_t *self, bool has_step, uint64_t step_id)
{
    phys_world_step (self->world);
    if (self->journal)
        phys_journal_reached (self->journal, self->world); /* before anything of it is published */
    s_publish_events (self);
    uint64_t t = phys_world_time_ns (self->world);
    if (t >= sim_schedule_next_due (self->schedule)) {
        s_publish_snapshot (self, has_step, step_id);
        uint32_t mask, frames[SIM_MAX_CAMERAS];
        sim_schedule_advance (self->schedule, t, sim_schedule_delay_ns (self->cfg.realism.vision_delay),
                              &mask, frames);
    }
    self->status_substeps++;
}

/* Up to n substeps; a free-running clock stops early (every
   PHYS_FAST_CHECK) when `yield` and a request waits, so that a request
   applies within a few ms of sim time of its arrival. A free-running
   clock's messages travel as one batch; a sync step's go one by one, so
   vision works while physics steps (the answer waits for both). */
static void
s_run_substeps (phys_service_t *self, uint64_t n, bool has_step, uint64_t step_id, bool yield)
{
    int64_t start = zclock_usecs ();
    sim_link_batch (self->link, !has_step);
    uint64_t done = 0;
    for (uint64_t i = 1; i <= n; i++) {
        s_substep (self, has_step, step_id);
        done = i;
        if (yield && i % PHYS_FAST_CHECK == 0 && sim_link_input_waiting (self->link))
            break;
    }
    sim_link_batch (self->link, false);
    int64_t cost = zclock_usecs () - start;
    self->status_cost_us += cost;
    sim_stats_substeps (self->substep_buckets, done, (double) cost);
    self->substeps_timed += done;
    self->substep_sum_us += (double) cost;
}

static void
s_advance_clock (phys_service_t *self, int64_t now)
{
    uint64_t n = phys_clock_owed (&self->clock, now);
    if (n)
        s_run_substeps (self, n, false, 0, self->cfg.run.mode == SIM_MODE_FAST);
}

/* ---- requests --------------------------------------------------------- */

static void
s_config_changed (phys_service_t *self, const phys_changes_t *changes)
{
    if (changes->rig) {
        sim_schedule_def_t def;
        sim_schedule_def_from_config (&def, &self->cfg);
        sim_schedule_reset_rig (self->schedule, &def, phys_world_time_ns (self->world));
    }
    if (changes->config) {
        self->config_serial++;
        self->config_due = true;
        phys_clock_configure (&self->clock, self->cfg.run.mode, self->cfg.run.speed);
    }
}

/* The end of a sync step: its closing snapshot and the mark, which
   carries the reply to vision, which hands it on with the step's frames,
   so the requester gets the whole answer in one message. Returns true
   when a receiver took the mark; otherwise (no vision) the caller answers
   itself. */
static bool
s_step_done (phys_service_t *self, uint64_t step_id, bool stepped, Simbus__Reply *reply)
{
    sim_link_batch (self->link, true);
    if (stepped && (!self->have_snapshot || self->last_snapshot_ns != phys_world_time_ns (self->world)))
        s_publish_snapshot (self, true, step_id);
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

static void
s_handle_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from)
{
    bool sync = req->has_sync && req->sync;
    if (sync)
        phys_clock_sync_request (&self->clock, zclock_usecs ());
    /* on file before anything of it can be seen: the reply comes later */
    if (self->journal)
        phys_journal_input (self->journal, self->world, req);
    phys_journal_apply (self->world, &self->cfg, req, &self->applied);
    s_config_changed (self, &self->applied.changes);
    if (self->config_due)
        s_publish_config (self); /* vision must see it before the step's snapshots */
    bool stepped = req->has_substeps && req->substeps > 0;
    if (stepped)
        s_run_substeps (self, req->substeps, req->has_step_id, req->step_id, false);
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = req->id;
    reply.n_errors = self->applied.errors.count;
    reply.errors = self->applied.errors.ptrs;
    reply.n_robot_errors = self->applied.robot_errors.count;
    reply.robot_errors = self->applied.robot_errors.ptrs;
    reply.n_feedback = self->applied.feedback.count;
    reply.feedback = self->applied.feedback.ptrs;
    reply.time_ns = phys_world_time_ns (self->world);
    if (!(req->has_step_id && s_step_done (self, req->step_id, stepped, &reply))) {
        Simbus__Envelope env;
        sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
        sim_link_reply (self->link, from, &env);
    }
    if (sync)
        phys_clock_sync_answered (&self->clock, zclock_usecs ());
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    phys_service_t *self = arg;
    if (!self->terminated && env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST)
        s_handle_request (self, env->request, from);
    else if (env->body_case == SIMBUS__ENVELOPE__BODY_STATS
             && sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_STATS))
        sim_link_send (self->link, env); /* the gateway's: physics publishes them */
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

static void
s_status (phys_service_t *self, int64_t now)
{
    int64_t wall = now - self->status_wall_us;
    if (wall < PHYS_STATUS_PERIOD_US)
        return;
    uint64_t t = phys_world_time_ns (self->world);
    double rtf = (double) (t - self->status_sim_ns) / 1e3 / (double) wall;
    double cost = self->status_substeps && self->cfg.run.mode != SIM_MODE_SYNC
                    ? (double) self->status_cost_us / (double) self->status_substeps
                    : 0.0;
    sim_info ("sim %.2fs | rtf %.2fx | substep %.1fus | robots %d | mode %s", (double) t / 1e9, rtf, cost,
              phys_world_robot_count (self->world), sim_config_mode_name (self->cfg.run.mode));
    self->last_rtf = rtf;
    self->last_cost_us = cost;
    s_publish_stats (self, now);
    self->status_wall_us = now;
    self->status_sim_ns = t;
    self->status_substeps = 0;
    self->status_cost_us = 0;
}

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

/* A checkpoint, then a new journal after it. A crash between the two
   leaves the new checkpoint with the old journal, whose inputs all have
   numbers below the checkpoint's: a replay skips them. */
static void
s_checkpoint (phys_service_t *self)
{
    if (!*self->checkpoint_path)
        return;
    uint64_t seq = self->journal ? phys_journal_seq (self->journal) : 0;
    phys_checkpoint_meta_t meta = { .serial = self->config_serial, .journal_seq = seq };
    if (phys_checkpoint_write (self->checkpoint_path, self->run_key, self->world, &self->cfg, &meta) == 0
        && self->journal)
        phys_journal_start (self->journal, seq, self->world);
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
    sim_link_set_pacing (self->link, s_pacing (self->cfg.run.mode)); /* the mode can change at runtime */
    if (now >= self->next_checkpoint_us) {
        s_checkpoint (self);
        self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    }
    if (sim_link_joined (self->link))
        self->config_due = true;
    if (now >= self->next_config_us) {
        self->config_due = true;
        self->next_config_us = now + PHYS_CONFIG_PERIOD_US;
    }
    if (self->config_due)
        s_publish_config (self);
    if (now >= self->next_clock_us) {
        s_publish_clock (self, now);
        self->next_clock_us = now + PHYS_CLOCK_PERIOD_US;
    }
    if (now >= self->next_snapshot_us) {
        s_publish_snapshot (self, false, 0);
        self->next_snapshot_us = now + PHYS_SNAPSHOT_PERIOD_US;
    }
    s_status (self, now);
}

/* ---- life ------------------------------------------------------------- */

static void
s_destroy (phys_service_t **self_p)
{
    phys_service_t *self = *self_p;
    if (!self)
        return;
    sim_loop_destroy (&self->loop);
    sim_link_destroy (&self->link);
    phys_journal_destroy (&self->journal);
    sim_schedule_destroy (&self->schedule);
    phys_world_destroy (&self->world);
    free (self);
    *self_p = NULL;
}

/* The inputs the journal holds after the checkpoint, applied again as
   they were; the configuration serial counts the changes they made, as
   it did the first time. Returns the number of the next input. */
static uint64_t
s_replay (phys_service_t *self, const char *path, uint64_t seq)
{
    phys_journal_replay_t r;
    uint64_t from = phys_world_time_ns (self->world);
    phys_journal_replay (path, self->run_key, self->world, &self->cfg, seq, &self->applied, &r);
    self->config_serial += r.config_changes;
    if (r.inputs || r.substeps)
        sim_info ("replayed the journal: %llu inputs, sim %.3fs -> %.3fs%s", (unsigned long long) r.inputs,
                  (double) from / 1e9, (double) phys_world_time_ns (self->world) / 1e9,
                  r.complete ? "" : " (stopped early, see above)");
    return r.seq;
}

/* Separate processes checkpoint into the runtime directory and journal
   every input beside it; a world saved by an earlier process of the same
   run is resumed (same robots, ball, clock, random stream and effective
   configuration) and the journal replayed on it. */
static void
s_resume (phys_service_t *self, const sim_config_t *own)
{
    self->config_serial = 1;
    if (strncmp (own->bus.cmd_bind, "inproc://", 9) == 0)
        return;
    char dir[SIM_STRING_MAX - 32];
    if (sim_bus_runtime_dir (own, dir, sizeof dir))
        return;
    snprintf (self->checkpoint_path, sizeof self->checkpoint_path, "%s/physics.checkpoint", dir);
    phys_checkpoint_key (own, self->run_key, sizeof self->run_key);
    char journal[SIM_STRING_MAX];
    snprintf (journal, sizeof journal, "%s/physics.journal", dir);
    sim_config_t saved;
    phys_checkpoint_meta_t meta;
    phys_world_t *world = phys_checkpoint_read (self->checkpoint_path, self->run_key, &saved, &meta);
    if (!world) {
        self->journal = phys_journal_new (journal, self->run_key, 0);
        return;
    }
    sim_config_keep_local (&saved, own);
    self->cfg = saved;
    self->world = world;
    self->config_serial = meta.serial;
    sim_info ("resumed from checkpoint: sim %.3fs, %d robots, config serial %llu",
              (double) phys_world_time_ns (world) / 1e9, phys_world_robot_count (world),
              (unsigned long long) meta.serial);
    self->journal = phys_journal_new (journal, self->run_key, s_replay (self, journal, meta.journal_seq));
}

static phys_service_t *
s_new (zsock_t *pipe, const sim_config_t *cfg)
{
    phys_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->pipe = pipe;
    self->cfg = *cfg;
    s_resume (self, cfg);
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
    s_checkpoint (self);
    self->link = sim_link_new (cfg, SIM_LINK_PHYSICS);
    if (!self->link || sim_loop_add_sock (self->loop, "pipe", pipe, s_on_pipe, self)
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)) {
        s_destroy (&self);
        return NULL;
    }
    int64_t now = zclock_usecs ();
    phys_clock_init (&self->clock, self->cfg.run.mode, self->cfg.run.speed, phys_world_dt_ns (self->world),
                     now);
    sim_link_set_pacing (self->link, s_pacing (self->cfg.run.mode));
    self->status_wall_us = now;
    self->started_us = now;
    self->status_sim_ns = phys_world_time_ns (self->world);
    self->next_config_us = now;
    self->next_clock_us = now;
    self->next_snapshot_us = now + PHYS_SNAPSHOT_PERIOD_US;
    self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    return self;
}

void
phys_service_actor (zsock_t *pipe, void *args)
{
    sim_service_args_t *sargs = args;
    const sim_config_t *cfg = &sargs->cfg;
    sim_service_log_setup ("physics", cfg);
    phys_service_t *self = s_new (pipe, cfg);
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
        s_advance_clock (self, zclock_usecs ());
        if (only_spun)
            sim_link_receive_spun (self->link); /* the other inputs wait a little */
        else
            sim_loop_dispatch (self->loop);
        s_periodic (self, zclock_usecs ());
    }
    /* $TERM (SIGTERM of the process, a restart): save the latest state */
    s_checkpoint (self);
    s_destroy (&self);
}
