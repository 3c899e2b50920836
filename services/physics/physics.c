/*  physics.c - the physics service actor: world, clock, configuration.

    One poll loop driven by absolute deadlines. Per substep: step the
    core, publish its events, and publish a snapshot only when the capture/
    release schedule (common/sim_schedule) needs one, so bus traffic grows
    with the camera rate, not the substep rate (ARCHITECTURE.md §2).
*/
#include "physics.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "phys_apply.h"
#include "phys_checkpoint.h"
#include "phys_def.h"
#include "sim_bus.h"
#include "sim_lane.h"
#include "sim_log.h"
#include "sim_schedule_config.h"
#include "sim_service.h"
#include "sim_snapshot.h"
#include "physics/core/phys_world.h"

#define PHYS_CLOCK_PERIOD_US     100000     /* Clock heartbeat (to ZeroMQ subscribers of it) */
#define PHYS_STATUS_PERIOD_US    1000000    /* status line */
#define PHYS_SNAPSHOT_PERIOD_US  1000000    /* snapshot heartbeat */
#define PHYS_CONFIG_PERIOD_US    1000000    /* configuration re-publish */
#define PHYS_SYNC_HOLD_US        1000000    /* protocol.md §8.4 */
#define PHYS_CATCH_UP_S          0.25       /* protocol.md §8.1 */
#define PHYS_FAST_BATCH          256        /* fast mode: substeps per poll turn */
#define PHYS_FAST_CHECK          16         /* fast mode: substeps between looks at cmd */
#define PHYS_PUB_HWM             1000       /* messages queued per world subscriber */
#define PHYS_PUB_TIMEOUT_MS      500        /* longest wait for a slow subscriber */
#define PHYS_PUB_RETRY_US        1000000    /* after a timeout: drop, don't wait, this long */
#define PHYS_CHECKPOINT_PERIOD_US 1000000   /* ARCHITECTURE.md §3: a kill -9 loses at most this */
#define PHYS_SYNC_SPIN_US        300        /* see s_spin */
#define PHYS_SPIN_POLL_US        1000       /* while spinning, look at the ZeroMQ sockets this often */

typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_schedule_t *schedule;
    zsock_t *pipe, *cmd, *pub;
    sim_lane_t *lane;               /* NULL: everything over ZeroMQ */
    bool terminated;
    bool bus_warned;

    /* world backpressure: see s_publish */
    bool pub_stalled;
    bool pub_nodrop, pub_nodrop_set;
    int64_t pub_retry_us;
    uint64_t pub_dropped;
    int64_t lane_retry_us;          /* vision's lane timed out: no waiting until then */
    bool lane_hold;                 /* collect what goes to vision (s_publish_lane) */
    sim_bus_subs_t subs;            /* who subscribes on the world XPUB */

    /* checkpoints: empty path = off (single process: nothing to restart) */
    char checkpoint_path[SIM_STRING_MAX];
    char run_key[80];
    int64_t next_checkpoint_us;

    uint64_t config_serial;
    bool config_due;
    int64_t next_config_us, next_clock_us, next_snapshot_us;
    int64_t last_sync_us;
    int64_t sync_end_us;            /* when the last sync request was answered */
    int64_t sync_gap_us;            /* average pause of the sync client (s_spin) */
    int64_t last_tick_us;
    double acc;                     /* realtime accumulator, s of sim time */
    uint64_t last_snapshot_ns;      /* time of the last published snapshot */
    bool have_snapshot;

    /* what a request collects for its reply; kept here, not allocated per
       request, because sync clients send thousands a second */
    sim_errors_t errors, robot_errors;
    phys_feedback_t feedback;

    /* status line window */
    int64_t status_wall_us;
    uint64_t status_sim_ns;
    uint64_t status_substeps;
    int64_t status_cost_us;
} phys_service_t;

static bool
s_running (phys_service_t *self, int64_t now)
{
    return self->cfg.run.mode != SIM_MODE_SYNC && self->cfg.run.speed > 0
        && now - self->last_sync_us > PHYS_SYNC_HOLD_US;
}

