/*  test_league.c - what the league's own tools need from ssl-sim (issue
    13), seen the way those tools see it: Unix timestamps in realtime that
    stay on the wall clock after a stall, the geometry fields they draw
    with, a truth source id per instance, --localhost vision that every
    local program gets (two listeners of the port and a group member), and
    geometry while paused.

    Every test runs with the defaults a user gets (the fixture sets only
    free ports and loopback binds, sim_test.h). The test
    of a member joined on the default interface runs in a network
    namespace it makes (root; skipped elsewhere), since such a join
    would otherwise touch the machine's real network card.
*/
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#define S_GROUP "224.5.23.2"

static double
s_unix_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* One wrapper packet within ms, or NULL. Free with ..._free_unpacked. */
static SSLWrapperPacket *
s_wrapper (int fd, int ms)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, ms);
    return n > 0 ? ssl__wrapper_packet__unpack (NULL, (size_t) n, buf) : NULL;
}

static int
s_compare (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The median of (arrival wall time - t_capture) over the detections of
   ms; NAN when fewer than 10 came. */
static double
s_median_lag (int fd, int ms)
{
    double lag[4096];
    int n = 0;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end && n < 4096) {
        SSLWrapperPacket *w = s_wrapper (fd, 20);
        if (!w)
            continue;
        if (w->detection)
            lag[n++] = s_unix_now () - w->detection->t_capture;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    if (n < 10)
        return NAN;
    qsort (lag, (size_t) n, sizeof lag[0], s_compare);
    return lag[n / 2];
}

/* Wait up to ms for `text` in the simulator's log. */
static bool
s_log_says (const sim_fixture_t *f, const char *text, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    do {
        char out[1 << 16];
        if (sim_lab_capture (out, sizeof out, "cat '%s'", f->proc.log) >= 0 && strstr (out, text))
            return true;
        sim_test_recv (f->fd, out, sizeof out, 50); /* a bounded wait, nothing expected */
    } while (sim_test_now_ms () < end);
    return false;
}

/* Datagrams on each of fds[n] during ms. */
static void
s_count (const int *fds, int n, int ms, int *counts)
{
    memset (counts, 0, sizeof *counts * (size_t) n);
    int64_t end = sim_test_now_ms () + ms;
    uint8_t buf[65536];
    while (sim_test_now_ms () < end)
        for (int i = 0; i < n; i++)
            while (sim_test_recv (fds[i], buf, sizeof buf, i == 0 ? 5 : 0) > 0)
                counts[i]++;
}

/* ---- timestamps -------------------------------------------------------- */

Test (league, realtime_timestamps_are_unix_time, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { "--truth", NULL };
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION), 0);
    int truth = sim_fixture_socket (&f, f.proc.truth_port);
    cr_assert (truth >= 0);
    int seen = 0;
    for (int i = 0; i < 200 && seen < 20; i++) {
        SSLWrapperPacket *w = s_wrapper (f.vision, 100);
        if (!w)
            continue;
        if (w->detection) {
            double now = s_unix_now ();
            cr_expect (fabs (now - w->detection->t_capture) < 1.0,
                       "t_capture %.3f is not within 1 s of the clock %.3f", w->detection->t_capture, now);
            cr_expect (fabs (now - w->detection->t_sent) < 1.0, "t_sent %.3f, clock %.3f",
                       w->detection->t_sent, now);
            seen++;
        }
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_expect_eq (seen, 20, "only %d detections", seen);
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (truth, buf, sizeof buf, 2000);
    cr_assert_gt (n, 0, "no truth packet");
    TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert (t && t->tracked_frame);
    double now = s_unix_now ();
    cr_expect (fabs (now - t->tracked_frame->timestamp) < 1.0, "truth timestamp %.3f, clock %.3f",
               t->tracked_frame->timestamp, now);
    tracker_wrapper_packet__free_unpacked (t, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (league, fast_mode_timestamps_count_from_zero, .timeout = 60)
{
    /* auto keeps fast and sync runs byte-identical: stamps are sim time */
    sim_fixture_t f;
    const char *args[] = { "--mode", "fast", NULL };
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION), 0);
    SSLWrapperPacket *w = NULL;
    for (int i = 0; i < 50 && !(w && w->detection); i++) {
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        w = s_wrapper (f.vision, 100);
    }
    cr_assert (w && w->detection, "no detection in fast mode");
    cr_expect_lt (w->detection->t_capture, 1e6, "fast mode stamped %.3f", w->detection->t_capture);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (league, after_a_stall_t_capture_is_back_on_the_clock, .timeout = 90)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0);
    double before = s_median_lag (f.vision, 1000);
    cr_assert (isfinite (before), "no vision before the stall");
    /* the host stalls physics for 2 s (catch-up is capped at 250 ms) */
    cr_assert_gt (sim_fixture_signal (&f, "physics", SIGSTOP), 0);
    int seen;
    s_count (&f.vision, 1, 2000, &seen);
    cr_assert_gt (sim_fixture_signal (&f, "physics", SIGCONT), 0);
    s_median_lag (f.vision, 500); /* the catch-up burst */
    double after = s_median_lag (f.vision, 1000);
    cr_assert (isfinite (after), "no vision after the stall");
    cr_log_info ("arrival - t_capture: %.4f s before the stall, %.4f s after", before, after);
    /* without the re-base the stamps would be 1.75 s behind from now on */
    cr_expect (fabs (after - before) < 0.05,
               "t_capture lags the clock by %.3f s after the stall, %.3f s before", after, before);
    cr_expect (s_log_says (&f, "skipped", 3000), "the log does not say what the stall skipped");
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- geometry ------------------------------------------------------------ */

