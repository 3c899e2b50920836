/*  phys_world.c - world lifecycle, the substep order of physics.md §2, the
    robot phase (§6.10), commands, teleports (§10), specs, snapshots,
    events and the state hash (§11). Contacts, kicker and dribbler live in
    their own files and work on the same private layout.
*/
#include "common/base/sim_hash.h"
#include "phys_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phys_check.h"
#include "phys_internal.h"
#include "phys_lanes.h"
#include "common/base/sim_math.h"
#include "common/base/sim_field.h"

/* ---- definition checks ------------------------------------------------ */

static bool
s_sane (double v)
{
    return fabs (v) <= PHYS_INPUT_LIMIT; /* false for NaN and the infinities too */
}

static void
s_check_ball (phys_check_t *c, const sim_ball_cfg_t *b)
{
    PHYS_CHECK_POS (c, "ball.radius", b->radius, "m");
    PHYS_CHECK_POS (c, "ball.mass", b->mass, "kg");
    PHYS_CHECK_ANY (c, "ball.acc_slide", b->acc_slide, "m/s^2");
    PHYS_CHECK_ANY (c, "ball.acc_roll", b->acc_roll, "m/s^2");
    PHYS_CHECK_ANY (c, "ball.roll_speed_coefficient", b->roll_speed_coefficient, "1/s");
    PHYS_CHECK_ANY (c, "ball.advertise_roll_speed", b->advertise_roll_speed, "m/s");
    PHYS_CHECK_POS (c, "ball.inertia_distribution", b->inertia_distribution, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_xy_first_hop", b->chip_damping_xy_first_hop, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_xy_other_hops", b->chip_damping_xy_other_hops, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_z", b->chip_damping_z, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_z_other_hops", b->chip_damping_z_other_hops, "");
    PHYS_CHECK_NONNEG (c, "ball.min_hop_height", b->min_hop_height, "m");
    PHYS_CHECK_NONNEG (c, "ball.rest_speed", b->rest_speed, "m/s");
}

