/*  test_journal.c - a physics kill -9 loses nothing (issue 11): in a
    realtime four-process `ssl-sim run` on loopback, a client teleports a
    robot to several places over about a second and physics is killed
    right after the last teleport's reply; the restarted physics replays
    its journal, so vision shows the robot where the last teleport put it
    and every camera's frame numbers after the restart are greater than
    any before it (docs/journal.md). The same for a lock-step client,
    whose sync steps carry the teleports and the frames.

    And the journal a user keeps with `ssl-sim run --journal F`: a default
    realtime run (timestamps on the wall clock, a speed change in the
    middle) replayed with `ssl-sim replay F --no-viewer` (flat out, no
    page) and with its page in realtime, records every vision and truth
    packet again byte for byte, timestamps included, at the same log times
    (docs/logs.md); so do a default fast and a default lock-step run,
    replayed as a user does, with the page (their log times count from the
    wall clock of the first record). A realtime run whose physics is
    killed -9 in the middle replays byte for byte too, before the kill and
    after it (issue 24). Realtime runs are matched by camera and frame
    number: physics does not wait for a realtime vision, and the frames of
    snapshots a held-up vision missed are what a replay has and the run
    lacks (docs/logs.md, "Replaying"); a realtime run whose vision is
    stopped twice (SIGSTOP) shows that path every time. A second run
    given the journal a live run writes is refused at its start, and the
    first run's journal, its physics restarted meanwhile, stays whole.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/base/sim_hash.h"
#include "common/logs/sim_logfile.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_replay.h"
#include "services/viewer/vw_pages.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "tests/support/sim_ws.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

/* S_FAST_PACKETS: the vision packets a default fast run sends before the
   test stops it (more than 50 recorded, and 25 truth packets) */
#define S_WAIT_MS      10000
#define S_FAST_PACKETS 70
#define S_CAMERAS      8
#define S_TELEPORTS    6

/* What vision showed in a stretch of time. */
typedef struct {
    int packets;             /* detections */
    bool camera[S_CAMERAS];  /* cameras that sent one */
    uint32_t low[S_CAMERAS]; /* each one's lowest and highest frame number */
    uint32_t high[S_CAMERAS];
    bool robot_seen; /* blue 0 in the last detection */
    double x, y;     /* there, m */
} vision_t;

/* Count one detection frame into *v. */
static void
s_count (vision_t *v, const SSLDetectionFrame *d)
{
    if (d && d->camera_id < S_CAMERAS) {
        unsigned c = d->camera_id;
        if (!v->camera[c] || d->frame_number < v->low[c])
            v->low[c] = d->frame_number;
        if (!v->camera[c] || d->frame_number > v->high[c])
            v->high[c] = d->frame_number;
        v->camera[c] = true;
        v->packets++;
        v->robot_seen = false;
        for (size_t i = 0; i < d->n_robots_blue; i++)
            if (d->robots_blue[i]->has_robot_id && d->robots_blue[i]->robot_id == 0) {
                v->robot_seen = true;
                v->x = d->robots_blue[i]->x / 1000.0;
                v->y = d->robots_blue[i]->y / 1000.0;
            }
    }
}

/* Take one datagram from vision into *v, waiting up to timeout_ms.
   Returns false when none came. */
static bool
s_take (int fd, vision_t *v, int timeout_ms)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, timeout_ms);
    if (n <= 0)
        return false;
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (w, "vision sent something that is not an SSL_WrapperPacket");
    s_count (v, w->detection);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return true;
}

/* After the restart: frame numbers above those before it, blue 0 at (x, y). */
static void
s_expect_continued (const vision_t *before, const vision_t *after, double x, double y)
{
    for (int c = 0; c < S_CAMERAS; c++)
        if (after->camera[c] && before->camera[c])
            cr_expect_gt (after->low[c], before->high[c],
                          "camera %d: frame %u after the restart, %u before it", c, after->low[c],
                          before->high[c]);
    cr_expect (after->robot_seen && fabs (after->x - x) < 0.01 && fabs (after->y - y) < 0.01,
               "blue 0 at (%.3f, %.3f) after the restart, the last teleport put it at (%.3f, %.3f)", after->x,
               after->y, x, y);
}

/* Everything vision sends for `ms`. */
static void
s_watch (int fd, vision_t *v, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end)
        s_take (fd, v, 10);
}

/* Everything already waiting. */
static void
s_drain (int fd, vision_t *v)
{
    while (s_take (fd, v, 0))
        ;
}

Test (journal, physics_kill9_right_after_a_teleport_loses_nothing, .timeout = 60)
{
    static const char *const args[] = { "--realism", "none", "--cameras", "1", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    vision_t before, after;
    memset (&before, 0, sizeof before);
    memset (&after, 0, sizeof after);
    /* teleports over about a second: whatever the checkpoint's phase,
       the last ones come after it */
    double x = 0, y = 0;
    for (int i = 0; i < S_TELEPORTS; i++) {
        x = -2.0 + 0.7 * i;
        y = 1.0 - 0.35 * i;
        cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, x, y, 5000), 1,
                      "teleport %d not answered", i);
        if (i < S_TELEPORTS - 1)
            s_watch (f.vision, &before, 200);
    }
    int old = sim_fixture_signal (&f, "physics", SIGKILL);
    cr_assert_gt (old, 0, "physics was not running, or did not die");
    s_drain (f.vision, &before);
    cr_assert_gt (before.packets, 20, "vision too slow before the kill");
    cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, S_WAIT_MS), 0, "physics was not restarted");
    /* what the old physics sent on its way out counts as before */
    s_drain (f.vision, &before);

    s_watch (f.vision, &after, 1500);
    if (after.packets == 0)
        sim_proc_dump_log (&f.proc);
    cr_assert_gt (after.packets, 10, "no vision after physics restarted");
    s_expect_continued (&before, &after, x, y);
    cr_expect_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
}

/* One sync step of `step` s on the control port, with `cmd` (may be
   NULL); its frames are counted into *v. */
static void
s_sync_step (sim_fixture_t *f, vision_t *v, float step, SimulatorCommand *cmd, int timeout_ms)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = step;
    req.simulator_command = cmd;
    SimulationSyncResponse *resp = sim_test_sync (f->fd, f->proc.control_port, &req, NULL, NULL, timeout_ms);
    cr_assert_not_null (resp, "no answer to a sync step");
    for (size_t i = 0; i < resp->n_detection; i++)
        s_count (v, resp->detection[i]);
    simulation_sync_response__free_unpacked (resp, NULL);
}