/* What vision reads goes over its lane (sim_lane.h), in publication order.
   In fast and sync mode a full lane is waited for (vision paces physics,
   as XPUB nodrop does), at most PHYS_PUB_TIMEOUT_MS; then, or always in
   realtime, a message that finds the lane full is dropped. A vision that
   is not running is not waited for. */
static int
s_lane_wait_ms (phys_service_t *self)
{
    return self->cfg.run.mode != SIM_MODE_REALTIME && zclock_usecs () >= self->lane_retry_us
               ? PHYS_PUB_TIMEOUT_MS : -1;
}

/* Handle a lane send to vision that failed: -1 passes through. */
static int
s_lane_failed (phys_service_t *self, int wait_ms)
{
    if (wait_ms >= 0 && errno == EAGAIN) {
        self->lane_retry_us = zclock_usecs () + PHYS_PUB_RETRY_US;
        sim_warn ("vision is not reading its lane; dropping what it cannot take for a while");
    }
    return -1;
}

static int
s_flush_lane (phys_service_t *self)
{
    int wait_ms = s_lane_wait_ms (self);
    return sim_lane_flush (self->lane, wait_ms) ? s_lane_failed (self, wait_ms) : 0;
}

/* While lane_hold is set (a run of substeps), messages to vision collect
   in one datagram: one wake-up of vision per run, not per message. */
static int
s_publish_lane (phys_service_t *self, const char *topic, Simbus__Envelope *env)
{
    int wait_ms = s_lane_wait_ms (self);
    if (sim_lane_queue (self->lane, SIM_LANE_VISION, topic, env, wait_ms))
        return s_lane_failed (self, wait_ms);
    return self->lane_hold ? 0 : s_flush_lane (self);
}

/* Publish on `world`. A send that times out means a subscriber stopped
   reading (stuck, or shutting down): from then on sends do not wait, and
   drop, for PHYS_PUB_RETRY_US, so physics stays responsive; then waiting
   (backpressure) resumes. */
static void
s_publish_zmq (phys_service_t *self, const char *topic, Simbus__Envelope *env)
{
    if (sim_bus_send (self->pub, topic, env) == 0)
        return;
    self->pub_dropped++;
    if (!self->pub_stalled) {
        self->pub_stalled = true;
        self->pub_retry_us = zclock_usecs () + PHYS_PUB_RETRY_US;
        zsock_set_sndtimeo (self->pub, 0);
        sim_debug ("a world subscriber is not reading; dropping messages for a while");
    }
}

/* Everything vision reads goes over its lane when there is one; on the
   ZeroMQ socket, snapshots and step marks (most of the traffic) are only
   packed when a subscriber there wants them. */
static void
s_publish (phys_service_t *self, const char *topic, Simbus__Envelope *env)
{
    bool snapshot = strcmp (topic, SIM_TOPIC_SNAPSHOT) == 0;
    bool config = strcmp (topic, SIM_TOPIC_CONFIG) == 0;
    if (self->lane && (snapshot || config))
        s_publish_lane (self, topic, env);
    /* the gateway too reads the configuration on its lane, so a reply
       never overtakes the configuration its request changed; never waited
       for (it comes again within a second) */
    if (self->lane && config)
        sim_lane_send (self->lane, SIM_LANE_GATEWAY, topic, env, -1);
    if (!snapshot || sim_bus_subs_want (&self->subs, SIM_TOPIC_SNAPSHOT))
        s_publish_zmq (self, topic, env);
}

/* Backpressure (XPUB nodrop) in fast mode only; see s_new. */
static void
s_update_nodrop (phys_service_t *self)
{
    bool want = self->cfg.run.mode == SIM_MODE_FAST;
    if (want != self->pub_nodrop || !self->pub_nodrop_set) {
        zsock_set_xpub_nodrop (self->pub, want ? 1 : 0);
        self->pub_nodrop = want;
        self->pub_nodrop_set = true;
    }
}

