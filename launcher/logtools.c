/*  logtools.c - `ssl-sim record` and `play` (docs/logs.md); `replay` is
    in replaytool.c; the threads that show a log are in logview.c. */
#include "logtools.h"

#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/config/config.h"
#include "logview.h"
#include "runfile.h"
#include "common/bus/sim_bus.h"
#include "common/base/sim_log.h"
#include "common/logs/sim_logfile.h"
#include "common/logs/sim_player.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"

/* The stop signal of record and play (the only state a handler touches). */
static volatile sig_atomic_t s_stop;

static void
s_on_signal (int sig)
{
    s_stop = sig;
}

static void
s_catch_signals (void)
{
    s_stop = 0;
    struct sigaction sa = { .sa_handler = s_on_signal };
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
}

const volatile sig_atomic_t *
launch_logtools_catch_stop (void)
{
    s_catch_signals ();
    return &s_stop;
}

static int64_t
s_mono_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The three destinations of a log's messages, as the simulator sends
   them (common/bus/sim_route: the port offset, --localhost): vision at
   vision_addr, the tracker on the same host at truth_port, the referee
   at referee_addr. */
typedef struct {
    sim_route_t route[3]; /* vision, tracker, referee */
} s_addrs_t;

static int
s_addrs (const sim_config_t *cfg, s_addrs_t *out)
{
    if (sim_route_vision (cfg, &out->route[0], &out->route[1])) {
        fprintf (stderr, "ssl-sim: vision address '%s' is not HOST:PORT\n", cfg->run.vision_addr);
        return -1;
    }
    if (sim_route_referee (cfg, &out->route[2])) {
        fprintf (stderr, "ssl-sim: referee address '%s' is not HOST:PORT\n", cfg->network.referee_addr);
        return -1;
    }
    return 0;
}

/* ---- --record FILE.gz: written plain, compressed at the end ------------- */

/* Open and lock the file `part` vision writes for this run (FILE.gz's
   plain part, or a plain FILE itself when part is path) with the lock
   every file a run writes takes (runfile.h), then empty it: never before
   the lock is ours (it may be another run's). Returns the fd, or -1
   (said on stderr). */
