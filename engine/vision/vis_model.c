/*  vis_model.c - the camera model's life (definition, rig, resume) and the
    frame queue that mirrors the schedule's release queue (vision.md §7),
    with the geometry cadence (§8) and outages (§6). One capture's
    detections are made in vis_capture.c.
*/
#include "vis_model.h"
#include "vis_model_internal.h"
#include "common/base/sim_field.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Every camera's calibration state from the keyed generator of (seed,
   rig generation): the same draws whenever it is called again. */
static void
s_draw_calibration (vis_model_t *self)
{
    const vis_model_def_t *d = &self->def;
    sim_rng_t rng;
    sim_schedule_calibration_rng (d->schedule.seed, d->schedule.rig_generation, &rng);
    for (int i = 0; i < self->rig.count; i++)
        vis_calib_draw (&rng, &d->field, d->realism.calibration_warp_length, &self->calib[i]);
}

/* Which truth period each camera's frames fall in: periods begin at the
   rig's earliest capture offset, so period k holds each camera's instant
   k, or k - 1 for a camera offset more than half a period after it. */
static void
s_truth_grid (vis_model_t *self)
{
    uint64_t off[SIM_MAX_CAMERAS], grid = UINT64_MAX;
    for (int i = 0; i < self->rig.count; i++) {
        off[i] = sim_schedule_offset_ns (&self->def.schedule, i);
        grid = off[i] < grid ? off[i] : grid;
    }
    for (int i = 0; i < self->rig.count; i++)
        self->truth_shift[i] = off[i] - grid > self->period_ns / 2;
}

/* (Re)build everything that depends on the rig: positions and the static
   calibration state, drawn from (seed, rig_generation) over the field in
   force now. */
static void
s_load_rig (vis_model_t *self)
{
    const vis_model_def_t *d = &self->def;
    self->rig = d->schedule.rig;
    if (self->rig.count < 0)
        self->rig.count = 0;
    if (self->rig.count > SIM_MAX_CAMERAS)
        self->rig.count = SIM_MAX_CAMERAS;
    s_draw_calibration (self);
    memset (self->memo, 0, sizeof self->memo);
    self->geometry_count = INT_MAX;
    s_truth_grid (self);
}

void
vis_model_def_default (vis_model_def_t *def)
{
    /* zero first, so two defaults compare equal byte for byte */
    memset (def, 0, sizeof *def);
    sim_schedule_def_default (&def->schedule);
    sim_field_division (SIM_DIVISION_A, &def->field);
    sim_ball_default (&def->ball);
    def->max_robot_radius = 0.09;
    sim_realism_default (&def->realism);
    def->fov_radius = 6.6;
    def->area_at_nadir_px = 63.0;
    def->spurious_ball_area_px = 32.0;
    def->spurious_ball_forward = 0.13;
    def->spurious_ball_lateral_stddev = 0.07;
    def->robot_confidence_mean = 0.9;
    def->ball_confidence_mean = 0.9;
    def->confidence_stddev = 0.09;
    def->duplicate_robot_rate = 3e-5;
    def->geometry_every_n_frames = 73;
    def->report_ball_z = false;
    def->timestamp_epoch_offset = 0.0;
    def->focal_length_px = 1420.0;
    def->image_width = 2448;
    def->image_height = 2048;
}

vis_model_t *
vis_model_new (const vis_model_def_t *def)
{
    assert (def);
    vis_model_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->def = *def;
    self->schedule = sim_schedule_new (&def->schedule);
    self->truth_frame = -1;
    self->cap = 8;
    self->ring = malloc (sizeof (vis_frame_t) * (size_t) self->cap);
    if (!self->schedule || !self->ring) {
        vis_model_destroy (&self);
        return NULL;
    }
    self->period_ns = sim_schedule_period_ns (def->schedule.frame_rate);
    self->delay_ns = sim_schedule_delay_ns (def->realism.vision_delay);
    s_load_rig (self);
    return self;
}

