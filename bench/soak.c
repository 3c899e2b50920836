/*  soak.c - whether a long run grows: the resident memory and the open
    file descriptors of every ssl-sim process, the size of the runtime
    directory (checkpoint, journal, pid files) and of the log, over a run
    of MINUTES (default 10) as a lab leaves one running.

    Starts a real `ssl-sim run` (four services and the viewer, realtime,
    realistic vision, 22 robots) on loopback with a private runtime
    directory and free ports. Both teams command all 11 robots 100 times
    a second (random local velocities, a kick now and then, the dribbler
    on and off; a fixed seed), and the ball is teleported every 5 s; the
    answers are read as they come. Every 30 s it samples each process
    (VmRSS from /proc/PID/status, entries of /proc/PID/fd).
    --fast runs the simulator in fast mode instead: hours of sim time
    (the commands then fall on far fewer sim steps).

    Target: nothing grows once warm. Over the run's second half every
    process's resident memory may move by at most 1 MiB (the allocator's
    pages coming and going) and its descriptors not at all.

    usage: soak [RESULTS_FILE] [--minutes M] [--fast]
    Writes bench/results/soak.txt (--fast: soak-fast.txt; or RESULTS_FILE)
    and prints it.
*/
#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "common/base/sim_rng.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "tests/support/sim_test.h"

#define SK_PROCS      6
#define SK_SAMPLES    512
#define SK_SAMPLE_S   30.0
#define SK_PERIOD_S   0.01
#define SK_TELEPORT_S 5.0
#define SK_GROW_KIB   1024

#define S_USAGE "usage: soak [RESULTS_FILE] [--minutes M] [--fast]\n"

static const char *const sk_names[SK_PROCS] = { "run",     "physics",      "vision",
                                                "gateway", "legacy-grsim", "viewer" };

typedef struct {
    double t_s;
    long rss_kib[SK_PROCS], fds[SK_PROCS];
    long long dir_bytes, log_bytes;
} sk_sample_t;

/* Monotonic seconds (the system tests' clock). */
static double
s_now_s (void)
{
    return (double) sim_test_now_ms () / 1000.0;
}

/* VmRSS of pid in KiB, or -1. */
static long
s_rss_kib (int pid)
{
    char path[64], line[256];
    snprintf (path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen (path, "r");
    long kib = -1;
    if (!f)
        return -1;
    while (fgets (line, sizeof line, f))
        if (sscanf (line, "VmRSS: %ld", &kib) == 1)
            break;
    fclose (f);
    return kib;
}

/* Entries of /proc/PID/fd, or -1. */
static long
s_fds (int pid)
{
    char path[64];
    snprintf (path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir (path);
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir (d));)
        n += e->d_name[0] != '.';
    closedir (d);
    return n;
}

/* Bytes of the regular files under dir, its subdirectories included. */
static long long
s_dir_bytes (const char *dir)
{
    DIR *d = opendir (dir);
    if (!d)
        return 0;
    long long sum = 0;
    for (struct dirent *e; (e = readdir (d));) {
        char path[1024];
        struct stat st;
        if (!strcmp (e->d_name, ".") || !strcmp (e->d_name, ".."))
            continue;
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat (path, &st))
            continue;
        if (S_ISDIR (st.st_mode))
            sum += s_dir_bytes (path);
        else if (S_ISREG (st.st_mode))
            sum += st.st_size;
    }
    closedir (d);
    return sum;
}

/* The sim time (s) of the last status line in the log at path, or -1. */
static double
s_log_sim_s (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    char line[1024];
    double sim_s = -1, v;
    while (fgets (line, sizeof line, f)) {
        const char *p = strstr (line, "info: sim ");
        if (p && sscanf (p, "info: sim %lfs", &v) == 1)
            sim_s = v;
    }
    fclose (f);
    return sim_s;
}

/* The largest runtime directory of samples [from, to). */
static long long
s_dir_max (const sk_sample_t *s, int from, int to)
{
    long long m = 0;
    for (int i = from; i < to; i++)
        m = s[i].dir_bytes > m ? s[i].dir_bytes : m;
    return m;
}

/* One RobotControl of team (SIM_MSG_BLUE or SIM_MSG_YELLOW) for its 11
   robots, drawn from rng. */
