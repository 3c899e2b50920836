/*  test_sim_mfit.c - the motion fitter (common/logs/sim_mfit) recovers
    the ball model and the robot limits from tracks the physics core makes
    with non-default parameters, seen through white position noise of the
    size vision adds, and says when there are too few events.

    Tolerances: the noise (1 mm on the ball, 0.5 mm and 5 mrad on robots,
    the `realistic` preset's order) moves a one-second slide/roll fit's
    decelerations by a few percent at most (docs/stats.md "Motion"
    derives them); the tests allow 5 % on decelerations, 0.02 on ratios,
    3 % on robot limits and 1 % on top speeds. The first sample after a
    kick comes up to a frame late, so kick speeds are checked to within
    one frame of sliding below the true speed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "common/config/config.h"
#include "common/logs/sim_mfit.h"
#include "engine/physics/phys_ball.h"
#include "engine/physics/phys_world.h"
#include "engine/vision/vis_ball.h"
#include "tests/support/sim_from_config.h"

#define S_FPS 73.3

/* Seeded Gaussian noise (xorshift and Box-Muller): the same every run. */
typedef struct {
    uint64_t s;
} s_rng_t;

static double
s_uniform (s_rng_t *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return ((double) (r->s >> 11) + 0.5) / 9007199254740992.0;
}

static double
s_gauss (s_rng_t *r, double sd)
{
    return sd * sqrt (-2 * log (s_uniform (r))) * cos (2 * M_PI * s_uniform (r));
}

static sim_ball_cfg_t
s_ball_cfg (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    sim_ball_cfg_t b = cfg.ball;
    b.acc_slide = -4.0;
    b.acc_roll = -0.35;
    b.inertia_distribution = 0.6; /* k = 0.625 */
    b.chip_damping_xy_first_hop = 0.78;
    b.chip_damping_xy_other_hops = 0.9;
    b.chip_damping_z = 0.52;
    b.chip_damping_z_other_hops = 0.45;
    return b;
}

/* A flat kick at speed v in direction a from (x, y), seen by camera 0
   at the vision rate for `seconds` with noise sd; t0 its first frame. */
static void
s_kick (sim_mfit_t *f, const sim_ball_cfg_t *b, s_rng_t *rng, double t0, double x, double y, double v,
        double a, double seconds, double sd)
{
    phys_ball_state_t st = { x, y, b->radius, v * cos (a), v * sin (a), 0, 0, 0 };
    /* the kick lands between two frames */
    double lag = 0.4 / S_FPS;
    phys_ball_advance (b, &st, 0, lag);
    for (double t = 0; t < seconds; t += 1 / S_FPS) {
        sim_mfit_add_ball (f, 0, t0 + lag + t, st.x + s_gauss (rng, sd), st.y + s_gauss (rng, sd), NAN);
        phys_ball_advance (b, &st, 0, 1 / S_FPS);
    }
}

static void
s_expect (const char *name, const sim_mfit_param_t *p, double want, double tol)
{
    cr_expect (p->events >= SIM_MFIT_MIN_EVENTS, "%s: only %d events", name, p->events);
    cr_expect (fabs (p->value - want) <= tol, "%s: fitted %g (95 %% %g .. %g, %d events), true %g", name,
               p->value, p->lo, p->hi, p->events, want);
}

Test (sim_mfit, recovers_slide_roll_and_switch_from_flat_kicks)
{
    sim_ball_cfg_t b = s_ball_cfg ();
    sim_mfit_t *f = sim_mfit_new ();
    s_rng_t rng = { 42 };
    for (int k = 0; k < 8; k++) {
        /* the ball rests, then is kicked: the fitter must find the start */
        double t0 = k * 10.0;
        for (int i = 0; i < 20; i++)
            sim_mfit_add_ball (f, 0, t0 + i / S_FPS, -4 + s_gauss (&rng, 0.001), -2 + s_gauss (&rng, 0.001),
                               NAN);
        s_kick (f, &b, &rng, t0 + 20 / S_FPS, -4, -2, 3 + 0.25 * k, 0.3 * k, 2.5, 0.001);
    }
    sim_mfit_result_t r;
    sim_mfit_fit (f, b.roll_speed_coefficient, b.radius, &r);
    s_expect ("slide", &r.slide, 4.0, 0.05 * 4.0);
    s_expect ("roll", &r.roll, 0.35, 0.05 * 0.35);
    s_expect ("k_switch", &r.k_switch, 0.625, 0.02);
    cr_expect (r.slide.lo <= r.slide.value && r.slide.value <= r.slide.hi);
    cr_expect_eq (r.flights, 0);
    cr_expect (!r.has_heights);
    sim_mfit_destroy (&f);
    sim_mfit_destroy (&f);
}

