/*  physics.c - the physics service actor: world, clock, configuration.

    One loop driven by absolute deadlines: wait, run the substeps the clock
    owes (phys_clock), hand the bus messages to their handlers, do what is
    due. Per substep: step the core, publish its events, and publish a
    snapshot only when the capture/release schedule (common/base/sim_schedule)
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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/config/config.h"
#include "engine/world/phys_apply.h"
#include "engine/world/phys_checkpoint.h"
#include "phys_clock.h"
#include "engine/world/phys_def.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_replay.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/config/sim_schedule_config.h"
#include "common/bus/sim_service.h"
#include "common/logs/sim_stats.h"
#include "engine/physics/phys_world.h"

#define PHYS_CLOCK_PERIOD_US      100000  /* Clock heartbeat, while someone reads it */
#define PHYS_STATUS_PERIOD_US     1000000 /* status line */
#define PHYS_SNAPSHOT_PERIOD_US   1000000 /* snapshot heartbeat */
#define PHYS_CONFIG_PERIOD_US     1000000 /* configuration re-publish */
#define PHYS_FAST_CHECK           16      /* fast mode: substeps between looks for a request */
#define PHYS_CHECKPOINT_PERIOD_US 1000000 /* ARCHITECTURE.md §3: a kill -9 loses at most this */
#define PHYS_HELD_MAX             64      /* requests kept while the clock waits for vision */

typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_schedule_t *schedule;
    phys_clock_t clock;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */

    /* checkpoints and the journal: empty path / NULL = off (single
       process: nothing to restart) */
    char checkpoint_path[SIM_STRING_MAX];
    char run_key[80];
    phys_journal_t *journal;

    /* --journal FILE: every input of the run from its first substep, with
       the configuration; NULL = off. Written beside the restart journal
       with the same records (docs/logs.md). */
    phys_journal_t *user_journal;
    char last_source[64];

    /* `ssl-sim replay`: the inputs come from a journal, not the bus */
    phys_replay_t *replay;
    size_t replay_next;
    uint64_t replay_end; /* substep to stop at */
    bool replay_started; /* vision listens: the script runs */
    /* --journal on a fresh world: the clock waits for vision (at most
       PHYS_HOLD_US), so the run's vision is reproducible from frame one */
    bool hold_clock;
    int64_t hold_until_us;
    /* requests that came while the clock was held: applied, in order,
       when it starts (a lock-step client's first steps included) */
    struct {
        Simbus__Envelope *env;
        sim_link_from_t *from;
    } held[PHYS_HELD_MAX];
    int held_count;
    bool replay_done;
    uint64_t replay_start_frame;
    int64_t replay_start_us;

    uint64_t config_serial;
    bool config_due;
    int config_timer, clock_timer; /* sim_loop timers: a joiner makes them due at once */
    uint64_t last_snapshot_ns;     /* time of the last published snapshot */
    bool have_snapshot;

    /* what a request collects for its reply; kept here, not allocated per
       request, because sync clients send thousands a second */
    phys_journal_result_t applied;
    sim_bus_snapshot_msg_t snapshot_msg;

    /* the wire timestamps' base (sim_snapshot_t epoch_us): Unix time at
       sim time 0, 0 when the timestamps count from zero */
    int64_t epoch_us;
    /* the newest team command's gateway receive time (sim_snapshot_t) */
    int64_t command_us;
    bool was_running; /* the free-running clock advanced at the last tick */
    bool paused;      /* speed 0 outside sync mode, as last logged */

    /* status line window */
    int64_t status_wall_us;
    uint64_t status_sim_ns;
    uint64_t status_substeps;
    double status_cost_us; /* this thread's CPU time in substeps (s_thread_cpu_us) */
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
    snap.epoch_us = self->epoch_us;
    snap.command_us = self->command_us;
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
    if (self->user_journal)
        phys_journal_reached (self->user_journal, self->world);
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

