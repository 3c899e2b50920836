/*  phys_dribbler.c - dribbler mouth zone, traction budget with slip and
    release, back-spin, glue mode and the break-beam (physics.md §9).
*/
#include <math.h>

#include "phys_internal.h"
#include "common/base/sim_math.h"

#define PHYS_DRIBBLE_HORIZON 0.02 /* s, critically damped PD horizon (§9.3) */

/* Apply robot r's dribbler to the ball; returns whether it holds it. */
static bool
s_dribble (phys_world_t *self, phys_robot_t *r)
{
    const sim_robot_specs_t *s = &r->specs;
    phys_ball_state_t *b = &self->ball;
    double rb = self->ball_cfg.radius;
    double qx, qy;
    phys_robot_local (r, b->x, b->y, &qx, &qy);
    double c2d = s->center_to_dribbler;
    if (!(qx >= c2d - s->dribbler.seat_depth && qx <= c2d + rb + 0.015 && fabs (qy) <= s->dribbler_width / 2
          && b->z - rb < 0.03)
        || !(r->drib_fraction > 0)) {
        r->holding = false;
        return false;
    }
    double hx = r->ct, hy = r->st;
    double Px = r->x + hx * s->shoot_radius, Py = r->y + hy * s->shoot_radius;
    double Ux = r->vx - r->omega * (Py - r->y), Uy = r->vy + r->omega * (Px - r->x);
    double wmax = s->dribbler.max_speed_rpm * (2 * M_PI / 60.0);
    double back = r->drib_fraction * wmax * s->dribbler.roller_radius;
    if (back > 1.0)
        back = 1.0;
    double sx = Ux - hx * back, sy = Uy - hy * back;

    if (s->dribbler.glue) {
        b->x = Px;
        b->y = Py;
        b->z = rb;
        b->vx = Ux;
        b->vy = Uy;
        b->vz = 0;
        b->sx = sx;
        b->sy = sy;
        r->holding = true;
        return true;
    }
    const double H = PHYS_DRIBBLE_HORIZON;
    double Dx = (Px - b->x) / (H * H) + 2 * (Ux - b->vx) / H;
    double Dy = (Py - b->y) / (H * H) + 2 * (Uy - b->vy) / H;
    double dl = hx * Dx + hy * Dy;   /* along the heading */
    double dt_ = -hy * Dx + hx * Dy; /* to the robot's left */
    double push = dl > 0 ? dl : 0;
    double Tx = dl < 0 ? dl : 0, Ty = dt_;
    double B = r->hold_accel_actual * r->drib_fraction;
    double Tm = sqrt (Tx * Tx + Ty * Ty);
    bool was = r->holding;
    bool held = Tm <= B * (was ? 1.0 : 0.8);
    if (!held) {
        double f = Tm > 0 ? B / Tm : 0;
        Tx *= f;
        Ty *= f;
        if (was)
            phys_world_emit (self, PHYS_EVENT_DRIBBLER_SLIP, r->team, r->id, -1, -1, 0, 0);
    }
    double lx = push + Tx, ly = Ty;
    double ax = hx * lx - hy * ly, ay = hy * lx + hx * ly;
    double dt = self->dt;
    b->vx += ax * dt;
    b->vy += ay * dt;
    if (b->vz < 0)
        b->vz = 0;
    if (held) {
        b->sx = sx;
        b->sy = sy;
    }
    double k = self->ball_cfg.mass * r->inv_mass * dt;
    r->vx -= ax * k;
    r->vy -= ay * k;
    r->holding = held;
    return held;
}

int
phys_dribbler_run (phys_world_t *self, int kicker)
{
    int holder = -1;
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        if (k == kicker)
            continue;
        if (!r->drib_active) {
            r->holding = false;
            continue;
        }
        if (s_dribble (self, r))
            holder = k;
    }
    return holder;
}

/* The beam of robot r for a ball at (bx, by) low enough for it. */
static bool
s_beam (const phys_robot_t *r, double bx, double by)
{
    /* The beam's box lies within c2d + 0.0235 + half_w of the centre
       (plus 1e-6 m against rounding): a ball farther off along x or y
       cannot be in it, whatever the robot's heading. */
    double c2d = r->specs.center_to_dribbler, reach = c2d + 0.0235 + r->half_w + 1e-6;
    if (fabs (bx - r->x) > reach || fabs (by - r->y) > reach)
        return false;
    double qx, qy;
    phys_robot_local (r, bx, by, &qx, &qy);
    return qx >= c2d && qx <= c2d + 0.0235 && fabs (qy) <= r->half_w;
}

#ifdef SIM_MATH_AVX2
/* s_beam's reach test four robots a register (its operations, its bits),
   the box test only for robots in reach. Returns the first robot it has
   not visited (the end of the last whole four). */
SIM_MATH_AVX2_TARGET static int
s_break_beams4 (phys_world_t *self, double bx, double by)
{
    const __m256d bx4 = _mm256_set1_pd (bx), by4 = _mm256_set1_pd (by), sign = _mm256_set1_pd (-0.0);
    const __m256d mouth = _mm256_set1_pd (0.0235), eps = _mm256_set1_pd (1e-6);
    int n = self->robot_count, k = 0;
    for (; k + 4 <= n; k += 4) {
        phys_robot_t *r = &self->robots[k];
        /* (x, y) lie side by side */
        __m256d rx, ry;
        sim_load_pairs4 (&r[0].x, &r[1].x, &r[2].x, &r[3].x, &rx, &ry);
        __m256d dx = _mm256_andnot_pd (sign, _mm256_sub_pd (bx4, rx));
        __m256d dy = _mm256_andnot_pd (sign, _mm256_sub_pd (by4, ry));
        __m256d c2d = _mm256_set_pd (r[3].specs.center_to_dribbler, r[2].specs.center_to_dribbler,
                                     r[1].specs.center_to_dribbler, r[0].specs.center_to_dribbler);
        __m256d hw = _mm256_set_pd (r[3].half_w, r[2].half_w, r[1].half_w, r[0].half_w);
        __m256d reach = _mm256_add_pd (_mm256_add_pd (_mm256_add_pd (c2d, mouth), hw), eps);
        __m256d out =
            _mm256_or_pd (_mm256_cmp_pd (dx, reach, _CMP_GT_OQ), _mm256_cmp_pd (dy, reach, _CMP_GT_OQ));
        unsigned near = ~(unsigned) _mm256_movemask_pd (out) & 0xfu;
        r[0].ball_contact = r[1].ball_contact = r[2].ball_contact = r[3].ball_contact = false;
        for (; near; near &= near - 1) {
            int i = __builtin_ctz (near);
            r[i].ball_contact = s_beam (&r[i], bx, by);
        }
    }
    return k;
}
#endif

void
phys_dribbler_break_beams (phys_world_t *self)
{
    const phys_ball_state_t *b = &self->ball;
    if (!(b->z < 0.06)) { /* above every beam */
        for (int k = 0; k < self->robot_count; k++)
            self->robots[k].ball_contact = false;
        return;
    }
    double bx = b->x, by = b->y;
    int k = 0;
#ifdef SIM_MATH_AVX2
    if (!self->exhaustive_contacts && sim_math_have_avx2 ())
        k = s_break_beams4 (self, bx, by);
#endif
    for (; k < self->robot_count; k++)
        self->robots[k].ball_contact = s_beam (&self->robots[k], bx, by);
}
