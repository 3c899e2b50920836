/*  test_restart.c - a restart loses nothing a client can see (issue 6).

    Each test runs a real four-process `ssl-sim run` on loopback, kills one
    service with SIGKILL (or restarts it with `ssl-sim restart`) while a
    client watches, and checks what the client sees before and after:
    vision continues its frame numbers from simulation time and re-sends
    geometry at once; physics resumes from its checkpoint with the robot
    where the client put it; gateway and legacy-grsim answer a client that
    retries its datagram. A service killed again and again comes back
    within the same short delay every time (issue 11). In a single-process
    simulator `ssl-sim restart` gives gateway, legacy-grsim and the viewer
    a new thread and refuses physics and vision with a reason and a
    non-zero exit; the simulator never stops (issue 23). A command in
    flight when physics is killed is applied and answered OK by the next
    physics, sent once by the client (issue 24).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define RESTART_WAIT_MS 10000

/* What one vision packet showed. */
typedef struct {
    bool valid, geometry, has_detection, robot_seen;
    uint32_t frame;
    double t_capture;
    double x, y; /* blue 0, m */
} seen_t;

static bool
s_read (int fd, seen_t *out, int timeout_ms)
{
    uint8_t buf[65536];
    memset (out, 0, sizeof *out);
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, timeout_ms);
    if (n <= 0)
        return false;
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (w, "a vision datagram that is not an SSL_WrapperPacket");
    out->valid = true;
    out->geometry = w->geometry != NULL;
    if (w->detection) {
        out->has_detection = true;
        out->frame = w->detection->frame_number;
        out->t_capture = w->detection->t_capture;
        for (size_t i = 0; i < w->detection->n_robots_blue; i++) {
            SSLDetectionRobot *r = w->detection->robots_blue[i];
            if (r->has_robot_id && r->robot_id == 0) {
                out->robot_seen = true;
                out->x = r->x / 1000.0;
                out->y = r->y / 1000.0;
            }
        }
    }
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return true;
}

/* Read packets for `ms`, keeping the last detection in *last (and the
   first in *first when given). Returns how many detections came. */
static int
s_watch (int fd, int ms, seen_t *first, seen_t *last)
{
    int count = 0;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        seen_t s;
        if (!s_read (fd, &s, 20) || !s.has_detection)
            continue;
        if (count++ == 0 && first)
            *first = s;
        *last = s;
    }
    return count;
}

static void
s_drain (int fd)
{
    seen_t s;
    while (s_read (fd, &s, 0))
        ;
}

/* [vision] timestamp_base = zero: t_capture is then sim time. A test
   that measures the sim time a physics restart lost needs it, since the
   default Unix stamps are re-based onto the wall clock when physics
   starts again, which would hide any loss (docs/vision.md). */
#define S_SIM_TIME_STAMPS "[vision]\ntimestamp_base = zero\n"

