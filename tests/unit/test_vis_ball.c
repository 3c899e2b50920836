/*  test_vis_ball.c - ball occlusion, floor projection and the area model
    (engine/vision/vis_ball.c; spec/vision.md §5.2).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "test_vis_support.h"
#include "engine/vision/vis_ball.h"
#include "engine/vision/vis_model.h"
#include "tests/support/sim_from_config.h"

static const sim_camera_cfg_t s_cam = { .id = 0, .x = 2.4, .y = 0, .z = 6.4 };
#define R_BALL 0.0215

static sim_snapshot_t
s_one_robot (double x, double y)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.robot_count = 1;
    s.robots[0] = (sim_robot_state_t) { .team = 0, .id = 0, .x = x, .y = y, .radius = 0.09, .height = 0.15 };
    return s;
}

Test (vis_ball, free_ball_fully_visible)
{
    sim_snapshot_t s = s_one_robot (3, 3);
    double cx, cy, cz;
    double v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert_eq (v, 1.0);
    cr_assert_eq (cx, -0.5);
    cr_assert_eq (cy, 0.0);
    cr_assert_eq (cz, R_BALL);
}

Test (vis_ball, robot_between_ball_and_camera_hides_part)
{
    /* a robot right beside the ball on the camera's side hides all of it:
       the sight lines climb only 2.2 m per m towards a camera 2.9 m away */
    sim_snapshot_t s = s_one_robot (-0.5 + 0.09 + R_BALL + 0.002, 0);
    double cx, cy, cz;
    double v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert_eq (v, 0.0);
    /* shifted sideways (towards +y) it hides only part */
    s = s_one_robot (-0.45, 0.0835);
    v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert (v > 0.1 && v < 0.6, "partly hidden, visibility %g", v);
    cr_assert (cy < 0, "the visible part is the side away from the robot");
    cr_assert_float_eq (cz, R_BALL, 1e-12, "the centroid keeps the ball height");
    /* the same robot behind the ball (away from the camera) hides nothing */
    s = s_one_robot (-0.5 - 0.09 - R_BALL - 0.002, 0);
    v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert_eq (v, 1.0);
    /* a ball inside a robot's footprint is invisible */
    s = s_one_robot (-0.5, 0);
    v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert_eq (v, 0.0);
    cr_assert_eq (cx, -0.5);
    /* a ball flying above the robots is never hidden */
    s = s_one_robot (-0.5 + 0.09 + R_BALL + 0.002, 0);
    v = vis_ball_visibility (&s, -0.5, 0, 0.3, R_BALL, &s_cam, &cx, &cy, &cz);
    cr_assert_eq (v, 1.0);
}

Test (vis_ball, sample_count)
{
    /* a partial visibility is a whole number of the 145 disc samples */
    sim_snapshot_t s = s_one_robot (-0.45, 0.0835);
    double cx, cy, cz;
    double v = vis_ball_visibility (&s, -0.5, 0, R_BALL, R_BALL, &s_cam, &cx, &cy, &cz);
    double k = v * VIS_BALL_SAMPLES;
    cr_assert (v > 0 && v < 1);
    cr_assert_float_eq (k, round (k), 1e-9);
}

Test (vis_ball, floor_projection)
{
    double px, py, zp;
    vis_ball_project (1.0, 0.3, R_BALL, R_BALL, &s_cam, &px, &py, &zp);
    cr_assert_eq (px, 1.0, "identity for a ball on the floor");
    cr_assert_eq (py, 0.3);
    cr_assert_eq (zp, 0.0);
    vis_ball_project (1.0, 0.0, 1.0, R_BALL, &s_cam, &px, &py, &zp);
    double k = 6.4 / (6.4 - (1.0 - R_BALL));
    cr_assert_float_eq (px, 2.4 + (1.0 - 2.4) * k, 1e-12, "further from the camera");
    cr_assert_float_eq (zp, 1.0 - R_BALL, 1e-12);
    vis_ball_project (1.0, 0.0, 10.0, R_BALL, &s_cam, &px, &py, &zp);
    cr_assert_float_eq (zp, 0.9 * 6.4, 1e-12, "clamped at 0.9 Cz");
    sim_camera_cfg_t low = { .id = 0 };
    vis_ball_project (1.0, 0.0, 1.0, R_BALL, &low, &px, &py, &zp);
    cr_assert_eq (px, 1.0, "no projection without a camera above the floor");
}

