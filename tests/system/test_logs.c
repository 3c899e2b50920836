/*  test_logs.c - league log files and journals end to end (docs/logs.md):
    - a realtime and a lock-step `ssl-sim run --record A --journal J`
      driven by a client (teleports, robot commands, sync steps), then
      `ssl-sim replay J --record B`: every vision packet of A comes again,
      byte for byte and in order, at the start of B;
    - `ssl-sim play` of a small log over real UDP: a listener gets every
      message at its address, no earlier than the recorded pace allows;
      `ssl-sim record` of what play sent holds the same bytes;
    - a log whose league index does not match its records is said in a
      warning and played whole, read record by record;
    - a truncated log plays up to the damage and exits non-zero with a
      clear message;
    - a log with one record's time zeroed or far ahead plays at its pace
      with the jump as one frame, says where it is once, and ends (with
      and without the page); `--loop` of a one-record log goes round at
      most once a frame (with and without the page);
    - `--record FILE.gz` in fast mode (written plain beside it, compressed
      when the run ends): a valid gzip log with the same records as a
      plain run, both with the defaults (no journal, the default seed) and
      both from frame 0, its part gone; a launcher killed mid-run
      leaves the plain part, readable, and `play` says what it is; a
      vision killed mid-run and restarted appends to the part, so the log
      reads to its end; the gzip log holds no index record;
    - the league's index (issue 27): a plain `ssl-sim run --mode fast
      --record LOG --duration 2` ends LOG with an index sim_logindex
      accepts, listing the offset of every record; so does a run whose
      vision was killed (-9) mid-recording and restarted, then stopped
      cleanly: the index covers the killed vision's records too; play
      warns once about an index that does not hold; a --record name too long for its part is refused
      with the old file kept; a second run given the same FILE (.gz or not) is
      refused and the first records and compresses as if alone;
    - a full disk (issue 23): `ssl-sim run --record` on a full file system
      and `ssl-sim record /dev/full` exit 1 naming the file and the
      reason; `ssl-sim record` given a .gz a crash tore moves it aside and
      starts a new one instead of appending behind the tear.
*/
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "common/logs/sim_logfile.h"
#include "common/logs/sim_logindex.h"
#include "common/logs/sim_player.h"
#include "tests/support/sim_msg.h"
#include "engine/world/phys_replay.h"
#include "tests/support/sim_logtest.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define S_WAIT_MS 10000

typedef struct {
    char dir[64];
    char a[128], b[128], journal[128], out[128];
} s_files_t;

static void
s_files (s_files_t *f)
{
    snprintf (f->dir, sizeof f->dir, "/tmp/ssl-sim-logs-XXXXXX");
    cr_assert_not_null (mkdtemp (f->dir));
    snprintf (f->a, sizeof f->a, "%s/a.log", f->dir);
    snprintf (f->b, sizeof f->b, "%s/b.log.gz", f->dir);
    snprintf (f->journal, sizeof f->journal, "%s/run.journal", f->dir);
    snprintf (f->out, sizeof f->out, "%s/out.txt", f->dir);
}

static void
s_files_done (s_files_t *f)
{
    unlink (f->a);
    unlink (f->b);
    unlink (f->journal);
    unlink (f->out);
    /* play's configuration (s_play_ini) and the runtime directory a
       program run in f->dir made (its lock stays when it was stopped by
       a signal): left behind, they kept f->dir in /tmp after every run */
    char path[160];
    snprintf (path, sizeof path, "%s/play.ini", f->dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/ssl-sim/run.lock", f->dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/ssl-sim", f->dir);
    rmdir (path);
    rmdir (f->dir);
}

/* Start ssl-sim with argv (after the program name), its stdout and
   stderr to `out`. Returns the pid. */
static pid_t
s_spawn (const char *const *args, const char *out)
{
    pid_t pid = fork ();
    cr_assert_geq (pid, 0);
    if (pid == 0) {
        int fd = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2 (fd, STDOUT_FILENO);
            dup2 (fd, STDERR_FILENO);
        }
        const char *argv[32] = { NULL };
        int n = 1;
        for (int i = 0; args[i] && n < 31; i++)
            argv[n++] = args[i];
        argv[0] = sim_lab_exe ();
        execv (argv[0], (char **) argv);
        _exit (127);
    }
    return pid;
}

