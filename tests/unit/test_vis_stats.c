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

#include "common/config/config.h"
#include "engine/vision/vis_model.h"
#include "engine/vision/vis_region.h"
#include "tests/support/sim_from_config.h"

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
    double last_sent[2], last_t_capture[2];
    int frames[2];
    bool bad_interval, t_sent_back;
} s_stats_t;

/* The hard disc in force: none when the soft edge replaces it. */
static double
s_hard_fov (const vis_model_def_t *cfg)
{
    const sim_realism_t *r = &cfg->realism;
    return r->fov_edge_radius > 0 && r->fov_edge_width > 0 ? 0 : cfg->fov_radius;
}

/* The farthest a detection can be from a camera's nadir. */
static double
s_reach (const vis_model_def_t *cfg)
{
    const sim_realism_t *r = &cfg->realism;
    return s_hard_fov (cfg) > 0 ? cfg->fov_radius : r->fov_edge_radius + 30 * r->fov_edge_width;
}

static void
s_frame (const vis_model_t *m, const vis_frame_t *f, s_stats_t *st)
{
    const vis_model_def_t *cfg = vis_model_def (m);
    double fov = s_hard_fov (cfg);
    const sim_rig_t *rig = vis_model_rig (m);
    int c = f->camera_index;
    const sim_camera_cfg_t *cam = &rig->cams[c];
    sim_snapshot_t truth = s_scene (f->capture_ns);
    double t = (double) f->capture_ns * 1e-9;
    st->frames[c]++;
    if (st->last_capture[c]) {
        /* the true instants, GO-like jitter: within +-0.15 T of the grid */
        double d = f->t_capture - st->last_t_capture[c];
        if (fabs (d - 0.013643) > 0.3 * 0.013643)
            st->bad_interval = true;
        s_add (&st->interval[c], d);
    }
    st->last_capture[c] = f->capture_ns;
    st->last_t_capture[c] = f->t_capture;
    s_add (&st->latency, f->t_sent - f->t_capture);
    if (st->frames[c] > 1 && !(f->t_sent > st->last_sent[c]))
        st->t_sent_back = true;
    st->last_sent[c] = f->t_sent;

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
            if (hypot (d[i].x - cam->x, d[i].y - cam->y) > s_reach (cfg) + 0.1)
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
        /* the robots standing 6.8 m from a nadir are left to the FOV test */
        bool edge = hypot (r->x - cam->x, r->y - cam->y) > 6.2;
        if (vis_region_visible (rig, c, r->x, r->y, cfg->realism.camera_overlap, fov) && !edge) {
            st->robot_expected++;
            if (seen[r->team][r->id] == 0)
                st->robot_missing++;
            if (seen[r->team][r->id] == 2)
                st->duplicates++;
        } else if (!edge)
            cr_assert_eq (seen[r->team][r->id], 0, "a robot outside the region is never reported");
        double sx = r->x + cfg->spurious_ball_forward * cos (r->orientation);
        double sy = r->y + cfg->spurious_ball_forward * sin (r->orientation);
        if (vis_region_visible (rig, c, sx, sy, cfg->realism.camera_overlap, fov))
            st->spurious_expected += p_s;
    }

    /* balls */
    int real = 0;
    for (int i = 0; i < f->ball_count; i++) {
        const vis_ball_det_t *b = &f->balls[i];
        if (hypot (b->x - cam->x, b->y - cam->y) > s_reach (cfg) + 0.1)
            st->beyond_fov++;
        if (b->ghost)
            continue;
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
        && vis_region_visible (rig, c, truth.ball.x, truth.ball.y, cfg->realism.camera_overlap, fov)) {
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

    /* frame rate: 73.3 Hz (measured 73.11-73.29); one packet per capture;
       frame-period jitter sigma 0.2 ms (measured GO 0.14-0.25 ms) */
    for (int c = 0; c < 2; c++) {
        cr_assert (st.frames[c] >= 4395 && st.frames[c] <= 4397, "frames %d", st.frames[c]);
        cr_assert_float_eq (s_mean (&st.interval[c]), 0.013643, 0.00001);
        cr_assert (s_sd (&st.interval[c]) > 0.00014 && s_sd (&st.interval[c]) < 0.00025, "jitter %g",
                   s_sd (&st.interval[c]));
    }
    cr_assert (!st.bad_interval);
    /* t_sent - t_capture: measured 7.26 ms mean (GO 5.6-6.8, RC 8.7-8.9),
       t_sent increasing per camera */
    cr_assert_float_eq (s_mean (&st.latency), 0.00726, 0.0002);
    cr_assert (!st.t_sent_back, "t_sent goes back in a camera's stream");

    /* per-frame noise of standing robots, per camera: 0.42 mm, 4.3 mrad
       (measured 0.42 static - 0.67 slow; 4.29 - 6.3 mrad); each robot's
       sigma from ~4000 frames is good to ~1.1 %, so 7 % is many sigmas */
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
    cr_assert_float_eq (s_mean (&noise_p), 0.00042, 0.00003, "robot noise %g", s_mean (&noise_p));
    cr_assert_float_eq (s_mean (&noise_th), 0.0043, 0.0003, "robot phi noise %g", s_mean (&noise_th));
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
            /* and each camera's parallax of the marker-height error, away
               from its nadir (docs/vision.md, "Camera disagreement") */
            const sim_rig_t *rig = vis_model_rig (m);
            for (int c = 0; c < 2; c++) {
                const sim_camera_cfg_t *cam = &rig->cams[c];
                double k = r->robot_marker_height_error / (cam->z - 0.15);
                double *e = c ? e1 : e0;
                e[0] += (p.x - cam->x) * k;
                e[1] += (p.y - cam->y) * k;
            }
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

    /* confidences: N(0.9, 0.09) clamped to 1 (measured robot mean 0.896,
       sigma 0.080; clamped, the model's are 0.894 and 0.080; ~10^5
       detections put both within 0.001) */
    cr_assert_float_eq (s_mean (&st.robot_conf), 0.896, 0.005);
    cr_assert_float_eq (s_sd (&st.robot_conf), 0.080, 0.005);
    cr_assert_float_eq (s_mean (&st.ball_conf), 0.896, 0.01);

    /* single-frame dropouts: robots 0.17 % (measured 0.169 %): ~140 losses
       in 80 000, so +-35 % is 4 sigma; balls far from robots: the loss
       bursts, 4 % of frames lost (in bursts of 2.6 frames: ~50 bursts in
       3000 frames, +-50 % is 3.5 sigma) */
    double robot_drop = st.robot_missing / st.robot_expected;
    cr_assert (st.robot_expected > 80000);
    cr_assert (robot_drop > 0.0011 && robot_drop < 0.0023, "robot dropout %g", robot_drop);
    double ball_drop = st.ball_missing / st.ball_expected;
    cr_assert (st.ball_expected > 3000);
    cr_assert (ball_drop > 0.02 && ball_drop < 0.06, "ball dropout %g", ball_drop);

    /* duplicates: 3e-5 per robot detection (measured 932 in 31.4 M) */
    cr_assert (st.duplicates <= 15, "duplicates %g", st.duplicates);

    /* spurious balls: 0.02 per robot per second per camera seeing the point */
    cr_assert (st.spurious_expected > 20);
    /* per robot per second over every camera: measured 0.0343 pooled */
    cr_log_info ("false dribbler balls: %g per robot per second expected, %g seen (%g in %g s, %d robots)",
                 st.spurious_expected / (2 * NTEAM * DURATION_S), st.spurious / (2 * NTEAM * DURATION_S),
                 st.spurious, DURATION_S, 2 * NTEAM);
    double ratio = st.spurious / st.spurious_expected;
    cr_assert (ratio > 0.5 && ratio < 1.5, "spurious %g of %g expected", st.spurious, st.spurious_expected);

    /* nothing beyond the FOV radius */
    cr_assert_eq (st.beyond_fov, 0.0);
    vis_model_destroy (&m);
}