static void
s_check_contact (phys_check_t *c, const sim_contact_cfg_t *k)
{
    PHYS_CHECK_UNIT (c, "contact.ball_robot_normal", k->ball_robot_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_tangent", k->ball_robot_tangent);
    PHYS_CHECK_UNIT (c, "contact.ball_kicker_normal", k->ball_kicker_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_kicker_tangent", k->ball_kicker_tangent);
    PHYS_CHECK_UNIT (c, "contact.ball_wall_normal", k->ball_wall_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_wall_tangent", k->ball_wall_tangent);
    PHYS_CHECK_UNIT (c, "contact.spin_retention", k->spin_retention);
    PHYS_CHECK_ANY (c, "contact.robot_robot_restitution", k->robot_robot_restitution, "");
    PHYS_CHECK_ANY (c, "contact.robot_robot_friction", k->robot_robot_friction, "");
    PHYS_CHECK_UNIT (c, "contact.robot_wall_restitution", k->robot_wall_restitution);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_top_normal", k->ball_robot_top_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_top_tangent", k->ball_robot_top_tangent);
}

static void
s_check_field (phys_check_t *c, const sim_field_t *f)
{
    PHYS_CHECK_POS (c, "field.length", f->length, "m");
    PHYS_CHECK_POS (c, "field.width", f->width, "m");
    PHYS_CHECK_POS (c, "field.goal_width", f->goal_width, "m");
    PHYS_CHECK_POS (c, "field.goal_depth", f->goal_depth, "m");
    PHYS_CHECK_POS (c, "field.goal_height", f->goal_height, "m");
    PHYS_CHECK_POS (c, "field.goal_wall_thickness", f->goal_wall_thickness, "m");
    PHYS_CHECK_POS (c, "field.boundary_width", f->boundary_width, "m");
    PHYS_CHECK_POS (c, "field.penalty_area_depth", f->penalty_area_depth, "m");
    PHYS_CHECK_POS (c, "field.penalty_area_width", f->penalty_area_width, "m");
    PHYS_CHECK_POS (c, "field.center_circle_radius", f->center_circle_radius, "m");
    PHYS_CHECK_POS (c, "field.line_thickness", f->line_thickness, "m");
}

static void
s_check_realism (phys_check_t *c, const phys_realism_def_t *r)
{
    PHYS_CHECK_ANY (c, "realism.kick_direction_stddev", r->kick_direction_stddev, "rad");
    PHYS_CHECK_ANY (c, "realism.chip_angle_stddev", r->chip_angle_stddev, "rad");
    PHYS_CHECK_ANY (c, "realism.kick_speed_factor_stddev", r->kick_speed_factor_stddev, "");
}

/* The same checks without a message, for images and runtime updates. */
static bool
s_field_ok (const sim_field_t *f)
{
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_field (&c, f);
    return c.ok;
}

static bool
s_realism_ok (const phys_realism_def_t *r)
{
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_realism (&c, r);
    return c.ok;
}

/* Every value of a definition; the first refusal described in err. */
static bool
s_check_def (const phys_world_def_t *def, char *err, size_t err_len)
{
    phys_check_t c;
    phys_check_init (&c, err, err_len, NULL);
    phys_check_range (&c, "substep", def->substep, 0, true, 1.0, false, "s");
    /* llround only on a value the range check let through */
    phys_check_that (&c, !c.ok || llround (def->substep * 1e9) > 0, "substep", def->substep,
                     "s rounds to 0 ns");
    PHYS_CHECK_NONNEG (&c, "command_timeout", def->command_timeout, "s");
    PHYS_CHECK_NONNEG (&c, "wall_height", def->wall_height, "m");
    s_check_ball (&c, &def->ball);
    s_check_contact (&c, &def->contact);
    s_check_realism (&c, &def->realism);
    for (int t = 0; t < 2 && c.ok; t++) {
        char prefix[16];
        snprintf (prefix, sizeof prefix, "%s.", t == SIM_TEAM_BLUE ? "blue" : "yellow");
        if (phys_specs_check (&def->team[t], prefix, err, err_len) != 0)
            c.ok = false;
    }
    s_check_field (&c, &def->field);
    return c.ok;
}

void
phys_realism_def_pick (phys_realism_def_t *def, const sim_realism_t *realism)
{
    memset (def, 0, sizeof *def);
    def->simulate_dribbling = realism->simulate_dribbling;
    def->kick_direction_stddev = realism->kick_direction_stddev;
    def->chip_angle_stddev = realism->chip_angle_stddev;
    def->kick_speed_factor_stddev = realism->kick_speed_factor_stddev;
}

void
phys_realism_def_default (phys_realism_def_t *def)
{
    sim_realism_t realism;
    sim_realism_default (&realism);
    phys_realism_def_pick (def, &realism);
}

void
phys_world_def_default (phys_world_def_t *def)
{
    /* zero first, so two defaults compare equal byte for byte */
    memset (def, 0, sizeof *def);
    def->substep = 0.001;
    def->seed = 0;
    def->command_timeout = 0.1;
    def->wall_height = 0.10;
    def->robots_per_team = 11;
    sim_field_division (SIM_DIVISION_A, &def->field);
    sim_ball_default (&def->ball);
    def->contact = (sim_contact_cfg_t) {
        .ball_robot_normal = 0.5,
        .ball_robot_tangent = 0.3,
        .ball_kicker_normal = 0.8,
        .ball_kicker_tangent = 0.4,
        .ball_wall_normal = 0.5,
        .ball_wall_tangent = 0.0,
        .spin_retention = 0.6,
        .robot_robot_restitution = 0.2,
        .robot_robot_friction = 0.1,
        .robot_wall_restitution = 0.1,
        .ball_robot_top_normal = 0.54,
        .ball_robot_top_tangent = 0.3,
        .robot_hull_chord_contacts = true,
    };
    for (int t = 0; t < 2; t++)
        phys_robot_def_default (&def->team[t]);
    phys_realism_def_default (&def->realism);
}

/* ---- robots ---------------------------------------------------------- */

void
phys_robot_refresh (phys_robot_t *r)
{
    const sim_robot_specs_t *s = &r->specs;
    phys_wheels_init (&r->wheels, s);
    phys_drive_consts_init (&r->drive_k, s);
    r->inv_mass = 1.0 / s->mass;
    r->inv_inertia = 1.0 / phys_specs_inertia (s);
    r->cos_m = s->center_to_dribbler / s->radius;
    r->half_w = sqrt (s->radius * s->radius - s->center_to_dribbler * s->center_to_dribbler);
}

void
phys_robot_set_theta (phys_robot_t *r, double theta)
{
    r->theta = phys_angle_wrap (theta);
    sim_sincos (r->theta, &r->st, &r->ct);
}

static phys_robot_t *
s_find (phys_world_t *self, int team, unsigned id)
{
    if ((team != SIM_TEAM_BLUE && team != SIM_TEAM_YELLOW) || id > SIM_MAX_ROBOT_ID)
        return NULL;
    int k = self->slot[team][id];
    return k < 0 ? NULL : &self->robots[k];
}

static const phys_robot_t *
s_find_const (const phys_world_t *self, int team, unsigned id)
{
    return s_find ((phys_world_t *) self, team, id);
}

static void
s_reindex (phys_world_t *self)
{
    self->sap_count = -1; /* indices changed: rebuild the sort cache */
    memset (self->slot, 0xff, sizeof self->slot);
    for (int k = 0; k < self->robot_count; k++)
        self->slot[self->robots[k].team][self->robots[k].id] = (int16_t) k;
}

/* Insert a robot with team default specs at rest, drawing its holding
   budget (§9.7). Returns it, or NULL if it already exists. */
static phys_robot_t *
s_create (phys_world_t *self, int team, int id, double x, double y, double theta)
{
    if (self->slot[team][id] >= 0)
        return NULL;
    int key = team * (SIM_MAX_ROBOT_ID + 1) + id, pos = 0;
    while (pos < self->robot_count
           && self->robots[pos].team * (SIM_MAX_ROBOT_ID + 1) + self->robots[pos].id < key)
        pos++;
    memmove (&self->robots[pos + 1], &self->robots[pos],
             (size_t) (self->robot_count - pos) * sizeof (phys_robot_t));
    self->robot_count++;
    phys_robot_t *r = &self->robots[pos];
    memset (r, 0, sizeof *r);
    r->team = team;
    r->id = id;
    r->specs = self->team_specs[team];
    phys_robot_refresh (r);
    const sim_dribbler_t *d = &r->specs.dribbler;
    double h = d->hold_accel + sim_rng_normal (&self->rng, d->hold_accel_stddev);
    r->hold_accel_actual = h > d->hold_accel_min ? h : d->hold_accel_min;
    r->x = x;
    r->y = y;
    phys_robot_set_theta (r, theta);
    r->cmd.move = PHYS_MOVE_NONE;
    r->command_time_ns = 0;
    r->charged = true;
    r->since_kick = INFINITY;
    s_reindex (self);
    return &self->robots[self->slot[team][id]];
}

static void
s_remove (phys_world_t *self, int team, int id)
{
    int k = self->slot[team][id];
    if (k < 0)
        return;
    memmove (&self->robots[k], &self->robots[k + 1],
             (size_t) (self->robot_count - k - 1) * sizeof (phys_robot_t));
    self->robot_count--;
    s_reindex (self);
}

/* ---- lifecycle -------------------------------------------------------- */

phys_world_t *
phys_world_new (const phys_world_def_t *def, char *err, size_t err_len)
{
    if (!def) {
        if (err && err_len > 0)
            snprintf (err, err_len, "no definition");
        return NULL;
    }
    if (!s_check_def (def, err, err_len))
        return NULL;
    uint64_t dt_ns = (uint64_t) llround (def->substep * 1e9);
    const sim_field_t *field = &def->field;

    phys_world_t *self = calloc (1, sizeof *self);
    if (!self) {
        if (err && err_len > 0)
            snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->command_timeout = def->command_timeout;
    self->ball_cfg = def->ball;
    self->contact = def->contact;
    self->realism = def->realism;
    self->dt_ns = dt_ns;
    self->dt = (double) dt_ns * 1e-9;
    phys_geom_build (&self->geom, field, def->wall_height);
    for (int t = 0; t < 2; t++) {
        self->team_specs[t] = def->team[t];
        /* §9.8: the product applies the glue flag at startup too */
        self->team_specs[t].dribbler.glue = !def->realism.simulate_dribbling;
    }
    self->ball = (phys_ball_state_t) { .z = def->ball.radius };
    self->in_goal = -1;
    sim_rng_seed (&self->rng, def->seed, SIM_STREAM_PHYSICS);
    memset (self->slot, 0xff, sizeof self->slot);
    int n = def->robots_per_team;
    n = n < 0 ? 0 : n > SIM_MAX_ROBOTS_PER_TEAM ? SIM_MAX_ROBOTS_PER_TEAM : n;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            double x, y, th;
            phys_formation (field, (sim_team_t) t, i, &x, &y, &th);
            s_create (self, t, i, x, y, th);
        }
    return self;
}

void
phys_world_destroy (phys_world_t **self_p)
{
    if (self_p && *self_p) {
        free (*self_p);
        *self_p = NULL;
    }
}

phys_world_t *
phys_world_dup (const phys_world_t *self)
{
    if (!self)
        return NULL;
    phys_world_t *copy = malloc (sizeof *copy);
    if (copy)
        memcpy (copy, self, sizeof *copy);
    return copy;
}

static void s_solve_wheels (phys_robot_t *r);

size_t
phys_world_image_size (void)
{
    return sizeof (phys_world_t);
}

void
phys_world_save (const phys_world_t *self, void *buf)
{
    memcpy (buf, self, sizeof *self);
}

static bool
s_finite_all (const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite (v[i]))
            return false;
    return true;
}

/* A loaded image is outside input: check what the code relies on. */
static bool
s_image_ok (const phys_world_t *w)
{
    if (w->dt_ns == 0 || !(w->dt > 0) || !s_sane (w->geom.wall_height) || w->geom.wall_height < 0
        || w->robot_count < 0 || w->robot_count > PHYS_MAX_ROBOTS || w->event_count < 0
        || w->event_count > PHYS_MAX_EVENTS || w->sap_count > PHYS_CONTACT_ROBOTS || w->in_goal < -1
        || w->in_goal > 1)
        return false;
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_ball (&c, &w->ball_cfg);
    s_check_contact (&c, &w->contact);
    s_check_realism (&c, &w->realism);
    s_check_field (&c, &w->geom.field);
    if (!c.ok || phys_specs_validate (&w->team_specs[0]) != 0 || phys_specs_validate (&w->team_specs[1]) != 0)
        return false;
    const phys_ball_state_t *b = &w->ball;
    if (!s_finite_all ((const double[]) { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->sx, b->sy }, 8))
        return false;
    for (int t = 0; t < 2; t++)
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++) {
            int k = w->slot[t][id];
            if (k < -1 || k >= w->robot_count
                || (k >= 0 && (w->robots[k].team != t || w->robots[k].id != id)))
                return false;
        }
    int prev_key = -1;
    for (int k = 0; k < w->robot_count; k++) {
        const phys_robot_t *r = &w->robots[k];
        if (r->team < 0 || r->team > 1 || r->id < 0 || r->id > SIM_MAX_ROBOT_ID
            || w->slot[r->team][r->id] != k)
            return false;
        int key = r->team * (SIM_MAX_ROBOT_ID + 1) + r->id;
        if (key <= prev_key)
            return false;
        prev_key = key;
        if (phys_specs_validate (&r->specs) != 0
            || !s_finite_all ((const double[]) { r->x, r->y, r->theta, r->vx, r->vy, r->omega, r->sp[0],
                                                 r->sp[1], r->sp[2], r->hold_accel_actual },
                              10))
            return false;
    }
    for (int i = 0; i < w->sap_count; i++)
        if (w->sap_order[i] >= w->sap_count)
            return false;
    return true;
}

