/*  test_realism.c - the realism preset switched at runtime, as a user does
    it: ssl-sim started with the defaults (the realistic preset), the
    page's realism select set to `none` over the viewer's WebSocket, and
    back. `none` must then be no realism at all: every robot at rest seen
    by every camera where the ground truth says it is, within what `none`
    leaves (the wire's float rounding), not with realistic's 15 mm marker
    parallax or its warp. Back on `realistic`, each camera's static error
    of each robot (offset, warp, parallax) must be the one it had before
    the switch. Byte sameness of a switch at time 0 and a start with the
    preset: tests/unit/test_sslsim.c (libsslsim is the services' engine,
    test_embed_sync holds it equal to `--mode sync`, a switch mid-run
    included).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_ws.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#define WAIT_MS    15000
#define CAMERAS    2
#define IDS        16
#define SAMPLES    512
#define MIN_MEDIAN 30 /* detections of a robot in a camera for its median */

/* What one phase saw: per team, id and camera, the detections' errors
   from the ground truth (m). */
typedef struct {
    int n[2][IDS][CAMERAS];
    float dx[2][IDS][CAMERAS][SAMPLES], dy[2][IDS][CAMERAS][SAMPLES];
    double worst; /* the largest error of any detection, per axis */
    int frames[CAMERAS];
} s_phase_t;

/* The newest ground truth of each robot. */
typedef struct {
    bool known[2][IDS];
    double x[2][IDS], y[2][IDS];
} s_truth_t;

static void
s_read_truth (int fd, s_truth_t *truth)
{
    uint8_t buf[65536];
    ssize_t n;
    while ((n = sim_test_recv (fd, buf, sizeof buf, 0)) > 0) {
        TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, (size_t) n, buf);
        cr_assert_not_null (t, "a truth packet that does not parse");
        for (size_t i = 0; t->tracked_frame && i < t->tracked_frame->n_robots; i++) {
            const TrackedRobot *r = t->tracked_frame->robots[i];
            int team = r->robot_id->team == TEAM__YELLOW ? 1 : 0;
            if (r->robot_id->id < IDS) {
                truth->known[team][r->robot_id->id] = true;
                truth->x[team][r->robot_id->id] = r->pos->x;
                truth->y[team][r->robot_id->id] = r->pos->y;
            }
        }
        tracker_wrapper_packet__free_unpacked (t, NULL);
    }
}

/* The largest error of a detection frame's robots from the truth (m, per
   axis), and each robot's error added to *phase when it is not NULL;
   -1 when the frame shows no robot the truth knows. */
static double
s_frame_error (const SSLDetectionFrame *d, const s_truth_t *truth, s_phase_t *phase)
{
    double worst = -1;
    int cam = (int) d->camera_id;
    for (int team = 0; team < 2; team++) {
        SSLDetectionRobot **list = team ? d->robots_yellow : d->robots_blue;
        size_t count = team ? d->n_robots_yellow : d->n_robots_blue;
        for (size_t i = 0; i < count; i++) {
            unsigned id = list[i]->robot_id;
            if (id >= IDS || !truth->known[team][id])
                continue;
            double dx = list[i]->x / 1000.0 - truth->x[team][id],
                   dy = list[i]->y / 1000.0 - truth->y[team][id];
            worst = fmax (worst, fmax (fabs (dx), fabs (dy)));
            if (phase && cam < CAMERAS && phase->n[team][id][cam] < SAMPLES) {
                int *n = &phase->n[team][id][cam];
                phase->dx[team][id][cam][*n] = (float) dx;
                phase->dy[team][id][cam][*n] = (float) dy;
                (*n)++;
            }
        }
    }
    return worst;
}

/* The next detection frame on `vision` within ms, the truth read before
   it; NULL on timeout. Free with ssl__wrapper_packet__free_unpacked. */