Test (league, geometry_carries_the_league_fields, .timeout = 60)
{
    sim_fixture_t f;
    const char *ini = "[field]\nboundary_width_goal_line = 0.45\ngoal_center_to_penalty_mark = 7.5\n"
                      "goal_substitution_area_width = 0.35\n";
    cr_assert_eq (sim_fixture_start (&f, NULL, ini, SIM_FIXTURE_VISION), 0);
    SSLWrapperPacket *w = NULL;
    int64_t end = sim_test_now_ms () + 4000;
    while (sim_test_now_ms () < end && !(w && w->geometry)) {
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        w = s_wrapper (f.vision, 100);
    }
    cr_assert (w && w->geometry && w->geometry->field, "no geometry within 4 s");
    SSLGeometryFieldSize *fs = w->geometry->field;
    cr_expect (fs->has_boundary_width_goal_line && fs->boundary_width_goal_line == 450, "%d",
               fs->boundary_width_goal_line);
    cr_expect (fs->has_goal_center_to_penalty_mark && fs->goal_center_to_penalty_mark == 7500, "%d",
               fs->goal_center_to_penalty_mark);
    cr_expect (fs->has_goal_substitution_area_width && fs->goal_substitution_area_width == 350, "%d",
               fs->goal_substitution_area_width);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- truth source id ------------------------------------------------------ */

/* The uuid of the next truth packet (after what is queued) into out. */
static bool
s_truth_uuid (int fd, char *out, size_t len)
{
    sim_test_drain (fd);
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, 3000);
    if (n <= 0)
        return false;
    TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, (size_t) n, buf);
    if (!t)
        return false;
    snprintf (out, len, "%s", t->uuid);
    tracker_wrapper_packet__free_unpacked (t, NULL);
    return true;
}