Test (journal, physics_kill9_after_a_sync_step_loses_nothing, .timeout = 60)
{
    static const char *const args[] = { "--mode", "sync", "--realism", "none", "--cameras", "1", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_FRAMES | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    vision_t before, after;
    memset (&before, 0, sizeof before);
    memset (&after, 0, sizeof after);
    double x = 0, y = 0;
    for (int i = 0; i < S_TELEPORTS; i++) {
        sim_msg_robot_tp_t tp;
        SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
        x = 1.8 - 0.6 * i;
        y = -1.0 + 0.3 * i;
        sim_msg_robot_xy (&tp.tr, x, y);
        tp.tr.has_v_x = tp.tr.has_v_y = tp.tr.has_v_angular = true;
        s_sync_step (&f, &before, 0.05f, cmd, 5000);
        s_sync_step (&f, &before, 0.05f, NULL, 5000);
    }
    cr_assert_gt (before.packets, 5, "no frames in the sync steps");
    int old = sim_fixture_signal (&f, "physics", SIGKILL);
    cr_assert_gt (old, 0, "physics was not running, or did not die");
    cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, S_WAIT_MS), 0, "physics was not restarted");
    for (int i = 0; i < 4; i++)
        s_sync_step (&f, &after, 0.05f, NULL, S_WAIT_MS);
    cr_assert_gt (after.packets, 2, "no frames after physics restarted");
    s_expect_continued (&before, &after, x, y);
    cr_expect_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
}

/* ---- a --journal file replays the default run byte for byte ------------- */

/* The next message of `type` from r into *m; false at the end. */
static bool
s_next_of (sim_logfile_reader_t *r, int32_t type, sim_logfile_msg_t *m)
{
    int rc;
    while ((rc = sim_logfile_next (r, m)) == 1)
        if (m->type == type)
            return true;
    cr_assert_eq (rc, 0, "a log did not read to its end: %s", sim_logfile_error (r));
    return false;
}

/* Every `what` message (`type`) of the run's log comes again in the
   replay's, in order, byte for byte, and with `times` at the same log
   time. Returns how many the run's holds. */
static size_t
s_expect_same_records (const char *run, const char *replay, int32_t type, const char *what, bool times)
{
    char err[256];
    sim_logfile_reader_t *a = sim_logfile_reader_new (run, err, sizeof err);
    cr_assert_not_null (a, "%s", err);
    sim_logfile_reader_t *b = sim_logfile_reader_new (replay, err, sizeof err);
    cr_assert_not_null (b, "%s", err);
    size_t count = 0, differ = 0, moved = 0, first = 0;
    sim_logfile_msg_t ma, mb;
    while (s_next_of (a, type, &ma)) {
        cr_assert (s_next_of (b, type, &mb), "%s: the replay's log ends after %zu %s packets", replay, count,
                   what);
        bool same = ma.len == mb.len && memcmp (ma.data, mb.data, ma.len) == 0;
        if (!same && differ++ == 0)
            first = count;
        moved += ma.time_ns != mb.time_ns;
        count++;
    }
    cr_expect_eq (differ, 0, "%s: %zu of %zu %s packets differ, the first at %zu", replay, differ, count,
                  what, first);
    if (times)
        cr_expect_eq (moved, 0, "%s: %zu of %zu %s packets at another log time", replay, moved, count, what);
    sim_logfile_reader_destroy (&a);
    sim_logfile_reader_destroy (&b);
    return count;
}

/* One vision or truth packet of a log: its camera (0 for truth) and
   frame number, its bytes, its log time (the sim time of the snapshot it
   left on, on the run's timestamp base). */
typedef struct {
    uint32_t camera, frame;
    uint8_t *data;
    size_t len;
    int64_t time_ns;
} s_packet_t;

/* Every detection packet (type SIM_LOGFILE_VISION) or truth packet
   (SIM_LOGFILE_TRACKER) of the log at `path`; *count set. Caller frees. */
static s_packet_t *
s_packets (const char *path, int32_t type, size_t *count)
{
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    size_t n = 0, cap = 1024;
    s_packet_t *p = malloc (cap * sizeof *p);
    cr_assert_not_null (p);
    sim_logfile_msg_t m;
    while (s_next_of (r, type, &m)) {
        bool keep = false;
        uint32_t camera = 0, frame = 0;
        if (type == SIM_LOGFILE_TRACKER) {
            TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, m.len, m.data);
            cr_assert (t && t->tracked_frame, "a truth record does not decode");
            keep = true;
            frame = t->tracked_frame->frame_number;
            tracker_wrapper_packet__free_unpacked (t, NULL);
        } else {
            SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, m.len, m.data);
            cr_assert_not_null (w);
            if (w->detection) {
                keep = true;
                camera = w->detection->camera_id;
                frame = w->detection->frame_number;
            }
            ssl__wrapper_packet__free_unpacked (w, NULL);
        }
        if (!keep)
            continue;
        if (n == cap) {
            cap *= 2;
            p = realloc (p, cap * sizeof *p);
            cr_assert_not_null (p);
        }
        p[n] = (s_packet_t) { camera, frame, malloc (m.len), m.len, m.time_ns };
        memcpy (p[n].data, m.data, m.len);
        n++;
    }
    sim_logfile_reader_destroy (&r);
    *count = n;
    return p;
}

static void
s_packets_free (s_packet_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (p[i].data);
    free (p);
}

/* How run packet p and its replay q differ (CI prints only a failure's
   tail: this line is what there is to go on). */
static void
s_say_how_they_differ (int32_t type, const s_packet_t *p, const s_packet_t *q)
{
    if (type == SIM_LOGFILE_TRACKER) {
        cr_log_warn ("truth frame %u: run log time %lld ns, replay %lld ns", p->frame, (long long) p->time_ns,
                     (long long) q->time_ns);
        return;
    }
    SSLWrapperPacket *x = ssl__wrapper_packet__unpack (NULL, p->len, p->data);
    SSLWrapperPacket *y = ssl__wrapper_packet__unpack (NULL, q->len, q->data);
    if (x && y && x->detection && y->detection) {
        const SSLDetectionFrame *u = x->detection, *v = y->detection;
        const SSLDetectionRobot *ru = u->n_robots_blue ? u->robots_blue[0] : NULL;
        const SSLDetectionRobot *rv = v->n_robots_blue ? v->robots_blue[0] : NULL;
        cr_log_warn (
            "camera %u frame %u: run t_capture %.6f t_sent %.6f, %zu blue, %zu yellow, %zu balls, "
            "blue[0] (%.2f, %.2f); replay t_capture %.6f t_sent %.6f, %zu blue, %zu yellow, %zu balls, "
            "blue[0] (%.2f, %.2f)",
            p->camera, p->frame, u->t_capture, u->t_sent, u->n_robots_blue, u->n_robots_yellow, u->n_balls,
            ru ? ru->x : 0.0, ru ? ru->y : 0.0, v->t_capture, v->t_sent, v->n_robots_blue, v->n_robots_yellow,
            v->n_balls, rv ? rv->x : 0.0, rv ? rv->y : 0.0);
    }
    if (x)
        ssl__wrapper_packet__free_unpacked (x, NULL);
    if (y)
        ssl__wrapper_packet__free_unpacked (y, NULL);
}