static SSLWrapperPacket *
s_next_frame (int vision, int truth_fd, s_truth_t *truth, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    uint8_t buf[65536];
    while (sim_test_now_ms () < end) {
        ssize_t n = sim_test_recv (vision, buf, sizeof buf, 200);
        s_read_truth (truth_fd, truth);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        cr_assert_not_null (w, "a vision packet that does not parse");
        if (w->detection && w->detection->camera_id < CAMERAS)
            return w;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return NULL;
}

/* Read frames until every camera has sent one for which exact(error)
   holds: frames leave in the order they were captured, so every later
   frame was captured with the realism in force after the switch. */
static void
s_wait_switched (int vision, int truth_fd, s_truth_t *truth, double tol, bool exact)
{
    bool done[CAMERAS] = { false };
    int64_t end = sim_test_now_ms () + WAIT_MS;
    while (!(done[0] && done[1])) {
        cr_assert_lt (sim_test_now_ms (), end, "vision did not change its realism within %d ms", WAIT_MS);
        SSLWrapperPacket *w = s_next_frame (vision, truth_fd, truth, WAIT_MS);
        cr_assert_not_null (w, "no vision");
        double e = s_frame_error (w->detection, truth, NULL);
        if (e >= 0 && (e <= tol) == exact)
            done[w->detection->camera_id] = true;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
}

/* Collect `frames` detection frames of each camera into *phase. */
static void
s_collect (int vision, int truth_fd, s_truth_t *truth, int frames, s_phase_t *phase)
{
    memset (phase, 0, sizeof *phase);
    int64_t end = sim_test_now_ms () + WAIT_MS;
    while (phase->frames[0] < frames || phase->frames[1] < frames) {
        cr_assert_lt (sim_test_now_ms (), end, "too few frames");
        SSLWrapperPacket *w = s_next_frame (vision, truth_fd, truth, WAIT_MS);
        cr_assert_not_null (w, "no vision");
        phase->frames[w->detection->camera_id]++;
        phase->worst = fmax (phase->worst, s_frame_error (w->detection, truth, phase));
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
}

static int
s_cmp_float (const void *a, const void *b)
{
    float x = *(const float *) a, y = *(const float *) b;
    return (x > y) - (x < y);
}

static double
s_median (float *v, int n)
{
    qsort (v, (size_t) n, sizeof *v, s_cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void
s_switch (sim_ws_t *ws, int id, const char *preset)
{
    char fields[96];
    snprintf (fields, sizeof fields, "\"op\":\"realism\",\"preset\":\"%s\"", preset);
    cJSON *result = sim_ws_op (ws, id, fields, WAIT_MS);
    cr_assert_not_null (result, "no result for realism %s", preset);
    cr_assert (sim_ws_ok (result), "realism %s refused", preset);
    cJSON_Delete (result);
}

Test (realism, none_on_the_page_is_no_realism_and_realistic_comes_back_whole, .timeout = 120)
{
    /* the defaults, plus the ground truth to compare with */
    static const char *const args[] = { "--truth", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0,
                  "ssl-sim did not come up");
    cr_assert (sim_fixture_wait_service (&f, "viewer", 0, WAIT_MS), "the viewer did not start");
    sim_ws_t *ws = sim_ws_connect (f.proc.viewer_port, "/ws");
    cr_assert_not_null (ws);
    int truth_fd = sim_fixture_socket (&f, f.proc.truth_port);
    cr_assert (truth_fd >= 0);
    s_truth_t truth = { 0 };
    static s_phase_t before, none, after;
    const double realistic_tol = sim_test_vision_tolerance_of ("realistic");
    const double none_tol = sim_test_vision_tolerance_of ("none");

    /* realistic, as started: within its bound, and not exact */
    s_collect (f.vision, truth_fd, &truth, 100, &before);
    cr_expect_leq (before.worst, realistic_tol, "realistic: %.4f m off", before.worst);
    cr_expect_gt (before.worst, none_tol, "realistic vision is exact");

    /* none: every detection of every camera where the robot is */
    s_switch (ws, 1, "none");
    s_wait_switched (f.vision, truth_fd, &truth, none_tol, true);
    s_collect (f.vision, truth_fd, &truth, 60, &none);
    cr_expect_leq (none.worst, none_tol, "none: a detection %.6f m off (bound %.2g m)", none.worst, none_tol);
    int seen[CAMERAS] = { 0 };
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < IDS; id++)
            if (truth.known[team][id]) {
                cr_expect (none.n[team][id][0] + none.n[team][id][1] > 0, "robot %d of team %d unseen", id,
                           team);
                for (int cam = 0; cam < CAMERAS; cam++)
                    seen[cam] += none.n[team][id][cam];
            }
    cr_expect (seen[0] > 0 && seen[1] > 0, "a camera saw no robot (%d, %d detections)", seen[0], seen[1]);

    /* realistic again: each camera's static error of each robot as before
       the switch, within five deviations of the difference of two medians
       of its per-frame noise (a median of n normal draws deviates
       1.2533 sigma / sqrt(n)) */
    s_switch (ws, 2, "realistic");
    s_wait_switched (f.vision, truth_fd, &truth, none_tol, false);
    s_collect (f.vision, truth_fd, &truth, 100, &after);
    sim_realism_t realistic;
    cr_assert_eq (sim_config_realism_preset ("realistic", &realistic), 0);
    int compared = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < IDS; id++)
            for (int cam = 0; cam < CAMERAS; cam++) {
                int n1 = before.n[team][id][cam], n3 = after.n[team][id][cam];
                if (n1 < MIN_MEDIAN || n3 < MIN_MEDIAN)
                    continue;
                double bound = 5 * 1.2533 * realistic.stddev_robot_p * sqrt (1.0 / n1 + 1.0 / n3);
                double x1 = s_median (before.dx[team][id][cam], n1),
                       x3 = s_median (after.dx[team][id][cam], n3);
                double y1 = s_median (before.dy[team][id][cam], n1),
                       y3 = s_median (after.dy[team][id][cam], n3);
                cr_expect_leq (fabs (x3 - x1), bound, "team %d robot %d camera %d: x error %.5f m, was %.5f",
                               team, id, cam, x3, x1);
                cr_expect_leq (fabs (y3 - y1), bound, "team %d robot %d camera %d: y error %.5f m, was %.5f",
                               team, id, cam, y3, y1);
                compared++;
            }
    cr_expect_gt (compared, 10, "only %d robots and cameras compared", compared);

    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
