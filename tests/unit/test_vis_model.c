/*  test_vis_model.c - the camera model end to end without noise and its
    scheduling behaviour (engine/vision/vis_model.c, vis_capture.c;
    spec/vision.md §2, §5, §6, §7, §8).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "test_vis_support.h"
#include "engine/vision/vis_model.h"
#include "engine/vision/vis_region.h"
#include "tests/support/sim_from_config.h"

static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    s.ball.x = 1.0;
    s.ball.y = 0.5;
    s.ball.z = 0.0215;
    vis_test_robot (&s, SIM_TEAM_BLUE, 0, -4.0, 1.0, 0.3);
    vis_test_robot (&s, SIM_TEAM_BLUE, 3, 0.2, -2.0, -1.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 1, 5.0, 0.0, 3.0);
    return s;
}

Test (vis_model, noise_free_detections_are_truth)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    sim_snapshot_t s = s_scene (1000000);
    vis_frame_t f;
    /* camera 0 at (+2.4, 0): band 0.3 m around x = 0 sees x >= -0.6 */
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.camera_id, 0);
    cr_assert_eq (f.blue_count, 1);
    cr_assert_eq (f.blue[0].id, 3);
    cr_assert_float_eq (f.blue[0].x, 0.2, 1e-12);
    cr_assert_float_eq (f.blue[0].y, -2.0, 1e-12);
    cr_assert_float_eq (f.blue[0].orientation, -1.0, 1e-12);
    cr_assert_float_eq (f.blue[0].height, 0.15, 1e-12);
    cr_assert_eq (f.yellow_count, 1);
    cr_assert_eq (f.yellow[0].id, 1);
    cr_assert_eq (f.ball_count, 1);
    cr_assert_float_eq (f.balls[0].x, 1.0, 1e-12);
    cr_assert_float_eq (f.balls[0].y, 0.5, 1e-12);
    cr_assert (f.balls[0].has_area);
    cr_assert_float_eq (f.balls[0].area, 63.0, 1e-9, "area at the floor = area_at_nadir_px");
    cr_assert (!f.balls[0].has_z);
    /* camera 1 at (-2.4, 0) sees blue 0 and blue 3 (in its band), not yellow 1 */
    vis_model_capture (m, 1, 0, &s, &f);
    cr_assert_eq (f.blue_count, 2);
    cr_assert_eq (f.blue[0].id, 0);
    cr_assert_eq (f.blue[1].id, 3);
    cr_assert_eq (f.yellow_count, 0);
    cr_assert_eq (f.ball_count, 0, "the ball at x = 1 is outside camera 1's band");
    vis_model_destroy (&m);
    vis_model_destroy (&m);
    cr_assert_null (m);
}

Test (vis_model, one_frame_per_capture_and_delay)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.realism.capture_jitter = 0; /* the grid of vision.md §2.4 */
    vis_model_t *m = sim_fc_model_new (&cfg);
    int frames[2] = { 0, 0 };
    uint32_t expect[2] = { 0, 0 };
    uint64_t delay = 22000000;
    for (int k = 1; k <= 1000 + 22; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        cr_assert (n >= 0);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            cr_assert_eq (f->due_ns, f->capture_ns + delay);
            cr_assert_eq (f->due_ns, s.time_ns, "released exactly when due");
            cr_assert_eq (f->frame_number, expect[f->camera_index]++);
            /* t_capture sits the median processing time before the
               release, t_sent a drawn time after t_capture */
            cr_assert_float_eq (f->t_capture, (double) f->capture_ns * 1e-9 + 0.022 - 0.00675, 1e-12);
            double processing = f->t_sent - f->t_capture;
            cr_assert (processing > 0.00675 - 4 * 0.0004 - 1e-12 && processing < 0.0145, "%g", processing);
            if (i > 0)
                cr_assert (f->capture_ns >= vis_model_released (m, i - 1)->capture_ns);
            frames[f->camera_index]++;
        }
    }
    cr_assert_eq (frames[0], 74);
    cr_assert_eq (frames[1], 74);
    vis_model_destroy (&m);
}

static void
s_geometry_frames (int every, uint32_t *out, int *count)
{
    sim_config_t cfg = vis_test_cfg ("none");
    cfg.vision.geometry_every_n_frames = every;
    cfg.realism.vision_delay = 0;
    vis_model_t *m = sim_fc_model_new (&cfg);
    *count = 0;
    for (int k = 1; k <= 1000; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            if (f->geometry) {
                cr_assert_eq (f->camera_index, 0, "geometry rides on camera 0 only");
                out[(*count)++] = f->frame_number;
            }
        }
    }
    vis_model_destroy (&m);
}

