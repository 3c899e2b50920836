/*  test_phys_robot.c - wheel kinematics, firmware limiter, the wheels and
    ideal drive models, command timeout, the by_force mover and spec
    validation (physics.md §6).
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_robot.h"
#include "engine/physics/phys_world.h"
#include "tests/support/sim_from_config.h"

static sim_robot_specs_t
s_default_specs (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    return cfg.team[SIM_TEAM_BLUE];
}

static phys_world_t *
s_world (sim_drive_model_t model)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    cfg.team[0].drive.model = model;
    cfg.team[1].drive.model = model;
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    phys_robot_teleport_t t = { .team = SIM_TEAM_BLUE,
                                .id = 0,
                                .has_x = true,
                                .has_y = true,
                                .x = -1,
                                .y = 0,
                                .has_present = true,
                                .present = true };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    return w;
}

static void
s_cmd (phys_world_t *w, phys_move_t move, double a, double b, double c)
{
    phys_command_t cmd = { .move = move, .v = { a, b, c } };
    cr_assert_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &cmd), PHYS_OK);
}

static sim_robot_state_t
s_robot (phys_world_t *w)
{
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, 0, &r), 0);
    return r;
}

/* Local velocity of the robot. */
static void
s_local (const sim_robot_state_t *r, double *vx, double *vy)
{
    double c = cos (r->orientation), s = sin (r->orientation);
    *vx = c * r->vx + s * r->vy;
    *vy = -s * r->vx + c * r->vy;
}

Test (phys_robot, wheel_ik_fk_round_trip)
{
    sim_robot_specs_t s = s_default_specs ();
    phys_wheels_t w;
    phys_wheels_init (&w, &s);
    const double tw[][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 5 }, { 1.3, -0.7, 2.1 }, { -2.5, 0.4, -9 } };
    for (size_t i = 0; i < sizeof tw / sizeof tw[0]; i++) {
        double u[4], vx, vy, om;
        phys_wheels_ik (&w, tw[i][0], tw[i][1], tw[i][2], u);
        cr_assert_eq (phys_wheels_fk (&w, u, &vx, &vy, &om), 0);
        cr_expect_float_eq (vx, tw[i][0], 1e-9);
        cr_expect_float_eq (vy, tw[i][1], 1e-9);
        cr_expect_float_eq (om, tw[i][2], 1e-9);
    }
    double u[4];
    phys_wheels_ik (&w, 1, 0, 0, u);
    cr_expect_gt (u[0], 0, "forward spins front_right positively");
    cr_expect_lt (u[3], 0, "and front_left negatively");
    phys_wheels_ik (&w, 0, 0, 2, u);
    for (int i = 0; i < 4; i++)
        cr_expect_float_eq (u[i], 0.0875 * 2, 1e-12);
    /* all wheels on one axis: singular */
    s.wheel_angles = (sim_wheel_angles_t) { 0, 0, 0, 0 };
    phys_wheels_init (&w, &s);
    double vx, vy, om;
    cr_expect_eq (phys_wheels_fk (&w, u, &vx, &vy, &om), -1);
    cr_expect_eq (vx, 0);
}

Test (phys_robot, limiter_ramp_and_brake)
{
    sim_robot_specs_t s = s_default_specs ();
    double sp[3] = { 0 }, target[3] = { 3, 0, 0 };
    int n = 0;
    while (sp[0] < 3 && n < 10000) {
        phys_limiter_step (&s, sp, target, 0.001);
        n++;
    }
    cr_expect (abs (n - 857) <= 2, "0 -> 3 m/s took %d substeps", n);
    double zero[3] = { 0 };
    double before = sp[0];
    phys_limiter_step (&s, sp, zero, 0.001);
    cr_expect_float_eq (before - sp[0], 0.005, 1e-12);
    /* clamps */
    double big[3] = { 10, 0, 100 };
    for (int i = 0; i < 5000; i++)
        phys_limiter_step (&s, sp, big, 0.001);
    cr_expect_float_eq (sp[0], 3.0, 1e-12);
    cr_expect_float_eq (sp[2], 12.0, 1e-12);
}

/* Ideal mode: commanded velocity reached within 0.02 m/s and the path
   within 0.05 m of the limiter's ideal ramp over 1.8 s. */
