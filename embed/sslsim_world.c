/*  sslsim_world.c - one in-process world (sslsim.h): the physics service's
    substep loop and the vision service's snapshot handling, without the
    bus between them; its request handling is in sslsim_world_request.c.

    What makes the bytes those of `ssl-sim run --mode sync`: commands go
    through phys_journal_apply (the function the physics service and its
    replay call), snapshots reach the camera model at exactly the instants
    physics publishes them (the step policy both call, phys_policy.h: every
    due instant of sim_schedule, and the end of a step), and vision's part
    of each is vis_step_encode, the function the vision service calls.
*/
#include "sslsim_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "engine/world/phys_checkpoint.h"
#include "engine/world/phys_def.h"
#include "common/config/sim_schedule_config.h"
#include "common/base/sim_field.h"
#include "engine/world/sim_step.h"
#include "engine/world/vis_def.h"
#include "engine/world/vis_step.h"

_Static_assert(SSLSIM_MAX_DET_BALLS >= VIS_MAX_BALLS, "sslsim.h holds every ball a vision frame carries");

#define SSLSIM_CHECKPOINT_KEY "sslsim"

void
sslsim_config_init (sslsim_config_t *config)
{
    if (!config)
        return;
    memset (config, 0, sizeof *config);
    config->vision = 1;
}

/* ---- errors ----------------------------------------------------------- */

sslsim_status_t
sslsim_world_fail (sslsim_world_t *self, sslsim_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->last_error, sizeof self->last_error, fmt, ap);
    va_end (ap);
    return status;
}

const char *
sslsim_world_last_error (const sslsim_world_t *world)
{
    return world ? world->last_error : "no world";
}

/* ---- making --------------------------------------------------------- */

int
sslsim_config_resolve (const sslsim_config_t *config, sim_config_t *cfg, char *err, size_t err_len)
{
    sim_config_defaults (cfg);
    if (config->ini && sim_config_load_string (cfg, config->ini, "sslsim config", err, err_len))
        return -1;
    /* the flags, then the presets and the cross-key checks, as `ssl-sim
       run` does after its --config files */
    char *argv[128];
    int argc = 0;
    for (int i = 0; config->args && config->args[i]; i++) {
        if (argc == 128) {
            snprintf (err, err_len, "more than 128 arguments");
            return -1;
        }
        argv[argc++] = (char *) config->args[i];
    }
    if (sim_config_from_args (cfg, argc, argv, err, err_len))
        return -1;
    if (config->has_seed)
        cfg->sim.seed = config->seed;
    return 0;
}

static void
s_drop_state (sslsim_world_t *self)
{
    phys_world_destroy (&self->phys);
    sim_schedule_destroy (&self->schedule);
    vis_model_destroy (&self->model);
}

/* World (or `phys`, taken), schedule and camera model for *cfg, put in
   place of the current ones only when all three are made. Returns 0, or
   -1 with the reason in err and the world as it was (`phys` freed). */
static int
s_build (sslsim_world_t *self, const sim_config_t *cfg, phys_world_t *phys, char *err, size_t err_len)
{
    if (!phys) {
        phys_world_def_t def;
        phys_world_def_from_config (&def, cfg);
        phys = phys_world_new (&def, err, err_len);
        if (!phys)
            return -1;
    }
    sim_schedule_def_t sdef;
    sim_schedule_def_from_config (&sdef, cfg);
    sim_schedule_t *schedule = sim_schedule_new (&sdef);
    vis_model_t *model = NULL;
    if (self->vision) {
        vis_model_def_t vdef;
        vis_model_def_from_config (&vdef, cfg);
        model = vis_model_new (&vdef);
    }
    if (!schedule || (self->vision && !model)) {
        snprintf (err, err_len, "the %s refused the configuration",
                  schedule ? "camera model" : "capture schedule");
        phys_world_destroy (&phys);
        sim_schedule_destroy (&schedule);
        vis_model_destroy (&model);
        return -1;
    }
    /* a resumed world: captures before now are past (as physics does) */
    sim_schedule_skip_to (schedule, phys_world_time_ns (phys));
    s_drop_state (self);
    if (cfg != &self->cfg)
        self->cfg = *cfg;
    self->phys = phys;
    self->schedule = schedule;
    self->model = model;
    self->published = (phys_policy_t) { 0 };
    self->frame_count = 0;
    self->used = 0;
    return 0;
}