static int
s_team_send (int fd, int port, sim_rng_t *rng)
{
    sim_msg_robot_cmd_t b[11];
    RobotCommand *ptrs[11];
    for (int i = 0; i < 11; i++) {
        sim_msg_robot_cmd (&b[i], (unsigned) i);
        sim_msg_local (&b[i], sim_rng_uniform (rng, -2, 2), sim_rng_uniform (rng, -2, 2),
                       sim_rng_uniform (rng, -4, 4));
        if (sim_rng_uniform01 (rng) < 0.05) {
            b[i].cmd.has_kick_speed = true;
            b[i].cmd.kick_speed = (float) sim_rng_uniform (rng, 0, 6);
        }
        b[i].cmd.has_dribbler_speed = true;
        b[i].cmd.dribbler_speed = sim_rng_uniform01 (rng) < 0.3 ? 300 : 0;
        ptrs[i] = &b[i].cmd;
    }
    b[0].rc.n_robot_commands = 11;
    b[0].rc.robot_commands = ptrs;
    return sim_test_send (fd, port, &b[0].rc.base);
}

static int
s_ball_send (int fd, int port, sim_rng_t *rng)
{
    sim_msg_ball_tp_t b;
    SimulatorCommand *cmd = sim_msg_ball_tp (&b);
    b.tb.has_x = b.tb.has_y = b.tb.has_vx = b.tb.has_vy = true;
    b.tb.x = (float) sim_rng_uniform (rng, -4, 4);
    b.tb.y = (float) sim_rng_uniform (rng, -3, 3);
    b.tb.vx = (float) sim_rng_uniform (rng, -3, 3);
    b.tb.vy = (float) sim_rng_uniform (rng, -3, 3);
    return sim_test_send (fd, port, &cmd->base);
}

/* Read every answer waiting on fds[0..n); counts into got[]. */
static void
s_drain (const int *fds, int n, long *got, int ms)
{
    struct pollfd p[3];
    for (int i = 0; i < n; i++)
        p[i] = (struct pollfd) { .fd = fds[i], .events = POLLIN };
    if (poll (p, (nfds_t) n, ms) <= 0)
        return;
    for (int i = 0; i < n; i++)
        if (p[i].revents & POLLIN)
            got[i] += sim_test_drain (fds[i]);
}

static void
s_sample (sk_sample_t *s, double t_s, const int *pids, const sim_proc_t *sim)
{
    s->t_s = t_s;
    for (int k = 0; k < SK_PROCS; k++) {
        s->rss_kib[k] = s_rss_kib (pids[k]);
        s->fds[k] = s_fds (pids[k]);
    }
    s->dir_bytes = s_dir_bytes (sim->dir);
    struct stat st;
    s->log_bytes = stat (sim->log, &st) ? 0 : st.st_size;
    s->dir_bytes -= s->log_bytes; /* the log lives in the same directory */
}

