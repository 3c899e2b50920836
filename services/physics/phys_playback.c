/*  phys_playback.c - a --journal file played back (see phys_playback.h). */
#include "phys_playback.h"

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "phys_answer.h"
#include "phys_epoch.h"
#include "phys_publish.h"
#include "phys_step.h"

#define PHYS_REPLAY_CHUNK 256 /* fast replay: substeps between looks at the pipe */

int
phys_playback_open (phys_service_t *self, const char *path, double until_s)
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

/* The end of a replay: vision learns it in order, after every snapshot.
   With the page the replay only pauses there (a seek goes on), and the
   viewer ends the run when no page watches. */
static void
s_finish (phys_service_t *self)
{
    if (phys_policy_replay_closes (&self->published, phys_world_time_ns (self->world)))
        phys_publish_snapshot (self, false, 0);
    if (self->seeking) {
        self->replay_done = true;
        sim_info (
            "replay at its end: sim %.3fs (paused while a page is open, which may seek; with none it ends)",
            (double) phys_world_time_ns (self->world) / 1e9);
        return;
    }
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

void
phys_playback_turn (phys_service_t *self, int64_t now)
{
    if (self->replay_done)
        return;
    if (!self->replay_started) {
        if (!sim_link_vision_joined (self->link))
            return;
        phys_publish_config (self);
        self->replay_started = true;
        self->replay_start_us = now;
        self->replay_start_frame = phys_world_frame (self->world);
    }
    size_t count = phys_replay_count (self->replay);
    uint64_t frame = phys_world_frame (self->world);
    /* paused (the page): nothing moves but a step, to replay_step_to */
    bool stepping = self->replay_paused && frame < self->replay_step_to;
    if (self->replay_paused && !stepping && frame < self->replay_end)
        return;
    uint64_t limit = stepping ? self->replay_step_to : self->replay_end;
    uint64_t at = 0;
    while (self->replay_next < count && frame < limit) {
        phys_epoch_replay (self); /* an input may run substeps (sync) */
        const Simbus__Request *req = phys_replay_input (self->replay, self->replay_next, &at, NULL);
        if (at > frame)
            break;
        if (at < frame) {
            sim_warn ("replay: input %zu is pinned to substep %llu, already past; no more inputs applied",
                      self->replay_next, (unsigned long long) at);
            self->replay_next = count;
            break;
        }
        phys_answer_request (self, req, NULL, NULL, 0);
        self->replay_next++;
        frame = phys_world_frame (self->world);
    }
    uint64_t target = limit;
    if (self->replay_next < count && at > frame && at < target)
        target = at;
    /* the run's timestamp bases, each from the substep it changed at */
    uint64_t epoch_at = phys_epoch_replay (self);
    if (epoch_at > frame && epoch_at < target)
        target = epoch_at;
    if (frame >= self->replay_end) {
        s_finish (self);
        return;
    }
    uint64_t n = target > frame ? target - frame : 0;
    if (self->cfg.run.mode == SIM_MODE_FAST || self->cfg.run.mode == SIM_MODE_SYNC || stepping) {
        if (n > PHYS_REPLAY_CHUNK)
            n = PHYS_REPLAY_CHUNK;
    } else {
        double speed = self->seeking           ? self->replay_speed
                     : self->cfg.run.speed > 0 ? self->cfg.run.speed
                                               : 1.0;
        uint64_t due = self->replay_start_frame
                     + (uint64_t) ((double) (now - self->replay_start_us) * 1e3 * speed
                                   / (double) phys_world_dt_ns (self->world));
        uint64_t owed = due > frame ? due - frame : 0;
        if (n > owed)
            n = owed;
    }
    if (n)
        phys_step_run (self, n, false, 0, false);
}
