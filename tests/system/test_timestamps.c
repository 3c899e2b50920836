/*  test_timestamps.c - the wire timestamps a team meets in a default
    realtime run (docs/vision.md, "Timestamps"; docs/logs.md):
    - after the speed goes 1x -> 1.58x -> 1x on the control port (what the
      viewer's slider sends), t_capture is back on the wall clock, and the
      log says so;
    - every detection's t_sent lies between its t_capture and the moment
      the packet was received (it is stamped as the packet is handed to
      the kernel);
    - the truth stream keeps the cameras' cadence (73.3 Hz), one packet a
      frame period;
    - --record log times are the packets' own times through a pause and a
      stall, and the geometry sent while paused is in the log.

    Every test runs with the defaults a user gets: [vision]
    timestamp_base = auto, Unix time in realtime mode (the fixture sets
    only free ports and loopback binds).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/logs/sim_logfile.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#define S_WAIT_MS 10000
/* The realtime clock lags the wall clock by at most its catch-up cap
   before it drops sim time and moves the timestamps over it (protocol.md
   §8.1): a packet's t_capture is at most this, plus the vision delay
   (22 ms, realistic), behind the moment it arrives. */
#define S_CATCH_UP_S     0.25
#define S_VISION_DELAY_S 0.022
#define S_SUBSTEP_S      0.001 /* the default substep: the clock's grain */
#define S_FRAME_RATE     73.3  /* [vision] frame_rate */

static double
s_unix_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The next vision packet within ms and the Unix time it was received
   (read as soon as it was taken from the socket). NULL when none came. */
static SSLWrapperPacket *
s_wrapper (int fd, int ms, double *received)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, ms);
    *received = s_unix_now ();
    return n > 0 ? ssl__wrapper_packet__unpack (NULL, (size_t) n, buf) : NULL;
}

/* Lags (arrival - t_capture, s) of the detections arriving in ms. */
typedef struct {
    int count, ahead; /* packets; those whose t_capture was after their arrival */
    double lags[4096];
    double worst_ahead; /* s */
} s_lags_t;

static void
s_collect_lags (int fd, int ms, s_lags_t *l)
{
    memset (l, 0, sizeof *l);
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end && l->count < 4096) {
        double received;
        SSLWrapperPacket *w = s_wrapper (fd, 10, &received);
        if (!w)
            continue;
        if (w->detection) {
            double lag = received - w->detection->t_capture;
            l->lags[l->count++] = lag;
            /* the clock's grain: the realtime clock runs whole substeps */
            if (lag < -S_SUBSTEP_S) {
                l->ahead++;
                l->worst_ahead = fmax (l->worst_ahead, -lag);
            }
        }
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
}

static int
s_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double
s_median (s_lags_t *l)
{
    if (l->count == 0)
        return NAN;
    qsort (l->lags, (size_t) l->count, sizeof l->lags[0], s_cmp_double);
    return l->lags[l->count / 2];
}

/* True when the simulator's log holds `text` within ms. */
static bool
s_log_says (const sim_fixture_t *f, const char *text, int ms)
{
    return sim_lab_wait_text (f->proc.log, text, ms) == 0;
}

