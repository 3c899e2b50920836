/*  record.c - what `--record FILE` costs a fast-mode run (issue 15 target:
    within 10 % of the real-time factor without it).

    Starts real four-process `ssl-sim run --mode fast` simulators on
    loopback, without --record, with --record FILE.log and with --record
    FILE.log.gz, in turn (interleaved, so a slow moment of the shared
    machine hits every layout), and measures the real-time factor: sim
    time advanced in the vision packets (t_capture) over wall time, after a
    1 s warm-up, and what recording costs where it is done: vision's CPU
    time per second of sim time (from /proc), which a loaded machine
    disturbs much less than the real-time factor. The order of the
    layouts turns from round to round, so none always runs after another.
    Every figure is the median over the runs; the recorded file's size and
    message count are reported with it.

    FILE.log.gz is run as a user runs it: vision writes FILE.log.gz.part
    plain during the run and the launcher compresses it after every
    service stopped (docs/logs.md). That work is not hidden: the time from
    SIGTERM to the launcher's exit is measured for every layout, and the
    compression time the launcher logs is reported beside it, also per
    second of the run it recorded.

    Last, the writer alone: the time to append 100 000 records of 500
    bytes (a detection packet's size), plain and gzip, in this process,
    and what that is at the packet rate the recorded runs reached
    (synthetic bytes, which deflate faster than real packets).

    usage: record [RESULTS_FILE] [--runs N] [--seconds S]
    Writes bench/results/record.txt (or RESULTS_FILE) and prints it.
    Traffic goes to 127.0.0.1 only; every simulator is stopped at the end.
*/
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "tests/support/sim_lab.h"
#include "common/logs/sim_logfile.h"
#include "tests/support/sim_test.h"
#include "ssl_vision_wrapper.pb-c.h"

#define RB_MAX_RUNS 15
#define RB_LAYOUTS  3

#define S_USAGE "usage: record [RESULTS_FILE] [--runs 1..%d] [--seconds S]\n"

static double
s_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* The newest t_capture among what waits on fd (only the last datagram
   of a batch is decoded, so the reader stays cheap). */
