/*  test_vis_stats.c - 60 s of a scripted scene through the camera model with
    the realistic preset; the released stream must land inside the bands of
    the measured 2026 table (spec/vision.md §12).

    Objects move kinematically (no physics). Snapshots are taken exactly
    where physics would publish them: at the first 1 ms substep end at or
    after sim_schedule_next_due.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "config.h"
#include "vision/model/vis_model.h"
#include "vision/model/vis_region.h"
#include "sim_from_config.h"

#define DURATION_S 60.0
#define MS         1000000ull
#define NTEAM      11

/* ---- the scene ---------------------------------------------------------- */

typedef struct {
    double x, y, th;
    bool moving;
} s_pose_t;

static s_pose_t
s_robot_pose (int team, int id, double t)
{
    /* clang-format off */
    static const double blue[NTEAM][3] = {
        { -5, -2.5, 0.0 }, { -3, -2.5, 0.1 }, { -1, -2.5, 0.2 }, { 1, -2.5, 0.3 },
        { 3, -2.5, 0.4 }, { 0.5, -0.5, 1.0 }, { -2, 1.2, -1.5 }, { 0, 0, 0 },
        { 0, 0, 0 }, { 2.4, 6.8, 0 }, { -5.5, 4.0, 2.0 },
    };
    /* clang-format on */
    /* clang-format off */
    static const double yellow[NTEAM][3] = {
        { -4, 2.5, 3.0 }, { -2, 2.5, 2.9 }, { 0, 2.5, 2.8 }, { 2, 2.5, 2.7 },
        { 4, 2.5, 2.6 }, { -0.4, -3.5, -2.0 }, { 2, 0.85, 1.5 }, { 0, 0, 0 },
        { 0, 0, 0 }, { -2.4, -6.75, 0 }, { 5.5, -4.0, -1.0 },
    };
    /* clang-format on */
    if (id == 7 || id == 8) {
        /* circles of 1 m radius at 0.5 m/s, heading along the path */
        double cx = id == 7 ? -3 : 3, cy = team == SIM_TEAM_BLUE ? -0.5 : -3.2;
        double a = 0.5 * t + id + team;
        double th = atan2 (cos (a), -sin (a));
        return (s_pose_t) { cx + cos (a), cy + sin (a), th, true };
    }
    const double *p = team == SIM_TEAM_BLUE ? blue[id] : yellow[id];
    return (s_pose_t) { p[0], p[1], p[2], false };
}

/* At rest far from robots for 20 s, then rolling at 1 m/s along y = 1
   between x = -4 and +4, past robots at 0.2 m and 0.15 m. */
static void
s_ball (double t, double *x, double *y)
{
    if (t < 20) {
        *x = -4.5;
        *y = -1.0;
        return;
    }
    double u = fmod (t - 20, 16.0);
    *x = u < 8 ? -4 + u : 4 - (u - 8);
    *y = 1.0;
}

static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    double t = (double) t_ns * 1e-9;
    s_ball (t, &s.ball.x, &s.ball.y);
    s.ball.z = 0.0215;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < NTEAM; id++) {
            s_pose_t p = s_robot_pose (team, id, t);
            s.robots[s.robot_count++] = (sim_robot_state_t) {
                .team = team,
                .id = id,
                .x = p.x,
                .y = p.y,
                .orientation = p.th,
                .radius = 0.09,
                .height = 0.15,
            };
        }
    return s;
}

/* ---- accumulators ------------------------------------------------------- */

typedef struct {
    double n, s, s2;
} s_acc_t;

static void
s_add (s_acc_t *a, double v)
{
    a->n++;
    a->s += v;
    a->s2 += v * v;
}

static double
s_mean (const s_acc_t *a)
{
    return a->s / a->n;
}
static double
s_sd (const s_acc_t *a)
{
    double m = s_mean (a);
    double v = a->s2 / a->n - m * m;
    return v > 0 ? sqrt (v) : 0;
}

typedef struct {
    s_acc_t x[2][2][NTEAM], y[2][2][NTEAM], th[2][2][NTEAM]; /* [cam][team][id] standing */
    s_acc_t ball_x[2], ball_y[2];                            /* at rest */
    s_acc_t interval[2], latency, robot_conf, ball_conf;
    double robot_expected, robot_missing;
    double ball_expected, ball_missing;
    double duplicates, robot_dets;
    double spurious, spurious_expected;
    double beyond_fov;
    uint64_t last_capture[2];
    int frames[2];
    bool bad_interval;
} s_stats_t;

