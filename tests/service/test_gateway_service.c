/*  test_gateway_service.c - the gateway actor alone, in-process, between
    a UDP client on 127.0.0.1 and a fake physics and vision on the bus:
    commands and their responses, sync steps answered with vision's
    frames or, without vision, after [bus] sync_timeout, a second reply
    for one request, and undecodable datagrams and bus messages. The
    hardened edge (issue 11): unknown fields never reach physics, a
    request physics does not answer is answered UNAVAILABLE (once), one
    source cannot hold the table, an unproven source gets a small first
    answer, and [network] sync_takeover. Tournament mode: the client's
    127.0.0.1 in one role, refused in the others. Every case runs over
    both carriers (lanes on and off).
*/
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "tests/support/sim_service_test.h"
#include "tests/support/sim_test.h"
#include "services/gateway/gateway.h"
#include "ssl_gc_common.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_error.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_detection.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define S_WAIT_MS 3000

typedef struct {
    sim_config_t cfg;
    sim_svc_peer_t *physics, *vision;
    zactor_t *gateway;
    int fd; /* the client */
    uint8_t buf[65536];
} s_bench_t;

/* The bench in `mode`, with [network] sync_takeover = `takeover` and
   [tournament] = *tournament (NULL: the default, off). */
static void
s_start_with (s_bench_t *b, bool lanes, double sync_timeout, sim_mode_t mode, bool takeover,
              const sim_tournament_cfg_t *tournament)
{
    memset (b, 0, sizeof *b);
    cr_assert_eq (sim_svc_config (&b->cfg, "gw", mode, lanes), 0);
    b->cfg.bus.sync_timeout = sync_timeout;
    b->cfg.network.sync_takeover = takeover;
    if (tournament)
        b->cfg.tournament = *tournament;
    /* the binders first, as in ssl-sim */
    b->physics = sim_svc_peer_new (&b->cfg, SIM_LINK_PHYSICS);
    b->vision = sim_svc_peer_new (&b->cfg, SIM_LINK_VISION);
    cr_assert (b->physics && b->vision);
    b->gateway = sim_svc_start (gw_service_actor, &b->cfg);
    cr_assert_not_null (b->gateway, "the gateway did not start");
    b->fd = sim_test_udp (0);
    cr_assert_geq (b->fd, 0);
}

/* The bench in `mode`, with [network] sync_takeover = `takeover`. */
static void
s_start_in (s_bench_t *b, bool lanes, double sync_timeout, sim_mode_t mode, bool takeover)
{
    s_start_with (b, lanes, sync_timeout, mode, takeover, NULL);
}

static void
s_start (s_bench_t *b, bool lanes, double sync_timeout)
{
    s_start_in (b, lanes, sync_timeout, SIM_MODE_SYNC, true);
}

static void
s_stop (s_bench_t *b)
{
    zactor_destroy (&b->gateway);
    sim_svc_peer_destroy (&b->vision);
    sim_svc_peer_destroy (&b->physics);
    close (b->fd);
}

/* The next request the fake physics gets (caller frees). */
static Simbus__Envelope *
s_request (s_bench_t *b)
{
    Simbus__Envelope *env = sim_svc_peer_wait (b->physics, SIMBUS__ENVELOPE__BODY_REQUEST, S_WAIT_MS);
    cr_assert_not_null (env, "physics got no request");
    return env;
}

/* Answer the last request with an error whose code is `code` (NULL: none). */
static void
s_reply (s_bench_t *b, uint64_t id, const char *code)
{
    SimulatorError err = SIMULATOR_ERROR__INIT;
    err.code = (char *) code;
    err.message = (char *) "from the fake physics";
    SimulatorError *errs[1] = { &err };
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = id;
    reply.time_ns = 1000000;
    reply.n_errors = code ? 1 : 0;
    reply.errors = errs;
    cr_assert_eq (sim_svc_peer_reply (b->physics, &reply), 0);
}

/* The next datagram at the client (its size), within ms. */
static size_t
s_recv (s_bench_t *b, int ms)
{
    ssize_t n = sim_test_recv (b->fd, b->buf, sizeof b->buf, ms);
    cr_assert_geq (n, 0, "the client got no answer");
    return (size_t) n;
}

