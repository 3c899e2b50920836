/*  test_gateway_edge_service.c - the gateway's hardened edge (issue 11),
    on the bench of test_gateway_support.h: a field number 0 is
    UNREADABLE, a request physics does not answer is answered UNAVAILABLE
    (once), one source cannot hold the table, loopback gets every frame,
    and [network] sync_takeover; a client's first command and its answer
    are never lost to the configured loss. Tournament mode: the
    client's 127.0.0.1 in one role, refused in the others.
*/
#include <arpa/inet.h>
#include <poll.h>

#include "test_gateway_support.h"

/* ---- the configured loss spares a client's first command (issue 23) ---- */

/* Send a RobotControl for robot `id` from `fd` to the blue port. */
static void
s_robot_control (gw_test_bench_t *b, int fd, uint32_t id)
{
    RobotCommand rcmd = ROBOT_COMMAND__INIT;
    rcmd.id = id;
    RobotCommand *rcmds[1] = { &rcmd };
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = rcmds;
    cr_assert_eq (sim_test_send (fd, b->cfg.network.blue_port, &rc.base), 0);
}

/* The robot of the next team request physics gets, answered. */
static uint32_t
s_next_robot (gw_test_bench_t *b)
{
    Simbus__Envelope *env = gw_test_request (b);
    const Simbus__Request *req = env->request;
    cr_assert (req->team_control && req->team_control->control->n_robot_commands == 1);
    uint32_t id = req->team_control->control->robot_commands[0]->id;
    gw_test_reply (b, req->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    return id;
}

/* Whether a datagram is at `fd` within ms (read and dropped). */
static bool
s_answered (int fd, int ms)
{
    struct pollfd pfd = { fd, POLLIN, 0 };
    if (poll (&pfd, 1, ms) != 1)
        return false;
    uint8_t buf[4096];
    return recv (fd, buf, sizeof buf, 0) >= 0;
}

/* With every command (`command_loss`) or every answer lost, each new
   client's first RobotControl is applied and answered, its second is
   not. A marker, the first command of yet another client on the same
   port (so the gateway reads it after), shows in order what went
   through. Loss 1.0 makes the rule visible in one datagram; the default
   1 % lost a first answer in ~7.5 % of starts with the default seed. */
static void
s_first_spared (bool lanes, bool command_loss)
{
    gw_test_bench_t b;
    gw_test_prepare (&b, lanes, 0.2, SIM_MODE_SYNC);
    b.cfg.realism.robot_command_loss = command_loss ? 1.0 : 0.0;
    b.cfg.realism.robot_response_loss = command_loss ? 0.0 : 1.0;
    gw_test_launch (&b);
    for (int client = 0; client < 3; client++) {
        int fd = sim_test_udp (0), marker = sim_test_udp (0);
        cr_assert (fd >= 0 && marker >= 0);
        s_robot_control (&b, fd, 3);
        cr_expect_eq (s_next_robot (&b), 3, "client %d: its first command did not reach physics", client);
        cr_expect (s_answered (fd, GW_TEST_WAIT_MS), "client %d: its first command was not answered", client);
        s_robot_control (&b, fd, 4);
        s_robot_control (&b, marker, 7);
        if (!command_loss)
            cr_expect_eq (s_next_robot (&b), 4, "client %d: a lost answer's command reaches physics", client);
        cr_expect_eq (s_next_robot (&b), 7, "client %d: its second command was not lost", client);
        cr_expect (s_answered (marker, GW_TEST_WAIT_MS), "client %d: the marker was not answered", client);
        /* sent before the marker's, had it been sent */
        cr_expect (!s_answered (fd, 0), "client %d: its second command was answered", client);
        close (fd);
        close (marker);
    }
    gw_test_stop (&b);
}

Test (gateway_service, first_command_spared_lanes)
{
    s_first_spared (true, true);
}
Test (gateway_service, first_answer_spared_zmq)
{
    s_first_spared (false, false);
}

/* ---- the hardened edge (issue 11) ------------------------------------- */

/* Send raw bytes from fd to the gateway's `port`. */
static void
s_send_hex (int fd, int port, const uint8_t *bytes, size_t len)
{
    cr_assert_eq (sim_test_send_raw (fd, port, bytes, len), 0);
}

/* Issue 11 forwarded a field-0 key's datagram without the key (protobuf-c
   takes `80 00` as an unknown field and packs it as `00 00`, which
   physics could not decode); issue 24: a field number 0 is no protobuf
   (the league's parsers refuse the whole message), so the datagram is
   UNREADABLE, nested or next to a teleport alike, and physics gets
   nothing of it. */
static void
s_unknown_field_zero (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    const uint8_t control[] = { 0x80, 0x00, 0x00 };
    s_send_hex (b.fd, b.cfg.network.control_port, control, sizeof control);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulatorResponse");
    cr_expect (r->n_errors == 1 && strcmp (r->errors[0]->code, "UNREADABLE") == 0);
    simulator_response__free_unpacked (r, NULL);

    /* blue: one RobotCommand {id 2} holding the field inside */
    const uint8_t blue[] = { 0x0a, 0x05, 0x08, 0x02, 0x80, 0x00, 0x00 };
    s_send_hex (b.fd, b.cfg.network.blue_port, blue, sizeof blue);
    n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    RobotControlResponse *rr = robot_control_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (rr, "the answer is not a RobotControlResponse");
    cr_expect (rr->n_errors == 1 && strcmp (rr->errors[0]->code, "UNREADABLE") == 0);
    robot_control_response__free_unpacked (rr, NULL);

    /* a teleport and the field: nothing of it applies */
    SimulatorCommand cmd;
    SimulatorControl ctl;
    TeleportRobot robot, *robots[1];
    RobotId rid;
    size_t len = protobuf_c_message_pack (&gw_test_teleport (&cmd, &ctl, &robot, robots, &rid)->base, b.buf);
    memcpy (b.buf + len, control, sizeof control);
    s_send_hex (b.fd, b.cfg.network.control_port, b.buf, len + sizeof control);
    n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    r = simulator_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r);
    cr_expect (r->n_errors == 1 && strcmp (r->errors[0]->code, "UNREADABLE") == 0);
    simulator_response__free_unpacked (r, NULL);
    /* physics' next request is this one: none of the three reached it */
    gw_test_command_round_trip (&b, "AFTER");
    gw_test_stop (&b);
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
   that comes after that is dropped: one answer. While it waits, the
   command is handed to physics again (issue 24). */
static void
s_unanswered (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    int team_fd = sim_test_udp (0);
    cr_assert_geq (team_fd, 0);
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    RobotControl rc = ROBOT_CONTROL__INIT;
    int64_t sent = zclock_mono ();
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &empty.base), 0);
    cr_assert_eq (sim_test_send (team_fd, b.cfg.network.blue_port, &rc.base), 0);
    Simbus__Envelope *first = gw_test_request (&b);
    Simbus__Envelope *second = gw_test_request (&b);
    /* physics is silent */
    size_t n = gw_test_recv (&b, S_PLAIN_TTL_MS + 2000);
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
    /* meanwhile the command was handed to physics again, under its id, at
       0.15, 0.45, 1.05 and 2.25 s (a restarted physics gets it); the
       team's RobotControl was not (its next one supersedes it) */
    int again = 0;
    Simbus__Envelope *copy;
    while ((copy = sim_svc_peer_wait (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST, 200))) {
        cr_expect_eq (copy->request->id, first->request->id, "a request other than the command came again");
        again++;
        simbus__envelope__free_unpacked (copy, NULL);
    }
    cr_expect_eq (again, 4, "the unanswered command was handed over %d more times", again);

    /* physics is back and answers late: nothing more reaches the clients */
    gw_test_reply (&b, first->request->id, "LATE");
    gw_test_reply (&b, second->request->id, "LATE");
    simbus__envelope__free_unpacked (first, NULL);
    simbus__envelope__free_unpacked (second, NULL);
    gw_test_command_round_trip (&b, "NEXT");
    cr_expect_lt (sim_test_recv (team_fd, b.buf, sizeof b.buf, 0), 0, "a second answer to one request");
    close (team_fd);
    gw_test_stop (&b);
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
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 0.2);
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    enum { EXTRA = 8 };
    uint64_t ids[S_SOURCE_SHARE];
    for (int i = 0; i < S_SOURCE_SHARE + EXTRA; i++)
        cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &empty.base), 0);
    for (int i = 0; i < S_SOURCE_SHARE; i++) {
        Simbus__Envelope *env = gw_test_request (&b);
        ids[i] = env->request->id;
        simbus__envelope__free_unpacked (env, NULL);
    }
    for (int i = 0; i < EXTRA; i++) {
        size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
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
    Simbus__Envelope *env = gw_test_request (&b);
    gw_test_reply (&b, env->request->id, "OTHER");
    simbus__envelope__free_unpacked (env, NULL);
    ssize_t n = sim_test_recv (other, b.buf, sizeof b.buf, GW_TEST_WAIT_MS);
    cr_assert_geq (n, 0, "the other source was not answered");
    SimulatorResponse *r = simulator_response__unpack (NULL, (size_t) n, b.buf);
    cr_assert_not_null (r);
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, "OTHER"));
    simulator_response__free_unpacked (r, NULL);
    close (other);

    /* physics answers the first source: its share is free again */
    for (int i = 0; i < S_SOURCE_SHARE; i++)
        gw_test_reply (&b, ids[i], NULL);
    for (int i = 0; i < S_SOURCE_SHARE; i++)
        gw_test_recv (&b, GW_TEST_WAIT_MS);
    gw_test_command_round_trip (&b, "AGAIN");
    gw_test_stop (&b);
}

