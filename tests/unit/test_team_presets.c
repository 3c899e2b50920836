/*  test_team_presets.c - the presets taken from teams' published
    parameters (docs/config.md "Team presets") behave as their numbers say
    when the physics core runs them: the `tigers` ball (sliding and rolling
    deceleration, the switch between them, chip hop dampings) and each team
    limits preset (acceleration, braking, top speed, kick and chip caps).

    Each preset is applied the way `--ball-preset` / `--robot-limits` apply
    it (sim_config_apply_*), the world is built from that configuration and
    everything is measured from its states; nothing of the model is written
    out here. Kick errors are off (the realism's spread, not the preset's)
    and the robot drives in the default wheels mode.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "tests/support/sim_from_config.h"

#define S_DT 0.001 /* s, the default substep */

/* ---- the tigers ball ------------------------------------------------------ */

/* TIGERs' BallParameters (Sumatra): accSlide -3000 mm/s^2, accRoll
   -260 mm/s^2, kSwitch 0.64, chip dampings xy 0.8 (first hop) / 0.85
   (later hops), z 0.47. */
#define S_TIGERS_SLIDE  3.0
#define S_TIGERS_ROLL   0.26
#define S_TIGERS_SWITCH 0.64
#define S_TIGERS_XY1    0.8
#define S_TIGERS_XY2    0.85
#define S_TIGERS_Z      0.47

static phys_world_t *
s_world_with (const char *ball_preset, const char *limits_preset)
{
    sim_config_t cfg;
    char err[256] = "";
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    cfg.realism.kick_direction_stddev = 0;
    cfg.realism.chip_angle_stddev = 0;
    cfg.realism.kick_speed_factor_stddev = 0;
    if (ball_preset)
        cr_assert_eq (sim_config_apply_ball_preset (&cfg, ball_preset, err, sizeof err), 0, "%s", err);
    if (limits_preset)
        cr_assert_eq (sim_config_apply_robot_limits (&cfg, limits_preset, err, sizeof err), 0, "%s", err);
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    return w;
}

static double
s_ball_speed (phys_world_t *w)
{
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    return hypot (b.vx, b.vy);
}

/* A spin-free 4 m/s ball slides at acc_slide until it has lost
   1 - k_switch of its speed, then rolls at acc_roll. The core's ball is
   closed-form, so one substep's speed change is the deceleration times
   the substep to rounding: 0.5 % covers the one substep that holds the
   switch, and the switch ratio is read to one substep's change. */
Test (team_presets, tigers_ball_slides_switches_and_rolls_as_published)
{
    phys_world_t *w = s_world_with ("tigers", NULL);
    const double v0 = 4.0;
    phys_ball_teleport_t b = {
        .has_x = true, .has_y = true, .x = -5.5, .y = 0, .has_vx = true, .has_vy = true, .vx = v0
    };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
    double v = s_ball_speed (w), v_switch = -1;
    double slide_sum = 0, roll_sum = 0;
    int slide_n = 0, roll_n = 0;
    for (int k = 0; k < 1500; k++) {
        phys_world_step (w);
        double nv = s_ball_speed (w);
        double dec = (v - nv) / S_DT;
        if (v_switch < 0 && dec < 0.5 * (S_TIGERS_SLIDE + S_TIGERS_ROLL))
            v_switch = v;
        else if (v_switch < 0 && k > 0) {
            slide_sum += dec;
            slide_n++;
        } else if (v_switch > 0 && nv < v_switch - 0.01) {
            roll_sum += dec;
            roll_n++;
        }
        v = nv;
    }
    double slide = slide_sum / slide_n, roll = roll_sum / roll_n;
    cr_log_info ("tigers ball: slide %.4f m/s^2, switch at %.4f of v0, roll %.4f m/s^2", slide, v_switch / v0,
                 roll);
    cr_expect (fabs (slide - S_TIGERS_SLIDE) < 0.005 * S_TIGERS_SLIDE, "sliding deceleration %.4f", slide);
    cr_expect (fabs (v_switch / v0 - S_TIGERS_SWITCH) < S_TIGERS_SLIDE * S_DT / v0 + 1e-9, "switch at %.4f",
               v_switch / v0);
    cr_expect (fabs (roll - S_TIGERS_ROLL) < 0.005 * S_TIGERS_ROLL, "rolling deceleration %.4f", roll);
    phys_world_destroy (&w);
}