static SimulatorCommand *
s_teleport (SimulatorCommand *cmd, SimulatorControl *control, TeleportRobot *robot, TeleportRobot **robots,
            RobotId *rid)
{
    simulator_command__init (cmd);
    simulator_control__init (control);
    teleport_robot__init (robot);
    robot_id__init (rid);
    rid->has_id = rid->has_team = true;
    rid->id = 3;
    rid->team = TEAM__YELLOW;
    robot->id = rid;
    robot->has_x = true;
    robot->x = 0.25f;
    robots[0] = robot;
    control->n_teleport_robot = 1;
    control->teleport_robot = robots;
    cmd->control = control;
    return cmd;
}

/* A teleport on the control port, answered by physics with error `code`:
   the client gets a SimulatorResponse with it. */
static void
s_command_round_trip (s_bench_t *b, const char *code)
{
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportRobot robot, *robots[1];
    RobotId rid;
    cr_assert_eq (sim_test_send (b->fd, b->cfg.network.control_port,
                                 &s_teleport (&cmd, &control, &robot, robots, &rid)->base),
                  0);
    Simbus__Envelope *env = s_request (b);
    const Simbus__Request *req = env->request;
    cr_assert_not_null (req->simulator_command, "the request lost its command");
    cr_assert_not_null (req->simulator_command->control);
    cr_expect_eq (req->simulator_command->control->n_teleport_robot, 1);
    cr_expect (!req->has_substeps && !req->has_step_id && !(req->has_sync && req->sync));
    cr_expect_null (req->team_control);
    s_reply (b, req->id, code);
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = s_recv (b, S_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b->buf);
    cr_assert_not_null (r, "the answer is not a SimulatorResponse");
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, code), "the answer lost physics' error %s", code);
    simulator_response__free_unpacked (r, NULL);
}

/* ---- plain requests --------------------------------------------------- */

static void
s_command (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    s_command_round_trip (&b, "FIRST");
    s_command_round_trip (&b, "SECOND");
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    const int ports[2] = { b.cfg.network.blue_port, b.cfg.network.yellow_port };
    for (uint32_t team = 0; team < 2; team++) {
        RobotCommand rcmd = ROBOT_COMMAND__INIT;
        rcmd.id = 5 + team;
        RobotCommand *rcmds[1] = { &rcmd };
        RobotControl rc = ROBOT_CONTROL__INIT;
        rc.n_robot_commands = 1;
        rc.robot_commands = rcmds;
        cr_assert_eq (sim_test_send (b.fd, ports[team], &rc.base), 0);
        Simbus__Envelope *env = s_request (&b);
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

        size_t n = s_recv (&b, S_WAIT_MS);
        RobotControlResponse *r = robot_control_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (r, "the answer is not a RobotControlResponse");
        cr_expect (sim_svc_has_error (r->errors, r->n_errors, "ROBOT_ERR"));
        cr_assert_eq (r->n_feedback, 1);
        cr_expect_eq (r->feedback[0]->id, 5 + team);
        cr_expect (r->feedback[0]->dribbler_ball_contact);
        robot_control_response__free_unpacked (r, NULL);
    }
    s_stop (&b);
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

/* Send a 10 ms sync step on the control port; returns its request at
   physics (caller frees), checked. */
static Simbus__Envelope *
s_sync_request (s_bench_t *b)
{
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b->fd, b->cfg.network.control_port, &sync.base), 0);
    Simbus__Envelope *env = s_request (b);
    const Simbus__Request *req = env->request;
    cr_expect (req->has_sync && req->sync, "a sync step does not hold the clock");
    cr_assert (req->has_step_id, "a sync step has no step id");
    cr_expect_eq (req->step_id, req->id);
    cr_expect (req->has_substeps);
    cr_expect_eq (req->substeps, (uint64_t) (0.01 / b->cfg.sim.substep + 0.5));
    return env;
}

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

/* Vision's end of step `id` with the packets wrappers[count] and, when
   `with_reply`, physics' reply. Sent until a carrier takes it (a ZeroMQ
   subscription may still be on its way). */
