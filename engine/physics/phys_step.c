/*  phys_step.c - one substep in the order of physics.md §2 (robot phase,
    kicks, dribblers, the ball's by_force mover, ball contacts, break
    beams, the ball's field events) and what a step leaves to read: ball
    and robot states, the snapshot and the state hash (§11).
*/
#include <math.h>
#include <string.h>

#include "phys_internal.h"
#include "common/base/sim_hash.h"

/* The ball by_force mover (§10.3). */
#define S_BALL_MOVER_GAIN (0.1 / 0.005) /* K, s^-2 (20): m/s^2 of pull per metre off the target */

/* ---- the substep ------------------------------------------------------ */

/* Ball by_force mover (§10.3): a spring K toward the target, critically
   damped (2 sqrt K, s^-1); the spin follows the velocity (dragged
   rolling). */
static void
s_ball_mover (phys_world_t *self)
{
    const double K = S_BALL_MOVER_GAIN, damp = 2.0 * sqrt (K);
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
    phys_robot_phase (self);
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
    const phys_robot_t *r = phys_world_find_const (self, team, id);
    if (!r)
        return -1;
    s_robot_state (r, out);
    return 0;
}

double
phys_world_robot_hold_accel (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = phys_world_find_const (self, team, id);
    return r ? r->hold_accel_actual : NAN;
}

bool
phys_world_robot_holding (const phys_world_t *self, sim_team_t team, unsigned id)
{
    const phys_robot_t *r = phys_world_find_const (self, team, id);
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