/* ---- round 2: every row of the measured 2026 table, per preset ---------
   Each statistic is taken from the camera model directly (vis_model_capture
   on hand-made snapshots), so the whole set runs in a few seconds. The
   measured numbers and their sources are in docs/vision.md. */

static const char *const s_presets[] = { "realistic", "go26", "rc26" };

static sim_config_t
s_preset_cfg (const char *preset, uint64_t seed)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    cr_assert_eq (sim_config_apply_realism (&cfg, preset, err, sizeof err), 0, "%s", err);
    cfg.sim.seed = seed;
    return cfg;
}

static void
s_add_robot (sim_snapshot_t *s, int team, int id, double x, double y, double th)
{
    cr_assert (s->robot_count < SIM_SNAPSHOT_MAX_ROBOTS);
    s->robots[s->robot_count++] = (sim_robot_state_t) {
        .team = team,
        .id = id,
        .x = x,
        .y = y,
        .orientation = th,
        .radius = 0.09,
        .height = 0.15,
    };
}

/* Preset p's camera model at `seed`, and an empty scene at 1 ms in *s. */
static vis_model_t *
s_preset_scene (int p, uint64_t seed, sim_snapshot_t *s)
{
    sim_config_t cfg = s_preset_cfg (s_presets[p], seed);
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    memset (s, 0, sizeof *s);
    s->time_ns = MS;
    return m;
}