static void
s_send_frames_done (s_bench_t *b, uint64_t id, ProtobufCBinaryData *wrappers, int count, bool with_reply)
{
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = id;
    reply.time_ns = 10000000;
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = id;
    done.time_ns = reply.time_ns;
    done.n_wrapper = (size_t) count;
    done.wrapper = wrappers;
    done.reply = with_reply ? &reply : NULL;
    int64_t end = zclock_mono () + S_WAIT_MS;
    while (sim_svc_send (sim_svc_peer_link (b->vision), SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done) <= 0) {
        cr_assert_lt (zclock_mono (), end, "nobody takes vision's end of a step");
        sim_svc_peer_pump (b->vision, 10);
    }
}

/* Vision's end of step `id` with frames numbered first.. (count of them)
   and, when `with_reply`, physics' reply. */
static void
s_frames_done (s_bench_t *b, uint64_t id, uint32_t first, int count, bool with_reply)
{
    uint8_t bytes[4][256];
    ProtobufCBinaryData wrappers[4];
    cr_assert_leq (count, 4);
    for (int i = 0; i < count; i++)
        wrappers[i] =
            (ProtobufCBinaryData) { s_wrapper (bytes[i], sizeof bytes[i], first + (uint32_t) i), bytes[i] };
    s_send_frames_done (b, id, wrappers, count, with_reply);
}

/* The client's sync answer: its detection frames must be numbered
   first.. (count of them), in order. */
static void
s_expect_frames (s_bench_t *b, size_t n, uint32_t first, size_t count)
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
    s_bench_t b;
    /* a long timeout: an answer that waited for it fails the test */
    s_start (&b, lanes, 10.0);
    Simbus__Envelope *env = s_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_frames_done (&b, id, 41, 2, true);
    s_expect_frames (&b, s_recv (&b, S_WAIT_MS), 41, 2);
    /* the next step is answered with its own frames */
    env = s_sync_request (&b);
    id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_frames_done (&b, id, 50, 3, true);
    s_expect_frames (&b, s_recv (&b, S_WAIT_MS), 50, 3);
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    Simbus__Envelope *env = s_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    /* physics answers itself when no vision took the step's end */
    int64_t replied = zclock_mono ();
    s_reply (&b, id, NULL);
    size_t n = s_recv (&b, S_WAIT_MS);
    int64_t waited = zclock_mono () - replied;
    cr_expect_geq (waited, 190, "answered %lld ms after physics' reply, before sync_timeout",
                   (long long) waited);
    s_expect_frames (&b, n, 0, 0);
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 10.0);
    Simbus__Envelope *env = s_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_reply (&b, id, "FIRST");
    s_reply (&b, id, "SECOND");
    s_frames_done (&b, id, 7, 1, false);
    size_t n = s_recv (&b, S_WAIT_MS);
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
    s_reply (&b, id, "LATE");
    s_frames_done (&b, id, 8, 1, true);
    /* the next datagram at the client is the next command's answer */
    s_command_round_trip (&b, "NEXT");
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    /* a varint that never ends: neither the port's message nor a sync request */
    const uint8_t junk[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.control_port, junk, sizeof junk), 0);
    size_t n = s_recv (&b, S_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, "UNREADABLE"));
    simulator_response__free_unpacked (r, NULL);
    const int team_ports[2] = { b.cfg.network.blue_port, b.cfg.network.yellow_port };
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (sim_test_send_raw (b.fd, team_ports[i], junk, sizeof junk), 0);
        n = s_recv (&b, S_WAIT_MS);
        RobotControlResponse *rr = robot_control_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (rr);
        cr_expect (sim_svc_has_error (rr->errors, rr->n_errors, "UNREADABLE"));
        robot_control_response__free_unpacked (rr, NULL);
    }

    /* bus messages for nothing pending: a reply and an end of a step of
       unknown ids, and a reply for a command already answered */
    s_command_round_trip (&b, "BEFORE");
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = 987654;
    cr_assert_eq (sim_svc_peer_reply (b.physics, &reply), 0);
    s_reply (&b, 1, "AGAIN");
    s_frames_done (&b, 987654, 1, 1, true);
    /* none of it reached physics; the next command goes through */
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0);
    s_command_round_trip (&b, "AFTER");
    s_stop (&b);
}

Test (gateway_service, unreadable_lanes)
{
    s_unreadable (true);
}
Test (gateway_service, unreadable_zmq)
{
    s_unreadable (false);
}

/* ---- the hardened edge (issue 11) ------------------------------------- */

