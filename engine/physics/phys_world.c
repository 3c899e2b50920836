/*  phys_world.c - the world's life: the robot table, new/destroy/dup,
    the event buffer, commands, spec updates, field and realism changes.
    Its definition's checks and defaults are in phys_world_def.c, the
    saved image and its checks on load in phys_image.c; the substep
    and its read-out (phys_step.c), the robot phase (phys_robot_phase.c),
    teleports (phys_teleport.c), contacts, kicker and dribbler live in
    their own files and work on the same private layout (phys_internal.h).
*/
#include "phys_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phys_check.h" /* phys_sane */
#include "phys_internal.h"
#include "common/base/sim_math.h"
#include "common/base/sim_field.h"
#include "common/base/sim_team.h"

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
    r->coast[0] = s->drive.coast_decel;
    r->coast[1] = s->drive.coast_angular_decel;
    r->charge_time = s->kicker.charge_time;
    r->drib_max_rpm = s->dribbler.max_speed_rpm;
    r->ideal = s->drive.model == SIM_DRIVE_IDEAL;
}

void
phys_robot_set_theta (phys_robot_t *r, double theta)
{
    r->theta = phys_angle_wrap (theta);
    sim_sincos (r->theta, &r->st, &r->ct);
}

static void
s_reindex (phys_world_t *self)
{
    self->sap_count = -1;            /* indices changed: rebuild the sort cache */
    self->lane_consts_valid = false; /* and the lanes' constants */
    memset (self->slot, 0xff, sizeof self->slot);
    for (int k = 0; k < self->robot_count; k++)
        self->slot[self->robots[k].team][self->robots[k].id] = (int16_t) k;
}

phys_robot_t *
phys_world_add_robot (phys_world_t *self, int team, int id, double x, double y, double theta)
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

void
phys_world_remove_robot (phys_world_t *self, int team, int id)
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
    if (!phys_def_check (def, err, err_len))
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
            phys_world_add_robot (self, t, i, x, y, th);
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

/* ---- commands --------------------------------------------------------- */

/* Twist of a wheel-speed command by least squares (§6.4). */
void
phys_robot_solve_wheels (phys_robot_t *r)
{
    r->cmd_twist[0] = r->cmd_twist[1] = r->cmd_twist[2] = 0;
    if (r->cmd.move == PHYS_MOVE_WHEELS)
        phys_wheels_fk (&r->wheels, r->cmd.v, &r->cmd_twist[0], &r->cmd_twist[1], &r->cmd_twist[2]);
}

phys_err_t
phys_world_command (phys_world_t *self, sim_team_t team, unsigned id, const phys_command_t *cmd)
{
    phys_robot_t *r = phys_world_find (self, team, id);
    if (!r)
        return PHYS_ERR_UNKNOWN_ROBOT;
    if (!cmd)
        return PHYS_ERR_UNSUPPORTED;
    if (cmd->move != PHYS_MOVE_NONE && cmd->move != PHYS_MOVE_LOCAL && cmd->move != PHYS_MOVE_GLOBAL
        && cmd->move != PHYS_MOVE_WHEELS)
        return PHYS_ERR_UNSUPPORTED;
    int nv = cmd->move == PHYS_MOVE_WHEELS ? 4 : cmd->move == PHYS_MOVE_NONE ? 0 : 3;
    for (int i = 0; i < nv; i++)
        if (!phys_sane (cmd->v[i]))
            return PHYS_ERR_UNSUPPORTED;
    if (!phys_sane (cmd->kick_speed) || !phys_sane (cmd->kick_angle_deg) || !phys_sane (cmd->dribbler_rpm))
        return PHYS_ERR_UNSUPPORTED;
    phys_command_t c = { .move = cmd->move };
    for (int i = 0; i < nv; i++)
        c.v[i] = cmd->v[i];
    c.kick_speed = cmd->kick_speed > 0 ? cmd->kick_speed : 0;
    c.kick_angle_deg = cmd->kick_angle_deg;
    c.dribbler_rpm = cmd->dribbler_rpm > 0 ? cmd->dribbler_rpm : 0;
    r->cmd = c;
    r->command_time_ns = self->time_ns;
    phys_robot_solve_wheels (r);
    return PHYS_OK;
}

int
phys_world_ball_contact (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = phys_world_find_const (self, team, id);
    return r ? r->ball_contact : -1;
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
    phys_robot_t *r = phys_world_find (self, team, id);
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
        phys_robot_solve_wheels (r);
        self->near_valid = false; /* the radius may differ: new broad-phase references */
        self->lane_consts_valid = false;
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
    const phys_robot_t *r = phys_world_find_const (self, team, id);
    return r ? &r->specs : NULL;
}

phys_err_t
phys_world_set_field (phys_world_t *self, const sim_field_t *field)
{
    if (!field || !phys_def_field_ok (field))
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
    if (!realism || !phys_def_realism_ok (realism))
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