static double
s_drain (int fd, double newest)
{
    static uint8_t buf[65536], keep[65536];
    ssize_t last = -1, n;
    while ((n = recv (fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
        memcpy (keep, buf, (size_t) n);
        last = n;
    }
    if (last > 0) {
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) last, keep);
        if (w && w->detection && w->detection->t_capture > newest)
            newest = w->detection->t_capture;
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return newest;
}

/* CPU seconds (user + system) of process pid, or -1. */
static double
s_cpu (int pid)
{
    char path[64];
    snprintf (path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    char buf[1024];
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    const char *p = strrchr (buf, ')');
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return -1;
    return (double) (utime + stime) / (double) sysconf (_SC_CLK_TCK);
}

typedef struct {
    double rtf;
    double vision_ms;  /* vision's CPU per second of sim time, ms */
    double mib;        /* the log's size */
    uint64_t messages; /* in the log */
    double stop_s;     /* SIGTERM to the launcher's exit */
    double compress_s; /* of that, compressing (as the launcher logged it); 0 when none */
    double run_s;      /* wall time from start to SIGTERM */
    double sim_end;    /* sim time of the last packet seen */
} rb_result_t;

/* The seconds in the launcher's "(compressed in X s)", or 0. */
static double
s_compress_s (const char *log)
{
    FILE *f = fopen (log, "r");
    char line[1024];
    double s = 0;
    while (f && fgets (line, sizeof line, f)) {
        const char *p = strstr (line, "(compressed in ");
        if (p)
            s = atof (p + 15);
    }
    if (f)
        fclose (f);
    return s;
}

static uint64_t
s_count (const char *path)
{
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    if (!r)
        return 0;
    uint64_t n = 0;
    sim_logfile_msg_t m;
    while (sim_logfile_next (r, &m) == 1)
        n++;
    sim_logfile_reader_destroy (&r);
    return n;
}

static int
s_run (const char *record, double seconds, rb_result_t *r)
{
    memset (r, 0, sizeof *r);
    double started = s_now ();
    /* info: the launcher's "(compressed in X s)" line */
    const char *plain[] = { "--mode", "fast", "--log-level", "info", NULL };
    const char *recorded[] = { "--mode", "fast", "--log-level", "info", "--record", record, NULL };
    sim_proc_t sim;
    if (sim_proc_start (&sim, record ? recorded : plain, NULL)) {
        fprintf (stderr, "record: cannot start the simulator\n");
        return -1;
    }
    int fd = sim_test_udp (sim.vision_port);
    int rc = -1;
    struct pollfd p = { fd, POLLIN, 0 };
    if (fd < 0 || poll (&p, 1, 15000) <= 0) {
        fprintf (stderr, "record: no vision packet within 15 s (log in %s)\n", sim.dir);
        goto done;
    }
    double newest = s_drain (fd, 0), warm_end = s_now () + 1.0;
    while (s_now () < warm_end) {
        poll (&p, 1, 2);
        newest = s_drain (fd, newest);
    }
    int vision_pid = sim_proc_service_pid (&sim, "vision");
    double cpu0 = vision_pid > 0 ? s_cpu (vision_pid) : -1;
    double sim0 = newest, wall0 = s_now (), end = wall0 + seconds;
    while (s_now () < end) {
        poll (&p, 1, 2);
        newest = s_drain (fd, newest);
    }
    r->rtf = (newest - sim0) / (s_now () - wall0);
    r->sim_end = newest;
    double cpu1 = vision_pid > 0 ? s_cpu (vision_pid) : -1;
    r->vision_ms = cpu0 >= 0 && cpu1 >= 0 && newest > sim0 ? 1000.0 * (cpu1 - cpu0) / (newest - sim0) : -1;
    rc = 0;
done:
    if (fd >= 0)
        close (fd);
    /* not sim_proc_stop: its 5 s before SIGKILL would cut compression */
    double stop0 = s_now ();
    r->run_s = stop0 - started;
    kill (sim.pid, SIGTERM);
    if (sim_lab_wait_exit (sim.pid, 300000) != 0) {
        fprintf (stderr, "record: the simulator did not stop in 300 s\n");
        kill (sim.pid, SIGKILL);
        rc = -1;
    }
    waitpid (sim.pid, NULL, 0);
    sim.pid = 0;
    r->stop_s = s_now () - stop0;
    r->compress_s = s_compress_s (sim.log);
    if (record) {
        struct stat st;
        if (stat (record, &st) == 0)
            r->mib = (double) st.st_size / 1048576.0;
        r->messages = s_count (record);
        unlink (record);
    }
    if (rc == 0)
        sim_proc_cleanup (&sim);
    return rc;
}

/* Microseconds per 500-byte record appended to `path`. */
static double
s_writer_us (const char *path)
{
    enum { N = 100000 };
    uint8_t msg[500];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t) (i * 31 + 7);
    unlink (path);
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, false, err, sizeof err);
    if (!w)
        return -1;
    double t0 = s_now ();
    for (int i = 0; i < N; i++) {
        msg[0] = (uint8_t) i; /* a frame number that changes */
        msg[1] = (uint8_t) (i >> 8);
        sim_logfile_write (w, i, SIM_LOGFILE_VISION, msg, sizeof msg);
    }
    sim_logfile_writer_destroy (&w);
    double us = (s_now () - t0) / N * 1e6;
    unlink (path);
    return us;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double
s_median (double *v, int n)
{
    qsort (v, (size_t) n, sizeof v[0], s_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main (int argc, char **argv)
{
    const char *out_path = "bench/results/record.txt";
    int runs = 5;
    double seconds = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi (argv[++i]);
        else if (strcmp (argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof (argv[++i]);
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], S_USAGE, RB_MAX_RUNS);
        else
            out_path = argv[i];
    }
    if (runs < 1 || runs > RB_MAX_RUNS || !(seconds > 0))
        return bench_usage (NULL, S_USAGE, RB_MAX_RUNS);
    char plain[64], gz[64];
    snprintf (plain, sizeof plain, "/tmp/ssl-sim-bench-%d.log", (int) getpid ());
    snprintf (gz, sizeof gz, "/tmp/ssl-sim-bench-%d.log.gz", (int) getpid ());
    const char *records[RB_LAYOUTS] = { NULL, plain, gz };
    const char *names[RB_LAYOUTS] = { "fast, no --record", "fast, --record FILE.log",
                                      "fast, --record FILE.log.gz" };
    rb_result_t all[RB_LAYOUTS][RB_MAX_RUNS];
    for (int k = 0; k < runs; k++)
        for (int i = 0; i < RB_LAYOUTS; i++) {
            int l = (i + k) % RB_LAYOUTS;
            if (s_run (records[l], seconds, &all[l][k]))
                return 1;
            fprintf (stderr, "  run %d %-28s rtf %7.1fx  vision %.1f ms CPU per sim s\n", k + 1, names[l],
                     all[l][k].rtf, all[l][k].vision_ms);
        }
    double load[1] = { 0 };
    if (getloadavg (load, 1) < 1)
        load[0] = -1;
    char text[4096];
    int n =
        snprintf (text, sizeof text,
                  "record benchmark: fast mode, four processes (ipc), default realism, real-time factor from "
                  "vision t_capture over %.0f s after a 1 s warm-up (bench/record.c)\n"
                  "median of %d interleaved runs; load average %.1f; target: --record within 10 %% of "
                  "without\n",
                  seconds, runs, load[0]);
    double rtf[RB_LAYOUTS], vision[RB_LAYOUTS], whole[RB_LAYOUTS], paired[RB_LAYOUTS];
    for (int l = 0; l < RB_LAYOUTS; l++) {
        double v[RB_MAX_RUNS], mib[RB_MAX_RUNS], msgs[RB_MAX_RUNS], cpu[RB_MAX_RUNS], lo = INFINITY, hi = 0;
        double stop[RB_MAX_RUNS], comp[RB_MAX_RUNS], per_run_s[RB_MAX_RUNS], all_rtf[RB_MAX_RUNS],
            run_s[RB_MAX_RUNS], ratio[RB_MAX_RUNS];
        for (int k = 0; k < runs; k++) {
            const rb_result_t *r = &all[l][k];
            v[k] = r->rtf;
            cpu[k] = r->vision_ms;
            mib[k] = r->mib;
            msgs[k] = (double) r->messages;
            stop[k] = r->stop_s;
            comp[k] = r->compress_s;
            per_run_s[k] = r->run_s > 0 ? r->compress_s / r->run_s : 0;
            run_s[k] = r->run_s;
            /* against the run without --record of the same round, a few
               seconds apart: the machine's slow minutes cancel */
            ratio[k] = all[0][k].rtf > 0 ? r->rtf / all[0][k].rtf : 0;
            all_rtf[k] = r->sim_end / (r->run_s + r->stop_s);
            lo = fmin (lo, v[k]);
            hi = fmax (hi, v[k]);
        }
        rtf[l] = s_median (v, runs);
        vision[l] = s_median (cpu, runs);
        whole[l] = s_median (all_rtf, runs);
        paired[l] = s_median (ratio, runs);
        n += snprintf (text + n, sizeof text - (size_t) n,
                       "%-28s rtf %7.1fx (min %.1f, max %.1f)  vision %.1f ms CPU per sim s", names[l],
                       rtf[l], lo, hi, vision[l]);
        if (records[l])
            n += snprintf (text + n, sizeof text - (size_t) n,
                           "  log %.1f MiB, %.0f messages  rtf %+.1f %% (paired by round %+.1f %%)  vision "
                           "CPU %+.1f %%",
                           s_median (mib, runs), s_median (msgs, runs), 100.0 * (rtf[l] - rtf[0]) / rtf[0],
                           100.0 * (paired[l] - 1), 100.0 * (vision[l] - vision[0]) / vision[0]);
        n += snprintf (text + n, sizeof text - (size_t) n, "\n");
        n += snprintf (text + n, sizeof text - (size_t) n, "  after the run: stop %.2f s (SIGTERM to exit)",
                       s_median (stop, runs));
        double c = s_median (comp, runs);
        if (c > 0)
            n += snprintf (text + n, sizeof text - (size_t) n,
                           ", of it compressing %.2f s = %.2f s per second of the %.1f s run (start to "
                           "SIGTERM)",
                           c, s_median (per_run_s, runs), s_median (run_s, runs));
        n += snprintf (text + n, sizeof text - (size_t) n,
                       "; sim s per wall s from start to exit, stop included: %.1fx (%+.1f %%)\n", whole[l],
                       100.0 * (whole[l] - whole[0]) / whole[0]);
    }
    for (int l = 1; l < RB_LAYOUTS; l++) {
        double us = s_writer_us (records[l]);
        double rate = 0; /* packets per wall second in the recorded runs */
        for (int k = 0; k < runs; k++)
            rate += (double) all[l][k].messages / (seconds + 1.0) / runs;
        n += snprintf (
            text + n, sizeof text - (size_t) n,
            "writer alone, %-14s %.2f us per 500-byte record (synthetic bytes); at %.0f packets/s that "
            "is %.2f %% of a core\n",
            l == 1 ? "plain:" : "gzip:", us, rate, us * rate / 1e4);
    }
    bool met = rtf[1] >= 0.9 * rtf[0] && rtf[2] >= 0.9 * rtf[0];
    bool met_paired = paired[1] >= 0.9 && paired[2] >= 0.9;
    n +=
        snprintf (text + n, sizeof text - (size_t) n,
                  "target (rtf during the run within 10 %%, plain and gzip): %s by the medians, %s paired by "
                  "round\n"
                  "command: build/bench/record --runs %d --seconds %g\n",
                  met ? "met" : "NOT met", met_paired ? "met" : "NOT met", runs, seconds);
    fputs (text, stdout);
    if (bench_results_write (out_path, text))
        fprintf (stderr, "record: cannot write %s: %s\n", out_path, strerror (errno));
    return 0;
}
