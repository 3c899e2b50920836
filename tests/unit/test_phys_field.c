/*  test_phys_field.c - collision geometry (physics.md §3.3), event regions
    (§3.4) and formations (§4); robots against walls and the room.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_field.h"
#include "engine/physics/phys_world.h"
#include "common/base/sim_field.h"
#include "tests/support/sim_from_config.h"

static phys_geom_t
s_geom (sim_division_t div)
{
    sim_field_t f;
    sim_field_division (div, &f);
    phys_geom_t g;
    phys_geom_build (&g, &f, 0.10);
    return g;
}

Test (phys_field, wall_list_div_a)
{
    phys_geom_t g = s_geom (SIM_DIVISION_A);
    const phys_wall_t *w = g.walls;
    /* +y board, -y board */
    cr_expect_float_eq (w[0].ay, 4.8, 1e-12);
    cr_expect_float_eq (w[0].ax, -6.3, 1e-12);
    cr_expect_float_eq (w[0].bx, 6.3, 1e-12);
    cr_expect_eq (w[0].ny, -1);
    cr_expect_eq (w[1].ny, 1);
    /* goal-line boards: s = -1 lower, upper; s = +1 lower, upper */
    cr_expect_float_eq (w[2].ax, -6.3, 1e-12);
    cr_expect_float_eq (w[2].by, -0.9, 1e-12);
    cr_expect_eq (w[2].nx, 1);
    cr_expect_float_eq (w[3].ay, 0.9, 1e-12);
    cr_expect_float_eq (w[4].ax, 6.3, 1e-12);
    cr_expect_eq (w[4].nx, -1);
    /* posts of the -x goal: sy = -1 twice (normals +y then -y), ... */
    cr_expect_float_eq (w[6].ay, -0.91, 1e-12);
    cr_expect_float_eq (w[6].ax, -6.0, 1e-12);
    cr_expect_float_eq (w[6].bx, -6.18, 1e-12);
    cr_expect_eq (w[6].ny, 1);
    cr_expect_eq (w[7].ny, -1);
    cr_expect_float_eq (w[8].ay, 0.91, 1e-12);
    cr_expect_eq (w[8].ny, -1);
    cr_expect_eq (w[9].ny, 1);
    /* back plate */
    cr_expect_float_eq (w[10].ax, -6.18, 1e-12);
    cr_expect_eq (w[10].nx, 1);
    cr_expect_float_eq (w[15].ax, 6.18, 1e-12);
    cr_expect_eq (w[15].nx, -1);
    for (int i = 0; i < PHYS_WALL_COUNT; i++) {
        cr_expect_eq (w[i].is_goal, i >= 6);
        cr_expect_float_eq (w[i].height, i >= 6 ? 0.155 : 0.10, 1e-12);
    }
    cr_expect_float_eq (g.room_hx, 7.48, 1e-12);
    cr_expect_float_eq (g.room_hy, 5.80, 1e-12);
    phys_geom_t b = s_geom (SIM_DIVISION_B);
    cr_expect_float_eq (b.room_hx, 5.98, 1e-12);
    cr_expect_float_eq (b.room_hy, 4.30, 1e-12);
}

Test (phys_field, regions)
{
    phys_geom_t g = s_geom (SIM_DIVISION_A);
    cr_expect_not (phys_geom_outside_field (&g, 5.99, 4.49));
    cr_expect (phys_geom_outside_field (&g, 6.01, 0));
    cr_expect (phys_geom_outside_field (&g, 0, -4.51));
    cr_expect_eq (phys_geom_goal_region (&g, -6.1, 0.5), SIM_TEAM_BLUE);
    cr_expect_eq (phys_geom_goal_region (&g, 6.1, -0.5), SIM_TEAM_YELLOW);
    cr_expect_eq (phys_geom_goal_region (&g, 6.1, 0.95), -1);
    cr_expect_eq (phys_geom_goal_region (&g, 6.2, 0), -1);
    cr_expect_eq (phys_geom_goal_region (&g, 5.9, 0), -1);
}

Test (phys_field, formation_table)
{
    sim_field_t f;
    sim_field_division (SIM_DIVISION_A, &f);
    double x, y, th;
    cr_expect_eq (phys_formation (&f, SIM_TEAM_BLUE, 9, &x, &y, &th), 0);
    cr_expect_float_eq (x, -2.5, 1e-12);
    cr_expect_float_eq (y, -1.5, 1e-12);
    cr_expect_eq (th, 0);
    phys_formation (&f, SIM_TEAM_YELLOW, 14, &x, &y, &th);
    cr_expect_float_eq (x, 1.2, 1e-12);
    cr_expect_float_eq (y, 2.0, 1e-12);
    cr_expect_float_eq (th, M_PI, 1e-12);
    cr_expect_eq (phys_formation (&f, SIM_TEAM_BLUE, 16, &x, &y, &th), -1);
    /* every pair >= 0.25 m apart, all clear of the centre circle */
    for (int a = 0; a < 32; a++) {
        double xa, ya, xb, yb;
        phys_formation (&f, (sim_team_t) (a / 16), a % 16, &xa, &ya, &th);
        cr_expect_gt (hypot (xa, ya), 0.5 + 0.09);
        for (int b = a + 1; b < 32; b++) {
            phys_formation (&f, (sim_team_t) (b / 16), b % 16, &xb, &yb, &th);
            cr_expect_geq (hypot (xa - xb, ya - yb), 0.25);
        }
    }
}

