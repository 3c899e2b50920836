/*  bench/physics.c - cost of one physics substep (issue 3 target: <= 3 us
    with 22 robots commanded in wheels mode). Runs the canonical scene
    (phys_scene.h) with 22 robots in wheels mode, in ideal mode, and with 32
    robots; reports the median over several runs of the mean time per
    substep, excluding the time spent issuing the scene's commands. Time is
    the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other load on the
    machine does not inflate it; the wall-clock median is printed too.
    Writes bench/results/physics.txt (or the path in argv[1]) and prints
    the same.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"
#include "bench_results.h"
#include "engine/physics/phys_scene.h"
#include "engine/physics/phys_world.h"

#define S_RUNS   9
#define S_STEPS  20000
#define S_WARMUP 2000

static double
s_clock (clockid_t id)
{
    struct timespec ts;
    clock_gettime (id, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static double
s_now (void)
{
    return s_clock (CLOCK_THREAD_CPUTIME_ID);
}

/* Whether phys_scene_drive does any work at substep k (its schedule). */
static int
s_drive_due (int k)
{
    return k % 20 == 0 || (k >= 4000 && k < 4100);
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Median over S_RUNS of the mean CPU ns per substep (*wall: the median of
   the wall-clock means). */
static double
s_bench (int per_team, sim_drive_model_t model, double *lo, double *hi, double *wall)
{
    double walls[S_RUNS];
    phys_world_def_t def;
    phys_world_def_default (&def);
    phys_scene_configure (&def);
    def.robots_per_team = per_team;
    def.team[0].drive.model = model;
    def.team[1].drive.model = model;
    double runs[S_RUNS];
    for (int r = 0; r < S_RUNS; r++) {
        char err[192];
        phys_world_t *w = phys_world_new (&def, err, sizeof err);
        if (!w) {
            fprintf (stderr, "physics bench: invalid definition: %s\n", err);
            exit (1);
        }
        phys_scene_setup (w);
        int k = 0;
        for (; k < S_WARMUP; k++) {
            phys_scene_drive (w, k);
            phys_world_step (w);
        }
        double paused = 0, wpaused = 0, t0 = s_now (), w0 = s_clock (CLOCK_MONOTONIC);
        for (int i = 0; i < S_STEPS; i++, k++) {
            if (s_drive_due (k)) {
                double p0 = s_now (), q0 = s_clock (CLOCK_MONOTONIC);
                phys_scene_drive (w, k);
                paused += s_now () - p0;
                wpaused += s_clock (CLOCK_MONOTONIC) - q0;
            }
            phys_world_step (w);
        }
        double t1 = s_now (), w1 = s_clock (CLOCK_MONOTONIC);
        runs[r] = (t1 - t0 - paused) / S_STEPS * 1e9;
        walls[r] = (w1 - w0 - wpaused) / S_STEPS * 1e9;
        phys_world_destroy (&w);
    }
    qsort (runs, S_RUNS, sizeof runs[0], s_cmp);
    qsort (walls, S_RUNS, sizeof walls[0], s_cmp);
    *wall = walls[S_RUNS / 2];
    *lo = runs[0];
    *hi = runs[S_RUNS - 1];
    return runs[S_RUNS / 2];
}

int
main (int argc, char **argv)
{
    const char *path = "bench/results/physics.txt";
    for (int i = 1; i < argc; i++) {
        if (bench_is_option (argv[i]) || i > 1)
            return bench_usage (i > 1 ? NULL : argv[i], "usage: physics [RESULTS_FILE]\n");
        path = argv[i];
    }
    struct {
        const char *name;
        int per_team;
        sim_drive_model_t model;
    } cases[] = {
        { "22 robots, wheels mode, commanded", 11, SIM_DRIVE_WHEELS },
        { "22 robots, ideal mode, commanded", 11, SIM_DRIVE_IDEAL },
        { "32 robots, wheels mode, commanded", 16, SIM_DRIVE_WHEELS },
    };
    char out[2048];
    int len = snprintf (out, sizeof out,
                        "# physics substep cost (1 ms substep), canonical scene, median of %d "
                        "runs x %d substeps, thread CPU time (wall-clock median in brackets)\n"
                        "# target: <= 3000 ns with 22 robots in wheels mode\n",
                        S_RUNS, S_STEPS);
    /* other load on the machine inflates the wall-clock column */
    FILE *la = fopen ("/proc/loadavg", "r");
    char load[64] = "?";
    if (la) {
        if (!fgets (load, sizeof load, la))
            strcpy (load, "?\n");
        fclose (la);
    }
    len += snprintf (out + len, sizeof out - (size_t) len, "# load average at start: %s", load);
    double first = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double lo, hi, wall;
        double med = s_bench (cases[i].per_team, cases[i].model, &lo, &hi, &wall);
        if (i == 0)
            first = med;
        len += snprintf (out + len, sizeof out - (size_t) len,
                         "%-36s median %6.0f ns/substep  (min %.0f, max %.0f; wall %.0f)\n", cases[i].name,
                         med, lo, hi, wall);
    }
    len += snprintf (out + len, sizeof out - (size_t) len, "target met: %s\n", first <= 3000 ? "yes" : "NO");
    fputs (out, stdout);
    if (bench_results_write (path, out)) {
        fprintf (stderr, "physics bench: cannot write %s: %s\n", path, strerror (errno));
        return 1;
    }
    return 0;
}