static int
s_wait_exit (pid_t pid)
{
    int status = 0;
    cr_assert_eq (waitpid (pid, &status, 0), pid);
    return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
s_dump (const char *path)
{
    FILE *f = fopen (path, "r");
    char line[512];
    while (f && fgets (line, sizeof line, f))
        fputs (line, stderr);
    if (f)
        fclose (f);
}

/* How often `needle` is in the first 16 KiB of the file at path. */
static int
s_file_count (const char *path, const char *needle)
{
    FILE *f = fopen (path, "r");
    char text[16384];
    size_t n = f ? fread (text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose (f);
    text[n] = '\0';
    int count = 0;
    for (const char *at = text; (at = strstr (at, needle)); at += strlen (needle))
        count++;
    return count;
}

static bool
s_file_has (const char *path, const char *needle)
{
    return s_file_count (path, needle) > 0;
}

/* Every vision message of a log, in order. */
typedef struct {
    uint8_t *bytes;
    size_t used, cap;
    size_t *off, *len;
    size_t count, slots;
    int64_t first_ns, last_ns;
} s_msgs_t;

static void
s_msgs_read (s_msgs_t *m, const char *path, int32_t type)
{
    memset (m, 0, sizeof *m);
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t msg;
    int rc;
    while ((rc = sim_logfile_next (r, &msg)) == 1) {
        if (msg.type != type)
            continue;
        if (m->used + msg.len > m->cap) {
            m->cap = (m->cap + msg.len) * 2;
            m->bytes = realloc (m->bytes, m->cap);
        }
        if (m->count == m->slots) {
            m->slots = m->slots ? m->slots * 2 : 256;
            m->off = realloc (m->off, m->slots * sizeof *m->off);
            m->len = realloc (m->len, m->slots * sizeof *m->len);
        }
        cr_assert (m->bytes && m->off && m->len);
        memcpy (m->bytes + m->used, msg.data, msg.len);
        m->off[m->count] = m->used;
        m->len[m->count++] = msg.len;
        m->used += msg.len;
        if (m->count == 1)
            m->first_ns = msg.time_ns;
        m->last_ns = msg.time_ns;
    }
    cr_assert_eq (rc, 0, "%s: %s", path, sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
}

static void
s_msgs_free (s_msgs_t *m)
{
    free (m->bytes);
    free (m->off);
    free (m->len);
}

static bool
s_msg_eq (const s_msgs_t *a, size_t i, const s_msgs_t *b, size_t j)
{
    return a->len[i] == b->len[j] && memcmp (a->bytes + a->off[i], b->bytes + b->off[j], a->len[i]) == 0;
}

/* The plain log at `path` ends with the league's index, which
   sim_logindex (what `ssl-sim play` trusts) accepts and which lists the
   offset of every record a record-by-record scan finds before it, and no
   other index record is in the file. Returns the records listed. */
static size_t
s_expect_indexed (const char *path)
{
    char err[SIM_LOGFILE_ERROR_MAX] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    uint64_t *offsets = NULL;
    size_t n = 0, cap = 0, indexes = 0;
    sim_logfile_msg_t m;
    int rc;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        if (m.type == SIM_LOGFILE_INDEX) {
            indexes++;
            continue;
        }
        cr_expect_eq (indexes, 0, "a record after an index (byte %llu)", (unsigned long long) m.offset);
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            offsets = realloc (offsets, cap * sizeof *offsets);
            cr_assert_not_null (offsets);
        }
        offsets[n++] = m.offset;
    }
    cr_assert_eq (rc, 0, "%s: %s", path, sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
    cr_expect_eq (indexes, 1, "%s holds %zu index records", path, indexes);
    sim_logindex_t *idx = NULL;
    cr_assert_eq (sim_logindex_open (path, &idx, err, sizeof err), 1, "%s: %s", path, err);
    cr_expect_eq (sim_logindex_count (idx), n, "the index lists %zu records, the file holds %zu",
                  sim_logindex_count (idx), n);
    size_t i = 0;
    while ((rc = sim_logindex_next (idx, &m, NULL)) == 1 && i < n) {
        cr_expect_eq (m.offset, offsets[i], "index entry %zu", i);
        i++;
    }
    cr_expect_eq (rc, 0, "%s", sim_logindex_error (idx));
    sim_logindex_destroy (&idx);
    free (offsets);
    return n;
}

/* No index record in the log at `path` (a gzip log has none). */
static void
s_expect_no_index (const char *path)
{
    s_msgs_t m;
    s_msgs_read (&m, path, SIM_LOGFILE_INDEX);
    cr_expect_eq (m.count, 0, "%s holds an index record", path);
    s_msgs_free (&m);
}

/* The replay's vision (B) starts with every packet of the run's (A). */
static void
s_expect_same_vision (const char *a_path, const char *b_path, size_t at_least)
{
    s_msgs_t a, b;
    s_msgs_read (&a, a_path, SIM_LOGFILE_VISION);
    s_msgs_read (&b, b_path, SIM_LOGFILE_VISION);
    cr_assert_geq (a.count, at_least, "the run recorded %zu vision packets", a.count);
    cr_assert_geq (b.count, a.count, "the replay made %zu packets, the run %zu", b.count, a.count);
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < a.count; i++)
        if (!s_msg_eq (&a, i, &b, i) && differ++ == 0)
            first = i;
    cr_expect_eq (differ, 0, "%zu of %zu packets differ, the first at %zu", differ, a.count, first);
    s_msgs_free (&a);
    s_msgs_free (&b);
}

static void
s_replay (const s_files_t *f, const char *mode)
{
    char vision[64];
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    const char *args[] = { "replay",      f->journal,      "--mode", mode,          "--record", f->b,
                           "--localhost", "--vision-addr", vision,   "--log-level", "warn",     NULL };
    int code = s_wait_exit (s_spawn (args, f->out));
    if (code != 0)
        s_dump (f->out);
    cr_assert_eq (code, 0, "ssl-sim replay failed");
}

/* The journal names every input's sender (the control port, and with
   want_blue the blue port, from 127.0.0.1) and its kind and carrier. */
static void
s_expect_sources (const char *journal, bool want_blue)
{
    char err[256];
    phys_replay_t *script = phys_replay_load (journal, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    size_t control = 0, blue = 0;
    for (size_t i = 0; i < phys_replay_count (script); i++) {
        const char *note;
        const Simbus__Request *req = phys_replay_input (script, i, NULL, &note);
        cr_assert_not_null (req->source, "input %zu has no sender", i);
        cr_expect_neq (note[0], '\0', "input %zu has no kind and carrier", i);
        control += strncmp (req->source, "control port, 127.0.0.1:", 24) == 0;
        blue += strncmp (req->source, "blue port, 127.0.0.1:", 21) == 0;
    }
    cr_expect_gt (control, 0);
    if (want_blue)
        cr_expect_gt (blue, 0);
    phys_replay_destroy (&script);
}

/* The referee multicast the recorder listens to, kept on loopback. */
static void
s_referee_ini (char *ini, size_t size)
{
    snprintf (ini, size, "[network]\nreferee_addr = 127.0.0.1:%d\n", sim_test_free_port ());
}

Test (logs, realtime_run_replays_to_the_same_vision_bytes, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--mode", "realtime", "--record", files.a, "--journal", files.journal, NULL };
    char ini[128];
    s_referee_ini (ini, sizeof ini);
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, ini, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0);
    /* inputs at substeps the wall clock picks: teleports on the control
       port and robot commands on the blue port */
    for (int i = 0; i < 5; i++) {
        cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, -1.0 + 0.5 * i, 0.3 * i, S_WAIT_MS),
                      1);
        sim_msg_robot_cmd_t cmd;
        sim_msg_robot_cmd (&cmd, 1);
        sim_msg_local (&cmd, 0.5, 0.2 * i, 1.0);
        uint8_t buf[4096];
        cr_assert_geq (sim_test_request (f.fd, f.proc.blue_port, &cmd.rc.base, buf, sizeof buf, S_WAIT_MS),
                       0);
        /* let some camera frames go by between inputs */
        for (int k = 0; k < 20; k++)
            cr_assert_gt (sim_test_recv (f.vision, buf, sizeof buf, S_WAIT_MS), 0);
    }
    cr_assert_eq (sim_fixture_stop (&f), 0);
    s_expect_sources (files.journal, true);
    s_replay (&files, "fast");
    s_expect_same_vision (files.a, files.b, 50);
    s_files_done (&files);
}