/* Send raw bytes from fd to the gateway's `port`. */
static void
s_send_hex (int fd, int port, const uint8_t *bytes, size_t len)
{
    cr_assert_eq (sim_test_send_raw (fd, port, bytes, len), 0);
}

/* Regression: protobuf-c takes a field-0 key written in two bytes (`80
   00`) as an unknown field and packs it again as `00 00`, which physics
   cannot decode: the request never arrived and the client got no answer.
   What physics gets now decodes (the fake physics decodes it like
   physics), without the unknown field, and the rest of the datagram (a
   nested RobotCommand, a teleport) is intact. */
static void
s_unknown_field_zero (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    const uint8_t control[] = { 0x80, 0x00, 0x00 };
    s_send_hex (b.fd, b.cfg.network.control_port, control, sizeof control);
    Simbus__Envelope *env = s_request (&b);
    cr_assert_not_null (env->request->simulator_command);
    cr_expect_eq (env->request->simulator_command->base.n_unknown_fields, 0);
    s_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = s_recv (&b, S_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulatorResponse");
    cr_expect_eq (r->n_errors, 0);
    simulator_response__free_unpacked (r, NULL);

    /* blue: one RobotCommand {id 2} holding the field inside */
    const uint8_t blue[] = { 0x0a, 0x05, 0x08, 0x02, 0x80, 0x00, 0x00 };
    s_send_hex (b.fd, b.cfg.network.blue_port, blue, sizeof blue);
    env = s_request (&b);
    const Simbus__TeamControl *team = env->request->team_control;
    cr_assert (team && team->control && team->control->n_robot_commands == 1,
               "the robot command did not reach physics");
    cr_expect_eq (team->control->robot_commands[0]->id, 2);
    cr_expect_eq (team->control->robot_commands[0]->base.n_unknown_fields, 0);
    s_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    n = s_recv (&b, S_WAIT_MS);
    RobotControlResponse *rr = robot_control_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (rr, "the answer is not a RobotControlResponse");
    robot_control_response__free_unpacked (rr, NULL);

    /* a teleport and the field: the teleport goes through */
    SimulatorCommand cmd;
    SimulatorControl ctl;
    TeleportRobot robot, *robots[1];
    RobotId rid;
    size_t len = protobuf_c_message_pack (&s_teleport (&cmd, &ctl, &robot, robots, &rid)->base, b.buf);
    memcpy (b.buf + len, control, sizeof control);
    s_send_hex (b.fd, b.cfg.network.control_port, b.buf, len + sizeof control);
    env = s_request (&b);
    const SimulatorCommand *got = env->request->simulator_command;
    cr_assert (got && got->control && got->control->n_teleport_robot == 1, "the teleport was lost");
    cr_expect_float_eq (got->control->teleport_robot[0]->x, 0.25f, 1e-6);
    s_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    s_recv (&b, S_WAIT_MS);
    s_stop (&b);
}

Test (gateway_service, unknown_field_zero_lanes)
{
    s_unknown_field_zero (true);
}
Test (gateway_service, unknown_field_zero_zmq)
{
    s_unknown_field_zero (false);
}

#define S_PLAIN_TTL_MS 4000 /* docs/protocol.md, "Every datagram is answered" */

/* Regression: a plain request physics never answered (physics down
   longer than the gateway waited) was forgotten in silence. Now the
   client gets UNAVAILABLE when the wait is over, not before, and a reply
   that comes after that is dropped: one answer. */
static void
s_unanswered (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    int team_fd = sim_test_udp (0);
    cr_assert_geq (team_fd, 0);
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    RobotControl rc = ROBOT_CONTROL__INIT;
    int64_t sent = zclock_mono ();
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &empty.base), 0);
    cr_assert_eq (sim_test_send (team_fd, b.cfg.network.blue_port, &rc.base), 0);
    Simbus__Envelope *first = s_request (&b);
    Simbus__Envelope *second = s_request (&b);
    /* physics is silent */
    size_t n = s_recv (&b, S_PLAIN_TTL_MS + 2000);
    int64_t waited = zclock_mono () - sent;
    cr_expect_geq (waited, S_PLAIN_TTL_MS - 100, "UNAVAILABLE after %lld ms, before the wait was over",
                   (long long) waited);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulatorResponse");
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, "UNAVAILABLE"));
    simulator_response__free_unpacked (r, NULL);
    ssize_t m = sim_test_recv (team_fd, b.buf, sizeof b.buf, 2000);
    cr_assert_geq (m, 0, "the team's request got no answer");
    RobotControlResponse *rr = robot_control_response__unpack (NULL, (size_t) m, b.buf);
    cr_assert_not_null (rr, "the answer is not a RobotControlResponse");
    cr_expect (sim_svc_has_error (rr->errors, rr->n_errors, "UNAVAILABLE"));
    robot_control_response__free_unpacked (rr, NULL);

    /* physics is back and answers late: nothing more reaches the clients */
    s_reply (&b, first->request->id, "LATE");
    s_reply (&b, second->request->id, "LATE");
    simbus__envelope__free_unpacked (first, NULL);
    simbus__envelope__free_unpacked (second, NULL);
    s_command_round_trip (&b, "NEXT");
    cr_expect_lt (sim_test_recv (team_fd, b.buf, sizeof b.buf, 0), 0, "a second answer to one request");
    close (team_fd);
    s_stop (&b);
}