void
vis_model_destroy (vis_model_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        vis_model_t *self = *self_p;
        sim_schedule_destroy (&self->schedule);
        free (self->ring);
        free (self);
        *self_p = NULL;
    }
}

void
vis_model_set_def (vis_model_t *self, const vis_model_def_t *def)
{
    assert (self && def);
    bool new_rig = def->schedule.rig_generation != self->def.schedule.rig_generation;
    /* the warp's gains are fitted to its wavelength: a realism switched
       at runtime to another length draws the same keyed state again, as a
       model started with that realism has it */
    bool refit = def->realism.calibration_warp_length != self->def.realism.calibration_warp_length;
    /* the capture jitter moves the instants physics publishes at too: both
       take it at the same point (phys_policy_config) */
    const sim_schedule_def_t *was = &self->def.schedule, *now = &def->schedule;
    bool jitter = was->capture_jitter != now->capture_jitter
               || was->capture_late_rate != now->capture_late_rate
               || was->capture_late_fraction != now->capture_late_fraction;
    self->def = *def;
    self->delay_ns = sim_schedule_delay_ns (def->realism.vision_delay);
    /* the seed or the realism may be new: nothing drawn before is kept */
    memset (self->memo, 0, sizeof self->memo);
    if (new_rig) {
        sim_schedule_reset_rig (self->schedule, &def->schedule, self->last_t);
        self->period_ns = sim_schedule_period_ns (def->schedule.frame_rate);
        s_load_rig (self);
    } else {
        if (refit)
            s_draw_calibration (self);
        if (jitter)
            sim_schedule_set_jitter (self->schedule, &def->schedule);
    }
}

void
vis_model_resume (vis_model_t *self, uint64_t t_ns)
{
    assert (self);
    if (!self->started)
        sim_schedule_skip_to (self->schedule, t_ns);
    self->started = true;
}

void
vis_model_capture (const vis_model_t *self, int index, uint32_t frame_number, const sim_snapshot_t *snap,
                   vis_frame_t *out)
{
    assert (self && snap && out);
    assert (index >= 0 && index < self->rig.count);
    vis_capture_frame (self, NULL, index, frame_number, snap, snap->time_ns, 0, out);
}

/* Make room for `more` frames; 0 on success. */
static int
s_reserve (vis_model_t *self, int more)
{
    if (self->len + more <= self->cap)
        return 0;
    int cap = self->cap;
    while (cap < self->len + more)
        cap *= 2;
    vis_frame_t *ring = malloc (sizeof (vis_frame_t) * (size_t) cap);
    if (!ring)
        return -1;
    for (int i = 0; i < self->len; i++)
        memcpy (&ring[i], &self->ring[(self->head + i) % self->cap], sizeof (vis_frame_t));
    free (self->ring);
    self->ring = ring;
    self->cap = cap;
    self->head = 0;
    return 0;
}

/* The truth period of the earliest of the frames just released, from
   their frame numbers, which number the cameras' instants (a frame
   captured late, from a later snapshot, keeps its instant's): a vision
   that missed snapshots, a restarted one and a replay number a packet of
   one period alike. */
static uint32_t
s_truth_number (const vis_model_t *self, int released)
{
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < released; i++) {
        const vis_frame_t *f = &self->ring[(self->released_start + i) % self->cap];
        uint64_t k = (uint64_t) f->frame_number + self->truth_shift[f->camera_index];
        first = k < first ? k : first;
    }
    return first > UINT32_MAX ? UINT32_MAX : (uint32_t) first;
}

