/*  test_vision_stream.c - the vision stream a user receives from a real
    ssl-sim over UDP (the vision actor alone, in-process, is
    tests/service/test_vision_service.c): the camera rate in real time,
    geometry on camera 0, the ground-truth stream with --truth, and
    SimulatorConfig.vision_port moving the stream at runtime (vision.md
    §2, §8, §10; protocol.md §4.5).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

/* Start ssl-sim and wait for the first vision packet, so the services are
   surely up. */
static void
s_start (sim_fixture_t *f, const char *const *args)
{
    cr_assert_eq (sim_fixture_start (f, args, NULL, SIM_FIXTURE_VISION), 0, "ssl-sim did not come up");
}

Test (vision_stream, realtime_rate_geometry_and_truth, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { "--truth", NULL };
    s_start (&f, args);
    int vision = f.vision;
    int truth = sim_fixture_socket (&f, f.proc.truth_port);
    cr_assert (truth >= 0);

    /* vision.md §12: camera-0 frames over 2 s within 5 % of 2 x 73.3 */
    int cam0 = 0, cam1 = 0, geometry = 0, other = 0;
    double first_t = -1, last_t = -1;
    int64_t start = sim_test_now_ms ();
    while (sim_test_now_ms () - start < 2000) {
        uint8_t buf[65536];
        ssize_t n = sim_test_recv (vision, buf, sizeof buf, 100);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        cr_assert_not_null (w);
        cr_assert_not_null (w->detection, "every capture carries a detection frame");
        if (w->detection->camera_id == 0) {
            cam0++;
            if (first_t < 0)
                first_t = w->detection->t_capture;
            last_t = w->detection->t_capture;
        } else if (w->detection->camera_id == 1)
            cam1++;
        else
            other++;
        if (w->geometry) {
            geometry++;
            cr_expect_eq (w->detection->camera_id, 0, "geometry rides on camera 0 only");
            cr_expect_eq (w->geometry->field->field_length, 12000);
            cr_expect_eq (w->geometry->n_calib, 2);
        }
        cr_expect_geq (w->detection->t_sent, w->detection->t_capture);
        ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    /* the rate per simulated second is exact; real time is only as exact
       as the machine's load allows, so that check is looser */
    double sim_span = last_t - first_t;
    cr_expect (fabs ((cam0 - 1) / sim_span - 73.3) <= 0.05 * 73.3,
               "camera 0: %d frames in %.3f s of sim time", cam0, sim_span);
    cr_expect (fabs (cam0 - 146.6) <= 0.15 * 146.6, "camera 0 sent %d frames in 2 s of real time", cam0);
    cr_expect (abs (cam0 - cam1) <= 3, "camera 1 sent %d frames, camera 0 %d", cam1, cam0);
    cr_expect_eq (other, 0);
    cr_expect (geometry >= 1 && geometry <= 3, "%d geometry packets in 2 s (one every 73 frames)", geometry);
    cr_expect (sim_span > 1.7 && sim_span < 2.3, "sim time advanced %.3f s in 2 s of real time", sim_span);

    /* --truth: TrackerWrapperPacket on the truth port with both teams */
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (truth, buf, sizeof buf, 2000);
    cr_assert_gt (n, 0, "no ground-truth packet");
    TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (t);
    cr_assert_not_null (t->tracked_frame);
    cr_expect_eq (t->tracked_frame->n_robots, 22);
    cr_expect_eq (t->tracked_frame->n_balls, 1);
    tracker_wrapper_packet__free_unpacked (t, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (vision_stream, vision_port_moves_at_runtime, .timeout = 60)
{
    sim_fixture_t f;
    const char *args[] = { "--mode", "fast", NULL };
    s_start (&f, args);
    int vision = f.vision, control = f.fd;

    int moved_port = sim_test_free_port ();
    int moved = sim_fixture_socket (&f, moved_port);
    cr_assert (moved >= 0);
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    config.has_vision_port = true;
    config.vision_port = (uint32_t) moved_port;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.config = &config;
    uint8_t buf[65536];
    ssize_t n = sim_test_request (control, f.proc.control_port, &cmd.base, buf, sizeof buf, 10000);
    /* an empty SimulatorResponse is a zero-length datagram */
    cr_assert_geq (n, 0, "no SimulatorResponse (%s)", strerror (errno));
    SimulatorResponse *resp = simulator_response__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (resp);
    cr_expect_eq (resp->n_errors, 0);
    simulator_response__free_unpacked (resp, NULL);

    n = sim_test_recv (moved, buf, sizeof buf, 5000);
    cr_assert_gt (n, 0, "no vision on the new port %d", moved_port);
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (w);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    /* the old port falls silent once the packets in flight are read */
    int64_t end = sim_test_now_ms () + 500;
    while (sim_test_now_ms () < end)
        sim_test_recv (vision, buf, sizeof buf, 10);
    cr_expect_lt (sim_test_recv (vision, buf, sizeof buf, 300), 0, "vision still arrives on the old port");

    /* an out-of-range port is refused with UNSUPPORTED */
    config.vision_port = 70000;
    cr_assert_eq (sim_test_send (control, f.proc.control_port, &cmd.base), 0);
    n = sim_test_recv (control, buf, sizeof buf, 5000);
    cr_assert_gt (n, 0);
    resp = simulator_response__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (resp);
    cr_assert_eq (resp->n_errors, 1);
    cr_expect_str_eq (resp->errors[0]->code, "UNSUPPORTED");
    simulator_response__free_unpacked (resp, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