Test (logs, sync_run_replays_to_the_same_vision_bytes, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--mode", "sync", "--record", files.a, "--journal", files.journal, NULL };
    char ini[128];
    s_referee_ini (ini, sizeof ini);
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, ini, SIM_FIXTURE_GATEWAY), 0);
    for (int step = 0; step < 400; step++) {
        SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
        req.has_sim_step = true;
        req.sim_step = 0.005f;
        sim_msg_robot_tp_t tp;
        if (step % 100 == 50) {
            req.simulator_command = sim_msg_robot_tp (&tp, 0, 0);
            sim_msg_robot_xy (&tp.tr, 0.01 * step, -0.5);
        }
        SimulationSyncResponse *resp = sim_test_sync (f.fd, f.proc.control_port, &req, NULL, NULL, S_WAIT_MS);
        cr_assert_not_null (resp, "step %d got no answer", step);
        simulation_sync_response__free_unpacked (resp, NULL);
    }
    cr_assert_eq (sim_fixture_stop (&f), 0);
    s_expect_sources (files.journal, false);
    s_replay (&files, "realtime");
    s_expect_same_vision (files.a, files.b, 50);
    s_files_done (&files);
}

/* ---- play and record over UDP ------------------------------------------- */

#define S_PLAY_COUNT 20
#define S_PLAY_GAP   50000000LL /* ns between the log's vision messages */

/* A log of S_PLAY_COUNT vision messages S_PLAY_GAP apart, one tracker and
   one referee message among them. */
static void
s_write_small_log_as (const char *path, bool index)
{
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    int64_t t0 = 1700000000000000000LL;
    for (int i = 0; i < S_PLAY_COUNT; i++) {
        uint8_t msg[64];
        memset (msg, 0x40 + i, sizeof msg);
        cr_assert_eq (sim_logfile_write (w, t0 + i * S_PLAY_GAP, SIM_LOGFILE_VISION, msg, 16 + (size_t) i),
                      0);
        if (i == 5)
            cr_assert_eq (sim_logfile_write (w, t0 + i * S_PLAY_GAP, SIM_LOGFILE_TRACKER, "tracker", 7), 0);
        if (i == 9)
            cr_assert_eq (sim_logfile_write (w, t0 + i * S_PLAY_GAP, SIM_LOGFILE_REFEREE, "referee", 7), 0);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

static void
s_write_small_log (const char *path)
{
    s_write_small_log_as (path, false);
}

static void
s_play_ini (const s_files_t *files, char *ini_path, size_t size, int truth_port, int referee_port)
{
    snprintf (ini_path, size, "%s/play.ini", files->dir);
    FILE *f = fopen (ini_path, "w");
    cr_assert_not_null (f);
    fprintf (f, "[network]\ntruth_port = %d\nreferee_addr = 127.0.0.1:%d\n", truth_port, referee_port);
    fclose (f);
}

Test (logs, play_sends_at_the_recorded_pace, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.a);
    int vision_port = sim_test_free_port (), truth_port = sim_test_free_port (),
        referee_port = sim_test_free_port ();
    int vision = sim_test_udp (vision_port), truth = sim_test_udp (truth_port),
        referee = sim_test_udp (referee_port);
    cr_assert (vision >= 0 && truth >= 0 && referee >= 0);
    char ini[160], addr[64];
    s_play_ini (&files, ini, sizeof ini, truth_port, referee_port);
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    const char *args[] = { "play", files.a, "--config", ini, "--vision-addr", addr, NULL };
    int64_t spawned_ms = sim_test_now_ms ();
    pid_t pid = s_spawn (args, files.out);
    uint8_t buf[256];
    int64_t first_ms = 0, last_ms = 0;
    for (int i = 0; i < S_PLAY_COUNT; i++) {
        ssize_t n = sim_test_recv (vision, buf, sizeof buf, S_WAIT_MS);
        cr_assert_eq (n, 16 + i, "vision message %d", i);
        cr_expect_eq (buf[0], 0x40 + i);
        last_ms = sim_test_now_ms ();
        if (i == 0)
            first_ms = last_ms;
    }
    /* play never sends a message before its time (19 gaps of 50 ms after
       the first, which cannot go out before play started); and it keeps
       the pace: the last one is not late by more than a loaded machine's
       scheduling delays */
    int64_t span_ms = (S_PLAY_COUNT - 1) * S_PLAY_GAP / 1000000;
    cr_expect_geq (last_ms - spawned_ms, span_ms, "the log of %lld ms was played in %lld ms",
                   (long long) span_ms, (long long) (last_ms - spawned_ms));
    cr_expect_leq (last_ms - first_ms, span_ms + 1500, "played %lld ms of a %lld ms log",
                   (long long) (last_ms - first_ms), (long long) span_ms);
    cr_expect_eq (sim_test_recv (truth, buf, sizeof buf, S_WAIT_MS), 7);
    cr_expect_eq (memcmp (buf, "tracker", 7), 0);
    cr_expect_eq (sim_test_recv (referee, buf, sizeof buf, S_WAIT_MS), 7);
    cr_expect_eq (memcmp (buf, "referee", 7), 0);
    int code = s_wait_exit (pid);
    if (code)
        s_dump (files.out);
    cr_expect_eq (code, 0);
    cr_expect (s_file_has (files.out, "played 20 vision, 1 tracker and 1 referee messages"));
    close (vision);
    close (truth);
    close (referee);
    s_files_done (&files);
}

/* A TCP listener on 127.0.0.1:port, holding the port as another program
   would; the fd, or -1. */
static int
s_take_tcp_port (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in at = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    at.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (fd >= 0 && (bind (fd, (const struct sockaddr *) &at, sizeof at) != 0 || listen (fd, 1) != 0)) {
        close (fd);
        fd = -1;
    }
    return fd;
}

/* The viewer's port taken: play says so and plays the log at the
   terminal, and the one summary is that player's, not a "played 0 ...
   (stopped)" of the page's player that never started (docs/logs.md). */
Test (logs, play_with_the_viewers_port_taken_sums_up_once, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.a);
    int vision_port = sim_test_free_port (), truth_port = sim_test_free_port (),
        referee_port = sim_test_free_port (), viewer_port = sim_test_free_port ();
    int vision = sim_test_udp (vision_port), truth = sim_test_udp (truth_port),
        referee = sim_test_udp (referee_port), taken = s_take_tcp_port (viewer_port);
    cr_assert (vision >= 0 && truth >= 0 && referee >= 0 && taken >= 0);
    char ini[160], addr[64], viewer[64];
    s_play_ini (&files, ini, sizeof ini, truth_port, referee_port);
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    snprintf (viewer, sizeof viewer, "127.0.0.1:%d", viewer_port);
    const char *args[] = { "play", files.a,         "--config", ini, "--vision-addr",
                           addr,   "--viewer-addr", viewer,     NULL };
    int code = s_wait_exit (s_spawn (args, files.out));
    if (code)
        s_dump (files.out);
    cr_expect_eq (code, 0);
    cr_expect (s_file_has (files.out, "no page"), "play did not say the page could not start");
    cr_expect_eq (s_file_count (files.out, "played "), 1, "not one summary");
    cr_expect (s_file_has (files.out, "played 20 vision, 1 tracker and 1 referee messages\n"));
    if (s_file_count (files.out, "played ") != 1)
        s_dump (files.out);
    close (taken);
    close (vision);
    close (truth);
    close (referee);
    s_files_done (&files);
}

