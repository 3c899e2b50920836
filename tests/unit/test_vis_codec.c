/*  test_vis_codec.c - SSL_WrapperPacket and TrackerWrapperPacket encoding
    (engine/world/vis_codec.c; spec/vision.md §8-§10): encode with the
    codec, decode with protobuf-c, check every field users depend on.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "test_vis_support.h"
#include "engine/world/vis_codec.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"
#include "tests/support/sim_from_config.h"

static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    s.ball = (sim_ball_state_t) { .x = 1.0, .y = 0.5, .z = 0.0215, .vx = 0.5, .vy = -0.25 };
    sim_robot_state_t b = { .team = SIM_TEAM_BLUE,
                            .id = 3,
                            .x = 0.2,
                            .y = -2.0,
                            .orientation = -1.0,
                            .vx = 1,
                            .omega = 2,
                            .radius = 0.09,
                            .height = 0.15 };
    sim_robot_state_t y = { .team = SIM_TEAM_YELLOW,
                            .id = 1,
                            .x = 5.0,
                            .y = 0.0,
                            .orientation = 3.0,
                            .radius = 0.09,
                            .height = 0.15 };
    s.robots[0] = b;
    s.robots[1] = y;
    s.robot_count = 2;
    return s;
}

static SSLWrapperPacket *
s_first_geometry_packet (vis_model_t *m, const vis_frame_t **frame_out, uint8_t *buf, size_t *len)
{
    for (int k = 1; k <= 100; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            if (!f->geometry)
                continue;
            *len = vis_codec_wrapper (m, f, buf, VIS_CODEC_MAX_PACKET);
            cr_assert (*len > 0);
            *frame_out = f;
            return ssl__wrapper_packet__unpack (NULL, *len, buf);
        }
    }
    return NULL;
}

Test (vis_codec, detection_and_geometry)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    size_t len;
    const vis_frame_t *f = NULL;
    SSLWrapperPacket *w = s_first_geometry_packet (m, &f, buf, &len);
    cr_assert_not_null (w, "decodes: every required field is present");
    cr_assert (w->has_source);
    cr_assert_eq (w->source, SSL__SOURCE__SSL_SOURCE_OTHER);

    SSLDetectionFrame *d = w->detection;
    cr_assert_not_null (d);
    cr_assert_eq (d->frame_number, 0u);
    cr_assert_eq (d->camera_id, 0u);
    cr_assert_float_eq (d->t_sent, 0.001 + 0.035, 1e-12);
    cr_assert_float_eq (d->t_capture, 0.001 + 0.035 - 0.005, 1e-12);
    cr_assert (!d->has_t_capture_camera);
    cr_assert_eq (d->n_robots_blue, 1u);
    cr_assert_eq (d->robots_blue[0]->robot_id, 3u);
    cr_assert_float_eq (d->robots_blue[0]->x, 200.0f, 1e-3);
    cr_assert_float_eq (d->robots_blue[0]->y, -2000.0f, 1e-3);
    cr_assert_float_eq (d->robots_blue[0]->orientation, -1.0f, 1e-6);
    cr_assert (d->robots_blue[0]->has_height);
    cr_assert_float_eq (d->robots_blue[0]->height, 150.0f, 1e-3);
    /* through camera 0 at (2400, 0, 6400) mm, 1420 px, centre (1224, 1024),
       at the robot's 150 mm: x 200 is 2200 mm left, y -2000 is image down */
    cr_assert_float_eq (d->robots_blue[0]->pixel_x, 1224.0f - 1420.0f * 2200.0f / 6250.0f, 1e-3);
    cr_assert_float_eq (d->robots_blue[0]->pixel_y, 1024.0f + 1420.0f * 2000.0f / 6250.0f, 1e-3);
    cr_assert_eq (d->n_robots_yellow, 1u);
    cr_assert_eq (d->n_balls, 1u);
    cr_assert_float_eq (d->balls[0]->x, 1000.0f, 1e-3);
    cr_assert_float_eq (d->balls[0]->y, 500.0f, 1e-3);
    cr_assert (d->balls[0]->has_area);
    cr_assert_eq (d->balls[0]->area, 63u);
    cr_assert (!d->balls[0]->has_z);
    cr_assert (d->balls[0]->confidence > 0 && d->balls[0]->confidence <= 1);

    SSLGeometryData *g = w->geometry;
    cr_assert_not_null (g);
    SSLGeometryFieldSize *fs = g->field;
    cr_assert_eq (fs->field_length, 12000);
    cr_assert_eq (fs->field_width, 9000);
    cr_assert_eq (fs->goal_width, 1800);
    cr_assert_eq (fs->goal_depth, 180);
    cr_assert_eq (fs->boundary_width, 300);
    cr_assert (fs->has_penalty_area_depth && fs->penalty_area_depth == 1800);
    cr_assert (fs->has_penalty_area_width && fs->penalty_area_width == 3600);
    /* the SSL rules' margins (2026-02-25) and penalty mark for division A */
    cr_assert (fs->has_boundary_width_goal_line && fs->boundary_width_goal_line == 600);
    cr_assert (fs->has_goal_center_to_penalty_mark && fs->goal_center_to_penalty_mark == 8000);
    cr_assert (fs->has_goal_substitution_area_width && fs->goal_substitution_area_width == 300);
    cr_assert_eq (fs->n_field_lines, 12u);
    cr_assert_str_eq (fs->field_lines[6]->name, "LeftPenaltyStretch");
    cr_assert_eq (fs->field_lines[6]->type, SSL__FIELD_SHAPE_TYPE__LeftPenaltyStretch);
    cr_assert_float_eq (fs->field_lines[6]->p1->x, -4200.0f, 1e-3);
    cr_assert_float_eq (fs->field_lines[6]->p1->y, -1800.0f, 1e-3);
    cr_assert_float_eq (fs->field_lines[10]->p1->x, 6000.0f, 1e-3);
    cr_assert_float_eq (fs->field_lines[10]->p2->x, 4200.0f, 1e-3);
    cr_assert_float_eq (fs->field_lines[0]->thickness, 10.0f, 1e-3);
    for (size_t i = 0; i < fs->n_field_lines; i++)
        cr_assert (fs->field_lines[i]->has_type && fs->field_lines[i]->type != 0);
    cr_assert_eq (fs->n_field_arcs, 1u);
    cr_assert_str_eq (fs->field_arcs[0]->name, "CenterCircle");
    cr_assert_eq (fs->field_arcs[0]->type, SSL__FIELD_SHAPE_TYPE__CenterCircle);
    cr_assert_float_eq (fs->field_arcs[0]->radius, 500.0f, 1e-3);
    cr_assert_float_eq (fs->field_arcs[0]->a2, (float) (2 * M_PI), 1e-5);

    cr_assert_eq (g->n_calib, 2u);
    for (size_t i = 0; i < g->n_calib; i++) {
        SSLGeometryCameraCalibration *c = g->calib[i];
        cr_assert_eq (c->camera_id, (uint32_t) i);
        cr_assert_float_eq (c->focal_length, 1420.0f, 1e-3);
        cr_assert_float_eq (c->principal_point_x, 1224.0f, 1e-3);
        cr_assert_float_eq (c->principal_point_y, 1024.0f, 1e-3);
        cr_assert_eq (c->distortion, 0.0f);
        cr_assert (c->has_derived_camera_world_tx && c->has_derived_camera_world_ty
                   && c->has_derived_camera_world_tz);
        /* none: camera_position_error 0, so C' = C */
        cr_assert_float_eq (c->derived_camera_world_tx, i == 0 ? 2400.0f : -2400.0f, 1e-3);
        cr_assert_float_eq (c->derived_camera_world_ty, 0.0f, 1e-3);
        cr_assert_float_eq (c->derived_camera_world_tz, 6400.0f, 1e-3);
        /* consistent: 180 deg about x, t = -R C' = (-x, +y, +z) */
        cr_assert_eq (c->q0, 1.0f);
        cr_assert_eq (c->q1, 0.0f);
        cr_assert_eq (c->q2, 0.0f);
        cr_assert_eq (c->q3, 0.0f);
        cr_assert_float_eq (c->tx, -c->derived_camera_world_tx, 1e-3);
        cr_assert_float_eq (c->ty, c->derived_camera_world_ty, 1e-3);
        cr_assert_float_eq (c->tz, c->derived_camera_world_tz, 1e-3);
        cr_assert (c->has_pixel_image_width && c->pixel_image_width == 2448u);
        cr_assert (c->has_pixel_image_height && c->pixel_image_height == 2048u);
    }
    cr_assert_not_null (g->models);
    cr_assert_not_null (g->models->straight_two_phase);
    cr_assert_float_eq (g->models->straight_two_phase->acc_slide, -3.3, 1e-12);
    cr_assert_float_eq (g->models->straight_two_phase->acc_roll, -0.2875, 1e-12);
    cr_assert_float_eq (g->models->straight_two_phase->k_switch, 2.0 / 3.0, 1e-12);
    cr_assert_not_null (g->models->chip_fixed_loss);
    cr_assert_float_eq (g->models->chip_fixed_loss->damping_xy_first_hop, 0.70, 1e-12);
    cr_assert_float_eq (g->models->chip_fixed_loss->damping_xy_other_hops, 0.87, 1e-12);
    cr_assert_float_eq (g->models->chip_fixed_loss->damping_z, 0.46, 1e-12);

    ssl__wrapper_packet__free_unpacked (w, NULL);
    /* too small a buffer */
    cr_assert_eq (vis_codec_wrapper (m, f, buf, 10), 0u);
    vis_model_destroy (&m);
}

