/*  phys_scene.c - the canonical scripted scene (see phys_scene.h). */
#include "phys_scene.h"

#include <math.h>

#include "phys_field.h"
#include "phys_robot.h"

void
phys_scene_configure (phys_world_def_t *def)
{
    def->seed = PHYS_SCENE_SEED;
    def->robots_per_team = PHYS_SCENE_ROBOTS;
}

void
phys_scene_setup (phys_world_t *world)
{
    const sim_robot_specs_t *s = phys_world_team_specs (world, SIM_TEAM_BLUE);
    phys_robot_teleport_t rt = { .team = SIM_TEAM_BLUE,
                                 .id = 0,
                                 .has_x = true,
                                 .has_y = true,
                                 .has_orientation = true,
                                 .x = 0.0,
                                 .y = -3.0,
                                 .orientation = 0.0,
                                 .has_present = true,
                                 .present = true };
    phys_world_teleport_robot (world, &rt);
    phys_ball_teleport_t bt = {
        .has_x = true, .has_y = true, .x = s->shoot_radius, .y = -3.0, .has_vx = true, .has_vy = true
    };
    phys_world_teleport_ball (world, &bt);
}

/* Wanderers chase a point circling their formation spot (radius 0.4 m,
   1 rad/s) and turn on the spot, so they stay in their zone of the field
   but meet their neighbours now and then. */
static void
s_wander (phys_world_t *world, const sim_robot_state_t *r, int k)
{
    double hx, hy, hth;
    phys_formation (phys_world_field (world), (sim_team_t) r->team, r->id % 16, &hx, &hy, &hth);
    double t = k * 0.001, ph = r->id + 0.5 * r->team;
    double tx = hx + 0.4 * cos (t + ph), ty = hy + 0.4 * sin (t + ph);
    double gx = 2.0 * (tx - r->x) - 0.4 * sin (t + ph);
    double gy = 2.0 * (ty - r->y) + 0.4 * cos (t + ph);
    double g = sqrt (gx * gx + gy * gy);
    if (g > 1.5) {
        gx *= 1.5 / g;
        gy *= 1.5 / g;
    }
    double turn = ((k / 1500 + r->id + r->team) % 2) ? 1.5 : -1.5;
    phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { gx, gy, turn } };
    if (r->id % 2) {
        const sim_robot_specs_t *s = phys_world_robot_specs (world, (sim_team_t) r->team, (unsigned) r->id);
        phys_wheels_t w;
        phys_wheels_init (&w, s);
        double co = cos (r->orientation), so = sin (r->orientation);
        c.move = PHYS_MOVE_WHEELS;
        phys_wheels_ik (&w, co * gx + so * gy, -so * gx + co * gy, turn, c.v);
    }
    phys_world_command (world, (sim_team_t) r->team, (unsigned) r->id, &c);
}

void
phys_scene_drive (phys_world_t *world, int k)
{
    if (k % 20 != 0 && !(k >= 4000 && k < 4100))
        return;
    sim_snapshot_t snap;
    phys_world_snapshot (world, &snap);
    for (int i = 0; i < snap.robot_count; i++) {
        const sim_robot_state_t *r = &snap.robots[i];
        if (r->team == SIM_TEAM_BLUE && r->id == 0) {
            phys_command_t c = { .move = PHYS_MOVE_LOCAL };
            if (k < 4100) {
                c.v[0] = 0.4;
                c.v[2] = (k / 1000) % 2 ? 0.3 : -0.3;
                c.dribbler_rpm = 10000;
            }
            if (k >= 4000 && k < 4100) {
                c.kick_speed = 4.0;
                c.kick_angle_deg = 45.0;
            }
            phys_world_command (world, SIM_TEAM_BLUE, 0, &c);
        } else {
            s_wander (world, r, k);
        }
    }
}