/* Start with the defaults a user gets, and `extra_ini` (NULL: none). */
static void
s_start (sim_fixture_t *f, const char *extra_ini)
{
    static const char *const args[] = { "--realism", "none", "--cameras", "1", NULL };
    /* vision flowing and every service's pid file written */
    cr_assert_eq (sim_fixture_start (f, args, extra_ini, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
}

static void
s_stop (sim_fixture_t *f)
{
    cr_expect_eq (sim_fixture_stop (f), 0, "ssl-sim did not stop cleanly");
}

/* The sim time physics skipped in stalls so far, s: the sum of its log's
   "skipped X s of sim time" warnings. A realtime clock that falls behind
   by more than it catches up drops the rest, and the default Unix stamps
   jump over what was dropped to stay on the wall clock, where frame
   numbers follow sim time (docs/vision.md, "Timestamps on the wire"): a
   frame number read off the stamps runs ahead of the real one by that
   much, and by nothing on a machine that did not stall. */
static double
s_skipped_s (const sim_proc_t *p)
{
    FILE *f = fopen (p->log, "r");
    if (!f)
        return 0;
    double sum = 0;
    char line[1024];
    while (fgets (line, sizeof line, f)) {
        const char *at = strstr (line, "skipped ");
        double s;
        if (at && strstr (line, "of sim time") && sscanf (at, "skipped %lfs", &s) == 1 && s > 0)
            sum += s;
    }
    fclose (f);
    return sum;
}

/* The sim time between two frames of a camera, s: the default rig's
   rate (73.3 Hz; its cameras share it). Taken from the configuration, not
   from the stamps of two packets: a stall between them would make their
   stamps part by the time it dropped too, and the period look longer. */
static double
s_frame_period (void)
{
    static sim_config_t cfg; /* large */
    sim_config_defaults (&cfg);
    return 1.0 / cfg.vision.frame_rate;
}

/* SIGKILL service `name` and wait until it is gone. Returns its pid. */
static int
s_kill9 (sim_fixture_t *f, const char *name)
{
    int pid = sim_fixture_signal (f, name, SIGKILL);
    cr_assert_gt (pid, 0, "%s was not running, or did not die", name);
    return pid;
}

Test (restart, vision_kill9_continues_frames_and_resends_geometry, .timeout = 60)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int vision = f.vision;
    seen_t a, b;
    cr_assert_gt (s_watch (vision, 1000, &a, &b), 10, "vision too slow before the kill");
    cr_assert_gt (b.frame, a.frame);
    double period = s_frame_period ();

    int old = s_kill9 (&f, "vision");
    /* what the old one sent before it died (the launcher waits 100 ms
       before it starts a new one) */
    s_drain (vision);
    cr_assert_gt (sim_fixture_wait_service (&f, "vision", old, RESTART_WAIT_MS), 0,
                  "vision was not restarted");
    seen_t first = { 0 }, last = { 0 };
    int n = s_watch (vision, 1500, &first, &last);
    if (n == 0)
        sim_proc_dump_log (&f.proc);
    cr_assert_gt (n, 10, "no vision after the restart");
    cr_expect (first.geometry, "the first packet after the restart must carry geometry");
    cr_expect_gt (first.t_capture, b.t_capture);
    /* frame numbers follow simulation time as if vision had never died;
       the stamps also count any sim time a stall dropped */
    double expect = (double) b.frame + (first.t_capture - b.t_capture) / period;
    double skipped = s_skipped_s (&f.proc) / period;
    cr_expect (first.frame < expect + 1.01 && first.frame > expect - skipped - 1.01,
               "frame %u after the restart, %.1f expected from the stamps (less %.2f frames a stall dropped)",
               first.frame, expect, skipped);
    cr_expect_gt (first.frame, b.frame);
    s_stop (&f);
}

/* The newest truth packet within `ms`: its frame number and timestamp;
   false when none came. */
static bool
s_watch_truth (int fd, int ms, uint32_t *frame, double *t)
{
    bool any = false;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        uint32_t f;
        double at;
        int rc = sim_test_truth (fd, 20, &f, &at);
        cr_assert_geq (rc, 0, "the truth port got something that is not a TrackerWrapperPacket");
        if (rc == 0 || (any && f <= *frame))
            continue;
        *frame = f;
        *t = at;
        any = true;
    }
    return any;
}

/* The ground-truth stream (--truth, the rest as a user starts it) goes on
   numbering by the cameras' periods across a vision restart, as detection
   frames do: a tool that orders or joins truth by frame number sees no
   jump back to 0 (docs/vision.md). */
