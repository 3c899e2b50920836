/*  test_gw_wire.c - the top-level wire scans of services/gateway/
    gw_wire.c: telling a SimulationSyncRequest from a port's normal
    message (spec/protocol.md §3), and splicing packed detection frames into
    a sync answer with the bytes protobuf-c would pack.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "services/gateway/gw_wire.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

static size_t
s_sync (uint8_t *buf, bool step, bool command, bool control)
{
    static SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    static RobotControl rc = ROBOT_CONTROL__INIT;
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = step;
    req.sim_step = 0.016f;
    req.simulator_command = command ? &cmd : NULL;
    req.robot_control = control ? &rc : NULL;
    return simulation_sync_request__pack (&req, buf);
}

Test (gw_wire, sync_requests_are_candidates_where_the_spec_says)
{
    uint8_t buf[256];
    size_t n = s_sync (buf, true, false, false);
    cr_expect (gw_wire_sync_candidate (buf, n, GW_PORT_CONTROL), "sim_step (1, fixed32) on control");
    cr_expect (gw_wire_sync_candidate (buf, n, GW_PORT_BLUE));
    n = s_sync (buf, false, false, true);
    cr_expect (gw_wire_sync_candidate (buf, n, GW_PORT_CONTROL), "field 3 on control");
    cr_expect (gw_wire_sync_candidate (buf, n, GW_PORT_YELLOW));
    /* field 2 alone: a candidate on team ports only (it is SimulatorCommand.config on control) */
    n = s_sync (buf, false, true, false);
    cr_expect (!gw_wire_sync_candidate (buf, n, GW_PORT_CONTROL));
    cr_expect (gw_wire_sync_candidate (buf, n, GW_PORT_BLUE));
}

Test (gw_wire, normal_messages_are_not_candidates)
{
    uint8_t buf[256];
    RobotCommand c = ROBOT_COMMAND__INIT;
    RobotCommand *cp = &c;
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = &cp;
    size_t n = robot_control__pack (&rc, buf);
    cr_expect (!gw_wire_sync_candidate (buf, n, GW_PORT_BLUE), "RobotControl (1, length-delimited)");
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    cmd.config = &config;
    n = simulator_command__pack (&cmd, buf);
    cr_expect (!gw_wire_sync_candidate (buf, n, GW_PORT_CONTROL), "SimulatorCommand");
    cr_expect (!gw_wire_sync_candidate (buf, 0, GW_PORT_CONTROL), "empty");
    cr_expect (!gw_wire_sync_candidate (buf, 0, GW_PORT_BLUE));
}

Test (gw_wire, the_scan_stops_at_malformed_fields_but_keeps_what_it_saw)
{
    /* (1, fixed32) whole, then garbage: still a candidate */
    uint8_t a[] = { 0x0d, 0x00, 0x00, 0x80, 0x3f, 0xff, 0xff };
    cr_expect (gw_wire_sync_candidate (a, sizeof a, GW_PORT_CONTROL));
    /* (1, fixed32) truncated: not seen */
    cr_expect (!gw_wire_sync_candidate (a, 3, GW_PORT_CONTROL));
    /* field number 0 stops the scan before field 3 */
    uint8_t b[] = { 0x00, 0x1a, 0x00 };
    cr_expect (!gw_wire_sync_candidate (b, sizeof b, GW_PORT_BLUE));
    /* wire types 3/4/6/7 stop it */
    uint8_t c[] = { 0x0b, 0x1a, 0x00 };
    cr_expect (!gw_wire_sync_candidate (c, sizeof c, GW_PORT_BLUE));
    /* a length running past the end is not a whole field */
    uint8_t d[] = { 0x1a, 0x05, 0x00 };
    cr_expect (!gw_wire_sync_candidate (d, sizeof d, GW_PORT_BLUE));
    /* varints: an 11-byte varint key is malformed; fields after a skipped
       varint and a fixed64 still count */
    uint8_t e[12];
    memset (e, 0x80, sizeof e);
    cr_expect (!gw_wire_sync_candidate (e, sizeof e, GW_PORT_BLUE));
    uint8_t f[] = { 0x20, 0x96, 0x01, 0x29, 1, 2, 3, 4, 5, 6, 7, 8, 0x1a, 0x00 };
    cr_expect (gw_wire_sync_candidate (f, sizeof f, GW_PORT_CONTROL));
    /* (1, varint) is not (1, fixed32) */
    uint8_t g[] = { 0x08, 0x01 };
    cr_expect (!gw_wire_sync_candidate (g, sizeof g, GW_PORT_CONTROL));
}

