/*  embed.c - libsslsim in-process speed (issue 16 targets, idle core):
    one world from C >= 40 000 steps/s; Python overhead <= 20 % at batch
    64; a batch >= 1.8x faster on 2 threads than on 1.

    Every step is 16 ms of sim time (16 substeps), 22 robots each commanded
    every step (a RobotControl per team, built and applied by the
    library), realistic vision on two cameras, every released frame
    encoded as SSL_WrapperPacket: the default configuration.
      - one world: steps/s of sslsim_world_robot_commands + _step (the
        script's commands worked out beforehand);
      - batch scaling: 16 worlds, 1 thread against 2 threads, world-steps/s;
      - per core (issue 26): 64 worlds on one thread, truth only (no
        vision at all) and realistic vision, world-steps per CPU second
        (--core runs only these);
      - Python overhead: 64 worlds, the learner's loop (commands from a
        numpy array, one batch step, every world's truth into a numpy
        array) from /usr/bin/python3 (bench/embed.py) against the same
        loop in C, same threads;
      - beside them, the UDP lock-step figure of bench/sync (run here, same
        moment, shorter) as steps/s = 1 / p50 round trip.
    The figures interleave (C, then Python; 1 thread, then 2) --runs times
    (5) and each is the median, so a busy moment of the shared machine
    hits both sides of a comparison.

    usage: embed [RESULTS_FILE] [--runs N] [--steps N] [--no-sync]
                 [--core [--only truth|vision] [--worlds N] [--step-ms MS]]
           --step-ms MS: with --core, every world made with `--step-ms MS`
                         (the physics substep, 1 ms by default;
                         bench/substep.py)
           embed --dump STEPS SEED   print the FNV-1a hash of the vision
                                     bytes of the scripted run (the Python
                                     tests compare theirs to it)
*/
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "embed/sslsim.h"
#include "common/base/sim_hash.h"

#define EB_MAX_RUNS 15
#define EB_ROBOTS   22

/* The flags every world is made with: none, or { "--step-ms", MS }. */
static const char *s_args[3];

