/*  stats.c - `ssl-sim stats`: read a log or listen, then print what
    sim_vstats measured, or the realism file sim_vstats_fit found. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "logtools.h"
#include "common/logs/sim_logfile.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"
#include "common/logs/sim_mfit.h"
#include "common/logs/sim_player.h"
#include "common/logs/sim_vstats.h"

static volatile sig_atomic_t s_stop;

static void
s_on_signal (int sig)
{
    (void) sig;
    s_stop = 1;
}

static int
s_read_log (sim_vstats_t *vs, sim_mfit_t *mf, const char *path)
{
    char err[SIM_LOGFILE_ERROR_MAX + 256] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    if (!r) {
        fprintf (stderr, "ssl-sim: stats: %s\n", err);
        launch_record_hint (path);
        return 1;
    }
    sim_logfile_msg_t m;
    int rc;
    /* receive times on play's timeline: a log continued hours later, or
       one bad timestamp, does not stretch the geometry's cadence */
    sim_player_clock_t clock = { 0 };
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        if (m.type != SIM_LOGFILE_VISION && m.type != SIM_LOGFILE_TRACKER && m.type != SIM_LOGFILE_REFEREE)
            continue;
        int64_t tl_ns = sim_player_clock_next (&clock, m.time_ns, NULL);
        if (m.type == SIM_LOGFILE_VISION) {
            sim_vstats_add_vision (vs, tl_ns, m.data, m.len);
            if (mf)
                sim_mfit_add_vision (mf, m.data, m.len);
        } else if (m.type == SIM_LOGFILE_TRACKER) {
            sim_vstats_add_truth (vs, m.data, m.len);
            if (mf)
                sim_mfit_add_tracker (mf, m.data, m.len);
        }
    }
    if (rc < 0) { /* what came before the damage still counts */
        fprintf (stderr, "ssl-sim: stats: %s (statistics up to there)\n", sim_logfile_error (r));
        launch_record_hint (path);
    }
    sim_logfile_reader_destroy (&r);
    return 0;
}

/* Listen to `addr` by the rule the simulator sends by (common/bus/
   sim_route): the port moved by the offset, a group joined on the
   loopback interface only with --localhost. The address listened to
   (after the offset) into where[64], said at once: the one a user must
   send to. */
static int
s_listen (sim_vstats_t *vs, sim_mfit_t *mf, const char *addr, double seconds, const sim_config_t *cfg,
          char where[64])
{
    sim_route_t route;
    if (sim_route_addr (cfg, addr, &route)) {
        fprintf (stderr, "ssl-sim: stats: --listen: '%s' is not HOST:PORT\n", addr);
        return 2;
    }
    sim_udp_addr_str (&route.addr, where, 64);
    int fd = sim_route_listen (&route);
    if (fd < 0) {
        fprintf (stderr, "ssl-sim: stats: cannot listen to %s: %s\n", where, strerror (errno));
        return 1;
    }
    fprintf (stderr, "ssl-sim: stats: listening to %s for %g s\n", where, seconds);
    signal (SIGINT, s_on_signal);
    signal (SIGTERM, s_on_signal);
    int64_t end = sim_logfile_now_ns () + (int64_t) (seconds * 1e9);
    static uint8_t buf[SIM_UDP_MAX];
    while (!s_stop) {
        int64_t left_ms = (end - sim_logfile_now_ns ()) / 1000000;
        if (left_ms <= 0)
            break;
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll (&p, 1, left_ms < 200 ? (int) left_ms + 1 : 200) <= 0)
            continue;
        ssize_t n;
        while ((n = sim_udp_recv (fd, buf, sizeof buf, NULL)) >= 0) {
            sim_vstats_add_vision (vs, sim_logfile_now_ns (), buf, (size_t) n);
            if (mf)
                sim_mfit_add_vision (mf, buf, (size_t) n);
        }
    }
    close (fd);
    return 0;
}