Test (vis_model, geometry_cadence)
{
    uint32_t g[100];
    int n;
    s_geometry_frames (73, g, &n);
    cr_assert_eq (n, 2);
    cr_assert_eq (g[0], 0u);
    cr_assert_eq (g[1], 73u);
    s_geometry_frames (10, g, &n);
    cr_assert_eq (n, 8);
    for (int i = 0; i < n; i++)
        cr_assert_eq (g[i], (uint32_t) (10 * i));
    s_geometry_frames (0, g, &n);
    cr_assert_eq (n, 74, "0 means every frame");
}

Test (vis_model, outage_then_geometry)
{
    sim_config_t cfg = vis_test_cfg ("none");
    cfg.realism.vision_delay = 0;
    cfg.vision.geometry_every_n_frames = 10;
    cfg.vision.outage_count = 1;
    cfg.vision.outages[0] = (sim_outage_cfg_t) { 0.05, 0.3 };
    vis_model_t *m = sim_fc_model_new (&cfg);
    uint32_t last = 0;
    bool seen_after = false;
    for (int k = 1; k <= 1000; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            double t = (double) f->capture_ns * 1e-9;
            cr_assert (t < 0.05 || t >= 0.35, "nothing inside the outage");
            if (f->camera_index == 0 && t >= 0.35 && !seen_after) {
                seen_after = true;
                cr_assert (f->geometry, "the first camera-0 frame after a long gap carries geometry");
                cr_assert (f->frame_number > last + 20, "frame numbers kept counting");
            }
            if (f->camera_index == 0)
                last = f->frame_number;
        }
    }
    cr_assert (seen_after);
    vis_model_destroy (&m);
}

Test (vis_model, rig_replacement_at_runtime)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    for (int k = 1; k <= 100; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        vis_model_advance (m, &s);
    }
    cfg.vision.camera_count = 1;
    cfg.vision.cameras[0] = (sim_camera_cfg_t) { .id = 5, .x = 0, .y = 0, .z = 6.0 };
    cfg.rig_generation++;
    sim_fc_model_set (m, &cfg);
    cr_assert_eq (vis_model_rig (m)->count, 1);
    bool first = true;
    int old = 0;
    for (int k = 101; k <= 300; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            if (f->capture_ns <= 100000000u) {
                old++; /* queued before the replacement: kept */
                continue;
            }
            cr_assert_eq (f->camera_id, 5);
            if (first) {
                cr_assert_eq (f->capture_ns, 101000000u);
                cr_assert_eq (f->frame_number, 0u);
                cr_assert (f->geometry);
                first = false;
            }
        }
    }
    cr_assert (old >= 2);
    cr_assert (!first);
    vis_model_destroy (&m);
}

Test (vis_model, realism_change_at_runtime)
{
    sim_config_t cfg = vis_test_cfg ("none");
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s = s_scene (1000000);
    vis_frame_t a, b;
    vis_model_capture (m, 0, 5, &s, &a);
    char err[128];
    cr_assert_eq (sim_config_apply_realism (&cfg, "realistic", err, sizeof err), 0);
    sim_fc_model_set (m, &cfg);
    vis_model_capture (m, 0, 5, &s, &b);
    cr_assert_eq (a.blue[0].x, 0.2);
    cr_assert (fabs (b.blue[0].x - 0.2) > 1e-6, "realistic adds calibration error and noise");
    cr_assert (fabs (b.blue[0].x - 0.2) < 0.1);
    vis_model_destroy (&m);
}

/* A warp wavelength switched at runtime refits the warp's gains: the
   calibration state is the one a model started with it draws. */
Test (vis_model, warp_length_change_draws_the_calibration_again)
{
    sim_config_t cfg = vis_test_cfg ("realistic"), longer = cfg;
    longer.realism.calibration_warp_length = 5.0;
    vis_model_t *switched = sim_fc_model_new (&cfg), *started = sim_fc_model_new (&longer);
    cr_assert (memcmp (vis_model_calib (switched, 0), vis_model_calib (started, 0), sizeof (vis_calib_t))
                   != 0,
               "the wavelength changes the gains");
    sim_fc_model_set (switched, &longer);
    for (int i = 0; i < vis_model_rig (started)->count; i++)
        cr_expect (memcmp (vis_model_calib (switched, i), vis_model_calib (started, i), sizeof (vis_calib_t))
                       == 0,
                   "camera %d", i);
    vis_model_destroy (&switched);
    vis_model_destroy (&started);
}