phys_world_t *
phys_world_load (const void *buf, size_t len)
{
    if (!buf || len != sizeof (phys_world_t))
        return NULL;
    phys_world_t *self = malloc (sizeof *self);
    if (!self)
        return NULL;
    memcpy (self, buf, sizeof *self);
    if (!s_image_ok (self)) {
        free (self);
        return NULL;
    }
    /* derived values and caches are rebuilt, not trusted */
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        phys_robot_refresh (r);
        phys_robot_set_theta (r, r->theta);
        s_solve_wheels (r);
    }
    self->sap_count = -1;
    phys_geom_build (&self->geom, &self->geom.field, self->geom.wall_height);
    return self;
}

uint64_t
phys_world_time_ns (const phys_world_t *self)
{
    return self->time_ns;
}

uint64_t
phys_world_frame (const phys_world_t *self)
{
    return self->frame;
}

uint64_t
phys_world_dt_ns (const phys_world_t *self)
{
    return self->dt_ns;
}

void
phys_world_set_scalar_robots (phys_world_t *self, bool on)
{
    self->scalar_robots = on;
}

void
phys_world_set_exhaustive_contacts (phys_world_t *self, bool on)
{
    self->exhaustive_contacts = on;
}

int
phys_world_robot_count (const phys_world_t *self)
{
    return self->robot_count;
}