/* The fullest detection frame, every field at its longest encoding: the
   codec skips the exact sizing below a bound from the counts, so any cap
   short of the real size must still give 0 and leave the bytes past it
   alone. */
Test (vis_codec, full_frame_never_overruns)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    static vis_frame_t f;
    memset (&f, 0, sizeof f);
    f.frame_number = UINT32_MAX;
    f.camera_id = INT32_MAX;
    f.t_capture = 1e9;
    f.t_sent = 1e9;
    f.ball_count = VIS_MAX_BALLS;
    for (int i = 0; i < VIS_MAX_BALLS; i++)
        f.balls[i] = (vis_ball_det_t) {
            .x = 1e3, .y = -1e3, .z = 2.0, .area = 1e12, .confidence = 0.5, .has_z = true, .has_area = true
        };
    f.blue_count = f.yellow_count = VIS_MAX_ROBOTS;
    for (int i = 0; i < VIS_MAX_ROBOTS; i++)
        f.blue[i] = f.yellow[i] = (vis_robot_det_t) {
            .id = INT32_MAX, .x = 1e3, .y = -1e3, .orientation = 3, .height = 0.15, .confidence = 1
        };
    static uint8_t big[VIS_CODEC_MAX_PACKET], small[VIS_CODEC_MAX_PACKET + 64];
    size_t len = vis_codec_wrapper (m, &f, big, sizeof big);
    cr_assert (len > 0);
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, big);
    cr_assert_not_null (w);
    cr_assert_eq (w->detection->n_robots_blue, (size_t) VIS_MAX_ROBOTS);
    cr_assert_eq (w->detection->balls[0]->area, UINT32_MAX);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    for (size_t cap = len + 1; cap-- > len - 64;) {
        memset (small, 0xA5, sizeof small);
        size_t got = vis_codec_wrapper (m, &f, small, cap);
        cr_assert_eq (got, cap >= len ? len : 0u, "cap %zu", cap);
        for (size_t i = cap; i < sizeof small; i++)
            cr_assert_eq (small[i], 0xA5, "byte %zu past cap %zu written", i, cap);
    }
    vis_model_destroy (&m);
}