/* Run packet p, held up (s_expect_matched: sent after its replay q, the
   run sending nothing of its camera in between), may carry other bytes
   than q where it was captured from a later snapshot: in realtime physics
   does not wait for vision, and a vision held up on a loaded machine
   loses snapshots; it captures the frame at the next one it gets, moving
   the world back to the instant along each velocity (docs/vision.md,
   "Capture timing"). Such a frame keeps its instant's timestamps; a truth
   packet goes out with its release and carries that later snapshot. This
   is what a replay cannot reproduce, "a snapshot a stalled vision
   dropped" (docs/logs.md, "Replaying"). */
static bool
s_same_instant (int32_t type, const s_packet_t *p, const s_packet_t *q)
{
    if (type == SIM_LOGFILE_TRACKER)
        return true;
    SSLWrapperPacket *x = ssl__wrapper_packet__unpack (NULL, p->len, p->data);
    SSLWrapperPacket *y = ssl__wrapper_packet__unpack (NULL, q->len, q->data);
    bool same = x && y && x->detection && y->detection && x->detection->t_capture == y->detection->t_capture
             && x->detection->t_sent == y->detection->t_sent;
    if (x)
        ssl__wrapper_packet__free_unpacked (x, NULL);
    if (y)
        ssl__wrapper_packet__free_unpacked (y, NULL);
    return same;
}

/* Every `what` packet (`type`: vision detections or truth) of the run's
   log at `run` matched with the replay's by camera and frame number:
   each must be there with the same bytes (and with `times` at the same
   log time), but for one a stall held up (sent after the
   replay's with nothing of its camera between, and s_same_instant). The
   replay may hold frames the run lacks: those a held-up vision missed,
   or the sim time a physics restart promised ahead and never published
   (docs/logs.md, "Replaying"). Returns how many the run's log holds;
   sets *kept when the files are worth keeping, and *missed (when not
   NULL) to the frames the run numbered past. */
static size_t
s_expect_matched (const char *run, const char *replay, int32_t type, const char *what, bool times, bool *kept,
                  size_t *missed_out)
{
    size_t na, nb;
    s_packet_t *a = s_packets (run, type, &na);
    s_packet_t *b = s_packets (replay, type, &nb);
    size_t differ = 0, absent = 0, late = 0, moved = 0, first = SIZE_MAX, first_b = 0;
    /* frames the run's vision numbered past: what a loaded machine (or a
       restart) did to this run */
    size_t missed = 0;
    uint32_t last[S_CAMERAS] = { 0 };
    bool counted[S_CAMERAS] = { false };
    /* per camera: the log time of its last packet, and the latest before it */
    int64_t last_t[S_CAMERAS], before_t[S_CAMERAS];
    for (int c = 0; c < S_CAMERAS; c++)
        last_t[c] = before_t[c] = INT64_MIN;
    for (size_t i = 0; i < na; i++) {
        cr_assert_lt (a[i].camera, S_CAMERAS, "camera %u", a[i].camera);
        uint32_t c = a[i].camera;
        if (counted[c] && a[i].frame > last[c] + 1)
            missed += a[i].frame - last[c] - 1;
        counted[c] = true;
        last[c] = a[i].frame;
        /* the run's previous packet of this camera sent before this one */
        int64_t earlier = a[i].time_ns == last_t[c] ? before_t[c] : last_t[c];
        if (a[i].time_ns != last_t[c]) {
            before_t[c] = last_t[c];
            last_t[c] = a[i].time_ns;
        }
        size_t k = 0;
        while (k < nb && !(b[k].camera == a[i].camera && b[k].frame == a[i].frame))
            k++;
        if (k == nb) {
            absent++;
            continue;
        }
        bool same = a[i].len == b[k].len && memcmp (a[i].data, b[k].data, a[i].len) == 0;
        /* held up: sent after the replay's, and the run sent nothing of
           this camera in between (a numbering that slipped after a stall
           sends its packets a period or more after the replay's, with the
           packets before them in between) */
        bool held = a[i].time_ns > b[k].time_ns && earlier <= b[k].time_ns;
        if (!same && held && s_same_instant (type, &a[i], &b[k]))
            late++;
        else if (!same) {
            if (first == SIZE_MAX) {
                first = i;
                first_b = k;
            }
            differ++;
        } else if (held)
            late++; /* the same bytes: released late, or the move back to the instant was exact */
        else if (a[i].time_ns != b[k].time_ns)
            moved++;
    }
    cr_log_info ("%s: %zu run %s packets (%zu frames missed), %zu replayed: %zu differ, %zu absent, %zu "
                 "held up by a stall, %zu at another log time",
                 replay, na, what, missed, nb, differ, absent, late, moved);
    if (first != SIZE_MAX)
        s_say_how_they_differ (type, &a[first], &b[first_b]);
    cr_expect_eq (differ, 0, "%s: %zu of %zu %s packets differ in the replay, the first at %zu (frame %u)",
                  replay, differ, na, what, first, first < na ? a[first].frame : 0);
    cr_expect_eq (absent, 0, "%s: %zu of %zu %s packets never came in the replay", replay, absent, na, what);
    if (times)
        cr_expect_eq (moved, 0, "%s: %zu of %zu %s packets at another log time", replay, moved, na, what);
    if (differ || absent || (times && moved))
        *kept = true;
    if (missed_out)
        *missed_out = missed;
    s_packets_free (a, na);
    s_packets_free (b, nb);
    return na;
}

/* `ssl-sim replay JOURNAL --record OUT [--mode MODE]` (vision and truth
   to free loopback ports); it must exit 0. `page`: as a user runs it,
   with the page it serves (docs/viewer.md "Replaying a journal"; no page
   opens, so it ends with the journal), its viewer on a free loopback port
   so parallel tests do not share one; else with --no-viewer, the replay
   that runs flat out with no viewer at all. */