static void
s_print (const sim_vstats_report_t *r)
{
    printf (
        "detection frames %llu, geometry packets %llu (every %.3f s), undecodable %llu, truth frames %llu\n",
        (unsigned long long) r->frames, (unsigned long long) r->geometry, r->geometry_period_s,
        (unsigned long long) r->undecodable, (unsigned long long) r->truth_frames);
    printf ("\ncamera  frames   rate Hz  period ms  jitter ms  late %%  duplicates  nadir x,y,z m\n");
    for (int i = 0; i < SIM_VSTATS_CAMERAS; i++) {
        const sim_vstats_camera_t *c = &r->camera[i];
        if (!c->seen)
            continue;
        printf ("%6d  %6llu  %8.2f  %9.3f  %9.3f  %6.2f  %10llu", i, (unsigned long long) c->frames,
                c->rate_hz, c->period_ms, c->jitter_ms, 100 * c->late_share,
                (unsigned long long) c->duplicates);
        if (c->has_nadir)
            printf ("  %.2f, %.2f, %.2f", c->nadir_x, c->nadir_y, c->height);
        printf ("\n");
    }
    printf ("\nt_sent - t_capture ms: p50 %.3f  p90 %.3f  p99 %.3f  mean %.3f  (%zu frames)\n",
            r->latency_ms.p50, r->latency_ms.p90, r->latency_ms.p99, r->latency_ms.mean, r->latency_ms.n);
    printf ("noise (robust, per axis): robot %.3f mm, %.3f mrad (%zu); ball %.3f mm (%zu)\n",
            r->robot_noise_mm, r->robot_phi_noise_mrad, r->robot_noise_n, r->ball_noise_mm, r->ball_noise_n);
    printf ("confidence: robots mean %.3f min %.3f; balls mean %.3f min %.3f\n", r->robot_conf_mean,
            r->robot_conf_min, r->ball_conf_mean, r->ball_conf_min);
    printf (
        "dropouts: robots %.3f %% missing, %llu gaps (%llu single-frame); ball %.3f %% missing, %llu gaps "
        "(%llu single-frame, mean %.2f frames)\n",
        100 * r->robot_missing, (unsigned long long) r->robot_gaps, (unsigned long long) r->robot_gaps_single,
        100 * r->ball_missing, (unsigned long long) r->ball_gaps, (unsigned long long) r->ball_gaps_single,
        r->ball_gap_mean);
    printf ("duplicates: %llu robots twice in a frame\n", (unsigned long long) r->robot_duplicates);
    uint64_t total = 0;
    for (int k = 0; k < 6; k++)
        total += r->balls_per_frame[k];
    printf ("balls per frame:");
    for (int k = 0; k < 6; k++)
        printf (" %d%s %.3f %%", k, k == 5 ? "+" : ":",
                total ? 100.0 * (double) r->balls_per_frame[k] / (double) total : 0);
    printf ("; false balls %llu\n", (unsigned long long) r->false_balls);
    if (r->pairs)
        printf (
            "\ncameras  samples  mean mm  p50 mm  p90 mm  p99 mm  constant mm  spread mm  orientation mrad\n");
    for (size_t i = 0; i < r->pairs; i++) {
        const sim_vstats_pair_t *p = &r->pair[i];
        printf ("%3d-%-3d  %7zu  %7.2f  %6.2f  %6.2f  %6.2f  %11.2f  %9.2f  %16.2f\n", p->a, p->b, p->n,
                p->mean_mm, p->p50_mm, p->p90_mm, p->p99_mm, p->const_mm, p->spread_mm, p->phi_sigma_mrad);
    }
    if (r->has_truth)
        printf ("against truth (robots at rest): camera offset %.2f mm, warp %.2f mm per axis, orientation "
                "warp %.2f mrad\n",
                r->truth_offset_mm, r->truth_warp_mm, r->truth_phi_warp_mrad);
    printf ("\nrobot miss rate by distance from the nadir:\n");
    for (int b = 0; b < SIM_VSTATS_FOV_BINS; b++)
        if (r->fov_expected[b])
            printf ("  %5.2f-%5.2f m  %8llu  %7.3f %%\n", b * SIM_VSTATS_FOV_BIN,
                    (b + 1) * SIM_VSTATS_FOV_BIN, (unsigned long long) r->fov_expected[b],
                    100.0 * (double) (r->fov_expected[b] - r->fov_seen[b]) / (double) r->fov_expected[b]);
}

