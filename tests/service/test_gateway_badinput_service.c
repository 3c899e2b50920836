/*  test_gateway_badinput_service.c - bad input on every port of the
    gateway (on the bench of test_gateway_support.h): datagrams that are
    not protobuf, huge commands, absurd steps, field zero; each gets its
    one answer and the gateway goes on.
*/
#include "test_gateway_support.h"

/* ---- bad input on every port (was tests/system/test_badinput.c) ------------ */

/* The codes of the next answer at the client, comma separated ("" for
   none), read as the response type of `port`. */
static const char *
s_answer_codes (gw_test_bench_t *b, int port, char *out, size_t cap)
{
    size_t n = gw_test_recv (b, GW_TEST_WAIT_MS);
    SimulatorError **errors;
    size_t count;
    SimulatorResponse *sr = NULL;
    RobotControlResponse *rr = NULL;
    if (port == b->cfg.network.control_port) {
        sr = simulator_response__unpack (NULL, n, b->buf);
        cr_assert_not_null (sr, "the answer is not a SimulatorResponse");
        errors = sr->errors;
        count = sr->n_errors;
    } else {
        rr = robot_control_response__unpack (NULL, n, b->buf);
        cr_assert_not_null (rr, "the answer is not a RobotControlResponse");
        errors = rr->errors;
        count = rr->n_errors;
    }
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (i)
            strncat (out, ",", cap - strlen (out) - 1);
        strncat (out, errors[i]->code ? errors[i]->code : "?", cap - strlen (out) - 1);
    }
    if (sr)
        simulator_response__free_unpacked (sr, NULL);
    if (rr)
        robot_control_response__free_unpacked (rr, NULL);
    return out;
}

/* Send raw `bytes` to `port`: physics gets them as a request (not a sync
   step) and answers without an error. Returns the codes of the client's
   answer, as s_answer_codes. */
static const char *
s_through (gw_test_bench_t *b, int port, const void *bytes, size_t len, char *out, size_t cap)
{
    cr_assert_eq (sim_test_send_raw (b->fd, port, bytes, len), 0);
    Simbus__Envelope *env = gw_test_request (b);
    cr_expect (!(env->request->has_sync && env->request->sync), "a plain datagram became a sync step");
    gw_test_reply (b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    return s_answer_codes (b, port, out, cap);
}

/* A SimulatorCommand that teleports the ball to (x, y), in the caller's
   storage. */
static SimulatorCommand *
s_ball_command (SimulatorCommand *cmd, SimulatorControl *control, TeleportBall *tb, float x, float y)
{
    teleport_ball__init (tb);
    tb->has_x = tb->has_y = true;
    tb->x = x;
    tb->y = y;
    simulator_control__init (control);
    control->teleport_ball = tb;
    simulator_command__init (cmd);
    cmd->control = control;
    return cmd;
}

/* Empty, truncated, oversized, random and wrong-type datagrams on each of
   the three ports: an empty one is the port's empty message and goes to
   physics; every other one is answered UNREADABLE by the gateway and
   never reaches physics (spec/protocol.md §3, §6). */
static void
s_bad_datagrams (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    static uint8_t big[65507], buf[2048];
    char codes[4096];
    const int ports[3] = { b.cfg.network.control_port, b.cfg.network.blue_port, b.cfg.network.yellow_port };

    /* a valid message of each port's type, to cut */
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportBall tb;
    s_ball_command (&cmd, &control, &tb, 0, 0);
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand rcmd = ROBOT_COMMAND__INIT;
    rcmd.move_command = &move;
    RobotCommand *rptr = &rcmd;
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = &rptr;
    /* a vision packet: the wrong message type everywhere */
    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.frame_number = 7;
    det.t_capture = 1.5;
    det.t_sent = 1.6;
    det.camera_id = 1;
    SSLWrapperPacket wrapper = SSL__WRAPPER_PACKET__INIT;
    wrapper.detection = &det;

    for (int p = 0; p < 3; p++) {
        int port = ports[p];
        /* empty: a valid, empty message of the port's type */
        cr_expect_str_eq (s_through (&b, port, "", 0, codes, sizeof codes), "", "empty datagram on %d", port);
        /* truncated */
        size_t len =
            p == 0 ? protobuf_c_message_pack (&cmd.base, buf) : protobuf_c_message_pack (&rc.base, buf);
        cr_assert_gt (len, 3);
        cr_assert_eq (sim_test_send_raw (b.fd, port, buf, len - 2), 0);
        cr_expect_str_eq (s_answer_codes (&b, port, codes, sizeof codes), "UNREADABLE", "truncated on %d",
                          port);
        /* oversized: the largest datagram there is, all 0xff */
        memset (big, 0xff, sizeof big);
        cr_assert_eq (sim_test_send_raw (b.fd, port, big, sizeof big), 0);
        cr_expect_str_eq (s_answer_codes (&b, port, codes, sizeof codes), "UNREADABLE", "64 KiB on %d", port);
        /* random bytes (seeded; a zero field number makes them invalid) */
        uint32_t x = 12345u + (uint32_t) p;
        for (size_t i = 0; i < 1000; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (uint8_t) (x >> 24);
        }
        buf[0] = 0x02;
        cr_assert_eq (sim_test_send_raw (b.fd, port, buf, 1000), 0);
        cr_expect_str_eq (s_answer_codes (&b, port, codes, sizeof codes), "UNREADABLE", "random bytes on %d",
                          port);
        /* the wrong message type */
        len = protobuf_c_message_pack (&wrapper.base, buf);
        cr_assert_eq (sim_test_send_raw (b.fd, port, buf, len), 0);
        cr_expect_str_eq (s_answer_codes (&b, port, codes, sizeof codes), "UNREADABLE", "vision packet on %d",
                          port);
        cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                      "an unreadable datagram reached physics");
    }
    gw_test_stop (&b);
}