static void
s_replay (const char *dir, const char *journal, const char *out, const char *mode, bool page)
{
    char vision[64], viewer[64], log[300];
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    snprintf (viewer, sizeof viewer, "127.0.0.1:%d", sim_test_free_port ());
    snprintf (log, sizeof log, "%s/replay.txt", dir);
    const char *args[16] = { "replay",        journal, "--record",    out,   "--localhost",
                             "--vision-addr", vision,  "--log-level", "warn" };
    int n = 9;
    if (page) {
        args[n++] = "--viewer-addr";
        args[n++] = viewer;
    } else
        args[n++] = "--no-viewer";
    if (mode) {
        args[n++] = "--mode";
        args[n++] = mode;
    }
    args[n] = NULL;
    pid_t pid = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (pid, 0);
    int status = 0;
    cr_assert_eq (waitpid (pid, &status, 0), pid);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        sim_lab_dump (log);
    cr_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0, "ssl-sim replay %s failed", journal);
}

/* A run's files in a fresh directory, and its configuration: the
   defaults a user gets (Unix timestamps in realtime mode), with only the
   recorder's referee multicast kept on loopback at a free port (network
   hygiene, parallel tests). */
typedef struct {
    char dir[32];
    char run[64], replay[64], realtime[64], journal[64];
    char ini[160];
} s_files_t;

static void
s_files (s_files_t *f)
{
    snprintf (f->dir, sizeof f->dir, "/tmp/ssl-sim-journal-XXXXXX");
    cr_assert_not_null (mkdtemp (f->dir));
    snprintf (f->run, sizeof f->run, "%s/run.log", f->dir);
    snprintf (f->replay, sizeof f->replay, "%s/replay.log", f->dir);
    snprintf (f->realtime, sizeof f->realtime, "%s/realtime.log", f->dir);
    snprintf (f->journal, sizeof f->journal, "%s/run.journal", f->dir);
    snprintf (f->ini, sizeof f->ini, "[network]\nreferee_addr = 127.0.0.1:%d\n", sim_test_free_port ());
}

Test (journal, a_default_realtime_run_replays_byte_for_byte, .timeout = 180)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--truth", "--record", files.run, "--journal", files.journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0,
                  "ssl-sim did not come up");
    vision_t seen;
    memset (&seen, 0, sizeof seen);
    /* inputs at substeps the wall clock picks, and a speed change, which
       moves the timestamps' base twice */
    for (int i = 0; i < 4; i++) {
        cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, -1.5 + 0.8 * i, 0.4 * i, S_WAIT_MS),
                      1, "teleport %d not answered", i);
        if (i == 1)
            cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 1.58, S_WAIT_MS), 0);
        if (i == 2)
            cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 1.0, S_WAIT_MS), 0);
        int before = seen.packets;
        while (seen.packets < before + 40)
            cr_assert (s_take (f.vision, &seen, S_WAIT_MS), "vision stopped");
    }
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    char err[256];
    phys_replay_t *script = phys_replay_load (files.journal, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    size_t bases = phys_replay_epoch_count (script);
    phys_replay_destroy (&script);
    /* 0 before the clock starts, Unix time at the start, after each speed change */
    cr_expect_geq (bases, 4, "the journal holds %zu timestamp bases", bases);

    s_replay (files.dir, files.journal, files.replay, NULL, false);
    s_replay (files.dir, files.journal, files.realtime, "realtime", true);
    /* matched by frame number, not in order: physics does not wait for
       a realtime vision, and one held up on a loaded machine misses
       snapshots, which only the run lacks (s_expect_matched) */
    const char *replays[] = { files.replay, files.realtime };
    bool keep = false;
    for (int i = 0; i < 2; i++) {
        size_t vision =
            s_expect_matched (files.run, replays[i], SIM_LOGFILE_VISION, "vision", true, &keep, NULL);
        size_t truth =
            s_expect_matched (files.run, replays[i], SIM_LOGFILE_TRACKER, "truth", true, &keep, NULL);
        cr_expect_gt (vision, 100, "the run recorded %zu vision packets", vision);
        cr_expect_gt (truth, 50, "the run recorded %zu truth packets", truth);
    }
    if (keep)
        cr_log_warn ("the run's journal and logs are kept in %s", files.dir);
    else
        sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* A default realtime run with --truth whose vision is held up twice for
   0.4 s (SIGSTOP, as a loaded machine holds it up): physics does not wait,
   vision's lane keeps 10 snapshots at the default net.unix.max_dgram_qlen
   and vision misses the rest. The replay of its journal still has every
   packet the run sent, matched by frame number with the same bytes and log
   time, but for those captured late (s_expect_matched): frame and truth
   numbers after a stall are those of their instants (docs/vision.md,
   "Capture timing"; docs/logs.md, "Replaying"). */
Test (journal, a_realtime_run_whose_vision_stalled_replays_what_it_sent, .timeout = 180)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--truth", "--record", files.run, "--journal", files.journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini,
                                     SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES),
                  0, "ssl-sim did not come up");
    vision_t seen;
    memset (&seen, 0, sizeof seen);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, -1.5 + 0.8 * i, 0.4 * i, S_WAIT_MS),
                      1, "teleport %d not answered", i);
        int before = seen.packets;
        while (seen.packets < before + 40)
            cr_assert (s_take (f.vision, &seen, S_WAIT_MS), "vision stopped");
        if (i < 2) {
            int pid = sim_fixture_signal (&f, "vision", SIGSTOP);
            cr_assert_gt (pid, 0, "vision was not running");
            usleep (400 * 1000);
            cr_assert_eq (kill (pid, SIGCONT), 0, "vision could not go on");
        }
    }
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    s_replay (files.dir, files.journal, files.replay, NULL, false);
    bool keep = false;
    size_t missed[2] = { 0, 0 };
    size_t vision =
        s_expect_matched (files.run, files.replay, SIM_LOGFILE_VISION, "vision", true, &keep, &missed[0]);
    size_t truth =
        s_expect_matched (files.run, files.replay, SIM_LOGFILE_TRACKER, "truth", true, &keep, &missed[1]);
    cr_expect_gt (vision, 100, "the run recorded %zu vision packets", vision);
    cr_expect_gt (truth, 50, "the run recorded %zu truth packets", truth);
    /* else the lane held every snapshot of the stalls and this showed nothing */
    cr_expect_gt (missed[0], 0, "the run's vision missed no frame in two 0.4 s stalls");
    cr_expect_gt (missed[1], 0, "the run's truth stream missed no period in two 0.4 s stalls");
    if (keep)
        cr_log_warn ("the run's journal and logs are kept in %s", files.dir);
    else
        sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* A default `ssl-sim run --mode MODE --truth --record --journal` with
   teleports (free-running) or sync steps carrying them (sync), then its
   default replay: the same vision and truth packets. */