Test (gateway_service, unanswered_lanes, .timeout = 30)
{
    s_unanswered (true);
}
Test (gateway_service, unanswered_zmq, .timeout = 30)
{
    s_unanswered (false);
}

#define S_SOURCE_SHARE 256 /* requests one source may hold (docs/protocol.md, "Fairness") */

/* Regression: one source could hold every pending slot while physics did
   not answer, and then nobody was answered. Now a source holds at most
   its share; the rest is refused at once with BUSY, and another source on
   the same port still gets through. */
static void
s_source_share (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    enum { EXTRA = 8 };
    uint64_t ids[S_SOURCE_SHARE];
    for (int i = 0; i < S_SOURCE_SHARE + EXTRA; i++)
        cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &empty.base), 0);
    for (int i = 0; i < S_SOURCE_SHARE; i++) {
        Simbus__Envelope *env = s_request (&b);
        ids[i] = env->request->id;
        simbus__envelope__free_unpacked (env, NULL);
    }
    for (int i = 0; i < EXTRA; i++) {
        size_t n = s_recv (&b, S_WAIT_MS);
        SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (r);
        cr_expect (sim_svc_has_error (r->errors, r->n_errors, "BUSY"), "request %d over the share: no BUSY",
                   i);
        simulator_response__free_unpacked (r, NULL);
    }
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                  "requests over the share reached physics");

    /* another source on the same port */
    int other = sim_test_udp (0);
    cr_assert_geq (other, 0);
    cr_assert_eq (sim_test_send (other, b.cfg.network.control_port, &empty.base), 0);
    Simbus__Envelope *env = s_request (&b);
    s_reply (&b, env->request->id, "OTHER");
    simbus__envelope__free_unpacked (env, NULL);
    ssize_t n = sim_test_recv (other, b.buf, sizeof b.buf, S_WAIT_MS);
    cr_assert_geq (n, 0, "the other source was not answered");
    SimulatorResponse *r = simulator_response__unpack (NULL, (size_t) n, b.buf);
    cr_assert_not_null (r);
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, "OTHER"));
    simulator_response__free_unpacked (r, NULL);
    close (other);

    /* physics answers the first source: its share is free again */
    for (int i = 0; i < S_SOURCE_SHARE; i++)
        s_reply (&b, ids[i], NULL);
    for (int i = 0; i < S_SOURCE_SHARE; i++)
        s_recv (&b, S_WAIT_MS);
    s_command_round_trip (&b, "AGAIN");
    s_stop (&b);
}

Test (gateway_service, source_share_lanes)
{
    s_source_share (true);
}
Test (gateway_service, source_share_zmq)
{
    s_source_share (false);
}

#define S_UNPROVEN_MAX 1200 /* an unproven source's answer (docs/protocol.md, "Amplification") */
#define S_BIG_FRAMES   4
#define S_BIG_ROBOTS   30

/* Vision's end of step `id` with S_BIG_FRAMES frames of S_BIG_ROBOTS
   robots each (about 900 bytes a frame), numbered first.., and physics'
   reply. */