static void
s_print_fit (const sim_vstats_report_t *r, const sim_vstats_fit_t *f)
{
    printf ("; written by ssl-sim stats --fit from %llu detection frames (docs/stats.md)\n",
            (unsigned long long) r->frames);
    printf ("; camera offset and warps %s\n",
            f->offset_from_truth    ? "against the log's truth stream"
            : f->calibration_fitted ? "from camera-to-camera disagreement"
                                    : "not fitted: no truth stream, and no robot two cameras saw at once");
    printf ("[realism]\n");
    printf ("stddev_robot_p = %.6g\n", f->stddev_robot_p);
    printf ("stddev_robot_phi = %.6g\n", f->stddev_robot_phi);
    printf ("stddev_ball_p = %.6g\n", f->stddev_ball_p);
    printf ("missing_robot_detections = %.6g\n", f->missing_robot_detections);
    printf ("missing_ball_detections = 0\n");
    printf ("ball_loss_burst_rate = %.6g\n", f->ball_loss_burst_rate);
    printf ("ball_loss_burst_length = %.6g\n", f->ball_loss_burst_length < 1 ? 1 : f->ball_loss_burst_length);
    if (f->calibration_fitted) {
        printf ("object_position_offset = %.6g\n", f->object_position_offset);
        printf ("calibration_warp_stddev = %.6g\n", f->calibration_warp_stddev);
        /* the offset and warp above hold what a marker-height error shows */
        printf ("robot_marker_height_error = 0\n");
        printf ("calibration_orientation_warp = %.6g\n", f->calibration_orientation_warp);
    } else /* 0 would switch the camera warps off; left out, the configuration keeps its own */
        printf ("; object_position_offset, calibration_warp_stddev, robot_marker_height_error, "
                "calibration_orientation_warp: not fitted\n");
    printf ("vision_processing_time = %.6g\n", f->vision_processing_time);
    printf ("vision_processing_p90 = %.6g\n", f->vision_processing_p90);
    printf ("vision_processing_p99 = %.6g\n", f->vision_processing_p99);
    printf ("vision_processing_low_stddev = %.6g\n", f->vision_processing_low_stddev);
    printf ("capture_jitter = %.6g\n", fmin (f->capture_jitter, 0.002));
    printf ("capture_late_rate = %.6g\n", fmin (f->capture_late_rate, 0.1));
    printf ("ghost_ball_rate = %.6g\n", f->ghost_ball_rate);
    printf ("ghost_ball_more = %.6g\n", fmin (f->ghost_ball_more, 0.9));
}

/* One fitted key: a comment with its interval and events, then the
   key; or, with too few events, a comment that says so and no key (the
   loading configuration keeps its own value). `scale` turns the
   magnitude into the key's value (-1: a deceleration). Returns whether
   the key was written. */
static bool
s_key (const char *key, const sim_mfit_param_t *p, double scale, const char *what, const char *unit,
       const char *section, char *missing, size_t cap)
{
    if (p->events < SIM_MFIT_MIN_EVENTS) {
        printf ("; %s: not fitted, %d %s (%d needed)\n", key, p->events, what, SIM_MFIT_MIN_EVENTS);
        size_t len = strlen (missing);
        snprintf (missing + len, cap - len, "%s[%s] %s (%d %s, %d needed)", len ? ", " : "", section, key,
                  p->events, what, SIM_MFIT_MIN_EVENTS);
        return false;
    }
    /* every fitted magnitude is positive; a damping keeps at most all */
    if (!(p->value > 0) || (strstr (key, "damping") && p->value > 1)) {
        printf ("; %s: not written, %d %s give %.4g, outside the key's range (a warped camera?)\n", key,
                p->events, what, p->value * scale);
        size_t len = strlen (missing);
        snprintf (missing + len, cap - len, "%s[%s] %s (%d %s, out of range)", len ? ", " : "", section, key,
                  p->events, what);
        return false;
    }
    double a = p->lo * scale, b = p->hi * scale;
    printf ("; 95 %% interval %.4g .. %.4g %s from %d %s\n", a < b ? a : b, a < b ? b : a, unit, p->events,
            what);
    printf ("%s = %.6g\n", key, p->value * scale);
    return true;
}

/* The cap keys: the fastest kick seen is a lower bound of the cap. */
static void
s_cap_key (const char *key, const sim_mfit_param_t *p, const char *what, const char *section, char *missing,
           size_t cap)
{
    if (p->events < 1) {
        printf ("; %s: not fitted, no %s\n", key, what);
        size_t len = strlen (missing);
        snprintf (missing + len, cap - len, "%s[%s] %s (no %s)", len ? ", " : "", section, key, what);
        return;
    }
    printf ("; the fastest of %d %s (the cap is at least this; %.4g .. %.4g m/s)\n", p->events, what, p->lo,
            p->hi);
    printf ("%s = %.6g\n", key, p->value);
}

/* Where the heights set the chip keys, what vision alone gave, so the
   two can be compared. */