int
main (int argc, char **argv)
{
    const char *out_path = NULL;
    double minutes = 10;
    bool fast = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "--minutes") && i + 1 < argc)
            minutes = atof (argv[++i]);
        else if (!strcmp (argv[i], "--fast"))
            fast = true;
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], S_USAGE);
        else
            out_path = argv[i];
    }
    if (!out_path)
        out_path = fast ? "bench/results/soak-fast.txt" : "bench/results/soak.txt";
    double seconds = minutes * 60;
    if (!(minutes > 0) || seconds / SK_SAMPLE_S + 2 > SK_SAMPLES)
        return bench_usage (NULL, S_USAGE);

    sim_proc_t sim;
    const char *fast_args[] = { "--mode", "fast", NULL }, *none[] = { NULL };
    if (sim_proc_start (&sim, fast ? fast_args : none, NULL)) {
        fprintf (stderr, "soak: ssl-sim did not start\n");
        return 1;
    }
    int pids[SK_PROCS] = { sim.pid };
    bool up = true;
    for (int k = 1; k < SK_PROCS; k++)
        up = up && (pids[k] = sim_lab_wait_service (sim.dir, 0, sk_names[k], 0, 15000)) > 0;
    int fds[3] = { sim_test_udp (0), sim_test_udp (0), sim_test_udp (0) }; /* blue, yellow, control */
    int ports[3] = { sim.blue_port, sim.yellow_port, sim.control_port };
    if (!up || fds[0] < 0 || fds[1] < 0 || fds[2] < 0) {
        fprintf (stderr, "soak: a service did not come up, or no UDP socket\n");
        sim_proc_dump_log (&sim);
        sim_proc_stop (&sim);
        sim_proc_cleanup (&sim);
        return 1;
    }
    static sk_sample_t samples[SK_SAMPLES];
    int ns = 0;
    long sent[3] = { 0 }, got[3] = { 0 };
    sim_rng_t rng;
    sim_rng_seed (&rng, 26, 1);
    double t0 = s_now_s (), next = t0, next_ball = t0, next_sample = t0;
    int rc = 0;
    while (rc == 0) {
        double now = s_now_s ();
        if (now >= next_sample) {
            s_sample (&samples[ns++], now - t0, pids, &sim);
            for (int k = 0; k < SK_PROCS; k++)
                if (samples[ns - 1].rss_kib[k] < 0) {
                    fprintf (stderr, "soak: %s (pid %d) is gone\n", sk_names[k], pids[k]);
                    rc = 1;
                }
            next_sample += SK_SAMPLE_S;
            if (now - t0 >= seconds)
                break;
        }
        if (now >= next) {
            for (int team = 0; team < 2; team++)
                sent[team] += s_team_send (fds[team], ports[team], &rng) == 0;
            next += SK_PERIOD_S;
        }
        if (now >= next_ball) {
            sent[2] += s_ball_send (fds[2], ports[2], &rng) == 0;
            next_ball += SK_TELEPORT_S;
        }
        double wait_s = next - s_now_s ();
        s_drain (fds, 3, got, wait_s > 0 ? (int) (wait_s * 1000) + 1 : 0);
    }
    s_drain (fds, 3, got, 200);
    for (int i = 0; i < 3; i++)
        close (fds[i]);
    double sim_s = s_log_sim_s (sim.log);
    int stopped = sim_proc_stop (&sim);
    if (rc || stopped != 0) {
        fprintf (stderr, "soak: %s\n", rc ? "a process died" : "ssl-sim did not stop cleanly");
        sim_proc_dump_log (&sim);
        rc = 1;
    }

    /* the second half: from the first sample at or after half the run */
    int half = 0;
    while (half < ns - 1 && samples[half].t_s < samples[ns - 1].t_s / 2)
        half++;
    double load = -1;
    getloadavg (&load, 1);
    char text[8192];
    size_t len = 0;
    len +=
        (size_t) snprintf (text + len, sizeof text - len,
                           "soak: ssl-sim run (%s, defaults), %.3g min; both teams commanding 11 robots at "
                           "100 Hz, the ball teleported every 5 s; load average %.1f at the end\n"
                           "  sent: blue %ld, yellow %ld, control %ld; answers %ld, %ld, %ld\n"
                           "  %-13s %9s %9s %9s %11s %5s %5s\n",
                           fast ? "fast mode" : "realtime", minutes, load, sent[0], sent[1], sent[2], got[0],
                           got[1], got[2], "KiB resident", "start", "half", "end", "2nd half", "fds", "fds+");
    bool grew = false;
    for (int k = 0; k < SK_PROCS; k++) {
        long d = samples[ns - 1].rss_kib[k] - samples[half].rss_kib[k];
        long df = samples[ns - 1].fds[k] - samples[half].fds[k];
        grew = grew || d > SK_GROW_KIB || df != 0;
        len += (size_t) snprintf (text + len, sizeof text - len, "  %-13s %9ld %9ld %9ld %+11ld %5ld %+5ld\n",
                                  sk_names[k], samples[0].rss_kib[k], samples[half].rss_kib[k],
                                  samples[ns - 1].rss_kib[k], d, samples[ns - 1].fds[k], df);
    }
    len +=
        (size_t) snprintf (text + len, sizeof text - len,
                           "  sim time at the end %.0f s (%.2f h); runtime directory at most %lld bytes in "
                           "the first half, %lld in the second\n",
                           sim_s, sim_s / 3600, s_dir_max (samples, 0, half), s_dir_max (samples, half, ns));
    len += (size_t) snprintf (text + len, sizeof text - len,
                              "  log %lld -> %lld bytes (%.0f bytes a minute)\n"
                              "  target: nothing grows over the second half (resident +%d KiB at most, no "
                              "descriptor): %s\n",
                              samples[0].log_bytes, samples[ns - 1].log_bytes,
                              (double) (samples[ns - 1].log_bytes - samples[0].log_bytes)
                                  / (samples[ns - 1].t_s > 0 ? samples[ns - 1].t_s / 60 : 1),
                              SK_GROW_KIB, grew ? "NOT met" : "met");
    sim_proc_cleanup (&sim);
    fputs (text, stdout);
    if (bench_results_write (out_path, text)) {
        fprintf (stderr, "soak: cannot write %s: %s\n", out_path, strerror (errno));
        return 1;
    }
    return rc;
}
