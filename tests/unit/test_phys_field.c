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

/* The 2026 Division A field (SSL rules, "Field Surface", 2026-02-25):
   0.3 m of margin along the touch lines, 0.6 m behind the goal lines,
   the walls where the margin ends and the goal side walls running back
   to the goal-line walls. */
Test (phys_field, wall_list_div_a)
{
    phys_geom_t g = s_geom (SIM_DIVISION_A);
    const phys_wall_t *w = g.walls;
    /* +y board, -y board: 0.3 m off the touch lines, as long as the
       goal-line boards are apart */
    cr_expect_float_eq (w[0].ay, 4.8, 1e-12);
    cr_expect_float_eq (w[0].ax, -6.6, 1e-12);
    cr_expect_float_eq (w[0].bx, 6.6, 1e-12);
    cr_expect_eq (w[0].ny, -1);
    cr_expect_eq (w[1].ny, 1);
    /* goal-line boards: s = -1 lower, upper; s = +1 lower, upper */
    cr_expect_float_eq (w[2].ax, -6.6, 1e-12);
    cr_expect_float_eq (w[2].ay, -4.8, 1e-12);
    cr_expect_float_eq (w[2].by, -0.9, 1e-12);
    cr_expect_eq (w[2].nx, 1);
    cr_expect_float_eq (w[3].ay, 0.9, 1e-12);
    cr_expect_float_eq (w[4].ax, 6.6, 1e-12);
    cr_expect_eq (w[4].nx, -1);
    /* posts of the -x goal: sy = -1 twice (normals +y then -y), ...,
       from the goal line back to the goal-line board */
    cr_expect_float_eq (w[6].ay, -0.91, 1e-12);
    cr_expect_float_eq (w[6].ax, -6.0, 1e-12);
    cr_expect_float_eq (w[6].bx, -6.6, 1e-12);
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
    cr_expect_float_eq (g.room_hx, 7.78, 1e-12);
    cr_expect_float_eq (g.room_hy, 5.80, 1e-12);
    cr_expect_float_eq (g.inner_x, 6.0, 1e-12);
    cr_expect_float_eq (g.inner_y, 4.8, 1e-12);
}

/* Division B keeps 0.3 m all round; only the goal side walls now run
   back to the boards (the same rule), 0.12 m past the back plate. */
Test (phys_field, wall_list_div_b)
{
    phys_geom_t b = s_geom (SIM_DIVISION_B);
    const phys_wall_t *w = b.walls;
    cr_expect_float_eq (w[0].ay, 3.3, 1e-12);
    cr_expect_float_eq (w[0].ax, -4.8, 1e-12);
    cr_expect_float_eq (w[0].bx, 4.8, 1e-12);
    cr_expect_float_eq (w[2].ax, -4.8, 1e-12);
    cr_expect_float_eq (w[5].ax, 4.8, 1e-12);
    cr_expect_float_eq (w[6].ax, -4.5, 1e-12);
    cr_expect_float_eq (w[6].bx, -4.8, 1e-12);
    cr_expect_float_eq (w[10].ax, -4.68, 1e-12);
    cr_expect_float_eq (b.room_hx, 5.98, 1e-12);
    cr_expect_float_eq (b.room_hy, 4.30, 1e-12);
}

/* Every size stays the user's: a configured goal-line margin moves the
   boards (and the side walls with them); 0 there means "as along the
   touch lines"; a margin shallower than the goal leaves the side walls
   at the goal's depth. */
Test (phys_field, goal_line_margin_is_configurable)
{
    sim_field_t f;
    sim_field_division (SIM_DIVISION_A, &f);
    f.boundary_width_goal_line = 0.45;
    phys_geom_t g;
    phys_geom_build (&g, &f, 0.10);
    cr_expect_float_eq (g.walls[2].ax, -6.45, 1e-12);
    cr_expect_float_eq (g.walls[6].bx, -6.45, 1e-12);
    cr_expect_float_eq (g.walls[0].bx, 6.45, 1e-12);
    f.boundary_width_goal_line = 0;
    f.boundary_width = 0.25;
    phys_geom_build (&g, &f, 0.10);
    cr_expect_float_eq (sim_field_goal_line_margin (&f), 0.25, 1e-12);
    cr_expect_float_eq (g.walls[4].ax, 6.25, 1e-12);
    cr_expect_float_eq (g.walls[0].ay, 4.75, 1e-12);
    f.boundary_width_goal_line = 0.1;
    phys_geom_build (&g, &f, 0.10);
    cr_expect_float_eq (g.walls[4].ax, 6.1, 1e-12);
    cr_expect_float_eq (g.walls[12].bx, 6.18, 1e-12);
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

/* Blue robot 3 put at (x, y) (created if absent) and driven at (vx, vy)
   for `substeps`, the command renewed before it times out; its state. */
static sim_robot_state_t
s_drive (phys_world_t *w, double x, double y, double vx, double vy, int substeps)
{
    phys_robot_teleport_t t = { .team = SIM_TEAM_BLUE,
                                .id = 3,
                                .has_x = true,
                                .has_y = true,
                                .x = x,
                                .y = y,
                                .has_present = true,
                                .present = true };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { vx, vy, 0 } };
    for (int k = 0; k < substeps; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 3, &c);
        phys_world_step (w);
    }
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, 3, &r), 0);
    return r;
}

static phys_world_t *
s_empty_world (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    return w;
}

/* A robot driven into a board stops at its radius; one pushed past the
   boards is held by the room box. */
Test (phys_field, robot_against_board_and_room)
{
    phys_world_t *w = s_empty_world ();
    sim_robot_state_t r = s_drive (w, 1, 4.0, 0, 2, 2000);
    cr_expect_float_eq (r.y, 4.8 - 0.09, 1e-3, "stopped at %g", r.y);
    /* beyond the goal-line opening: the room clamps it */
    r = s_drive (w, 7.0, 0.0, 2, 0, 2000);
    cr_expect_float_eq (r.x, 7.78 - 0.09, 1e-9);
    phys_world_destroy (&w);
}

/* Division A (rules of 2026-02-25): a robot drives from the field over
   the goal line into the goal substitution area, 0.3 m to 0.6 m behind
   its goal line beside the goal, and stops at the wall where the margin
   ends. */
Test (phys_field, robot_reaches_the_goal_substitution_area)
{
    phys_world_t *w = s_empty_world ();
    sim_robot_state_t r = s_drive (w, -5.0, 2.0, -1.5, 0, 3000);
    /* its centre 0.3 m + one radius behind the line is in the area */
    cr_expect_lt (r.x, -6.0 - 0.3 - 0.09, "in the substitution area: x %g", r.x);
    cr_expect_float_eq (r.x, -6.6 + 0.09, 1e-3, "stopped at the wall: x %g", r.x);
    phys_world_destroy (&w);
}

/* The goal side walls run back to the goal-line board (rules, "Goals",
   2026): a ball rolling along behind the goal line, outside the goal,
   bounces off the side wall instead of passing behind the goal (the gap
   the reference leaves between back plate and board is closed). */
Test (phys_field, ball_stopped_by_the_side_wall_behind_the_goal)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (&cfg);
    phys_ball_teleport_t b = { .has_x = true,
                               .has_y = true,
                               .x = 6.4,
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
    cr_expect_lt (s.y, -0.91, "kept out from behind the goal: y %g", s.y);
    cr_expect_gt (s.x, 6.0, "still behind the goal line: x %g", s.x);
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
