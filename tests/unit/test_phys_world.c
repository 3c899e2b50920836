/*  test_phys_world.c - world lifecycle, formations, snapshots, teleports,
    commands, spec updates, bad input and the state hash (physics.md §4,
    §10, §11; protocol.md §4.2-§4.3).
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "common/base/sim_rng.h"
#include "tests/support/sim_from_config.h"

static phys_world_t *
s_world (int robots)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = robots;
    return sim_fc_world_new (&cfg);
}

static void
s_steps (phys_world_t *w, int n)
{
    for (int i = 0; i < n; i++)
        phys_world_step (w);
}

Test (phys_world, new_destroy_twice)
{
    phys_world_t *w = s_world (11);
    cr_assert_not_null (w);
    cr_expect_eq (phys_world_robot_count (w), 22);
    cr_expect_eq (phys_world_dt_ns (w), 1000000);
    phys_world_destroy (&w);
    cr_expect_null (w);
    phys_world_destroy (&w);
}

Test (phys_world, invalid_config_gives_null)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.substep = NAN;
    cr_expect_null (sim_fc_world_new (&cfg));
    sim_config_defaults (&cfg);
    cfg.team[1].center_to_dribbler = 0.2;
    cr_expect_null (sim_fc_world_new (&cfg));
    sim_config_defaults (&cfg);
    cfg.ball.radius = -1;
    cr_expect_null (sim_fc_world_new (&cfg));
}

Test (phys_world, formations_div_a)
{
    phys_world_t *w = s_world (16);
    sim_snapshot_t s;
    phys_world_snapshot (w, &s);
    cr_assert_eq (s.robot_count, 32);
    /* order: blue 0..15 then yellow 0..15 */
    for (int k = 0; k < 16; k++) {
        cr_expect_eq (s.robots[k].team, SIM_TEAM_BLUE);
        cr_expect_eq (s.robots[k].id, k);
        cr_expect_eq (s.robots[16 + k].team, SIM_TEAM_YELLOW);
        cr_expect_float_eq (s.robots[16 + k].x, -s.robots[k].x, 1e-12);
        cr_expect_float_eq (s.robots[16 + k].y, s.robots[k].y, 1e-12);
        cr_expect_float_eq (s.robots[16 + k].orientation, M_PI, 1e-12);
        cr_expect_float_eq (s.robots[k].radius, 0.09, 1e-12);
        cr_expect_float_eq (s.robots[k].height, 0.15, 1e-12);
    }
    cr_expect_float_eq (s.robots[0].x, -5.7, 1e-12);
    cr_expect_float_eq (s.robots[5].x, -4.0, 1e-12);
    cr_expect_float_eq (s.robots[5].y, -2.0, 1e-12);
    for (int a = 0; a < 32; a++)
        for (int b = a + 1; b < 32; b++)
            cr_expect_geq (hypot (s.robots[a].x - s.robots[b].x, s.robots[a].y - s.robots[b].y),
                           0.25 - 1e-12);
    cr_expect_float_eq (s.ball.z, 0.0215, 1e-12);
    phys_world_destroy (&w);
}

Test (phys_world, formations_clamp_and_div_b)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.division = SIM_DIVISION_B;
    cfg.sim.initial_robots_per_team = 40;
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    cr_expect_eq (phys_world_robot_count (w), 32);
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, 0, &r), 0);
    cr_expect_float_eq (r.x, -4.2, 1e-12);
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, 2, &r), 0);
    cr_expect_float_eq (r.x, -3.0, 1e-12);
    cr_expect_float_eq (r.y, 1.0 * 3.0 / 4.5, 1e-12);
    phys_world_destroy (&w);
}

Test (phys_world, clock_advances)
{
    phys_world_t *w = s_world (2);
    s_steps (w, 250);
    cr_expect_eq (phys_world_time_ns (w), 250000000ull);
    cr_expect_eq (phys_world_frame (w), 250ull);
    phys_world_destroy (&w);
}