static void
s_big_frames_done (s_bench_t *b, uint64_t id, uint32_t first)
{
    static uint8_t bytes[S_BIG_FRAMES][2048];
    ProtobufCBinaryData wrappers[S_BIG_FRAMES];
    SSLDetectionRobot robots[S_BIG_ROBOTS], *ptrs[S_BIG_ROBOTS];
    for (int i = 0; i < S_BIG_ROBOTS; i++) {
        ssl__detection_robot__init (&robots[i]);
        robots[i].confidence = 0.9f;
        robots[i].has_robot_id = true;
        robots[i].robot_id = (uint32_t) i;
        robots[i].x = 100.0f + (float) i;
        robots[i].y = -200.0f;
        robots[i].has_orientation = true;
        robots[i].orientation = 0.5f;
        robots[i].pixel_x = robots[i].pixel_y = 300.0f;
        ptrs[i] = &robots[i];
    }
    for (int i = 0; i < S_BIG_FRAMES; i++) {
        SSLDetectionFrame frame = SSL__DETECTION_FRAME__INIT;
        frame.frame_number = first + (uint32_t) i;
        frame.camera_id = (uint32_t) i;
        frame.n_robots_blue = S_BIG_ROBOTS;
        frame.robots_blue = ptrs;
        SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
        w.detection = &frame;
        cr_assert_leq (ssl__wrapper_packet__get_packed_size (&w), sizeof bytes[i]);
        wrappers[i] = (ProtobufCBinaryData) { ssl__wrapper_packet__pack (&w, bytes[i]), bytes[i] };
    }
    s_send_frames_done (b, id, wrappers, S_BIG_FRAMES, true);
}

/* Regression: a 5-byte sync request from an address never heard from got
   every frame of its step (35 806 bytes for a 0.5 s step), to a source
   that may be forged. Now the first answer to an unproven source keeps
   its newest frames within S_UNPROVEN_MAX bytes; once it asks again after
   that answer, it gets them all. */
static void
s_small_first_answer (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 10.0);
    Simbus__Envelope *env = s_sync_request (&b);
    uint64_t id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_big_frames_done (&b, id, 100);
    size_t n = s_recv (&b, S_WAIT_MS);
    cr_expect_leq (n, S_UNPROVEN_MAX, "%zu bytes to a source that proved nothing", n);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_assert_gt (r->n_detection, 0, "not even the newest frame");
    cr_expect_lt (r->n_detection, S_BIG_FRAMES);
    cr_expect_eq (r->detection[r->n_detection - 1]->frame_number, 100 + S_BIG_FRAMES - 1,
                  "the newest frames are kept");
    simulation_sync_response__free_unpacked (r, NULL);

    /* it asked again after the answer: proven */
    env = s_sync_request (&b);
    id = env->request->id;
    simbus__envelope__free_unpacked (env, NULL);
    s_big_frames_done (&b, id, 200);
    n = s_recv (&b, S_WAIT_MS);
    r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_expect_eq (r->n_detection, S_BIG_FRAMES, "a proven source gets every frame");
    simulation_sync_response__free_unpacked (r, NULL);
    s_stop (&b);
}

Test (gateway_service, small_first_answer_lanes)
{
    s_small_first_answer (true);
}
Test (gateway_service, small_first_answer_zmq)
{
    s_small_first_answer (false);
}

/* [network] sync_takeover = false: a sync request to a realtime
   simulator is refused at once (REFUSED) and never reaches physics; in
   sync mode it goes through as always. */
static void
s_sync_refused (bool lanes)
{
    s_bench_t b;
    s_start_in (&b, lanes, 0.2, SIM_MODE_REALTIME, false);
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    size_t n = s_recv (&b, S_WAIT_MS);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulationSyncResponse");
    cr_assert_not_null (r->robot_control_response);
    cr_expect (sim_svc_has_error (r->robot_control_response->errors, r->robot_control_response->n_errors,
                                  "REFUSED"));
    simulation_sync_response__free_unpacked (r, NULL);
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                  "a refused sync request reached physics");
    /* plain requests are not affected */
    s_command_round_trip (&b, "PLAIN");
    s_stop (&b);

    s_start_in (&b, lanes, 0.2, SIM_MODE_SYNC, false);
    Simbus__Envelope *env = s_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    s_stop (&b);
    /* the default: a realtime simulator is taken over */
    s_start_in (&b, lanes, 0.2, SIM_MODE_REALTIME, true);
    env = s_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    s_stop (&b);
}

