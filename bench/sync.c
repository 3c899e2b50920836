/*  sync.c - round-trip latency of a lock-step sync step (issue 5 target:
    p50 <= 150 us, p99 <= 500 us in the four-process layout).

    Starts a real `ssl-sim run --mode sync --realism realistic` on loopback
    (private runtime directory, free ports), once as four processes over
    ipc and once with --single-process. A client like a team's software
    sends SimulationSyncRequest{sim_step 0.016 s, robot_control for the 11
    robots of one team} alternately to the blue and the yellow port (a
    command holds 0.1 s, so all 22 robots are commanded all the time) and
    times each request until its SimulationSyncResponse (detection frames
    included) is back.

    Each layout runs --runs times (5), interleaved so a slow moment of the
    shared machine hits both; every figure reported is the median over the
    runs (p50 also with its range).

    With --journal the second layout is the four processes again, with
    `--journal FILE` (issue 15: every input journaled with its substep),
    side by side with the plain one; the results go to
    bench/results/sync-journal.txt.

    usage: sync [RESULTS_FILE] [--steps N] [--runs N] [--journal]
    Writes bench/results/sync.txt (or RESULTS_FILE) and prints it. Traffic
    goes to 127.0.0.1 only; each simulator is stopped at the end.
*/
#include <errno.h>
#include <arpa/inet.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "tests/support/sim_test.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define SB_WARMUP   200
#define SB_MAX_RUNS 15

#define S_USAGE "usage: sync [RESULTS_FILE] [--journal] [--steps N] [--runs 1..%d]\n"

typedef struct {
    double p50, p90, p99, mean, max; /* us */
    double frames;                   /* per step */
    int steps, lost;
} sb_result_t;

static int64_t
s_now_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One sync request; returns the response (caller frees) or NULL. */
static SimulationSyncResponse *
s_call (int fd, int port, const SimulationSyncRequest *req, int timeout_ms)
{
    uint8_t buf[65536];
    size_t len = simulation_sync_request__pack (req, buf);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    to.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (sendto (fd, buf, len, 0, (struct sockaddr *) &to, sizeof to) != (ssize_t) len)
        return NULL;
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll (&p, 1, timeout_ms) <= 0)
        return NULL;
    ssize_t n = recv (fd, buf, sizeof buf, 0);
    return n < 0 ? NULL : simulation_sync_response__unpack (NULL, (size_t) n, buf);
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static int
s_run (bool single, bool journal, int steps, sb_result_t *r)
{
    memset (r, 0, sizeof *r);
    char path[64];
    snprintf (path, sizeof path, "/tmp/ssl-sim-bench-%d.journal", (int) getpid ());
    const char *four[] = { "--mode", "sync", "--realism", "realistic", "--log-level", "warn", NULL };
    const char *one[] = { "--single-process", "--mode",      "sync", "--realism",
                          "realistic",        "--log-level", "warn", NULL };
    const char *journaled[] = { "--mode", "sync",      "--realism", "realistic", "--log-level",
                                "warn",   "--journal", path,        NULL };
    sim_proc_t sim;
    if (sim_proc_start (&sim, journal ? journaled : single ? one : four, NULL)) {
        fprintf (stderr, "sync: cannot start the simulator\n");
        return -1;
    }
    int fd = sim_test_udp (0);
    RobotCommand cmds[11];
    RobotCommand *ptrs[11];
    RobotMoveCommand moves[11];
    MoveLocalVelocity locals[11];
    for (int i = 0; i < 11; i++) {
        robot_command__init (&cmds[i]);
        cmds[i].id = (uint32_t) i;
        move_local_velocity__init (&locals[i]);
        robot_move_command__init (&moves[i]);
        moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
        moves[i].local_velocity = &locals[i];
        cmds[i].move_command = &moves[i];
        cmds[i].has_dribbler_speed = true;
        cmds[i].dribbler_speed = 3000;
        ptrs[i] = &cmds[i];
    }
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 11;
    rc.robot_commands = ptrs;
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = 0.016f;
    req.robot_control = &rc;

    /* ready: the first answer with frames (vision has its configuration) */
    int64_t give_up = s_now_ns () + 20 * (int64_t) 1000000000;
    bool ready = false;
    while (!ready && s_now_ns () < give_up) {
        SimulationSyncResponse *resp = s_call (fd, sim.blue_port, &req, 200);
        ready = resp && resp->n_detection > 0;
        if (resp)
            simulation_sync_response__free_unpacked (resp, NULL);
    }
    double *lat = calloc ((size_t) steps, sizeof *lat);
    int rc_ok = ready && lat ? 0 : -1;
    size_t frames = 0;
    for (int i = 0; rc_ok == 0 && i < SB_WARMUP + steps; i++) {
        for (int k = 0; k < 11; k++) {
            locals[k].forward = (float) (1.0 * sin (i * 0.01 + k));
            locals[k].left = (float) (0.5 * cos (i * 0.017 + k));
            locals[k].angular = (float) (1.0 * sin (i * 0.013 + k));
        }
        int port = i % 2 ? sim.yellow_port : sim.blue_port;
        int64_t t0 = s_now_ns ();
        SimulationSyncResponse *resp = s_call (fd, port, &req, 2000);
        int64_t t1 = s_now_ns ();
        if (!resp) {
            r->lost++;
            continue;
        }
        if (i >= SB_WARMUP) {
            lat[r->steps++] = (double) (t1 - t0) / 1e3;
            frames += resp->n_detection;
        }
        simulation_sync_response__free_unpacked (resp, NULL);
    }
    if (rc_ok == 0 && r->steps > 0) {
        double sum = 0;
        for (int i = 0; i < r->steps; i++)
            sum += lat[i];
        qsort (lat, (size_t) r->steps, sizeof *lat, s_cmp);
        r->mean = sum / r->steps;
        r->p50 = lat[r->steps / 2];
        r->p90 = lat[(int) (r->steps * 0.90)];
        r->p99 = lat[(int) (r->steps * 0.99)];
        r->max = lat[r->steps - 1];
        r->frames = (double) frames / r->steps;
    } else
        fprintf (stderr, "sync: the simulator never answered with frames (log in %s)\n", sim.dir);
    free (lat);
    close (fd);
    sim_proc_stop (&sim);
    if (journal)
        unlink (path);
    if (rc_ok == 0)
        sim_proc_cleanup (&sim); /* a failed run keeps its log */
    return rc_ok;
}