Test (gateway_service, source_share_lanes)
{
    s_source_share (true);
}
Test (gateway_service, source_share_zmq)
{
    s_source_share (false);
}

#define S_BIG_FRAMES 4
#define S_BIG_ROBOTS 30

/* Vision's end of step `id` with S_BIG_FRAMES frames of S_BIG_ROBOTS
   robots each (about 900 bytes a frame), numbered first.., and physics'
   reply. */
static void
s_big_frames_done (gw_test_bench_t *b, uint64_t id, uint32_t first)
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
    gw_test_send_frames_done (b, id, wrappers, S_BIG_FRAMES, true);
}

/* A 5-byte sync request from loopback gets every frame of its step, the
   first time and every time: a loopback source cannot be forged from
   another host (docs/protocol.md, "Amplification"), and repeating a
   request no longer counts as proof of anything (issue 24). What an
   untrusted source gets: tests/unit/test_sim_trust.c, and from another
   host tests/system/test_amplification.c. */
static void
s_small_first_answer (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start (&b, lanes, 10.0);
    for (int round = 0; round < 2; round++) {
        Simbus__Envelope *env = gw_test_sync_request (&b);
        uint64_t id = env->request->id;
        simbus__envelope__free_unpacked (env, NULL);
        s_big_frames_done (&b, id, 100 + 100 * (uint32_t) round);
        size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
        SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
        cr_assert_not_null (r);
        cr_expect_eq (r->n_detection, S_BIG_FRAMES, "loopback gets every frame (round %d)", round);
        simulation_sync_response__free_unpacked (r, NULL);
    }
    gw_test_stop (&b);
}