Test (league, truth_uuid_per_instance_and_kept_across_a_vision_restart, .timeout = 90)
{
    sim_fixture_t a, b;
    const char *args[] = { "--truth", NULL };
    cr_assert_eq (sim_fixture_start (&a, args, NULL, SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0);
    cr_assert_eq (sim_fixture_start (&b, args, NULL, SIM_FIXTURE_VISION), 0);
    int ta = sim_fixture_socket (&a, a.proc.truth_port), tb = sim_fixture_socket (&b, b.proc.truth_port);
    cr_assert (ta >= 0 && tb >= 0);
    char ua[64], ub[64], again[64];
    cr_assert (s_truth_uuid (ta, ua, sizeof ua) && s_truth_uuid (tb, ub, sizeof ub), "no truth");
    cr_expect_str_neq (ua, ub, "two simulators on one machine share the truth uuid %s", ua);

    int old = sim_fixture_service_pid (&a, "vision");
    char out[8192];
    int code = sim_lab_capture (out, sizeof out,
                                "XDG_RUNTIME_DIR='%s' '%s' restart vision --config '%s/test.ini' 2>&1",
                                a.proc.dir, sim_lab_exe (), a.proc.dir);
    cr_expect_eq (code, 0, "ssl-sim restart vision: exit %d\n%s", code, out);
    cr_assert_gt (sim_fixture_wait_service (&a, "vision", old, 10000), 0, "vision was not restarted");
    cr_assert (s_truth_uuid (ta, again, sizeof again), "no truth after the restart");
    cr_expect_str_eq (again, ua, "the restarted vision changed the truth uuid");
    cr_expect_eq (sim_fixture_stop (&b), 0);
    cr_expect_eq (sim_fixture_stop (&a), 0);
}

/* ---- local vision for several programs ----------------------------------- */

/* A program listening on the group's port the usual way: SO_REUSEADDR,
   bound to the group address and port (so only group datagrams reach
   it), a member of the group on the loopback interface when `join`. */
static int
s_group_listener (sim_fixture_t *f, int port, bool join)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, S_GROUP, &addr.sin_addr);
    struct ip_mreq mreq;
    inet_pton (AF_INET, S_GROUP, &mreq.imr_multiaddr);
    mreq.imr_interface.s_addr = htonl (INADDR_LOOPBACK);
    if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one)
        || bind (fd, (struct sockaddr *) &addr, sizeof addr)
        || (join && setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq))) {
        close (fd);
        return -1;
    }
    if (f->socket_count < SIM_FIXTURE_SOCKETS)
        f->sockets[f->socket_count++] = fd;
    return fd;
}

Test (league, localhost_vision_reaches_two_listeners_and_a_group_member, .timeout = 60)
{
    sim_fixture_t f;
    /* the documented flag for several local listeners (the default is
       unicast to 127.0.0.1, one listener) */
    const char *args[] = { "--truth", "--realism", "none", "--local-multicast", NULL };
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_GATEWAY), 0);
    int fds[4] = { s_group_listener (&f, f.proc.vision_port, false),
                   s_group_listener (&f, f.proc.vision_port, false),
                   s_group_listener (&f, f.proc.vision_port, true),
                   s_group_listener (&f, f.proc.truth_port, true) };
    for (int i = 0; i < 4; i++)
        cr_assert_geq (fds[i], 0, "listener %d: %s", i, strerror (errno));
    int counts[4];
    s_count (fds, 4, 300, counts); /* the services may still be starting */
    s_count (fds, 4, 1000, counts);
    cr_log_info ("in 1 s: listeners %d and %d, group member %d, truth member %d", counts[0], counts[1],
                 counts[2], counts[3]);
    /* 2 cameras at 73.3 Hz: ~147 a second each; every listener gets every one */
    for (int i = 0; i < 3; i++)
        cr_expect_gt (counts[i], 60, "vision listener %d got %d datagrams in 1 s", i, counts[i]);
    cr_expect (abs (counts[0] - counts[1]) <= 3 && abs (counts[0] - counts[2]) <= 3,
               "the listeners got %d, %d and %d datagrams", counts[0], counts[1], counts[2]);
    cr_expect_gt (counts[3], 10, "the truth group member got %d datagrams in 1 s", counts[3]);
    cr_expect (s_log_says (&f, "through the loopback interface", 2000),
               "the log does not say how vision goes");
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- paused ---------------------------------------------------------------- */