void
phys_world_emit (phys_world_t *self, phys_event_kind_t kind, int team, int id, int other_team, int other_id,
                 double speed, double elevation_deg)
{
    if (self->event_count >= PHYS_MAX_EVENTS)
        return;
    self->events[self->event_count++] = (phys_event_t) {
        .kind = kind,
        .time_ns = self->time_ns,
        .team = team,
        .id = id,
        .other_team = other_team,
        .other_id = other_id,
        .speed = speed,
        .elevation_deg = elevation_deg,
    };
}

int
phys_world_events (const phys_world_t *self, const phys_event_t **events)
{
    if (events)
        *events = self->events;
    return self->event_count;
}

/* ---- the substep ------------------------------------------------------ */

/* Target twist in the robot frame (§6.4); false for "no target". */
static bool
s_target (const phys_world_t *self, const phys_robot_t *r, bool timed_out, double out[3])
{
    if (timed_out || r->force_active)
        return false;
    const phys_command_t *c = &r->cmd;
    switch (c->move) {
    case PHYS_MOVE_LOCAL:
        out[0] = c->v[0];
        out[1] = c->v[1];
        out[2] = c->v[2];
        return true;
    case PHYS_MOVE_GLOBAL:
        out[0] = r->ct * c->v[0] + r->st * c->v[1];
        out[1] = -r->st * c->v[0] + r->ct * c->v[1];
        out[2] = c->v[2];
        return true;
    case PHYS_MOVE_WHEELS:
        /* solved once per command (and per spec change), not per substep */
        out[0] = r->cmd_twist[0];
        out[1] = r->cmd_twist[1];
        out[2] = r->cmd_twist[2];
        return true;
    default:
        (void) self;
        return false;
    }
}

/* Robot by_force mover acceleration (§6.9). */
static void
s_robot_mover (const phys_robot_t *r, double *ax, double *ay)
{
    const double K = (1.0 / 6.0) / 0.005, damp = 2.0 * sqrt (K);
    double fx = K * (r->force_x - r->x), fy = K * (r->force_y - r->y);
    double m = sqrt (fx * fx + fy * fy);
    if (m > 20.0) {
        fx *= 20.0 / m;
        fy *= 20.0 / m;
    }
    *ax = fx - damp * r->vx;
    *ay = fy - damp * r->vy;
}

/* The cached cos/sin of the robots listed in `turned` (phys_robot_set_theta
   after their new orientation is in place), two robots at a time where
   SSE2 is there: sim_sincos2 gives the bits sim_sincos gives. Nothing in
   the robot phase reads a robot's cos/sin after its turn, so the phase
   turns them all at its end. */
static void
s_turn (phys_world_t *self, const uint16_t *turned, int n)
{
    int i = 0;
#ifdef __SSE2__
    for (; i + 1 < n; i += 2) {
        phys_robot_t *a = &self->robots[turned[i]], *b = &self->robots[turned[i + 1]];
        __m128d st, ct;
        sim_sincos2 (_mm_set_pd (b->theta, a->theta), &st, &ct);
        _mm_storel_pd (&a->st, st);
        _mm_storeh_pd (&b->st, st);
        _mm_storel_pd (&a->ct, ct);
        _mm_storeh_pd (&b->ct, ct);
    }
#endif
    for (; i < n; i++) {
        phys_robot_t *r = &self->robots[turned[i]];
        sim_sincos (r->theta, &r->st, &r->ct);
    }
}