Test (gateway_service, loopback_gets_every_frame_lanes)
{
    s_small_first_answer (true);
}
Test (gateway_service, loopback_gets_every_frame_zmq)
{
    s_small_first_answer (false);
}

/* [network] sync_takeover = false: a sync request to a realtime
   simulator is refused at once (REFUSED) and never reaches physics; in
   sync mode it goes through as always. */
static void
s_sync_refused (bool lanes)
{
    gw_test_bench_t b;
    gw_test_start_in (&b, lanes, 0.2, SIM_MODE_REALTIME, false);
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
    SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, n, b.buf);
    cr_assert_not_null (r, "the answer is not a SimulationSyncResponse");
    cr_assert_not_null (r->robot_control_response);
    cr_expect (sim_svc_has_error (r->robot_control_response->errors, r->robot_control_response->n_errors,
                                  "REFUSED"));
    simulation_sync_response__free_unpacked (r, NULL);
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                  "a refused sync request reached physics");
    /* plain requests are not affected */
    gw_test_command_round_trip (&b, "PLAIN");
    gw_test_stop (&b);

    gw_test_start_in (&b, lanes, 0.2, SIM_MODE_SYNC, false);
    Simbus__Envelope *env = gw_test_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    gw_test_stop (&b);
    /* the default: a realtime simulator is taken over */
    gw_test_start_in (&b, lanes, 0.2, SIM_MODE_REALTIME, true);
    env = gw_test_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    gw_test_stop (&b);
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
s_forbidden (gw_test_bench_t *b, int kind, const char *words)
{
    size_t n = gw_test_recv (b, GW_TEST_WAIT_MS);
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
    gw_test_bench_t b;
    sim_tournament_cfg_t t = s_tournament ("127.0.0.1", "10.0.0.2", "10.0.0.3");
    gw_test_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    RobotControl rc = ROBOT_CONTROL__INIT;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &rc.base), 0);
    Simbus__Envelope *env = gw_test_request (&b);
    cr_assert_not_null (env->request->team_control);
    cr_expect_eq (env->request->team_control->team, 0);
    gw_test_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = gw_test_recv (&b, GW_TEST_WAIT_MS);
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
    env = gw_test_request (&b);
    gw_test_reply (&b, env->request->id, NULL);
    simbus__envelope__free_unpacked (env, NULL);
    gw_test_recv (&b, GW_TEST_WAIT_MS);
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0,
                  "a refused datagram reached physics");
    gw_test_stop (&b);
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
    gw_test_bench_t b;
    sim_tournament_cfg_t t = s_tournament ("10.0.0.2", "10.0.0.3", "10.0.0.4, 127.0.0.1");
    gw_test_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    gw_test_command_round_trip (&b, "CONTROL");
    Simbus__Envelope *env = gw_test_sync_request (&b);
    simbus__envelope__free_unpacked (env, NULL);
    gw_test_recv (&b, GW_TEST_WAIT_MS); /* answered without vision after sync_timeout */
    RobotControl rc = ROBOT_CONTROL__INIT;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.blue_port, &rc.base), 0);
    cr_expect (s_forbidden (&b, 1, "127.0.0.1 is not in [tournament] blue"));
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.yellow_port, &rc.base), 0);
    cr_expect (s_forbidden (&b, 1, "127.0.0.1 is not in [tournament] yellow"));
    gw_test_stop (&b);

    t = s_tournament ("127.0.0.1", "10.0.0.3", "10.0.0.4");
    gw_test_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.control_port, &sync.base), 0);
    cr_expect (s_forbidden (&b, 0, "the control port refuses it"),
               "refused before it is read: in the control port's own response");
    cr_expect_eq (sim_svc_peer_count (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST), 0);
    gw_test_stop (&b);

    /* off, the lists are ignored */
    t.enabled = false;
    gw_test_start_with (&b, lanes, 0.2, SIM_MODE_SYNC, true, &t);
    gw_test_command_round_trip (&b, "OFF");
    gw_test_stop (&b);
}

Test (gateway_service, tournament_control_lanes)
{
    s_tournament_control (true);
}
Test (gateway_service, tournament_control_zmq)
{
    s_tournament_control (false);
}