Test (timestamps, t_capture_is_back_on_the_wall_clock_after_a_speed_change, .timeout = 90)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0,
                  "ssl-sim did not come up");
    s_lags_t lags;
    s_collect_lags (f.vision, 500, &lags);
    cr_assert_gt (lags.count, 10, "no vision at 1x");
    double at_start = s_median (&lags);
    /* 3 s at 1.58x: without a re-base the stamps would end 1.7 s ahead */
    cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 1.58, S_WAIT_MS), 0, "no answer to speed 1.58");
    s_collect_lags (f.vision, 3000, &lags);
    cr_assert_gt (lags.count, 100, "no vision at 1.58x");
    cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 1.0, S_WAIT_MS), 0, "no answer to speed 1");
    s_collect_lags (f.vision, 300, &lags); /* what was released before the change */
    s_collect_lags (f.vision, 1500, &lags);
    cr_assert_gt (lags.count, 50, "no vision back at 1x");
    double after = s_median (&lags);
    cr_log_info ("arrival - t_capture: median %.4f s at the start, %.4f s after 1.58x and back; %d of %d "
                 "packets stamped after their arrival (worst %.4f s)",
                 at_start, after, lags.ahead, lags.count, lags.worst_ahead);
    cr_expect_eq (lags.ahead, 0, "%d of %d detections have a t_capture after their arrival, by up to %.3f s",
                  lags.ahead, lags.count, lags.worst_ahead);
    cr_expect (after >= 0 && after <= S_CATCH_UP_S + S_VISION_DELAY_S,
               "t_capture is %.3f s behind the wall clock after the speed change", after);
    cr_expect (s_log_says (&f, "timestamps back on the wall clock after a speed change", 3000),
               "the log does not say the timestamps were re-based");
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (timestamps, t_sent_lies_between_t_capture_and_arrival, .timeout = 60)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_VISION), 0, "ssl-sim did not come up");
    int count = 0, early = 0, late = 0;
    double worst_late = 0;
    int64_t end = sim_test_now_ms () + 2000;
    while (sim_test_now_ms () < end) {
        double received;
        SSLWrapperPacket *w = s_wrapper (f.vision, 10, &received);
        if (!w)
            continue;
        const SSLDetectionFrame *d = w->detection;
        if (d) {
            count++;
            early += d->t_sent < d->t_capture;
            if (d->t_sent > received) {
                late++;
                worst_late = fmax (worst_late, d->t_sent - received);
            }
        }
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_log_info ("%d detections: %d sent before their capture, %d stamped after their arrival (worst %.6f s)",
                 count, early, late, worst_late);
    cr_assert_gt (count, 100, "only %d detections in 2 s", count);
    cr_expect_eq (early, 0, "%d of %d detections have t_sent < t_capture", early, count);
    cr_expect_eq (late, 0, "%d of %d detections arrived before their t_sent, by up to %.6f s", late, count,
                  worst_late);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (timestamps, truth_keeps_the_camera_cadence, .timeout = 60)
{
    const char *args[] = { "--truth", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION), 0, "ssl-sim did not come up");
    int truth = sim_fixture_socket (&f, f.proc.truth_port);
    cr_assert (truth >= 0);
    sim_test_drain (truth);
    /* the rate from the steps between consecutive packets: a realtime
       stall skips sim time and moves the timestamps on by what it skipped
       (docs/protocol.md, "Timestamps"), which is one long step, left out
       with the steps over a lost datagram; each left out step starts a new
       run, and a run's times telescope to within a substep */
    int count = 0, close_pairs = 0, steps = 0, runs = 1;
    uint64_t last_number = 0;
    double last = 0, closest = INFINITY, stepped = 0;
    int64_t end = sim_test_now_ms () + 3000;
    while (sim_test_now_ms () < end) {
        uint32_t number;
        double at;
        int rc = sim_test_truth (truth, 10, &number, &at);
        cr_assert_geq (rc, 0, "the truth port got something that is not a TrackerWrapperPacket");
        if (rc == 0)
            continue;
        if (count > 0 && number == last_number + 1 && at - last < 2.0 / S_FRAME_RATE) {
            closest = fmin (closest, at - last);
            /* cameras of one frame period are at most a substep or two apart */
            close_pairs += at - last < 0.5 / S_FRAME_RATE;
            stepped += at - last;
            steps++;
        } else if (count > 0)
            runs++;
        last = at;
        last_number = number;
        count++;
    }
    cr_assert_gt (count, 100, "only %d truth packets in 3 s", count);
    cr_assert_gt (steps, 100, "only %d steps between consecutive truth packets in 3 s", steps);
    double rate = steps / stepped;
    cr_log_info ("%d truth packets, %.2f Hz of sim time over %d runs, closest two %.4f s apart", count, rate,
                 runs, closest);
    cr_expect_eq (close_pairs, 0, "%d truth packets came less than half a frame period after the one before",
                  close_pairs);
    /* the capture schedule is exact on average; truth times are quantised
       to the substep, S_SUBSTEP_S per run over the steps' span */
    cr_expect (fabs (rate - S_FRAME_RATE) <= S_FRAME_RATE * (runs * S_SUBSTEP_S / stepped) + 0.05,
               "the truth stream runs at %.2f Hz, the cameras at %.1f", rate, S_FRAME_RATE);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- --record log times --------------------------------------------------- */

/* What a --record log says about its times. */
typedef struct {
    int detections, truth, paused_geometry;
    int detection_before; /* logged before their t_capture */
    int detection_late;   /* logged more than the vision delay after it */
    int truth_off;        /* log time not the truth packet's timestamp */
    double worst;         /* s, the furthest */
} s_log_times_t;

static void
s_read_log_times (const char *path, s_log_times_t *out)
{
    memset (out, 0, sizeof *out);
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    int rc;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        double at = (double) m.time_ns * 1e-9;
        if (m.type == SIM_LOGFILE_VISION) {
            SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, m.len, m.data);
            cr_assert_not_null (w, "a vision record does not decode");
            if (w->detection) {
                /* the packet is released vision_delay after the capture;
                   t_capture is at most that before it (vision.md §7) */
                double off = at - w->detection->t_capture;
                out->detection_before += off < -1e-6;
                out->detection_late += off > S_VISION_DELAY_S + 1e-6;
                if (off < -1e-6 || off > S_VISION_DELAY_S + 1e-6)
                    out->worst = fmax (out->worst, fabs (off));
                out->detections++;
            } else if (w->geometry)
                out->paused_geometry++;
            ssl__wrapper_packet__free_unpacked (w, NULL);
        } else if (m.type == SIM_LOGFILE_TRACKER) {
            TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, m.len, m.data);
            cr_assert (t && t->tracked_frame, "a truth record does not decode");
            double off = fabs (at - t->tracked_frame->timestamp);
            out->truth_off += off > 1e-6;
            if (off > 1e-6)
                out->worst = fmax (out->worst, off);
            out->truth++;
        }
    }
    cr_assert_eq (rc, 0, "%s: %s", path, sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
}