Test (logs, record_keeps_what_play_sent, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.a);
    int vision_port = sim_test_free_port (), truth_port = sim_test_free_port (),
        referee_port = sim_test_free_port ();
    char ini[160], addr[64], rec_out[160];
    s_play_ini (&files, ini, sizeof ini, truth_port, referee_port);
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    snprintf (rec_out, sizeof rec_out, "%s/record.txt", files.dir);
    const char *rec_args[] = { "record", files.b, "--config", ini, "--vision-addr", addr, NULL };
    int pipefd[2];
    cr_assert_eq (pipe (pipefd), 0);
    pid_t rec = fork ();
    cr_assert_geq (rec, 0);
    if (rec == 0) {
        dup2 (pipefd[1], STDOUT_FILENO);
        close (pipefd[0]);
        const char *argv[16] = { NULL };
        for (int i = 0; rec_args[i]; i++)
            argv[i + 1] = rec_args[i];
        argv[0] = sim_lab_exe ();
        execv (argv[0], (char **) argv);
        _exit (127);
    }
    close (pipefd[1]);
    /* its sockets are open once it says so */
    FILE *said = fdopen (pipefd[0], "r");
    char line[512] = "";
    cr_assert_not_null (fgets (line, sizeof line, said), "ssl-sim record said nothing");
    cr_assert (strncmp (line, "recording ", 10) == 0, "%s", line);
    const char *args[] = { "play", files.a, "--config", ini, "--vision-addr", addr, "--speed", "4", NULL };
    cr_assert_eq (s_wait_exit (s_spawn (args, files.out)), 0);
    /* the recorder has read what arrived once its counts say so; it stops
       on SIGINT like the league's */
    kill (rec, SIGINT);
    while (fgets (line, sizeof line, said))
        ;
    fclose (said);
    cr_assert_eq (s_wait_exit (rec), 0);
    s_msgs_t a, b;
    s_msgs_read (&a, files.a, SIM_LOGFILE_VISION);
    s_msgs_read (&b, files.b, SIM_LOGFILE_VISION);
    cr_assert_eq (b.count, a.count, "recorded %zu of %zu vision messages", b.count, a.count);
    for (size_t i = 0; i < a.count; i++)
        cr_expect (s_msg_eq (&a, i, &b, i), "message %zu", i);
    s_msgs_free (&a);
    s_msgs_free (&b);
    s_msgs_read (&b, files.b, SIM_LOGFILE_TRACKER);
    cr_expect_eq (b.count, 1);
    s_msgs_free (&b);
    s_msgs_read (&b, files.b, SIM_LOGFILE_REFEREE);
    cr_expect_eq (b.count, 1);
    s_msgs_free (&b);
    unlink (rec_out);
    unlink (ini);
    s_files_done (&files);
}

/* `ssl-sim play files->a` at 10x to a vision port of its own: its exit
   status, and in *got the vision datagrams that came. */
static int
s_play_fast (const s_files_t *files, int *got)
{
    int vision_port = sim_test_free_port ();
    int vision = sim_test_udp (vision_port);
    char addr[64], ini[160];
    s_play_ini (files, ini, sizeof ini, sim_test_free_port (), sim_test_free_port ());
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    const char *args[] = { "play", files->a, "--config", ini, "--vision-addr", addr, "--speed", "10", NULL };
    int code = s_wait_exit (s_spawn (args, files->out));
    uint8_t buf[256];
    *got = 0;
    while (sim_test_recv (vision, buf, sizeof buf, 0) > 0)
        (*got)++;
    close (vision);
    unlink (ini);
    return code;
}

Test (logs, a_log_whose_index_does_not_hold_is_said_and_played_whole, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    /* the league's index at the end, as `ssl-sim record` writes it, with
       its third offset one byte off */
    s_write_small_log_as (files.a, true);
    cr_assert_eq (sim_logtest_nudge_offset (files.a, 2), 0);
    int got = 0;
    int code = s_play_fast (&files, &got);
    cr_expect_eq (code, 0, "the log itself is whole");
    cr_expect (s_file_has (files.out, "offset 2"), "the warning names the offset");
    cr_expect_eq (s_file_count (files.out, "reading the whole log instead"), 1,
                  "the index's trouble is said once (the check and the page's player each open the log)");
    cr_expect (s_file_has (files.out, "played 20 vision, 1 tracker and 1 referee messages"));
    cr_expect_eq (got, S_PLAY_COUNT);
    s_files_done (&files);
}

Test (logs, truncated_log_plays_up_to_the_damage, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.a);
    /* cut the last vision message in half */
    FILE *f = fopen (files.a, "rb");
    uint8_t whole[4096];
    size_t len = fread (whole, 1, sizeof whole, f);
    fclose (f);
    f = fopen (files.a, "wb");
    fwrite (whole, 1, len - 10, f);
    fclose (f);
    int got = 0;
    int code = s_play_fast (&files, &got);
    cr_expect_neq (code, 0, "a damaged log ends with a failure");
    cr_expect (s_file_has (files.out, "truncated record"), "no clear message");
    cr_expect (s_file_has (files.out, "played 19 vision"), "the messages before the damage were played");
    cr_expect_eq (got, 19);
    s_files_done (&files);
}

/* ---- a jump of the log's clock; --loop of a log of no length ---------- */

/* Set the time (bytes 0-7, big-endian) of record `index` (from 0) of the
   plain log at path to t_ns, as a damaged file would hold it. */
static void
s_set_record_time (const char *path, int index, int64_t t_ns)
{
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    for (int i = 0; i <= index; i++)
        cr_assert_eq (sim_logfile_next (r, &m), 1);
    uint64_t offset = m.offset;
    sim_logfile_reader_destroy (&r);
    uint8_t be[8];
    for (int i = 0; i < 8; i++)
        be[i] = (uint8_t) ((uint64_t) t_ns >> (56 - 8 * i));
    int fd = open (path, O_WRONLY);
    cr_assert_geq (fd, 0);
    cr_assert_eq (pwrite (fd, be, sizeof be, (off_t) offset), 8);
    close (fd);
}

/* `ssl-sim play` of files->a with `extra` arguments after its addresses,
   in a runtime directory of its own (files->dir), output to files->out. */