static void
s_default_mode_replays (const char *mode)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = {
        "--mode", mode, "--truth", "--record", files.run, "--journal", files.journal, NULL
    };
    bool sync = strcmp (mode, "sync") == 0;
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini,
                                     sync ? SIM_FIXTURE_FRAMES : SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION),
                  0, "ssl-sim did not come up");
    vision_t seen;
    memset (&seen, 0, sizeof seen);
    for (int i = 0; i < 4; i++) {
        double x = -1.5 + 0.8 * i, y = 0.4 * i;
        if (sync) {
            sim_msg_robot_tp_t tp;
            SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
            sim_msg_robot_xy (&tp.tr, x, y);
            for (int k = 0; k < 20; k++)
                s_sync_step (&f, &seen, 0.01f, k == 0 ? cmd : NULL, S_WAIT_MS);
        } else
            cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, x, y, S_WAIT_MS), 1,
                          "teleport %d not answered", i);
    }
    if (!sync) {
        /* a fast run records what it lives through, and four teleports
           can take less wall time than enough packets to compare (ASan on
           a loaded machine sent 38): the run goes on until it has sent
           them */
        uint8_t buf[65536];
        int packets = 0;
        int64_t end = sim_test_now_ms () + S_WAIT_MS;
        while (packets < S_FAST_PACKETS && sim_test_now_ms () < end)
            packets += sim_test_recv (f.vision, buf, sizeof buf, 100) >= 0;
        cr_assert_geq (packets, S_FAST_PACKETS, "a fast run sent %d vision packets in %d ms", packets,
                       S_WAIT_MS);
    }
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    /* The replay a user runs to check a run: with the page for sync (it
       paces the replay at the run's own speed, a second of sim time here);
       with no page for fast, which then runs flat out, as documented. A
       fast run covers minutes of sim time in the seconds it lives (more
       on a loaded machine), which the page's pace would take as many
       minutes to replay; a paced replay of a default realtime run is
       a_default_realtime_run_replays_byte_for_byte's. */
    s_replay (files.dir, files.journal, files.replay, NULL, sync);
    size_t vision = s_expect_same_records (files.run, files.replay, SIM_LOGFILE_VISION, "vision", false);
    size_t truth = s_expect_same_records (files.run, files.replay, SIM_LOGFILE_TRACKER, "truth", false);
    cr_log_info ("%s run: %zu vision and %zu truth packets as in the run", mode, vision, truth);
    cr_expect_gt (vision, 50, "the run recorded %zu vision packets", vision);
    cr_expect_gt (truth, 25, "the run recorded %zu truth packets", truth);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

Test (journal, a_default_fast_run_replays_byte_for_byte, .timeout = 180)
{
    s_default_mode_replays ("fast");
}

Test (journal, a_default_sync_run_replays_byte_for_byte, .timeout = 180)
{
    s_default_mode_replays ("sync");
}

/* ---- a --journal file replays across a physics kill -9 (issue 24) ------- */

/* A default realtime run with --journal and a robot sliding (teleports
   with a velocity, so the substep an input applied at shows in every
   later frame), physics killed -9 in the middle: its replay shows every
   frame the run sent, before the kill and after it, with the same bytes
   (matched by camera and frame number: the run skips the frames of the
   sim time its restart promised ahead and never published, and those of
   snapshots a held-up vision missed), but for a frame the run captured
   from a later snapshot (s_same_instant). */
Test (journal, a_run_with_a_physics_kill9_replays_byte_for_byte, .timeout = 180)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--record", files.run, "--journal", files.journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    vision_t seen;
    memset (&seen, 0, sizeof seen);
    for (int i = 0; i < 10; i++) {
        sim_msg_robot_tp_t tp;
        SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&tp.tr, -2.0 + 0.3 * i, 0.5 - 0.1 * i);
        tp.tr.has_v_x = tp.tr.has_v_y = tp.tr.has_v_angular = true;
        tp.tr.v_x = 0.8f;
        tp.tr.v_y = -0.3f;
        uint8_t buf[4096];
        cr_assert_geq (sim_test_request (f.fd, f.proc.control_port, &cmd->base, buf, sizeof buf, S_WAIT_MS),
                       0, "teleport %d not answered", i);
        if (i == 6) {
            int old = sim_fixture_signal (&f, "physics", SIGKILL);
            cr_assert_gt (old, 0, "physics was not running, or did not die");
            cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, S_WAIT_MS), 0,
                          "physics not restarted");
        }
        int before = seen.packets;
        while (seen.packets < before + 30)
            cr_assert (s_take (f.vision, &seen, S_WAIT_MS), "vision stopped");
    }
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    s_replay (files.dir, files.journal, files.replay, NULL, true);
    bool keep = false;
    size_t na = s_expect_matched (files.run, files.replay, SIM_LOGFILE_VISION, "vision", false, &keep, NULL);
    cr_expect_gt (na, 200, "the run recorded %zu vision packets", na);
    /* a difference is studied in the run's files: its journal, both logs */
    if (keep)
        cr_log_warn ("the run's journal and logs are kept in %s", files.dir);
    else
        sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* Every input of a journal with its bus id (ids[], up to cap; n of
   them), and how many inputs are not numbered one past the one before
   (gaps): a --journal file that lacks an input the run applied. */
typedef struct {
    uint64_t *ids;
    size_t n, cap;
    uint64_t next_seq;
    size_t gaps;
} s_ids_t;

static bool
s_collect_id (void *arg, const phys_journal_record_t *rec)
{
    s_ids_t *ids = arg;
    if (rec->kind != PHYS_JOURNAL_INPUT)
        return true;
    Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
    cr_assert_not_null (req, "an input that is not a Request");
    if (rec->seq != ids->next_seq) {
        cr_log_warn ("input %llu follows input %llu", (unsigned long long) rec->seq,
                     (unsigned long long) ids->next_seq - 1);
        ids->gaps++;
    }
    ids->next_seq = rec->seq + 1;
    if (ids->n < ids->cap)
        ids->ids[ids->n++] = req->id;
    simbus__request__free_unpacked (req, NULL);
    return true;
}