static void
s_frame (const vis_model_t *m, const vis_frame_t *f, s_stats_t *st)
{
    const vis_model_def_t *cfg = vis_model_def (m);
    const sim_rig_t *rig = vis_model_rig (m);
    int c = f->camera_index;
    const sim_camera_cfg_t *cam = &rig->cams[c];
    sim_snapshot_t truth = s_scene (f->capture_ns);
    double t = (double) f->capture_ns * 1e-9;
    st->frames[c]++;
    if (st->last_capture[c]) {
        uint64_t d = f->capture_ns - st->last_capture[c];
        if (d != 13 * MS && d != 14 * MS)
            st->bad_interval = true;
        s_add (&st->interval[c], (double) d * 1e-9);
    }
    st->last_capture[c] = f->capture_ns;
    s_add (&st->latency, f->t_sent - f->t_capture);

    /* robots: which ought to be there, which are */
    int seen[2][NTEAM] = { { 0 } };
    for (int team = 0; team < 2; team++) {
        int n = team == 0 ? f->blue_count : f->yellow_count;
        const vis_robot_det_t *d = team == 0 ? f->blue : f->yellow;
        for (int i = 0; i < n; i++) {
            cr_assert (d[i].id >= 0 && d[i].id < NTEAM);
            seen[team][d[i].id]++;
            st->robot_dets++;
            s_add (&st->robot_conf, d[i].confidence);
            if (hypot (d[i].x - cam->x, d[i].y - cam->y) > cfg->fov_radius + 0.1)
                st->beyond_fov++;
            s_pose_t p = s_robot_pose (team, d[i].id, t);
            if (!p.moving && seen[team][d[i].id] == 1) {
                s_add (&st->x[c][team][d[i].id], d[i].x);
                s_add (&st->y[c][team][d[i].id], d[i].y);
                s_add (&st->th[c][team][d[i].id], d[i].orientation);
            }
        }
    }
    double p_s = cfg->realism.dribbler_ball_detections * (double) vis_model_period_ns (m) * 1e-9;
    for (int k = 0; k < truth.robot_count; k++) {
        const sim_robot_state_t *r = &truth.robots[k];
        if (vis_region_visible (rig, c, r->x, r->y, cfg->realism.camera_overlap, cfg->fov_radius)) {
            st->robot_expected++;
            if (seen[r->team][r->id] == 0)
                st->robot_missing++;
            if (seen[r->team][r->id] == 2)
                st->duplicates++;
        } else
            cr_assert_eq (seen[r->team][r->id], 0, "a robot outside the region is never reported");
        double sx = r->x + cfg->spurious_ball_forward * cos (r->orientation);
        double sy = r->y + cfg->spurious_ball_forward * sin (r->orientation);
        if (vis_region_visible (rig, c, sx, sy, cfg->realism.camera_overlap, cfg->fov_radius))
            st->spurious_expected += p_s;
    }

    /* balls */
    int real = 0;
    for (int i = 0; i < f->ball_count; i++) {
        const vis_ball_det_t *b = &f->balls[i];
        if (hypot (b->x - cam->x, b->y - cam->y) > cfg->fov_radius + 0.1)
            st->beyond_fov++;
        if (b->spurious) {
            st->spurious++;
            continue;
        }
        real++;
        s_add (&st->ball_conf, b->confidence);
        if (t < 20) {
            s_add (&st->ball_x[c], b->x);
            s_add (&st->ball_y[c], b->y);
        }
    }
    cr_assert (real <= 1);
    double near = 1e9;
    for (int k = 0; k < truth.robot_count; k++) {
        double d = hypot (truth.robots[k].x - truth.ball.x, truth.robots[k].y - truth.ball.y);
        if (d < near)
            near = d;
    }
    if (near > 0.5
        && vis_region_visible (rig, c, truth.ball.x, truth.ball.y, cfg->realism.camera_overlap,
                               cfg->fov_radius)) {
        st->ball_expected++;
        if (!real)
            st->ball_missing++;
    }
}

static void
s_run (vis_model_t *m, s_stats_t *st)
{
    memset (st, 0, sizeof *st);
    uint64_t t = 0, end = (uint64_t) (DURATION_S * 1e9);
    while (true) {
        uint64_t due = sim_schedule_next_due (vis_model_schedule (m));
        uint64_t next = (due + MS - 1) / MS * MS;
        if (next <= t)
            next = t + MS;
        t = next;
        if (t > end)
            break;
        sim_snapshot_t s = s_scene (t);
        int n = vis_model_advance (m, &s);
        cr_assert (n >= 0);
        for (int i = 0; i < n; i++)
            s_frame (m, vis_model_released (m, i), st);
    }
}

