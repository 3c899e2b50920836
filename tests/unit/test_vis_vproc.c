/*  test_vis_vproc.c - the vision-processor flavour of the camera model
    (the vp26 realism preset, docs/vision.md "vp26"): ghost balls at
    field-line crossings, robots that briefly change team or id, robots
    lost in close contact, the camera's own clock, the wrapper's source
    and geometry in wrappers of its own. Each artefact is measured on the
    model with the preset's own values; the tolerances are 4.5 binomial
    standard deviations of the count the preset's rate predicts.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine/vision/vis_model.h"
#include "engine/vision/vis_region.h"
#include "engine/world/vis_codec.h"
#include "engine/world/vis_step.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "test_vis_support.h"
#include "tests/support/sim_from_config.h"

#define FRAMES 20000

/* Does `count` out of `trials` fit the chance p (4.5 sigma)? */
static void
s_expect_rate (int count, double trials, double p, const char *what)
{
    double mean = trials * p, sd = sqrt (trials * p * (1 - p));
    cr_expect (fabs (count - mean) <= 4.5 * sd + 1, "%s: %d in %.0f, expected %.1f +- %.1f", what, count,
               trials, mean, 4.5 * sd);
}

/* The crossings of the default Division A lines (12 x 9 m, penalty area
   1.8 m deep and 3.6 m wide, centre circle 0.5 m), written out from the
   rules' drawing: corners, halfway and goal-to-goal lines, penalty-area
   corners and where the centre lines meet it and the circle. Is (x, y)
   within `tol` (each axis) of one? */
static bool
s_at_crossing (double x, double y, double tol)
{
    static const double xy[][2] = {
        { 6, 4.5 },   { 6, -4.5 },  { -6, 4.5 },   { -6, -4.5 },  { 0, 4.5 },     { 0, -4.5 },
        { 6, 0 },     { -6, 0 },    { 0, 0 },      { 6, 1.8 },    { 6, -1.8 },    { -6, 1.8 },
        { -6, -1.8 }, { 4.2, 1.8 }, { 4.2, -1.8 }, { -4.2, 1.8 }, { -4.2, -1.8 }, { 4.2, 0 },
        { -4.2, 0 },  { 0, 0.5 },   { 0, -0.5 },   { 0.5, 0 },    { -0.5, 0 },
    };
    for (size_t i = 0; i < sizeof xy / sizeof xy[0]; i++)
        if (fabs (x - xy[i][0]) <= tol && fabs (y - xy[i][1]) <= tol)
            return true;
    return false;
}

/* Robots well apart, the ball off every line. */
static sim_snapshot_t
s_apart (void)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = 1000000000ull;
    s.ball = (sim_ball_state_t) { .x = 1.3, .y = 0.7, .z = 0.0215 };
    vis_test_robot (&s, SIM_TEAM_BLUE, 0, -4.0, 1.0, 0.3);
    vis_test_robot (&s, SIM_TEAM_BLUE, 3, -2.0, -2.5, -1.0);
    vis_test_robot (&s, SIM_TEAM_BLUE, 5, -1.2, 2.0, 0.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 1, 4.2, 0.3, 3.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 2, 2.5, -3.0, 1.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 7, 1.1, 3.1, 2.0);
    return s;
}

Test (vis_vproc, the_preset_is_vision_processor)
{
    sim_config_t cfg = vis_test_cfg ("vp26");
    cr_expect_eq (cfg.realism.source, 1);
    cr_expect (cfg.realism.geometry_alone);
    cr_expect_gt (cfg.realism.camera_clock_offset, 0);
    sim_config_t alias = vis_test_cfg ("vision_processor");
    cr_expect_eq (memcmp (&alias.realism, &cfg.realism, sizeof cfg.realism), 0);
    /* SSL-Vision's presets and the default keep every vision-processor model off */
    const char *ssl_vision[] = { "realistic", "go26", "rc26", "none" };
    for (size_t i = 0; i < 4; i++) {
        sim_config_t c = vis_test_cfg (ssl_vision[i]);
        cr_expect (c.realism.source == 0 && c.realism.line_ghost_rate == 0
                       && c.realism.robot_identity_swap == 0 && c.realism.close_robot_loss_distance == 0
                       && c.realism.camera_clock_offset == 0 && !c.realism.geometry_alone,
                   "%s", ssl_vision[i]);
    }
}