Test (restart, vision_kill9_continues_truth_frame_numbers, .timeout = 60)
{
    static const char *const args[] = { "--truth", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    int truth = sim_fixture_socket (&f, f.proc.truth_port);
    cr_assert (truth >= 0);
    uint32_t before = 0, after = 0;
    double t_before = 0, t_after = 0;
    cr_assert (s_watch_truth (truth, 1000, &before, &t_before), "no truth before the kill");
    int old = s_kill9 (&f, "vision");
    sim_test_drain (truth);
    cr_assert_gt (sim_fixture_wait_service (&f, "vision", old, RESTART_WAIT_MS), 0,
                  "vision was not restarted");
    /* the first packets of the new vision */
    int64_t end = sim_test_now_ms () + 1500;
    bool got = false;
    while (!got && sim_test_now_ms () < end)
        got = s_watch_truth (truth, 50, &after, &t_after);
    cr_assert (got, "no truth after the restart");
    /* one packet a period of the 73.3 Hz rig: its number follows the
       sim time (timestamps step by sim time, and over any a stall
       dropped) */
    double expect = (double) before + (t_after - t_before) / s_frame_period ();
    double skipped = s_skipped_s (&f.proc) / s_frame_period ();
    cr_log_info ("truth frame %u before the kill, %u after (%.2f from the timestamps, %.2f frames skipped)",
                 before, after, expect, skipped);
    cr_expect_gt (after, before, "truth frame %u after the restart, %u before", after, before);
    cr_expect (after < expect + 0.5 && after > expect - skipped - 0.5,
               "truth frame %u after the restart, %.2f expected from the stamps (less %.2f frames a stall "
               "dropped)",
               after, expect, skipped);
    s_stop (&f);
}

Test (restart, physics_kill9_resumes_from_checkpoint, .timeout = 60)
{
    sim_fixture_t f;
    s_start (&f, S_SIM_TIME_STAMPS); /* it measures the sim time lost */
    int vision = f.vision, fd = f.fd;
    cr_assert (sim_test_teleport_blue0 (fd, f.proc.control_port, -1.0, 0.5, 5000) == 1,
               "no answer to the teleport");
    cr_assert (sim_test_sees_blue0 (vision, -1.0, 0.5, 5000), "vision never showed the teleport");
    /* let a checkpoint period pass, so the teleport is in a checkpoint */
    seen_t before;
    s_watch (vision, 1500, NULL, &before);

    int old = s_kill9 (&f, "physics");
    s_drain (vision);
    cr_assert_gt (sim_fixture_wait_service (&f, "physics", old, RESTART_WAIT_MS), 0,
                  "physics was not restarted");
    seen_t first = { 0 }, last = { 0 };
    int n = s_watch (vision, 1500, &first, &last);
    if (n == 0)
        sim_proc_dump_log (&f.proc);
    cr_assert_gt (n, 10, "no vision after physics restarted");
    /* at most one checkpoint period (1 s of wall = sim time here) lost */
    cr_expect_gt (first.t_capture, before.t_capture - 1.3, "resumed at %.3f, last seen %.3f", first.t_capture,
                  before.t_capture);
    cr_expect_gt (last.t_capture, before.t_capture, "simulation time did not go on");
    cr_expect (last.robot_seen && fabs (last.x + 1.0) < 0.01 && fabs (last.y - 0.5) < 0.01,
               "blue 0 not where the client put it after the restart: (%.3f, %.3f)", last.x, last.y);
    s_stop (&f);
}

Test (restart, gateway_kill9_retried_datagram_is_answered, .timeout = 60)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int vision = f.vision, fd = f.fd;
    cr_assert (sim_test_teleport_blue0 (fd, f.proc.control_port, -1.0, 0.5, 5000) == 1,
               "no answer before the kill");
    int old = s_kill9 (&f, "gateway");
    /* the client knows nothing of the restart: it just retries */
    cr_expect (sim_test_teleport_blue0 (fd, f.proc.control_port, 1.0, -0.5, RESTART_WAIT_MS) == 1,
               "no answer after the gateway restart");
    cr_expect_gt (sim_fixture_wait_service (&f, "gateway", old, RESTART_WAIT_MS), 0);
    cr_expect (sim_test_sees_blue0 (vision, 1.0, -0.5, 5000), "the retried teleport did not apply");
    s_stop (&f);
}