Test (phys_robot, ideal_velocity_tracking)
{
    phys_world_t *w = s_world (SIM_DRIVE_IDEAL);
    double vx = 1.2, vy = -0.9, v = hypot (vx, vy);
    double x = -1, y = 0, speed = 0, max_err = 0;
    for (int k = 0; k < 1800; k++) {
        if (k % 50 == 0)
            s_cmd (w, PHYS_MOVE_GLOBAL, vx, vy, 0);
        phys_world_step (w);
        speed = speed + 3.5 * 0.001 < v ? speed + 3.5 * 0.001 : v;
        x += speed * vx / v * 0.001;
        y += speed * vy / v * 0.001;
        sim_robot_state_t r = s_robot (w);
        double e = hypot (r.x - x, r.y - y);
        max_err = e > max_err ? e : max_err;
    }
    sim_robot_state_t r = s_robot (w);
    cr_expect_lt (fabs (r.vx - vx), 0.02);
    cr_expect_lt (fabs (r.vy - vy), 0.02);
    cr_expect_lt (max_err, 0.05, "position error %g", max_err);
    phys_world_destroy (&w);
}

/* Wheels mode: 1 m/s forward settles within 0.02 m/s at most 0.1 s after
   the limiter's 1/3.5 s ramp, no overshoot above 0.5 %. */
Test (phys_robot, wheels_forward_step)
{
    phys_world_t *w = s_world (SIM_DRIVE_WHEELS);
    double peak = 0;
    int settled_at = -1;
    for (int k = 0; k < 1000; k++) {
        if (k % 50 == 0)
            s_cmd (w, PHYS_MOVE_LOCAL, 1, 0, 0);
        phys_world_step (w);
        sim_robot_state_t r = s_robot (w);
        double lx, ly;
        s_local (&r, &lx, &ly);
        peak = lx > peak ? lx : peak;
        if (fabs (lx - 1) < 0.02) {
            if (settled_at < 0)
                settled_at = k + 1;
        } else if (k > 300)
            settled_at = -1;
    }
    cr_expect (settled_at > 0 && settled_at <= 286 + 100, "settled at %d", settled_at);
    cr_expect_leq (peak, 1.005, "overshoot: peak %g", peak);
    phys_world_destroy (&w);
}

Test (phys_robot, wheels_sideways_and_turn)
{
    phys_world_t *w = s_world (SIM_DRIVE_WHEELS);
    for (int k = 0; k < 300; k++) {
        if (k % 50 == 0)
            s_cmd (w, PHYS_MOVE_LOCAL, 0, 0.5, 0);
        phys_world_step (w);
    }
    sim_robot_state_t r = s_robot (w);
    double lx, ly;
    s_local (&r, &lx, &ly);
    cr_expect_lt (fabs (ly - 0.5), 0.02, "sideways %g", ly);
    phys_world_destroy (&w);

    w = s_world (SIM_DRIVE_WHEELS);
    for (int k = 0; k < 300; k++) {
        if (k % 50 == 0)
            s_cmd (w, PHYS_MOVE_LOCAL, 0, 0, 5);
        phys_world_step (w);
    }
    r = s_robot (w);
    cr_expect_lt (fabs (r.omega - 5), 0.1, "omega %g", r.omega);
    phys_world_destroy (&w);
}

/* Without a limiter a 4 m/s sideways demand accelerates no faster than the
   traction bound Σ|cos φ_i|·F_t/m. */
Test (phys_robot, traction_bound)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 1;
    cfg.team[0].limits.acc_speedup_absolute_max = 1000;
    cfg.team[0].limits.vel_absolute_max = 10;
    cfg.team[0].drive.max_wheel_force = 100;
    cfg.team[0].drive.velocity_gain = 1000;
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    const sim_robot_specs_t *s = phys_world_team_specs (w, SIM_TEAM_BLUE);
    double Ft = s->drive.mu_drive * s->mass * 9.81 / 4;
    double sumc = fabs (cos (s->wheel_angles.front_right)) + fabs (cos (s->wheel_angles.back_right))
                + fabs (cos (s->wheel_angles.back_left)) + fabs (cos (s->wheel_angles.front_left));
    double bound = sumc * Ft / s->mass;
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 0, 4, 0 } };
    phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
    sim_robot_state_t prev;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &prev);
    for (int k = 0; k < 80; k++) {
        phys_world_step (w);
        sim_robot_state_t r;
        phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
        double a = hypot (r.vx - prev.vx, r.vy - prev.vy) / 0.001;
        cr_expect_leq (a, bound + 1e-9, "accel %g > bound %g", a, bound);
        prev = r;
    }
    cr_expect_gt (hypot (prev.vx, prev.vy), 0.5 * bound * 0.08);
    phys_world_destroy (&w);
}