Test (vis_vproc, ghost_balls_sit_on_line_crossings)
{
    sim_config_t cfg = vis_test_cfg ("vp26");
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    sim_snapshot_t s = s_apart ();
    /* a ghost lies within half the 10 mm line width of its crossing */
    int at_line = 0, frames = 0;
    for (int cam = 0; cam < 2; cam++)
        for (uint32_t k = 0; k < FRAMES; k++) {
            vis_frame_t f;
            vis_model_capture (m, cam, k, &s, &f);
            frames++;
            for (int b = 0; b < f.ball_count; b++) {
                if (!f.balls[b].ghost)
                    continue;
                at_line += s_at_crossing (f.balls[b].x, f.balls[b].y, 0.0051);
            }
        }
    /* each camera sees crossings, so every drawn ghost is placed */
    s_expect_rate (at_line, frames, cfg.realism.line_ghost_rate, "ghosts at crossings");
    cr_log_info ("vp26: %d ghosts at line crossings in %d frames (%.2f %%)", at_line, frames,
                 100.0 * at_line / frames);
    vis_model_destroy (&m);

    /* realistic (SSL-Vision) has none at crossings beyond chance */
    cfg = vis_test_cfg ("realistic");
    m = sim_fc_model_new (&cfg);
    at_line = 0;
    for (uint32_t k = 0; k < FRAMES; k++) {
        vis_frame_t f;
        vis_model_capture (m, 0, k, &s, &f);
        for (int b = 0; b < f.ball_count; b++)
            at_line += f.balls[b].ghost && s_at_crossing (f.balls[b].x, f.balls[b].y, 0.0051);
    }
    cr_expect_leq (at_line, 1, "realistic: %d ghosts at crossings", at_line);
    vis_model_destroy (&m);
}

Test (vis_vproc, robots_briefly_change_team_or_id)
{
    sim_config_t cfg = vis_test_cfg ("vp26");
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s = s_apart ();
    int dets = 0, team_swaps = 0, id_swaps = 0;
    for (int cam = 0; cam < 2; cam++)
        for (uint32_t k = 0; k < FRAMES; k++) {
            vis_frame_t f;
            vis_model_capture (m, cam, k, &s, &f);
            for (int t = 0; t < 2; t++) {
                const vis_robot_det_t *list = t ? f.yellow : f.blue;
                int n = t ? f.yellow_count : f.blue_count;
                for (int j = 0; j < n; j++) {
                    /* the true robot is the one at the detection's place */
                    const sim_robot_state_t *truth = NULL;
                    for (int r = 0; r < s.robot_count; r++)
                        if (hypot (s.robots[r].x - list[j].x, s.robots[r].y - list[j].y) < 0.1)
                            truth = &s.robots[r];
                    cr_assert_not_null (truth);
                    dets++;
                    int team = t ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
                    if (team != truth->team)
                        team_swaps++;
                    else if (list[j].id != truth->id) {
                        id_swaps++;
                        cr_expect (list[j].id >= 0 && list[j].id < 16, "id %d", list[j].id);
                    }
                }
            }
        }
    cr_assert_gt (dets, FRAMES);
    cr_log_info ("vp26: %d team and %d id swaps in %d robot detections (%.3f %%, %.3f %%)", team_swaps,
                 id_swaps, dets, 100.0 * team_swaps / dets, 100.0 * id_swaps / dets);
    s_expect_rate (team_swaps, dets, cfg.realism.robot_identity_swap / 2, "team swaps");
    s_expect_rate (id_swaps, dets, cfg.realism.robot_identity_swap / 2, "id swaps");
    vis_model_destroy (&m);
}

Test (vis_vproc, robots_in_contact_lose_one_detection)
{
    sim_config_t cfg = vis_test_cfg ("vp26");
    double d = cfg.realism.close_robot_loss_distance;
    cr_assert_gt (d, 0.18, "robots touching (0.18 m apart) must be in reach");
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = 1000000000ull;
    s.ball = (sim_ball_state_t) { .x = 1.3, .y = 0.7, .z = 0.0215 };
    /* a pair in contact and a pair 2 cm further apart, all in camera 0's half */
    vis_test_robot (&s, SIM_TEAM_BLUE, 0, 3.0, 1.0, 0.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 0, 3.18, 1.0, 3.1);
    vis_test_robot (&s, SIM_TEAM_BLUE, 1, 3.0, -1.0, 0.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 1, 3.0 + d + 0.02, -1.0, 3.1);
    int both = 0, blue0 = 0, yellow0 = 0, far_both = 0;
    for (uint32_t k = 0; k < FRAMES; k++) {
        vis_frame_t f;
        vis_model_capture (m, 0, k, &s, &f);
        bool b0 = false, y0 = false, b1 = false, y1 = false;
        for (int j = 0; j < f.blue_count; j++) {
            b0 |= f.blue[j].id == 0 && f.blue[j].y > 0;
            b1 |= f.blue[j].id == 1 && f.blue[j].y < 0;
        }
        for (int j = 0; j < f.yellow_count; j++) {
            y0 |= f.yellow[j].id == 0 && f.yellow[j].y > 0;
            y1 |= f.yellow[j].id == 1 && f.yellow[j].y < 0;
        }
        both += b0 && y0;
        blue0 += b0;
        yellow0 += y0;
        far_both += b1 && y1;
    }
    cr_expect_eq (both, 0, "the pair in contact was seen together in %d frames", both);
    cr_log_info (
        "vp26: pair in contact: blue %d, yellow %d, both %d; pair 2 cm beyond reach: both in %d of %d", blue0,
        yellow0, both, far_both, FRAMES);
    /* each of the pair is the one kept about half the time (a coin) */
    s_expect_rate (blue0, blue0 + yellow0, 0.5, "blue kept of the pair");
    /* the pair apart: both seen unless a random dropout (0.2 % each) or a
       swap takes one */
    double p_both =
        pow ((1 - cfg.realism.missing_robot_detections) * (1 - cfg.realism.robot_identity_swap), 2);
    s_expect_rate (far_both, FRAMES, p_both, "pair apart seen together");
    vis_model_destroy (&m);
}