/* The CPU time this thread has used, us. The substep cost is measured in
   it, not in wall time: a run of substeps ends by handing its snapshots to
   vision, and in fast mode that send blocks while vision's queue is full;
   wall time counted that wait, and every moment another process had the
   core. The CPU
   clock counts what physics itself spends: the core, the journal marks,
   encoding and sending the events and snapshots (the kernel's copy of a
   lane datagram included), and its looks for a request. */
static double
s_thread_cpu_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* Up to n substeps; a free-running clock stops early (every
   PHYS_FAST_CHECK) when `yield` and a request waits, so that a request
   applies within a few ms of sim time of its arrival. A free-running
   clock's messages travel as one batch; a sync step's go one by one, so
   vision works while physics steps (the answer waits for both). */
static void
s_run_substeps (phys_service_t *self, uint64_t n, bool has_step, uint64_t step_id, bool yield)
{
    double start = s_thread_cpu_us ();
    sim_link_batch (self->link, !has_step);
    uint64_t done = 0;
    for (uint64_t i = 1; i <= n; i++) {
        s_substep (self, has_step, step_id);
        done = i;
        if (yield && i % PHYS_FAST_CHECK == 0 && sim_link_input_waiting (self->link))
            break;
    }
    sim_link_batch (self->link, false);
    double cost = s_thread_cpu_us () - start;
    self->status_cost_us += cost;
    sim_stats_substeps (self->substep_buckets, done, cost);
    self->substeps_timed += done;
    self->substep_sum_us += cost;
}

/* ---- wire timestamps ------------------------------------------------- */

/* The timestamps follow the wall clock: auto in realtime mode, unix always. */
static bool
s_epoch_unix (const sim_config_t *cfg)
{
    return cfg->vision.timestamp_base == SIM_TS_UNIX
        || (cfg->vision.timestamp_base == SIM_TS_AUTO && cfg->run.mode == SIM_MODE_REALTIME);
}

/* Put sim time now at Unix time now (or the base back to 0). */
static void
s_epoch_rebase (phys_service_t *self)
{
    self->epoch_us = sim_stats_wall_us () - (int64_t) (phys_world_time_ns (self->world) / 1000);
    if (!s_epoch_unix (&self->cfg))
        self->epoch_us = 0;
}

#define PHYS_HOLD_US 5000000

static void s_held_flush (phys_service_t *self, bool apply);

/* The clock held for vision starts when it joined; true then. */
static bool
s_release_clock (phys_service_t *self, int64_t now)
{
    bool joined = sim_link_vision_joined (self->link);
    if (!joined && now < self->hold_until_us)
        return false;
    if (!joined)
        sim_warn ("vision did not join within %d s; the clock starts without it", PHYS_HOLD_US / 1000000);
    self->hold_clock = false;
    phys_clock_init (&self->clock, self->cfg.run.mode, self->cfg.run.speed, phys_world_dt_ns (self->world),
                     now);
    s_epoch_rebase (self); /* sim time starts now */
    self->config_due = true;
    s_publish_config (self); /* before the first snapshot */
    s_held_flush (self, true);
    return true;
}

static void
s_advance_clock (phys_service_t *self, int64_t now)
{
    uint64_t n = phys_clock_owed (&self->clock, now);
    bool running = phys_clock_running (&self->clock, now);
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
    if (realtime && running && !self->was_running && s_epoch_unix (&self->cfg))
        s_epoch_rebase (self); /* after a pause or a sync hold: sim time was not owed */
    self->was_running = running;
    if (n)
        s_run_substeps (self, n, false, 0, self->cfg.run.mode == SIM_MODE_FAST);
}

/* Log "paused" once when the free-running clock stops for speed 0. */
static void
s_note_pause (phys_service_t *self)
{
    bool paused = self->cfg.run.mode != SIM_MODE_SYNC && self->cfg.run.speed <= 0;
    if (paused != self->paused)
        sim_info (paused ? "paused (simulation speed 0)" : "running again at speed %.3g",
                  self->cfg.run.speed);
    self->paused = paused;
}

/* ---- requests --------------------------------------------------------- */

static void s_handle_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from);

#define PHYS_REPLAY_CHUNK 256 /* fast replay: substeps between looks at the pipe */