static void
s_robot_phase (phys_world_t *self)
{
    const double dt = self->dt;
    uint16_t turned[PHYS_MAX_ROBOTS];
    int nturned = 0;
    uint64_t timeout_ns = (uint64_t) llround (self->command_timeout * 1e9);
    bool lanes = !self->scalar_robots && phys_lanes_supported ();
    phys_lanes_t batch;
    batch.n = 0;
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        const sim_robot_specs_t *s = &r->specs;
        if (!r->charged) {
            r->since_kick += dt;
            if (r->since_kick >= s->kicker.charge_time)
                r->charged = true;
        }
        bool timed_out = self->time_ns - r->command_time_ns > timeout_ns;
        double rpm = timed_out ? 0 : r->cmd.dribbler_rpm > 0 ? r->cmd.dribbler_rpm : 0;
        r->drib_active = rpm > 0;
        if (r->drib_active) {
            double f = rpm / s->dribbler.max_speed_rpm;
            r->drib_fraction = f > 1 ? 1 : f;
        } else {
            r->drib_fraction = 0;
            r->holding = false;
        }
        double target[3] = { 0, 0, 0 };
        bool has_target = s_target (self, r, timed_out, target);
        if (lanes && !r->force_active) {
            /* the limiter, drive, integration and turn across robots */
            int n = batch.n++;
            batch.k[n] = k;
            batch.has[n] = has_target ? -1 : 0;
            batch.ideal[n] = s->drive.model == SIM_DRIVE_IDEAL ? -1 : 0;
            batch.tx[n] = target[0];
            batch.ty[n] = target[1];
            batch.tw[n] = target[2];
            if (batch.n == PHYS_LANES) {
                phys_lanes_run (self->robots, &batch, dt);
                batch.n = 0;
            }
            continue;
        }
        phys_limiter_kernel (s, r->sp, has_target ? target : NULL, dt);

        double ax = 0, ay = 0;
        if (r->force_active)
            s_robot_mover (r, &ax, &ay);
        if (s->drive.model == SIM_DRIVE_IDEAL) {
            if (r->force_active) {
                r->vx += ax * dt;
                r->vy += ay * dt;
            } else {
                r->vx = r->ct * r->sp[0] - r->st * r->sp[1];
                r->vy = r->st * r->sp[0] + r->ct * r->sp[1];
                r->omega = r->sp[2];
            }
        } else if (r->force_active) {
            /* motors off: only the mover acts (§6.9) */
            r->vx += ax * dt;
            r->vy += ay * dt;
        } else {
            double lvx = r->ct * r->vx + r->st * r->vy;
            double lvy = -r->st * r->vx + r->ct * r->vy;
            double fx, fy, tq;
            phys_drive_kernel (&r->drive_k, &r->wheels, r->sp, lvx, lvy, r->omega, &fx, &fy, &tq);
            r->vx = phys_drive_rest (r->vx + (r->ct * fx - r->st * fy) * r->inv_mass * dt);
            r->vy = phys_drive_rest (r->vy + (r->st * fx + r->ct * fy) * r->inv_mass * dt);
            r->omega = phys_drive_rest (r->omega + tq * r->inv_inertia * dt);
        }
        r->x += r->vx * dt;
        r->y += r->vy * dt;
        if (r->omega != 0) {
            r->theta = phys_angle_wrap (r->theta + r->omega * dt);
            turned[nturned++] = (uint16_t) k;
        }
    }
    if (batch.n > 0)
        phys_lanes_run (self->robots, &batch, dt);
    s_turn (self, turned, nturned);
    phys_collide_robots (self);
}

/* Ball by_force mover (§10.3). */
static void
s_ball_mover (phys_world_t *self)
{
    const double K = 0.1 / 0.005, damp = 2.0 * sqrt (K);
    phys_ball_state_t *b = &self->ball;
    double ax = K * (self->ball_force_x - b->x) - damp * b->vx;
    double ay = K * (self->ball_force_y - b->y) - damp * b->vy;
    b->vx += ax * self->dt;
    b->vy += ay * self->dt;
    b->sx = b->vx;
    b->sy = b->vy;
}

static void
s_ball_events (phys_world_t *self)
{
    const phys_ball_state_t *b = &self->ball;
    bool outside = phys_geom_outside_field (&self->geom, b->x, b->y);
    if (outside && !self->was_outside_field)
        phys_world_emit (self, PHYS_EVENT_BALL_LEFT_FIELD, -1, -1, -1, -1, 0, 0);
    int goal = phys_geom_goal_region (&self->geom, b->x, b->y);
    if (goal >= 0 && goal != self->in_goal)
        phys_world_emit (self, PHYS_EVENT_GOAL, goal, -1, -1, -1, 0, 0);
    self->was_outside_field = outside;
    self->in_goal = goal;
}

void
phys_world_step (phys_world_t *self)
{
    self->event_count = 0;
    s_robot_phase (self);
    int kicker = phys_kicker_run (self);
    int holder = phys_dribbler_run (self, kicker);
    if (self->ball_force_active)
        s_ball_mover (self);
    phys_collide_ball (self, holder);
    phys_dribbler_break_beams (self);
    s_ball_events (self);
    self->time_ns += self->dt_ns;
    self->frame++;
}

/* ---- commands --------------------------------------------------------- */

/* Twist of a wheel-speed command by least squares (§6.4). */
static void
s_solve_wheels (phys_robot_t *r)
{
    r->cmd_twist[0] = r->cmd_twist[1] = r->cmd_twist[2] = 0;
    if (r->cmd.move == PHYS_MOVE_WHEELS)
        phys_wheels_fk (&r->wheels, r->cmd.v, &r->cmd_twist[0], &r->cmd_twist[1], &r->cmd_twist[2]);
}

phys_err_t
phys_world_command (phys_world_t *self, sim_team_t team, unsigned id, const phys_command_t *cmd)
{
    phys_robot_t *r = s_find (self, team, id);
    if (!r)
        return PHYS_ERR_UNKNOWN_ROBOT;
    if (!cmd)
        return PHYS_ERR_UNSUPPORTED;
    if (cmd->move != PHYS_MOVE_NONE && cmd->move != PHYS_MOVE_LOCAL && cmd->move != PHYS_MOVE_GLOBAL
        && cmd->move != PHYS_MOVE_WHEELS)
        return PHYS_ERR_UNSUPPORTED;
    int nv = cmd->move == PHYS_MOVE_WHEELS ? 4 : cmd->move == PHYS_MOVE_NONE ? 0 : 3;
    for (int i = 0; i < nv; i++)
        if (!s_sane (cmd->v[i]))
            return PHYS_ERR_UNSUPPORTED;
    if (!s_sane (cmd->kick_speed) || !s_sane (cmd->kick_angle_deg) || !s_sane (cmd->dribbler_rpm))
        return PHYS_ERR_UNSUPPORTED;
    phys_command_t c = { .move = cmd->move };
    for (int i = 0; i < nv; i++)
        c.v[i] = cmd->v[i];
    c.kick_speed = cmd->kick_speed > 0 ? cmd->kick_speed : 0;
    c.kick_angle_deg = cmd->kick_angle_deg;
    c.dribbler_rpm = cmd->dribbler_rpm > 0 ? cmd->dribbler_rpm : 0;
    r->cmd = c;
    r->command_time_ns = self->time_ns;
    s_solve_wheels (r);
    return PHYS_OK;
}