Test (gateway_service, sync_refused_lanes)
{
    s_sync_refused (true);
}
Test (gateway_service, sync_refused_zmq)
{
    s_sync_refused (false);
}

/* ---- tournament mode -------------------------------------------------- */

static sim_tournament_cfg_t
s_tournament (const char *blue, const char *yellow, const char *control)
{
    sim_tournament_cfg_t t;
    memset (&t, 0, sizeof t);
    t.enabled = true;
    snprintf (t.blue, sizeof t.blue, "%s", blue);
    snprintf (t.yellow, sizeof t.yellow, "%s", yellow);
    snprintf (t.control, sizeof t.control, "%s", control);
    return t;
}

/* The errors of the next answer, unpacked as `kind` (0 control port,
   1 team port, 2 sync): true when one is FORBIDDEN with `words` in its
   message. */
static bool
s_forbidden (s_bench_t *b, int kind, const char *words)
{
    size_t n = s_recv (b, S_WAIT_MS);
    SimulatorError **errors = NULL;
    size_t count = 0;
    SimulatorResponse *sr = NULL;
    RobotControlResponse *rr = NULL;
    SimulationSyncResponse *yr = NULL;
    if (kind == 0 && (sr = simulator_response__unpack (NULL, n, b->buf))) {
        errors = sr->errors;
        count = sr->n_errors;
    } else if (kind == 1 && (rr = robot_control_response__unpack (NULL, n, b->buf))) {
        errors = rr->errors;
        count = rr->n_errors;
    } else if (kind == 2 && (yr = simulation_sync_response__unpack (NULL, n, b->buf))
               && yr->robot_control_response) {
        errors = yr->robot_control_response->errors;
        count = yr->robot_control_response->n_errors;
    }
    bool found = false;
    for (size_t i = 0; i < count; i++)
        found |= strcmp (errors[i]->code, "FORBIDDEN") == 0 && errors[i]->message
              && strstr (errors[i]->message, words) != NULL;
    if (sr)
        simulator_response__free_unpacked (sr, NULL);
    if (rr)
        robot_control_response__free_unpacked (rr, NULL);
    if (yr)
        simulation_sync_response__free_unpacked (yr, NULL);
    return found;
}

/* Blue is 127.0.0.1, the test's client: the blue port takes it, the
   yellow and control ports refuse it, and so does a sync request on its
   own port; none of the refused datagrams reaches physics. */
static void
s_tournament_team (bool lanes)
{
    s_bench_t b;
    sim_tournament_cfg_t t = s_tournament ("127.0.0.1", "10.0.0.2", "10.0.0.3");
    s_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    RobotControl rc = ROBOT_CONTROL__INIT;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &rc.base), 0);
    Simbus__Envelope *env = s_request (&b);
    cr_assert_not_null (env->request->team_control);
    cr_expect_eq (env->request->team_control->team, 0);
    s_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = s_recv (&b, S_WAIT_MS);
    RobotControlResponse *r = robot_control_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "blue's answer is not a RobotControlResponse");
    cr_expect_eq (r->n_errors, 0);
    robot_control_response__free_unpacked (r, NULL);

    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.yellow_port, &rc.base), 0);
    cr_expect (s_forbidden (&b, 1, "127.0.0.1 is blue's address and may not use the yellow port"));
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &cmd.base), 0);
    cr_expect (s_forbidden (&b, 0, "not in [tournament] control"));
    /* garbage is refused as well, before it is read */
    cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.control_port, "\x80\x00\x00", 3), 0);
    cr_expect (s_forbidden (&b, 0, "the control port refuses it"));
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    sync.robot_control = &rc;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &sync.base), 0);
    cr_expect (s_forbidden (&b, 2, "sync requests only from [tournament] control"));
    /* the blue port still works after all that */
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &rc.base), 0);
    env = s_request (&b);
    s_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    s_recv (&b, S_WAIT_MS);
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                  "a refused datagram reached physics");
    s_stop (&b);
}

Test (gateway_service, tournament_team_lanes)
{
    s_tournament_team (true);
}
Test (gateway_service, tournament_team_zmq)
{
    s_tournament_team (false);
}