/* A teleport waiting for a stalled physics, or in flight at each of
   several physics kills, is applied once: the gateway hands it over again
   while it waits, so physics may get it twice (the stalled one reads
   every copy; a killed one may have applied it before dying), and answers
   a copy without applying it again. The --journal file holds every input
   applied, each bus id at most once. */
Test (journal, a_command_in_flight_at_a_kill_is_applied_once, .timeout = 180)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--journal", files.journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    /* physics stalled (SIGSTOP) for 1.2 s with a teleport waiting: the
       gateway hands it over again meanwhile (0.15, 0.45, 1.05 s), and
       physics, going on, reads the first and the copies */
    {
        sim_msg_robot_tp_t tp;
        SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&tp.tr, 1.0, -0.2);
        int stopped = sim_fixture_signal (&f, "physics", SIGSTOP);
        cr_assert_gt (stopped, 0);
        /* SIGSTOP takes effect asynchronously: a teleport sent before
           physics really stopped is answered at once */
        cr_assert_eq (sim_lab_wait_stopped (stopped, 2000), 0, "physics did not stop");
        cr_assert_eq (sim_test_send (f.fd, f.proc.control_port, &cmd->base), 0);
        uint8_t buf[4096];
        cr_assert_lt (sim_test_recv (f.fd, buf, sizeof buf, 1200), 0, "an answer from a stopped physics");
        cr_assert_gt (sim_fixture_signal (&f, "physics", SIGCONT), 0);
        ssize_t n = sim_test_recv (f.fd, buf, sizeof buf, S_WAIT_MS);
        cr_assert_geq (n, 0, "the teleport got no answer after the stall");
    }
    enum { KILLS = 6 };
    for (int i = 0; i < KILLS; i++) {
        sim_msg_robot_tp_t tp;
        SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&tp.tr, -1.0 + 0.3 * i, 0.2);
        int64_t sent = sim_test_now_ms ();
        cr_assert_eq (sim_test_send (f.fd, f.proc.control_port, &cmd->base), 0);
        int old = sim_fixture_signal (&f, "physics", SIGKILL);
        cr_assert_gt (old, 0, "physics was not running, or did not die");
        cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, S_WAIT_MS), 0, "physics not restarted");
        int64_t back = sim_test_now_ms () - sent;
        uint8_t buf[4096];
        ssize_t n = sim_test_recv (f.fd, buf, sizeof buf, 8000);
        cr_assert_geq (n, 0, "kill %d: the teleport got no answer", i + 1);
        SimulatorResponse *r = simulator_response__unpack (NULL, (size_t) n, buf);
        cr_assert_not_null (r);
        cr_expect_eq (r->n_errors, 0,
                      "kill %d: the teleport was answered %s after %lld ms, physics back after %lld ms",
                      i + 1, r->n_errors && r->errors[0]->code ? r->errors[0]->code : "with an error",
                      (long long) (sim_test_now_ms () - sent), (long long) back);
        simulator_response__free_unpacked (r, NULL);
    }
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    uint64_t store[4096];
    s_ids_t ids = { store, 0, 4096, 0, 0 };
    phys_journal_header_t header;
    cr_assert_geq (phys_journal_read (files.journal, NULL, &header, s_collect_id, &ids), 0);
    cr_expect_geq (ids.n, KILLS + 1, "the journal holds %zu inputs for %d teleports", ids.n, KILLS + 1);
    cr_expect_eq (ids.gaps, 0, "the journal lacks inputs the run applied at %zu places", ids.gaps);
    size_t twice = 0;
    for (size_t i = 0; i < ids.n; i++)
        for (size_t j = i + 1; j < ids.n; j++)
            twice += ids.ids[i] == ids.ids[j];
    cr_expect_eq (twice, 0, "%zu of %zu inputs were applied twice", twice, ids.n);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* ---- one run per journal ----------------------------------------------- */

/* A teleport of blue 0 to (x, 0.2), answered without an error. */
static void
s_teleport (sim_fixture_t *f, double x)
{
    sim_msg_robot_tp_t tp;
    SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
    sim_msg_robot_xy (&tp.tr, x, 0.2);
    uint8_t buf[4096];
    ssize_t n = sim_test_request (f->fd, f->proc.control_port, &cmd->base, buf, sizeof buf, S_WAIT_MS);
    cr_assert_geq (n, 0, "the teleport to x %.1f got no answer", x);
}

/* Two runs given one --journal FILE (another --port-offset, another
   runtime directory): the second is refused at its start with exit code
   1 and a line naming FILE, as a second --record is (docs/journal.md,
   "One run per journal"); it used to rename its own journal over the
   first run's, which then wrote on to a file no longer at the name. The
   lock is the run's: the first run's physics, killed -9 and restarted by
   its launcher before the second run tries, still continues FILE, which
   after the run holds every teleport of it, numbered without a gap. */
Test (journal, a_second_run_with_the_same_journal_is_refused, .timeout = 120)
{
    s_files_t files;
    s_files (&files);
    const char *args[] = { "--journal", files.journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files.ini, SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    s_teleport (&f, -1.0);
    int old = sim_fixture_signal (&f, "physics", SIGKILL);
    cr_assert_gt (old, 0, "physics was not running, or did not die");
    cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, S_WAIT_MS), 0, "physics not restarted");
    s_teleport (&f, -0.5);

    const char *again[] = { "--journal", files.journal, "--duration", "3", NULL };
    sim_proc_t b;
    cr_assert_eq (sim_proc_start (&b, again, files.ini), 0);
    cr_assert_eq (sim_lab_wait_exit (b.pid, 30000), 0, "the second run did not end");
    int status = 0;
    cr_assert_eq (waitpid (b.pid, &status, 0), b.pid);
    b.pid = 0;
    char said[256];
    snprintf (said, sizeof said, "ssl-sim: --journal: another run journals to %s now", files.journal);
    bool refused = sim_lab_wait_text (b.log, said, 0) == 0;
    if (!refused)
        sim_proc_dump_log (&b);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 1, "the second run exited with status %d",
               status);
    cr_expect (refused, "the second run says which journal another run writes");
    sim_proc_cleanup (&b);

    s_teleport (&f, 0.5);
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
    uint64_t store[64];
    s_ids_t ids = { store, 0, 64, 0, 0 };
    phys_journal_header_t header;
    cr_assert_geq (phys_journal_read (files.journal, NULL, &header, s_collect_id, &ids), 0);
    cr_expect_eq (ids.n, 3, "the journal holds %zu inputs for the run's 3 teleports", ids.n);
    cr_expect_eq (ids.gaps, 0, "the journal lacks inputs the run applied at %zu places", ids.gaps);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* ---- a journal of another version -------------------------------------- */