Test (vis_vproc, camera_clock_source_and_geometry_alone)
{
    sim_config_t cfg = vis_test_cfg ("vp26");
    cfg.realism.capture_jitter = 0; /* captures on the substep grid: exact instants */
    vis_model_t *m = sim_fc_model_new (&cfg);
    static uint8_t buf[VIS_STEP_BYTES];
    int detections = 0, geometry_alone = 0;
    double last[2] = { NAN, NAN };
    for (int t = 1; t <= 3000; t++) {
        sim_snapshot_t s = s_apart ();
        s.time_ns = (uint64_t) t * 1000000u;
        vis_step_out_t out;
        vis_step_encode (m, &s, buf, sizeof buf, &out);
        for (int i = 0; i < out.count; i++) {
            SSLWrapperPacket *w =
                ssl__wrapper_packet__unpack (NULL, out.packet[i].len, buf + out.packet[i].off);
            cr_assert_not_null (w);
            cr_expect (w->has_source && w->source == SSL__SOURCE__SSL_SOURCE_VISION_PROCESSOR);
            if (!out.packet[i].frame) {
                cr_expect_null (w->detection, "a geometry wrapper carries no detection");
                cr_expect_not_null (w->geometry);
                cr_assert_lt (i + 1, out.count, "the frame follows its geometry");
                cr_expect_eq (out.packet[i + 1].frame->camera_id, 0, "geometry keeps camera 0's cadence");
                geometry_alone++;
            } else {
                const vis_frame_t *f = out.packet[i].frame;
                cr_assert_not_null (w->detection);
                cr_expect_null (w->geometry, "a detection wrapper carries no geometry");
                cr_assert (w->detection->has_t_capture_camera);
                /* the camera's clock: the true capture instant (on the
                   camera's own 73.3 Hz grid, at most one 1 ms step before
                   the step that brought it) since the camera's power-up */
                double cam = w->detection->t_capture_camera;
                double since = cam - ((double) f->capture_ns * 1e-9 + cfg.realism.camera_clock_offset);
                double skew = since - 61.7 * f->camera_index;
                cr_expect (skew > -0.001 - 1e-6 && skew <= 1e-6, "camera %d: %.9f s", f->camera_id, since);
                int c = f->camera_index;
                if (!isnan (last[c]))
                    cr_expect_float_eq (cam - last[c], 1 / 73.3, 1e-6, "camera %d: a period apart", c);
                last[c] = cam;
                detections++;
            }
            ssl__wrapper_packet__free_unpacked (w, NULL);
        }
    }
    /* 3 s of two cameras at 73.3 Hz, geometry every 73 camera-0 frames */
    cr_expect (detections > 400 && detections < 460, "%d detections", detections);
    cr_expect (geometry_alone >= 2 && geometry_alone <= 4, "%d geometry wrappers", geometry_alone);
    vis_model_destroy (&m);
}

Test (vis_vproc, ssl_vision_presets_send_neither_field)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    vis_model_t *m = sim_fc_model_new (&cfg);
    static uint8_t buf[VIS_STEP_BYTES];
    int geometry = 0;
    for (int t = 1; t <= 1200; t++) {
        sim_snapshot_t s = s_apart ();
        s.time_ns = (uint64_t) t * 1000000u;
        vis_step_out_t out;
        vis_step_encode (m, &s, buf, sizeof buf, &out);
        for (int i = 0; i < out.count; i++) {
            cr_assert_not_null (out.packet[i].frame, "every packet is a frame's");
            SSLWrapperPacket *w =
                ssl__wrapper_packet__unpack (NULL, out.packet[i].len, buf + out.packet[i].off);
            cr_assert_not_null (w);
            cr_expect_eq (w->source, SSL__SOURCE__SSL_SOURCE_OTHER);
            cr_expect (!w->detection->has_t_capture_camera);
            geometry += w->geometry != NULL;
            ssl__wrapper_packet__free_unpacked (w, NULL);
        }
    }
    cr_expect_geq (geometry, 1, "geometry rides along a detection");
    vis_model_destroy (&m);
}