/* A ball launched up and forward lands twice: at each touchdown the
   horizontal speed is multiplied by the xy damping (first hop, then the
   later hops) and the vertical speed by the z damping. The speeds are
   read one substep before and after each touchdown: in flight the ball
   keeps its horizontal speed, so that ratio is exact to rounding, and
   gains g * dt of vertical speed per substep, so the vertical ratio is
   exact to the gravity of the two substeps around the bounce,
   2 g dt / |vz| of it (1.5 % at the second touchdown's 0.66 m/s). */
Test (team_presets, tigers_chip_hops_damp_as_published)
{
    phys_world_t *w = s_world_with ("tigers", NULL);
    phys_ball_teleport_t b = { .has_x = true,
                               .has_y = true,
                               .has_z = true,
                               .x = -4.0,
                               .y = 0,
                               .z = 0.0215,
                               .has_vx = true,
                               .has_vy = true,
                               .has_vz = true,
                               .vx = 2.0,
                               .vz = 3.0 };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
    sim_ball_state_t prev, cur;
    phys_world_ball (w, &prev);
    double xy[2] = { 0 }, z[2] = { 0 }, vz_in[2] = { 1, 1 };
    int hops = 0;
    for (int k = 0; k < 3000 && hops < 2; k++) {
        phys_world_step (w);
        phys_world_ball (w, &cur);
        if (prev.vz < 0 && cur.vz > 0) {
            xy[hops] = hypot (cur.vx, cur.vy) / hypot (prev.vx, prev.vy);
            z[hops] = cur.vz / -prev.vz;
            vz_in[hops] = -prev.vz;
            hops++;
        }
        prev = cur;
    }
    cr_log_info ("tigers chip: xy %.4f / %.4f, z %.4f / %.4f", xy[0], xy[1], z[0], z[1]);
    cr_assert_eq (hops, 2, "the ball bounced %d times", hops);
    cr_expect (fabs (xy[0] - S_TIGERS_XY1) < 1e-6, "first hop xy %.4f", xy[0]);
    cr_expect (fabs (xy[1] - S_TIGERS_XY2) < 1e-6, "second hop xy %.4f", xy[1]);
    for (int h = 0; h < 2; h++)
        cr_expect (fabs (z[h] - S_TIGERS_Z) < S_TIGERS_Z * 2 * 9.81 * S_DT / vz_in[h], "hop %d z %.4f", h + 1,
                   z[h]);
    phys_world_destroy (&w);
}

/* ---- team limits and kick caps -------------------------------------------- */

typedef struct {
    const char *name;
    double acc, brake, top, kick, chip; /* m/s^2, m/s^2, m/s, m/s, m/s */
} s_team_t;

/* TIGERs' bot parameter database (Sumatra config/botParamsDatabase.json):
   accMax, brkMax, velMax, maxAbsoluteStraightVelocity,
   maxAbsoluteChipVelocity. */
/* clang-format off: one team a row */
static const s_team_t s_teams[] = {
    { "tigers", 3.0, 6.0, 3.0, 7.5, 5.5 },    { "zjunlict", 3.5, 6.0, 3.0, 8.0, 8.0 },
    { "immortals", 3.3, 5.6, 3.2, 8.0, 6.5 }, { "roboteam", 2.0, 3.0, 2.2, 8.0, 6.5 },
    { "luhbots", 1.5, 3.0, 2.5, 8.0, 6.5 },
};
/* clang-format on */

/* One blue robot at (-4, 0) facing +x. */
static phys_world_t *
s_team_world (const s_team_t *t)
{
    phys_world_t *w = s_world_with (NULL, t->name);
    phys_robot_teleport_t rt = { .team = SIM_TEAM_BLUE,
                                 .id = 0,
                                 .has_x = true,
                                 .has_y = true,
                                 .x = -4,
                                 .y = 0,
                                 .has_orientation = true,
                                 .has_present = true,
                                 .present = true };
    cr_assert_eq (phys_world_teleport_robot (w, &rt), PHYS_OK);
    return w;
}

static double
s_robot_vx (phys_world_t *w)
{
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, 0, &r), 0);
    return r.vx;
}

/* Drive forward at a demand above any top speed for `substeps`, then ask
   for 0; acceleration and braking are the mean slopes while the speed
   passes from 25 % to 75 % of the top speed (the wheel drive follows the
   limiter's ramp with a lag of some 10 ms, the same on both ends of that
   window), the top speed the mean of the last 0.2 s before braking. 2 %
   is the drive's own tracking error on a ramp (physics.md, the wheels
   drive settles within 0.02 m/s). */
