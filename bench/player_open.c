/*  player_open.c - how long `ssl-sim play` takes to open a long log, with
    and without the league's index at its end (common/logs/sim_player,
    sim_logindex; issue 27: "seeking in a league log uses its index (or
    builds one)").

    Takes a plain log a user recorded (`ssl-sim run --mode fast --cameras 4
    --record LOG --duration N`), and writes two copies of its records with
    a game controller's referee packet every 100 ms of the log's time
    woven in (a new command every 30 s, a goal every 10 minutes; a run's
    log has no referee of its own): LOG.plain without an index and
    LOG.indexed ending with the league's index, as `ssl-sim record` and
    the league's indexer write it. Then opens each with sim_player_new (the
    pass that builds the timeline and the referee's marks) --repeat times,
    alternating, and reports the median and fastest wall time of each and
    the median CPU time (user and system) of this process:
      warm   the file in the page cache (a second open of the same file);
      cold   the file's pages dropped first (posix_fadvise DONTNEED on
             this file only), so the disk, or here the storage under it,
             is read again.
    Both players are checked to give the same timeline and marks.

    usage: player_open LOG [RESULTS_FILE] [--repeat N] [--minutes M]
           player_open --record S [RESULTS_FILE] [--repeat N] [--minutes M]
    (M: the log's first M minutes are copied, 30 by default.) --record S
    records the log first, S seconds of a fast run with four cameras
    (`make bench` passes --record 10: more than M minutes of log on this
    2-core machine), measures it and removes it. Prints the results, and
    writes them to RESULTS_FILE when given (bench/bench_results.h).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_input.h"
#include "bench_results.h"
#include "common/logs/sim_logfile.h"
#include "common/logs/sim_player.h"
#include "ssl_gc_referee_message.pb-c.h"

#define S_USAGE \
    "usage: player_open LOG [RESULTS_FILE] [--repeat 1..100] [--minutes M]\n" \
    "       player_open --record S [RESULTS_FILE] [--repeat 1..100] [--minutes M]\n"

static double
s_clock_s (clockid_t clock)
{
    struct timespec ts;
    clock_gettime (clock, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* A game controller's packet at log time t_s (s since the first record). */
static size_t
s_referee (uint8_t *buf, double t_s)
{
    Referee ref = REFEREE__INIT;
    Referee__TeamInfo blue = REFEREE__TEAM_INFO__INIT, yellow = REFEREE__TEAM_INFO__INIT;
    blue.name = (char *) "Blue";
    yellow.name = (char *) "Yellow";
    blue.score = (uint32_t) (t_s / 600);
    ref.blue = &blue;
    ref.yellow = &yellow;
    ref.stage = REFEREE__STAGE__NORMAL_FIRST_HALF;
    ref.command_counter = (uint32_t) (t_s / 30);
    ref.command = ref.command_counter % 2 ? REFEREE__COMMAND__FORCE_START : REFEREE__COMMAND__STOP;
    return referee__pack (&ref, buf);
}

/* The copies of `src`: its records with the referee woven in, at `out`
   with an index or not. Returns the records written, or 0. */
static uint64_t
s_copy (const char *src, const char *out, bool index, double minutes)
{
    char err[512];
    unlink (out);
    sim_logfile_reader_t *r = sim_logfile_reader_new (src, err, sizeof err);
    sim_logfile_writer_t *w = r ? sim_logfile_writer_new (out, index, err, sizeof err) : NULL;
    if (!r || !w) {
        fprintf (stderr, "player_open: %s\n", err);
        sim_logfile_reader_destroy (&r);
        return 0;
    }
    sim_logfile_msg_t m;
    int64_t first = 0, next_ref = 0;
    bool started = false;
    uint8_t buf[512];
    while (sim_logfile_next (r, &m) > 0) {
        if (m.type == SIM_LOGFILE_INDEX || m.type == SIM_LOGFILE_REFEREE)
            continue;
        if (!started) {
            first = next_ref = m.time_ns;
            started = true;
        }
        if ((double) (m.time_ns - first) > minutes * 60e9)
            break;
        while (m.time_ns >= next_ref) {
            size_t n = s_referee (buf, (double) (next_ref - first) / 1e9);
            sim_logfile_write (w, next_ref, SIM_LOGFILE_REFEREE, buf, n);
            next_ref += 100000000;
        }
        sim_logfile_write (w, m.time_ns, m.type, m.data, m.len);
    }
    uint64_t written = sim_logfile_written (w);
    sim_logfile_reader_destroy (&r);
    return sim_logfile_writer_destroy (&w) == 0 ? written : 0;
}

static void
s_drop (const char *path)
{
    int fd = open (path, O_RDONLY);
    if (fd >= 0) {
        fdatasync (fd);
        posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
        close (fd);
    }
}