Test (vis_model, report_keys)
{
    sim_config_t cfg = vis_test_cfg ("none");
    cfg.realism.report_ball_area = false;
    cfg.vision.report_ball_z = true;
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s = s_scene (1000000);
    vis_frame_t f;
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.ball_count, 1);
    cr_assert (!f.balls[0].has_area);
    cr_assert (f.balls[0].has_z);
    cr_assert_float_eq (f.balls[0].z, 0.0215, 1e-12);
    vis_model_destroy (&m);
}

/* Balls of `frames` captures of s_scene by camera 0 of m: how many, and
   how many carry an area. */
static void
s_count_areas (vis_model_t *m, uint32_t first, uint32_t frames, int *balls, int *with_area)
{
    *balls = *with_area = 0;
    sim_snapshot_t s = s_scene (1000000);
    vis_frame_t f;
    for (uint32_t k = first; k < first + frames; k++) {
        vis_model_capture (m, 0, k, &s, &f);
        for (int i = 0; i < f.ball_count; i++) {
            (*balls)++;
            *with_area += f.balls[i].has_area;
        }
    }
}

/* SSL-Vision at GO 2026 sent no ball area: go26 reports none on any ball
   (the real one, dribbler and ghost balls), realistic on every one, and a
   preset switched at runtime takes its report_ball_area along
   (docs/vision.md "Realism at runtime"). */
Test (vis_model, go26_balls_have_no_area_and_realistic_balls_do)
{
    char err[256];
    sim_config_t cfg = vis_test_cfg ("realistic");
    cr_assert (cfg.realism.report_ball_area);
    vis_model_t *m = sim_fc_model_new (&cfg);
    int balls, with_area;
    s_count_areas (m, 0, 500, &balls, &with_area);
    cr_assert_gt (balls, 400);
    cr_expect_eq (with_area, balls, "realistic: %d of %d balls with an area", with_area, balls);

    cr_assert_eq (sim_config_switch_realism (&cfg, "go26", err, sizeof err), 0, "%s", err);
    cr_assert_not (cfg.realism.report_ball_area);
    sim_fc_model_set (m, &cfg);
    s_count_areas (m, 500, 500, &balls, &with_area);
    cr_assert_gt (balls, 400);
    cr_expect_eq (with_area, 0, "go26 after a switch: %d of %d balls with an area", with_area, balls);

    cr_assert_eq (sim_config_switch_realism (&cfg, "realistic", err, sizeof err), 0, "%s", err);
    sim_fc_model_set (m, &cfg);
    s_count_areas (m, 1000, 500, &balls, &with_area);
    cr_expect_eq (with_area, balls, "realistic again: %d of %d balls with an area", with_area, balls);
    vis_model_destroy (&m);

    /* started with go26 */
    cfg = vis_test_cfg ("go26");
    m = sim_fc_model_new (&cfg);
    s_count_areas (m, 0, 500, &balls, &with_area);
    cr_assert_gt (balls, 400);
    cr_expect_eq (with_area, 0, "go26: %d of %d balls with an area", with_area, balls);
    vis_model_destroy (&m);
}

Test (vis_model, empty_rig_emits_nothing)
{
    sim_config_t cfg = vis_test_cfg ("none");
    cfg.vision.frame_rate = 73.3;
    vis_model_t *m = sim_fc_model_new (&cfg);
    /* a zero-size explicit rig is not expressible; an empty frame still is */
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = 1000000;
    s.ball.x = 100; /* outside every FOV */
    vis_frame_t f;
    vis_model_capture (m, 0, 0, &s, &f);
    cr_assert_eq (f.ball_count + f.blue_count + f.yellow_count, 0, "an empty frame is still a frame");
    vis_model_destroy (&m);
}

