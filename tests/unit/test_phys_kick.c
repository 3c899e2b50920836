/*  test_phys_kick.c - kicker (physics.md §8) and dribbler (§9): kick speed
    and clamps, seeded kick errors, holding budgets, slip and release,
    seat tracking, catching, glue mode and the break-beam.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "tests/support/sim_from_config.h"

/* One blue robot at the origin facing +x, ball seated in front of it. */
static phys_world_t *
s_world_cfg (sim_config_t *cfg)
{
    cfg->sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (cfg);
    cr_assert_not_null (w);
    phys_robot_teleport_t t = {
        .team = SIM_TEAM_BLUE, .id = 0, .has_x = true, .has_y = true, .has_present = true, .present = true
    };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    return w;
}

static void
s_ball_at (phys_world_t *w, double x, double y, double vx, double vy)
{
    phys_ball_teleport_t b = {
        .has_x = true, .has_y = true, .x = x, .y = y, .has_vx = true, .has_vy = true, .vx = vx, .vy = vy
    };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
}

static void
s_no_errors (sim_config_t *cfg)
{
    cfg->realism.kick_direction_stddev = 0;
    cfg->realism.chip_angle_stddev = 0;
    cfg->realism.kick_speed_factor_stddev = 0;
}

/* Speed of the ball right after a kick command with the ball at c2d + r. */
static double
s_kick (phys_world_t *w, double speed, double angle, const phys_event_t **ev_out)
{
    const sim_robot_specs_t *s = phys_world_team_specs (w, SIM_TEAM_BLUE);
    s_ball_at (w, s->center_to_dribbler + 0.0215, 0, 0, 0);
    phys_command_t c = { .kick_speed = speed, .kick_angle_deg = angle };
    cr_assert_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_OK);
    phys_world_step (w);
    const phys_event_t *ev;
    int n = phys_world_events (w, &ev);
    cr_assert_eq (n, 1);
    cr_assert_eq (ev[0].kind, PHYS_EVENT_KICK);
    if (ev_out)
        *ev_out = ev;
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    return sqrt (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz);
}

Test (phys_kick, speed_within_10cm_per_s_and_clamps)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_no_errors (&cfg);
    cfg.team[0].kicker.max_linear_speed = 10;
    phys_world_t *w = s_world_cfg (&cfg);
    const double cmds[4] = { 2, 4, 6, 8 };
    for (int i = 0; i < 4; i++) {
        double v = s_kick (w, cmds[i], 0, NULL);
        cr_expect_lt (fabs (v - cmds[i]), 0.10, "commanded %g measured %g", cmds[i], v);
        for (int k = 0; k < 150; k++) /* recharge */
            phys_world_step (w);
    }
    phys_world_destroy (&w);

    sim_config_defaults (&cfg);
    s_no_errors (&cfg);
    w = s_world_cfg (&cfg);
    const phys_event_t *ev;
    s_kick (w, 13, 0, &ev);
    cr_expect_eq (ev[0].speed, 6.5, "13 m/s clamps exactly to max_linear_speed");
    for (int k = 0; k < 150; k++)
        phys_world_step (w);
    s_kick (w, 13, 45, &ev);
    cr_expect_eq (ev[0].speed, 5.5, "chips clamp to max_chip_speed");
    cr_expect_eq (ev[0].elevation_deg, 45);
    for (int k = 0; k < 150; k++)
        phys_world_step (w);
    s_kick (w, 0.001, 0, &ev);
    cr_expect_eq (ev[0].speed, 0.05, "lifted to min_speed");
    phys_world_destroy (&w);
}

Test (phys_kick, zone_charge_and_sticky_request)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_no_errors (&cfg);
    phys_world_t *w = s_world_cfg (&cfg);
    /* out of the zone: nothing */
    s_ball_at (w, 0.2, 0, 0, 0);
    phys_command_t c = { .kick_speed = 3 };
    phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
    phys_world_step (w);
    cr_expect_eq (phys_world_events (w, NULL), 0);
    /* into the zone: the old request still fires (not subject to timeout) */
    for (int k = 0; k < 300; k++)
        phys_world_step (w);
    s_ball_at (w, 0.1, 0.03, 0, 0);
    phys_world_step (w);
    const phys_event_t *ev;
    cr_expect_eq (phys_world_events (w, &ev), 1);
    /* not charged: back in the zone within 0.1 s gives no kick */
    s_ball_at (w, 0.1, 0, 0, 0);
    phys_world_step (w);
    cr_expect_eq (phys_world_events (w, NULL), 0);
    s_ball_at (w, 0.5, 0, 0, 0);
    for (int k = 0; k < 100; k++)
        phys_world_step (w);
    s_ball_at (w, 0.1, 0, 0, 0);
    phys_world_step (w);
    cr_expect_eq (phys_world_events (w, NULL), 1);
    /* a high ball (centre at 0.05 m) is not kicked */
    for (int k = 0; k < 150; k++)
        phys_world_step (w);
    phys_ball_teleport_t b = {
        .has_x = true, .has_y = true, .has_z = true, .x = 0.1, .z = 0.06, .has_vx = true, .has_vy = true
    };
    phys_world_teleport_ball (w, &b);
    phys_world_step (w);
    cr_expect_eq (phys_world_events (w, NULL), 0);
    phys_world_destroy (&w);
}