Test (gateway_service, bad_datagrams_lanes)
{
    s_bad_datagrams (true);
}
Test (gateway_service, bad_datagrams_zmq)
{
    s_bad_datagrams (false);
}

/* A RobotControl of 12 000 commands (a huge repeated field in one
   datagram) reaches physics whole, and physics' errors reach the client;
   that each is UNKNOWN_ROBOT, bounded, is tests/unit/test_phys_apply.c's. */
static void
s_huge_robot_control (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    enum { HUGE = 12000 };
    static RobotCommand many[HUGE];
    static RobotCommand *many_ptrs[HUGE];
    for (int i = 0; i < HUGE; i++) {
        robot_command__init (&many[i]);
        many[i].id = 300;
        many_ptrs[i] = &many[i];
    }
    RobotControl huge = ROBOT_CONTROL__INIT;
    huge.n_robot_commands = HUGE;
    huge.robot_commands = many_ptrs;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &huge.base), 0);
    Simbus__Envelope *env = gw_test_request (&b);
    const Simbus__TeamControl *team = env->request->team_control;
    cr_assert (team && team->control, "the robot control did not reach physics");
    cr_expect_eq (team->control->n_robot_commands, HUGE);
    SimulatorError err = SIMULATOR_ERROR__INIT;
    err.code = (char *) "UNKNOWN_ROBOT";
    err.message = (char *) "UNKNOWN_ROBOT: from the fake physics";
    SimulatorError *errs[1] = { &err };
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = env->request->id;
    reply.n_robot_errors = 1;
    reply.robot_errors = errs;
    cr_assert_eq (sim_svc_peer_reply (b.physics, &reply), 0);
    simbus__envelope__free_unpacked (env, NULL);
    char codes[256];
    cr_expect (
        strncmp (s_answer_codes (&b, b.cfg.network.blue_port, codes, sizeof codes), "UNKNOWN_ROBOT", 13) == 0,
        "12 000 unknown ids: '%.60s'", codes);
    gw_test_stop (&b);
}

Test (gateway_service, huge_robot_control_lanes)
{
    s_huge_robot_control (true);
}
Test (gateway_service, huge_robot_control_zmq)
{
    s_huge_robot_control (false);
}

/* A sync request with an absurd step (1e30 s) and a command: the command
   goes to physics without substeps, and the answer lists physics' errors
   (a NaN teleport is UNSUPPORTED there, tests/unit/test_phys_apply.c)
   before the gateway's INVALID_STEP. */
static void
s_invalid_step (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportBall tb;
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 1e30f;
    sync.simulator_command = s_ball_command (&cmd, &control, &tb, NAN, NAN);
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    Simbus__Envelope *env = gw_test_request (&b);
    cr_expect (!env->request->has_substeps || env->request->substeps == 0, "an invalid step has substeps");
    cr_assert (env->request->simulator_command && env->request->simulator_command->control,
               "the step's command did not reach physics");
    gw_test_reply (&b, env->request->id, "UNSUPPORTED");
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulationSyncResponse");
    RobotControlResponse *rr = r->robot_control_response;
    cr_expect (rr && rr->n_errors == 2 && strcmp (rr->errors[0]->code, "UNSUPPORTED") == 0
                   && strcmp (rr->errors[1]->code, "INVALID_STEP") == 0,
               "not physics' UNSUPPORTED, then INVALID_STEP");
    simulation_sync_response__free_unpacked (r, NULL);
    gw_test_stop (&b);
}

Test (gateway_service, invalid_step_lanes)
{
    s_invalid_step (true);
}
Test (gateway_service, invalid_step_zmq)
{
    s_invalid_step (false);
}

/* The hex reproducers of issue 11 (was tests/system/test_edge.c): `80 00
   00` on the control port and a RobotCommand {id 2} holding it on the
   blue port, five times each. A field number 0 is no protobuf (the
   league's parsers refuse it, issue 24): every time UNREADABLE, and
   nothing reaches physics. */
static void
s_field_zero_every_time (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    const uint8_t control[] = { 0x80, 0x00, 0x00 };
    const uint8_t blue[] = { 0x0a, 0x05, 0x08, 0x02, 0x80, 0x00, 0x00 };
    char codes[256];
    for (int i = 0; i < 5; i++) {
        cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.control_port, control, sizeof control), 0);
        cr_expect_str_eq (s_answer_codes (&b, b.cfg.network.control_port, codes, sizeof codes), "UNREADABLE",
                          "control port 800000, try %d", i);
        cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.blue_port, blue, sizeof blue), 0);
        cr_expect_str_eq (s_answer_codes (&b, b.cfg.network.blue_port, codes, sizeof codes), "UNREADABLE",
                          "blue port 0a050802800000, try %d", i);
    }
    /* none of them reached physics: the next request it gets is this ping */
    gw_test_command_round_trip (&b, "AFTER");
    gw_test_stop (&b);
}

Test (gateway_service, field_zero_every_time_lanes)
{
    s_field_zero_every_time (true);
}
Test (gateway_service, field_zero_every_time_zmq)
{
    s_field_zero_every_time (false);
}
