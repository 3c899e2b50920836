/*  restart.c - how soon a killed service is back (issue 24 target: within
    0.5 s in 99 of 100 kills, on a loaded machine).

    Starts a real `ssl-sim run` with the defaults (the fixture's private
    runtime directory and free loopback ports), then, for each of the four
    services the launcher restarts, sends SIGKILL KILLS times, each time
    as soon as the successor is up, and measures the time from the kill
    to the successor's pid file (written once it reported ready). With
    --load N, N busy processes (a loop each, nice 0) run meanwhile; the
    load average at the start and the end is reported. Prints per service the
    median, the 99th percentile, the worst and how many were back within
    500 ms.

    usage: restart [RESULTS_FILE] [--kills N] [--load N]
    Writes bench/results/restart.txt (or RESULTS_FILE) and prints it.
    Traffic goes to 127.0.0.1 only; the simulator and the load are stopped
    at the end.
*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_test.h"

#define RS_KILLS_MAX 1000
#define RS_LOAD_MAX  16
#define RS_TARGET_MS 500.0
#define RS_WAIT_MS   10000

#define S_USAGE "usage: restart [RESULTS_FILE] [--kills 2..%d] [--load 0..%d]\n"

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The 1-minute load average, or -1. */
static double
s_loadavg (void)
{
    double l = -1;
    FILE *f = fopen ("/proc/loadavg", "r");
    if (f && fscanf (f, "%lf", &l) != 1)
        l = -1;
    if (f)
        fclose (f);
    return l;
}

static double
s_rank (const double *sorted, int n, double q)
{
    int i = (int) (q * (n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

int
main (int argc, char **argv)
{
    const char *out_path = "bench/results/restart.txt";
    int kills = 100, load = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "--kills") && i + 1 < argc)
            kills = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--load") && i + 1 < argc)
            load = atoi (argv[++i]);
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], S_USAGE, RS_KILLS_MAX, RS_LOAD_MAX);
        else
            out_path = argv[i];
    }
    if (kills < 2 || kills > RS_KILLS_MAX || load < 0 || load > RS_LOAD_MAX)
        return bench_usage (NULL, S_USAGE, RS_KILLS_MAX, RS_LOAD_MAX);
    pid_t busy[RS_LOAD_MAX];
    for (int i = 0; i < load; i++)
        if ((busy[i] = fork ()) == 0)
            for (volatile unsigned long x = 0;; x++)
                ;
    sim_fixture_t f;
    if (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_SERVICES)) {
        sim_fixture_stop (&f);
        return 1;
    }
    static const char *const names[] = { "physics", "vision", "gateway", "legacy-grsim" };
    char report[2048];
    size_t len = (size_t) snprintf (report, sizeof report,
                                    "restart: %d kill -9s per service, each as soon as the successor was up, "
                                    "with %d busy processes of its own; load average %.1f at the start\n",
                                    kills, load, s_loadavg ());
    int rc = 0;
    for (int n = 0; n < 4 && rc == 0; n++) {
        static double ms[RS_KILLS_MAX];
        int within = 0;
        for (int i = 0; i < kills; i++) {
            int64_t t0 = sim_test_now_ms ();
            int old = sim_fixture_signal (&f, names[n], SIGKILL);
            int now = old > 0 ? sim_fixture_wait_service (&f, names[n], old, RS_WAIT_MS) : 0;
            if (now <= 0) {
                fprintf (stderr, "restart: %s was not back after kill %d\n", names[n], i + 1);
                rc = 1;
                break;
            }
            ms[i] = (double) (sim_test_now_ms () - t0);
            within += ms[i] <= RS_TARGET_MS;
        }
        if (rc)
            break;
        qsort (ms, (size_t) kills, sizeof *ms, s_cmp);
        len += (size_t) snprintf (
            report + len, sizeof report - len,
            "  %-13s median %4.0f ms  p99 %5.0f ms  max %5.0f ms  within %.0f ms: %d of %d\n", names[n],
            s_rank (ms, kills, 0.5), s_rank (ms, kills, 0.99), ms[kills - 1], RS_TARGET_MS, within, kills);
    }
    len += (size_t) snprintf (report + len, sizeof report - len, "  load average %.1f at the end\n",
                              s_loadavg ());
    sim_fixture_stop (&f);
    for (int i = 0; i < load; i++) {
        kill (busy[i], SIGKILL);
        waitpid (busy[i], NULL, 0);
    }
    if (rc)
        return rc;
    fputs (report, stdout);
    if (bench_results_write (out_path, report)) {
        perror (out_path);
        return 1;
    }
    return 0;
}