static int
s_part_lock (const char *part, const char *path)
{
    off_t size = 0;
    int fd = launch_run_file_lock (part, path, "--record", "records to", &size);
    if (fd < 0)
        return -1;
    if (size > 0 && strcmp (part, path) != 0)
        sim_warn ("--record: removed %s, the uncompressed records of an earlier run that ended before "
                  "they were compressed (a new run replaces %s and it)",
                  part, path);
    if (ftruncate (fd, 0) != 0) {
        fprintf (stderr, "ssl-sim: --record: cannot replace %s: %s\n", part, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

/* Whether `a` and `b` name one existing file. */
static bool
s_same_file (const char *a, const char *b)
{
    struct stat sa, sb;
    return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
launch_record_begin (sim_config_t *cfg, const char *keep, const char *keep_is, char *final, size_t size,
                     int *lock)
{
    *lock = -1;
    const char *path = cfg->run.record;
    if (!path[0])
        return 0;
    /* every name checked before anything is removed: a refused run
       leaves the user's files as they were */
    char part[sizeof cfg->run.record];
    int rc = sim_logfile_part_path (path, part, sizeof part);
    if (rc < 0 || (rc > 0 && (size_t) snprintf (final, size, "%s", path) >= size)) {
        fprintf (stderr, "ssl-sim: --record: the name %s is too long\n", path);
        return -1;
    }
    /* FILE.gz is removed now and its part emptied, a plain FILE emptied:
       neither may be the journal this run writes or reads */
    if (keep && keep[0] && (s_same_file (path, keep) || (rc > 0 && s_same_file (part, keep)))) {
        bool named = strcmp (path, keep) == 0;
        fprintf (stderr, "ssl-sim: --record: %s is %s%s%s%s: give the records a file of their own\n", path,
                 keep_is, named ? "" : " (", named ? "" : keep, named ? "" : ")");
        return -1;
    }
    /* the file vision writes is locked for the whole run, so a second run
       (another --port-offset, a replay) with the same FILE is refused
       instead of the two replacing each other's records */
    if ((*lock = s_part_lock (rc > 0 ? part : path, path)) < 0)
        return -1;
    if (rc > 0 && unlink (path) != 0 && errno != ENOENT) {
        fprintf (stderr, "ssl-sim: --record: cannot replace %s: %s\n", path, strerror (errno));
        if (*lock >= 0)
            close (*lock);
        *lock = -1;
        return -1;
    }
    if (rc > 0)
        snprintf (cfg->run.record, sizeof cfg->run.record, "%s", part);
    return rc;
}

int
launch_record_finish (const char *part, const char *final, int lock)
{
    struct stat st, held;
    if (stat (part, &st) != 0) {
        /* vision never started, or could not open it (it said why) */
        sim_warn ("--record: no records to compress into %s (%s is missing)", final, part);
        close (lock);
        return 0;
    }
    if (fstat (lock, &held) != 0 || held.st_dev != st.st_dev || held.st_ino != st.st_ino) {
        sim_warn (
            "--record: %s is not the file this run locked (another process replaced it): left as it is, "
            "not compressed into %s",
            part, final);
        close (lock);
        return -1;
    }
    if (st.st_size == 0) {
        /* the launcher made it; vision never wrote (it said why) */
        sim_warn ("--record: no records to compress into %s (vision wrote nothing)", final);
        unlink (part);
        close (lock);
        return 0;
    }
    sim_info ("compressing %.1f MiB of records into %s", (double) st.st_size / 1048576.0, final);
    char err[2 * SIM_STRING_MAX + SIM_LOGFILE_ERROR_MAX];
    uint64_t records = 0;
    int64_t t0 = s_mono_ns ();
    /* the signal that ended the run is spent; another one stops this */
    s_catch_signals ();
    int rc = sim_logfile_compress (part, final, &s_stop, &records, err, sizeof err);
    close (lock); /* only now: the part is gone or kept */
    if (rc < 0) {
        sim_error ("--record: %s", err);
        return -1;
    }
    if (rc > 0)
        sim_warn ("--record: %s; kept the %llu records before it", err, (unsigned long long) records);
    sim_info ("recorded %llu messages to %s (compressed in %.1f s)", (unsigned long long) records, final,
              (double) (s_mono_ns () - t0) / 1e9);
    return 0;
}

void
launch_record_hint (const char *path)
{
    char part[SIM_STRING_MAX + sizeof SIM_LOGFILE_PART];
    struct stat st;
    if (sim_logfile_part_path (path, part, sizeof part) > 0 && stat (part, &st) == 0)
        fprintf (stderr,
                 "ssl-sim: %s is there: the uncompressed records of a run that ended before it could "
                 "compress them into %s. It reads as it is (give its name instead), and `gzip -c %s > "
                 "%s` compresses it\n",
                 part, path, part, path);
}

/* ---- record ------------------------------------------------------------ */

/* Every datagram waiting on fd into the log, stamped on arrival. */
static void
s_record_drain (sim_logfile_writer_t *log, int fd, int32_t type, uint8_t *buf, uint64_t *count)
{
    ssize_t n;
    struct sockaddr_in from;
    while ((n = sim_udp_recv (fd, buf, SIM_UDP_MAX, &from)) >= 0) {
        sim_logfile_write (log, sim_logfile_now_ns (), type, buf, (size_t) n);
        (*count)++;
    }
}

int
launch_record (const char *path, const sim_config_t *cfg)
{
    s_addrs_t a;
    if (s_addrs (cfg, &a))
        return 2;
    const struct sockaddr_in *addrs[3] = { &a.route[0].addr, &a.route[1].addr, &a.route[2].addr };
    const int32_t types[3] = { SIM_LOGFILE_VISION, SIM_LOGFILE_TRACKER, SIM_LOGFILE_REFEREE };
    const char *names[3] = { "vision", "tracker", "referee" };
    struct pollfd fds[3];
    char b[64];
    for (int i = 0; i < 3; i++) {
        fds[i] = (struct pollfd) { sim_route_listen (&a.route[i]), POLLIN, 0 };
        if (fds[i].fd < 0) {
            fprintf (stderr, "ssl-sim: record: cannot listen to %s at %s: %s\n", names[i],
                     sim_udp_addr_str (addrs[i], b, sizeof b), strerror (errno));
            for (int j = 0; j < i; j++)
                close (fds[j].fd);
            return 1;
        }
    }
    char err[SIM_STRING_MAX + 128];
    sim_logfile_writer_t *log = sim_logfile_writer_new (path, true, err, sizeof err);
    if (!log) {
        fprintf (stderr, "ssl-sim: record: %s\n", err);
        for (int i = 0; i < 3; i++)
            close (fds[i].fd);
        return 1;
    }
    s_catch_signals ();
    printf ("recording %s (vision %s", path, sim_udp_addr_str (addrs[0], b, sizeof b));
    printf (", tracker %s", sim_udp_addr_str (addrs[1], b, sizeof b));
    printf (", referee %s%s); Ctrl-C stops\n", sim_udp_addr_str (addrs[2], b, sizeof b),
            cfg->run.localhost ? "; groups joined on the loopback interface only" : "");
    fflush (stdout);
    uint8_t *buf = malloc (SIM_UDP_MAX);
    uint64_t counts[3] = { 0, 0, 0 };
    int64_t start = s_mono_ns ();
    int64_t end = cfg->run.duration > 0 ? start + (int64_t) (cfg->run.duration * 1e9) : INT64_MAX;
    int64_t next_flush = start + 1000000000;
    while (buf && !s_stop && s_mono_ns () < end) {
        int64_t left_ms = (end - s_mono_ns ()) / 1000000;
        int rc = poll (fds, 3, left_ms < 200 ? (int) left_ms + 1 : 200);
        if (rc < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 3 && rc > 0; i++)
            if (fds[i].revents & POLLIN)
                s_record_drain (log, fds[i].fd, types[i], buf, &counts[i]);
        if (s_mono_ns () >= next_flush) {
            sim_logfile_flush (log);
            next_flush += 1000000000;
        }
    }
    /* what arrived before the stop is in the sockets' queues: keep it */
    for (int i = 0; i < 3 && buf; i++)
        s_record_drain (log, fds[i].fd, types[i], buf, &counts[i]);
    free (buf);
    for (int i = 0; i < 3; i++)
        close (fds[i].fd);
    sim_logfile_flush (log);
    uint64_t lost = sim_logfile_failures (log);
    int rc = sim_logfile_writer_destroy (&log);
    if (lost || rc) {
        fprintf (
            stderr,
            "ssl-sim: record: %s is incomplete: records could not be written (the error above says why)\n",
            path);
        return 1;
    }
    printf ("recorded %llu vision, %llu tracker and %llu referee messages to %s\n",
            (unsigned long long) counts[0], (unsigned long long) counts[1], (unsigned long long) counts[2],
            path);
    return 0;
}

/* ---- play -------------------------------------------------------------- */

/* "[#####.....]  42%  12.3 s" on one terminal line. */
static void
s_progress (const sim_player_t *p)
{
    double length = sim_player_duration (p);
    double part = length > 0 ? sim_player_time (p) / length : 1;
    if (part > 1)
        part = 1;
    char bar[41];
    int filled = (int) (part * 40);
    for (int i = 0; i < 40; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[40] = '\0';
    fprintf (stderr, "\r[%s] %3d%%  %.1f s ", bar, (int) (part * 100), sim_player_time (p));
}

/* The log at the terminal, no page (--no-viewer, or a viewer that could
   not start): the player's pace, slept to. 0, or 1 at damage. */
static int
s_play_here (sim_player_t *p, bool loop)
{
    bool tty = isatty (STDERR_FILENO);
    int64_t last_bar = 0;
    int rc = 0;
    sim_player_pause (p, false, s_mono_ns ());
    while (!s_stop) {
        if (sim_player_ended (p)) {
            uint64_t any = sim_player_sent (p, SIM_LOGFILE_VISION) + sim_player_sent (p, SIM_LOGFILE_TRACKER)
                         + sim_player_sent (p, SIM_LOGFILE_REFEREE);
            if (!loop || !any)
                break;
            sim_player_rewind (p, s_mono_ns ()); /* the start follows the end (a frame at least) */
            continue;
        }
        int64_t due = sim_player_due (p);
        struct timespec ts = { (time_t) (due / 1000000000), (long) (due % 1000000000) };
        while (!s_stop && clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        if (s_stop)
            break;
        if (sim_player_emit (p, s_mono_ns (), 64, NULL, NULL) < 0) {
            rc = 1;
            break;
        }
        int64_t now = s_mono_ns ();
        if (tty && now - last_bar > 100000000) {
            s_progress (p);
            last_bar = now;
        }
    }
    if (tty)
        fputc ('\n', stderr);
    return rc;
}

/* The log played by the viewer, with its page (docs/viewer.md "Playing a
   log"). 0, 1 at damage, -1 when the viewer could not start (said). */
static int
s_play_page (const char *path, const sim_config_t *cfg, bool loop)
{
    static sim_service_args_t args; /* outlives the actor thread */
    memset (&args, 0, sizeof args);
    args.cfg = *cfg;
    args.play = path;
    args.play_loop = loop;
    char prefix[40];
    snprintf (prefix, sizeof prefix, "ssl-sim-play-%d", (int) getpid ());
    if (sim_bus_resolve (&args.cfg, prefix))
        return -1;
    zsys_handler_set (NULL);
    s_catch_signals ();
    return launch_logview_play (&args, &s_stop);
}

int
launch_play (const char *path, const sim_config_t *cfg, bool loop)
{
    if (!(cfg->run.speed > 0)) {
        fprintf (stderr, "ssl-sim: play: --speed must be > 0\n");
        return 2;
    }
    char err[SIM_STRING_MAX + 256];
    sim_player_t *p = sim_player_new (path, err, sizeof err);
    if (!p) {
        fprintf (stderr, "ssl-sim: play: %s\n", err);
        launch_record_hint (path);
        return 1;
    }
    int rc = 0;
    if (cfg->viewer.enabled) {
        /* the viewer opens the log itself; this reading checked it */
        sim_player_destroy (&p);
        rc = s_play_page (path, cfg, loop);
        if (rc >= 0)
            return rc;
        sim_warn ("play: no page (the viewer did not start): playing without it");
        if (!(p = sim_player_new (path, err, sizeof err))) {
            fprintf (stderr, "ssl-sim: play: %s\n", err);
            return 1;
        }
    }
    /* said by the player that plays it: with a page, the viewer's */
    sim_player_say (p);
    sim_player_set_speed (p, cfg->run.speed, s_mono_ns ());
    if (sim_player_wire (p, cfg, err, sizeof err)) {
        fprintf (stderr, "ssl-sim: play: %s\n", err);
        sim_player_destroy (&p);
        return 2;
    }
    s_catch_signals ();
    rc = s_play_here (p, loop);
    if (rc || (sim_player_ended (p) && sim_player_damage (p))) {
        fprintf (stderr, "ssl-sim: play: %s; played what came before it\n",
                 sim_player_damage (p) ? sim_player_damage (p) : "the log could not be read again");
        launch_record_hint (path);
        rc = 1;
    }
    sim_player_report (p, s_stop != 0);
    sim_player_destroy (&p);
    return rc;
}
