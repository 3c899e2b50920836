/*  test_vis_pixels.c - image coordinates (engine/vision/vis_camera.c,
    vis_codec.c): a client that decodes the geometry packet and the
    detections and un-projects each detection's pixels through the
    advertised calibration at the object's height must land on the
    reported position within 1 mm, and objects inside the field of play
    the camera sees must have pixels inside its image.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "test_vis_support.h"
#include "engine/world/vis_codec.h"
#include "engine/vision/vis_camera.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "tests/support/sim_from_config.h"

/* A busy scene at time t: a ball rolling, then chipped, across the whole
   field and 22 robots marching over it, so every camera sees objects from
   its centre to the far corners of its region. */
static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    double t = (double) t_ns * 1e-9;
    double z = t > 1.5 && t < 2.5 ? 0.0215 + 4.0 * (t - 1.5) * (2.5 - t) : 0.0215;
    s.ball = (sim_ball_state_t) {
        .x = -6.0 + 3.0 * t, .y = 4.4 * sin (1.3 * t), .z = z, .vx = 3.0, .vy = 5.7 * cos (1.3 * t)
    };
    for (int i = 0; i < 22; i++) {
        double ph = i * 0.6 + 0.4 * t;
        vis_test_robot (&s, i < 11 ? SIM_TEAM_BLUE : SIM_TEAM_YELLOW, i % 11, 5.9 * sin (ph),
                        4.4 * cos (1.7 * ph), ph);
    }
    return s;
}

/* What a client keeps of the latest geometry: one advertised camera per id. */
typedef struct {
    bool known;
    vis_camera_t cam;
} s_known_t;

static void
s_learn (const SSLGeometryData *g, s_known_t *known, int cap)
{
    for (size_t i = 0; i < g->n_calib; i++) {
        const SSLGeometryCameraCalibration *c = g->calib[i];
        cr_assert ((int) c->camera_id < cap);
        cr_assert (c->has_derived_camera_world_tx && c->has_derived_camera_world_ty
                   && c->has_derived_camera_world_tz);
        cr_assert (c->has_pixel_image_width && c->has_pixel_image_height);
        cr_assert_eq (c->distortion, 0.0f);
        /* the pose must be the derived position: t = -R c with R 180 deg about x */
        cr_assert_eq (c->q0, 1.0f);
        cr_assert_eq (c->q1, 0.0f);
        cr_assert_eq (c->q2, 0.0f);
        cr_assert_eq (c->q3, 0.0f);
        cr_assert_eq (c->tx, -c->derived_camera_world_tx);
        cr_assert_eq (c->ty, c->derived_camera_world_ty);
        cr_assert_eq (c->tz, c->derived_camera_world_tz);
        s_known_t *k = &known[c->camera_id];
        k->known = true;
        k->cam = (vis_camera_t) { .focal = c->focal_length,
                                  .ppx = c->principal_point_x,
                                  .ppy = c->principal_point_y,
                                  .width = c->pixel_image_width,
                                  .height = c->pixel_image_height,
                                  .cx = c->derived_camera_world_tx,
                                  .cy = c->derived_camera_world_ty,
                                  .cz = c->derived_camera_world_tz };
    }
}

typedef struct {
    int checked, inside_checked;
    double worst; /* mm */
    double focal_min, focal_max;
} s_tally_t;

static void
s_check (const vis_camera_t *cam, double field_l, double field_w, float x, float y, float z, float u, float v,
         s_tally_t *t)
{
    double ux, uy;
    cr_assert_eq (vis_camera_unproject (cam, u, v, z, &ux, &uy), 0);
    double err = hypot (ux - x, uy - y);
    if (err > t->worst)
        t->worst = err;
    cr_assert (err <= 1.0, "un-projected (%.3f, %.3f) vs reported (%.3f, %.3f) mm at z %.1f", ux, uy, x, y,
               z);
    t->checked++;
    if (fabs (x) <= field_l / 2 && fabs (y) <= field_w / 2) {
        t->inside_checked++;
        cr_assert (u >= 0 && u < (float) cam->width && v >= 0 && v < (float) cam->height,
                   "pixel (%.1f, %.1f) outside %ux%u for (%.0f, %.0f) mm", u, v, cam->width, cam->height, x,
                   y);
    }
}