static int
s_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Wrap an angle difference into (-pi, pi]. */
static double
s_wrap (double a)
{
    while (a > M_PI)
        a -= 2 * M_PI;
    while (a <= -M_PI)
        a += 2 * M_PI;
    return a;
}

typedef struct {
    double abs_mean, phi_sd, dx_mean, dx_sd, dy_mean, dy_sd;
} s_disagree_t;

/* Both cameras' view of 45 standing robots spread over the overlap band
   (|x| <= 0.6 m, the whole width), 4 frames each. */
static s_disagree_t
s_disagreement (const char *preset, uint64_t seed)
{
    sim_config_t cfg = s_preset_cfg (preset, seed);
    vis_model_t *m = sim_fc_model_new (&cfg);
    cr_assert_not_null (m);
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = MS;
    s.ball = (sim_ball_state_t) { .x = 0, .y = 0, .z = 0.0215 };
    int id = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 9; j++, id++)
            s_add_robot (&s, id / 32, id % 32, -0.6 + 0.3 * i, -4 + j + 0.13 * i, 0.4 * id);
    s_acc_t abs = { 0 }, phi = { 0 }, dx = { 0 }, dy = { 0 };
    static vis_frame_t f0, f1;
    for (uint32_t frame = 0; frame < 4; frame++) {
        vis_model_capture (m, 0, frame, &s, &f0);
        vis_model_capture (m, 1, frame, &s, &f1);
        for (int team = 0; team < 2; team++) {
            const vis_robot_det_t *a = team ? f0.yellow : f0.blue, *b = team ? f1.yellow : f1.blue;
            int na = team ? f0.yellow_count : f0.blue_count, nb = team ? f1.yellow_count : f1.blue_count;
            for (int i = 0; i < na; i++)
                for (int k = 0; k < nb; k++)
                    if (a[i].id == b[k].id) {
                        double ddx = a[i].x - b[k].x, ddy = a[i].y - b[k].y;
                        s_add (&abs, hypot (ddx, ddy));
                        s_add (&dx, ddx);
                        s_add (&dy, ddy);
                        s_add (&phi, s_wrap (a[i].orientation - b[k].orientation));
                        break;
                    }
        }
    }
    cr_assert (abs.n > 150, "robots seen by both cameras: %g", abs.n);
    vis_model_destroy (&m);
    return (s_disagree_t) {
        s_mean (&abs), sqrt (phi.s2 / phi.n), s_mean (&dx), s_sd (&dx), s_mean (&dy), s_sd (&dy),
    };
}