Test (vis_model, all_eight_presets)
{
    static const struct {
        const char *name;
        double delay, processing, overlap; /* processing: the median */
    } p[] = {
        { "none", 0.035, 0.005, 0.3 },
        { "realistic", 0.022, 0.00675, 0.8 },
        { "go26", 0.022, 0.00569, 0.8 },
        { "rc26", 0.022, 0.00829, 0.8 },
        { "vp26", 0.022, 0.005, 0.8 },
        { "erforce_friendly", 0.035, 0.010, 1.0 },
        { "erforce_realistic", 0.035, 0.010, 1.0 },
        { "erforce_rc2021", 0.035, 0.010, 1.0 },
    };
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
        sim_config_t cfg = vis_test_cfg (p[k].name);
        cr_assert_float_eq (cfg.realism.camera_overlap, p[k].overlap, 1e-12, "%s", p[k].name);
        vis_model_t *m = sim_fc_model_new (&cfg);
        int frames = 0;
        for (int t = 1; t <= 200; t++) {
            sim_snapshot_t s = s_scene ((uint64_t) t * 1000000u);
            int n = vis_model_advance (m, &s);
            for (int i = 0; i < n; i++) {
                const vis_frame_t *f = vis_model_released (m, i);
                cr_assert_eq (f->due_ns - f->capture_ns, (uint64_t) llround (p[k].delay * 1e9), "%s delay",
                              p[k].name);
                /* t_capture: the true instant (the substep end without
                   jitter) + delay - median processing time */
                double leave = (double) f->capture_ns * 1e-9 + p[k].delay;
                double early = leave - f->t_capture - p[k].processing;
                cr_assert (early > -1e-12 && early < 0.0025, "%s instant %g before the substep end",
                           p[k].name, early);
                if (cfg.realism.capture_jitter == 0 && cfg.realism.capture_late_rate == 0)
                    cr_assert_float_eq (early, 0, 1e-12, "%s", p[k].name);
                if (cfg.realism.vision_processing_p90 <= cfg.realism.vision_processing_time
                    && cfg.realism.capture_jitter == 0)
                    cr_assert_float_eq (f->t_sent, leave, 1e-12, "%s: a constant processing time", p[k].name);
                /* robot blue 3 at (0.2, -2.0) is seen by camera 0 (unless dropped) */
                for (int j = 0; j < f->blue_count; j++)
                    if (f->blue[j].id == 3)
                        cr_assert_float_eq (f->blue[j].x, 0.2, 0.12, "%s", p[k].name);
                frames++;
            }
        }
        cr_assert (frames >= 2 * 12, "%s: %d frames", p[k].name, frames);
        vis_model_destroy (&m);
    }
}

Test (vis_model, long_queue_and_lowered_delay)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.vision.default_camera_count = 4;
    cfg.realism.vision_delay = 1.0; /* ~300 frames in flight: the queue grows */
    vis_model_t *m = sim_fc_model_new (&cfg);
    uint64_t last_capture = 0;
    uint32_t next_frame[4] = { 0 };
    int released = 0;
    for (int k = 1; k <= 2300; k++) {
        if (k == 1200) {
            /* lowering the delay never lets a newer frame overtake */
            cfg.realism.vision_delay = 0.0;
            sim_fc_model_set (m, &cfg);
        }
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        if (k < 1001)
            cr_assert_eq (n, 0);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            cr_assert (f->capture_ns >= last_capture);
            last_capture = f->capture_ns;
            cr_assert_eq (f->frame_number, next_frame[f->camera_index]++);
            cr_assert (f->due_ns <= s.time_ns);
            if (f->capture_ns >= 1200000000u && f->capture_ns < 2187000000u)
                cr_assert (s.time_ns >= 2187000000u, "waits behind the older frames (last due 2.187 s)");
            released++;
        }
    }
    /* every capture up to 2.3 s is out: 4 cameras x 169 instants */
    cr_assert_eq (released, 4 * 169);
    vis_model_destroy (&m);
}

/* Every point of the field (with its boundary) is seen by at least one
   camera of the auto-placed rigs, and only within the FOV. */
static void
s_coverage (sim_division_t division, int count, double hl, double hw)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.run.division = division;
    cfg.vision.default_camera_count = count;
    vis_model_t *m = sim_fc_model_new (&cfg);
    const sim_rig_t *rig = vis_model_rig (m);
    for (double x = -hl; x <= hl + 1e-9; x += 0.25)
        for (double y = -hw; y <= hw + 1e-9; y += 0.25) {
            int seen = 0;
            for (int c = 0; c < rig->count; c++)
                if (vis_region_visible (rig, c, x, y, cfg.realism.camera_overlap, cfg.vision.fov_radius)) {
                    seen++;
                    cr_assert (hypot (x - rig->cams[c].x, y - rig->cams[c].y) <= 6.6);
                }
            cr_assert (seen >= 1, "(%g, %g) unseen with %d cameras", x, y, rig->count);
        }
    vis_model_destroy (&m);
}

Test (vis_model, rigs_cover_the_field)
{
    s_coverage (SIM_DIVISION_A, 2, 6.3, 4.8);
    s_coverage (SIM_DIVISION_A, 4, 6.3, 4.8);
    s_coverage (SIM_DIVISION_B, 0, 4.8, 3.3);
    s_coverage (SIM_DIVISION_B, 2, 4.8, 3.3);
}

