/*  phys_seeking.c - a replay's timeline for its page (see phys_seeking.h). */
#include "phys_seeking.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/config/sim_schedule_config.h"
#include "engine/world/phys_seek.h"
#include "phys_epoch.h"
#include "phys_playback.h"
#include "phys_publish.h"
#include "phys_report.h"

#define S_NICE       10  /* the builder's priority below the replay's */
#define S_SPEED_MAX  1e6 /* x: a faster replay speed asked for is this one */
#define S_SEEK_MAX_S 1e9 /* s: a seek past it goes there (then to the end), not past int64 ns */

typedef struct phys_seeking_t {
    phys_seek_t *seek; /* under lock: the builder and a seek share it */
    pthread_mutex_t lock;
    pthread_t builder;
    bool started;
    atomic_bool stop;
    uint64_t every; /* substeps between checkpoints */
    uint64_t end;
} phys_seeking_t;

/* The builder: one checkpoint's worth of substeps at a time, so a seek
   waits for at most that much before it takes the lock. */
static void *
s_build (void *arg)
{
    phys_seeking_t *s = arg;
    setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), S_NICE); /* this thread only (Linux) */
    while (!atomic_load (&s->stop)) {
        pthread_mutex_lock (&s->lock);
        uint64_t built = phys_seek_built (s->seek);
        int rc = built < s->end ? phys_seek_build (s->seek, built + s->every) : 1;
        pthread_mutex_unlock (&s->lock);
        if (rc < 0)
            sim_warn ("replay: checkpoints stop at substep %llu (an input there cannot apply, or no memory); "
                      "a seek past it runs on from there",
                      (unsigned long long) built);
        if (rc != 0)
            break;
    }
    return NULL;
}

int
phys_seeking_open (phys_service_t *self)
{
    phys_seeking_t *s = calloc (1, sizeof *s);
    if (!s)
        return -1;
    uint64_t dt = phys_world_dt_ns (self->world);
    s->every = (uint64_t) (PHYS_SEEKING_EVERY_S * 1e9 / (double) dt);
    s->end = self->replay_end;
    pthread_mutex_init (&s->lock, NULL);
    atomic_init (&s->stop, false);
    self->seeking = s;
    s->seek = phys_seek_new (self->replay, self->world, &self->cfg, s->every);
    if (!s->seek || pthread_create (&s->builder, NULL, s_build, s) != 0) {
        sim_error ("replay: cannot keep checkpoints to seek in");
        return -1;
    }
    s->started = true;
    self->replay_speed = self->cfg.run.speed > 0 ? self->cfg.run.speed : 1.0;
    return 0;
}

void
phys_seeking_close (phys_service_t *self)
{
    phys_seeking_t *s = self->seeking;
    if (!s)
        return;
    atomic_store (&s->stop, true);
    if (s->started)
        pthread_join (s->builder, NULL);
    phys_seek_destroy (&s->seek);
    pthread_mutex_destroy (&s->lock);
    free (s);
    self->seeking = NULL;
}

void
phys_seeking_state (phys_service_t *self, Simbus__ReplayState *out)
{
    phys_seeking_t *s = self->seeking;
    simbus__replay_state__init (out);
    uint64_t dt = phys_world_dt_ns (self->world);
    out->time_ns = phys_world_time_ns (self->world);
    out->end_ns = self->replay_end * dt;
    out->speed = self->replay_speed;
    out->paused = self->replay_paused || self->replay_done;
    out->ended = self->replay_done;
    if (s) {
        pthread_mutex_lock (&s->lock);
        out->has_built_ns = out->has_checkpoints = true;
        out->built_ns = phys_seek_built (s->seek) * dt;
        out->checkpoints = (uint32_t) phys_seek_checkpoints (s->seek);
        pthread_mutex_unlock (&s->lock);
    }
}

/* The wall clock's pace starts again from here (a resume, a new speed, a
   seek, a step). */
static void
s_repace (phys_service_t *self)
{
    self->replay_start_us = zclock_usecs ();
    self->replay_start_frame = phys_world_frame (self->world);
    self->replay_step_to = self->replay_start_frame;
}

/* Install the checkpoints' world at substep `start`, with what a replay
   needs to go on from it, and tell vision. 0, or -1 (logged; nothing
   changed). */
static int
s_install (phys_service_t *self, uint64_t start)
{
    phys_seeking_t *s = self->seeking;
    sim_config_t *cfg = malloc (sizeof *cfg);
    if (!cfg)
        return -1;
    size_t next = 0;
    pthread_mutex_lock (&s->lock);
    phys_world_t *world = phys_seek_world (s->seek, start, cfg, &next);
    pthread_mutex_unlock (&s->lock);
    sim_schedule_def_t sdef;
    sim_schedule_def_from_config (&sdef, cfg);
    sim_schedule_t *schedule = world ? sim_schedule_new (&sdef) : NULL;
    if (!schedule) {
        sim_warn ("replay: cannot go to sim %.3fs (no memory, or the journal cannot run there)",
                  (double) start * (double) phys_world_dt_ns (self->world) / 1e9);
        phys_world_destroy (&world);
        free (cfg);
        return -1;
    }
    phys_world_destroy (&self->world);
    self->world = world;
    self->cfg = *cfg;
    free (cfg);
    self->replay_next = next;
    uint64_t t = phys_world_time_ns (world);
    /* the capture instants before t are past, as for a restarted vision
       (the same function, so both agree on the next one) */
    sim_schedule_skip_to (schedule, t);
    sim_schedule_destroy (&self->schedule);
    self->schedule = schedule;
    self->published = (phys_policy_t) { 0 };
    self->replay_epoch_next = 0;
    phys_epoch_replay (self); /* the journal's base in force at t */
    self->replay_done = false;
    /* vision in order: the configuration in force, then the mark */
    self->config_serial++;
    phys_publish_config (self);
    Simbus__StepDone mark = SIMBUS__STEP_DONE__INIT;
    mark.step_id = SIM_BUS_REPLAY_SEEK_STEP;
    mark.time_ns = t;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STEP_DONE, &mark);
    sim_link_send (self->link, &env);
    return 0;
}