/* The end of a replay: vision learns it in order, after every snapshot. */
static void
s_replay_finish (phys_service_t *self)
{
    if (self->have_snapshot && self->last_snapshot_ns != phys_world_time_ns (self->world))
        s_publish_snapshot (self, false, 0);
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = SIM_BUS_REPLAY_END_STEP;
    done.time_ns = phys_world_time_ns (self->world);
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STEP_DONE, &done);
    sim_link_send (self->link, &env);
    self->replay_done = true;
    sim_info ("replay done: %zu inputs applied, sim %.3fs", self->replay_next,
              (double) phys_world_time_ns (self->world) / 1e9);
}

/* One turn of a replay: apply the inputs pinned to this substep, then run
   towards the next one (fast: a chunk; realtime: what the wall clock
   owes). Starts once vision listens, so it sees every snapshot. */
static void
s_replay_turn (phys_service_t *self, int64_t now)
{
    if (self->replay_done)
        return;
    if (!self->replay_started) {
        if (!sim_link_vision_joined (self->link))
            return;
        s_publish_config (self);
        self->replay_started = true;
        self->replay_start_us = now;
        self->replay_start_frame = phys_world_frame (self->world);
    }
    size_t count = phys_replay_count (self->replay);
    uint64_t frame = phys_world_frame (self->world);
    uint64_t at = 0;
    while (self->replay_next < count && frame < self->replay_end) {
        const Simbus__Request *req = phys_replay_input (self->replay, self->replay_next, &at, NULL);
        if (at > frame)
            break;
        if (at < frame) {
            sim_warn ("replay: input %zu is pinned to substep %llu, already past; no more inputs applied",
                      self->replay_next, (unsigned long long) at);
            self->replay_next = count;
            break;
        }
        s_handle_request (self, req, NULL);
        self->replay_next++;
        frame = phys_world_frame (self->world);
    }
    uint64_t target = self->replay_end;
    if (self->replay_next < count && at > frame && at < target)
        target = at;
    if (frame >= self->replay_end) {
        s_replay_finish (self);
        return;
    }
    uint64_t n = target > frame ? target - frame : 0;
    if (self->cfg.run.mode == SIM_MODE_FAST || self->cfg.run.mode == SIM_MODE_SYNC) {
        if (n > PHYS_REPLAY_CHUNK)
            n = PHYS_REPLAY_CHUNK;
    } else {
        double speed = self->cfg.run.speed > 0 ? self->cfg.run.speed : 1.0;
        uint64_t due = self->replay_start_frame
                     + (uint64_t) ((double) (now - self->replay_start_us) * 1e3 * speed
                                   / (double) phys_world_dt_ns (self->world));
        uint64_t owed = due > frame ? due - frame : 0;
        if (n > owed)
            n = owed;
    }
    if (n)
        s_run_substeps (self, n, false, 0, false);
}

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
        bool was_unix = self->epoch_us != 0;
        phys_clock_configure (&self->clock, self->cfg.run.mode, self->cfg.run.speed);
        if (was_unix != s_epoch_unix (&self->cfg))
            s_epoch_rebase (self); /* the mode changed what the timestamps count from */
        s_note_pause (self);
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

/* Where an input came from: its part of the protocol and the carrier,
   as a note written only when it changes (a client that keeps sending the
   same kind costs nothing more); the sender's address is in the Request
   itself (Request.source: the edges fill it in when the run journals). */
static void
s_user_journal_input (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from)
{
    const char *what = req->has_step_id       ? "sync step"
                     : req->team_control      ? (req->team_control->team == 1 ? "yellow team" : "blue team")
                     : req->simulator_command ? "control"
                                              : "request";
    char source[64];
    snprintf (source, sizeof source, "%s by %s", what,
              !from                       ? "replay"
              : sim_link_from_lane (from) ? "lane"
                                          : "bus");
    if (strcmp (source, self->last_source) != 0) {
        phys_journal_note (self->user_journal, self->world, PHYS_JOURNAL_SOURCE, source, strlen (source));
        snprintf (self->last_source, sizeof self->last_source, "%s", source);
    }
    phys_journal_input (self->user_journal, self->world, req);
}