Test (league, paused_sends_geometry_once_a_second, .timeout = 60)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0);
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    control.has_simulation_speed = true;
    control.simulation_speed = 0;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    uint8_t buf[65536];
    cr_assert_geq (sim_test_call (f.fd, f.proc.control_port, &cmd.base, buf, sizeof buf, 3000), 0,
                   "no answer to speed 0");
    int in_flight;
    s_count (&f.vision, 1, 300, &in_flight);
    int geometry = 0, detections = 0;
    int64_t start = sim_test_now_ms (), end = start + 3500;
    while (sim_test_now_ms () < end) {
        SSLWrapperPacket *w = s_wrapper (f.vision, 50);
        if (!w)
            continue;
        geometry += w->geometry != NULL && w->detection == NULL;
        detections += w->detection != NULL;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_log_info ("paused 3.5 s: %d geometry packets, %d detections", geometry, detections);
    /* once a wall-clock second: 3 or 4 in 3.5 s (one more or less when the
       machine is slow to run the sender or this loop) */
    cr_expect (geometry >= 2 && geometry <= 5, "%d geometry packets in 3.5 s while paused", geometry);
    cr_expect_eq (detections, 0, "%d detections while paused", detections);
    cr_expect (s_log_says (&f, "paused", 3000), "the log does not say paused");
    cr_expect (s_log_says (&f, "| paused", 3000), "the status line does not say paused");
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- a group member on the default interface (the league tools' way) ------ */

Test (league, localhost_vision_reaches_a_member_on_the_default_interface, .timeout = 60)
{
    /* ssl-vision-client and the game controller join the group on the
       interfaces that have the MULTICAST flag, which lo lacks: inside a
       namespace of its own whose default route is a veth pair that ends
       in the same namespace (nothing real to leak to), a member joined on
       the default interface and a plain listener of the port both get
       local vision */
    char ns[32], why[200], dir[] = "/tmp/ssl-sim-test-XXXXXX";
    snprintf (ns, sizeof ns, "sslsim-l-%d", (int) getpid ());
    if (sim_lab_netns_add_first (ns, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return;
    }
    /* lo is up already (sim_lab_netns_add_first) */
    int rc = sim_lab_sh ("ip -n %s link add lv0 type veth peer name lv1"
                         " && ip -n %s addr add 10.231.9.1/24 dev lv0 && ip -n %s link set lv0 up"
                         " && ip -n %s link set lv1 up && ip -n %s route add default dev lv0",
                         ns, ns, ns, ns, ns);
    cr_assert_not_null (mkdtemp (dir));
    char ini[96], log[96];
    snprintf (ini, sizeof ini, "%s/t.ini", dir);
    snprintf (log, sizeof log, "%s/log.txt", dir);
    FILE *file = fopen (ini, "w");
    cr_assert_not_null (file);
    fprintf (file, "[run]\nrealism = none\nlegacy_grsim = false\n[network]\nbind_address = 127.0.0.1\n");
    fclose (file);
    /* --local-multicast: group members are what this test is about */
    const char *args[] = { "run",           "--config",       ini, "--localhost", "--local-multicast",
                           "--vision-addr", S_GROUP ":10020", NULL };
    pid_t pid = rc == 0 ? sim_lab_spawn (args, dir, log, ns) : -1;
    bool entered = pid > 0 && sim_lab_enter_netns (ns) == 0;
    cr_expect (entered, "no namespace to test in");
    int fds[2] = { -1, -1 };
    if (entered) {
        int one = 1;
        struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons (10020) };
        struct ip_mreq mreq = { .imr_interface.s_addr = htonl (INADDR_ANY) };
        inet_pton (AF_INET, S_GROUP, &mreq.imr_multiaddr);
        for (int i = 0; i < 2; i++) {
            fds[i] = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            cr_assert_geq (fds[i], 0);
            setsockopt (fds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            cr_assert_eq (bind (fds[i], (struct sockaddr *) &any, sizeof any), 0, "%s", strerror (errno));
        }
        /* the member joins where the kernel routes the group: lv0 */
        cr_assert_eq (setsockopt (fds[0], IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq), 0, "%s",
                      strerror (errno));
        int counts[2];
        s_count (fds, 2, 5000, counts);
        cr_log_info ("in 5 s: member on the default interface %d, plain listener %d", counts[0], counts[1]);
        cr_expect_gt (counts[0], 100, "the member on the default interface got %d datagrams", counts[0]);
        cr_expect_gt (counts[1], 100, "the plain listener got %d datagrams", counts[1]);
        cr_expect (abs (counts[0] - counts[1]) <= 3, "%d and %d datagrams", counts[0], counts[1]);
        if (counts[0] <= 100 || counts[1] <= 100)
            sim_lab_dump (log);
    }
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close (fds[i]);
    if (pid > 0)
        sim_lab_stop (pid);
    sim_lab_sh ("ip netns del %s 2>/dev/null; rm -rf '%s'", ns, dir);
}