/* To substep `frame`: the world there, reached as the replay reaches it
   from a little before (the pre-roll: vision's delay and 100 ms), so
   vision has released the frames a straight replay would have shown by
   then, and a snapshot of exactly that substep. 0, or -1 (logged). */
static int
s_seek (phys_service_t *self, uint64_t frame)
{
    if (frame > self->replay_end)
        frame = self->replay_end;
    uint64_t dt = phys_world_dt_ns (self->world);
    uint64_t preroll =
        (sim_schedule_delay_ns (self->cfg.realism.vision_delay) + PHYS_SEEKING_PREROLL_NS) / dt;
    if (s_install (self, frame > preroll ? frame - preroll : 0))
        return -1;
    bool paused = self->replay_paused;
    self->replay_paused = true;
    self->replay_step_to = frame;
    while (phys_world_frame (self->world) < frame && !self->replay_done) {
        uint64_t before = phys_world_frame (self->world);
        phys_playback_turn (self, zclock_usecs ());
        if (phys_world_frame (self->world) == before)
            break; /* nothing more can run (an input that cannot apply) */
    }
    if (phys_policy_replay_closes (&self->published, phys_world_time_ns (self->world)))
        phys_publish_snapshot (self, false, 0); /* the time asked for, drawn at once */
    self->replay_paused = paused;
    s_repace (self);
    phys_report_jumped (self);
    return 0;
}

/* Paused: on to the next instant a snapshot is due (a camera's capture or
   a release), or the end. */
static void
s_step (phys_service_t *self)
{
    uint64_t dt = phys_world_dt_ns (self->world), t = phys_world_time_ns (self->world);
    uint64_t due = sim_schedule_next_due (self->schedule);
    uint64_t frame = phys_world_frame (self->world);
    uint64_t to = due == UINT64_MAX || due <= t ? frame + 1 : (due + dt - 1) / dt;
    self->replay_paused = true;
    self->replay_step_to = to < self->replay_end ? to : self->replay_end;
}

/* One action; false when it was refused (a speed that is not > 0). */
static bool
s_apply (phys_service_t *self, const Simbus__ReplayControl *c)
{
    uint64_t dt = phys_world_dt_ns (self->world);
    switch (c->op) {
    case SIMBUS__REPLAY_CONTROL__OP__PAUSE:
        self->replay_paused = true;
        s_repace (self);
        return true;
    case SIMBUS__REPLAY_CONTROL__OP__RESUME:
        if (self->replay_done && s_seek (self, 0))
            return false; /* from the start again, as a played log does */
        self->replay_paused = false;
        s_repace (self);
        return true;
    case SIMBUS__REPLAY_CONTROL__OP__SPEED:
        if (!c->has_value || !(c->value > 0))
            return false;
        /* faster than S_SPEED_MAX is as fast as it goes: the same */
        self->replay_speed = c->value < S_SPEED_MAX ? c->value : S_SPEED_MAX;
        s_repace (self);
        return true;
    case SIMBUS__REPLAY_CONTROL__OP__STEP:
        if (!self->replay_done)
            s_step (self);
        return true;
    case SIMBUS__REPLAY_CONTROL__OP__SEEK: {
        if (!c->has_value || isnan (c->value))
            return false;
        /* clamped to the journal as a log's seek is to the log: before
           the start is the start, past the end (s_seek) the end */
        double t = c->value < 0 ? 0 : c->value < S_SEEK_MAX_S ? c->value : S_SEEK_MAX_S;
        uint64_t frame = (uint64_t) (t * 1e9 / (double) dt + 0.5);
        return s_seek (self, frame) == 0;
    }
    default:
        return true; /* STATE, or an action of a newer viewer: the state only */
    }
}

bool
phys_seeking_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from)
{
    if (!self->seeking)
        return false;
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = req->id;
    SimulatorError error = SIMULATOR_ERROR__INIT, *errors[1] = { &error };
    bool ok = req->replay ? s_apply (self, req->replay) : false;
    if (!ok) {
        error.code = req->replay ? "INVALID" : "UNSUPPORTED";
        error.message = req->replay ? "no such time or speed in this replay"
                                    : "a replay is not changed but by its journal: only its timeline moves";
        reply.n_errors = 1;
        reply.errors = errors;
    }
    Simbus__ReplayState state;
    phys_seeking_state (self, &state);
    reply.replay = &state;
    reply.time_ns = phys_world_time_ns (self->world);
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
    if (from)
        sim_link_reply (self->link, from, &env);
    return true;
}