static pid_t
s_play_spawn (const s_files_t *files, const char *ini, const char *vision_addr, const char *const *extra)
{
    const char *args[16] = { "play", files->a, "--config", ini, "--vision-addr", vision_addr };
    int n = 6;
    for (int i = 0; extra[i] && n < 15; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    pid_t pid = sim_lab_spawn (args, files->dir, files->out, NULL);
    cr_assert_gt (pid, 0);
    return pid;
}

/* The page on a port of its own (the log's pace is the viewer's player's),
   or none (play's own loop at the terminal). */
static void
s_page_args (bool page, char *viewer, size_t size, const char **extra)
{
    snprintf (viewer, size, "127.0.0.1:%d", sim_test_free_port ());
    extra[0] = page ? "--viewer-addr" : "--no-viewer";
    extra[1] = page ? viewer : NULL;
    extra[2] = NULL;
}

/* The small log with record `bad` (from 0) at log time bad_ns, played at
   1x: every message comes, at the pace of the timeline with the jump
   played as one frame (SIM_PLAYER_FRAME_NS), never held up by it; play
   says where the jump is, once, and ends with its log. */
static void
s_play_jump (int bad, int64_t bad_ns, bool page, const char *says)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.a);
    s_set_record_time (files.a, bad, bad_ns);
    int vision_port = sim_test_free_port (), truth_port = sim_test_free_port (),
        referee_port = sim_test_free_port ();
    int vision = sim_test_udp (vision_port), truth = sim_test_udp (truth_port),
        referee = sim_test_udp (referee_port);
    cr_assert (vision >= 0 && truth >= 0 && referee >= 0);
    char ini[160], addr[64], viewer[64];
    const char *extra[3];
    s_play_ini (&files, ini, sizeof ini, truth_port, referee_port);
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    s_page_args (page, viewer, sizeof viewer, extra);
    int64_t spawned_ms = sim_test_now_ms ();
    pid_t pid = s_play_spawn (&files, ini, addr, extra);
    uint8_t buf[256];
    int64_t first_ms = 0, last_ms = 0;
    int got = 0;
    for (; got < S_PLAY_COUNT; got++) {
        /* the old player waited out the decades: the record after the jump never came */
        if (sim_test_recv (vision, buf, sizeof buf, S_WAIT_MS) != 16 + got)
            break;
        last_ms = sim_test_now_ms ();
        if (got == 0)
            first_ms = last_ms;
    }
    cr_expect_eq (got, S_PLAY_COUNT, "vision message %d did not come within %d ms", got, S_WAIT_MS);
    bool ended = sim_lab_wait_exit (pid, S_WAIT_MS) == 0;
    int code = ended ? s_wait_exit (pid) : sim_lab_stop (pid);
    cr_expect (ended, "play did not end with its log");
    if (code || got < S_PLAY_COUNT)
        s_dump (files.out);
    cr_expect_eq (code, 0);
    /* the timeline: 17 steps of 50 ms, the jump one frame, the step back
       none; never sooner, and not later than a loaded machine's delays */
    int64_t span_ms = (17 * S_PLAY_GAP + SIM_PLAYER_FRAME_NS) / 1000000;
    if (got == S_PLAY_COUNT) {
        cr_expect_geq (last_ms - spawned_ms, span_ms, "a %lld ms timeline played in %lld ms",
                       (long long) span_ms, (long long) (last_ms - spawned_ms));
        cr_expect_leq (last_ms - first_ms, span_ms + 1500, "played %lld ms of a %lld ms timeline",
                       (long long) (last_ms - first_ms), (long long) span_ms);
    }
    cr_expect_eq (s_file_count (files.out, "the log's clock jumps"), 1, "the jump is said once");
    cr_expect (s_file_has (files.out, says), "not said: %s", says);
    cr_expect (s_file_has (files.out, "played 20 vision, 1 tracker and 1 referee messages\n"));
    if (got == S_PLAY_COUNT) { /* else they are not coming either */
        cr_expect_eq (sim_test_recv (truth, buf, sizeof buf, S_WAIT_MS), 7);
        cr_expect_eq (sim_test_recv (referee, buf, sizeof buf, S_WAIT_MS), 7);
    }
    close (vision);
    close (truth);
    close (referee);
    unlink (ini);
    s_files_done (&files);
}

/* The user's repro: the third record's time zeroed. Back to 1970 (no
   time), then 54 years (19676 days) forward to the fourth record (byte
   16 + 32 + 33 + 34): one frame. */
Test (logs, play_does_not_wait_out_a_time_of_0_in_the_log, .timeout = 60)
{
    s_play_jump (2, 0, false, "jumps 19676 days forward at record 4 (byte 115)");
}

/* The third record a year ahead, with the page: forward a year (one
   frame), then back (no time); the viewer's player keeps the same pace. */
Test (logs, play_with_its_page_does_not_wait_out_a_time_far_ahead, .timeout = 60)
{
    s_play_jump (2, 1700000000000000000LL + 365LL * 86400 * 1000000000, true,
                 "jumps 365 days forward at record 3 (byte 81)");
}

/* A log of one record, --loop: it goes round once a frame at most, by
   play's own count, over the whole time it ran; a SIGTERM ends it. */