static double
s_sd (const double *v, int n)
{
    double m = 0, q = 0;
    for (int i = 0; i < n; i++)
        m += v[i];
    m /= n;
    for (int i = 0; i < n; i++)
        q += (v[i] - m) * (v[i] - m);
    return sqrt (q / (n - 1));
}

/* realistic preset: sample deviations within 15 % of the configured ones. */
Test (phys_kick, kick_error_statistics)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.team[0].kicker.charge_time = 0;
    cfg.team[0].kicker.max_linear_speed = 10;
    cfg.team[0].kicker.max_chip_speed = 10;
    phys_world_t *w = s_world_cfg (&cfg);
    enum { N = 2000 };
    static double dir[N], fac[N], elev[N];
    for (int i = 0; i < N; i++) {
        const phys_event_t *ev;
        bool chip = i % 2;
        s_kick (w, 4.0, chip ? 30 : 0, &ev);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        dir[i / 2 + (chip ? N / 2 : 0)] = atan2 (b.vy, b.vx);
        fac[i] = ev[0].speed / 4.0;
        if (chip)
            elev[i / 2] = ev[0].elevation_deg * M_PI / 180;
        phys_world_step (w);
    }
    const sim_realism_t *r = &cfg.realism;
    cr_expect_float_eq (s_sd (dir, N), r->kick_direction_stddev, 0.15 * r->kick_direction_stddev);
    cr_expect_float_eq (s_sd (fac, N), r->kick_speed_factor_stddev, 0.15 * r->kick_speed_factor_stddev);
    cr_expect_float_eq (s_sd (elev, N / 2), r->chip_angle_stddev, 0.15 * r->chip_angle_stddev);
    phys_world_destroy (&w);
}

/* With zero deviations nothing is drawn: a robot created after the kicks
   gets the same budget as in a world without kicks. */
Test (phys_kick, zero_sigma_draws_nothing)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_no_errors (&cfg);
    phys_world_t *a = s_world_cfg (&cfg);
    phys_world_t *b = s_world_cfg (&cfg);
    const phys_event_t *ev;
    s_kick (a, 3.3, 0, &ev);
    cr_expect_eq (ev[0].speed, 3.3);
    phys_robot_teleport_t t = { .team = SIM_TEAM_YELLOW,
                                .id = 4,
                                .has_x = true,
                                .has_y = true,
                                .x = 2,
                                .has_present = true,
                                .present = true };
    phys_world_teleport_robot (a, &t);
    phys_world_teleport_robot (b, &t);
    cr_expect_eq (phys_world_robot_hold_accel (a, SIM_TEAM_YELLOW, 4),
                  phys_world_robot_hold_accel (b, SIM_TEAM_YELLOW, 4));
    phys_world_destroy (&a);
    phys_world_destroy (&b);
}

Test (phys_kick, holding_budgets)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.seed = 3;
    cfg.sim.initial_robots_per_team = 6;
    phys_world_t *a = sim_fc_world_new (&cfg);
    phys_world_t *b = sim_fc_world_new (&cfg);
    double v[12];
    int distinct = 0;
    for (int i = 0; i < 12; i++) {
        v[i] = phys_world_robot_hold_accel (a, (sim_team_t) (i % 2), (unsigned) (i / 2));
        cr_expect_geq (v[i], cfg.team[0].dribbler.hold_accel_min);
        cr_expect_eq (v[i], phys_world_robot_hold_accel (b, (sim_team_t) (i % 2), (unsigned) (i / 2)));
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= v[j] == v[i];
        distinct += !seen;
    }
    cr_expect_geq (distinct, 10);
    phys_world_destroy (&a);
    phys_world_destroy (&b);
    /* stddev 0: every robot gets the mean */
    cfg.team[0].dribbler.hold_accel_stddev = 0;
    a = sim_fc_world_new (&cfg);
    cr_expect_eq (phys_world_robot_hold_accel (a, SIM_TEAM_BLUE, 5), 3.0);
    phys_world_destroy (&a);
}

/* Dribbling robot in ideal mode accelerating in local direction (dx, dy)
   at `acc` to 1 m/s; returns whether the ball stayed held all along. */