sslsim_world_t *
sslsim_world_new (const sslsim_config_t *config, char *err, size_t err_len)
{
    char scratch[256];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    *err = '\0';
    if (!config) {
        snprintf (err, err_len, "no configuration");
        return NULL;
    }
    sslsim_world_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->vision = config->vision != 0;
    if (sslsim_config_resolve (config, &self->base, err, err_len)) {
        free (self);
        return NULL;
    }
    if (s_build (self, &self->base, NULL, err, err_len)) {
        sslsim_world_free (self);
        return NULL;
    }
    return self;
}

void
sslsim_world_free (sslsim_world_t *world)
{
    if (!world)
        return;
    s_drop_state (world);
    free (world->bytes);
    free (world->frames);
    free (world);
}

/* ---- stepping ------------------------------------------------------- */

/* Room for every packet of one instant: VIS_STEP_MAX_PACKETS more
   frames and VIS_STEP_BYTES more bytes. Returns 0 or -1. */
static int
s_reserve (sslsim_world_t *self)
{
    if (self->frame_cap - self->frame_count < VIS_STEP_MAX_PACKETS) {
        int cap = self->frame_cap ? 2 * self->frame_cap : 2 * VIS_STEP_MAX_PACKETS;
        sslsim_frame_t *f = realloc (self->frames, (size_t) cap * sizeof *f);
        if (!f)
            return -1;
        self->frames = f;
        self->frame_cap = cap;
    }
    if (self->cap - self->used < VIS_STEP_BYTES) {
        size_t cap = self->cap ? 2 * self->cap : 2 * VIS_STEP_BYTES;
        uint8_t *b = realloc (self->bytes, cap);
        if (!b)
            return -1;
        self->bytes = b;
        self->cap = cap;
    }
    return 0;
}

/* The vision service's s_on_snapshot: vis_step_encode into the step's
   list (short of memory, the instant's frames are lost and counted). */
static void
s_feed_vision (sslsim_world_t *self, const sim_snapshot_t *snap)
{
    size_t room = s_reserve (self) ? 0 : self->cap - self->used;
    vis_step_out_t out;
    vis_step_encode (self->model, snap, room ? self->bytes + self->used : NULL, room, &out);
    self->frames_lost += (uint64_t) out.lost;
    for (int i = 0; i < out.count; i++)
        self->frames[self->frame_count++] =
            (sslsim_frame_t) { self->used + out.packet[i].off, out.packet[i].len };
    self->used += out.used;
}

/* A snapshot as the physics service publishes it (phys_publish_snapshot),
   with vision as the only receiver. */
static void
s_publish_snapshot (sslsim_world_t *self)
{
    sim_snapshot_t snap;
    phys_world_snapshot (self->phys, &snap);
    s_feed_vision (self, &snap);
    phys_policy_published (&self->published, snap.time_ns);
}

int64_t
sslsim_world_substeps (sslsim_world_t *world, double dt)
{
    if (!world)
        return SSLSIM_EINVAL;
    char why[160];
    int64_t n = sim_step_substeps (dt, world->cfg.sim.substep, why, sizeof why);
    if (n < 0)
        return sslsim_world_fail (world, SSLSIM_EINVAL, "dt %s", why);
    return n;
}