static void
s_handle_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from)
{
    bool sync = req->has_sync && req->sync;
    if (sync)
        phys_clock_sync_request (&self->clock, zclock_usecs ());
    /* on file before anything of it can be seen: the reply comes later;
       without the receive time, which is wall time (a journal's inputs
       are the same bytes every run) */
    Simbus__Request on_file = *req;
    on_file.has_received_us = false;
    on_file.received_us = 0;
    if (self->journal)
        phys_journal_input (self->journal, self->world, &on_file);
    if (self->user_journal)
        s_user_journal_input (self, &on_file, from);
    phys_journal_apply (self->world, &self->cfg, req, &self->applied);
    /* the newest applied, not the largest: a clock stepped back (or one
       absurd stamp from a tcp peer) must not stop the measurement */
    if (req->team_control && req->has_received_us)
        self->command_us = req->received_us;
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
        if (from) /* a replayed input has no one to answer */
            sim_link_reply (self->link, from, &env);
    }
    if (sync)
        phys_clock_sync_answered (&self->clock, zclock_usecs ());
}

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
    if (self->hold_clock && self->held_count < PHYS_HELD_MAX) {
        /* kept with a copy of where it came from, to be answered later
           (without memory for the copy: applied now) */
        sim_link_from_t *kept = sim_link_from_dup (from);
        if (kept) {
            self->held[self->held_count].from = kept;
            self->held[self->held_count++].env = env;
            return true;
        }
    }
    s_handle_request (self, env->request, from);
    return false;
}

/* The held requests, applied and answered in order (or only freed). */
static void
s_held_flush (phys_service_t *self, bool apply)
{
    for (int i = 0; i < self->held_count; i++) {
        if (apply)
            s_handle_request (self, self->held[i].env->request, self->held[i].from);
        sim_link_from_destroy (&self->held[i].from);
        simbus__envelope__free_unpacked (self->held[i].env, NULL);
    }
    self->held_count = 0;
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

/* The clock's next instant (sim_loop_wake_fn): a replay's next turn, or
   phys_clock's wake-up. Realtime: the next instant anyone can observe is
   a release of a vision packet (captures on the way are snapshot at their
   own sim times in the same turn): one wake-up per packet, not two. */
static int64_t
s_clock_wake (void *arg, int64_t now)
{
    phys_service_t *self = arg;
    if (self->replay && !self->replay_done) /* fast: at once; realtime: the next substep or so */
        return self->replay_started && self->cfg.run.mode == SIM_MODE_FAST ? now : now + 1000;
    uint64_t t = phys_world_time_ns (self->world);
    uint64_t due =
        sim_schedule_next_release (self->schedule, sim_schedule_delay_ns (self->cfg.realism.vision_delay));
    return phys_clock_next_us (&self->clock, now, due > t ? due - t : 0, SIM_LOOP_NEVER);
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
    s_publish_config (arg);
    return sim_loop_period (deadline, PHYS_CONFIG_PERIOD_US, now);
}

/* The Clock heartbeat, while someone reads it. */
static int64_t
s_on_clock_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    if (!sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_CLOCK))
        return SIM_LOOP_NEVER;
    s_publish_clock (self, now);
    return sim_loop_period (deadline, PHYS_CLOCK_PERIOD_US, now);
}

/* The checkpoint and the snapshot heartbeat: the same second. */
_Static_assert(PHYS_CHECKPOINT_PERIOD_US == PHYS_SNAPSHOT_PERIOD_US, "one timer for both");

static int64_t
s_on_second_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    s_checkpoint (self); /* when separate processes keep one */
    s_publish_snapshot (self, false, 0);
    return sim_loop_period (deadline, PHYS_SNAPSHOT_PERIOD_US, now);
}

static int64_t
s_on_status_due (void *arg, int64_t deadline, int64_t now)
{
    phys_service_t *self = arg;
    (void) deadline;
    s_status (self, now);
    return self->status_wall_us + PHYS_STATUS_PERIOD_US;
}

/* After each wait, before the input: the substeps owed up to now, so a
   command that woke us applies at the sim time matching its arrival. */