Test (vis_stats, camera_disagreement_in_band_for_nine_of_ten_seeds, .timeout = 60)
{
    for (int p = 0; p < 3; p++) {
        int ok = 0;
        for (uint64_t seed = 0; seed < 10; seed++) {
            s_disagree_t d = s_disagreement (s_presets[p], seed);
            bool in;
            if (p == 0)
                /* pooled: |d| mean 20.3 mm (+-20 %), orientation sigma 28.9 mrad (25-32 per log) */
                in = d.abs_mean > 0.0162 && d.abs_mean < 0.0244 && d.phi_sd > 0.020 && d.phi_sd < 0.038;
            else if (p == 1)
                /* GO: no constant part (+-7 mm), 13-15 mm spatial sigma */
                in = fabs (d.dx_mean) < 0.010 && fabs (d.dy_mean) < 0.010 && d.dx_sd > 0.008
                  && d.dx_sd < 0.021 && d.dy_sd > 0.008 && d.dy_sd < 0.021 && d.phi_sd > 0.020
                  && d.phi_sd < 0.038;
            else
                /* RC: a constant 2.0-2.6 cm along x, sigma 8-10 mm around it */
                in = fabs (d.dx_mean) > 0.019 && fabs (d.dx_mean) < 0.027 && d.dx_sd > 0.005
                  && d.dx_sd < 0.014 && fabs (d.dy_mean) < 0.008 && d.phi_sd > 0.020 && d.phi_sd < 0.038;
            cr_log_info ("%s seed %d: |d| %.1f mm, dphi %.1f mrad, dx %.1f +- %.1f, dy %.1f +- %.1f mm%s",
                         s_presets[p], (int) seed, d.abs_mean * 1e3, d.phi_sd * 1e3, d.dx_mean * 1e3,
                         d.dx_sd * 1e3, d.dy_mean * 1e3, d.dy_sd * 1e3, in ? "" : "  (out of band)");
            ok += in;
        }
        cr_expect (ok >= 9, "%s: camera disagreement in band for %d of 10 seeds", s_presets[p], ok);
    }
}

Test (vis_stats, processing_time_is_skewed_like_the_logs, .timeout = 30)
{
    /* t_sent - t_capture: pooled p50 6.75, p90 8.94, p99 10.48, mean 7.26 ms;
       per venue means GO 5.6-6.8, RC 8.7-8.9 ms */
    enum { N = 20000 };
    static double lat[N];
    for (int p = 0; p < 3; p++) {
        sim_snapshot_t s;
        vis_model_t *m = s_preset_scene (p, 3, &s);
        static vis_frame_t f;
        s_acc_t acc = { 0 };
        for (int i = 0; i < N; i++) {
            vis_model_capture (m, i & 1, (uint32_t) (i / 2), &s, &f);
            lat[i] = f.t_sent - f.t_capture;
            s_add (&acc, lat[i]);
        }
        qsort (lat, N, sizeof lat[0], s_cmp_double);
        double p50 = lat[N / 2], p90 = lat[N * 9 / 10], p99 = lat[N * 99 / 100];
        cr_log_info ("%s latency mean %.3f p50 %.3f p90 %.3f p99 %.3f ms", s_presets[p], s_mean (&acc) * 1e3,
                     p50 * 1e3, p90 * 1e3, p99 * 1e3);
        if (p == 0) {
            cr_expect_float_eq (p50, 0.00675, 0.0002);
            cr_expect_float_eq (p90, 0.00894, 0.0002);
            cr_expect_float_eq (p99, 0.01048, 0.0004);
            cr_expect_float_eq (s_mean (&acc), 0.00726, 0.0002);
        } else if (p == 1)
            cr_expect (s_mean (&acc) > 0.0056 && s_mean (&acc) < 0.0068, "GO mean %g", s_mean (&acc));
        else
            cr_expect (s_mean (&acc) > 0.0086 && s_mean (&acc) < 0.0090, "RC mean %g", s_mean (&acc));
        /* skewed: the upper tail is longer than the lower one */
        cr_expect (p90 - p50 > 3 * (p50 - lat[N / 10]));
        vis_model_destroy (&m);
    }
}