static s_tally_t
s_run (const char *preset, int cameras, uint64_t seed)
{
    sim_config_t cfg = vis_test_cfg (preset);
    cfg.sim.seed = seed;
    cfg.vision.default_camera_count = cameras;
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    double field_l = vis_model_def (m)->field.length * 1000.0;
    double field_w = vis_model_def (m)->field.width * 1000.0;
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    s_known_t known[64];
    memset (known, 0, sizeof known);
    s_tally_t t = { 0, 0, 0, 1e9, 0 };
    int seen[64] = { 0 };
    for (int k = 1; k <= 4000; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        cr_assert (n >= 0);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            size_t len = vis_codec_wrapper (m, f, buf, sizeof buf);
            cr_assert (len > 0);
            SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, buf);
            cr_assert_not_null (w);
            if (w->geometry)
                s_learn (w->geometry, known, 64);
            SSLDetectionFrame *d = w->detection;
            cr_assert_not_null (d);
            cr_assert (d->camera_id < 64);
            if (!known[d->camera_id].known) {
                ssl__wrapper_packet__free_unpacked (w, NULL);
                continue;
            }
            const vis_camera_t *cam = &known[d->camera_id].cam;
            seen[d->camera_id]++;
            if (cam->focal < t.focal_min)
                t.focal_min = cam->focal;
            if (cam->focal > t.focal_max)
                t.focal_max = cam->focal;
            for (size_t b = 0; b < d->n_balls; b++) {
                const SSLDetectionBall *o = d->balls[b];
                float z = o->has_z ? o->z : (float) (cfg.ball.radius * 1000.0);
                s_check (cam, field_l, field_w, o->x, o->y, z, o->pixel_x, o->pixel_y, &t);
            }
            for (size_t r = 0; r < d->n_robots_blue + d->n_robots_yellow; r++) {
                const SSLDetectionRobot *o =
                    r < d->n_robots_blue ? d->robots_blue[r] : d->robots_yellow[r - d->n_robots_blue];
                cr_assert (o->has_height);
                s_check (cam, field_l, field_w, o->x, o->y, o->height, o->pixel_x, o->pixel_y, &t);
            }
            ssl__wrapper_packet__free_unpacked (w, NULL);
        }
    }
    for (int c = 0; c < cameras; c++)
        cr_assert (seen[c] > 100, "%s camera %d: %d frames checked", preset, c, seen[c]);
    vis_model_destroy (&m);
    cr_log_info ("%s, %d cameras: %d detections (%d inside the field), worst %.4f mm, focal %.0f-%.0f px",
                 preset, cameras, t.checked, t.inside_checked, t.worst, t.focal_min, t.focal_max);
    return t;
}

Test (vis_pixels, go26_every_camera_round_trips_within_1_mm, .timeout = 60)
{
    int counts[] = { 2, 4 };
    for (int i = 0; i < 2; i++) {
        s_tally_t t = s_run ("go26", counts[i], 11);
        cr_expect (t.checked > 1000);
        cr_expect (t.inside_checked > 1000);
        cr_expect (t.focal_min >= 721 && t.focal_max <= 1478);
        cr_expect (t.focal_min < t.focal_max, "a mixed rig");
    }
}

Test (vis_pixels, other_presets_round_trip_within_1_mm, .timeout = 60)
{
    s_tally_t t = s_run ("rc26", 4, 12);
    cr_expect (t.focal_min >= 721 && t.focal_max <= 1478 && t.focal_min < t.focal_max);
    t = s_run ("realistic", 2, 13);
    cr_expect_eq (t.focal_min, 1420.0);
    cr_expect_eq (t.focal_max, 1420.0);
    /* `none` has no noise, but pixels are geometry and still filled */
    t = s_run ("none", 2, 14);
    cr_expect (t.checked > 1000);
}

Test (vis_pixels, camera_keys_override_the_sensor)
{
    sim_config_t cfg = vis_test_cfg ("go26");
    cfg.vision.camera_count = 1;
    cfg.vision.cameras[0] = (sim_camera_cfg_t) {
        .id = 4, .x = 1, .y = 2, .z = 5, .focal_length_px = 800, .image_width = 1280, .image_height = 1024
    };
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    size_t len = vis_codec_geometry (m, buf, sizeof buf);
    cr_assert (len > 0);
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, buf);
    cr_assert (w && w->geometry && w->geometry->n_calib == 1);
    const SSLGeometryCameraCalibration *c = w->geometry->calib[0];
    cr_expect_eq (c->camera_id, 4u);
    cr_expect_eq (c->focal_length, 800.0f);
    cr_expect_eq (c->pixel_image_width, 1280u);
    cr_expect_eq (c->pixel_image_height, 1024u);
    cr_expect_eq (c->principal_point_x, 640.0f);
    cr_expect_eq (c->principal_point_y, 512.0f);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    vis_model_destroy (&m);
}

Test (vis_pixels, project_and_unproject_are_inverse)
{
    vis_camera_t cam = { .focal = 1000, .ppx = 960, .ppy = 600, .width = 1920, .height = 1200, .cz = 6000 };
    double u, v, x, y;
    cr_assert_eq (vis_camera_project (&cam, 0, 0, 0, &u, &v), 0);
    cr_expect_eq (u, 960.0);
    cr_expect_eq (v, 600.0);
    cr_assert_eq (vis_camera_project (&cam, 600, 300, 0, &u, &v), 0);
    cr_expect_float_eq (u, 1060.0, 1e-9, "x to the right");
    cr_expect_float_eq (v, 550.0, 1e-9, "world +y is image up (smaller v)");
    cr_assert_eq (vis_camera_unproject (&cam, u, v, 0, &x, &y), 0);
    cr_expect_float_eq (x, 600.0, 1e-9);
    cr_expect_float_eq (y, 300.0, 1e-9);
    cr_expect_eq (vis_camera_project (&cam, 0, 0, 6000, &u, &v), -1, "at the camera: no pixels");
    cr_expect_eq (u, 0.0);
    cr_expect_eq (vis_camera_unproject (&cam, 1, 1, 7000, &x, &y), -1);
}