static void
s_publish_snapshot (phys_service_t *self, bool has_step, uint64_t step_id)
{
    sim_snapshot_t snap;
    phys_world_snapshot (self->world, &snap);
    Simbus__BallState ball = SIMBUS__BALL_STATE__INIT;
    ball.x = snap.ball.x; ball.y = snap.ball.y; ball.z = snap.ball.z;
    ball.vx = snap.ball.vx; ball.vy = snap.ball.vy; ball.vz = snap.ball.vz;
    ball.spin_x = snap.ball.spin_x; ball.spin_y = snap.ball.spin_y;
    Simbus__RobotState robots[SIM_SNAPSHOT_MAX_ROBOTS];
    Simbus__RobotState *ptrs[SIM_SNAPSHOT_MAX_ROBOTS];
    for (int i = 0; i < snap.robot_count; i++) {
        const sim_robot_state_t *r = &snap.robots[i];
        simbus__robot_state__init (&robots[i]);
        robots[i].team = (uint32_t) r->team; robots[i].id = (uint32_t) r->id;
        robots[i].x = r->x; robots[i].y = r->y; robots[i].orientation = r->orientation;
        robots[i].vx = r->vx; robots[i].vy = r->vy; robots[i].omega = r->omega;
        robots[i].ball_contact = r->ball_contact;
        robots[i].radius = r->radius; robots[i].height = r->height;
        ptrs[i] = &robots[i];
    }
    Simbus__Snapshot msg = SIMBUS__SNAPSHOT__INIT;
    msg.time_ns = snap.time_ns;
    msg.ball = &ball;
    msg.n_robots = (size_t) snap.robot_count;
    msg.robots = ptrs;
    msg.has_step_id = has_step;
    msg.step_id = step_id;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_SNAPSHOT;
    env.snapshot = &msg;
    s_publish (self, SIM_TOPIC_SNAPSHOT, &env);
    self->last_snapshot_ns = snap.time_ns;
    self->have_snapshot = true;
}

static void
s_publish_events (phys_service_t *self)
{
    const phys_event_t *events;
    int n = phys_world_events (self->world, &events);
    if (n <= 0)
        return;
    Simbus__Event items[32];
    Simbus__Event *ptrs[32];
    if (n > 32)
        n = 32;
    for (int i = 0; i < n; i++) {
        const phys_event_t *e = &events[i];
        simbus__event__init (&items[i]);
        items[i].kind = (Simbus__Event__Kind) e->kind;
        items[i].time_ns = e->time_ns;
        items[i].has_team = items[i].has_id = e->team >= 0;
        items[i].team = (uint32_t) e->team;
        items[i].id = (uint32_t) e->id;
        items[i].has_other_team = items[i].has_other_id = e->other_team >= 0;
        items[i].other_team = (uint32_t) e->other_team;
        items[i].other_id = (uint32_t) e->other_id;
        items[i].has_speed = items[i].has_elevation = e->kind == PHYS_EVENT_KICK;
        items[i].speed = e->speed;
        items[i].elevation = e->elevation_deg;
        ptrs[i] = &items[i];
    }
    Simbus__Events msg = SIMBUS__EVENTS__INIT;
    msg.n_events = (size_t) n;
    msg.events = ptrs;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_EVENTS;
    env.events = &msg;
    s_publish (self, SIM_TOPIC_EVENTS, &env);
}

static void
s_publish_config (phys_service_t *self)
{
    char *ini = sim_config_dump (&self->cfg, false);
    if (!ini)
        return;
    Simbus__Config msg = SIMBUS__CONFIG__INIT;
    msg.serial = self->config_serial;
    msg.ini = ini;
    msg.rig_generation = self->cfg.rig_generation;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_CONFIG;
    env.config = &msg;
    s_publish (self, SIM_TOPIC_CONFIG, &env);
    free (ini);
    self->config_due = false;
}