Test (vis_stats, field_of_view_edge_is_soft, .timeout = 30)
{
    /* robot miss rate vs nadir distance: <= 1.3 % to 6.5 m (0.39 % at
       6.25 m), 22.1 % at 6.75 m, 92.5 % at 7.25 m */
    static const double dist[] = { 6.25, 6.75, 7.25 };
    for (int p = 0; p < 3; p++) {
        sim_config_t cfg = s_preset_cfg (s_presets[p], 5);
        vis_model_t *m = sim_fc_model_new (&cfg);
        const sim_camera_cfg_t *cam = &vis_model_rig (m)->cams[0];
        double miss[3];
        for (int k = 0; k < 3; k++) {
            sim_snapshot_t s;
            memset (&s, 0, sizeof s);
            s.time_ns = MS;
            s.ball = (sim_ball_state_t) { .x = cam->x, .y = 0, .z = 0.0215 };
            /* eight robots on the circle's half away from the other camera */
            for (int i = 0; i < 8; i++) {
                double a = -1.2 + 2.4 * i / 7;
                s_add_robot (&s, 0, i, cam->x + dist[k] * cos (a), cam->y + dist[k] * sin (a), 0);
            }
            double n = 0, lost = 0;
            static vis_frame_t f;
            for (uint32_t frame = 0; frame < 2500; frame++) {
                vis_model_capture (m, 0, frame, &s, &f);
                n += 8;
                lost += 8 - f.blue_count;
            }
            miss[k] = lost / n;
        }
        cr_log_info ("%s FOV miss %.2f %% / %.1f %% / %.1f %%", s_presets[p], miss[0] * 100, miss[1] * 100,
                     miss[2] * 100);
        cr_expect (miss[0] < 0.013, "%s miss at 6.25 m %g", s_presets[p], miss[0]);
        cr_expect_float_eq (miss[1], 0.221, 0.02, "%s miss at 6.75 m %g", s_presets[p], miss[1]);
        cr_expect_float_eq (miss[2], 0.925, 0.015, "%s miss at 7.25 m %g", s_presets[p], miss[2]);
        vis_model_destroy (&m);
    }
}

/* One camera's view of the ball at (bx, by) over `frames` consecutive
   frames with the robots of `s`: fraction detected, and the fraction of
   frames lost in single-frame gaps. */
static double
s_ball_seen (vis_model_t *m, sim_snapshot_t *s, double bx, double by, uint32_t first, int frames,
             double *single)
{
    static vis_frame_t f;
    int seen = 0, singles = 0;
    bool prev = true, prev2 = true;
    s->ball = (sim_ball_state_t) { .x = bx, .y = by, .z = 0.0215 };
    for (int i = 0; i < frames; i++) {
        vis_model_capture (m, 1, first + (uint32_t) i, s, &f);
        bool got = false;
        for (int b = 0; b < f.ball_count; b++)
            got |= !f.balls[b].spurious;
        seen += got;
        /* the frame before the last was a lone gap */
        if (i >= 2 && !prev && prev2 && got)
            singles++;
        prev2 = prev;
        prev = got;
    }
    if (single)
        *single = (double) singles / frames;
    return (double) seen / frames;
}

Test (vis_stats, ball_losses_are_bursty_and_grow_near_robots, .timeout = 60)
{
    for (int p = 0; p < 3; p++) {
        sim_config_t cfg = s_preset_cfg (s_presets[p], 7);
        vis_model_t *m = sim_fc_model_new (&cfg);
        /* far from robots: 0.5-0.7 % of frames in single-frame gaps (the
           games' 1.43 % is every ball, near robots too); with bursts of
           2.6 frames 4 % lost, the 0.96-0.97 detection of a ball 0.45 m
           from a robot. 60 000 frames: ~360 single gaps, +-0.15 % is 4
           sigma; ~900 bursts, +-0.6 % is about 4 sigma */
        sim_snapshot_t s;
        memset (&s, 0, sizeof s);
        s.time_ns = MS;
        s_add_robot (&s, 0, 0, 4, 3, 0);
        double single = 0;
        double far = s_ball_seen (m, &s, -2.4, -1, 0, 60000, &single);
        cr_log_info ("%s ball far: lost %.2f %%, single-frame %.2f %%", s_presets[p], (1 - far) * 100,
                     single * 100);
        cr_expect_float_eq (1 - far, 0.040, 0.006, "%s far loss %g", s_presets[p], 1 - far);
        cr_expect_float_eq (single, 0.006, 0.0015, "%s single-frame gaps %g", s_presets[p], single);

        /* the measured detection curve vs distance to the nearest robot
           centre, the robot on every side of the ball and anywhere in the
           camera's view */
        static const double d[] = { 0.09, 0.11, 0.13, 0.15, 0.19, 0.25, 0.31 };
        static const double want[] = { 0.63, 0.73, 0.79, 0.85, 0.91, 0.95, 0.93 };
        for (int k = 0; k < 7; k++) {
            double sum = 0;
            int runs = 0;
            for (int a = 0; a < 16; a++)
                for (int pos = 0; pos < 4; pos++) {
                    double bx = -4.5 + 1.3 * pos, by = -3 + 2 * (pos % 3);
                    double ang = a * M_PI / 8;
                    memset (&s, 0, sizeof s);
                    s.time_ns = MS;
                    s_add_robot (&s, 0, 0, bx + d[k] * cos (ang), by + d[k] * sin (ang), ang + M_PI);
                    sum += s_ball_seen (m, &s, bx, by, (uint32_t) (1000 * (a * 4 + pos)), 250, NULL);
                    runs++;
                }
            double got = sum / runs;
            cr_log_info ("%s ball at %.2f m from a robot: detected %.3f (measured %.2f)", s_presets[p], d[k],
                         got, want[k]);
            /* the table's rows: 0.91 / 0.93 at 0.19 / 0.31 m */
            double tol = (k == 4 || k == 6) ? 0.035 : 0.07;
            cr_expect_float_eq (got, want[k], tol, "%s at %.2f m: %g", s_presets[p], d[k], got);
        }
        vis_model_destroy (&m);
    }
}