static double
s_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* CPU seconds of this thread / this process (all its threads). */
static double
s_cpu (clockid_t clock)
{
    struct timespec ts;
    clock_gettime (clock, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double
s_median (double *v, int n)
{
    qsort (v, (size_t) n, sizeof *v, s_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The scripted commands of step `step` for world `k` (bench/embed.py and
   python/tests compute the same with math.sin/cos). */
static void
s_commands (sslsim_robot_command_t *c, int step, int k)
{
    int n = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < 11; id++)
            c[n++] = (sslsim_robot_command_t) {
                .team = team,
                .id = id,
                .forward = 1.5 * sin (step * 0.04 + id + k),
                .left = 0.3 * cos (step * 0.02 + id),
                .angular = sin (step * 0.05 - id),
                .kick_speed = step % 25 == id ? 5.0 : 0.0,
                .kick_angle = 0.0,
                .dribbler_speed = id == 3 ? 500.0 : 0.0,
            };
}

static sslsim_world_t *
s_world (uint64_t seed)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.args = s_args[0] ? s_args : NULL;
    config.has_seed = 1;
    config.seed = seed;
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    if (!w) {
        fprintf (stderr, "embed: %s\n", err);
        exit (1);
    }
    return w;
}

static int
s_dump (int steps, uint64_t seed)
{
    sslsim_world_t *w = s_world (seed);
    uint64_t h = SIM_FNV1A_BASIS;
    long frames = 0;
    sslsim_robot_command_t c[EB_ROBOTS];
    for (int step = 0; step < steps; step++) {
        s_commands (c, step, 0);
        if (sslsim_world_robot_commands (w, c, EB_ROBOTS) < 0 || sslsim_world_step (w, 0.016))
            return 1;
        for (int i = 0; i < sslsim_world_vision_count (w); i++, frames++) {
            const uint8_t *b;
            size_t len;
            sslsim_world_vision (w, i, &b, &len);
            h = sim_fnv1a (h, b, len);
        }
    }
    printf ("%016llx %ld\n", (unsigned long long) h, frames);
    sslsim_world_free (w);
    return 0;
}

/* One world: steps per wall second over `steps` driven steps (after
   100); per CPU second of this thread in *cpu_rate. The script's commands
   are worked out before the clock starts, so the figure is the library's
   (sslsim_world_robot_commands + _step) and not the script's libm sin/cos
   (~4 % of the loop). */
static double
s_one_world (int steps, double *cpu_rate)
{
    sslsim_world_t *w = s_world (1);
    const int warm = 100;
    sslsim_robot_command_t *c = malloc (sizeof *c * (size_t) (warm + steps) * EB_ROBOTS);
    if (!c) {
        fprintf (stderr, "embed: out of memory\n");
        exit (1);
    }
    for (int step = -warm; step < steps; step++)
        s_commands (c + (size_t) (step + warm) * EB_ROBOTS, step, 0);
    double t0 = 0, c0 = 0;
    for (int step = -warm; step < steps; step++) {
        if (step == 0) {
            t0 = s_now ();
            c0 = s_cpu (CLOCK_THREAD_CPUTIME_ID);
        }
        sslsim_world_robot_commands (w, c + (size_t) (step + warm) * EB_ROBOTS, EB_ROBOTS);
        sslsim_world_step (w, 0.016);
    }
    double rate = steps / (s_now () - t0);
    *cpu_rate = steps / (s_cpu (CLOCK_THREAD_CPUTIME_ID) - c0);
    free (c);
    sslsim_world_free (w);
    return rate;
}

/* A batch of n on `threads` (vision on or off): wall seconds for `steps`
   of the learner's loop (after 20), world-steps per wall second in *rate,
   CPU seconds of the process (every thread) in *cpu. */
static double
s_batch (int n, int threads, int vision, int steps, double *rate, double *cpu)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.args = s_args[0] ? s_args : NULL;
    config.vision = vision;
    char err[256];
    sslsim_batch_t *b = sslsim_batch_new (n, &config, threads, NULL, err, sizeof err);
    if (!b) {
        fprintf (stderr, "embed: %s\n", err);
        exit (1);
    }
    /* the script's commands worked out beforehand, as for one world: its
       libm calls would be a serial part on the calling thread that the
       library's threads cannot share */
    const int warm = 20;
    size_t per_step = (size_t) n * EB_ROBOTS;
    sslsim_robot_command_t *c = malloc (sizeof *c * per_step * (size_t) (warm + steps));
    sslsim_truth_t *truth = malloc (sizeof *truth * (size_t) n);
    if (!c || !truth) {
        fprintf (stderr, "embed: out of memory\n");
        exit (1);
    }
    for (int step = -warm; step < steps; step++)
        for (int k = 0; k < n; k++)
            s_commands (c + (size_t) (step + warm) * per_step + (size_t) k * EB_ROBOTS, step, k);
    double t0 = 0, c0 = 0;
    for (int step = -warm; step < steps; step++) {
        if (step == 0) {
            t0 = s_now ();
            c0 = s_cpu (CLOCK_PROCESS_CPUTIME_ID);
        }
        sslsim_batch_robot_commands (b, c + (size_t) (step + warm) * per_step, EB_ROBOTS);
        sslsim_batch_step (b, 0.016);
        sslsim_batch_truth (b, truth);
    }
    double s = s_now () - t0;
    *cpu = s_cpu (CLOCK_PROCESS_CPUTIME_ID) - c0;
    *rate = (double) n * steps / s;
    free (c);
    free (truth);
    sslsim_batch_free (b);
    return s;
}

/* The issue 26 figure: a batch of n on one thread, truth only (vision
   0) or realistic vision, world-steps per CPU second of the process. */
static double
s_core (int n, int vision, int steps)
{
    double rate, cpu;
    s_batch (n, 1, vision, steps, &rate, &cpu);
    return (double) n * steps / cpu;
}

/* --core: only the per-core batch figures, truth and vision interleaved
   `runs` times, each run's pair and the medians on stdout (nothing
   written to the results file): the quick loop for speed work. only: 0
   truth alone, 1 vision alone, -1 both (--only truth|vision; with
   valgrind's instruction counts of two step counts, the instructions a
   world-step takes). */
static int
s_core_only (int runs, int steps, int n, int only)
{
    double truth[EB_MAX_RUNS] = { 0 }, vision[EB_MAX_RUNS] = { 0 };
    for (int r = 0; r < runs; r++) {
        if (only != 1)
            truth[r] = s_core (n, 0, steps);
        if (only != 0)
            vision[r] = s_core (n, 1, steps);
        printf ("run %d: batch %d, 1 thread, substep %s ms: truth %.0f, vision %.0f world-steps per CPU s\n",
                r + 1, n, s_args[1] ? s_args[1] : "1", truth[r], vision[r]);
    }
    printf ("median: truth %.0f, vision %.0f world-steps per CPU s\n", s_median (truth, runs),
            s_median (vision, runs));
    return 0;
}

/* The Python loop's wall seconds for the same work, from bench/embed.py
   (its process CPU seconds in *cpu); -1 when it cannot run. */
static double
s_python (int n, int threads, int steps, double *cpu)
{
    *cpu = -1;
    char cmd[512];
    snprintf (cmd, sizeof cmd, "/usr/bin/python3 bench/embed.py --batch %d --threads %d --steps %d", n,
              threads, steps);
    FILE *p = popen (cmd, "r");
    if (!p)
        return -1;
    double s = -1;
    char line[256];
    while (fgets (line, sizeof line, p))
        if (sscanf (line, "seconds %lf cpu %lf", &s, cpu) == 2)
            break;
    pclose (p);
    return s;
}

/* bench/sync's p50 lines, run now with fewer steps, into out. */
static void
s_sync (char *out, size_t cap)
{
    char path[] = "/tmp/embed-sync-XXXXXX";
    int fd = mkstemp (path);
    out[0] = '\0';
    if (fd < 0)
        return;
    close (fd);
    char exe[512] = "build/bench/sync";
    ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 16);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr (exe, '/');
        if (slash)
            strcpy (slash + 1, "sync");
    }
    char cmd[1200];
    snprintf (cmd, sizeof cmd, "%s %s --steps 2000 --runs 3 > /dev/null 2>&1", exe, path);
    if (system (cmd) == 0) {
        FILE *f = fopen (path, "r");
        char line[512];
        while (f && fgets (line, sizeof line, f)) {
            double p50;
            char layout[64];
            if (sscanf (line, "%63[^(](%*[^)]) p50 %lf us", layout, &p50) == 2) {
                for (size_t e = strlen (layout); e > 0 && layout[e - 1] == ' '; e--)
                    layout[e - 1] = '\0';
                size_t l = strlen (out);
                snprintf (out + l, cap - l,
                          "UDP lock-step, %-22s p50 %6.1f us   %8.0f steps/s (bench/sync, same run)\n",
                          layout, p50, 1e6 / p50);
            }
        }
        if (f)
            fclose (f);
    }
    unlink (path);
}