static void
s_publish_clock (phys_service_t *self, int64_t now)
{
    Simbus__Clock msg = SIMBUS__CLOCK__INIT;
    msg.time_ns = phys_world_time_ns (self->world);
    msg.mode = (uint32_t) self->cfg.run.mode;
    msg.running = s_running (self, now);
    msg.robots = (uint32_t) phys_world_robot_count (self->world);
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_CLOCK;
    env.clock = &msg;
    s_publish (self, SIM_TOPIC_CLOCK, &env);
}

/* One substep and what must be published after it. */
static void
s_substep (phys_service_t *self, bool has_step, uint64_t step_id)
{
    phys_world_step (self->world);
    s_publish_events (self);
    uint64_t t = phys_world_time_ns (self->world);
    if (t >= sim_schedule_next_due (self->schedule)) {
        s_publish_snapshot (self, has_step, step_id);
        uint32_t mask, frames[SIM_MAX_CAMERAS];
        sim_schedule_advance (self->schedule, t, sim_schedule_delay_ns (self->cfg.realism.vision_delay), &mask, frames);
    }
    self->status_substeps++;
}

/* n substeps. A free-running clock's (no step id) messages to vision go
   in one datagram; a sync step's go one by one, so vision works while
   physics steps (the answer waits for both). */
static void
s_run_substeps (phys_service_t *self, uint64_t n, bool has_step, uint64_t step_id)
{
    int64_t start = zclock_usecs ();
    self->lane_hold = !has_step;
    for (uint64_t i = 0; i < n; i++)
        s_substep (self, has_step, step_id);
    self->lane_hold = false;
    if (self->lane)
        s_flush_lane (self);
    self->status_cost_us += zclock_usecs () - start;
}

static void
s_config_changed (phys_service_t *self, const phys_changes_t *changes)
{
    if (changes->rig) {
        sim_schedule_def_t sdef;
        sim_schedule_def_from_config (&sdef, &self->cfg);
        sim_schedule_reset_rig (self->schedule, &sdef, phys_world_time_ns (self->world));
    }
    if (changes->config) {
        self->config_serial++;
        self->config_due = true;
    }
}

/* The end of a sync step. A request that came over the lane has its
   reply carried with the mark through vision (sim_bus.proto StepDone), so
   the gateway gets the whole answer in one message; returns true when
   vision took it that way. Otherwise (vision not running or stuck, or no
   lanes) the caller sends the reply itself. */
static bool
s_step_done (phys_service_t *self, uint64_t step_id, Simbus__Reply *reply)
{
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = phys_world_time_ns (self->world);
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_STEP_DONE;
    env.step_done = &done;
    if (sim_bus_subs_want (&self->subs, SIM_TOPIC_STEP_DONE))
        s_publish_zmq (self, SIM_TOPIC_STEP_DONE, &env);
    if (!self->lane)
        return false;
    done.reply = reply;
    return s_publish_lane (self, SIM_TOPIC_STEP_DONE, &env) == 0 && reply;
}

/* Where a request came from: a ZeroMQ peer or a lane. */
typedef struct {
    zframe_t *identity;
    const sim_lane_peer_t *peer;
} s_origin_t;