/* Wheel-speed commands become a twist through the least-squares FK. */
Test (phys_robot, wheel_commands_drive)
{
    phys_world_t *w = s_world (SIM_DRIVE_IDEAL);
    const sim_robot_specs_t *s = phys_world_team_specs (w, SIM_TEAM_BLUE);
    phys_wheels_t wh;
    phys_wheels_init (&wh, s);
    phys_command_t c = { .move = PHYS_MOVE_WHEELS };
    phys_wheels_ik (&wh, 0.5, 0.25, 0, c.v);
    for (int k = 0; k < 600; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
    }
    sim_robot_state_t r = s_robot (w);
    cr_expect_float_eq (r.vx, 0.5, 1e-9);
    cr_expect_float_eq (r.vy, 0.25, 1e-9);
    phys_world_destroy (&w);
}

/* After command_timeout the setpoint coasts to zero at coast_decel. */
Test (phys_robot, command_timeout_coasts)
{
    phys_world_t *w = s_world (SIM_DRIVE_IDEAL);
    s_cmd (w, PHYS_MOVE_LOCAL, 0.5, 0, 0);
    for (int k = 0; k < 100; k++)
        phys_world_step (w);
    sim_robot_state_t r = s_robot (w);
    cr_expect_float_eq (r.vx, 0.35, 1e-9, "100 ms of 3.5 m/s² ramp: %g", r.vx);
    phys_world_step (w); /* t - command_time = 0.1 s: not yet timed out */
    r = s_robot (w);
    cr_expect_float_eq (r.vx, 0.3535, 1e-9);
    phys_world_step (w); /* timed out: coast at 8 m/s² */
    r = s_robot (w);
    cr_expect_float_eq (r.vx, 0.3535 - 0.008, 1e-9);
    for (int k = 0; k < 100; k++)
        phys_world_step (w);
    r = s_robot (w);
    cr_expect_eq (r.vx, 0);
    phys_world_destroy (&w);
}

/* by_force converges within 0.01 m of a target 1 m away in 3 s without
   overshooting more than 1 mm, final speed < 0.05 m/s. */
Test (phys_robot, by_force_mover)
{
    for (int m = 0; m < 2; m++) {
        phys_world_t *w = s_world (m ? SIM_DRIVE_IDEAL : SIM_DRIVE_WHEELS);
        phys_robot_teleport_t t = {
            .team = SIM_TEAM_BLUE, .id = 0, .has_x = true, .has_y = true, .x = 0, .y = 0, .by_force = true
        };
        cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
        double maxx = -10;
        for (int k = 0; k < 3000; k++) {
            phys_world_step (w);
            sim_robot_state_t r = s_robot (w);
            maxx = r.x > maxx ? r.x : maxx;
        }
        sim_robot_state_t r = s_robot (w);
        cr_expect_lt (hypot (r.x, r.y), 0.01, "model %d at %g", m, r.x);
        cr_expect_leq (maxx, 0.001);
        cr_expect_lt (hypot (r.vx, r.vy), 0.05);
        phys_world_destroy (&w);
    }
}

Test (phys_robot, spec_validation)
{
    sim_robot_specs_t s = s_default_specs ();
    cr_expect_eq (phys_specs_validate (&s), 0);
    cr_expect_float_eq (phys_specs_inertia (&s), 0.010125, 1e-12);
    sim_robot_specs_t b = s;
    b.radius = 0.02;
    cr_expect_eq (phys_specs_validate (&b), -1);
    b = s;
    b.mass = 0.1;
    cr_expect_eq (phys_specs_validate (&b), -1);
    b = s;
    b.center_to_dribbler = 0.09;
    cr_expect_eq (phys_specs_validate (&b), -1);
    b = s;
    b.limits.vel_angular_max = 0;
    cr_expect_eq (phys_specs_validate (&b), -1);
    b = s;
    b.wheel_angles.back_left = NAN;
    cr_expect_eq (phys_specs_validate (&b), -1);
    b = s;
    b.dribbler_width = INFINITY;
    cr_expect_eq (phys_specs_validate (&b), -1);
}