static bool
s_dribble_accel (double dx, double dy, double acc)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.team[0].dribbler.hold_accel_stddev = 0;
    cfg.team[0].drive.model = SIM_DRIVE_IDEAL;
    cfg.team[0].limits.acc_speedup_absolute_max = acc;
    phys_world_t *w = s_world_cfg (&cfg);
    s_ball_at (w, 0.0965, 0, 0, 0);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .dribbler_rpm = 10000 };
    for (int k = 0; k < 200; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
    }
    cr_assert (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0), "grabbed at rest");
    c.v[0] = dx;
    c.v[1] = dy;
    bool held = true;
    for (int k = 0; k < (int) (1000 / acc) + 100 && held; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
        held = phys_world_robot_holding (w, SIM_TEAM_BLUE, 0);
        const phys_event_t *ev;
        int n = phys_world_events (w, &ev);
        if (!held)
            cr_expect (n >= 1 && ev[n - 1].kind == PHYS_EVENT_DRIBBLER_SLIP, "slip event");
    }
    phys_world_destroy (&w);
    return held;
}

Test (phys_kick, dribbler_budget_keeps_and_loses)
{
    cr_expect (s_dribble_accel (0, 1, 2.0), "kept under 2 m/s² sideways");
    cr_expect (s_dribble_accel (-1, 0, 2.0), "kept under 2 m/s² pulling back");
    cr_expect_not (s_dribble_accel (0, 1, 5.0), "lost at 5 m/s² sideways");
    /* Pulling back, the held ball's back-spin (spin = s*, slip 1 m/s toward
       the robot) adds the carpet's sliding deceleration to the budget, so
       it takes more than |acc_slide| + budget = 6.3 m/s² to lose it. */
    cr_expect (s_dribble_accel (-1, 0, 5.0), "pulling back at 5 m/s² helped by back-spin");
    cr_expect_not (s_dribble_accel (-1, 0, 8.0), "lost at 8 m/s² pulling back");
    cr_expect (s_dribble_accel (1, 0, 10.0), "forward 10 m/s² never loses it");
}

/* A held ball tracks the seat within 2 mm at 1 m/s and 1 rad/s. */
Test (phys_kick, held_ball_tracks_seat)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.team[0].dribbler.hold_accel_stddev = 0;
    phys_world_t *w = s_world_cfg (&cfg);
    s_ball_at (w, 0.0965, 0, 0, 0);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 1, 0, 1 }, .dribbler_rpm = 10000 };
    double worst = 0;
    for (int k = 0; k < 3000; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
        if (k < 1000)
            continue;
        sim_robot_state_t r;
        sim_ball_state_t b;
        phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
        phys_world_ball (w, &b);
        double px = r.x + 0.0965 * cos (r.orientation), py = r.y + 0.0965 * sin (r.orientation);
        double e = hypot (b.x - px, b.y - py);
        worst = e > worst ? e : worst;
        cr_assert (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0));
    }
    cr_expect_lt (worst, 0.002, "seat error %g", worst);
    phys_world_destroy (&w);
}

/* A ball rolling at 1-2 m/s into the face of a robot dribbling at full
   speed ends held at the seat (3 mm, < 0.05 m/s). */
Test (phys_kick, rolling_ball_is_caught)
{
    for (double v = 1.0; v <= 2.0; v += 0.5) {
        sim_config_t cfg;
        sim_config_defaults (&cfg);
        cfg.team[0].dribbler.hold_accel_stddev = 0;
        phys_world_t *w = s_world_cfg (&cfg);
        phys_ball_teleport_t b = {
            .has_x = true, .has_y = true, .x = 0.6, .has_vx = true, .has_vy = true, .vx = -v, .roll = true
        };
        phys_world_teleport_ball (w, &b);
        phys_command_t c = { .move = PHYS_MOVE_LOCAL, .dribbler_rpm = 10000 };
        for (int k = 0; k < 1500; k++) {
            if (k % 50 == 0)
                phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
            phys_world_step (w);
        }
        sim_ball_state_t s;
        phys_world_ball (w, &s);
        cr_expect (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0), "held at %g m/s", v);
        cr_expect_lt (hypot (s.x - 0.0965, s.y), 0.003, "at %g m/s: %g %g", v, s.x, s.y);
        cr_expect_lt (hypot (s.vx, s.vy), 0.05);
        phys_world_destroy (&w);
    }
}