Test (restart, legacy_kill9_retried_packet_applies, .timeout = 60)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int vision = f.vision, fd = f.fd;
    int old = s_kill9 (&f, "legacy-grsim");
    bool moved = false;
    int64_t end = sim_test_now_ms () + RESTART_WAIT_MS;
    while (!moved && sim_test_now_ms () < end) {
        sim_test_grsim_place (fd, f.proc.legacy_port, false, 0, 0.7, 0.3, 0, -1);
        moved = sim_test_sees_blue0 (vision, 0.7, 0.3, 200);
    }
    cr_expect (moved, "a grSim replacement retried through the restart never applied");
    cr_expect_gt (sim_fixture_wait_service (&f, "legacy-grsim", old, RESTART_WAIT_MS), 0);
    s_stop (&f);
}

/* Run `ssl-sim ARGS --config DIR/test.ini` against the test's simulator;
   its output goes to `out`. Returns the exit code. */
static int
s_cli (const sim_proc_t *proc, const char *args, char *out, size_t cap)
{
    return sim_lab_capture (out, cap, "XDG_RUNTIME_DIR='%s' '%s' %s --config '%s/test.ini' 2>&1", proc->dir,
                            sim_lab_exe (), args, proc->dir);
}

/* A run started with --no-viewer --no-legacy-grsim, and `status` asked
   with the run's configuration but without those flags, as a user types
   it from another shell: the run says which services it started, so
   status lists those and exits 0, and restarting one left out says so. */