/* One open, timed (wall clock; *cpu: this process's CPU time, user and
   system, which a loaded machine disturbs less); the player kept in *keep
   when keep is not NULL. */
static double
s_open (const char *path, bool cold, sim_player_t **keep, double *cpu)
{
    char err[512];
    if (cold)
        s_drop (path);
    double t0 = s_clock_s (CLOCK_MONOTONIC), c0 = s_clock_s (CLOCK_PROCESS_CPUTIME_ID);
    sim_player_t *p = sim_player_new (path, err, sizeof err);
    double dt = s_clock_s (CLOCK_MONOTONIC) - t0;
    if (cpu)
        *cpu = s_clock_s (CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (!p) {
        fprintf (stderr, "player_open: %s\n", err);
        exit (1);
    }
    if (keep)
        *keep = p;
    else
        sim_player_destroy (&p);
    return dt;
}

int
main (int argc, char **argv)
{
    const char *record = NULL, *word[2] = { NULL, NULL };
    int repeat = 7, words = 0;
    double minutes = 30;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi (argv[++i]);
        else if (strcmp (argv[i], "--minutes") == 0 && i + 1 < argc)
            minutes = atof (argv[++i]);
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
    if (bench_input_words (&in, record, word, words) || repeat < 1 || repeat > 100 || !(minutes > 0))
        return bench_usage (NULL, S_USAGE);
    static const char *const cameras[] = { "--cameras", "4", NULL };
    if (bench_input_make (&in, "run.log", "--record", cameras)) {
        bench_input_remove (&in);
        return 1;
    }
    const char *log = in.path;
    char plain[4096], indexed[4096];
    snprintf (plain, sizeof plain, "%s.plain", log);
    snprintf (indexed, sizeof indexed, "%s.indexed", log);
    uint64_t records = s_copy (log, plain, false, minutes);
    if (!records || s_copy (log, indexed, true, minutes) != records) {
        bench_input_remove (&in);
        return 1;
    }

    sim_player_t *a = NULL, *b = NULL;
    s_open (plain, false, &a, NULL);
    s_open (indexed, false, &b, NULL);
    size_t na, nb;
    sim_player_marks (a, &na);
    sim_player_marks (b, &nb);
    if (sim_player_indexed (a) || !sim_player_indexed (b) || na != nb
        || sim_player_records (a) != sim_player_records (b)
        || sim_player_duration (a) != sim_player_duration (b)) {
        fprintf (stderr, "player_open: the two players differ\n");
        bench_input_remove (&in);
        return 1;
    }
    struct stat st;
    stat (indexed, &st);
    char head[512];
    snprintf (head, sizeof head,
              "log: %.1f min, %zu records played (%llu in the file), %zu referee marks, %.0f MiB",
              sim_player_duration (b) / 60, sim_player_records (b), (unsigned long long) records, nb,
              (double) st.st_size / 1048576);
    sim_player_destroy (&a);
    sim_player_destroy (&b);

    double t[4][100], c[4][100];
    for (int i = 0; i < repeat; i++) {
        t[0][i] = s_open (plain, false, NULL, &c[0][i]);
        t[1][i] = s_open (indexed, false, NULL, &c[1][i]);
        t[2][i] = s_open (plain, true, NULL, &c[2][i]);
        t[3][i] = s_open (indexed, true, NULL, &c[3][i]);
    }
    const char *names[4] = { "warm, read record by record", "warm, through its index     ",
                             "cold, read record by record", "cold, through its index     " };
    char lines[4][256];
    for (int k = 0; k < 4; k++) {
        qsort (t[k], (size_t) repeat, sizeof t[k][0], s_cmp);
        qsort (c[k], (size_t) repeat, sizeof c[k][0], s_cmp);
        snprintf (lines[k], sizeof lines[k],
                  "open %s  wall median %6.1f ms, fastest %6.1f ms;  CPU median %6.1f ms  (%d opens)",
                  names[k], t[k][repeat / 2] * 1e3, t[k][0] * 1e3, c[k][repeat / 2] * 1e3, repeat);
    }
    char text[2048];
    int len = snprintf (text, sizeof text,
                        "player_open: opening a league log with and without its index\n%s\n", head);
    for (int k = 0; k < 4 && len < (int) sizeof text; k++)
        len += snprintf (text + len, sizeof text - (size_t) len, "%s\n", lines[k]);
    if (len < (int) sizeof text)
        snprintf (text + len, sizeof text - (size_t) len,
                  "command: build/bench/player_open %s%s [RESULTS_FILE] --repeat %d --minutes %g\n",
                  record ? "--record " : "LOG", record ? record : "", repeat, minutes);
    fputs (text, stdout);
    if (in.results && bench_results_write (in.results, text))
        fprintf (stderr, "player_open: cannot write %s: %s\n", in.results, strerror (errno));
    unlink (plain);
    unlink (indexed);
    bench_input_remove (&in);
    return 0;
}