static void
s_handle_request (phys_service_t *self, const s_origin_t *origin, const Simbus__Request *req)
{
    sim_errors_t *errors = &self->errors;
    sim_errors_t *robot_errors = &self->robot_errors;
    phys_feedback_t *feedback = &self->feedback;
    sim_errors_init (errors);
    sim_errors_init (robot_errors);
    feedback->count = 0;
    if (req->has_sync && req->sync) {
        self->last_sync_us = zclock_usecs ();
        if (self->sync_end_us) {
            /* a moving average of pauses, each counted up to a bound so
               one long pause does not stop the spinning for long */
            int64_t gap = self->last_sync_us - self->sync_end_us;
            if (gap > 4 * PHYS_SYNC_SPIN_US)
                gap = 4 * PHYS_SYNC_SPIN_US;
            self->sync_gap_us += (gap - self->sync_gap_us) / 8;
        }
    }
    phys_changes_t changes = { false, false };
    if (req->simulator_command)
        phys_apply_command (self->world, &self->cfg, req->simulator_command, errors, &changes);
    if (req->team_control && req->team_control->control) {
        sim_team_t team = req->team_control->team == 1 ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
        phys_apply_robot_control (self->world, team, req->team_control->control, robot_errors, feedback);
    }
    s_config_changed (self, &changes);
    if (self->config_due)
        s_publish_config (self);    /* vision must see it before the step's snapshots */
    if (req->has_substeps && req->substeps > 0) {
        s_run_substeps (self, req->substeps, req->has_step_id, req->step_id);
        /* the closing snapshot goes with the step's end (s_step_done) */
        self->lane_hold = req->has_step_id;
        if (!self->have_snapshot || self->last_snapshot_ns != phys_world_time_ns (self->world))
            s_publish_snapshot (self, req->has_step_id, req->step_id);
        self->lane_hold = false;
    }
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = req->id;
    reply.n_errors = errors->count;
    reply.errors = errors->ptrs;
    reply.n_robot_errors = robot_errors->count;
    reply.robot_errors = robot_errors->ptrs;
    reply.n_feedback = feedback->count;
    reply.feedback = feedback->ptrs;
    reply.time_ns = phys_world_time_ns (self->world);
    if (req->has_step_id && s_step_done (self, req->step_id, origin->peer ? &reply : NULL))
        return;     /* vision hands the reply on with the step's frames */
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_REPLY;
    env.reply = &reply;
    if (origin->peer) {
        /* the gateway always reads; a full lane means it is stuck */
        if (sim_lane_reply (self->lane, origin->peer, "R", &env, PHYS_PUB_TIMEOUT_MS))
            sim_debug ("a reply on the lane was dropped: %s", strerror (errno));
    } else
        sim_bus_send_to (self->cmd, origin->identity, &env);
}

static void
s_handle_cmd (phys_service_t *self)
{
    zmsg_t *msg = zmsg_recv (self->cmd);
    if (!msg)
        return;
    zframe_t *identity = zmsg_pop (msg);
    zframe_t *body = zmsg_last (msg);
    if (identity && body) {
        Simbus__Envelope *env = sim_bus_decode (zframe_data (body), zframe_size (body), &self->bus_warned);
        if (env && env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST)
            s_handle_request (self, &(s_origin_t) { identity, NULL }, env->request);
        else
            sim_debug ("dropped a malformed bus request");
        if (env)
            simbus__envelope__free_unpacked (env, NULL);
    }
    zframe_destroy (&identity);
    zmsg_destroy (&msg);
}

/* The lane: requests (the gateway's) and vision's hello. */
static void
s_handle_lane (phys_service_t *self)
{
    Simbus__Envelope *env;
    char topic[4];
    sim_lane_peer_t from;
    while (!self->terminated && sim_lane_recv (self->lane, &env, topic, sizeof topic, &from, &self->bus_warned)) {
        if (strcmp (topic, SIM_TOPIC_HELLO) == 0)
            self->config_due = true;
        else if (env && env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST) {
            s_handle_request (self, &(s_origin_t) { NULL, &from }, env->request);
            if (env->request->has_sync && env->request->sync)
                self->sync_end_us = zclock_usecs ();
        }
        else
            sim_debug ("dropped a malformed lane message");
        if (env)
            simbus__envelope__free_unpacked (env, NULL);
    }
}

/* A request waiting on either channel (fast mode's mid-batch look). */
static bool
s_request_waiting (phys_service_t *self)
{
    if (zsock_events (self->cmd) & ZMQ_POLLIN)
        return true;
    if (!self->lane)
        return false;
    struct pollfd p = { sim_lane_fd (self->lane), POLLIN, 0 };
    return poll (&p, 1, 0) == 1;
}

/* XPUB delivers subscriptions: a (re)joining subscriber gets the
   configuration at once instead of waiting for the next periodic one. */
static void
s_handle_subscriptions (phys_service_t *self)
{
    if (sim_bus_subs_read (&self->subs, self->pub))
        self->config_due = true;
}

