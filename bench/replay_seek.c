/*  replay_seek.c - how long a jump into a journal takes with in-memory
    checkpoints (engine/world/phys_seek; issue 27: "a jump into a
    30-minute journal takes under a second").

    Takes a journal a user recorded (`ssl-sim run --mode fast --journal F
    --duration N`), loads it as `ssl-sim replay` does (its configuration,
    a fresh world of it), then:
      cold   one jump to 95 % of the journal with no checkpoint built yet
             (what a first jump costs when nothing was prepared);
      build  the pass that keeps a checkpoint every --every seconds of sim
             time up to the end (what a player would do once at open);
      jumps  20 jumps to spread positions, forwards and backwards, each
             timed (wall clock, one thread).
    Every jump's world is checked against a straight replay's at one
    position (the same state hash), so the figure is of a correct jump.

    usage: replay_seek JOURNAL [RESULTS_FILE] [--every S]
           replay_seek --record S [RESULTS_FILE] [--every S]
    --record S records the journal first, S seconds of a fast run
    (`make bench` passes --record 3: on this 2-core machine about half
    an hour of sim time, issue 27's case), measures it and removes it
    (bench/bench_input.h). Prints the results, and writes them to
    RESULTS_FILE when given (bench/bench_results.h).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"
#include "bench_input.h"
#include "bench_results.h"
#include "common/config/config.h"
#include "engine/world/phys_replay.h"
#include "engine/world/phys_seek.h"
#include "tests/support/sim_from_config.h"

#define S_USAGE \
    "usage: replay_seek JOURNAL [RESULTS_FILE] [--every S]\n" \
    "       replay_seek --record S [RESULTS_FILE] [--every S]\n"

static double
s_now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
    const char *record = NULL, *word[2] = { NULL, NULL };
    double every_s = 10;
    int words = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--every") == 0 && i + 1 < argc)
            every_s = atof (argv[++i]);
        else if (strcmp (argv[i], "--record") == 0 && i + 1 < argc)
            record = argv[++i];
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], S_USAGE);
        else if (words < 2)
            word[words++] = argv[i];
        else
            return bench_usage (NULL, S_USAGE);
    }
    bench_input_t in;
    if (bench_input_words (&in, record, word, words) || !(every_s > 0))
        return bench_usage (NULL, S_USAGE);
    if (bench_input_make (&in, "run.journal", "--journal", NULL)) {
        bench_input_remove (&in);
        return 1;
    }
    const char *path = in.path;
    char err[512];
    double t0 = s_now_s ();
    phys_replay_t *script = phys_replay_load (path, err, sizeof err);
    if (!script) {
        fprintf (stderr, "replay_seek: %s\n", err);
        bench_input_remove (&in);
        return 1;
    }
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    if (sim_config_load_string (&cfg, phys_replay_config (script), path, err, sizeof err)) {
        fprintf (stderr, "replay_seek: %s\n", err);
        bench_input_remove (&in);
        return 1;
    }
    phys_world_t *start = sim_fc_world_new (&cfg);
    double load_s = s_now_s () - t0;
    uint64_t dt = phys_replay_substep_ns (script), end = phys_replay_end_frame (script);
    uint64_t every = (uint64_t) (every_s * 1e9 / (double) dt);
    double length_s = (double) (end * dt) / 1e9;

    /* cold: nothing built */
    phys_seek_t *seek = phys_seek_new (script, start, &cfg, every);
    sim_config_t at_cfg;
    size_t next;
    uint64_t cold_at = end / 100 * 95;
    t0 = s_now_s ();
    phys_world_t *w = phys_seek_world (seek, cold_at, &at_cfg, &next);
    double cold_s = s_now_s () - t0;
    uint64_t cold_hash = w ? phys_world_hash (w) : 0;
    phys_world_destroy (&w);
    phys_seek_destroy (&seek);

    /* build once, then jump */
    seek = phys_seek_new (script, start, &cfg, every);
    t0 = s_now_s ();
    int built = phys_seek_build (seek, end);
    double build_s = s_now_s () - t0;
    double jumps[20];
    uint64_t state = 12345;
    bool same = true;
    for (int i = 0; i < 20; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t at = i == 0 ? cold_at : (state >> 11) % (end + 1);
        t0 = s_now_s ();
        w = phys_seek_world (seek, at, &at_cfg, &next);
        jumps[i] = s_now_s () - t0;
        if (i == 0)
            same =
                w && phys_world_hash (w) == cold_hash; /* a jump from a checkpoint = a run from the start */
        phys_world_destroy (&w);
    }
    qsort (jumps, 20, sizeof jumps[0], s_cmp);
    char what[600], command[128];
    if (record) {
        snprintf (what, sizeof what,
                  "a fast run recorded now (ssl-sim run --mode fast --journal F --duration %s)", record);
        snprintf (command, sizeof command, "--record %s", record);
    } else {
        snprintf (what, sizeof what, "%s", path);
        snprintf (command, sizeof command, "JOURNAL");
    }
    char text[2048];
    snprintf (
        text, sizeof text,
        "replay_seek: a jump into a journal with checkpoints in memory (engine/world/phys_seek), one thread\n"
        "journal: %s, %.1f s of sim time (%.1f min), %zu inputs; loaded in %.3f s\n"
        "cold jump to 95 %% with no checkpoint: %.2f s (runs every substep from the start)\n"
        "building a checkpoint every %.0f s of sim time to the end: %.2f s, %zu checkpoints of %.0f KiB (world %.0f, configuration %.0f)%s\n"
        "20 jumps after that: median %.4f s, max %.4f s; the world at 95 %% %s the cold run's (state hash)\n"
        "command: build/bench/replay_seek %s [RESULTS_FILE] --every %g\n",
        what, length_s, length_s / 60, phys_replay_count (script), load_s, cold_s, every_s, build_s,
        phys_seek_checkpoints (seek), (double) (phys_world_image_size () + sizeof cfg) / 1024,
        (double) phys_world_image_size () / 1024, (double) sizeof cfg / 1024,
        built ? " (stopped early: an input could not be applied)" : "", jumps[10], jumps[19],
        same ? "equals" : "DIFFERS FROM", command, every_s);
    fputs (text, stdout);
    if (in.results && bench_results_write (in.results, text))
        fprintf (stderr, "replay_seek: cannot write %s: %s\n", in.results, strerror (errno));
    bench_input_remove (&in);
    phys_seek_destroy (&seek);
    phys_world_destroy (&start);
    phys_replay_destroy (&script);
    return same ? 0 : 1;
}