/* ---- splicing packed submessages (the sync answer) ---------------------- */

static size_t
s_wrapper (uint8_t *buf, uint32_t camera, double t_capture, bool with_geometry)
{
    SSLDetectionBall ball = SSL__DETECTION_BALL__INIT;
    ball.x = 100.0f + (float) camera;
    ball.y = -250.5f;
    ball.pixel_x = ball.pixel_y = 0;
    SSLDetectionBall *balls[1] = { &ball };
    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.frame_number = 7 + camera;
    det.t_capture = t_capture;
    det.t_sent = t_capture + 0.007;
    det.camera_id = camera;
    det.n_balls = 1;
    det.balls = balls;
    SSLGeometryData geo = SSL__GEOMETRY_DATA__INIT;
    SSLGeometryFieldSize field = SSL__GEOMETRY_FIELD_SIZE__INIT;
    geo.field = &field;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = &det;
    w.geometry = with_geometry ? &geo : NULL;
    return ssl__wrapper_packet__pack (&w, buf);
}

Test (gw_wire, spliced_sync_answer_has_the_packed_bytes)
{
    uint8_t wrappers[2][512];
    size_t lens[2] = { s_wrapper (wrappers[0], 0, 1.25, true), s_wrapper (wrappers[1], 1, 1.26, false) };
    /* what protobuf-c packs from the unpacked frames */
    SSLWrapperPacket *unpacked[2];
    SSLDetectionFrame *frames[2];
    for (int i = 0; i < 2; i++) {
        unpacked[i] = ssl__wrapper_packet__unpack (NULL, lens[i], wrappers[i]);
        cr_assert_not_null (unpacked[i]);
        frames[i] = unpacked[i]->detection;
    }
    RobotControlResponse rcr = ROBOT_CONTROL_RESPONSE__INIT;
    SimulationSyncResponse resp = SIMULATION_SYNC_RESPONSE__INIT;
    resp.n_detection = 2;
    resp.detection = frames;
    resp.robot_control_response = &rcr;
    uint8_t expected[2048];
    size_t expected_len = simulation_sync_response__pack (&resp, expected);
    /* the same, spliced field by field */
    uint8_t got[2048];
    size_t len = 0;
    for (int i = 0; i < 2; i++) {
        const uint8_t *det;
        size_t det_len;
        cr_assert (gw_wire_bytes_field (wrappers[i], lens[i], 1, &det, &det_len));
        cr_expect_eq (gw_wire_bytes_size (1, det_len), det_len + 2 + (det_len >= 128));
        len += gw_wire_put_bytes (got + len, 1, det, det_len);
    }
    uint8_t packed_rcr[64];
    size_t rcr_len = robot_control_response__pack (&rcr, packed_rcr);
    len += gw_wire_put_bytes (got + len, 2, packed_rcr, rcr_len);
    cr_assert_eq (len, expected_len);
    cr_expect_arr_eq (got, expected, len);
    for (int i = 0; i < 2; i++)
        ssl__wrapper_packet__free_unpacked (unpacked[i], NULL);
}

Test (gw_wire, a_missing_or_cut_field_is_not_found)
{
    uint8_t w[512];
    size_t n = s_wrapper (w, 0, 2.0, false);
    const uint8_t *out;
    size_t out_len;
    cr_expect (!gw_wire_bytes_field (w, n, 2, &out, &out_len), "no geometry in this packet");
    cr_expect (!gw_wire_bytes_field (w, n - 1, 1, &out, &out_len), "the detection frame is cut");
    cr_expect (!gw_wire_bytes_field (w, 0, 1, &out, &out_len));
}