sslsim_status_t
sslsim_world_step (sslsim_world_t *world, double dt)
{
    if (!world)
        return SSLSIM_EINVAL;
    sslsim_world_t *self = world;
    int64_t n = sslsim_world_substeps (self, dt);
    if (n < 0)
        return SSLSIM_EINVAL;
    self->frame_count = 0;
    self->used = 0;
    /* the step policy of the physics service (phys_policy.h): a snapshot
       at each due instant, then the step's closing one */
    uint64_t delay_ns = sim_schedule_delay_ns (self->cfg.realism.vision_delay);
    for (int64_t i = 0; i < n; i++) {
        phys_world_step (self->phys);
        if (self->vision && phys_policy_substep (self->schedule, phys_world_time_ns (self->phys), delay_ns))
            s_publish_snapshot (self);
    }
    if (self->vision
        && phys_policy_step_closes (&self->published, (uint64_t) n, phys_world_time_ns (self->phys)))
        s_publish_snapshot (self);
    return SSLSIM_OK;
}

size_t
sslsim_sizeof (const char *name)
{
    if (!name)
        return 0;
    if (!strcmp (name, "sslsim_truth_t"))
        return sizeof (sslsim_truth_t);
    if (!strcmp (name, "sslsim_detection_t"))
        return sizeof (sslsim_detection_t);
    if (!strcmp (name, "sslsim_robot_command_t"))
        return sizeof (sslsim_robot_command_t);
    if (!strcmp (name, "sslsim_config_t"))
        return sizeof (sslsim_config_t);
    if (!strcmp (name, "sslsim_limits_t"))
        return sizeof (sslsim_limits_t);
    if (!strcmp (name, "sslsim_batch_env_t"))
        return sizeof (sslsim_batch_env_t);
    return 0;
}

/* ---- what comes out ------------------------------------------------- */

sslsim_status_t
sslsim_world_limits (const sslsim_world_t *world, sslsim_limits_t *out)
{
    if (!world || !out)
        return SSLSIM_EINVAL;
    sim_field_t field;
    sim_field_resolve (&world->cfg.field, world->cfg.run.division, &field);
    memset (out, 0, sizeof *out);
    out->field_length = field.length;
    out->field_width = field.width;
    out->boundary_width = field.boundary_width;
    out->boundary_width_goal_line = sim_field_goal_line_margin (&field);
    out->goal_width = field.goal_width;
    out->goal_depth = field.goal_depth;
    out->wall_height = world->cfg.sim.wall_height;
    for (int t = 0; t < 2; t++) {
        const sim_robot_specs_t *r = &world->cfg.team[t];
        out->robot_speed_max[t] = r->limits.vel_absolute_max;
        out->robot_angular_max[t] = r->limits.vel_angular_max;
        out->kick_speed_max[t] = r->kicker.max_linear_speed;
        out->chip_speed_max[t] = r->kicker.max_chip_speed;
        out->dribbler_rpm_max[t] = r->dribbler.max_speed_rpm;
    }
    return SSLSIM_OK;
}

int
sslsim_world_vision_count (const sslsim_world_t *world)
{
    return world ? world->frame_count : 0;
}

sslsim_status_t
sslsim_world_vision (const sslsim_world_t *world, int i, const uint8_t **bytes, size_t *len)
{
    if (!world || !bytes || !len || i < 0 || i >= world->frame_count)
        return SSLSIM_EINVAL;
    *bytes = world->bytes + world->frames[i].off;
    *len = world->frames[i].len;
    return SSLSIM_OK;
}

sslsim_status_t
sslsim_world_detection (const sslsim_world_t *world, int i, sslsim_detection_t *out)
{
    const uint8_t *bytes;
    size_t len;
    if (!out || sslsim_world_vision (world, i, &bytes, &len))
        return SSLSIM_EINVAL;
    /* our own encoder's bytes: a decode failure cannot happen */
    return sslsim_detection_decode (bytes, len, out);
}

int
sslsim_world_vision_all (const sslsim_world_t *world, const uint8_t **bytes, size_t *used, size_t *offsets,
                         size_t *lengths, int max)
{
    if (!world || !bytes || !used || max < 0 || (max > 0 && (!offsets || !lengths)))
        return SSLSIM_EINVAL;
    *bytes = world->bytes;
    *used = world->used;
    for (int i = 0; i < world->frame_count && i < max; i++) {
        offsets[i] = world->frames[i].off;
        lengths[i] = world->frames[i].len;
    }
    return world->frame_count;
}