static void
s_on_wake (void *arg)
{
    phys_service_t *self = arg;
    if (self->replay)
        s_replay_turn (self, zclock_usecs ());
    else if (!self->hold_clock || s_release_clock (self, zclock_usecs ()))
        s_advance_clock (self, zclock_usecs ());
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
    s_held_flush (self, false);
    sim_link_destroy (&self->link);
    phys_journal_destroy (&self->journal);
    phys_journal_destroy (&self->user_journal);
    phys_replay_destroy (&self->replay);
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

/* --journal FILE: a new journal from the first substep with the
   configuration (seed included) first, or, for a physics restarted in
   the middle of the run, the same file continued. */
static int
s_user_journal_open (phys_service_t *self, bool resumed)
{
    uint64_t seq = self->journal ? phys_journal_seq (self->journal) : 0;
    self->user_journal = phys_journal_new (self->cfg.run.journal, PHYS_REPLAY_KEY, resumed ? seq : 0);
    if (!self->user_journal)
        return -1;
    if (resumed) {
        if (phys_journal_reopen (self->user_journal, self->world) == 0)
            return 0;
        sim_warn ("journal %s: cannot continue it after a restart; not journaling", self->cfg.run.journal);
        phys_journal_destroy (&self->user_journal);
        return 0;
    }
    char *ini = sim_config_dump (&self->cfg, false);
    int rc =
        ini && phys_journal_start (self->user_journal, 0, self->world) == 0
                && phys_journal_note (self->user_journal, self->world, PHYS_JOURNAL_CONFIG, ini, strlen (ini))
                       == 0
            ? 0
            : -1;
    free (ini);
    if (rc)
        sim_error ("cannot write the journal %s", self->cfg.run.journal);
    else
        sim_info ("journaling every input to %s", self->cfg.run.journal);
    return rc;
}

/* `ssl-sim replay`: the script, cut at --until. */
static int
s_replay_open (phys_service_t *self, const char *path, double until_s)
{
    char err[SIM_STRING_MAX + 128];
    self->replay = phys_replay_load (path, err, sizeof err);
    if (!self->replay) {
        sim_error ("%s", err);
        return -1;
    }
    uint64_t dt = phys_world_dt_ns (self->world);
    if (phys_replay_substep_ns (self->replay) != dt) {
        sim_error ("%s was written with another substep length", path);
        return -1;
    }
    self->replay_end = phys_replay_end_frame (self->replay);
    /* compared in double: a cast of a frame count beyond uint64_t is undefined */
    double until_frames = until_s * 1e9 / (double) dt;
    if (until_s >= 0 && until_frames < (double) self->replay_end)
        self->replay_end = (uint64_t) until_frames;
    sim_info ("replaying %zu inputs of %s to sim %.3fs%s", phys_replay_count (self->replay), path,
              (double) (self->replay_end * dt) / 1e9,
              phys_replay_torn (self->replay) ? " (its end is damaged)" : "");
    return 0;
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
    if (!self->world || !self->schedule || (*self->checkpoint_path && !self->journal)) {
        sim_error ("cannot create the world%s%s", *why ? ": " : "", why);
        s_destroy (&self);
        return NULL;
    }
    /* the journal starts after a checkpoint of the world as it is now
       (fresh, or resumed and replayed), which also covers the time to the
       first periodic one */
    bool resumed = phys_world_frame (self->world) > 0;
    s_checkpoint (self);
    if ((args->replay && s_replay_open (self, args->replay, args->replay_until_s))
        || (!args->replay && cfg->run.journal[0] && s_user_journal_open (self, resumed))) {
        s_destroy (&self);
        return NULL;
    }
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
    s_epoch_rebase (self);
    s_note_pause (self);
    self->status_wall_us = now;
    self->started_us = now;
    self->status_sim_ns = phys_world_time_ns (self->world);
    self->hold_clock = self->user_journal && !resumed;
    self->hold_until_us = now + PHYS_HOLD_US;
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
    s_checkpoint (self);
    s_destroy (&self);
}

void
phys_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_PHYSICS, s_new, s_stop };
    sim_service_run (pipe, args, &def);
}