/* A robot driven into a board stops at its radius; one pushed past the
   boards is held by the room box. */
Test (phys_field, robot_against_board_and_room)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (&cfg);
    phys_robot_teleport_t t = { .team = SIM_TEAM_BLUE,
                                .id = 3,
                                .has_x = true,
                                .has_y = true,
                                .x = 1,
                                .y = 4.0,
                                .has_present = true,
                                .present = true };
    phys_world_teleport_robot (w, &t);
    phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { 0, 2, 0 } };
    for (int k = 0; k < 2000; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 3, &c);
        phys_world_step (w);
    }
    sim_robot_state_t r;
    phys_world_robot (w, SIM_TEAM_BLUE, 3, &r);
    cr_expect_float_eq (r.y, 4.8 - 0.09, 1e-3, "stopped at %g", r.y);
    /* beyond the goal-line opening: the room clamps it */
    t = (phys_robot_teleport_t) {
        .team = SIM_TEAM_BLUE, .id = 3, .has_x = true, .has_y = true, .x = 7.0, .y = 0.0
    };
    phys_world_teleport_robot (w, &t);
    c = (phys_command_t) { .move = PHYS_MOVE_GLOBAL, .v = { 2, 0, 0 } };
    for (int k = 0; k < 2000; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 3, &c);
        phys_world_step (w);
    }
    phys_world_robot (w, SIM_TEAM_BLUE, 3, &r);
    cr_expect_float_eq (r.x, 7.48 - 0.09, 1e-9);
    phys_world_destroy (&w);
}

/* Ref quirk (§3.3): a ball passing outside a post, inside the gap between
   the goal back plate and the board opening, leaves into the room box. */
Test (phys_field, ball_through_the_gap_behind_the_goal)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (&cfg);
    phys_ball_teleport_t b = { .has_x = true,
                               .has_y = true,
                               .x = 6.24,
                               .y = -2.0,
                               .has_vx = true,
                               .has_vy = true,
                               .vy = 5,
                               .roll = true };
    phys_world_teleport_ball (w, &b);
    for (int k = 0; k < 600; k++)
        phys_world_step (w);
    sim_ball_state_t s;
    phys_world_ball (w, &s);
    cr_expect_gt (s.y, 0.91, "passed behind the goal: y %g", s.y);
    phys_world_destroy (&w);
}

/* Ball by_force (§10.3): from rest within 0.02 m of a target 1.1 m away in
   3 s, speed < 0.05 m/s; cancelled by a teleport without by_force. */
Test (phys_field, ball_by_force_mover)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (&cfg);
    phys_ball_teleport_t b = { .has_x = true, .has_y = true, .x = 1.1, .y = 0, .by_force = true };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
    for (int k = 0; k < 3000; k++)
        phys_world_step (w);
    sim_ball_state_t s;
    phys_world_ball (w, &s);
    cr_expect_lt (hypot (s.x - 1.1, s.y), 0.02, "at %g", s.x);
    cr_expect_lt (hypot (s.vx, s.vy), 0.05);
    /* a by_force request without a position cancels the mover */
    b = (phys_ball_teleport_t) { .by_force = true };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
    phys_ball_teleport_t v = { .has_vx = true, .has_vy = true, .vx = -1, .roll = true };
    phys_world_teleport_ball (w, &v);
    for (int k = 0; k < 500; k++)
        phys_world_step (w);
    phys_world_ball (w, &s);
    cr_expect_lt (s.x, 0.8, "rolls away freely: %g", s.x);
    phys_world_destroy (&w);
}

/* A spec change keeps the robot's holding-budget deviation (§9.7). */
Test (phys_field, hold_budget_deviation_kept)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 3;
    phys_world_t *w = sim_fc_world_new (&cfg);
    double before = phys_world_robot_hold_accel (w, SIM_TEAM_YELLOW, 2);
    phys_spec_update_t u = { .mask = PHYS_SPEC_ALL, .v = *phys_world_team_specs (w, 1) };
    u.v.dribbler.hold_accel = 4.0;
    cr_assert_eq (phys_world_update_specs (w, SIM_TEAM_YELLOW, 2, &u, NULL, 0), PHYS_OK);
    double after = phys_world_robot_hold_accel (w, SIM_TEAM_YELLOW, 2);
    double expect = fmax (4.0 + (before - 3.0), 1.5);
    cr_expect_float_eq (after, expect, 1e-12);
    phys_world_destroy (&w);
}