static void
s_play_loop_of_one_record (bool page)
{
    s_files_t files;
    s_files (&files);
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (files.a, false, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    cr_assert_eq (sim_logfile_write (w, 1700000000000000000LL, SIM_LOGFILE_VISION, "one", 3), 0);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    int vision_port = sim_test_free_port ();
    int vision = sim_test_udp (vision_port);
    cr_assert_geq (vision, 0);
    char ini[160], addr[64], viewer[64];
    const char *extra[4];
    s_play_ini (&files, ini, sizeof ini, sim_test_free_port (), sim_test_free_port ());
    snprintf (addr, sizeof addr, "127.0.0.1:%d", vision_port);
    s_page_args (page, viewer, sizeof viewer, extra + 1);
    extra[0] = "--loop";
    int64_t spawned_ms = sim_test_now_ms ();
    pid_t pid = s_play_spawn (&files, ini, addr, extra);
    /* some 60 passes on the wire (0.8 s at one a frame) */
    uint8_t buf[64];
    int got = 0;
    while (got < 60 && sim_test_recv (vision, buf, sizeof buf, S_WAIT_MS) == 3)
        got++;
    cr_expect_eq (got, 60, "the log went round %d times", got);
    int code = sim_lab_stop (pid);
    int64_t ran_ms = sim_test_now_ms () - spawned_ms;
    cr_expect_eq (code, 0);
    FILE *f = fopen (files.out, "r");
    char line[512];
    unsigned long long played = 0;
    while (f && fgets (line, sizeof line, f))
        if (sscanf (line, "played %llu vision", &played) == 1)
            break;
    if (f)
        fclose (f);
    /* a pass begins at least a frame after the one before: in ran_ms, at
       most one more pass than the frames that fit */
    unsigned long long most = (unsigned long long) (ran_ms * 1000000 / SIM_PLAYER_FRAME_NS) + 1;
    cr_expect (played >= 60 && played <= most, "played %llu passes in %lld ms (at most %llu)", played,
               (long long) ran_ms, most);
    cr_expect (s_file_has (files.out, "(stopped)"));
    if (code || played < 60 || played > most)
        s_dump (files.out);
    close (vision);
    unlink (ini);
    s_files_done (&files);
}

Test (logs, play_loop_of_a_log_of_no_length_goes_round_once_a_frame, .timeout = 60)
{
    s_play_loop_of_one_record (false);
}

Test (logs, play_loop_with_its_page_of_a_log_of_no_length_goes_round_once_a_frame, .timeout = 60)
{
    s_play_loop_of_one_record (true);
}

/* ---- --record FILE.gz: plain part, compressed at the end --------------- */

/* `ssl-sim run --mode fast --duration 2 --record path` to its end, with
   a journal: a journaled run starts its clock once vision has joined, so
   vision sees every substep from the first and two runs of one seed
   release the same packets (without it, a loaded machine's slow vision
   start would begin the log a few frames later). Returns the exit code;
   *compressed: whether the launcher said it compressed the log. */
/* A fast run as a user starts it: the default seed, no journal. (With
   --journal, this test once hid that only a journaled clock waited for
   vision: a plain fast run had run tens of simulated seconds before its
   first frame, a different number each time.) */
static int
s_fast_run (const char *path, bool *compressed)
{
    const char *args[] = { "--mode", "fast", "--duration", "2", "--record", path, NULL };
    sim_proc_t p;
    cr_assert_eq (sim_proc_start (&p, args, NULL), 0);
    /* compressing takes a moment after the run: the launcher ends itself */
    int code = sim_lab_wait_end (p.pid, 90000);
    p.pid = 0;
    cr_assert_neq (code, -1, "the run did not end");
    *compressed = s_file_has (p.log, "(compressed in");
    if (code != 0)
        sim_proc_dump_log (&p);
    sim_proc_cleanup (&p);
    return code;
}

/* The frame number of message i of m, a vision wrapper with a detection. */
static uint32_t
s_frame_number (const s_msgs_t *m, size_t i)
{
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, m->len[i], m->bytes + m->off[i]);
    cr_assert_not_null (w, "message %zu is not a vision packet", i);
    cr_assert_not_null (w->detection, "message %zu has no detection", i);
    uint32_t frame = w->detection->frame_number;
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return frame;
}

Test (logs, fast_gz_record_holds_the_plain_runs_records, .timeout = 240)
{
    s_files_t files;
    s_files (&files);
    bool compressed = false;
    cr_assert_eq (s_fast_run (files.a, &compressed), 0);
    cr_expect_not (compressed, "a plain log is not compressed");
    cr_assert_eq (s_fast_run (files.b, &compressed), 0);
    cr_expect (compressed, "the launcher says it compressed the log");
    char part[160];
    snprintf (part, sizeof part, "%s.part", files.b);
    cr_expect_neq (access (part, F_OK), 0, "%s is removed once compressed", part);
    uint8_t head[2] = { 0 };
    FILE *f = fopen (files.b, "rb");
    cr_assert_not_null (f);
    cr_assert_eq (fread (head, 1, 2, f), 2);
    fclose (f);
    cr_expect (head[0] == 0x1f && head[1] == 0x8b, "%s is a gzip stream", files.b);
    s_expect_no_index (files.b);
    /* same seed, same packets: the runs end after two wall seconds each,
       so one holds a prefix of the other (s_msgs_read: each reads to a
       clean end) */
    s_msgs_t a, b;
    s_msgs_read (&a, files.a, SIM_LOGFILE_VISION);
    s_msgs_read (&b, files.b, SIM_LOGFILE_VISION);
    size_t n = a.count < b.count ? a.count : b.count;
    cr_assert_geq (n, 200, "recorded %zu and %zu vision packets", a.count, b.count);
    cr_expect_eq (s_frame_number (&a, 0), 0, "the first run's log starts at frame %u",
                  s_frame_number (&a, 0));
    cr_expect_eq (s_frame_number (&b, 0), 0, "the second run's log starts at frame %u",
                  s_frame_number (&b, 0));
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (!s_msg_eq (&a, i, &b, i) && differ++ == 0)
            first = i;
    cr_expect_eq (differ, 0, "%zu of %zu packets differ, the first at %zu", differ, n, first);
    s_msgs_free (&a);
    s_msgs_free (&b);
    s_files_done (&files);
}

Test (logs, killed_gz_run_leaves_a_readable_part, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    char part[160];
    snprintf (part, sizeof part, "%s.part", files.b);
    const char *args[] = { "--mode", "fast", "--record", files.b, NULL };
    sim_proc_t p;
    cr_assert_eq (sim_proc_start (&p, args, NULL), 0);
    int fd = sim_test_udp (p.vision_port);
    cr_assert_geq (fd, 0);
    uint8_t buf[65536];
    for (int i = 0; i < 50; i++)
        cr_assert_gt (sim_test_recv (fd, buf, sizeof buf, S_WAIT_MS), 0, "vision packet %d", i);
    close (fd);
    /* a service writes its pid file once its actor runs, which in fast
       mode can be after the 50 packets: wait for it */
    int vision = sim_lab_wait_service (p.dir, 0, "vision", 0, S_WAIT_MS);
    cr_assert_gt (vision, 0);
    cr_assert_eq (sim_lab_wait_file (part, S_WAIT_MS), 0);
    /* the launcher dies at once; its children get SIGTERM and stop */
    kill (p.pid, SIGKILL);
    waitpid (p.pid, NULL, 0);
    p.pid = 0;
    cr_assert_eq (sim_lab_wait_exit (vision, 30000), 0, "vision did not stop");
    cr_expect_neq (access (files.b, F_OK), 0, "nothing compressed it");
    s_msgs_t m;
    s_msgs_read (&m, part, SIM_LOGFILE_VISION); /* asserts a clean end */
    cr_expect_geq (m.count, 50);
    s_msgs_free (&m);
    /* play of the name given tells what the part is */
    char addr[64];
    snprintf (addr, sizeof addr, "127.0.0.1:%d", sim_test_free_port ());
    const char *play[] = { "play", files.b, "--vision-addr", addr, NULL };
    cr_expect_neq (s_wait_exit (s_spawn (play, files.out)), 0);
    cr_expect (s_file_has (files.out, ".part is there"), "play names the part");
    unlink (part);
    sim_proc_cleanup (&p);
    s_files_done (&files);
}