Test (restart, status_knows_the_services_a_run_left_out, .timeout = 60)
{
    /* the defaults a user meets, but for the two flags under test */
    static const char *const args[] = { "--no-viewer", "--no-legacy-grsim", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    char out[8192];
    int code = s_cli (&f.proc, "status", out, sizeof out);
    cr_expect_eq (code, 0, "ssl-sim status: exit %d\n%s", code, out);
    cr_expect (strstr (out, "physics ") && strstr (out, "vision ") && strstr (out, "gateway "), "%s", out);
    cr_expect (!strstr (out, "legacy-grsim ") && !strstr (out, "\nviewer ") && !strstr (out, "not running"),
               "status lists a service the run left out:\n%s", out);
    code = s_cli (&f.proc, "restart viewer", out, sizeof out);
    cr_expect_eq (code, 1, "restart viewer: exit %d\n%s", code, out);
    cr_expect (strstr (out, "started without it"), "%s", out);
    s_stop (&f);
}

Test (restart, cli_status_and_restart_physics_loses_nothing, .timeout = 60)
{
    sim_fixture_t f;
    s_start (&f, S_SIM_TIME_STAMPS); /* it measures the sim time lost */
    int vision = f.vision, fd = f.fd;
    char out[8192];
    int code = s_cli (&f.proc, "status", out, sizeof out);
    cr_expect_eq (code, 0, "ssl-sim status: exit %d\n%s", code, out);
    const char *names[] = { "physics ", "vision ", "gateway ", "legacy-grsim " };
    for (int i = 0; i < 4; i++)
        cr_expect (strstr (out, names[i]), "status does not list %s:\n%s", names[i], out);
    cr_expect (strstr (out, "rtf "), "status shows no physics rate:\n%s", out);
    cr_expect (strstr (out, "packets/s"), "status shows no vision rate:\n%s", out);

    cr_assert (sim_test_teleport_blue0 (fd, f.proc.control_port, -1.5, 1.0, 5000) == 1);
    cr_assert (sim_test_sees_blue0 (vision, -1.5, 1.0, 5000));
    seen_t before;
    s_watch (vision, 300, NULL, &before);
    code = s_cli (&f.proc, "restart physics", out, sizeof out);
    cr_expect_eq (code, 0, "ssl-sim restart physics: exit %d\n%s", code, out);
    cr_expect (strstr (out, "physics restarted"), "%s", out);
    seen_t first = { 0 }, last = { 0 };
    cr_assert_gt (s_watch (vision, 1000, &first, &last), 10);
    /* SIGTERM writes a checkpoint on the way out: time goes on from where
       it was (vision's last frame is at most one period behind physics) */
    cr_expect_gt (first.t_capture, before.t_capture - 0.02, "resumed at %.3f, last seen %.3f",
                  first.t_capture, before.t_capture);
    cr_expect (last.robot_seen && fabs (last.x + 1.5) < 0.01 && fabs (last.y - 1.0) < 0.01,
               "blue 0 moved by the restart: (%.3f, %.3f)", last.x, last.y);

    code = s_cli (&f.proc, "restart nosuch", out, sizeof out);
    cr_expect_eq (code, 2, "an unknown service must be refused");
    s_stop (&f);
}

/* ---- repeated kills: back at once, every time (issue 11) ----------------- */

#define KILL_ROUNDS 10
/* The target (docs/operations.md): back within 0.5 s. One kill may meet a
   loaded machine's scheduling stall (seen: 1.5 s once in CI's share of
   two cores); the median of ten does not. */
#define BACK_MS 500

static int
s_cmp_ms (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* SIGKILL `name` KILL_ROUNDS times, each time as soon as its successor is
   up (its pid file is written once the service reported ready); ms[i]
   gets the time from the kill to the successor's pid file. */
static void
s_kill_loop (sim_fixture_t *f, const char *name, double *ms)
{
    for (int i = 0; i < KILL_ROUNDS; i++) {
        int64_t t0 = sim_test_now_ms ();
        int old = s_kill9 (f, name);
        int now = sim_fixture_wait_service (f, name, old, RESTART_WAIT_MS);
        ms[i] = (double) (sim_test_now_ms () - t0);
        if (now <= 0)
            sim_proc_dump_log (&f->proc);
        cr_assert_gt (now, 0, "%s was not restarted after kill %d", name, i + 1);
    }
    qsort (ms, KILL_ROUNDS, sizeof *ms, s_cmp_ms);
    double median = (ms[KILL_ROUNDS / 2 - 1] + ms[KILL_ROUNDS / 2]) / 2;
    fprintf (stderr, "restart: %s killed %d times: back after median %.0f ms, max %.0f ms\n", name,
             KILL_ROUNDS, median, ms[KILL_ROUNDS - 1]);
    cr_expect_leq (median, BACK_MS, "%s: back after median %.0f ms of %d kills (max %.0f ms)", name, median,
                   KILL_ROUNDS, ms[KILL_ROUNDS - 1]);
}

Test (restart, repeated_kill9_is_back_at_once_every_time, .timeout = 120)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int vision = f.vision, fd = f.fd;
    static const char *const names[] = { "physics", "vision", "gateway", "legacy-grsim" };
    for (int n = 0; n < 4; n++) {
        double ms[KILL_ROUNDS];
        s_kill_loop (&f, names[n], ms);
    }
    /* and the simulator still works as a whole: nothing gave up */
    cr_expect (sim_test_teleport_blue0 (fd, f.proc.control_port, 0.4, -0.6, 5000) == 1,
               "no answer after the kills");
    cr_expect (sim_test_sees_blue0 (vision, 0.4, -0.6, 5000), "the teleport after the kills did not show");
    s_stop (&f);
}

/* ---- a command in flight when physics dies (issue 24) ------------------- */

#define INFLIGHT_ROUNDS 20

/* Teleport blue 0 to (x, y) with one datagram: no retry. */
static void
s_send_teleport (int fd, int port, double x, double y)
{
    sim_msg_robot_tp_t tp;
    SimulatorCommand *cmd = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
    sim_msg_robot_xy (&tp.tr, x, y);
    tp.tr.has_orientation = tp.tr.has_v_x = tp.tr.has_v_y = tp.tr.has_v_angular = true;
    cr_assert_eq (sim_test_send (fd, port, &cmd->base), 0);
}

/* The one answer to it within ms: 1 for OK, 0 for an error (its code in
   code), -1 for none. */
static int
s_answer (int fd, int ms, char *code, size_t code_len)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, ms);
    if (n < 0)
        return -1;
    SimulatorResponse *resp = simulator_response__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (resp, "an answer that is not a SimulatorResponse");
    int ok = resp->n_errors == 0;
    snprintf (code, code_len, "%s", ok || !resp->errors[0]->code ? "" : resp->errors[0]->code);
    simulator_response__free_unpacked (resp, NULL);
    return ok;
}