int
phys_world_ball_contact (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = s_find_const (self, team, id);
    return r ? r->ball_contact : -1;
}

/* ---- teleports -------------------------------------------------------- */

/* §10.4: stop robots near the target, push overlapping ones away. */
static void
s_evict (phys_world_t *self, double tx, double ty)
{
    double orig[PHYS_MAX_ROBOTS][2];
    for (int k = 0; k < self->robot_count; k++) {
        orig[k][0] = self->robots[k].x;
        orig[k][1] = self->robots[k].y;
    }
    double rb = self->ball_cfg.radius;
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        double dx = r->x - tx, dy = r->y - ty;
        double d = sqrt (dx * dx + dy * dy);
        if (d < 1.5) {
            r->vx = r->vy = r->omega = 0;
            r->sp[0] = r->sp[1] = r->sp[2] = 0;
        }
        double R = r->specs.radius;
        if (d < R + rb) {
            double ux = 1, uy = 0;
            if (d > 0) {
                ux = dx / d;
                uy = dy / d;
            }
            r->x = tx + ux * (R + rb);
            r->y = ty + uy * (R + rb);
            for (int it = 0; it < 32; it++) {
                bool overlap = false;
                for (int j = 0; j < self->robot_count && !overlap; j++) {
                    if (j == k)
                        continue;
                    double ex = r->x - orig[j][0], ey = r->y - orig[j][1];
                    double lim = self->robots[j].specs.radius + R;
                    overlap = ex * ex + ey * ey < lim * lim;
                }
                if (!overlap)
                    break;
                r->x += ux * 2 * (R + rb);
                r->y += uy * 2 * (R + rb);
            }
        }
    }
}

phys_err_t
phys_world_teleport_ball (phys_world_t *self, const phys_ball_teleport_t *t)
{
    if (!t)
        return PHYS_ERR_UNSUPPORTED;
    if (t->has_x != t->has_y || (t->has_z && !t->has_x) || t->has_vx != t->has_vy
        || (t->has_vz && !t->has_vx))
        return PHYS_ERR_PARTIAL_COORD;
    if ((t->has_x && (!s_sane (t->x) || !s_sane (t->y))) || (t->has_z && !s_sane (t->z))
        || (t->has_vx && (!s_sane (t->vx) || !s_sane (t->vy))) || (t->has_vz && !s_sane (t->vz)))
        return PHYS_ERR_UNSUPPORTED;
    double vz = t->has_vz ? t->vz : 0;
    if (t->by_force) {
        if (t->has_vx && (t->vx != 0 || t->vy != 0 || vz != 0))
            return PHYS_ERR_VELOCITY_FORCE;
        self->ball_force_active = t->has_x;
        self->ball_force_x = t->has_x ? t->x : 0;
        self->ball_force_y = t->has_x ? t->y : 0;
        return PHYS_OK;
    }
    if (t->teleport_safely && !t->has_x)
        return PHYS_ERR_TELEPORT_SAFELY_PARTIAL;
    self->ball_force_active = false;
    if (t->teleport_safely)
        s_evict (self, t->x, t->y);
    phys_ball_state_t *b = &self->ball;
    if (t->has_x) {
        double z = t->has_z ? t->z : 0;
        b->x = t->x;
        b->y = t->y;
        b->z = z > self->ball_cfg.radius ? z : self->ball_cfg.radius;
    }
    if (t->has_vx) {
        b->vx = t->vx;
        b->vy = t->vy;
        b->vz = vz;
        b->sx = b->sy = 0;
    }
    if (t->roll) {
        b->sx = b->vx;
        b->sy = b->vy;
    }
    return PHYS_OK;
}