/* `ssl-sim run ARGS` to its end; *said: whether its log has `needle`.
   Returns the exit code. */
static int
s_run_to_end (const char *const *args, const char *needle, bool *said)
{
    sim_proc_t p;
    cr_assert_eq (sim_proc_start (&p, args, NULL), 0);
    int code = sim_lab_wait_end (p.pid, 60000);
    p.pid = 0;
    cr_assert_neq (code, -1, "the run did not end");
    *said = s_file_has (p.log, needle);
    if (!*said)
        sim_proc_dump_log (&p);
    sim_proc_cleanup (&p);
    return code;
}

/* `ssl-sim run --mode realtime --record record`: vision killed (-9) after
   400 packets, restarted by the launcher, 100 packets more, then the run
   stopped cleanly. The log (its part compressed, for a .gz) reads to a
   clean end with all of them. Returns the size of the file vision writes
   (`writes`) once the killed one is gone: what it left. */
static uint64_t
s_kill_vision_mid_recording (const char *record, const char *writes)
{
    const char *args[] = { "--mode", "realtime", "--record", record, NULL };
    sim_proc_t p;
    cr_assert_eq (sim_proc_start (&p, args, NULL), 0);
    int fd = sim_test_udp (p.vision_port);
    cr_assert_geq (fd, 0);
    uint8_t buf[65536];
    /* 400 packets, some 200 KB: more than the writer buffers, so some are
       on disk when vision dies, likely with a record torn */
    for (int i = 0; i < 400; i++)
        cr_assert_gt (sim_test_recv (fd, buf, sizeof buf, S_WAIT_MS), 0, "vision packet %d", i);
    /* a service writes its pid file once its actor runs: wait for it */
    int vision = sim_lab_wait_service (p.dir, 0, "vision", 0, S_WAIT_MS);
    cr_assert_gt (vision, 0);
    kill (vision, SIGKILL);
    cr_assert_eq (sim_lab_wait_exit (vision, 10000), 0, "vision did not die");
    struct stat st;
    cr_assert_eq (stat (writes, &st), 0);
    cr_assert_gt (sim_lab_wait_service (p.dir, 0, "vision", vision, 20000), 0, "vision was not restarted");
    sim_test_drain (fd);
    for (int i = 0; i < 100; i++)
        cr_assert_gt (sim_test_recv (fd, buf, sizeof buf, S_WAIT_MS), 0, "vision packet %d after the restart",
                      i);
    close (fd);
    int code = sim_proc_stop (&p);
    if (code != 0)
        sim_proc_dump_log (&p);
    cr_assert_eq (code, 0);
    s_msgs_t m;
    s_msgs_read (&m, record, SIM_LOGFILE_VISION); /* asserts a clean end: no tear inside */
    cr_expect_geq (m.count, 150, "%zu vision packets recorded", m.count);
    s_msgs_free (&m);
    sim_proc_cleanup (&p);
    return (uint64_t) st.st_size;
}

Test (logs, restarted_vision_appends_to_the_part, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    char part[160];
    snprintf (part, sizeof part, "%s.part", files.b);
    s_kill_vision_mid_recording (files.b, part);
    s_expect_no_index (files.b);
    s_files_done (&files);
}

/* The same with a plain log: the restarted vision learnt the offsets of
   the first one's records, so the index its clean stop writes covers
   every record of the file. */
Test (logs, restarted_vision_indexes_every_record_at_a_clean_stop, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    uint64_t left = s_kill_vision_mid_recording (files.a, files.a);
    cr_expect_gt (left, SIM_LOGFILE_HEADER, "the killed vision left records");
    /* sim_logindex checked that the listed records follow each other from
       the file's header on: the killed vision's among them */
    s_expect_indexed (files.a);
    s_files_done (&files);
}

/* `ssl-sim run --mode fast --record LOG --duration 2` as a user types it:
   the run ends by itself and LOG ends with the league's index. */
Test (logs, a_plain_run_record_ends_with_the_leagues_index, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--mode", "fast", "--record", files.a, "--duration", "2", NULL };
    bool said = false;
    cr_assert_eq (s_run_to_end (args, "recorded ", &said), 0);
    cr_expect (said, "the run says what it recorded");
    cr_expect_geq (s_expect_indexed (files.a), 200);
    s_files_done (&files);
}

/* A --record name whose part would not fit is refused before anything is
   removed: the user's file of that name stays. */
Test (logs, refused_gz_record_keeps_the_old_log, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    char name[256];
    int n = snprintf (name, sizeof name, "%s/", files.dir);
    memset (name + n, 'x', (size_t) (252 - n));
    snprintf (name + 249, sizeof name - 249, ".gz"); /* 252 bytes: the part's 257 do not fit */
    cr_assert_eq (strlen (name), 252);
    FILE *f = fopen (name, "w");
    cr_assert_not_null (f);
    fputs ("the user's log\n", f);
    fclose (f);
    const char *args[] = { "--mode", "fast", "--duration", "1", "--record", name, NULL };
    bool said = false;
    cr_expect_neq (s_run_to_end (args, "is too long", &said), 0);
    cr_expect (said, "the run says the name is too long");
    cr_expect (s_file_has (name, "the user's log"), "%s is kept", name);
    unlink (name);
    s_files_done (&files);
}

/* Two runs with one --record FILE: the second is refused (naming the part
   the first one writes, for a .gz); the first records as if alone. */
static void
s_second_run_is_refused (const char *record, const char *part)
{
    const char *args[] = { "--mode", "realtime", "--record", record, NULL };
    sim_proc_t a;
    cr_assert_eq (sim_proc_start (&a, args, NULL), 0);
    int fd = sim_test_udp (a.vision_port);
    cr_assert_geq (fd, 0);
    uint8_t buf[65536];
    for (int i = 0; i < 20; i++)
        cr_assert_gt (sim_test_recv (fd, buf, sizeof buf, S_WAIT_MS), 0, "vision packet %d", i);
    bool said = false;
    cr_expect_neq (s_run_to_end (args, "another run records to", &said), 0);
    cr_expect (said, "the second run says why");
    cr_expect_eq (access (part ? part : record, F_OK), 0, "the first run's file is still there");
    sim_test_drain (fd);
    for (int i = 0; i < 20; i++)
        cr_assert_gt (sim_test_recv (fd, buf, sizeof buf, S_WAIT_MS), 0, "vision packet %d after", i);
    close (fd);
    int code = sim_proc_stop (&a);
    if (code != 0)
        sim_proc_dump_log (&a);
    cr_assert_eq (code, 0);
    if (part)
        cr_expect_neq (access (part, F_OK), 0, "compressed and removed");
    s_msgs_t m;
    s_msgs_read (&m, record, SIM_LOGFILE_VISION); /* asserts a clean end */
    cr_expect_geq (m.count, 40, "%zu vision packets recorded", m.count);
    s_msgs_free (&m);
    sim_proc_cleanup (&a);
}