static void
s_handle_pipe (phys_service_t *self)
{
    if (sim_service_term_requested (self->pipe))
        self->terminated = true;
}

static void
s_status (phys_service_t *self, int64_t now)
{
    int64_t wall = now - self->status_wall_us;
    if (wall < PHYS_STATUS_PERIOD_US)
        return;
    uint64_t t = phys_world_time_ns (self->world);
    double rtf = (double) (t - self->status_sim_ns) / 1e3 / (double) wall;
    double cost = self->status_substeps && self->cfg.run.mode != SIM_MODE_SYNC
                      ? (double) self->status_cost_us / (double) self->status_substeps : 0.0;
    sim_info ("sim %.2fs | rtf %.2fx | substep %.1fus | robots %d | mode %s", (double) t / 1e9,
              rtf, cost, phys_world_robot_count (self->world), sim_config_mode_name (self->cfg.run.mode));
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

/* When s_periodic next has something to do (wall clock, us). */
static int64_t
s_next_duty_us (phys_service_t *self, int64_t now)
{
    int64_t next = s_min (self->next_config_us, self->next_snapshot_us);
    next = s_min (next, self->status_wall_us + PHYS_STATUS_PERIOD_US);
    if (*self->checkpoint_path)
        next = s_min (next, self->next_checkpoint_us);
    /* the clock heartbeat only while a ZeroMQ subscriber wants it */
    if (sim_bus_subs_want (&self->subs, SIM_TOPIC_CLOCK))
        next = s_min (next, self->next_clock_us);
    if (self->pub_stalled)
        next = s_min (next, self->pub_retry_us);
    /* a free-running clock held by sync requests resumes on its own */
    if (self->cfg.run.mode != SIM_MODE_SYNC && now - self->last_sync_us <= PHYS_SYNC_HOLD_US)
        next = s_min (next, self->last_sync_us + PHYS_SYNC_HOLD_US + 1);
    return next;
}

static int
s_timeout_ms (phys_service_t *self, int64_t now)
{
    if (self->config_due)
        return 0;
    int64_t until = s_next_duty_us (self, now);
    if (s_running (self, now)) {
        if (self->cfg.run.mode == SIM_MODE_FAST)
            return 0;
        /* realtime: wake when the sim clock reaches the next instant that
           anyone can observe, a release of a vision packet (captures on
           the way are snapshot at their own sim times in the same turn, and
           published together with the release: one wake-up of physics and
           of vision per packet, not two); commands wake the poller
           themselves. Every needless wake-up costs CPU that a lab
           machine's teams want (<= 0.02 cores). The timeout rounds up to
           whole ms: waking up to 1 ms late only runs one more substep in
           the same turn (the snapshot still carries the exact sim time). */
        uint64_t t = phys_world_time_ns (self->world);
        uint64_t due = sim_schedule_next_release (self->schedule, sim_schedule_delay_ns (self->cfg.realism.vision_delay));
        double sim_needed = due > t ? (double) (due - t) / 1e9 - self->acc : 0;
        if (sim_needed < 1e3)
            until = s_min (until, now + (int64_t) ceil (fmax (sim_needed, 0) / self->cfg.run.speed * 1e6));
    }
    return sim_service_timeout_ms (now, until);
}

static void
s_advance_clock (phys_service_t *self, int64_t now)
{
    double wall_dt = (double) (now - self->last_tick_us) / 1e6;
    self->last_tick_us = now;
    if (!s_running (self, now)) {
        self->acc = 0;
        return;
    }
    if (self->cfg.run.mode == SIM_MODE_FAST) {
        int64_t start = zclock_usecs ();
        /* a poll turn costs about as much as a substep: run many per turn,
           but look for a waiting request often enough that it applies
           within a few ms of sim time of its arrival */
        self->lane_hold = true;
        for (int i = 1; i <= PHYS_FAST_BATCH; i++) {
            s_substep (self, false, 0);
            if (i % PHYS_FAST_CHECK == 0 && s_request_waiting (self))
                break;
        }
        self->lane_hold = false;
        if (self->lane)
            s_flush_lane (self);
        self->status_cost_us += zclock_usecs () - start;
        return;
    }
    double dt = (double) phys_world_dt_ns (self->world) / 1e9;
    self->acc = fmin (self->acc + wall_dt * self->cfg.run.speed, PHYS_CATCH_UP_S);
    uint64_t n = 0;
    while (self->acc >= dt) {
        self->acc -= dt;
        n++;
    }
    if (n)
        s_run_substeps (self, n, false, 0);
}

static void
s_checkpoint (phys_service_t *self)
{
    if (!*self->checkpoint_path)
        return;
    phys_checkpoint_save (self->checkpoint_path, self->run_key, self->world, &self->cfg,
                          self->config_serial);
}

static void
s_periodic (phys_service_t *self, int64_t now)
{
    s_update_nodrop (self);     /* the mode can change at runtime */
    if (self->pub_stalled && now >= self->pub_retry_us) {
        self->pub_stalled = false;
        zsock_set_sndtimeo (self->pub, PHYS_PUB_TIMEOUT_MS);
        sim_warn ("a world subscriber stopped reading: %llu messages dropped",
                  (unsigned long long) self->pub_dropped);
        self->pub_dropped = 0;
    }
    if (now >= self->next_checkpoint_us) {
        s_checkpoint (self);
        self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    }
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

static void
s_destroy (phys_service_t **self_p)
{
    phys_service_t *self = *self_p;
    if (!self)
        return;
    sim_lane_destroy (&self->lane);
    zsock_destroy (&self->cmd);
    zsock_destroy (&self->pub);
    sim_schedule_destroy (&self->schedule);
    phys_world_destroy (&self->world);
    free (self);
    *self_p = NULL;
}

/* Separate processes checkpoint into the runtime directory; a world saved
   by an earlier process of the same run is resumed: same robots, ball,
   clock, random stream and effective configuration. */
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
    sim_config_t saved;
    uint64_t serial = 0;
    phys_world_t *world = phys_checkpoint_load (self->checkpoint_path, self->run_key, &saved, &serial);
    if (!world)
        return;
    /* endpoints and the log level stay this process's own */
    saved.bus = own->bus;
    saved.network = own->network;
    memcpy (saved.run.log_level, own->run.log_level, sizeof saved.run.log_level);
    saved.run.duration = own->run.duration;
    self->cfg = saved;
    self->world = world;
    self->config_serial = serial;
    sim_info ("resumed from checkpoint: sim %.3fs, %d robots, config serial %llu",
              (double) phys_world_time_ns (world) / 1e9, phys_world_robot_count (world),
              (unsigned long long) serial);
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
    self->cmd = zsock_new (ZMQ_ROUTER);
    self->pub = zsock_new (ZMQ_XPUB);
    if (!self->world || !self->schedule || !self->cmd || !self->pub) {
        sim_error ("cannot create the world or the bus sockets%s%s", *why ? ": " : "", why);
        s_destroy (&self);
        return NULL;
    }
    zsock_set_xpub_verbose (self->pub, 1);
    /* Backpressure instead of an unbounded queue: in fast mode physics can
       outrun vision, and a subscriber's queue of snapshots would grow by
       megabytes a second (and a lost snapshot is a lost camera frame). With
       NODROP a full queue makes the send wait for the subscriber, so the
       pipeline runs at the speed of its slowest stage; the timeout keeps a
       stuck subscriber from stopping physics (the message is dropped).
       Only in fast mode: in realtime and sync the clock is not ours to
       slow down, and a subscriber that falls 1000 messages behind (an edge
       under a datagram flood) loses messages instead. */
    zsock_set_sndhwm (self->pub, PHYS_PUB_HWM);
    zsock_set_sndtimeo (self->pub, PHYS_PUB_TIMEOUT_MS);
    s_update_nodrop (self);
    if (zsock_bind (self->cmd, "%s", cfg->bus.cmd_bind) < 0
        || zsock_bind (self->pub, "%s", cfg->bus.world_bind) < 0) {
        sim_error ("cannot bind %s / %s: %s", cfg->bus.cmd_bind, cfg->bus.world_bind, zmq_strerror (zmq_errno ()));
        s_destroy (&self);
        return NULL;
    }
    if (sim_lane_enabled (cfg) && !(self->lane = sim_lane_new (cfg, SIM_LANE_PHYSICS))) {
        s_destroy (&self);
        return NULL;
    }
    int64_t now = zclock_usecs ();
    self->last_sync_us = now - 10 * PHYS_SYNC_HOLD_US;
    self->last_tick_us = self->status_wall_us = now;
    self->status_sim_ns = phys_world_time_ns (self->world);
    self->next_config_us = now;
    self->next_clock_us = now;
    self->next_snapshot_us = now + PHYS_SNAPSHOT_PERIOD_US;
    self->next_checkpoint_us = now + PHYS_CHECKPOINT_PERIOD_US;
    return self;
}

/* A lock-step client sends its next step soon after the answer. Waking a
   sleeping thread costs tens of microseconds on a virtual machine, about a
   fifth of the round trip, so after a step physics watches its lane
   without sleeping for up to PHYS_SYNC_SPIN_US, but only while the
   client's recent pauses (sync_gap_us) are that short: a slow client
   costs no CPU. True when a request is waiting. */
static bool
s_spin (phys_service_t *self)
{
    if (!self->lane || self->cfg.run.mode != SIM_MODE_SYNC || self->sync_end_us == 0
        || self->sync_gap_us > PHYS_SYNC_SPIN_US)
        return false;
    struct pollfd p = { sim_lane_fd (self->lane), POLLIN, 0 };
    int64_t until = self->sync_end_us + PHYS_SYNC_SPIN_US;
    while (zclock_usecs () < until)
        if (poll (&p, 1, 0) == 1)
            return true;
    return false;
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
    zmq_pollitem_t items[4] = {
        { zsock_resolve (self->pipe), 0, ZMQ_POLLIN, 0 },
        { zsock_resolve (self->cmd), 0, ZMQ_POLLIN, 0 },
        { zsock_resolve (self->pub), 0, ZMQ_POLLIN, 0 },
        { NULL, self->lane ? sim_lane_fd (self->lane) : -1, ZMQ_POLLIN, 0 },
    };
    int count = self->lane ? 4 : 3;
    int64_t polled_us = 0;
    while (!self->terminated) {
        int timeout = s_timeout_ms (self, zclock_usecs ());
        bool spun = timeout != 0 && s_spin (self);
        if (spun && zclock_usecs () - polled_us < PHYS_SPIN_POLL_US) {
            /* straight to the request; the ZeroMQ sockets wait a little */
            items[0].revents = items[1].revents = items[2].revents = 0;
            items[3].revents = ZMQ_POLLIN;
        } else {
            if (zmq_poll (items, count, spun ? 0 : timeout) < 0 && zmq_errno () != EINTR)
                break;
            polled_us = zclock_usecs ();
        }
        /* substeps owed up to now come first, so a command that woke us
           applies at the sim time matching its arrival */
        s_advance_clock (self, zclock_usecs ());
        /* each socket's own events were read by zmq_poll; one that arrives
           later wakes the next poll */
        if (items[0].revents & ZMQ_POLLIN)
            while (zsock_events (self->pipe) & ZMQ_POLLIN && !self->terminated)
                s_handle_pipe (self);
        if (items[2].revents & ZMQ_POLLIN)
            s_handle_subscriptions (self);
        if (items[1].revents & ZMQ_POLLIN)
            while (zsock_events (self->cmd) & ZMQ_POLLIN)
                s_handle_cmd (self);
        if (count == 4 && (items[3].revents & ZMQ_POLLIN))
            s_handle_lane (self);
        s_periodic (self, zclock_usecs ());
    }
    /* $TERM (SIGTERM of the process, a restart): save the latest state */
    s_checkpoint (self);
    s_destroy (&self);
}