static void
s_put_le (uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t) (v >> (8 * i));
}

/* A journal header of version 2 with a good checksum (docs/journal.md,
   "File format"): `ssl-sim replay` refuses it in one error that names
   both versions, not as "not a journal" with a damaged header. */
Test (journal, a_journal_of_another_version_is_refused_for_its_version, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-journal-XXXXXX", path[64], out[4096];
    cr_assert_not_null (mkdtemp (dir));
    snprintf (path, sizeof path, "%s/v2.journal", dir);
    size_t k = strlen (PHYS_REPLAY_KEY);
    uint8_t h[48 + 64 + 8] = { 0 };
    cr_assert_leq (k, 64);
    memcpy (h, "SSLSIMJL", 8);
    s_put_le (h + 8, 2, 4);
    s_put_le (h + 12, k, 4);
    s_put_le (h + 40, 1000000, 8);
    memcpy (h + 48, PHYS_REPLAY_KEY, k);
    s_put_le (h + 48 + k, sim_fnv1a (SIM_FNV1A_BASIS, h, 48 + k), 8);
    FILE *f = fopen (path, "wb");
    cr_assert_not_null (f);
    cr_assert_eq (fwrite (h, 1, 48 + k + 8, f), 48 + k + 8);
    fclose (f);
    int code = sim_lab_capture (out, sizeof out, "'%s' replay '%s' --no-viewer --localhost 2>&1",
                                sim_lab_exe (), path);
    cr_expect_eq (code, 1, "%s", out);
    const char *error = strstr (out, "ssl-sim: replay: ");
    cr_expect (error && strstr (error, "version 2") && strstr (error, "version 1"), "%s", out);
    cr_expect_null (strstr (out, "is not a journal"), "%s", out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* ---- a replay's page: the rate after a seek back, and --speed 0 ------- */

/* A default realtime run with --journal of some 3 s, a teleport in it. */
static void
s_short_run (s_files_t *files)
{
    s_files (files);
    const char *args[] = { "--journal", files->journal, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, files->ini, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0,
                  "ssl-sim did not come up");
    cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, -1.0, 0.5, S_WAIT_MS), 1);
    vision_t seen;
    memset (&seen, 0, sizeof seen);
    s_watch (f.vision, &seen, 3000); /* the run's length: sim time to replay */
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
}

/* `ssl-sim replay JOURNAL` with its page on a free loopback port (vision
   to another; `speed`, when not NULL, as --speed), its log in
   dir/replay.txt; a WebSocket to the page once the viewer serves. */
static pid_t
s_replay_page (const s_files_t *files, const char *speed, char *log, size_t len, sim_ws_t **ws,
               int page_after_ms)
{
    char vision[64], viewer[64];
    int viewer_port = sim_test_free_port ();
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    snprintf (viewer, sizeof viewer, "127.0.0.1:%d", viewer_port);
    snprintf (log, len, "%s/replay.txt", files->dir);
    const char *args[12] = { "replay", files->journal,  "--localhost", "--vision-addr",
                             vision,   "--viewer-addr", viewer };
    int n = 7;
    if (speed) {
        args[n++] = "--speed";
        args[n++] = speed;
    }
    args[n] = NULL;
    pid_t pid = sim_lab_spawn (args, files->dir, log, NULL);
    cr_assert_gt (pid, 0);
    cr_assert_eq (sim_lab_wait_text (log, "viewer on ", S_WAIT_MS), 0, "the replay's viewer did not start");
    if (page_after_ms > 0)
        usleep ((useconds_t) page_after_ms * 1000); /* a user who opens the page later */
    *ws = sim_ws_connect (viewer_port, "/ws");
    cr_assert_not_null (*ws, "no WebSocket on the replay's page");
    return pid;
}

/* The next status's timeline: its "player" time and whether it says
   paused; false when no status came within ms. */
static bool
s_timeline (sim_ws_t *ws, double *t, bool *paused, int ms)
{
    cJSON *st = sim_ws_wait (ws, "status", ms);
    const cJSON *player = st ? cJSON_GetObjectItemCaseSensitive (st, "player") : NULL;
    const cJSON *pt = player ? cJSON_GetObjectItemCaseSensitive (player, "t") : NULL;
    bool ok = cJSON_IsNumber (pt);
    if (ok) {
        *t = pt->valuedouble;
        *paused = cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (player, "paused"));
    }
    cJSON_Delete (st);
    return ok;
}

/* Statuses until the page's time passes `t`; false when it did not within ms. */
static bool
s_until_past (sim_ws_t *ws, double t, int ms)
{
    double now = 0;
    bool paused;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end)
        if (s_timeline (ws, &now, &paused, 1000) && now > t)
            return true;
    return false;
}

/* `--speed 0` means "starts paused" (the --help line): with the page the
   replay waits at its first instant until the page resumes it; with
   --no-viewer nothing could, so it is refused (docs/logs.md,
   "Replaying"). */