phys_err_t
phys_world_teleport_robot (phys_world_t *self, const phys_robot_teleport_t *t)
{
    if (!t || (t->team != SIM_TEAM_BLUE && t->team != SIM_TEAM_YELLOW) || t->id > SIM_MAX_ROBOT_ID)
        return PHYS_ERR_UNSUPPORTED;
    if (t->has_x != t->has_y || t->has_vx != t->has_vy)
        return PHYS_ERR_PARTIAL_COORD;
    if ((t->has_x && (!s_sane (t->x) || !s_sane (t->y))) || (t->has_orientation && !s_sane (t->orientation))
        || (t->has_vx && (!s_sane (t->vx) || !s_sane (t->vy))) || (t->has_omega && !s_sane (t->omega)))
        return PHYS_ERR_UNSUPPORTED;
    int team = t->team;
    if (t->has_present && !t->present) {
        s_remove (self, team, (int) t->id);
        return PHYS_OK;
    }
    phys_robot_t *r = s_find (self, team, t->id);
    bool velocity_nonzero = (t->has_vx && (t->vx != 0 || t->vy != 0)) || (t->has_omega && t->omega != 0);
    if (!r) {
        if (!(t->has_present && t->present))
            return PHYS_ERR_UNKNOWN_ROBOT;
        if (!t->has_x)
            return PHYS_ERR_CREATE_NOPOS_ROBOT;
        if (t->by_force && velocity_nonzero)
            return PHYS_ERR_VELOCITY_FORCE;
        /* Creation consumes a holding-budget draw, so validate before it. */
        r = s_create (self, team, (int) t->id, t->x, t->y, t->has_orientation ? t->orientation : 0);
        if (!r)
            return PHYS_ERR_UNSUPPORTED;
        if (t->by_force) {
            r->force_active = true;
            r->force_x = t->x;
            r->force_y = t->y;
            return PHYS_OK;
        }
    } else if (t->by_force) {
        if (velocity_nonzero)
            return PHYS_ERR_VELOCITY_FORCE;
        r->force_active = t->has_x;
        r->force_x = t->has_x ? t->x : 0;
        r->force_y = t->has_x ? t->y : 0;
        return PHYS_OK;
    }
    r->force_active = false;
    if (t->has_x) {
        r->x = t->x;
        r->y = t->y;
    }
    if (t->has_orientation)
        phys_robot_set_theta (r, t->orientation);
    if (t->has_vx) {
        r->vx = t->vx;
        r->vy = t->vy;
        r->sp[0] = r->ct * t->vx + r->st * t->vy;
        r->sp[1] = -r->st * t->vx + r->ct * t->vy;
        r->sp[2] = r->omega;
    }
    if (t->has_omega) {
        r->omega = t->omega;
        r->sp[2] = t->omega;
    }
    r->holding = false;
    return PHYS_OK;
}

/* ---- specs, field, realism ------------------------------------------- */

static void
s_merge (sim_robot_specs_t *dst, const phys_spec_update_t *u)
{
    const sim_robot_specs_t *v = &u->v;
    uint64_t m = u->mask;
    if (m & PHYS_SPEC_ALL) {
        *dst = *v;
        return;
    }
    /* clang-format off */
    if (m & PHYS_SPEC_RADIUS) dst->radius = v->radius;
    if (m & PHYS_SPEC_HEIGHT) dst->height = v->height;
    if (m & PHYS_SPEC_MASS) dst->mass = v->mass;
    if (m & PHYS_SPEC_CENTER_TO_DRIBBLER) dst->center_to_dribbler = v->center_to_dribbler;
    if (m & PHYS_SPEC_MAX_LINEAR_KICK_SPEED)
        dst->kicker.max_linear_speed = v->kicker.max_linear_speed;
    if (m & PHYS_SPEC_MAX_CHIP_KICK_SPEED) dst->kicker.max_chip_speed = v->kicker.max_chip_speed;
    if (m & PHYS_SPEC_ACC_SPEEDUP_ABSOLUTE_MAX)
        dst->limits.acc_speedup_absolute_max = v->limits.acc_speedup_absolute_max;
    if (m & PHYS_SPEC_ACC_SPEEDUP_ANGULAR_MAX)
        dst->limits.acc_speedup_angular_max = v->limits.acc_speedup_angular_max;
    if (m & PHYS_SPEC_ACC_BRAKE_ABSOLUTE_MAX)
        dst->limits.acc_brake_absolute_max = v->limits.acc_brake_absolute_max;
    if (m & PHYS_SPEC_ACC_BRAKE_ANGULAR_MAX)
        dst->limits.acc_brake_angular_max = v->limits.acc_brake_angular_max;
    if (m & PHYS_SPEC_VEL_ABSOLUTE_MAX) dst->limits.vel_absolute_max = v->limits.vel_absolute_max;
    if (m & PHYS_SPEC_VEL_ANGULAR_MAX) dst->limits.vel_angular_max = v->limits.vel_angular_max;
    if (m & PHYS_SPEC_WHEEL_FRONT_RIGHT)
        dst->wheel_angles.front_right = v->wheel_angles.front_right;
    if (m & PHYS_SPEC_WHEEL_BACK_RIGHT) dst->wheel_angles.back_right = v->wheel_angles.back_right;
    if (m & PHYS_SPEC_WHEEL_BACK_LEFT) dst->wheel_angles.back_left = v->wheel_angles.back_left;
    if (m & PHYS_SPEC_WHEEL_FRONT_LEFT) dst->wheel_angles.front_left = v->wheel_angles.front_left;
    if (m & PHYS_SPEC_SHOOT_RADIUS) dst->shoot_radius = v->shoot_radius;
    if (m & PHYS_SPEC_DRIBBLER_WIDTH) dst->dribbler_width = v->dribbler_width;
    /* clang-format on */
}

phys_err_t
phys_world_update_specs (phys_world_t *self, sim_team_t team, unsigned id, const phys_spec_update_t *u,
                         char *why, size_t why_len)
{
    if (!u || (team != SIM_TEAM_BLUE && team != SIM_TEAM_YELLOW) || id > SIM_MAX_ROBOT_ID)
        return PHYS_ERR_UNSUPPORTED;
    phys_robot_t *r = s_find (self, team, id);
    if (r) {
        sim_robot_specs_t s = r->specs;
        s_merge (&s, u);
        if (phys_specs_check (&s, NULL, why, why_len) != 0)
            return PHYS_ERR_INVALID_SPEC;
        double dev = r->hold_accel_actual - r->specs.dribbler.hold_accel;
        double h = s.dribbler.hold_accel + dev;
        r->hold_accel_actual = h > s.dribbler.hold_accel_min ? h : s.dribbler.hold_accel_min;
        r->specs = s;
        phys_robot_refresh (r);
        s_solve_wheels (r);
        self->near_valid = false; /* the radius may differ: new broad-phase references */
    }
    sim_robot_specs_t d = self->team_specs[team];
    s_merge (&d, u);
    if (phys_specs_check (&d, NULL, why, why_len) != 0)
        return PHYS_ERR_INVALID_SPEC;
    self->team_specs[team] = d;
    return PHYS_OK;
}

