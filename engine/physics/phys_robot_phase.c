/*  phys_robot_phase.c - the robot phase of a substep (physics.md §6.10):
    per robot its kicker charge, dribbler state and target twist, then the
    limiter, drive, integration and turn, either on the lanes
    (phys_lanes.h, robots batched a register at a time) or on the scalar
    path here (robots with a by_force mover always, every robot where the
    CPU has no lanes or a test asks for the scalar path; the two give the
    same bits); then the robots' cos/sin and their contacts.
*/
#include <math.h>
#include <stdint.h>

#include "phys_internal.h"
#include "phys_lanes.h"
#include "common/base/sim_math.h"

/* The robot by_force mover (§6.9). */
#define S_ROBOT_MOVER_GAIN     ((1.0 / 6.0) / 0.005) /* K, s^-2 (33.33): m/s^2 of pull per metre off the target */
#define S_ROBOT_MOVER_PULL_MAX 20.0                  /* m/s^2: cap on the pull's magnitude |K (q - p)| */

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

/* Robot by_force mover acceleration (§6.9): a spring K toward the target,
   its pull capped, critically damped (2 sqrt K, s^-1). */
static void
s_robot_mover (const phys_robot_t *r, double *ax, double *ay)
{
    const double K = S_ROBOT_MOVER_GAIN, damp = 2.0 * sqrt (K);
    double fx = K * (r->force_x - r->x), fy = K * (r->force_y - r->y);
    double m = sqrt (fx * fx + fy * fy);
    if (m > S_ROBOT_MOVER_PULL_MAX) {
        fx *= S_ROBOT_MOVER_PULL_MAX / m;
        fy *= S_ROBOT_MOVER_PULL_MAX / m;
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

void
phys_robot_phase (phys_world_t *self)
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
            if (r->since_kick >= r->charge_time)
                r->charged = true;
        }
        bool timed_out = self->time_ns - r->command_time_ns > timeout_ns;
        double rpm = timed_out ? 0 : r->cmd.dribbler_rpm > 0 ? r->cmd.dribbler_rpm : 0;
        r->drib_active = rpm > 0;
        if (r->drib_active) {
            double f = rpm / r->drib_max_rpm;
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
            batch.ideal[n] = r->ideal ? -1 : 0;
            batch.tx[n] = target[0];
            batch.ty[n] = target[1];
            batch.tw[n] = target[2];
            if (batch.n == PHYS_LANES) {
                phys_lanes_run (self, &batch, dt);
                batch.n = 0;
            }
            continue;
        }
        phys_limiter_kernel (s, r->sp, has_target ? target : NULL, dt);

        double ax = 0, ay = 0;
        if (r->force_active)
            s_robot_mover (r, &ax, &ay);
        if (r->ideal) {
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
        phys_lanes_run (self, &batch, dt);
    s_turn (self, turned, nturned);
    phys_collide_robots (self);
}
