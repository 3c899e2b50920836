/*  bench_input.h - the input a benchmark measures (a journal, a league
    log): the file a user names, or one recorded on the spot with
    `--record S`, S seconds of a fast run of the simulator, removed
    afterwards (replay_seek and player_open; `make bench` passes --record,
    scripts/bench.sh). Before, `make bench` handed them its results file as
    their input: player_open skipped and replay_seek failed, so `make
    bench` ended in an error.
*/
#ifndef BENCH_INPUT_H
#define BENCH_INPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

/* The longest recording --record takes, in seconds. */
#define BENCH_INPUT_MAX_S 3600

typedef struct {
    const char *path;    /* the input to measure */
    const char *results; /* the results file, or NULL */
    const char *record;  /* --record's S, or NULL: the user named path */
    char dir[32];        /* the recording's directory, "" when none */
    char recorded[64];   /* the recording, dir/NAME */
} bench_input_t;

/* The program's words (at most two) and --record S (NULL when not
   given): `INPUT [RESULTS_FILE]`, or with --record `[RESULTS_FILE]`
   alone. 0, or -1 when they do not fit (the caller prints its usage). */
static inline int
bench_input_words (bench_input_t *in, const char *record, const char *const word[2], int words)
{
    *in = (bench_input_t) { .record = record };
    if (record) {
        double s = atof (record);
        if (words > 1 || !(s > 0 && s <= BENCH_INPUT_MAX_S))
            return -1;
        in->results = word[0];
        return 0;
    }
    in->path = word[0];
    in->results = word[1];
    return in->path ? 0 : -1;
}

/* With --record, record NAME in a directory of its own: `ssl-sim run
   --mode fast --no-viewer FLAGS... OUT_FLAG DIR/NAME --duration S`
   (FLAGS NULL-terminated, at most 8), on free loopback ports with a
   runtime directory of its own (sim_proc_start), and point in->path at
   it. Nothing to do without --record. 0, or -1 after printing why (the
   run's log when it failed). */
static inline int
bench_input_make (bench_input_t *in, const char *name, const char *out_flag, const char *const *flags)
{
    if (!in->record)
        return 0;
    snprintf (in->dir, sizeof in->dir, "/tmp/ssl-sim-bench-XXXXXX");
    if (!mkdtemp (in->dir)) {
        perror (in->dir);
        in->dir[0] = '\0';
        return -1;
    }
    snprintf (in->recorded, sizeof in->recorded, "%s/%s", in->dir, name);
    const char *args[16] = { "--mode", "fast", "--no-viewer" };
    int n = 3;
    for (int i = 0; flags && flags[i] && i < 8; i++)
        args[n++] = flags[i];
    args[n++] = out_flag;
    args[n++] = in->recorded;
    args[n++] = "--duration";
    args[n++] = in->record;
    args[n] = NULL;
    sim_proc_t sim;
    if (sim_proc_start (&sim, args, NULL)) {
        fprintf (stderr, "cannot start the simulator to record %s\n", in->recorded);
        return -1;
    }
    /* the run ends by itself after S seconds; then it writes and closes
       the file, which a log's compression can make take minutes */
    int status = -1, ms = (int) (atof (in->record) * 1000) + 300000;
    if (sim_lab_wait_exit (sim.pid, ms) == 0 && waitpid (sim.pid, &status, 0) == sim.pid) {
        sim.pid = 0;
        if (WIFEXITED (status) && WEXITSTATUS (status) == 0 && access (in->recorded, R_OK) == 0) {
            sim_proc_cleanup (&sim);
            in->path = in->recorded;
            return 0;
        }
    }
    fprintf (stderr, "the run that was to record %s failed; its log:\n", in->recorded);
    sim_proc_dump_log (&sim);
    if (sim.pid > 0)
        sim_proc_stop (&sim);
    sim_proc_cleanup (&sim);
    return -1;
}

/* Remove what bench_input_make recorded (nothing when it recorded none). */
static inline void
bench_input_remove (bench_input_t *in)
{
    if (in->dir[0])
        sim_lab_sh ("rm -rf '%s'", in->dir);
    in->dir[0] = '\0';
}

#endif