/* A kick is found only where the ball was seen before it: a track that
   begins with the ball already moving tells nothing about a kick. */
Test (sim_mfit, a_track_that_begins_moving_holds_no_kick)
{
    sim_ball_cfg_t b = s_ball_cfg ();
    sim_mfit_t *f = sim_mfit_new ();
    s_rng_t rng = { 9 };
    for (int k = 0; k < 4; k++)
        s_kick (f, &b, &rng, k * 10.0, -4, -2, 4, 0, 2.5, 0.001);
    sim_mfit_result_t r;
    sim_mfit_fit (f, b.roll_speed_coefficient, b.radius, &r);
    cr_expect_eq (r.slide.events, 0);
    cr_expect_eq (r.runs, 0);
    sim_mfit_destroy (&f);
}

Test (sim_mfit, two_kicks_are_too_few)
{
    sim_ball_cfg_t b = s_ball_cfg ();
    sim_mfit_t *f = sim_mfit_new ();
    s_rng_t rng = { 7 };
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 20; i++)
            sim_mfit_add_ball (f, 0, k * 10.0 + i / S_FPS, -4, -2, NAN);
        s_kick (f, &b, &rng, k * 10.0 + 20 / S_FPS, -4, -2, 4, 0, 2.5, 0.001);
    }
    sim_mfit_result_t r;
    sim_mfit_fit (f, b.roll_speed_coefficient, b.radius, &r);
    cr_expect_eq (r.slide.events, 2);
    cr_expect (r.slide.events < SIM_MFIT_MIN_EVENTS);
    cr_expect_eq (r.team[0].acc.events, 0);
    cr_expect_eq (r.team[1].vel.events, 0);
    sim_mfit_destroy (&f);
}

Test (sim_mfit, recovers_chip_dampings_from_heights)
{
    sim_ball_cfg_t b = s_ball_cfg ();
    sim_mfit_t *f = sim_mfit_new ();
    for (int k = 0; k < 5; k++) {
        double v = 4 + 0.5 * k, th = 0.7 + 0.05 * k;
        phys_ball_state_t st = { 0, 0, b.radius, v * cos (th), 0, v * sin (th), 0, 0 };
        /* heights at 100 Hz, as a tracker sends them */
        for (double t = 0; t < 3; t += 0.01) {
            sim_mfit_add_height (f, k * 10.0 + t, st.x, st.y, st.z);
            phys_ball_advance (&b, &st, 0, 0.01);
        }
    }
    sim_mfit_result_t r;
    sim_mfit_fit (f, b.roll_speed_coefficient, b.radius, &r);
    cr_expect (r.has_heights);
    s_expect ("z first", &r.z_first, 0.52, 0.02);
    s_expect ("z other", &r.z_other, 0.45, 0.02);
    s_expect ("xy first", &r.xy_first, 0.78, 0.02);
    s_expect ("xy other", &r.xy_other, 0.9, 0.02);
    sim_mfit_destroy (&f);
}

/* Chips seen as a league vision sees them: no heights, each camera
   putting the ball where its ray meets the floor (the camera model's own
   projection), two cameras 4 m up at x = -3 and +3 m, each seeing its
   half of the field, 1 mm of noise. Eight chips at 5 to 6.75 m/s, 46
   degrees up, across camera 0's half, 1 to 2.5 m from its nadir. */