Test (vis_model, free_running_cameras_capture_apart)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    cfg.realism.vision_delay = 0;
    cfg.realism.capture_jitter = 0; /* the offsets alone */
    cfg.sim.seed = 3;
    vis_model_t *m = sim_fc_model_new (&cfg);
    uint64_t first[2] = { 0, 0 };
    for (int k = 1; k <= 20; k++) {
        sim_snapshot_t s = s_scene ((uint64_t) k * 1000000u);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            if (!first[f->camera_index])
                first[f->camera_index] = f->capture_ns;
        }
    }
    for (int c = 0; c < 2; c++) {
        uint64_t off = sim_fc_offset_ns (&cfg, c);
        uint64_t expect = off == 0 ? 1000000u : (off + 999999u) / 1000000u * 1000000u;
        cr_assert_eq (first[c], expect, "camera %d offset %lu", c, (unsigned long) off);
    }
    vis_model_destroy (&m);
}

/* Physics runs its own copy of the schedule and publishes a snapshot only
   when it is due; the model, fed exactly those snapshots, releases the same
   number of frames at the same instants (ARCHITECTURE.md §2). */
Test (vis_model, agrees_with_the_physics_schedule)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    cfg.vision.default_camera_count = 4;
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    cfg.vision.outage_count = 1;
    cfg.vision.outages[0] = (sim_outage_cfg_t) { 0.5, 0.25 };
    sim_schedule_t *phys = sim_fc_schedule_new (&cfg);
    vis_model_t *m = sim_fc_model_new (&cfg);
    int snapshots = 0, frames = 0;
    for (uint64_t t = 1000000; t <= 3000000000u; t += 1000000) {
        if (t == 1500000000u) {
            cfg.realism.vision_delay = 0.005; /* a runtime realism change */
            sim_fc_model_set (m, &cfg);
        }
        if (t < sim_schedule_next_due (phys))
            continue;
        uint32_t mask, fn[SIM_MAX_CAMERAS];
        int due = sim_schedule_advance (phys, t, sim_schedule_delay_ns (cfg.realism.vision_delay), &mask, fn);
        sim_snapshot_t s = s_scene (t);
        int n = vis_model_advance (m, &s);
        cr_assert_eq (n, due, "t = %lu", (unsigned long) t);
        for (int i = 0; i < n; i++)
            cr_assert_eq (vis_model_released (m, i)->due_ns <= t, true);
        frames += n;
        snapshots++;
    }
    /* 4 cameras x 220 instants in 3 s, less the 0.25 s outage (~18 each),
       less what is still queued at the end */
    cr_assert (frames > 4 * (220 - 19) - 8 && frames <= 4 * (220 - 18), "frames %d", frames);
    cr_assert (snapshots < 3000 / 2, "snapshots only when due: %d", snapshots);
    sim_schedule_destroy (&phys);
    vis_model_destroy (&m);
}

/* The truth stream keeps the rig's cadence (docs/vision.md): with the
   realistic capture jitter the two cameras' captures of one period often
   fall on neighbouring substeps and release a substep apart, yet one
   truth packet is due per period, never two within half a period. */
Test (vis_model, truth_keeps_the_camera_cadence)
{
    sim_config_t cfg = vis_test_cfg ("realistic");
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    uint64_t period = vis_model_period_ns (m), last = 0;
    int due = 0, split = 0, releases = 0;
    const int seconds = 20;
    for (uint64_t k = 1; k <= (uint64_t) seconds * 1000; k++) {
        sim_snapshot_t s = s_scene (k * 1000000u);
        int released = vis_model_advance (m, &s);
        releases += released > 0;
        split += released == 1;
        if (!vis_model_truth_due (m))
            continue;
        cr_assert_gt (released, 0, "truth due at %llu ns with nothing released",
                      (unsigned long long) s.time_ns);
        if (due > 0)
            cr_assert_geq (s.time_ns - last, period / 2, "two truth packets %llu ns apart",
                           (unsigned long long) (s.time_ns - last));
        cr_assert_eq (vis_model_truth_frame_number (m), (uint32_t) due, "truth frame numbers count by one");
        last = s.time_ns;
        due++;
    }
    double periods = (double) seconds * 1e9 / (double) period;
    cr_log_info ("%d release instants (%d with one camera), %d truth packets, %.1f periods", releases, split,
                 due, periods);
    cr_expect_gt (split, 0, "no capture of the two cameras split over substeps: the test shows nothing");
    cr_expect (fabs (due - periods) <= 1.0, "%d truth packets in %.1f periods", due, periods);
    vis_model_destroy (&m);
}