Test (phys_kick, glue_mode_and_realism_switch)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.realism.simulate_dribbling = false;
    phys_world_t *w = s_world_cfg (&cfg);
    cr_expect (phys_world_team_specs (w, SIM_TEAM_YELLOW)->dribbler.glue, "applied at startup");
    s_ball_at (w, 0.09, 0.02, 0, 0);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 0, 2, 3 }, .dribbler_rpm = 5000 };
    for (int k = 0; k < 500; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
    }
    sim_robot_state_t r;
    sim_ball_state_t b;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
    phys_world_ball (w, &b);
    /* glued to the seat, then carried one substep at the seat velocity */
    double tol = hypot (r.vx, r.vy) * 0.001 + fabs (r.omega) * 0.0965 * 0.001 + 1e-9;
    cr_expect_float_eq (b.x, r.x + 0.0965 * cos (r.orientation), tol);
    cr_expect_float_eq (b.y, r.y + 0.0965 * sin (r.orientation), tol);
    cr_expect_float_eq (b.z, 0.0215, 1e-12);
    phys_realism_def_t re;
    phys_realism_def_pick (&re, &cfg.realism);
    re.simulate_dribbling = true;
    phys_world_set_realism (w, &re);
    cr_expect_not (phys_world_robot_specs (w, SIM_TEAM_BLUE, 0)->dribbler.glue);
    cr_expect_not (phys_world_team_specs (w, SIM_TEAM_BLUE)->dribbler.glue);
    phys_world_destroy (&w);
}

Test (phys_kick, break_beam)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world_cfg (&cfg);
    s_ball_at (w, 0.0965, 0.0, 0, 0);
    phys_world_step (w);
    cr_expect_eq (phys_world_ball_contact (w, SIM_TEAM_BLUE, 0), 1);
    s_ball_at (w, 0.0965, 0.06, 0, 0);
    phys_world_step (w);
    cr_expect_eq (phys_world_ball_contact (w, SIM_TEAM_BLUE, 0), 0);
    s_ball_at (w, 0.3, 0.0, 0, 0);
    phys_world_step (w);
    cr_expect_eq (phys_world_ball_contact (w, SIM_TEAM_BLUE, 0), 0);
    phys_world_destroy (&w);
}

/* A dribbling robot that kicks lets go of the ball; the incoming ball's
   momentum is cancelled (incoming_damping 1) and the robot's velocity is
   added. The dribbler stops when the command times out. */
Test (phys_kick, kick_from_the_dribbler)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_no_errors (&cfg);
    cfg.team[0].dribbler.hold_accel_stddev = 0;
    cfg.team[0].drive.model = SIM_DRIVE_IDEAL;
    phys_world_t *w = s_world_cfg (&cfg);
    s_ball_at (w, 0.0965, 0, 0, 0);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 0.5, 0, 0.5 }, .dribbler_rpm = 10000 };
    for (int k = 0; k < 300; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
    }
    cr_assert (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0));
    c.kick_speed = 3.0;
    phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
    phys_world_step (w);
    cr_expect_not (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0));
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    /* 3 m/s along the heading plus the robot's velocity, less one substep
       of sliding friction */
    sim_robot_state_t rk;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &rk);
    cr_expect_float_eq (b.vx, 3.0 * cos (rk.orientation) + rk.vx, 0.01);
    cr_expect_float_eq (b.vy, 3.0 * sin (rk.orientation) + rk.vy, 0.01);

    /* back at the seat with an old command: the dribbler is off once the
       command is older than command_timeout */
    for (int k = 0; k < 300; k++)
        phys_world_step (w);
    c = (phys_command_t) { .move = PHYS_MOVE_LOCAL, .dribbler_rpm = 10000 };
    phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
    sim_robot_state_t r;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
    s_ball_at (w, r.x + 0.0965 * cos (r.orientation), r.y + 0.0965 * sin (r.orientation), 0, 0);
    phys_world_step (w);
    cr_expect (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0));
    for (int k = 0; k < 101; k++)
        phys_world_step (w);
    cr_expect_not (phys_world_robot_holding (w, SIM_TEAM_BLUE, 0), "timed out");
    phys_world_destroy (&w);
}

/* A ball coming at the face is stopped by the kick: its incoming speed is
   cancelled (incoming_damping 1), half of it kept with 0.5. */
Test (phys_kick, incoming_damping)
{
    for (int v = 0; v < 2; v++) {
        sim_config_t cfg;
        sim_config_defaults (&cfg);
        s_no_errors (&cfg);
        cfg.team[0].kicker.incoming_damping = v ? 0.5 : 1.0;
        phys_world_t *w = s_world_cfg (&cfg);
        s_ball_at (w, 0.1, 0, -2.0, 0.3);
        phys_command_t c = { .kick_speed = 4.0 };
        phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        double expect = 4.0 + (v ? -1.0 : 0.0);
        cr_expect_float_eq (b.vx, expect, 0.01, "damping %d: %g", v, b.vx);
        cr_expect_float_eq (b.vy, 0, 0.001, "old tangential velocity discarded");
        phys_world_destroy (&w);
    }
}
