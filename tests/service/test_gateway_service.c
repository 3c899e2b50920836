/*  test_gateway_service.c - the gateway actor alone, in-process, between
    a UDP client on 127.0.0.1 and a fake physics and vision on the bus
    (test_gateway_support.h): commands and their responses, sync steps
    answered with vision's frames or, without vision, after [bus]
    sync_timeout, a second reply for one request, and undecodable
    datagrams and bus messages. The hardened edge and tournament mode are
    test_gateway_edge_service.c; bad input on every port
    test_gateway_badinput_service.c. Every case runs over both carriers
    (lanes on and off).
*/
#include "test_gateway_support.h"

/* ---- plain requests --------------------------------------------------- */

static void
s_command (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    gw_test_command_round_trip (&b, "FIRST");
    gw_test_command_round_trip (&b, "SECOND");
    gw_test_stop (&b);
}

Test (gateway_service, command_lanes)
{
    s_command (true);
}
Test (gateway_service, command_zmq)
{
    s_command (false);
}

static void
s_robot_control (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    const int ports[2] = { b.cfg.network.blue_port, b.cfg.network.yellow_port };
    for (uint32_t team = 0; team < 2; team++) {
        RobotCommand rcmd = ROBOT_COMMAND__INIT;
        rcmd.id = 5 + team;
        RobotCommand *rcmds[1] = { &rcmd };
        RobotControl rc = ROBOT_CONTROL__INIT;
        rc.n_robot_commands = 1;
        rc.robot_commands = rcmds;
        cr_assert_eq (sim_test_send (b.fd, ports[team], &rc.base), 0);
        Simbus__Envelope *env = gw_test_request (&b);
        const Simbus__Request *req = env->request;
        cr_assert_not_null (req->team_control, "a team's control lost its team");
        cr_expect_eq (req->team_control->team, team);
        cr_assert_eq (req->team_control->control->n_robot_commands, 1);
        cr_expect_eq (req->team_control->control->robot_commands[0]->id, 5 + team);
        cr_expect_null (req->simulator_command);

        RobotFeedback fb = ROBOT_FEEDBACK__INIT;
        fb.id = 5 + team;
        fb.has_dribbler_ball_contact = fb.dribbler_ball_contact = true;
        RobotFeedback *fbs[1] = { &fb };
        SimulatorError err = SIMULATOR_ERROR__INIT;
        err.code = (char *) "ROBOT_ERR";
        SimulatorError *errs[1] = { &err };
        Simbus__Reply reply = SIMBUS__REPLY__INIT;
        reply.id = req->id;
        reply.n_robot_errors = 1;
        reply.robot_errors = errs;
        reply.n_feedback = 1;
        reply.feedback = fbs;
        cr_assert_eq (sim_svc_peer_reply (b.physics, &reply), 0);
        simbus__envelope__free_unpacked (env, NULL);

        size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
        RobotControlResponse *r = robot_control_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (r, "the answer is not a RobotControlResponse");
        cr_expect (sim_svc_has_error (r->errors, r->n_errors, "ROBOT_ERR"));
        cr_assert_eq (r->n_feedback, 1);
        cr_expect_eq (r->feedback[0]->id, 5 + team);
        cr_expect (r->feedback[0]->dribbler_ball_contact);
        robot_control_response__free_unpacked (r, NULL);
    }
    gw_test_stop (&b);
}

Test (gateway_service, robot_control_lanes)
{
    s_robot_control (true);
}
Test (gateway_service, robot_control_zmq)
{
    s_robot_control (false);
}

/* ---- sync steps ------------------------------------------------------- */

/* A packed SSL_WrapperPacket with a detection frame numbered `number`. */
static size_t
s_wrapper (uint8_t *buf, size_t cap, uint32_t number)
{
    SSLDetectionFrame frame = SSL__DETECTION_FRAME__INIT;
    frame.frame_number = number;
    frame.t_capture = 1.5;
    frame.t_sent = 1.6;
    frame.camera_id = number % 4;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = &frame;
    size_t len = ssl__wrapper_packet__get_packed_size (&w);
    cr_assert_leq (len, cap);
    return ssl__wrapper_packet__pack (&w, buf);
}

/* Vision's end of step `id` with frames numbered first.. (count of them)
   and, when `with_reply`, physics' reply. */
static void
s_frames_done (gw_test_bench_t *b, uint64_t id, uint32_t first, int count, bool with_reply)
{
    uint8_t bytes[4][256];
    ProtobufCBinaryData wrappers[4];
    cr_assert_leq (count, 4);
    for (int i = 0; i < count; i++)
        wrappers[i] =
            (ProtobufCBinaryData) { s_wrapper (bytes[i], sizeof bytes[i], first + (uint32_t) i), bytes[i] };
    gw_test_send_frames_done (b, id, wrappers, count, with_reply);
}

/* The client's sync answer: its detection frames must be numbered
   first.. (count of them), in order. */
