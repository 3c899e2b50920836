/*  test_vstats.c - common/logs/sim_vstats on frames built here with known
    noise, losses and latency: every estimate lands near what was put in
    (tolerances from the sample sizes: thousands of draws), moving robots
    do not count as noise, and bytes that are no packet are counted and
    change nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "common/base/sim_rng.h"
#include "common/logs/sim_vstats.h"
#include "ssl_vision_wrapper.pb-c.h"

#define S_FRAMES 6000
#define S_ROBOTS 6

/* Feed S_FRAMES frames of camera 0 at 60 Hz: robots 0-2 at rest, 3-5
   moving at 1 m/s, noise sigma_mm, each robot lost with chance miss, and
   t_sent 5 ms after t_capture. */
static void
s_feed (sim_vstats_t *vs, double sigma_mm, double miss)
{
    sim_rng_t rng;
    sim_rng_seed (&rng, 7, 1);
    for (int k = 0; k < S_FRAMES; k++) {
        double t = 100 + k / 60.0;
        SSLDetectionRobot robots[S_ROBOTS], *rp[S_ROBOTS];
        size_t n = 0;
        for (int i = 0; i < S_ROBOTS; i++) {
            if (sim_rng_chance (&rng, miss))
                continue;
            SSLDetectionRobot *r = &robots[n];
            ssl__detection_robot__init (r);
            r->confidence = 0.9f;
            r->has_robot_id = true;
            r->robot_id = (uint32_t) i;
            double x0 = -2000 + 500 * i, v = i >= 3 ? 1000 * cos (t) : 0;
            r->x = (float) (x0 + v + sim_rng_normal (&rng, sigma_mm));
            r->y = (float) (300 + sim_rng_normal (&rng, sigma_mm));
            r->has_orientation = true;
            r->orientation = (float) sim_rng_normal (&rng, 0.01);
            rp[n++] = r;
        }
        SSLDetectionFrame f;
        ssl__detection_frame__init (&f);
        f.frame_number = (uint32_t) k;
        f.t_capture = t;
        f.t_sent = t + 0.005;
        f.camera_id = 0;
        f.n_robots_blue = n;
        f.robots_blue = rp;
        SSLWrapperPacket w;
        ssl__wrapper_packet__init (&w);
        w.detection = &f;
        uint8_t buf[4096];
        size_t len = ssl__wrapper_packet__pack (&w, buf);
        cr_assert_eq (sim_vstats_add_vision (vs, (int64_t) (t * 1e9), buf, len), 0);
    }
}

Test (vstats, recovers_noise_losses_and_latency)
{
    sim_vstats_t *vs = sim_vstats_new ();
    cr_assert_not_null (vs);
    s_feed (vs, 3.0, 0.04);
    sim_vstats_report_t *r = malloc (sizeof *r);
    sim_vstats_report (vs, r);
    cr_expect_eq (r->frames, S_FRAMES);
    cr_expect (fabs (r->camera[0].rate_hz - 60) < 0.01, "rate %f", r->camera[0].rate_hz);
    cr_expect (fabs (r->latency_ms.p50 - 5) < 1e-6 && fabs (r->latency_ms.p99 - 5) < 1e-6, "latency %f",
               r->latency_ms.p50);
    /* ~30 000 residuals: the robust estimate is within a few percent; the
       moving robots (1 m/s, curving) add no more than that */
    cr_expect (fabs (r->robot_noise_mm - 3.0) < 0.15, "robot noise %f mm", r->robot_noise_mm);
    cr_expect (fabs (r->robot_phi_noise_mrad - 10) < 0.5, "orientation noise %f mrad",
               r->robot_phi_noise_mrad);
    cr_expect (fabs (r->robot_missing - 0.04) < 0.004, "missing %f", r->robot_missing);
    /* independent losses: a gap is one frame 96 % of the time */
    cr_expect (r->robot_gaps_single > 0.9 * (double) r->robot_gaps);
    cr_expect_eq (r->robot_duplicates, 0);
    sim_vstats_fit_t f;
    sim_vstats_fit (r, &f);
    cr_expect (fabs (f.stddev_robot_p - 0.003) < 0.00015);
    cr_expect (fabs (f.vision_processing_time - 0.005) < 1e-9);
    free (r);
    sim_vstats_destroy (&vs);
    sim_vstats_destroy (&vs);
}

Test (vstats, bytes_that_are_no_packet)
{
    sim_vstats_t *vs = sim_vstats_new ();
    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
    cr_expect_eq (sim_vstats_add_vision (vs, 0, junk, sizeof junk), -1);
    cr_expect_eq (sim_vstats_add_truth (vs, junk, sizeof junk), -1);
    sim_vstats_report_t *r = malloc (sizeof *r);
    sim_vstats_report (vs, r);
    cr_expect_eq (r->undecodable, 2);
    cr_expect_eq (r->frames, 0);
    sim_vstats_fit_t f;
    sim_vstats_fit (r, &f);
    cr_expect_eq (f.stddev_robot_p, 0);
    free (r);
    sim_vstats_destroy (&vs);
}