Test (vis_ball, area_height_term)
{
    cr_assert_eq (vis_ball_area_term (6.4, 0, 1420), 1.0);
    double f0 = 6400.0 / 1420 - 1, f1 = 5400.0 / 1420 - 1;
    cr_assert_float_eq (vis_ball_area_term (6.4, 1.0, 1420), (f0 / f1) * (f0 / f1), 1e-12);
    /* measured 63.1 px at the floor, 88-92 px near 0.6-0.8 m */
    double a = 63.0 * vis_ball_area_term (6.4, 0.8, 1420);
    cr_assert (a > 85 && a < 95, "area %g px at 0.8 m", a);
    cr_assert_eq (vis_ball_area_term (1.0, 0.5, 1420), 1.0, "f <= 0: no term");
}

Test (vis_ball, model_threshold_and_area_scaling)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s = s_one_robot (0.55, 0.0835);
    s.ball = (sim_ball_state_t) { .x = 0.5, .y = 0, .z = R_BALL };
    double cx, cy, cz;
    const sim_camera_cfg_t *cam = &vis_model_rig (m)->cams[0];
    double v = vis_ball_visibility (&s, 0.5, 0, R_BALL, R_BALL, cam, &cx, &cy, &cz);
    vis_frame_t f;
    vis_model_capture (m, 0, 0, &s, &f);
    if (v >= 0.4) {
        cr_assert_eq (f.ball_count, 1);
        cr_assert_float_eq (f.balls[0].area, 63.0 * v, 1e-9, "area scaled by visibility");
        cr_assert_float_eq (f.balls[0].x, cx, 1e-12, "the centroid is reported");
    } else
        cr_assert_eq (f.ball_count, 0);
    /* switching the occlusion off reports the centre with full area */
    cfg.realism.enable_invisible_ball = false;
    sim_fc_model_set (m, &cfg);
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.ball_count, 1);
    cr_assert_float_eq (f.balls[0].x, 0.5, 1e-12);
    cr_assert_float_eq (f.balls[0].area, 63.0, 1e-9);
    /* a ball hidden inside a robot disappears */
    cfg.realism.enable_invisible_ball = true;
    sim_fc_model_set (m, &cfg);
    s.robots[0].x = 0.5;
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.ball_count, 0);
    vis_model_destroy (&m);
}

Test (vis_ball, flying_ball_reported_projected)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.ball = (sim_ball_state_t) { .x = 1.0, .y = 0, .z = 1.0 };
    vis_frame_t f;
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.ball_count, 1);
    double k = 6.4 / (6.4 - (1.0 - R_BALL));
    cr_assert_float_eq (f.balls[0].x, 2.4 + (1.0 - 2.4) * k, 1e-9);
    cr_assert_float_eq (f.balls[0].area, 63.0 * vis_ball_area_term (6.4, 1.0 - R_BALL, 1420), 1e-9);
    vis_model_destroy (&m);
}

/* Which robots hide the ball does not depend on their order, so shuffling
   the snapshot (and putting a far robot first, which moves every robot
   between the two lanes of the candidate pass and its scalar tail) must
   give the very same visibility and centroid. Random crowds around the
   ball, on the floor and in flight, some robots without size. */
Test (vis_ball, robot_order_does_not_matter)
{
    uint64_t st = 0x9e3779b97f4a7c15ull;
    int partial = 0;
    for (int scene = 0; scene < 400; scene++) {
        double u[2 * SIM_SNAPSHOT_MAX_ROBOTS + 4];
        for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            u[i] = (double) (st >> 11) / 9007199254740992.0;
        }
        int n = 1 + scene % 13;
        double bx = -1 + 2 * u[0], by = -1 + 2 * u[1], bz = scene % 3 ? R_BALL : R_BALL + 0.4 * u[2];
        sim_snapshot_t a, b;
        memset (&a, 0, sizeof a);
        memset (&b, 0, sizeof b);
        a.robot_count = n;
        b.robot_count = n + 1;
        b.robots[0] = (sim_robot_state_t) { .x = 40, .y = 40, .radius = 0.09, .height = 0.15 };
        for (int k = 0; k < n; k++) {
            a.robots[k] = (sim_robot_state_t) {
                .id = k,
                .x = bx + 0.5 * (u[4 + 2 * k] - 0.5),
                .y = by + 0.5 * (u[5 + 2 * k] - 0.5),
                .radius = k % 5 == 4 ? 0 : 0.09,
                .height = 0.15,
            };
            b.robots[n - k] = a.robots[k]; /* reversed, behind the far one */
        }
        double va, vb, ax, ay, az, bx2, by2, bz2;
        va = vis_ball_visibility (&a, bx, by, bz, R_BALL, &s_cam, &ax, &ay, &az);
        vb = vis_ball_visibility (&b, bx, by, bz, R_BALL, &s_cam, &bx2, &by2, &bz2);
        cr_assert (va == vb && ax == bx2 && ay == by2 && az == bz2, "scene %d: %.17g vs %.17g", scene, va,
                   vb);
        partial += va > 0 && va < 1;
    }
    cr_assert (partial > 20, "robots hid part of the ball in %d scenes", partial);
}