Test (vis_stats, balls_per_frame_follow_the_logs, .timeout = 30)
{
    /* balls per camera frame: 0: 44.9 %, 1: 53.4 %, 2: 1.57 %, >= 3: 0.12 %
       (3: 0.090, 4: 0.024, >= 5: 0.008 %), the real ball roaming the whole
       field among 22 robots so that a camera sees it about half the time */
    for (int p = 0; p < 3; p++) {
        sim_config_t cfg = s_preset_cfg (s_presets[p], 11);
        vis_model_t *m = sim_fc_model_new (&cfg);
        enum { N = 60000 };
        double count[4] = { 0 };
        static vis_frame_t f;
        for (int i = 0; i < N; i++) {
            sim_snapshot_t s;
            memset (&s, 0, sizeof s);
            s.time_ns = MS;
            for (int r = 0; r < 22; r++)
                s_add_robot (&s, r / 11, r % 11, -5.5 + 0.5 * r, 3.5 * sin (r * 1.7 + i * 0.001),
                             r + i * 0.01);
            double u = fmod (i * 0.6180339887, 1.0);
            s.ball = (sim_ball_state_t) { .x = -6 + 12 * u, .y = 4 * sin (i * 0.37), .z = 0.0215 };
            vis_model_capture (m, i & 1, (uint32_t) (i / 2), &s, &f);
            count[f.ball_count < 3 ? f.ball_count : 3]++;
        }
        for (int k = 0; k < 4; k++)
            count[k] /= N;
        cr_log_info ("%s balls per frame: 0: %.2f %%, 1: %.2f %%, 2: %.2f %%, >=3: %.3f %%", s_presets[p],
                     count[0] * 100, count[1] * 100, count[2] * 100, count[3] * 100);
        cr_expect_float_eq (count[0], 0.449, 0.05);
        cr_expect_float_eq (count[1], 0.534, 0.05);
        /* go26's robot LEDs add their own false balls (0.042-0.089 per robot
           per second there), so its two-ball frames may be more */
        if (p == 1)
            cr_expect (count[2] > 0.012 && count[2] < 0.035, "go26 two balls %g", count[2]);
        else
            cr_expect_float_eq (count[2], 0.0157, 0.004, "%s two balls %g", s_presets[p], count[2]);
        cr_expect (count[3] > 0.0004 && count[3] < 0.0025, "%s three or more %g", s_presets[p], count[3]);
        vis_model_destroy (&m);
    }
}