Test (vis_codec, advertised_camera_position_error)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    vis_model_t *m = sim_fc_model_new (&cfg);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    size_t len = vis_codec_geometry (m, buf, sizeof buf);
    cr_assert (len > 0);
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, buf);
    cr_assert_not_null (w);
    cr_assert_null (w->detection);
    SSLGeometryCameraCalibration *c = w->geometry->calib[0];
    /* 0.02 m along unit(0.3, 0.7, 0.05) = +(7.9, 18.3, 1.3) mm */
    cr_assert_float_eq (c->derived_camera_world_tx, 2400.0f + 7.9f, 0.06);
    cr_assert_float_eq (c->derived_camera_world_ty, 18.3f, 0.06);
    cr_assert_float_eq (c->derived_camera_world_tz, 6400.0f + 1.3f, 0.06);
    cr_assert_float_eq (c->tx, -c->derived_camera_world_tx, 1e-3);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    vis_model_destroy (&m);
}

Test (vis_codec, truth_packet)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.vision.timestamp_epoch_offset = 1000.0;
    vis_model_t *m = sim_fc_model_new (&cfg);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    uint32_t expect = 0;
    for (int k = 1; k <= 100; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        if (vis_model_advance (m, &s) <= 0 || !vis_model_truth_due (m))
            continue;
        size_t len = vis_codec_truth (m, &s, "8f1a4c2e-5b6d-4f70-9a83-1c2d3e4f5a6b", buf, sizeof buf);
        cr_assert (len > 0);
        TrackerWrapperPacket *w = tracker_wrapper_packet__unpack (NULL, len, buf);
        cr_assert_not_null (w);
        cr_assert_str_eq (w->uuid, "8f1a4c2e-5b6d-4f70-9a83-1c2d3e4f5a6b");
        cr_assert_str_eq (w->source_name, "ssl-sim-truth");
        TrackedFrame *tf = w->tracked_frame;
        cr_assert_eq (tf->frame_number, expect++);
        cr_assert_float_eq (tf->timestamp, 1000.0 + (double) s.time_ns * 1e-9, 1e-9);
        cr_assert_eq (tf->n_balls, 1u);
        cr_assert_float_eq (tf->balls[0]->pos->x, 1.0f, 1e-6);
        cr_assert_float_eq (tf->balls[0]->vel->y, -0.25f, 1e-6);
        cr_assert_eq (tf->balls[0]->visibility, 1.0f);
        cr_assert_eq (tf->n_robots, 2u);
        cr_assert_eq (tf->robots[0]->robot_id->team, TEAM__BLUE);
        cr_assert_eq (tf->robots[0]->robot_id->id, 3u);
        cr_assert_float_eq (tf->robots[0]->pos->y, -2.0f, 1e-6);
        cr_assert_float_eq (tf->robots[0]->vel_angular, 2.0f, 1e-6);
        cr_assert_eq (tf->robots[1]->robot_id->team, TEAM__YELLOW);
        cr_assert_null (tf->kicked_ball);
        cr_assert_eq (tf->n_capabilities, 1u);
        cr_assert_eq (tf->capabilities[0], CAPABILITY__CAPABILITY_DETECT_FLYING_BALLS);
        tracker_wrapper_packet__free_unpacked (w, NULL);
    }
    cr_assert (expect > 3);
    vis_model_destroy (&m);
}