Test (sim_mfit, recovers_chip_dampings_from_vision_alone)
{
    sim_ball_cfg_t b = s_ball_cfg ();
    sim_camera_cfg_t cams[2] = { { .id = 0, .x = -3, .y = 0, .z = 4 }, { .id = 1, .x = 3, .y = 0, .z = 4 } };
    sim_mfit_t *f = sim_mfit_new ();
    for (int c = 0; c < 2; c++)
        sim_mfit_add_camera (f, c, cams[c].x, cams[c].y, cams[c].z);
    s_rng_t rng = { 99 };
    for (int k = 0; k < 8; k++) {
        double v = 5 + 0.25 * k, th = 0.8, dir = 1.2 + 0.1 * k;
        phys_ball_state_t st = { -5 + 0.2 * k,
                                 -3 + 0.3 * k,
                                 b.radius,
                                 v * cos (th) * cos (dir),
                                 v * cos (th) * sin (dir),
                                 v * sin (th),
                                 0,
                                 0 };
        /* the ball rests 0.3 s first (the kick is a kink of its image) */
        double t0 = k * 10.0, lag = 0.4 / S_FPS;
        for (double t = 0; t < 0.3; t += 1 / S_FPS) {
            int c = st.x < 0 ? 0 : 1;
            sim_mfit_add_ball (f, c, t0 + t, st.x + s_gauss (&rng, 0.001), st.y + s_gauss (&rng, 0.001), NAN);
        }
        phys_ball_advance (&b, &st, 0, lag);
        for (double t = 0.3 + lag; t < 3.3; t += 1 / S_FPS) {
            int c = st.x < 0 ? 0 : 1;
            double px, py, zp;
            vis_ball_project (st.x, st.y, st.z, b.radius, &cams[c], &px, &py, &zp);
            sim_mfit_add_ball (f, c, t0 + t, px + s_gauss (&rng, 0.001), py + s_gauss (&rng, 0.001), NAN);
            phys_ball_advance (&b, &st, 0, 1 / S_FPS);
        }
    }
    sim_mfit_result_t r;
    sim_mfit_fit (f, b.roll_speed_coefficient, b.radius, &r);
    cr_expect (!r.has_heights);
    cr_expect_eq (r.vision.cameras, 2);
    cr_log_info ("vision: %d flights; z %g %g xy %g %g (%d %d)", r.vision.flights, r.z_first.value,
                 r.z_other.value, r.xy_first.value, r.xy_other.value, r.z_first.events, r.z_other.events);
    s_expect ("z first", &r.z_first, 0.52, 0.02);
    s_expect ("z other", &r.z_other, 0.45, 0.02);
    s_expect ("xy first", &r.xy_first, 0.78, 0.02);
    s_expect ("xy other", &r.xy_other, 0.9, 0.02);
    sim_mfit_destroy (&f);
}

/* Blue 0 drives to and fro and blue 1 turns, each at its limits, in the
   physics core with the ideal drive; their poses seen at the vision rate. */