void
sslsim_world_truth (const sslsim_world_t *world, sslsim_truth_t *out)
{
    if (!out)
        return;
    if (!world) {
        memset (out, 0, sizeof *out);
        return;
    }
    sim_snapshot_t snap;
    phys_world_snapshot (world->phys, &snap);
    out->pad_ = 0;
    out->time_ns = snap.time_ns;
    out->ball[0] = snap.ball.x;
    out->ball[1] = snap.ball.y;
    out->ball[2] = snap.ball.z;
    out->ball[3] = snap.ball.vx;
    out->ball[4] = snap.ball.vy;
    out->ball[5] = snap.ball.vz;
    int n = snap.robot_count < SSLSIM_MAX_ROBOTS ? snap.robot_count : SSLSIM_MAX_ROBOTS;
    out->robot_count = n;
    for (int i = 0; i < n; i++) {
        const sim_robot_state_t *r = &snap.robots[i];
        out->robots[i] =
            (sslsim_truth_robot_t) { r->team,  r->id,           r->x, r->y, r->orientation, r->vx, r->vy,
                                     r->omega, r->ball_contact, 0 };
    }
    /* the rows past the count read as zeros, whatever *out held */
    memset (out->robots + n, 0, (size_t) (SSLSIM_MAX_ROBOTS - n) * sizeof out->robots[0]);
}

uint64_t
sslsim_world_time_ns (const sslsim_world_t *world)
{
    return world ? phys_world_time_ns (world->phys) : 0;
}

uint64_t
sslsim_world_seed (const sslsim_world_t *world)
{
    return world ? world->cfg.sim.seed : 0;
}

/* ---- whole-state operations ----------------------------------------- */

sslsim_status_t
sslsim_world_reset (sslsim_world_t *world, uint64_t seed)
{
    if (!world)
        return SSLSIM_EINVAL;
    sslsim_world_t *self = world;
    sim_config_t cfg = self->base;
    cfg.sim.seed = seed;
    if (s_build (self, &cfg, NULL, self->last_error, sizeof self->last_error))
        return SSLSIM_ECONFIG;
    return SSLSIM_OK;
}

sslsim_status_t
sslsim_world_save (const sslsim_world_t *world, const char *path)
{
    if (!world)
        return SSLSIM_EINVAL;
    if (!path)
        return sslsim_world_fail ((sslsim_world_t *) world, SSLSIM_EINVAL, "save: no path");
    if (phys_checkpoint_save (path, SSLSIM_CHECKPOINT_KEY, world->phys, &world->cfg, 0))
        return sslsim_world_fail ((sslsim_world_t *) world, SSLSIM_EIO, "cannot write the checkpoint %s",
                                  path);
    return SSLSIM_OK;
}

sslsim_status_t
sslsim_world_load (sslsim_world_t *world, const char *path)
{
    if (!world)
        return SSLSIM_EINVAL;
    if (!path)
        return sslsim_world_fail (world, SSLSIM_EINVAL, "load: no path; the world is unchanged");
    sslsim_world_t *self = world;
    sim_config_t cfg;
    if (access (path, R_OK) != 0)
        return sslsim_world_fail (self, SSLSIM_EIO, "cannot read %s: %s; the world is unchanged", path,
                                  strerror (errno));
    /* the loader's reason into the answer, not the log (whose "starting
       fresh" is a service's) */
    char refused[320] = "";
    phys_checkpoint_meta_t meta = { .why = refused, .why_len = sizeof refused };
    phys_world_t *phys = phys_checkpoint_read (path, SSLSIM_CHECKPOINT_KEY, &cfg, &meta);
    if (!phys)
        return sslsim_world_fail (self, SSLSIM_ECONFIG, "%s is refused: %s; the world is unchanged", path,
                                  refused);
    sim_config_keep_local (&cfg, &self->cfg);
    char why[200];
    if (s_build (self, &cfg, phys, why, sizeof why))
        return sslsim_world_fail (self, SSLSIM_ECONFIG, "checkpoint %s refused: %s", path, why);
    return SSLSIM_OK;
}