const sim_robot_specs_t *
phys_world_robot_specs (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = s_find_const (self, team, id);
    return r ? &r->specs : NULL;
}

phys_err_t
phys_world_set_field (phys_world_t *self, const sim_field_t *field)
{
    if (!field || !s_field_ok (field))
        return PHYS_ERR_UNSUPPORTED;
    phys_geom_build (&self->geom, field, self->geom.wall_height);
    self->near_valid = false; /* the boards moved: new broad-phase references */
    return PHYS_OK;
}

const sim_field_t *
phys_world_field (const phys_world_t *self)
{
    return &self->geom.field;
}

void
phys_world_set_realism (phys_world_t *self, const phys_realism_def_t *realism)
{
    if (!realism || !s_realism_ok (realism))
        return;
    self->realism = *realism;
    bool glue = !realism->simulate_dribbling;
    self->team_specs[0].dribbler.glue = glue;
    self->team_specs[1].dribbler.glue = glue;
    for (int k = 0; k < self->robot_count; k++)
        self->robots[k].specs.dribbler.glue = glue;
}

const sim_robot_specs_t *
phys_world_team_specs (const phys_world_t *self, sim_team_t team)
{
    return &self->team_specs[team == SIM_TEAM_YELLOW ? 1 : 0];
}

/* ---- read access ------------------------------------------------------ */

void
phys_world_ball (const phys_world_t *self, sim_ball_state_t *out)
{
    const phys_ball_state_t *b = &self->ball;
    *out = (sim_ball_state_t) { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->sx, b->sy };
}

static void
s_robot_state (const phys_robot_t *r, sim_robot_state_t *out)
{
    *out = (sim_robot_state_t) {
        .team = r->team,
        .id = r->id,
        .x = r->x,
        .y = r->y,
        .orientation = r->theta,
        .vx = r->vx,
        .vy = r->vy,
        .omega = r->omega,
        .ball_contact = r->ball_contact,
        .radius = r->specs.radius,
        .height = r->specs.height,
    };
}

int
phys_world_robot (const phys_world_t *self, sim_team_t team, unsigned id, sim_robot_state_t *out)
{
    const phys_robot_t *r = s_find_const (self, team, id);
    if (!r)
        return -1;
    s_robot_state (r, out);
    return 0;
}

double
phys_world_robot_hold_accel (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = s_find_const (self, team, id);
    return r ? r->hold_accel_actual : NAN;
}

bool
phys_world_robot_holding (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = s_find_const (self, team, id);
    return r && r->holding;
}

void
phys_world_snapshot (const phys_world_t *self, sim_snapshot_t *out)
{
    out->time_ns = self->time_ns;
    out->epoch_us = 0; /* the service's business */
    out->command_us = 0;
    phys_world_ball (self, &out->ball);
    int n = self->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? self->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    out->robot_count = n;
    for (int k = 0; k < n; k++)
        s_robot_state (&self->robots[k], &out->robots[k]);
}

static uint64_t
s_fnv_u64 (uint64_t h, uint64_t v)
{
    unsigned char b[8]; /* least significant first, whatever the byte order */
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char) (v >> (8 * i));
    return sim_fnv1a (h, b, sizeof b);
}

static uint64_t
s_fnv_f64 (uint64_t h, double v)
{
    uint64_t bits;
    memcpy (&bits, &v, sizeof bits);
    return s_fnv_u64 (h, bits);
}

uint64_t
phys_world_hash (const phys_world_t *self)
{
    uint64_t h = SIM_FNV1A_BASIS;
    const phys_ball_state_t *b = &self->ball;
    h = s_fnv_u64 (h, self->time_ns);
    const double bv[8] = { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->sx, b->sy };
    for (int i = 0; i < 8; i++)
        h = s_fnv_f64 (h, bv[i]);
    for (int k = 0; k < self->robot_count; k++) {
        const phys_robot_t *r = &self->robots[k];
        h = s_fnv_u64 (h, (uint64_t) r->team);
        h = s_fnv_u64 (h, (uint64_t) r->id);
        const double rv[6] = { r->x, r->y, r->theta, r->vx, r->vy, r->omega };
        for (int i = 0; i < 6; i++)
            h = s_fnv_f64 (h, rv[i]);
    }
    return h;
}

const char *
phys_err_code (phys_err_t err)
{
    /* clang-format off */
    switch (err) {
    case PHYS_OK: return "";
    case PHYS_ERR_PARTIAL_COORD: return "PARTIAL_COORD";
    case PHYS_ERR_VELOCITY_FORCE: return "VELOCITY_FORCE";
    case PHYS_ERR_TELEPORT_SAFELY_PARTIAL: return "TELEPORT_SAFELY_PARTIAL";
    case PHYS_ERR_CREATE_NOPOS_ROBOT: return "CREATE_NOPOS_ROBOT";
    case PHYS_ERR_INVALID_SPEC: return "INVALID_SPEC";
    case PHYS_ERR_UNKNOWN_ROBOT: return "UNKNOWN_ROBOT";
    case PHYS_ERR_UNSUPPORTED: return "UNSUPPORTED";
    }
    /* clang-format on */
    return "UNSUPPORTED";
}