static void
s_print_vision_chips (const sim_mfit_result_t *m)
{
    printf ("; from vision alone, for comparison (%d flights, %d cameras' positions):\n", m->vision.flights,
            m->vision.cameras);
    const struct {
        const char *key;
        const sim_mfit_param_t *p;
    } rows[] = { { "chip_damping_xy_first_hop", &m->vision.xy_first },
                 { "chip_damping_xy_other_hops", &m->vision.xy_other },
                 { "chip_damping_z", &m->vision.z_first },
                 { "chip_damping_z_other_hops", &m->vision.z_other },
                 { "yellow max_chip_speed", &m->vision.chip[0] },
                 { "blue max_chip_speed", &m->vision.chip[1] } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].p->events > 0)
            printf (";   %s %.4g (%.4g .. %.4g) from %d\n", rows[i].key, rows[i].p->value, rows[i].p->lo,
                    rows[i].p->hi, rows[i].p->events);
        else
            printf (";   %s: nothing seen\n", rows[i].key);
}

/* The [ball] and per-team sections sim_mfit found, after the realism
   ones: one file that --config (and --realism) loads. */
static void
s_print_motion (const sim_mfit_result_t *m)
{
    char missing[2048] = "";
    printf (
        "\n; motion (docs/stats.md \"Motion\"): %d straight ball runs, %d chip flights%s\n", m->runs,
        m->has_heights ? m->flights : m->vision.flights,
        m->has_heights ? " (from the ball heights)"
        : m->vision.cameras
            ? " (from vision alone: the log has no ball heights, so chip hops are read from the ball's image "
              "against the cameras' positions)"
            : " (the log has no ball heights and no camera geometry: no chip hops)");
    if (m->truncated) {
        printf ("; fitted from the log's first %zu samples only\n", (size_t) SIM_MFIT_MAX_SAMPLES);
        fprintf (stderr, "ssl-sim: stats: the motion fit read only the log's first %zu samples\n",
                 (size_t) SIM_MFIT_MAX_SAMPLES);
    }
    printf ("[ball]\n");
    s_key ("acc_slide", &m->slide, -1, "flat kicks with a slide", "m/s^2", "ball", missing, sizeof missing);
    s_key ("acc_roll", &m->roll, -1, "rolling runs", "m/s^2", "ball", missing, sizeof missing);
    printf ("; held, not fitted: too weak to see in a log (acc_roll is read with it)\n");
    printf ("roll_speed_coefficient = %.6g\n", m->roll_speed_coefficient);
    if (m->k_switch.events >= SIM_MFIT_MIN_EVENTS && m->k_switch.value > 0) {
        sim_mfit_param_t p = m->k_switch;
        /* inertia_distribution p = 1 / k - 1, decreasing in k */
        double v = 1 / p.value - 1, lo = 1 / p.hi - 1, hi = p.lo > 0 ? 1 / p.lo - 1 : INFINITY;
        printf ("; switch ratio k %.4f (95 %% %.4f .. %.4f) from %d kicks; p = 1 / k - 1\n", p.value, p.lo,
                p.hi, p.events);
        printf ("; 95 %% interval %.4g .. %.4g\n", lo, hi);
        printf ("inertia_distribution = %.6g\n", v);
    } else
        s_key ("inertia_distribution", &m->k_switch, 1, "flat kicks with a switch", "", "ball", missing,
               sizeof missing);
    s_key ("chip_damping_xy_first_hop", &m->xy_first, 1, "first bounces", "", "ball", missing,
           sizeof missing);
    s_key ("chip_damping_xy_other_hops", &m->xy_other, 1, "later bounces", "", "ball", missing,
           sizeof missing);
    s_key ("chip_damping_z", &m->z_first, 1, "first bounces", "", "ball", missing, sizeof missing);
    s_key ("chip_damping_z_other_hops", &m->z_other, 1, "later bounces", "", "ball", missing, sizeof missing);
    if (m->z_first.events < SIM_MFIT_MIN_EVENTS || m->z_other.events < SIM_MFIT_MIN_EVENTS)
        printf ("; too few chips in the log for the chip dampings: %d flights gave %d first and %d later "
                "bounces (%d of each needed)\n",
                m->has_heights ? m->flights : m->vision.flights, m->z_first.events, m->z_other.events,
                SIM_MFIT_MIN_EVENTS);
    if (m->has_heights)
        s_print_vision_chips (m);
    static const char *const names[2] = { "yellow", "blue" };
    for (int t = 0; t < 2; t++) {
        const sim_mfit_team_t *tm = &m->team[t];
        char sec[32];
        snprintf (sec, sizeof sec, "%s.limits", names[t]);
        printf ("\n; %s: %d robots seen\n[%s]\n", names[t], tm->robots, sec);
        s_key ("acc_speedup_absolute_max", &tm->acc, 1, "speed-ups", "m/s^2", sec, missing, sizeof missing);
        s_key ("acc_brake_absolute_max", &tm->brake, 1, "brakings", "m/s^2", sec, missing, sizeof missing);
        s_key ("vel_absolute_max", &tm->vel, 1, "runs at top speed", "m/s", sec, missing, sizeof missing);
        s_key ("acc_speedup_angular_max", &tm->acc_w, 1, "turn speed-ups", "rad/s^2", sec, missing,
               sizeof missing);
        s_key ("acc_brake_angular_max", &tm->brake_w, 1, "turn brakings", "rad/s^2", sec, missing,
               sizeof missing);
        s_key ("vel_angular_max", &tm->vel_w, 1, "turns at top rate", "rad/s", sec, missing, sizeof missing);
        snprintf (sec, sizeof sec, "%s.kicker", names[t]);
        printf ("[%s]\n", sec);
        s_cap_key ("max_linear_speed", &tm->kick, "flat kicks", sec, missing, sizeof missing);
        s_cap_key ("max_chip_speed", &tm->chip, "chips", sec, missing, sizeof missing);
    }
    if (missing[0])
        fprintf (stderr,
                 "ssl-sim: stats: too little in the log to fit these, so the file leaves them out (their "
                 "configuration keeps its own values): %s\n",
                 missing);
}