Test (vis_stats, ball_area_grows_concavely_with_height, .timeout = 30)
{
    /* area vs ball centre height, relative to 63.1 px on the floor:
       +14 % at 0.125 m, +40 % at 0.575 m, +58 % at 0.975 m (concave) */
    static const double z[] = { 0.125, 0.575, 0.975 };
    static const double want[] = { 0.14, 0.40, 0.58 };
    for (int p = 0; p < 3; p++) {
        sim_config_t cfg = s_preset_cfg (s_presets[p], 13);
        vis_model_t *m = sim_fc_model_new (&cfg);
        const sim_camera_cfg_t *cam = &vis_model_rig (m)->cams[1];
        double area[4];
        for (int k = 0; k < 4; k++) {
            sim_snapshot_t s;
            memset (&s, 0, sizeof s);
            s.time_ns = MS;
            s.ball = (sim_ball_state_t) { .x = cam->x, .y = cam->y + 1, .z = k == 0 ? 0.0215 : z[k - 1] };
            s_acc_t acc = { 0 };
            static vis_frame_t f;
            for (uint32_t frame = 0; frame < 3000; frame++) {
                vis_model_capture (m, 1, frame, &s, &f);
                for (int b = 0; b < f.ball_count; b++)
                    if (!f.balls[b].spurious)
                        s_add (&acc, f.balls[b].area);
            }
            cr_assert (acc.n > 2000);
            area[k] = s_mean (&acc);
        }
        cr_expect_float_eq (area[0], 63.0, 0.5, "%s floor area %g", s_presets[p], area[0]);
        for (int k = 0; k < 3; k++) {
            double gain = area[k + 1] / area[0] - 1;
            cr_log_info ("%s area at %.3f m: %+.1f %% (measured %+.0f %%)", s_presets[p], z[k], gain * 100,
                         want[k] * 100);
            cr_expect_float_eq (gain, want[k], 0.03, "%s area gain at %g m: %g", s_presets[p], z[k], gain);
        }
        vis_model_destroy (&m);
    }
}

/* The scheduled stream of one preset for `seconds`, snapshots where
   physics would publish them (the first substep end at or after each
   instant), a robot driving at 2 m/s along x: per camera the t_capture
   intervals and whether t_sent ever went back; the largest error of the
   moving robot against its true position at t_capture. */
typedef struct {
    s_acc_t interval;
    double late, intervals;
    bool t_sent_back;
    double worst_moving;
} s_timing_t;

static s_timing_t
s_timing (const char *preset, double seconds)
{
    sim_config_t cfg = s_preset_cfg (preset, 17);
    cfg.realism.stddev_robot_p = 0; /* to see the instant, not the noise */
    cfg.realism.object_position_offset = 0;
    cfg.realism.calibration_warp_stddev = 0;
    cfg.realism.robot_marker_height_error = 0;
    vis_model_t *m = sim_fc_model_new (&cfg);
    s_timing_t out;
    memset (&out, 0, sizeof out);
    double last_capture[2] = { 0, 0 }, last_sent[2] = { 0, 0 };
    uint64_t period = vis_model_period_ns (m);
    uint64_t t = 0, end = (uint64_t) (seconds * 1e9);
    while (true) {
        uint64_t due = sim_schedule_next_due (vis_model_schedule (m));
        uint64_t next = (due + MS - 1) / MS * MS;
        t = next > t ? next : t + MS;
        if (t > end)
            break;
        sim_snapshot_t s;
        memset (&s, 0, sizeof s);
        s.time_ns = t;
        double now = (double) t * 1e-9;
        s_add_robot (&s, 0, 0, -1 + 2 * fmod (now, 1.0), 1, 0);
        s.robots[0].vx = 2;
        s.ball = (sim_ball_state_t) { .x = 3, .y = -2, .z = 0.0215 };
        int n = vis_model_advance (m, &s);
        cr_assert (n >= 0);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (m, i);
            int c = f->camera_index;
            if (last_capture[c] > 0) {
                double d = f->t_capture - last_capture[c];
                s_add (&out.interval, d);
                out.intervals++;
                out.late += d > 1.3 * (double) period * 1e-9;
                out.t_sent_back |= !(f->t_sent > last_sent[c]);
            }
            last_capture[c] = f->t_capture;
            last_sent[c] = f->t_sent;
            /* the true instant from t_capture (t_capture = instant + delay
               - median processing) */
            double instant = f->t_capture - cfg.realism.vision_delay + cfg.realism.vision_processing_time;
            double u = fmod (instant, 1.0);
            for (int k = 0; k < f->blue_count; k++) {
                double err = fabs (f->blue[k].x - (-1 + 2 * u));
                if (err < 0.5 && err > out.worst_moving)
                    out.worst_moving = err;
            }
        }
    }
    vis_model_destroy (&m);
    return out;
}

