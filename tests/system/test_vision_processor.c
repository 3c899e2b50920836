/*  test_vision_processor.c - the vision-processor flavour as a team meets
    it (docs/vision.md, "vp26"): `ssl-sim run --realism vp26`, otherwise
    the defaults, read on the vision port over real UDP.
    - every wrapper says SSL_SOURCE_VISION_PROCESSOR; geometry comes in
      wrappers of its own, about once a second, and never with a
      detection; every detection carries t_capture_camera, a clock of the
      camera's own that is not the Unix clock of t_capture, advances one
      frame period a frame and differs between cameras;
    - two robots teleported into contact are never both in one frame,
      while each is seen in some;
    - the default realism sends SSL_SOURCE_OTHER and no camera clock.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_msg.h"
#include "ssl_vision_wrapper.pb-c.h"

#define S_FRAME_RATE 73.3 /* [vision] frame_rate */
#define S_SUBSTEP_S  0.001
/* vp26's capture_jitter (s, per instant): the gap between two instants
   differs from whole periods by 6 sigma of a difference of two at most */
#define S_STEP_TOL (6 * 1.4142 * 0.00014)

/* The next vision packet within 100 ms, unpacked (NULL: none came). */
static SSLWrapperPacket *
s_next (int fd)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, 100);
    if (n <= 0)
        return NULL;
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (w, "a vision packet that does not unpack");
    return w;
}

static void
s_start (sim_fixture_t *f, const char *const *args)
{
    cr_assert_eq (sim_fixture_start (f, args, NULL, SIM_FIXTURE_VISION), 0, "ssl-sim did not come up");
}

Test (vision_processor, source_camera_clock_and_geometry_alone, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { "--realism", "vp26", NULL };
    s_start (&f, args);
    int detections = 0, geometry = 0, with_clock = 0;
    /* per camera: t_capture - t_capture_camera (min, max), the last clock and frame */
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY }, last[2] = { NAN, NAN };
    uint32_t last_frame[2] = { 0, 0 };
    int64_t start = sim_test_now_ms ();
    while (sim_test_now_ms () - start < 2500) {
        SSLWrapperPacket *w = s_next (f.vision);
        if (!w)
            continue;
        cr_expect (w->has_source && w->source == SSL__SOURCE__SSL_SOURCE_VISION_PROCESSOR, "source %d",
                   w->source);
        if (w->geometry) {
            cr_expect_null (w->detection, "geometry rides alone");
            cr_expect_eq (w->geometry->field->field_length, 12000);
            geometry++;
        }
        const SSLDetectionFrame *d = w->detection;
        if (d) {
            detections++;
            int c = (int) d->camera_id;
            cr_assert (c == 0 || c == 1, "camera %d", c);
            if (d->has_t_capture_camera) {
                with_clock++;
                double gap = d->t_capture - d->t_capture_camera;
                lo[c] = fmin (lo[c], gap);
                hi[c] = fmax (hi[c], gap);
                if (!isnan (last[c])) {
                    double frames = (double) (d->frame_number - last_frame[c]);
                    cr_expect (fabs (d->t_capture_camera - last[c] - frames / S_FRAME_RATE) < S_STEP_TOL,
                               "camera %d: clock moved %.6f s in %.0f frames", c,
                               d->t_capture_camera - last[c], frames);
                }
                last[c] = d->t_capture_camera;
                last_frame[c] = d->frame_number;
            }
        }
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_assert_gt (detections, 200, "%d detections in 2.5 s", detections);
    cr_expect_eq (with_clock, detections, "t_capture_camera on %d of %d", with_clock, detections);
    /* one geometry wrapper per 73 camera-0 frames: 2-3 in 2.5 s */
    cr_expect (geometry >= 2 && geometry <= 4, "%d geometry wrappers in 2.5 s", geometry);
    for (int c = 0; c < 2; c++) {
        /* the camera clock is not t_capture's Unix clock */
        cr_expect_gt (fabs (lo[c]), 1e6, "camera %d: t_capture - t_capture_camera = %.3f s", c, lo[c]);
        /* but it keeps pace with it: t_capture sits on the 1 ms step that
           brought the capture, the camera clock on the capture instant */
        cr_expect_lt (hi[c] - lo[c], S_SUBSTEP_S + 1e-6, "camera %d: spread %.6f s", c, hi[c] - lo[c]);
    }
    cr_expect_gt (fabs (lo[1] - lo[0]), 1.0, "the two cameras' clocks started apart");
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* Whether robot `id` is in `robots` within 5 cm of (x, y). */
static bool
s_has (SSLDetectionRobot **robots, size_t n, unsigned id, double x, double y)
{
    for (size_t i = 0; i < n; i++)
        if (robots[i]->robot_id == id && hypot (robots[i]->x / 1000.0 - x, robots[i]->y / 1000.0 - y) < 0.05)
            return true;
    return false;
}

Test (vision_processor, robots_in_contact_lose_one_detection, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { "--realism", "vp26", NULL };
    s_start (&f, args);
    /* blue 0 and yellow 0 side by side, 1 mm apart (0.09 m robots), in a
       free part of camera 0's half */
    const double bx = 2.0, yx = 2.181, y = 3.6;
    cr_assert_eq (sim_test_teleport (f.fd, f.proc.control_port, SIM_MSG_BLUE, 0, bx, y, 5000), 1);
    cr_assert_eq (sim_test_teleport (f.fd, f.proc.control_port, SIM_MSG_YELLOW, 0, yx, y, 5000), 1);
    int frames = 0, both = 0, blue = 0, yellow = 0;
    int64_t start = sim_test_now_ms ();
    while (sim_test_now_ms () - start < 2000) {
        SSLWrapperPacket *w = s_next (f.vision);
        if (!w)
            continue;
        const SSLDetectionFrame *d = w->detection;
        if (d && d->camera_id == 0) {
            bool b = s_has (d->robots_blue, d->n_robots_blue, 0, bx, y);
            bool yl = s_has (d->robots_yellow, d->n_robots_yellow, 0, yx, y);
            /* frames taken before the teleports landed show neither here */
            if (b || yl) {
                frames++;
                both += b && yl;
                blue += b;
                yellow += yl;
            }
        }
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_assert_gt (frames, 100, "%d frames showed the pair", frames);
    cr_expect_eq (both, 0, "both robots of the pair in %d of %d frames", both, frames);
    /* which one is kept is a coin per frame: 4.5 sigma of a fair coin */
    cr_expect (fabs (blue - frames / 2.0) <= 4.5 * sqrt (frames / 4.0) + 1, "blue %d, yellow %d of %d", blue,
               yellow, frames);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (vision_processor, default_realism_is_ssl_vision, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { NULL };
    s_start (&f, args);
    int detections = 0;
    int64_t start = sim_test_now_ms ();
    while (sim_test_now_ms () - start < 1000) {
        SSLWrapperPacket *w = s_next (f.vision);
        if (!w)
            continue;
        cr_expect_eq (w->source, SSL__SOURCE__SSL_SOURCE_OTHER);
        cr_assert_not_null (w->detection, "geometry rides along camera 0's detections");
        cr_expect (!w->detection->has_t_capture_camera);
        detections++;
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    cr_expect_gt (detections, 50);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