int
launch_stats (int optc, char **optv, const sim_config_t *cfg)
{
    const char *path = NULL, *listen = NULL;
    double seconds = -1;
    bool fit = false;
    for (int i = 0; i < optc; i++) {
        const char *a = optv[i];
        if (strcmp (a, "--fit") == 0)
            fit = true;
        else if (strcmp (a, "--listen") == 0 || strcmp (a, "--seconds") == 0) {
            if (i + 1 >= optc) {
                fprintf (stderr, "ssl-sim: stats: %s needs a value\n", a);
                return 2;
            }
            const char *v = optv[++i];
            if (a[2] == 'l')
                listen = v;
            else {
                char *end = NULL;
                seconds = strtod (v, &end);
                if (end == v || *end || !(seconds > 0) || seconds > 86400) {
                    fprintf (stderr,
                             "ssl-sim: stats: --seconds: '%s' must be a number of seconds in (0, 86400]\n",
                             v);
                    return 2;
                }
            }
        } else if (!path)
            path = a;
        else {
            fprintf (stderr, "ssl-sim: stats: one FILE only ('%s')\n", a);
            return 2;
        }
    }
    if (!path == !listen) {
        fprintf (stderr, "ssl-sim: stats needs a FILE or --listen ADDR --seconds N\n");
        return 2;
    }
    if (listen && seconds < 0) {
        fprintf (stderr, "ssl-sim: stats: --listen needs --seconds N\n");
        return 2;
    }
    sim_vstats_t *vs = sim_vstats_new ();
    sim_mfit_t *mf = fit ? sim_mfit_new () : NULL;
    if (!vs || (fit && !mf)) {
        sim_vstats_destroy (&vs);
        sim_mfit_destroy (&mf);
        return 1;
    }
    char where[64] = "";
    int rc = path ? s_read_log (vs, mf, path) : s_listen (vs, mf, listen, seconds, cfg, where);
    sim_vstats_report_t *r = rc == 0 ? malloc (sizeof *r) : NULL;
    if (r) {
        sim_vstats_report (vs, r);
        if (r->frames == 0) {
            fprintf (stderr, "ssl-sim: stats: no detection frame in %s\n", path ? path : where);
            rc = 1;
        } else if (fit) {
            sim_vstats_fit_t f;
            sim_vstats_fit (r, &f);
            s_print_fit (r, &f);
            sim_mfit_result_t *m = malloc (sizeof *m);
            if (m) {
                sim_mfit_fit (mf, cfg->ball.roll_speed_coefficient, cfg->ball.radius, m);
                s_print_motion (m);
                free (m);
            }
        } else
            s_print (r);
    } else if (rc == 0)
        rc = 1;
    free (r);
    sim_vstats_destroy (&vs);
    sim_mfit_destroy (&mf);
    return rc;
}