static void
s_measure_drive (const s_team_t *t, double *acc, double *brake, double *top)
{
    phys_world_t *w = s_team_world (t);
    const int drive = 3000, stop = 2000;
    double t_lo = -1, t_hi = -1, top_sum = 0, b_lo = -1, b_hi = -1;
    int top_n = 0;
    for (int k = 0; k < drive + stop; k++) {
        if (k % 50 == 0) {
            phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { k < drive ? 10.0 : 0.0, 0, 0 } };
            cr_assert_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_OK);
        }
        phys_world_step (w);
        double v = s_robot_vx (w), time = (k + 1) * S_DT;
        if (k < drive) {
            if (t_lo < 0 && v >= 0.25 * t->top)
                t_lo = time;
            if (t_hi < 0 && v >= 0.75 * t->top)
                t_hi = time;
            if (k >= drive - 200) {
                top_sum += v;
                top_n++;
            }
        } else {
            if (b_lo < 0 && v <= 0.75 * t->top)
                b_lo = time;
            if (b_hi < 0 && v <= 0.25 * t->top)
                b_hi = time;
        }
    }
    phys_world_destroy (&w);
    *acc = t_hi > t_lo && t_lo > 0 ? 0.5 * t->top / (t_hi - t_lo) : 0;
    *brake = b_hi > b_lo && b_lo > 0 ? 0.5 * t->top / (b_hi - b_lo) : 0;
    *top = top_sum / top_n;
}

/* The flat and chip caps: a 13 m/s demand is clamped to the team's cap,
   and the ball leaves at that speed within 0.10 m/s (test_phys_kick's
   bound for a commanded kick). */
static void
s_measure_kicks (const s_team_t *t, double *kick, double *chip)
{
    double *out[2] = { kick, chip };
    for (int i = 0; i < 2; i++) {
        phys_world_t *w = s_team_world (t);
        const sim_robot_specs_t *s = phys_world_team_specs (w, SIM_TEAM_BLUE);
        phys_ball_teleport_t b = { .has_x = true,
                                   .has_y = true,
                                   .x = -4 + s->center_to_dribbler + 0.0215,
                                   .has_vx = true,
                                   .has_vy = true };
        cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
        phys_command_t c = { .kick_speed = 13, .kick_angle_deg = i ? 45 : 0 };
        cr_assert_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_OK);
        phys_world_step (w);
        const phys_event_t *ev;
        int n = phys_world_events (w, &ev);
        cr_assert (n == 1 && ev[0].kind == PHYS_EVENT_KICK, "%s: no kick", t->name);
        sim_ball_state_t ball;
        phys_world_ball (w, &ball);
        double v = sqrt (ball.vx * ball.vx + ball.vy * ball.vy + ball.vz * ball.vz);
        cr_expect_eq (ev[0].speed, i ? t->chip : t->kick, "%s: clamped to %g", t->name, ev[0].speed);
        *out[i] = v;
        phys_world_destroy (&w);
    }
}

static void
s_expect_team (const s_team_t *t)
{
    double acc, brake, top, kick, chip;
    s_measure_drive (t, &acc, &brake, &top);
    s_measure_kicks (t, &kick, &chip);
    cr_log_info ("%s: acc %.3f brake %.3f top %.3f kick %.3f chip %.3f", t->name, acc, brake, top, kick,
                 chip);
    cr_expect (fabs (acc - t->acc) < 0.02 * t->acc, "%s: acceleration %.3f m/s^2", t->name, acc);
    cr_expect (fabs (brake - t->brake) < 0.02 * t->brake, "%s: braking %.3f m/s^2", t->name, brake);
    cr_expect (fabs (top - t->top) < 0.02, "%s: top speed %.3f m/s", t->name, top);
    cr_expect (fabs (kick - t->kick) < 0.10, "%s: flat kick %.3f m/s", t->name, kick);
    cr_expect (fabs (chip - t->chip) < 0.10, "%s: chip %.3f m/s", t->name, chip);
}

Test (team_presets, tigers_robot_matches_tigers_bot_parameters)
{
    s_expect_team (&s_teams[0]);
}

Test (team_presets, zjunlict_robot_matches_its_published_set)
{
    s_expect_team (&s_teams[1]);
}

Test (team_presets, immortals_robot_matches_its_published_set)
{
    s_expect_team (&s_teams[2]);
}

Test (team_presets, roboteam_robot_matches_its_published_set)
{
    s_expect_team (&s_teams[3]);
}

Test (team_presets, luhbots_robot_matches_its_published_set)
{
    s_expect_team (&s_teams[4]);
}