static void
s_expect_frames (gw_test_bench_t *b, size_t n, uint32_t first, size_t count)
{
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b->buf);
    cr_assert_not_null (r, "the answer is not a SimulationSyncResponse");
    cr_expect_eq (r->n_detection, count, "%zu frames in the answer, not %zu", r->n_detection, count);
    for (size_t i = 0; i < r->n_detection && i < count; i++)
        cr_expect_eq (r->detection[i]->frame_number, first + i);
    cr_expect_null (r->robot_control_response, "an answer without errors has a robot response");
    simulation_sync_response__free_unpacked (r, NULL);
}

static void
s_sync_with_frames (bool lanes)
{
    gw_test_bench_t b;
    /* a long timeout: an answer that waited for it fails the test */
    gw_test_start (&b, lanes, 10.0);
    Simbus__Envelope *env = gw_test_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_frames_done (&b, id, 41, 2, true);
    s_expect_frames (&b, gw_test_recv (&b, GW_TEST_WAIT_MS), 41, 2);
    /* the next step is answered with its own frames */
    env = gw_test_sync_request (&b);
    id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_frames_done (&b, id, 50, 3, true);
    s_expect_frames (&b, gw_test_recv (&b, GW_TEST_WAIT_MS), 50, 3);
    gw_test_stop (&b);
}

Test (gateway_service, sync_with_frames_lanes)
{
    s_sync_with_frames (true);
}
Test (gateway_service, sync_with_frames_zmq)
{
    s_sync_with_frames (false);
}

static void
s_sync_without_vision (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    Simbus__Envelope *env = gw_test_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    /* physics answers itself when no vision took the step's end */
    int64_t replied = zclock_mono ();
    gw_test_reply (&b, id, NULL);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    int64_t waited = zclock_mono () - replied;
    cr_expect_geq (waited, 190, "answered %lld ms after physics' reply, before sync_timeout",
                   (long long) waited);
    s_expect_frames (&b, n, 0, 0);
    gw_test_stop (&b);
}

Test (gateway_service, sync_without_vision_lanes)
{
    s_sync_without_vision (true);
}
Test (gateway_service, sync_without_vision_zmq)
{
    s_sync_without_vision (false);
}

/* Two replies for one pending sync step, then vision's end without one:
   one answer. A reply for a step already answered: none. Run under
   `make asan` for the leak check.
   Regression: s_handle_reply read env->body_case after handing env to
   gw_pending_set_reply, which frees a second reply (a use after free
   that AddressSanitizer reported). */
static void
s_second_reply (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 10.0);
    Simbus__Envelope *env = gw_test_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    gw_test_reply (&b, id, "FIRST");
    gw_test_reply (&b, id, "SECOND");
    s_frames_done (&b, id, 7, 1, false);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_expect_eq (r->n_detection, 1);
    /* the first reply counts: its error is in the answer */
    cr_assert_not_null (r->robot_control_response, "the answer lost the reply's error");
    cr_expect (
        sim_svc_has_error (r->robot_control_response->errors, r->robot_control_response->n_errors, "FIRST"));
    cr_expect (!sim_svc_has_error (r->robot_control_response->errors, r->robot_control_response->n_errors,
                                   "SECOND"));
    simulation_sync_response__free_unpacked (r, NULL);

    /* answered: a late reply and a late end of the step find nothing */
    gw_test_reply (&b, id, "LATE");
    s_frames_done (&b, id, 8, 1, true);
    /* the next datagram at the client is the next command's answer */
    gw_test_command_round_trip (&b, "NEXT");
    gw_test_stop (&b);
}

Test (gateway_service, second_reply_lanes)
{
    s_second_reply (true);
}
Test (gateway_service, second_reply_zmq)
{
    s_second_reply (false);
}

/* ---- bad input -------------------------------------------------------- */

static void
s_unreadable (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    /* a varint that never ends: neither the port's message nor a sync request */
    const uint8_t junk[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.control_port, junk, sizeof junk), 0);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, "UNREADABLE"));
    simulator_response__free_unpacked (r, NULL);
    const int team_ports[2] = { b.cfg.network.blue_port, b.cfg.network.yellow_port };
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (sim_test_send_raw (b.fd, team_ports[i], junk, sizeof junk), 0);
        n = gw_test_recv (&b, GW_TEST_WAIT_MS);
        RobotControlResponse *rr = robot_control_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (rr);
        cr_expect (sim_svc_has_error (rr->errors, rr->n_errors, "UNREADABLE"));
        robot_control_response__free_unpacked (rr, NULL);
    }

    /* bus messages for nothing pending: a reply and an end of a step of
       unknown ids, and a reply for a command already answered */
    gw_test_command_round_trip (&b, "BEFORE");
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = 987654;
    cr_assert_eq (sim_svc_peer_reply (b.physics, &reply), 0);
    gw_test_reply (&b, 1, "AGAIN");
    s_frames_done (&b, 987654, 1, 1, true);
    /* none of it reached physics; the next command goes through */
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0);
    gw_test_command_round_trip (&b, "AFTER");
    gw_test_stop (&b);
}

Test (gateway_service, unreadable_lanes)
{
    s_unreadable (true);
}
Test (gateway_service, unreadable_zmq)
{
    s_unreadable (false);
}
