/*  phys_kicker.c - kick zone, firing rule, speed clamps and the seeded
    kick imperfections of physics.md §8 (ball phase step 1).
*/
#include <math.h>

#include "phys_internal.h"

static bool
s_in_zone (const phys_world_t *self, const phys_robot_t *r)
{
    const sim_robot_specs_t *s = &r->specs;
    const phys_ball_state_t *b = &self->ball;
    if (!(b->z < s->kicker.max_ball_height))
        return false;
    double qx, qy;
    phys_robot_local (r, b->x, b->y, &qx, &qy);
    double c2d = s->center_to_dribbler;
    return qx >= c2d - 0.005 && qx <= c2d + self->ball_cfg.radius + 0.015
        && fabs (qy) <= s->dribbler_width / 2;
}

static void
s_fire (phys_world_t *self, phys_robot_t *r)
{
    const sim_kicker_t *k = &r->specs.kicker;
    const phys_realism_def_t *re = &self->realism;
    phys_ball_state_t *b = &self->ball;
    bool chip = r->cmd.kick_angle_deg > 0;
    double max = chip ? k->max_chip_speed : k->max_linear_speed;
    double lo = k->min_speed < max ? k->min_speed : max;
    double nominal = r->cmd.kick_speed;
    nominal = nominal < lo ? lo : nominal > max ? max : nominal;

    double delta = sim_rng_normal (&self->rng, re->kick_direction_stddev);
    double elev = r->cmd.kick_angle_deg;
    if (chip) {
        elev += sim_rng_normal (&self->rng, re->chip_angle_stddev) * (180.0 / M_PI);
        if (elev < 0)
            elev = 0;
    }
    double f = 1.0 + sim_rng_normal (&self->rng, re->kick_speed_factor_stddev);
    f = f < 0.5 ? 0.5 : f > 1.5 ? 1.5 : f;
    double speed = nominal * f;
    if (speed > max)
        speed = max;

    double psi = r->theta + delta;
    double e = elev * (M_PI / 180.0);
    double vin = b->vx * r->ct + b->vy * r->st;
    double keep = vin < 0 ? vin * (1.0 - k->incoming_damping) : 0;
    b->vx = speed * cos (psi) * cos (e) + r->vx + r->ct * keep;
    b->vy = speed * sin (psi) * cos (e) + r->vy + r->st * keep;
    b->vz = speed * sin (e);
    b->sx = b->sy = 0;
    r->charged = false;
    r->since_kick = 0;
    r->holding = false;
    phys_world_emit (self, PHYS_EVENT_KICK, r->team, r->id, -1, -1, speed, elev);
}

int
phys_kicker_run (phys_world_t *self)
{
    int kicker = -1;
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        if (!(r->cmd.kick_speed > 0) || !r->charged || !s_in_zone (self, r))
            continue;
        s_fire (self, r);
        kicker = k;
    }
    return kicker;
}