Test (phys_world, ball_teleport_within_1cm)
{
    phys_world_t *w = s_world (0);
    phys_ball_teleport_t t = { .has_x = true, .has_y = true, .x = 1.25, .y = -0.75 };
    cr_assert_eq (phys_world_teleport_ball (w, &t), PHYS_OK);
    phys_world_step (w);
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    cr_expect_lt (hypot (b.x - 1.25, b.y + 0.75), 0.01);
    cr_expect_float_eq (b.z, 0.0215, 1e-12);
    phys_world_destroy (&w);
}

Test (phys_world, ball_teleport_errors_leave_world_unchanged)
{
    phys_world_t *w = s_world (3);
    uint64_t h = phys_world_hash (w);
    phys_ball_teleport_t t = { .has_x = true, .x = 1 };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_PARTIAL_COORD);
    t = (phys_ball_teleport_t) { .has_z = true, .z = 1 };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_PARTIAL_COORD);
    t = (phys_ball_teleport_t) { .has_vx = true, .has_vy = true, .vx = 1, .by_force = true };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_VELOCITY_FORCE);
    t = (phys_ball_teleport_t) { .teleport_safely = true };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_TELEPORT_SAFELY_PARTIAL);
    t = (phys_ball_teleport_t) { .has_x = true, .has_y = true, .x = NAN, .y = 0 };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_UNSUPPORTED);
    t = (phys_ball_teleport_t) { .has_vx = true, .has_vy = true, .vx = INFINITY, .vy = 0 };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_UNSUPPORTED);
    cr_expect_eq (phys_world_hash (w), h);
    phys_world_destroy (&w);
}

Test (phys_world, robot_teleport_create_remove)
{
    phys_world_t *w = s_world (1);
    phys_robot_teleport_t t = {
        .team = SIM_TEAM_YELLOW, .id = 200, .has_x = true, .has_y = true, .x = 1, .y = 2
    };
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_ERR_UNKNOWN_ROBOT);
    t.has_present = true;
    t.present = true;
    t.has_x = t.has_y = false;
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_ERR_CREATE_NOPOS_ROBOT);
    t.has_x = t.has_y = true;
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    cr_expect_eq (phys_world_robot_count (w), 3);
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_YELLOW, 200, &r), 0);
    cr_expect_float_eq (r.x, 1, 1e-12);
    cr_expect_float_eq (r.orientation, 0, 1e-12);
    sim_snapshot_t s;
    phys_world_snapshot (w, &s);
    cr_expect_eq (s.robots[2].id, 200);
    t = (phys_robot_teleport_t) { .team = SIM_TEAM_YELLOW, .id = 200, .has_present = true, .present = false };
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    cr_expect_eq (phys_world_robot_count (w), 2);
    t.id = 256;
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_ERR_UNSUPPORTED);
    phys_world_destroy (&w);
}

Test (phys_world, robot_teleport_pose_within_1cm)
{
    phys_world_t *w = s_world (2);
    phys_robot_teleport_t t = { .team = SIM_TEAM_BLUE,
                                .id = 1,
                                .has_x = true,
                                .has_y = true,
                                .has_orientation = true,
                                .x = 0.5,
                                .y = 1.5,
                                .orientation = 1.0 };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    phys_world_step (w);
    sim_robot_state_t r;
    phys_world_robot (w, SIM_TEAM_BLUE, 1, &r);
    cr_expect_lt (hypot (r.x - 0.5, r.y - 1.5), 0.01);
    cr_expect_lt (fabs (r.orientation - 1.0), 0.01);
    /* position only: orientation kept (no PARTIAL_COORD) */
    t = (phys_robot_teleport_t) {
        .team = SIM_TEAM_BLUE, .id = 1, .has_x = true, .has_y = true, .x = -0.5, .y = -1.5
    };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    phys_world_robot (w, SIM_TEAM_BLUE, 1, &r);
    cr_expect_float_eq (r.orientation, 1.0, 1e-12);
    t.has_y = false;
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_ERR_PARTIAL_COORD);
    t = (phys_robot_teleport_t) { .team = SIM_TEAM_BLUE,
                                  .id = 1,
                                  .has_vx = true,
                                  .has_vy = true,
                                  .vx = 1,
                                  .has_x = true,
                                  .has_y = true,
                                  .by_force = true };
    cr_expect_eq (phys_world_teleport_robot (w, &t), PHYS_ERR_VELOCITY_FORCE);
    phys_world_destroy (&w);
}