int
vis_model_advance (vis_model_t *self, const sim_snapshot_t *snap)
{
    assert (self && snap);
    self->released_count = 0;
    self->truth_due = false;
    int cams = self->rig.count;
    if (s_reserve (self, cams) != 0)
        return -1;
    self->last_t = snap->time_ns;

    /* A model that first sees the world late (a restarted service) picks
       up the frame numbers the schedule has reached by now. */
    if (!self->started) {
        sim_schedule_skip_to (self->schedule, snap->time_ns);
        self->started = true;
    }
    uint64_t delay_ns = self->delay_ns;
    uint32_t mask = 0, frames[SIM_MAX_CAMERAS] = { 0 };
    int released = sim_schedule_advance (self->schedule, snap->time_ns, delay_ns, &mask, frames);
    uint32_t suppressed = sim_schedule_suppressed_mask (self->schedule);
    int every = self->def.geometry_every_n_frames > 0 ? self->def.geometry_every_n_frames : 1;

    for (int i = 0; i < cams; i++) {
        uint32_t bit = 1u << i;
        bool geometry = false;
        if (i == 0 && ((mask | suppressed) & bit)) {
            /* Frames the schedule numbered without a snapshot (missed:
               vision behind a realtime clock) count as a model that saw
               them counted them, so geometry goes with the frames a
               replay's goes with. */
            for (uint32_t f = self->geometry_frame + 1; f < frames[0] && self->geometry_count < INT_MAX;
                 f++) {
                if (sim_schedule_missed_in_outage (self->schedule, 0, frames[0] - f))
                    self->geometry_count++; /* suppressed: it only counts */
                else
                    self->geometry_count = self->geometry_count >= every ? 1 : self->geometry_count + 1;
            }
            self->geometry_frame = frames[0];
            /* A suppressed frame only counts, so geometry comes right after
               an outage at least one interval long (vision.md §6). */
            if ((mask & bit) && self->geometry_count >= every) {
                geometry = true;
                self->geometry_count = 1;
            } else if (self->geometry_count < INT_MAX)
                self->geometry_count++;
        }
        if (!(mask & bit))
            continue;
        vis_frame_t *f = &self->ring[(self->head + self->len) % self->cap];
        self->len++;
        vis_capture_frame (self, &self->memo[i], i, frames[i], snap,
                           sim_schedule_capture_ns (self->schedule, i),
                           sim_schedule_previous_capture_ns (self->schedule, i), f);
        f->geometry = geometry;
        f->due_ns = snap->time_ns + delay_ns;
    }

    assert (released <= self->len);
    self->released_start = self->head;
    self->released_count = released;
    self->head = (self->head + released) % self->cap;
    self->len -= released;
    /* the truth stream keeps the camera cadence: cameras whose jittered
       captures fell on neighbouring substeps release at two instants a
       substep apart, which is one frame period of the rig, not two */
    if (released > 0
        && (self->truth_frame < 0 || snap->time_ns >= self->truth_last_ns + self->period_ns / 2)) {
        int64_t number = s_truth_number (self, released);
        self->truth_frame = number > self->truth_frame ? number : self->truth_frame + 1;
        self->truth_due = true;
        self->truth_last_ns = snap->time_ns;
    }
    return released;
}

const vis_frame_t *
vis_model_released (const vis_model_t *self, int i)
{
    assert (self);
    assert (i >= 0 && i < self->released_count);
    return &self->ring[(self->released_start + i) % self->cap];
}

const vis_model_def_t *
vis_model_def (const vis_model_t *self)
{
    assert (self);
    return &self->def;
}

const sim_rig_t *
vis_model_rig (const vis_model_t *self)
{
    assert (self);
    return &self->rig;
}

const vis_calib_t *
vis_model_calib (const vis_model_t *self, int index)
{
    assert (self && index >= 0 && index < self->rig.count);
    return &self->calib[index];
}

const sim_schedule_t *
vis_model_schedule (const vis_model_t *self)
{
    assert (self);
    return self->schedule;
}

uint64_t
vis_model_period_ns (const vis_model_t *self)
{
    assert (self);
    return self->period_ns;
}

bool
vis_model_truth_due (const vis_model_t *self)
{
    assert (self);
    return self->truth_due;
}

uint32_t
vis_model_truth_frame_number (const vis_model_t *self)
{
    assert (self);
    return self->truth_frame < 0 ? 0 : (uint32_t) self->truth_frame;
}