/* One frame of camera `cam` with robots 0-5 at rest, shifted by dx mm. */
static void
s_frame (sim_vstats_t *vs, sim_rng_t *rng, uint32_t cam, uint32_t number, double t, double dx)
{
    SSLDetectionRobot robots[S_ROBOTS], *rp[S_ROBOTS];
    for (int i = 0; i < S_ROBOTS; i++) {
        ssl__detection_robot__init (&robots[i]);
        robots[i].confidence = 0.8f;
        robots[i].has_robot_id = true;
        robots[i].robot_id = (uint32_t) i;
        robots[i].x = (float) (-1000 + 400 * i + dx + sim_rng_normal (rng, 1.0));
        robots[i].y = (float) (200 * i + sim_rng_normal (rng, 1.0));
        rp[i] = &robots[i];
    }
    SSLDetectionFrame f;
    ssl__detection_frame__init (&f);
    f.frame_number = number;
    f.t_capture = t;
    f.t_sent = t + 0.004;
    f.camera_id = cam;
    f.n_robots_yellow = S_ROBOTS;
    f.robots_yellow = rp;
    SSLWrapperPacket w;
    ssl__wrapper_packet__init (&w);
    w.detection = &f;
    uint8_t buf[4096];
    size_t len = ssl__wrapper_packet__pack (&w, buf);
    cr_assert_eq (sim_vstats_add_vision (vs, (int64_t) (t * 1e9), buf, len), 0);
}

/* Two cameras 5 ms apart that see every robot 10 mm apart along x: the
   pair's constant part is 10 mm with no spread, and a repeated frame
   number is a duplicate, not a frame. */
Test (vstats, camera_pairs_and_duplicates)
{
    sim_vstats_t *vs = sim_vstats_new ();
    sim_rng_t rng;
    sim_rng_seed (&rng, 3, 2);
    for (uint32_t k = 0; k < 2000; k++) {
        double t = 10 + k / 60.0;
        s_frame (vs, &rng, 0, k, t, 0);
        s_frame (vs, &rng, 1, k, t + 0.005, 10);
        if (k == 100)
            s_frame (vs, &rng, 1, k, t + 0.005, 10);
    }
    sim_vstats_report_t *r = malloc (sizeof *r);
    sim_vstats_report (vs, r);
    cr_expect_eq (r->frames, 4000);
    cr_expect_eq (r->camera[1].duplicates, 1);
    cr_assert_eq (r->pairs, 1);
    cr_expect_eq (r->pair[0].a, 0);
    cr_expect_eq (r->pair[0].b, 1);
    cr_expect (fabs (r->pair[0].const_mm - 10) < 0.1, "constant %f mm", r->pair[0].const_mm);
    cr_expect_lt (r->pair[0].spread_mm, 0.1);
    cr_expect (fabs (r->robot_noise_mm - 1.0) < 0.05, "noise %f", r->robot_noise_mm);
    cr_expect (fabs (r->robot_conf_mean - 0.8) < 1e-6);
    sim_vstats_fit_t f;
    sim_vstats_fit (r, &f);
    cr_expect (!f.offset_from_truth);
    cr_expect (fabs (f.object_position_offset - M_PI / 4 * 0.010) < 0.0001, "offset %f",
               f.object_position_offset);
    free (r);
    sim_vstats_destroy (&vs);
}

/* A stream with NaN and huge coordinates next to a camera's nadir (a
   broken sender, or bytes from anywhere on the network): measured without
   a crash, the broken sightings counted nowhere. */
Test (vstats, broken_coordinates_are_no_crash)
{
    sim_vstats_t *vs = sim_vstats_new ();
    SSLGeometryCameraCalibration calib;
    ssl__geometry_camera_calibration__init (&calib);
    calib.camera_id = 0;
    calib.has_derived_camera_world_tx = calib.has_derived_camera_world_ty = true;
    calib.has_derived_camera_world_tz = true;
    calib.derived_camera_world_tz = 4000;
    SSLGeometryCameraCalibration *calibs[] = { &calib };
    SSLGeometryFieldSize field;
    ssl__geometry_field_size__init (&field);
    SSLGeometryData geometry;
    ssl__geometry_data__init (&geometry);
    geometry.field = &field;
    geometry.n_calib = 1;
    geometry.calib = calibs;
    const float bad[] = { NAN, INFINITY, -1e30f, 1e30f };
    for (int k = 0; k < 12; k++) {
        SSLDetectionRobot robot;
        ssl__detection_robot__init (&robot);
        robot.has_robot_id = true;
        robot.robot_id = 1;
        robot.x = bad[k % 4];
        robot.y = bad[(k + 1) % 4];
        SSLDetectionRobot *rp[] = { &robot };
        SSLDetectionBall ball;
        ssl__detection_ball__init (&ball);
        ball.x = bad[(k + 2) % 4];
        ball.y = 0;
        SSLDetectionBall *bp[] = { &ball };
        SSLDetectionFrame f;
        ssl__detection_frame__init (&f);
        f.frame_number = (uint32_t) k;
        f.t_capture = k % 3 ? 1.0 + k / 60.0 : NAN;
        f.t_sent = f.t_capture + 0.004;
        f.n_robots_blue = 1;
        f.robots_blue = rp;
        f.n_balls = 1;
        f.balls = bp;
        SSLWrapperPacket w;
        ssl__wrapper_packet__init (&w);
        w.detection = &f;
        w.geometry = k == 0 ? &geometry : NULL;
        uint8_t buf[4096];
        size_t len = ssl__wrapper_packet__pack (&w, buf);
        cr_assert_eq (sim_vstats_add_vision (vs, (int64_t) k * 16666667, buf, len), 0);
    }
    sim_vstats_report_t *r = malloc (sizeof *r);
    cr_assert_not_null (r);
    sim_vstats_report (vs, r);
    cr_expect_eq (r->frames, 12);
    free (r);
    sim_vstats_destroy (&vs);
}