Test (logs, second_run_with_the_same_gz_record_is_refused, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    char part[160];
    snprintf (part, sizeof part, "%s.part", files.b);
    s_second_run_is_refused (files.b, part);
    s_files_done (&files);
}

Test (logs, second_run_with_the_same_plain_record_is_refused, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    s_second_run_is_refused (files.a, NULL);
    s_files_done (&files);
}

/* ---- a full disk, a torn .gz (issue 23) ---------------------------------- */

/* `ssl-sim run --record FILE` with FILE on a 16 KiB tmpfs, mounted in a
   mount namespace of its own (as root; otherwise in a user namespace too,
   which a chroot or a container may refuse: skipped where neither is
   allowed): the run goes on, vision says at once which file it cannot
   write and why, and the run exits 1 naming the file. */
Test (logs, run_record_on_a_full_disk_exits_1_naming_the_file, .timeout = 60)
{
    const char *unshare = geteuid () == 0 ? "unshare -m" : "unshare -rm";
    if (sim_lab_sh ("%s sh -c 'mount -t tmpfs -o size=16k none /mnt' >/dev/null 2>&1", unshare) != 0) {
        cr_skip_test ("skipped: no user and mount namespace to mount a small tmpfs in");
        return;
    }
    s_files_t files;
    s_files (&files);
    sim_proc_t p;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    char ini[160], full[160], log[160], vision[64], out[16384];
    snprintf (ini, sizeof ini, "%s/test.ini", files.dir);
    snprintf (full, sizeof full, "%s/full", files.dir);
    snprintf (log, sizeof log, "%s/full/game.log", files.dir);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    /* the referee vision records on loopback too: its group would be
       joined on the default interface */
    char referee[64];
    snprintf (referee, sizeof referee, "referee_addr = 127.0.0.1:%d\n", sim_test_free_port ());
    cr_assert_eq (sim_proc_write_ini (&p, ini, referee), 0);
    cr_assert_eq (mkdir (full, 0700), 0);
    for (int single = 0; single < 2; single++) {
        int code = sim_lab_capture (
            out, sizeof out,
            "%s sh -c \"mount -t tmpfs -o size=16k none '%s' && XDG_RUNTIME_DIR='%s' exec '%s' run "
            "--config '%s' --localhost --vision-addr %s --duration 3 --record '%s' %s\" 2>&1",
            unshare, full, files.dir, sim_lab_exe (), ini, vision, log, single ? "--single-process" : "");
        cr_expect_eq (code, 1, "--record on a full disk (%s): exit %d\n%s", single ? "single" : "four", code,
                      out);
        char said[256];
        snprintf (said, sizeof said, "log file %s: cannot write (No space left on device)", log);
        cr_expect (strstr (out, said), "vision does not say which file it cannot write and why:\n%s", out);
        snprintf (said, sizeof said, "--record: vision lost records: %s is incomplete", log);
        cr_expect (strstr (out, said), "the run does not end naming the file:\n%s", out);
    }
    rmdir (full);
    unlink (ini);
    s_files_done (&files);
}

/* `ssl-sim record` to a device that is always full. */
Test (logs, record_to_a_full_device_exits_1_naming_the_file, .timeout = 60)
{
    if (access ("/dev/full", W_OK) != 0) {
        cr_skip_test ("skipped: no /dev/full");
        return;
    }
    s_files_t files;
    s_files (&files);
    /* every address on loopback: the referee too (joining its group would
       leave the machine) */
    char out[8192], addr[64], ini[160];
    s_play_ini (&files, ini, sizeof ini, sim_test_free_port (), sim_test_free_port ());
    snprintf (addr, sizeof addr, "127.0.0.1:%d", sim_test_free_port ());
    int code = sim_lab_capture (out, sizeof out,
                                "'%s' record /dev/full --config '%s' --vision-addr %s --duration 1.5 2>&1",
                                sim_lab_exe (), ini, addr);
    cr_expect_eq (code, 1, "record to /dev/full: exit %d\n%s", code, out);
    cr_expect (strstr (out, "log file /dev/full: cannot write (No space left on device)")
                   && strstr (out, "record: /dev/full is incomplete"),
               "record does not say which file failed and why:\n%s", out);
    unlink (ini);
    s_files_done (&files);
}

/* A .gz log a crash cut short (a recorder killed mid-stream): recording
   to it again must not append behind the tear, where nothing could read
   it; the torn file is moved aside whole and a new log started. */
Test (logs, record_to_a_torn_gz_starts_a_new_log, .timeout = 60)
{
    s_files_t files;
    s_files (&files);
    s_write_small_log (files.b);
    struct stat st;
    cr_assert_eq (stat (files.b, &st), 0);
    cr_assert_eq (truncate (files.b, st.st_size - 12), 0, "tearing the gzip stream");
    char out[8192], addr[64], aside[160], ini[160];
    s_play_ini (&files, ini, sizeof ini, sim_test_free_port (), sim_test_free_port ());
    snprintf (addr, sizeof addr, "127.0.0.1:%d", sim_test_free_port ());
    int code = sim_lab_capture (out, sizeof out,
                                "'%s' record '%s' --config '%s' --vision-addr %s --duration 0.5 2>&1",
                                sim_lab_exe (), files.b, ini, addr);
    unlink (ini);
    cr_expect_eq (code, 0, "record to a torn .gz: exit %d\n%s", code, out);
    const char *moved = strstr (out, "moved it to ");
    cr_assert_not_null (moved, "record does not say it moved the torn log aside:\n%s", out);
    cr_assert_eq (sscanf (moved, "moved it to %159s", aside), 1);
    struct stat torn;
    cr_expect (stat (aside, &torn) == 0 && torn.st_size == st.st_size - 12, "%s is not the torn log, whole",
               aside);
    /* the new log reads to a clean end (s_msgs_read asserts it) */
    s_msgs_t m;
    s_msgs_read (&m, files.b, SIM_LOGFILE_VISION);
    cr_expect_eq (m.count, 0, "the new log holds %zu vision messages, none came", m.count);
    s_msgs_free (&m);
    unlink (aside);
    s_files_done (&files);
}