int
main (int argc, char **argv)
{
    const char *results = "bench/results/embed.txt";
    int runs = 5, steps = 10000;
    bool sync = true, core_only = false;
    int only = -1, worlds = 64;
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "--dump") && i + 2 < argc)
            return s_dump (atoi (argv[i + 1]), strtoull (argv[i + 2], NULL, 10));
        if (!strcmp (argv[i], "--runs") && i + 1 < argc)
            runs = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--steps") && i + 1 < argc)
            steps = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--no-sync"))
            sync = false;
        else if (!strcmp (argv[i], "--core"))
            core_only = true;
        else if (!strcmp (argv[i], "--only") && i + 1 < argc) {
            i++;
            only = !strcmp (argv[i], "truth") ? 0 : !strcmp (argv[i], "vision") ? 1 : -2;
        } else if (!strcmp (argv[i], "--worlds") && i + 1 < argc)
            worlds = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--step-ms") && i + 1 < argc) {
            s_args[0] = "--step-ms";
            s_args[1] = argv[++i];
        } else if (bench_is_option (argv[i]))
            return bench_usage (argv[i],
                                "usage: embed [RESULTS_FILE] [--runs N] [--steps N] [--no-sync] [--core "
                                "[--only truth|vision] [--worlds N] [--step-ms MS]] | --dump STEPS SEED\n");
        else
            results = argv[i];
    }
    if (runs < 1 || runs > EB_MAX_RUNS || steps < 10 || only == -2 || worlds < 1) {
        fprintf (stderr, "embed: --runs 1..%d, --steps >= 10, --only truth|vision, --worlds >= 1\n",
                 EB_MAX_RUNS);
        return 2;
    }
    if (core_only)
        return s_core_only (runs, steps / 10, worlds, only);
    if (s_args[0]) {
        fprintf (stderr, "embed: --step-ms goes with --core (the results file is the default substep's)\n");
        return 2;
    }
    double one[EB_MAX_RUNS], one_cpu[EB_MAX_RUNS], t1[EB_MAX_RUNS], t2[EB_MAX_RUNS], scale[EB_MAX_RUNS];
    double c64[EB_MAX_RUNS], py64[EB_MAX_RUNS], over[EB_MAX_RUNS];
    double c64_cpu[EB_MAX_RUNS], py64_cpu[EB_MAX_RUNS], over_cpu[EB_MAX_RUNS];
    double core_truth[EB_MAX_RUNS], core_vision[EB_MAX_RUNS];
    /* at least one step each: with none, a side's clock never starts and
       its wall time read as the seconds since boot (--steps 10 did) */
    int bsteps = steps / 10, psteps = steps >= 15 ? steps / 15 : 1;
    bool have_py = true;
    for (int r = 0; r < runs; r++) {
        double cpu, rate;
        one[r] = s_one_world (steps, &one_cpu[r]);
        s_batch (16, 1, 1, bsteps, &t1[r], &cpu);
        s_batch (16, 2, 1, bsteps, &t2[r], &cpu);
        scale[r] = t2[r] / t1[r];
        core_truth[r] = s_core (64, 0, bsteps);
        core_vision[r] = s_core (64, 1, bsteps);
        c64[r] = s_batch (64, 2, 1, psteps, &rate, &c64_cpu[r]);
        py64[r] = s_python (64, 2, psteps, &py64_cpu[r]);
        have_py &= py64[r] > 0 && py64_cpu[r] > 0;
        over[r] = have_py ? (py64[r] - c64[r]) / c64[r] : 0;
        over_cpu[r] = have_py ? (py64_cpu[r] - c64_cpu[r]) / c64_cpu[r] : 0;
        fprintf (stderr,
                 "run %d: one %.0f steps/s (%.0f per CPU s), batch16 %.0f / %.0f world-steps/s, 64: C %.3f s "
                 "(%.3f CPU) python %.3f s (%.3f CPU)\n",
                 r + 1, one[r], one_cpu[r], t1[r], t2[r], c64[r], c64_cpu[r], py64[r], py64_cpu[r]);
    }
    double m_one = s_median (one, runs), m_one_cpu = s_median (one_cpu, runs);
    double m_t1 = s_median (t1, runs), m_t2 = s_median (t2, runs), m_scale = s_median (scale, runs);
    double m_c64 = s_median (c64, runs), m_py = s_median (py64, runs), m_over = s_median (over, runs);
    double m_c64_cpu = s_median (c64_cpu, runs), m_py_cpu = s_median (py64_cpu, runs);
    double m_over_cpu = s_median (over_cpu, runs);
    double m_core_truth = s_median (core_truth, runs), m_core_vision = s_median (core_vision, runs);
    char sync_lines[1024] = "";
    if (sync)
        s_sync (sync_lines, sizeof sync_lines);
    double load[1] = { -1 };
    if (getloadavg (load, 1) < 1)
        load[0] = -1;
    long cores = sysconf (_SC_NPROCESSORS_ONLN);
    char text[4096];
    int n = snprintf (
        text, sizeof text,
        "embed benchmark: libsslsim in-process, 0.016 s steps, 22 robots commanded every step, realistic vision, 2 "
        "cameras, every frame encoded (bench/embed.c)\n"
        "median of %d interleaved runs; %ld cores; load average %.1f at the end. Per CPU second = what an idle "
        "core would give; wall = what this machine gave\n"
        "targets (idle core): one world >= 40000 steps/s; Python overhead <= 20%% at batch 64; batch 2 threads >= "
        "1.8x 1 thread\n"
        "one world from C        %8.0f steps per CPU s (%.1f us/step)   %8.0f steps/s wall   %s\n"
        "batch of 16, 1 thread   %8.0f world-steps/s wall\n"
        "batch of 16, 2 threads  %8.0f world-steps/s wall   scaling %.2fx (median of the runs' ratios)   %s\n"
        "batch of 64, 2 threads  %d steps: C %.3f CPU s, Python %.3f CPU s: overhead %+.1f%% of CPU   %s\n"
        "                        (wall: C %.3f s, Python %.3f s, %+.1f%%)\n"
        "batch of 64, 1 thread, truth only        %8.0f world-steps per CPU s   target 200000: %s\n"
        "batch of 64, 1 thread, realistic vision  %8.0f world-steps per CPU s   target  80000: %s\n%s",
        runs, cores, load[0], m_one_cpu, 1e6 / m_one_cpu, m_one, m_one_cpu >= 40000 ? "met" : "NOT met", m_t1,
        m_t2, m_scale,
        m_scale >= 1.8  ? "met"
        : load[0] > 1.0 ? "NOT met (no idle second core)"
                        : "NOT met",
        psteps, m_c64_cpu, m_py_cpu, 100 * m_over_cpu,
        !have_py             ? "python not run"
        : m_over_cpu <= 0.20 ? "met"
                             : "NOT met",
        m_c64, m_py, 100 * m_over, m_core_truth, m_core_truth >= 200000 ? "met" : "NOT met", m_core_vision,
        m_core_vision >= 80000 ? "met" : "NOT met", sync_lines);
    (void) n;
    fputs (text, stdout);
    if (bench_results_write (results, text)) {
        perror (results);
        return 1;
    }
    return 0;
}