static double
s_median_of (const sb_result_t *rs, int n, size_t offset)
{
    double v[SB_MAX_RUNS];
    for (int k = 0; k < n; k++)
        memcpy (&v[k], (const char *) &rs[k] + offset, sizeof v[k]);
    qsort (v, (size_t) n, sizeof v[0], s_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each figure the median over the runs; lost steps summed. */
static sb_result_t
s_median_result (const sb_result_t *rs, int n)
{
    sb_result_t m = { 0 };
    m.p50 = s_median_of (rs, n, offsetof (sb_result_t, p50));
    m.p90 = s_median_of (rs, n, offsetof (sb_result_t, p90));
    m.p99 = s_median_of (rs, n, offsetof (sb_result_t, p99));
    m.mean = s_median_of (rs, n, offsetof (sb_result_t, mean));
    m.max = s_median_of (rs, n, offsetof (sb_result_t, max));
    m.frames = s_median_of (rs, n, offsetof (sb_result_t, frames));
    for (int k = 0; k < n; k++) {
        m.steps += rs[k].steps;
        m.lost += rs[k].lost;
    }
    return m;
}

int
main (int argc, char **argv)
{
    const char *out_path = "bench/results/sync.txt";
    int steps = 5000, runs = 5;
    bool journal = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--journal") == 0) {
            journal = true;
            if (strcmp (out_path, "bench/results/sync.txt") == 0)
                out_path = "bench/results/sync-journal.txt";
        } else if (strcmp (argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi (argv[++i]);
        else if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi (argv[++i]);
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], S_USAGE, SB_MAX_RUNS);
        else
            out_path = argv[i];
    }
    const char *names[2] = { "four processes (ipc)",
                             journal ? "four, --journal FILE" : "single process (inproc)" };
    if (steps < 100)
        steps = 100;
    if (runs < 1 || runs > SB_MAX_RUNS)
        return bench_usage (NULL, S_USAGE, SB_MAX_RUNS);
    sb_result_t all[2][SB_MAX_RUNS];
    for (int k = 0; k < runs; k++)
        for (int layout = 0; layout < 2; layout++) {
            if (s_run (layout == 1 && !journal, layout == 1 && journal, steps, &all[layout][k]))
                return 1;
            fprintf (stderr, "  run %d %-24s p50 %7.1f us  p99 %7.1f us\n", k + 1, names[layout],
                     all[layout][k].p50, all[layout][k].p99);
        }
    sb_result_t four = s_median_result (all[0], runs), one = s_median_result (all[1], runs);
    double load[1] = { 0 };
    if (getloadavg (load, 1) < 1)
        load[0] = -1;
    char text[2048];
    int n = 0;
    n += snprintf (
        text + n, sizeof text - (size_t) n,
        "sync benchmark: round trip of a 0.016 s SimulationSyncRequest with 11 robot commands, "
        "alternating blue/yellow (22 robots commanded), realistic vision, 2 cameras (bench/sync.c)\n"
        "median of %d runs of %d measured steps after %d warm-up steps; load average %.1f; "
        "target four processes: p50 <= 150 us, p99 <= 500 us\n",
        runs, steps, SB_WARMUP, load[0]);
    const sb_result_t *rs[2] = { &four, &one };
    for (int i = 0; i < 2; i++)
        n += snprintf (text + n, sizeof text - (size_t) n,
                       "%-24s p50 %7.1f us  p90 %7.1f us  p99 %7.1f us  mean %7.1f us  max %8.1f us  "
                       "frames/step %.2f  lost %d\n",
                       names[i], rs[i]->p50, rs[i]->p90, rs[i]->p99, rs[i]->mean, rs[i]->max, rs[i]->frames,
                       rs[i]->lost);
    for (int i = 0; i < 2; i++) {
        double lo = all[i][0].p50, hi = lo;
        for (int k = 1; k < runs; k++) {
            lo = fmin (lo, all[i][k].p50);
            hi = fmax (hi, all[i][k].p50);
        }
        n += snprintf (text + n, sizeof text - (size_t) n, "%-24s p50 of the runs: %.1f .. %.1f us\n",
                       names[i], lo, hi);
    }
    n += snprintf (text + n, sizeof text - (size_t) n, "target (four processes): %s\n",
                   four.p50 <= 150 && four.p99 <= 500 ? "met" : "NOT met");
    if (journal)
        n += snprintf (text + n, sizeof text - (size_t) n,
                       "--journal: p50 %+.1f us (%+.1f %%), p99 %+.1f us\n", one.p50 - four.p50,
                       100.0 * (one.p50 - four.p50) / four.p50, one.p99 - four.p99);
    fputs (text, stdout);
    if (bench_results_write (out_path, text))
        fprintf (stderr, "sync: cannot write %s: %s\n", out_path, strerror (errno));
    return 0;
}