/* Both encodings of frame f agree byte for byte (and on "no room"). */
static void
s_same_bytes (const vis_model_t *m, const vis_frame_t *f, const char *what)
{
    static uint8_t fast[VIS_CODEC_MAX_PACKET], general[VIS_CODEC_MAX_PACKET];
    memset (fast, 0x5A, sizeof fast);
    size_t a = vis_codec_wrapper (m, f, fast, sizeof fast);
    size_t b = vis_codec_wrapper_general (m, f, general, sizeof general);
    cr_assert (b > 0, "%s: protobuf-c packed nothing", what);
    cr_assert_eq (a, b, "%s: %zu bytes written directly, %zu by protobuf-c", what, a, b);
    cr_assert (memcmp (fast, general, a) == 0, "%s: the bytes differ", what);
    cr_assert_eq (fast[a], 0x5A, "%s: a byte past the packet written", what);
    cr_assert_eq (vis_codec_wrapper (m, f, fast, b - 1), 0u, "%s: one byte short must give 0", what);
}

/* The detection wrapper is written directly, not by protobuf-c's pack
   (vis_codec.c says why); it must be protobuf-c's bytes for every frame
   the model releases with realistic vision (noise, dropouts, ghost balls,
   camera clocks, geometry frames) and for hand-made frames at the edges
   of every field: NaN, infinities, signed zero, negative ids and camera
   ids, the largest counts, optional fields on and off, both sources. */