Test (journal, speed_0_starts_a_replay_paused_for_its_page_and_is_refused_without_one, .timeout = 120)
{
    s_files_t files;
    s_short_run (&files);
    char out[4096], log[300];
    int code = sim_lab_capture (out, sizeof out, "'%s' replay '%s' --speed 0 --no-viewer --localhost 2>&1",
                                sim_lab_exe (), files.journal);
    cr_expect_eq (code, 2, "%s", out);
    cr_expect (strstr (out, "--speed") && strstr (out, "--no-viewer"), "%s", out);

    sim_ws_t *ws;
    /* the page opens later than a pause with no page lasts once a page
       left (VW_ALONE_US, checked at physics' state once a second, +2.5 s):
       a replay started paused waits for its first page however long */
    pid_t pid = s_replay_page (&files, "0", log, sizeof log, &ws, VW_ALONE_US / 1000 + 2500);
    /* physics' timeline reaches the page with its Stats, once a second */
    double t = -1;
    bool paused = false;
    int64_t end = sim_test_now_ms () + S_WAIT_MS;
    while (!paused && sim_test_now_ms () < end)
        s_timeline (ws, &t, &paused, 1000);
    cr_expect (paused, "the page never said paused");
    cr_expect_lt (t, 0.01, "the replay ran to %.3f s before it paused", t);
    for (int i = 0; paused && i < 3; i++) {
        double later = t;
        cr_assert (s_timeline (ws, &later, &paused, 2000), "no status");
        cr_expect (paused && later == t, "the paused replay went on (%.3f -> %.3f s)", t, later);
    }
    cJSON *r = sim_ws_op (ws, 1, "\"op\":\"resume\"", S_WAIT_MS);
    cr_expect (sim_ws_ok (r), "resume refused");
    cJSON_Delete (r);
    cr_expect (s_until_past (ws, t + 0.2, S_WAIT_MS), "the replay did not go on after resume");
    sim_ws_destroy (&ws);
    int stopped = sim_lab_stop (pid);
    if (stopped != 0)
        sim_lab_dump (log);
    cr_expect_eq (stopped, 0);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* A replay's world is the journal's: an option that would shape another
   world (or a local one a replay has no use for) is named as changing
   nothing, once, and the replay goes on; the options a replay does take
   (where vision goes, its pace, --until) are not named (docs/logs.md,
   "Replaying"). */
Test (journal, a_replay_names_the_options_that_change_nothing, .timeout = 120)
{
    s_files_t files;
    s_short_run (&files);
    char out[8192];
    int code =
        sim_lab_capture (out, sizeof out,
                         "'%s' replay '%s' --no-viewer --localhost --vision-addr 127.0.0.1:%d --speed 4 "
                         "--until 0.2 --seed 5 --seed=6 --realism none --duration 9 2>&1",
                         sim_lab_exe (), files.journal, sim_test_free_port ());
    cr_expect_eq (code, 0, "%s", out);
    static const char *const named[] = { "--seed changes nothing", "--realism changes nothing",
                                         "--duration changes nothing" };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        cr_expect (strstr (out, named[i]), "no \"%s\" in:\n%s", named[i], out);
    const char *seed = strstr (out, "--seed changes");
    cr_expect (seed && !strstr (seed + 1, "--seed changes"), "--seed named twice:\n%s", out);
    static const char *const taken[] = { "--localhost changes", "--vision-addr changes", "--speed changes",
                                         "--until changes", "--no-viewer changes" };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        cr_expect_null (strstr (out, taken[i]), "%s named:\n%s", taken[i], out);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* Physics' status line after a seek back (what a restart at the end is
   too): the real-time factor is that of the time since the seek, not a
   difference of sim times that went back and wrapped. */
Test (journal, a_seek_back_keeps_the_real_time_factor_sane, .timeout = 120)
{
    s_files_t files;
    s_short_run (&files);
    char log[300];
    sim_ws_t *ws;
    pid_t pid = s_replay_page (&files, NULL, log, sizeof log, &ws, 0);
    cr_assert (s_until_past (ws, 2.2, S_WAIT_MS), "the replay did not reach 2.2 s");
    cJSON *r = sim_ws_op (ws, 1, "\"op\":\"seek\",\"t\":0.3", S_WAIT_MS);
    cr_expect (sim_ws_ok (r), "seek refused");
    cJSON_Delete (r);
    /* 1.5 s after the seek: a status line's window (1 s) holds it */
    cr_expect (s_until_past (ws, 1.8, S_WAIT_MS), "the replay did not go on after the seek");
    sim_ws_destroy (&ws);
    int stopped = sim_lab_stop (pid);
    cr_expect_eq (stopped, 0);
    FILE *f = fopen (log, "r");
    cr_assert_not_null (f);
    char line[1024];
    int lines = 0;
    while (fgets (line, sizeof line, f)) {
        const char *at = strstr (line, "| rtf ");
        if (!at)
            continue;
        double rtf = strtod (at + 6, NULL);
        lines++;
        cr_expect (rtf >= 0 && rtf < 100, "physics said %s", line);
    }
    fclose (f);
    cr_expect_geq (lines, 3, "%d status lines", lines);
    if (stopped != 0 || lines < 3)
        sim_lab_dump (log);
    sim_lab_sh ("rm -rf '%s'", files.dir);
}

/* ---- --record of the journal's name ------------------------------------ */

/* The FNV-1a of the whole file at `path` (0 when it cannot be read). */
static uint64_t
s_file_hash (const char *path)
{
    FILE *in = fopen (path, "rb");
    if (!in)
        return 0;
    uint64_t h = SIM_FNV1A_BASIS;
    uint8_t buf[65536];
    size_t n;
    while ((n = fread (buf, 1, sizeof buf, in)) > 0)
        h = sim_fnv1a (h, buf, n);
    fclose (in);
    return h;
}

/* --record given the name of the journal the run continues or the
   replay reads: refused at the start with exit code 1 and a line that
   says so, the journal as it was. A run with `--journal J.gz --record
   J.gz` used to remove the journal for its records and end with exit
   code 0, the journal gone; a plain name was refused as if another run
   recorded to it; a replay emptied the journal it was about to read. */
Test (journal, a_record_named_as_the_journal_is_refused_and_the_journal_kept, .timeout = 120)
{
    s_files_t files;
    s_short_run (&files);
    char gz[sizeof files.journal + 8];
    snprintf (gz, sizeof gz, "%s.gz", files.journal);
    cr_assert_eq (rename (files.journal, gz), 0);
    uint64_t before = s_file_hash (gz);
    cr_assert_neq (before, 0);

    /* fast and a second long, so that the old program, which ran, ends */
    const char *again[] = { "--journal", gz, "--record", gz, "--mode", "fast", "--duration", "1", NULL };
    sim_proc_t b;
    cr_assert_eq (sim_proc_start (&b, again, files.ini), 0);
    cr_assert_eq (sim_lab_wait_exit (b.pid, 60000), 0, "the run did not end");
    int status = 0;
    cr_assert_eq (waitpid (b.pid, &status, 0), b.pid);
    b.pid = 0;
    bool said = sim_lab_wait_text (b.log, "is this run's --journal", 0) == 0;
    if (!said)
        sim_proc_dump_log (&b);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 1, "the run exited with status %d", status);
    cr_expect (said, "the run says its --record is its --journal");
    sim_proc_cleanup (&b);
    cr_expect_eq (s_file_hash (gz), before, "the journal changed");

    char out[4096];
    int code = sim_lab_capture (out, sizeof out,
                                "'%s' replay '%s' --no-viewer --localhost --vision-addr 127.0.0.1:%d "
                                "--record '%s' 2>&1",
                                sim_lab_exe (), gz, sim_test_free_port (), gz);
    cr_expect_eq (code, 1, "%s", out);
    cr_expect (strstr (out, "is the journal this replay reads"), "%s", out);
    cr_expect_eq (s_file_hash (gz), before, "the replay changed its journal");
    sim_lab_sh ("rm -rf '%s'", files.dir);
}