Test (phys_world, command_bad_input)
{
    phys_world_t *w = s_world (2);
    uint64_t h = phys_world_hash (w);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { NAN, 0, 0 } };
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_ERR_UNSUPPORTED);
    c = (phys_command_t) { .move = PHYS_MOVE_LOCAL, .kick_speed = INFINITY };
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_ERR_UNSUPPORTED);
    c = (phys_command_t) { .move = PHYS_MOVE_LOCAL, .v = { 1, 0, 0 } };
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 5, &c), PHYS_ERR_UNKNOWN_ROBOT);
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 300, &c), PHYS_ERR_UNKNOWN_ROBOT);
    cr_expect_eq (phys_world_command (w, (sim_team_t) 7, 0, &c), PHYS_ERR_UNKNOWN_ROBOT);
    cr_expect_eq (phys_world_hash (w), h);
    cr_expect_eq (phys_world_ball_contact (w, SIM_TEAM_BLUE, 9), -1);
    cr_expect_str_eq (phys_err_code (PHYS_ERR_PARTIAL_COORD), "PARTIAL_COORD");
    cr_expect_str_eq (phys_err_code (PHYS_OK), "");
    phys_world_destroy (&w);
}

Test (phys_world, spec_update_partial_and_invalid)
{
    phys_world_t *w = s_world (1);
    phys_spec_update_t u = { .mask = PHYS_SPEC_RADIUS };
    u.v.radius = 0.085;
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, 0, &u, NULL, 0), PHYS_OK);
    cr_expect_float_eq (phys_world_robot_specs (w, SIM_TEAM_BLUE, 0)->radius, 0.085, 1e-12);
    cr_expect_float_eq (phys_world_team_specs (w, SIM_TEAM_BLUE)->radius, 0.085, 1e-12);
    cr_expect_float_eq (phys_world_robot_specs (w, SIM_TEAM_BLUE, 0)->height, 0.15, 1e-12);
    cr_expect_float_eq (phys_world_team_specs (w, SIM_TEAM_YELLOW)->radius, 0.09, 1e-12);
    u.v.radius = 0.01;
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, 0, &u, NULL, 0), PHYS_ERR_INVALID_SPEC);
    u.v.radius = NAN;
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, 7, &u, NULL, 0), PHYS_ERR_INVALID_SPEC);
    cr_expect_float_eq (phys_world_robot_specs (w, SIM_TEAM_BLUE, 0)->radius, 0.085, 1e-12);
    cr_expect_float_eq (phys_world_team_specs (w, SIM_TEAM_BLUE)->radius, 0.085, 1e-12);
    u = (phys_spec_update_t) { .mask = PHYS_SPEC_CENTER_TO_DRIBBLER };
    u.v.center_to_dribbler = 0.1; /* >= radius */
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_YELLOW, 0, &u, NULL, 0), PHYS_ERR_INVALID_SPEC);
    phys_world_destroy (&w);
}

Test (phys_world, dup_and_hash_determinism)
{
    phys_world_t *a = s_world (6);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 1, 0.2, 1 } };
    phys_world_command (a, SIM_TEAM_BLUE, 3, &c);
    s_steps (a, 50);
    phys_world_t *b = phys_world_dup (a);
    cr_assert_not_null (b);
    s_steps (a, 500);
    s_steps (b, 500);
    cr_expect_eq (phys_world_hash (a), phys_world_hash (b));
    phys_world_destroy (&a);
    phys_world_destroy (&b);
}