Test (vis_stats, capture_instants_jitter_like_the_venues, .timeout = 60)
{
    /* frame-period jitter: GO sigma 0.14-0.25 ms; RC 1.24-1.34 ms with ~1 %
       of frames 1.5 periods late; the mean period stays 13.643 ms */
    for (int p = 0; p < 3; p++) {
        s_timing_t tm = s_timing (s_presets[p], 120);
        double sd = s_sd (&tm.interval), late = tm.late / tm.intervals;
        cr_log_info (
            "%s capture interval mean %.4f ms, sigma %.3f ms, %.2f %% late; moving robot off by %.2f mm",
            s_presets[p], s_mean (&tm.interval) * 1e3, sd * 1e3, late * 100, tm.worst_moving * 1e3);
        cr_expect_float_eq (s_mean (&tm.interval), 0.013643, 0.00002, "%s", s_presets[p]);
        if (p < 2) {
            cr_expect (sd > 0.00014 && sd < 0.00025, "%s jitter %g", s_presets[p], sd);
            cr_expect_eq (late, 0);
        } else {
            cr_expect (sd > 0.00118 && sd < 0.0014, "rc26 jitter %g", sd);
            cr_expect (late > 0.006 && late < 0.014, "rc26 late frames %g", late);
        }
        cr_expect (!tm.t_sent_back, "%s: t_sent keeps increasing per camera", s_presets[p]);
        /* positions are the world's at the true instant (2 m/s: a whole
           substep off would be 2 mm); orientation noise is the rest */
        cr_expect (tm.worst_moving < 0.0002, "%s moving robot off by %g m", s_presets[p], tm.worst_moving);
    }
}

Test (vis_stats, confidences_like_the_venues, .timeout = 30)
{
    /* robot confidence: mean 0.896, sigma 0.080 (pooled); ball confidence:
       mean 0.913 pooled, GO 0.65-0.75, RC 0.90-1.00. 2000 frames of 12
       robots and a ball in camera 1's view: a mean of 2000 values of sigma
       0.08 is good to 0.002 */
    static const double ball_lo[] = { 0.913 * 0.8, 0.65, 0.90 }, ball_hi[] = { 0.913 * 1.2, 0.75, 1.00 };
    for (int p = 0; p < 3; p++) {
        sim_snapshot_t s;
        vis_model_t *m = s_preset_scene (p, 19, &s);
        for (int i = 0; i < 12; i++)
            s_add_robot (&s, i / 6, i % 6, -4 + 0.6 * i, 2.5, 0);
        s.ball = (sim_ball_state_t) { .x = -2.4, .y = -1, .z = 0.0215 };
        s_acc_t robot = { 0 }, ball = { 0 };
        static vis_frame_t f;
        for (uint32_t frame = 0; frame < 2000; frame++) {
            vis_model_capture (m, 1, frame, &s, &f);
            for (int i = 0; i < f.blue_count; i++)
                s_add (&robot, f.blue[i].confidence);
            for (int i = 0; i < f.yellow_count; i++)
                s_add (&robot, f.yellow[i].confidence);
            for (int b = 0; b < f.ball_count; b++)
                if (!f.balls[b].spurious)
                    s_add (&ball, f.balls[b].confidence);
        }
        cr_log_info ("%s confidence: robots mean %.3f sigma %.3f (%g); ball mean %.3f (%g)", s_presets[p],
                     s_mean (&robot), s_sd (&robot), robot.n, s_mean (&ball), ball.n);
        cr_assert (robot.n > 10000 && ball.n > 1800);
        cr_expect (s_mean (&robot) > 0.896 * 0.8 && s_mean (&robot) < 0.896 * 1.2);
        cr_expect (s_sd (&robot) > 0.080 * 0.8 && s_sd (&robot) < 0.080 * 1.2, "%s robot confidence sigma %g",
                   s_presets[p], s_sd (&robot));
        cr_expect (s_mean (&ball) > ball_lo[p] && s_mean (&ball) < ball_hi[p], "%s ball confidence %g",
                   s_presets[p], s_mean (&ball));
        vis_model_destroy (&m);
    }
}