/* A teleport sent just before physics is killed -9, its datagram sent
   once: the gateway hands it to the next physics, which applies it
   unless the killed one did (and never twice), and the client gets OK and
   sees the robot there. Every round: one answer, OK, and visible; none
   UNAVAILABLE though physics was back within [bus] sync_timeout. The
   defaults but for s_start's --realism none and one camera: the check
   that the robot is where the teleport put it is within 1 cm, which
   vision's noise would break. */
Test (restart, physics_kill9_with_a_command_in_flight_answers_and_applies_it, .timeout = 300)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int vision = f.vision, fd = f.fd;
    int ok = 0, missing = 0, unavailable = 0;
    for (int i = 0; i < INFLIGHT_ROUNDS; i++) {
        double x = -2.0 + 0.2 * i, y = (i % 2 ? 0.5 : -0.5);
        /* the answer to the round before is in: nothing else is on its way */
        int64_t t0 = sim_test_now_ms ();
        int old = sim_fixture_service_pid (&f, "physics");
        cr_assert_gt (old, 0);
        s_send_teleport (fd, f.proc.control_port, x, y);
        s_kill9 (&f, "physics");
        int64_t killed = sim_test_now_ms ();
        int now = sim_fixture_wait_service (&f, "physics", old, RESTART_WAIT_MS);
        int64_t back_ms = sim_test_now_ms () - killed;
        cr_assert_gt (now, 0, "physics was not restarted after kill %d", i + 1);
        /* the gateway gives up after 4 s (UNAVAILABLE): wait longer */
        char code[64] = "";
        int answer = s_answer (fd, 8000, code, sizeof code);
        int64_t answered_ms = sim_test_now_ms () - t0;
        cr_expect_eq (answer, 1, "kill %d: answer %d (%s) after %lld ms, physics back after %lld ms", i + 1,
                      answer, code, (long long) answered_ms, (long long) back_ms);
        if (answer == 0 && strcmp (code, "UNAVAILABLE") == 0)
            unavailable++;
        if (answer == 1) {
            ok++;
            s_drain (vision);
            bool seen = sim_test_sees_blue0 (vision, x, y, 5000);
            cr_expect (seen, "kill %d: answered OK, but blue 0 never showed at (%.1f, %.1f)", i + 1, x, y);
            missing += !seen;
        }
    }
    fprintf (stderr,
             "restart: %d commands in flight at a physics kill: %d OK, %d UNAVAILABLE, %d OK but missing\n",
             INFLIGHT_ROUNDS, ok, unavailable, missing);
    s_stop (&f);
}

/* A teleport sent to a physics that hangs (SIGSTOP) and is then killed
   -9 after the gateway's last scheduled hand-over (2.25 s after it came
   in): every copy went to the hung process and died with it. The new
   physics is back well before the gateway's 4 s limit, and the gateway
   hands the command over when it hears from it (its configuration), so
   the client gets OK and the robot moves, not UNAVAILABLE. */
Test (restart, physics_back_after_the_last_hand_over_still_gets_the_command, .timeout = 120)
{
    sim_fixture_t f;
    s_start (&f, NULL);
    int stopped = sim_fixture_signal (&f, "physics", SIGSTOP);
    cr_assert_gt (stopped, 0);
    cr_assert_eq (sim_lab_wait_stopped (stopped, 2000), 0, "physics did not stop");
    int64_t t0 = sim_test_now_ms ();
    s_send_teleport (f.fd, f.proc.control_port, 1.3, -0.7);
    char code[64] = "";
    /* past the last hand-over: nothing can answer a hung physics' command */
    cr_assert_eq (s_answer (f.fd, 2400, code, sizeof code), -1, "an answer (%s) from a hung physics", code);
    s_kill9 (&f, "physics");
    int now = sim_fixture_wait_service (&f, "physics", stopped, RESTART_WAIT_MS);
    int64_t back_ms = sim_test_now_ms () - t0;
    cr_assert_gt (now, 0, "physics was not restarted");
    int answer = s_answer (f.fd, 8000, code, sizeof code);
    cr_expect_eq (answer, 1, "answer %d (%s) after %lld ms, physics back after %lld ms", answer, code,
                  (long long) (sim_test_now_ms () - t0), (long long) back_ms);
    if (answer == 1) {
        s_drain (f.vision);
        cr_expect (sim_test_sees_blue0 (f.vision, 1.3, -0.7, 5000), "answered OK, but blue 0 never moved");
    }
    s_stop (&f);
}

