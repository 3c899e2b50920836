/*  bench_input.h - the input a benchmark measures, recorded on the spot
    when it is not given one: a fast run of the simulator that writes a
    journal or a league log (`--record S` of replay_seek and player_open,
    which `make bench` passes; scripts/bench.sh). Before, `make bench`
    handed them its results file as their input: player_open skipped and
    replay_seek failed, so `make bench` ended in an error.
*/
#ifndef BENCH_INPUT_H
#define BENCH_INPUT_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

/* Run `ssl-sim run ARGS` (NULL-terminated; they hold --duration, so the
   run ends by itself) on free loopback ports with a runtime directory of
   its own (sim_proc_start), and wait up to `ms` for it to end. 0 when it
   exited 0 and left `path`; otherwise -1 after printing its log. */
static inline int
bench_input_record (const char *const *args, const char *path, int ms)
{
    sim_proc_t sim;
    if (sim_proc_start (&sim, args, NULL)) {
        fprintf (stderr, "cannot start the simulator to record %s\n", path);
        return -1;
    }
    int status = -1;
    if (sim_lab_wait_exit (sim.pid, ms) == 0 && waitpid (sim.pid, &status, 0) == sim.pid) {
        sim.pid = 0;
        if (WIFEXITED (status) && WEXITSTATUS (status) == 0 && access (path, R_OK) == 0) {
            sim_proc_cleanup (&sim);
            return 0;
        }
    }
    fprintf (stderr, "the run that was to record %s failed; its log:\n", path);
    sim_proc_dump_log (&sim);
    if (sim.pid > 0)
        sim_proc_stop (&sim);
    sim_proc_cleanup (&sim);
    return -1;
}

#endif