Test (phys_world, huge_values_refused)
{
    phys_world_t *w = s_world (2);
    uint64_t h = phys_world_hash (w);
    phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { 1e300, 0, 0 } };
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_ERR_UNSUPPORTED);
    c = (phys_command_t) { .move = (phys_move_t) 99 };
    cr_expect_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_ERR_UNSUPPORTED);
    phys_ball_teleport_t t = { .has_x = true, .has_y = true, .x = 1e200, .y = 0 };
    cr_expect_eq (phys_world_teleport_ball (w, &t), PHYS_ERR_UNSUPPORTED);
    phys_robot_teleport_t r = { .team = SIM_TEAM_BLUE, .id = 0, .has_omega = true, .omega = -1e9 };
    cr_expect_eq (phys_world_teleport_robot (w, &r), PHYS_ERR_UNSUPPORTED);
    phys_spec_update_t u = { .mask = PHYS_SPEC_MASS };
    u.v.mass = 1e300;
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, 0, &u, NULL, 0), PHYS_ERR_INVALID_SPEC);
    cr_expect_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, 256, &u, NULL, 0), PHYS_ERR_UNSUPPORTED);
    phys_realism_def_t re = { .kick_direction_stddev = NAN };
    phys_world_set_realism (w, &re);
    cr_expect_eq (phys_world_hash (w), h);
    phys_world_destroy (&w);
}

/* Random garbage through every entry point never crashes and never
   leaves a non-finite value in the world. */
Test (phys_world, garbage_input_keeps_world_finite)
{
    phys_world_t *w = s_world (4);
    sim_rng_t rng;
    sim_rng_seed (&rng, 99, 1);
    const double pool[] = { 0,   1,   -1,       0.05,      3,      -7,     1e5, -1e6,
                            1e7, NAN, INFINITY, -INFINITY, 1e-300, 0.0965, 6.0, -4.5 };
    const int np = sizeof pool / sizeof pool[0];
#define S_PICK (pool[sim_rng_next (&rng) % (uint64_t) np])
#define S_BIT  (sim_rng_next (&rng) & 1)
    for (int i = 0; i < 4000; i++) {
        unsigned id = (unsigned) (sim_rng_next (&rng) % 6);
        sim_team_t team = (sim_team_t) (sim_rng_next (&rng) % 2);
        switch (sim_rng_next (&rng) % 4) {
        case 0: {
            phys_command_t c = { .move = (phys_move_t) (sim_rng_next (&rng) % 4),
                                 .v = { S_PICK, S_PICK, S_PICK, S_PICK },
                                 .kick_speed = S_PICK,
                                 .kick_angle_deg = S_PICK,
                                 .dribbler_rpm = S_PICK };
            phys_world_command (w, team, id, &c);
            break;
        }
        case 1: {
            phys_ball_teleport_t t = { S_BIT,  S_BIT,  S_BIT,  S_BIT,  S_BIT, S_BIT, S_PICK, S_PICK,
                                       S_PICK, S_PICK, S_PICK, S_PICK, S_BIT, S_BIT, S_BIT };
            phys_world_teleport_ball (w, &t);
            break;
        }
        case 2: {
            phys_robot_teleport_t t = { team,   id,     S_BIT,  S_BIT,  S_BIT,  S_BIT,  S_BIT, S_BIT, S_BIT,
                                        S_PICK, S_PICK, S_PICK, S_PICK, S_PICK, S_PICK, S_BIT, S_BIT };
            phys_world_teleport_robot (w, &t);
            break;
        }
        default: {
            phys_spec_update_t u = { .mask = sim_rng_next (&rng) };
            u.v = *phys_world_team_specs (w, team);
            u.v.radius = S_PICK;
            u.v.center_to_dribbler = S_PICK;
            u.v.mass = S_PICK;
            phys_world_update_specs (w, team, id, &u, NULL, 0);
            break;
        }
        }
        phys_world_step (w);
    }
#undef S_PICK
#undef S_BIT
    sim_snapshot_t s;
    phys_world_snapshot (w, &s);
    cr_expect (isfinite (s.ball.x) && isfinite (s.ball.y) && isfinite (s.ball.z) && isfinite (s.ball.vx)
               && isfinite (s.ball.spin_x));
    for (int i = 0; i < s.robot_count; i++)
        cr_expect (isfinite (s.robots[i].x) && isfinite (s.robots[i].vx) && isfinite (s.robots[i].orientation)
                   && isfinite (s.robots[i].omega));
    phys_world_destroy (&w);
}