/* ---- single-process: a new thread, or a clear refusal (issue 23) -------- */

/* A user's single-process simulator: --single-process and nothing else
   beyond the fixture's private runtime directory and loopback ports (and
   its unicast vision to the test's 127.0.0.1 socket). */
static void
s_start_single (sim_fixture_t *f)
{
    static const char *const args[] = { "--single-process", NULL };
    cr_assert_eq (sim_fixture_start (f, args, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim --single-process did not come up");
}

Test (restart, single_process_restart_gateway_is_a_new_thread_and_physics_is_refused, .timeout = 60)
{
    sim_fixture_t f;
    s_start_single (&f);
    int vision = f.vision, fd = f.fd;
    int pid = sim_fixture_service_pid (&f, "gateway");
    cr_assert_gt (pid, 0);
    char out[8192];
    int code = s_cli (&f.proc, "restart gateway", out, sizeof out);
    cr_expect_eq (code, 0, "ssl-sim restart gateway: exit %d\n%s", code, out);
    cr_expect (strstr (out, "gateway restarted"), "%s", out);
    /* the new gateway thread answers and its command reaches physics */
    cr_expect (sim_test_teleport_blue0 (fd, f.proc.control_port, -0.8, 0.4, 5000) == 1,
               "no answer from the restarted gateway");
    cr_expect (sim_test_sees_blue0 (vision, -0.8, 0.4, 5000), "the teleport after the restart did not apply");

    /* two operators at once: two requests, two new threads (a second
       plain signal would merge into the first) */
    code = sim_lab_capture (out, sizeof out,
                            "export XDG_RUNTIME_DIR='%s'; (ssl() { '%s' \"$@\" --config '%s/test.ini'; }; "
                            "ssl restart legacy-grsim & ssl restart viewer & wait %%1; a=$?; wait %%2; b=$?; "
                            "echo \"codes $a $b\") 2>&1",
                            f.proc.dir, sim_lab_exe (), f.proc.dir);
    cr_expect (strstr (out, "codes 0 0") && strstr (out, "legacy-grsim restarted")
                   && strstr (out, "viewer restarted"),
               "two restarts at once:\n%s", out);
    cr_expect (sim_test_teleport_blue0 (fd, f.proc.control_port, 0.6, -0.2, 5000) == 1);
    cr_expect (sim_test_sees_blue0 (vision, 0.6, -0.2, 5000), "the simulator does not work after them");

    static const char *const refused[] = { "physics", "vision" };
    for (int i = 0; i < 2; i++) {
        char cmd[64];
        snprintf (cmd, sizeof cmd, "restart %s", refused[i]);
        code = s_cli (&f.proc, cmd, out, sizeof out);
        cr_expect_eq (code, 1, "ssl-sim %s on a single-process simulator: exit %d\n%s", cmd, code, out);
        cr_expect (strstr (out, "cannot restart alone") && strstr (out, "Nothing was stopped"),
                   "the refusal does not say why:\n%s", out);
    }
    /* nothing stopped: the same process serves, vision flows, status is 0 */
    cr_expect_eq (sim_fixture_service_pid (&f, "physics"), pid, "the simulator was replaced or stopped");
    seen_t a, b;
    cr_expect_gt (s_watch (vision, 500, &a, &b), 10, "vision stopped after the refused restarts");
    code = s_cli (&f.proc, "status", out, sizeof out);
    cr_expect_eq (code, 0, "ssl-sim status after the restarts: exit %d\n%s", code, out);
    s_stop (&f);
}
