/*  phys_teleport.c - teleports (physics.md §10): placing the ball and the
    robots, creating and removing robots, setting or clearing their
    by_force targets (the movers themselves act in the substep), and the
    eviction of robots around a ball teleported safely (§10.4).
*/
#include <math.h>
#include <stdbool.h>

#include "phys_check.h"
#include "phys_internal.h"

/* teleport_safely eviction (§10.4) */
#define S_EVICT_STOP_RADIUS 1.5 /* m: robots nearer the target than this are stopped */
#define S_EVICT_PUSH_TRIES  32  /* pushes at most of a robot still overlapping another, each 2 (R + r_ball) */

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
        if (d < S_EVICT_STOP_RADIUS) {
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
            for (int it = 0; it < S_EVICT_PUSH_TRIES; it++) {
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
    if ((t->has_x && (!phys_sane (t->x) || !phys_sane (t->y))) || (t->has_z && !phys_sane (t->z))
        || (t->has_vx && (!phys_sane (t->vx) || !phys_sane (t->vy))) || (t->has_vz && !phys_sane (t->vz)))
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
    if ((t->has_x && (!phys_sane (t->x) || !phys_sane (t->y)))
        || (t->has_orientation && !phys_sane (t->orientation))
        || (t->has_vx && (!phys_sane (t->vx) || !phys_sane (t->vy)))
        || (t->has_omega && !phys_sane (t->omega)))
        return PHYS_ERR_UNSUPPORTED;
    int team = t->team;
    if (t->has_present && !t->present) {
        phys_world_remove_robot (self, team, (int) t->id);
        return PHYS_OK;
    }
    phys_robot_t *r = phys_world_find (self, team, t->id);
    bool velocity_nonzero = (t->has_vx && (t->vx != 0 || t->vy != 0)) || (t->has_omega && t->omega != 0);
    if (!r) {
        if (!(t->has_present && t->present))
            return PHYS_ERR_UNKNOWN_ROBOT;
        if (!t->has_x)
            return PHYS_ERR_CREATE_NOPOS_ROBOT;
        if (t->by_force && velocity_nonzero)
            return PHYS_ERR_VELOCITY_FORCE;
        /* Creation consumes a holding-budget draw, so validate before it. */
        r = phys_world_add_robot (self, team, (int) t->id, t->x, t->y,
                                  t->has_orientation ? t->orientation : 0);
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