Test (sim_mfit, recovers_robot_limits_from_driving_and_turning)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 0;
    sim_limits_t *l = &cfg.team[SIM_TEAM_BLUE].limits;
    l->acc_speedup_absolute_max = 2.5;
    l->acc_brake_absolute_max = 4.5;
    l->vel_absolute_max = 2.2;
    l->acc_speedup_angular_max = 30;
    l->acc_brake_angular_max = 35;
    l->vel_angular_max = 8;
    phys_world_t *w = sim_fc_world_new (&cfg);
    cr_assert_not_null (w);
    for (unsigned id = 0; id < 2; id++) {
        phys_robot_teleport_t t = { .team = SIM_TEAM_BLUE,
                                    .id = id,
                                    .has_x = true,
                                    .has_y = true,
                                    .x = -3,
                                    .y = id ? 2.0 : -1.0,
                                    .has_orientation = true,
                                    .has_present = true,
                                    .present = true };
        cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    }
    sim_mfit_t *f = sim_mfit_new ();
    s_rng_t rng = { 3 };
    double dt = (double) phys_world_dt_ns (w) / 1e9, next = 0;
    /* four legs: forward, stop, back, stop, each 2 s */
    const double drive[4] = { 5, 0, -5, 0 }, turn[4] = { 20, 0, -20, 0 };
    for (int cycle = 0; cycle < 3; cycle++)
        for (int leg = 0; leg < 4; leg++) {
            phys_command_t c0 = { .move = PHYS_MOVE_LOCAL, .v = { drive[leg], 0, 0 } };
            phys_command_t c1 = { .move = PHYS_MOVE_LOCAL, .v = { 0, 0, turn[leg] } };
            for (double t = 0; t < 2.0; t += dt) {
                phys_world_command (w, SIM_TEAM_BLUE, 0, &c0);
                phys_world_command (w, SIM_TEAM_BLUE, 1, &c1);
                phys_world_step (w);
                double now = (double) phys_world_time_ns (w) / 1e9;
                if (now < next)
                    continue;
                next += 1 / S_FPS;
                for (unsigned id = 0; id < 2; id++) {
                    sim_robot_state_t s;
                    cr_assert_eq (phys_world_robot (w, SIM_TEAM_BLUE, id, &s), 0);
                    sim_mfit_add_robot (f, 0, 1, (int) id, now, s.x + s_gauss (&rng, 0.0005),
                                        s.y + s_gauss (&rng, 0.0005), s.orientation + s_gauss (&rng, 0.005));
                }
            }
        }
    phys_world_destroy (&w);
    sim_mfit_result_t r;
    sim_mfit_fit (f, 0.045, 0.0215, &r);
    const sim_mfit_team_t *b = &r.team[1];
    cr_expect_eq (b->robots, 2);
    s_expect ("acc", &b->acc, 2.5, 0.03 * 2.5);
    s_expect ("brake", &b->brake, 4.5, 0.03 * 4.5);
    s_expect ("vel", &b->vel, 2.2, 0.01 * 2.2);
    s_expect ("acc_w", &b->acc_w, 30, 0.03 * 30);
    s_expect ("brake_w", &b->brake_w, 35, 0.03 * 35);
    s_expect ("vel_w", &b->vel_w, 8, 0.01 * 8);
    cr_expect_eq (r.team[0].robots, 0);
    cr_expect_eq (r.team[0].vel.events, 0);
    sim_mfit_destroy (&f);
}

/* Bytes that are no packet change nothing and say so; values that are no
   numbers are not kept. */
Test (sim_mfit, bad_input_is_refused_and_changes_nothing)
{
    sim_mfit_t *f = sim_mfit_new ();
    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01 };
    cr_expect_eq (sim_mfit_add_vision (f, junk, sizeof junk), -1);
    cr_expect_eq (sim_mfit_add_tracker (f, junk, sizeof junk), -1);
    sim_mfit_add_ball (f, 99, 0, 0, 0, NAN);
    sim_mfit_add_ball (f, 0, NAN, 0, 0, NAN);
    sim_mfit_add_robot (f, 0, 2, 0, 0, 0, 0, 0);
    sim_mfit_add_robot (f, 0, 0, 16, 0, 0, 0, 0);
    sim_mfit_add_robot (f, 0, 1, 0, 0, INFINITY, 0, 0);
    sim_mfit_add_height (f, 0, 0, 0, NAN);
    /* a camera out of range, below the floor, or not a number */
    sim_mfit_add_camera (f, 16, 0, 0, 4);
    sim_mfit_add_camera (f, -1, 0, 0, 4);
    sim_mfit_add_camera (f, 0, 0, 0, 0);
    sim_mfit_add_camera (f, 1, NAN, 0, 4);
    sim_mfit_add_camera (f, 2, 0, 0, INFINITY);
    sim_mfit_result_t r;
    sim_mfit_fit (f, 0.045, 0.0215, &r);
    cr_expect_eq (r.runs, 0);
    cr_expect_eq (r.team[0].robots + r.team[1].robots, 0);
    cr_expect (!r.has_heights);
    cr_expect (!r.truncated);
    cr_expect_eq (r.vision.cameras, 0);
    cr_expect_eq (r.vision.flights, 0);
    sim_mfit_destroy (&f);
}