/* Detections arriving on fd within ms. */
static int
s_detections (int fd, int ms)
{
    int n = 0;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        double received;
        SSLWrapperPacket *w = s_wrapper (fd, 10, &received);
        if (!w)
            continue;
        n += w->detection != NULL;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return n;
}

/* Wait up to ms for a geometry-only packet (sent while paused). */
static bool
s_paused_geometry (int fd, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        double received;
        SSLWrapperPacket *w = s_wrapper (fd, 50, &received);
        bool geometry = w && w->geometry && !w->detection;
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        if (geometry)
            return true;
    }
    return false;
}

Test (timestamps, record_log_times_follow_the_packets_through_a_pause_and_a_stall, .timeout = 90)
{
    char dir[] = "/tmp/ssl-sim-stamps-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char path[64];
    snprintf (path, sizeof path, "%s/run.log", dir);
    const char *args[] = { "--truth", "--record", path, NULL };
    /* the recorder's referee multicast stays on loopback (network hygiene) */
    char ini[160];
    snprintf (ini, sizeof ini, "[network]\nreferee_addr = 127.0.0.1:%d\n", sim_test_free_port ());
    sim_fixture_t f;
    cr_assert_eq (
        sim_fixture_start (&f, args, ini, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES), 0,
        "ssl-sim did not come up");
    cr_assert_gt (s_detections (f.vision, 500), 20, "no vision before the pause");
    /* a pause of over a second: the geometry once a second reaches us */
    cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 0, S_WAIT_MS), 0, "no answer to speed 0");
    cr_assert (s_paused_geometry (f.vision, 3000), "no geometry while paused");
    cr_assert_eq (sim_test_speed (f.fd, f.proc.control_port, 1, S_WAIT_MS), 0, "no answer to speed 1");
    cr_assert_gt (s_detections (f.vision, 500), 20, "no vision after the pause");
    /* a stall of physics longer than the catch-up cap */
    cr_assert_gt (sim_fixture_signal (&f, "physics", SIGSTOP), 0);
    s_detections (f.vision, 1000);
    cr_assert_gt (sim_fixture_signal (&f, "physics", SIGCONT), 0);
    cr_assert_gt (s_detections (f.vision, 800), 20, "no vision after the stall");
    cr_assert_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");

    s_log_times_t t;
    s_read_log_times (path, &t);
    cr_log_info ("%d detections, %d truth packets, %d paused geometry packets in the log", t.detections,
                 t.truth, t.paused_geometry);
    cr_expect_gt (t.detections, 100);
    cr_expect_gt (t.truth, 50);
    cr_expect_eq (t.detection_before, 0,
                  "%d of %d detections are logged before their t_capture (up to %.3f s)", t.detection_before,
                  t.detections, t.worst);
    /* A frame captured before a re-base (the resume, the stall's skip)
       and released after it keeps its t_capture and is logged when it
       went out, late: at most the frames in the delay queue, two cameras
       times ceil(22 ms x 73.3 Hz) = 2 each, at each of the two re-bases. */
    cr_expect_leq (t.detection_late, 2 * 2 * 2,
                   "%d of %d detections are logged more than the vision delay after their t_capture (up to "
                   "%.3f s)",
                   t.detection_late, t.detections, t.worst);
    cr_expect_eq (t.truth_off, 0,
                  "%d of %d truth packets are logged away from their timestamp (up to %.3f s)", t.truth_off,
                  t.truth, t.worst);
    cr_expect_gt (t.paused_geometry, 0, "the geometry sent while paused is not in the log");
    sim_lab_sh ("rm -rf '%s'", dir);
}