Test (vis_codec, direct_writer_gives_protobuf_c_bytes)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    vis_model_t *m = sim_fc_model_new (&cfg);
    int frames = 0;
    for (int k = 1; k <= 3000; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        for (int i = 0; i < 11; i++) {
            vis_test_robot (&s, SIM_TEAM_BLUE, i, -4.0 + 0.7 * i + 0.0004 * k, 1.0 - 0.2 * i, 0.001 * k * i);
            vis_test_robot (&s, SIM_TEAM_YELLOW, i, 4.0 - 0.7 * i, -1.0 + 0.2 * i - 0.0003 * k, -0.002 * k);
        }
        s.ball.x = -5.5 + 0.0035 * k;
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++, frames++)
            s_same_bytes (m, vis_model_released (m, i), "a released frame");
    }
    cr_assert_gt (frames, 300, "only %d frames", frames);

    static vis_frame_t f;
    const double edge[] = { 0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, 1e300, -1e-300, 4.2e9, 0.5 };
    const int ne = (int) (sizeof edge / sizeof edge[0]);
    uint64_t r = 12345;
    for (int trial = 0; trial < 400; trial++) {
        memset (&f, 0, sizeof f);
#define S_NEXT() (r = r * 6364136223846793005ull + 1442695040888963407ull, (int) (r >> 33))
#define S_EDGE() edge[S_NEXT () % ne]
        f.camera_index = S_NEXT () % 4;
        const int ids[] = { 0, -1, 15, INT32_MAX, INT32_MIN, 127, 128, 16383, 16384 };
        f.camera_id = ids[S_NEXT () % 9];
        const uint32_t numbers[] = { 0, 1, 127, 128, UINT32_MAX, 1u << 28 };
        f.frame_number = numbers[S_NEXT () % 6];
        f.t_capture = S_EDGE ();
        f.t_sent = S_EDGE ();
        f.has_t_capture_camera = S_NEXT () % 2;
        f.t_capture_camera = S_EDGE ();
        f.ball_count = trial == 0 ? VIS_MAX_BALLS : S_NEXT () % 6;
        for (int i = 0; i < f.ball_count; i++)
            f.balls[i] = (vis_ball_det_t) { .x = S_EDGE (),
                                            .y = S_EDGE (),
                                            .z = S_EDGE (),
                                            .area = S_EDGE (),
                                            .confidence = S_EDGE (),
                                            .has_z = S_NEXT () % 2,
                                            .has_area = S_NEXT () % 2 };
        f.blue_count = trial == 0 ? VIS_MAX_ROBOTS : S_NEXT () % 12;
        f.yellow_count = trial == 0 ? VIS_MAX_ROBOTS : S_NEXT () % 12;
        for (int i = 0; i < f.blue_count + f.yellow_count; i++) {
            vis_robot_det_t *d = i < f.blue_count ? &f.blue[i] : &f.yellow[i - f.blue_count];
            *d = (vis_robot_det_t) { .id = ids[S_NEXT () % 9],
                                     .x = S_EDGE (),
                                     .y = S_EDGE (),
                                     .orientation = S_EDGE (),
                                     .height = S_EDGE (),
                                     .confidence = S_EDGE () };
        }
#undef S_NEXT
#undef S_EDGE
        s_same_bytes (m, &f, "a hand-made frame");
    }
    vis_model_destroy (&m);
    cfg.realism.source = 1; /* vision-processor's source on every wrapper */
    m = sim_fc_model_new (&cfg);
    s_same_bytes (m, &f, "a frame with vision-processor's source");
    vis_model_destroy (&m);
}
