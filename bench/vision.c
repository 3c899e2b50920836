/*  vision.c - benchmark of the camera model: wall-clock cost per camera
    capture with 22 robots and the realistic preset, SSL_WrapperPacket
    encoding included (target <= 20 us). Prints the result and writes it to
    bench/results/vision.txt (or the path given as the first argument).
    `--runs N` changes the number of runs (a short run under callgrind:
    `--runs 1 --scene free`), `--scene free|among` measures one scene only.

    The process CPU clock is read here only, around the pure model, never
    inside; CPU time rather than wall time so other load on the machine
    does not count.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"
#include "bench_results.h"
#include "common/config/config.h"
#include "engine/world/vis_codec.h"
#include "engine/world/vis_def.h"

#define MS          1000000ull
#define RUNS_MAX    101
#define RUN_SECONDS 10.0

/* 22 robots spread over the field, some moving; the ball either free or
   weaving between robots (the occlusion path). */
static sim_snapshot_t
s_scene (uint64_t t_ns, bool ball_among_robots)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    double t = (double) t_ns * 1e-9;
    for (int i = 0; i < 22; i++) {
        double x = -5 + 0.45 * i + 0.3 * sin (0.5 * t + i);
        double y = (i % 5 - 2) * 1.6 + 0.3 * cos (0.7 * t + i);
        s.robots[s.robot_count++] = (sim_robot_state_t) {
            .team = i / 11,
            .id = i % 11,
            .x = x,
            .y = y,
            .orientation = 0.3 * i + 0.2 * t,
            .vx = 0.15 * cos (0.5 * t + i),
            .vy = -0.21 * sin (0.7 * t + i),
            .radius = 0.09,
            .height = 0.15,
        };
    }
    if (ball_among_robots) {
        /* ride next to robot (t mod 22), 0.12 m in front of it */
        const sim_robot_state_t *r = &s.robots[(int) t % 22];
        s.ball.x = r->x + 0.12 * cos (r->orientation);
        s.ball.y = r->y + 0.12 * sin (r->orientation);
    } else {
        s.ball.x = 3 * sin (0.3 * t);
        s.ball.y = 2.8;
    }
    s.ball.z = 0.0215;
    return s;
}

static double
s_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* One run: RUN_SECONDS of sim time at the snapshot instants physics would
   publish; returns microseconds per capture (advance + encode). */
static double
s_run (const vis_model_def_t *def, bool among, size_t *bytes_out, long *captures_out)
{
    vis_model_t *m = vis_model_new (def);
    if (!m)
        return -1;
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    /* build the snapshots first: their cost is physics', not ours */
    int cap = (int) (RUN_SECONDS * 200) + 16, n = 0;
    sim_snapshot_t *snaps = malloc (sizeof (sim_snapshot_t) * (size_t) cap);
    if (!snaps) {
        vis_model_destroy (&m);
        return -1;
    }
    sim_schedule_t *sched = sim_schedule_new (&def->schedule);
    uint64_t t = 0, end = (uint64_t) (RUN_SECONDS * 1e9);
    while (n < cap) {
        uint64_t due = sim_schedule_next_due (sched);
        uint64_t next = (due + MS - 1) / MS * MS;
        t = next > t ? next : t + MS;
        if (t > end)
            break;
        uint32_t mask, fn[SIM_MAX_CAMERAS];
        sim_schedule_advance (sched, t, (uint64_t) llround (def->realism.vision_delay * 1e9), &mask, fn);
        snaps[n++] = s_scene (t, among);
    }
    sim_schedule_destroy (&sched);

    long captures = 0;
    size_t bytes = 0;
    double t0 = s_now ();
    for (int k = 0; k < n; k++) {
        int r = vis_model_advance (m, &snaps[k]);
        for (int i = 0; i < r; i++) {
            bytes += vis_codec_wrapper (m, vis_model_released (m, i), buf, sizeof buf);
            captures++;
        }
    }
    double dt = s_now () - t0;
    free (snaps);
    vis_model_destroy (&m);
    *bytes_out = bytes;
    *captures_out = captures;
    return captures > 0 ? dt / (double) captures * 1e6 : -1;
}

int
main (int argc, char **argv)
{
    const char *path = "bench/results/vision.txt";
    int runs = 15, scene = -1; /* -1: both scenes */
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "--runs") && i + 1 < argc) {
            runs = atoi (argv[++i]);
            if (runs < 1 || runs > RUNS_MAX) {
                fprintf (stderr, "vision bench: --runs takes 1..%d\n", RUNS_MAX);
                return 1;
            }
        } else if (!strcmp (argv[i], "--scene") && i + 1 < argc) {
            i++;
            scene = !strcmp (argv[i], "free") ? 0 : !strcmp (argv[i], "among") ? 1 : -2;
            if (scene == -2) {
                fprintf (stderr, "vision bench: --scene takes free or among\n");
                return 1;
            }
        } else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], "usage: vision [RESULTS_FILE] [--runs 1..%d] [--scene free|among]\n",
                                RUNS_MAX);
        else
            path = argv[i];
    }
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    if (sim_config_apply_realism (&cfg, "realistic", err, sizeof err) != 0) {
        fprintf (stderr, "vision bench: %s\n", err);
        return 1;
    }
    vis_model_def_t def;
    vis_model_def_from_config (&def, &cfg);
    char report[2048];
    int len = snprintf (report, sizeof report,
                        "vision model benchmark: cost per camera capture (advance + "
                        "SSL_WrapperPacket encoding)\n"
                        "22 robots, realistic preset, 2 cameras, %d runs of %.0f s sim time, "
                        "median of CPU time; target <= 20 us\n",
                        runs, RUN_SECONDS);
    for (int among = 0; among < 2; among++) {
        if (scene >= 0 && among != scene)
            continue;
        double us[RUNS_MAX];
        size_t bytes = 0;
        long captures = 0;
        for (int r = 0; r < runs; r++)
            us[r] = s_run (&def, among, &bytes, &captures);
        qsort (us, (size_t) runs, sizeof us[0], s_cmp);
        double median = us[runs / 2];
        len += snprintf (report + len, sizeof report - (size_t) len,
                         "%-22s median %6.2f us/capture (min %.2f, max %.2f), "
                         "%ld captures/run, %.0f bytes/packet: %s\n",
                         among ? "ball among robots:" : "ball free:", median, us[0], us[runs - 1], captures,
                         (double) bytes / (double) captures, median <= 20 ? "PASS" : "OVER TARGET");
    }
    fputs (report, stdout);
    if (bench_results_write (path, report)) {
        fprintf (stderr, "vision bench: cannot write %s: %s\n", path, strerror (errno));
        return 1;
    }
    /* over target is reported, not an error: speed is no test */
    return 0;
}