Test (vis_stats, realistic_stream_matches_2026_table, .timeout = 30)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.seed = 42;
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    static s_stats_t st;
    s_run (m, &st);

    /* frame rate: 73.3 Hz, intervals 13 or 14 ms; one packet per capture */
    for (int c = 0; c < 2; c++) {
        cr_assert (st.frames[c] >= 4395 && st.frames[c] <= 4397, "frames %d", st.frames[c]);
        cr_assert_float_eq (s_mean (&st.interval[c]), 0.013643, 0.00001);
        cr_assert_float_eq (s_sd (&st.interval[c]), 0.00048, 0.00003);
    }
    cr_assert (!st.bad_interval);
    /* t_sent - t_capture: measured 7.26 ms mean (GO 5.6-6.8, RC 8.7-8.9) */
    cr_assert_float_eq (s_mean (&st.latency), 0.0073, 1e-9);
    cr_assert (s_sd (&st.latency) < 1e-9);

    /* per-frame noise of standing robots, per camera: 0.5 mm, 5 mrad
       (measured 0.42 static - 0.67 slow; 4.3 - 6.3 mrad) */
    s_acc_t noise_p = { 0 }, noise_th = { 0 };
    for (int c = 0; c < 2; c++)
        for (int team = 0; team < 2; team++)
            for (int id = 0; id < NTEAM; id++)
                if (st.x[c][team][id].n > 500) {
                    s_add (&noise_p, s_sd (&st.x[c][team][id]));
                    s_add (&noise_p, s_sd (&st.y[c][team][id]));
                    s_add (&noise_th, s_sd (&st.th[c][team][id]));
                }
    cr_assert (noise_p.n >= 30);
    cr_assert_float_eq (s_mean (&noise_p), 0.0005, 0.00003, "robot noise %g", s_mean (&noise_p));
    cr_assert_float_eq (s_mean (&noise_th), 0.005, 0.0003, "robot phi noise %g", s_mean (&noise_th));
    /* ball at rest: 0.7 mm (measured 0.71, 0.53-0.96) */
    cr_assert (st.ball_x[1].n > 1000);
    cr_assert_float_eq (s_sd (&st.ball_x[1]), 0.0007, 0.00005);
    cr_assert_float_eq (s_sd (&st.ball_y[1]), 0.0007, 0.00005);

    /* camera-to-camera disagreement of standing robots in the overlap band:
       exactly the static calibration difference, plus noise */
    const sim_realism_t *r = &cfg.realism;
    int both = 0;
    double dsum = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < NTEAM; id++) {
            if (st.x[0][team][id].n < 500 || st.x[1][team][id].n < 500)
                continue;
            both++;
            s_pose_t p = s_robot_pose (team, id, 0);
            double e0[3], e1[3];
            vis_calib_error (vis_model_calib (m, 0), r, p.x, p.y, &e0[0], &e0[1], &e0[2]);
            vis_calib_error (vis_model_calib (m, 1), r, p.x, p.y, &e1[0], &e1[1], &e1[2]);
            double dx = s_mean (&st.x[0][team][id]) - s_mean (&st.x[1][team][id]);
            double dy = s_mean (&st.y[0][team][id]) - s_mean (&st.y[1][team][id]);
            double dth = s_mean (&st.th[0][team][id]) - s_mean (&st.th[1][team][id]);
            /* noise on the mean of ~4000 samples is ~0.01 mm */
            cr_assert_float_eq (dx, e0[0] - e1[0], 0.0001);
            cr_assert_float_eq (dy, e0[1] - e1[1], 0.0001);
            cr_assert_float_eq (dth, e0[2] - e1[2], 0.001);
            /* measured |d| p99 54 mm, orientation p1..p99 +-60 mrad */
            cr_assert (hypot (dx, dy) < 0.08);
            cr_assert (fabs (dth) < 0.12);
            dsum += hypot (dx, dy);
        }
    cr_assert (both >= 3, "robots in the overlap band: %d", both);
    cr_assert (dsum / both > 0.002, "the two cameras disagree (mean %g m)", dsum / both);

    /* confidences: N(0.9, 0.05) clamped (measured robot mean 0.896) */
    cr_assert_float_eq (s_mean (&st.robot_conf), 0.9, 0.01);
    cr_assert_float_eq (s_sd (&st.robot_conf), 0.05, 0.005);
    cr_assert_float_eq (s_mean (&st.ball_conf), 0.9, 0.01);

    /* single-frame dropouts: robots 0.2 % (measured 0.169 %), balls far from
       robots 0.7 % (measured 0.5-0.7 %) */
    double robot_drop = st.robot_missing / st.robot_expected;
    cr_assert (st.robot_expected > 80000);
    cr_assert (robot_drop > 0.0014 && robot_drop < 0.0026, "robot dropout %g", robot_drop);
    double ball_drop = st.ball_missing / st.ball_expected;
    cr_assert (st.ball_expected > 3000);
    cr_assert (ball_drop > 0.0035 && ball_drop < 0.0105, "ball dropout %g", ball_drop);

    /* duplicates: 3e-5 per robot detection (measured 932 in 31.4 M) */
    cr_assert (st.duplicates <= 15, "duplicates %g", st.duplicates);

    /* spurious balls: 0.02 per robot per second per camera seeing the point */
    cr_assert (st.spurious_expected > 20);
    double ratio = st.spurious / st.spurious_expected;
    cr_assert (ratio > 0.5 && ratio < 1.5, "spurious %g of %g expected", st.spurious, st.spurious_expected);

    /* nothing beyond the FOV radius */
    cr_assert_eq (st.beyond_fov, 0.0);
    vis_model_destroy (&m);
}