/* Control is 127.0.0.1: commands and sync steps go through, the team
   ports refuse it; with control another address, the control port
   refuses the client. */
static void
s_tournament_control (bool lanes)
{
    s_bench_t b;
    sim_tournament_cfg_t t = s_tournament ("10.0.0.2", "10.0.0.3", "10.0.0.4, 127.0.0.1");
    s_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    s_command_round_trip (&b, "CONTROL");
    Simbus__Envelope *env = s_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    s_recv (&b, S_WAIT_MS); /* answered without vision after sync_timeout */
    RobotControl rc = ROBOT_CONTROL__INIT;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &rc.base), 0);
    cr_expect (s_forbidden (&b, 1, "127.0.0.1 is not in [tournament] blue"));
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.yellow_port, &rc.base), 0);
    cr_expect (s_forbidden (&b, 1, "127.0.0.1 is not in [tournament] yellow"));
    s_stop (&b);

    t = s_tournament ("127.0.0.1", "10.0.0.3", "10.0.0.4");
    s_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    cr_expect (s_forbidden (&b, 0, "the control port refuses it"),
               "refused before it is read: in the control port's own response");
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0);
    s_stop (&b);

    /* off, the lists are ignored */
    t.enabled = false;
    s_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    s_command_round_trip (&b, "OFF");
    s_stop (&b);
}

Test (gateway_service, tournament_control_lanes)
{
    s_tournament_control (true);
}
Test (gateway_service, tournament_control_zmq)
{
    s_tournament_control (false);
}

/* ---- bad input on every port (was tests/system/test_badinput.c) ------------ */

/* The codes of the next answer at the client, comma separated ("" for
   none), read as the response type of `port`. */
static const char *
s_answer_codes (s_bench_t *b, int port, char *out, size_t cap)
{
    size_t n = s_recv (b, S_WAIT_MS);
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
s_through (s_bench_t *b, int port, const void *bytes, size_t len, char *out, size_t cap)
{
    cr_assert_eq (sim_test_send_raw (b->fd, port, bytes, len), 0);
    Simbus__Envelope *env = s_request (b);
    cr_expect (!(env->request->has_sync && env->request->sync), "a plain datagram became a sync step");
    s_reply (b, env->request->id, NULL);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
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
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
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
    Simbus__Envelope *env = s_request (&b);
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
    s_stop (&b);
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
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportBall tb;
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 1e30f;
    sync.simulator_command = s_ball_command (&cmd, &control, &tb, NAN, NAN);
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    Simbus__Envelope *env = s_request (&b);
    cr_expect (!env->request->has_substeps || env->request->substeps == 0, "an invalid step has substeps");
    cr_assert (env->request->simulator_command && env->request->simulator_command->control,
               "the step's command did not reach physics");
    s_reply (&b, env->request->id, "UNSUPPORTED");
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = s_recv (&b, S_WAIT_MS);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulationSyncResponse");
    RobotControlResponse *rr = r->robot_control_response;
    cr_expect (rr && rr->n_errors == 2 && strcmp (rr->errors[0]->code, "UNSUPPORTED") == 0
                   && strcmp (rr->errors[1]->code, "INVALID_STEP") == 0,
               "not physics' UNSUPPORTED, then INVALID_STEP");
    simulation_sync_response__free_unpacked (r, NULL);
    s_stop (&b);
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
   blue port, five times each, every time to physics and answered without
   an error. */
static void
s_field_zero_every_time (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, 0.2);
    const uint8_t control[] = { 0x80, 0x00, 0x00 };
    const uint8_t blue[] = { 0x0a, 0x05, 0x08, 0x02, 0x80, 0x00, 0x00 };
    char codes[256];
    for (int i = 0; i < 5; i++) {
        cr_expect_str_eq (
            s_through (&b, b.cfg.network.control_port, control, sizeof control, codes, sizeof codes), "",
            "control port 800000, try %d", i);
        cr_expect_str_eq (s_through (&b, b.cfg.network.blue_port, blue, sizeof blue, codes, sizeof codes), "",
                          "blue port 0a050802800000, try %d", i);
    }
    s_stop (&b);
}

Test (gateway_service, field_zero_every_time_lanes)
{
    s_field_zero_every_time (true);
}
Test (gateway_service, field_zero_every_time_zmq)
{
    s_field_zero_every_time (false);
}
