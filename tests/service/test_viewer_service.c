/*  test_viewer_service.c - the viewer actor alone, in-process, between a
    fake physics and a fake vision on the real bus, a fake gateway (a UDP
    socket at the control port on 127.0.0.1) and a real WebSocket and HTTP
    client on 127.0.0.1: a page is greeted once the configuration came;
    the first page makes the viewer watch the world and the last one
    leaving stops it; a snapshot, with the kicks since and each camera's
    newest detection, reaches the page as a "world" when it asks; the
    page's op reaches the gateway as the protocol's request and the
    gateway's answer comes back as its "result"; the services' Stats show
    in the status and /metrics; /healthz follows vision's Stats. The
    watching cases run over both carriers (lanes on and off).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/bus/sim_bus_codec.h"
#include "common/config/config.h"
#include "common/config/sim_schedule_config.h"
#include "common/logs/sim_stats.h"
#include "services/viewer/viewer.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_error.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "tests/support/sim_service_test.h"
#include "tests/support/sim_test.h"
#include "tests/support/sim_ws.h"

#define S_WAIT_MS 5000
#define S_ROUNDS  50 /* worlds asked for before the kick and the detection must have shown */

typedef struct {
    sim_config_t cfg;
    sim_svc_peer_t *physics, *vision;
    zactor_t *viewer;
    int port;    /* the viewer's HTTP port */
    int gateway; /* a UDP socket at the gateway's control port */
    sim_ws_t *ws;
} s_bench_t;

/* Pump `peer` until a receiver wants `kind` (want) or no longer does
   (!want); true when so within ms. */
static bool
s_wanted_becomes (sim_svc_peer_t *peer, Simbus__Envelope__BodyCase kind, bool want, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_link_wanted (sim_svc_peer_link (peer), kind) != want) {
        int64_t left = end - sim_test_now_ms ();
        if (left <= 0)
            return false;
        sim_svc_peer_pump (peer, (int) left);
    }
    return true;
}

/* The bench's configuration, nothing started: the viewer on a free port
   of 127.0.0.1, a runtime directory of this test's own (the viewer keeps
   its page's address, and a token, there). */
static void
s_setup (s_bench_t *b, bool lanes)
{
    memset (b, 0, sizeof *b);
    char dir[] = "/tmp/sslsim-vwsvc-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    setenv ("XDG_RUNTIME_DIR", dir, 1); /* Criterion runs each test in a process of its own */
    cr_assert_eq (sim_svc_config (&b->cfg, "vw", SIM_MODE_REALTIME, lanes), 0);
    b->port = sim_test_free_port ();
    cr_assert_gt (b->port, 0);
    snprintf (b->cfg.viewer.addr, sizeof b->cfg.viewer.addr, "127.0.0.1:%d", b->port);
}

/* The viewer of the bench's configuration running, its bus joined; with
   `config`, physics has sent it the configuration. */
static void
s_launch (s_bench_t *b, bool config)
{
    b->gateway = sim_test_udp (b->cfg.network.control_port);
    cr_assert_geq (b->gateway, 0);
    b->physics = sim_svc_peer_new (&b->cfg, SIM_LINK_PHYSICS);
    b->vision = sim_svc_peer_new (&b->cfg, SIM_LINK_VISION);
    cr_assert (b->physics && b->vision);
    b->viewer = sim_svc_start (vw_service_actor, &b->cfg);
    cr_assert_not_null (b->viewer, "the viewer did not start");
    static const Simbus__Envelope__BodyCase kinds[] = { SIMBUS__ENVELOPE__BODY_CONFIG,
                                                        SIMBUS__ENVELOPE__BODY_STATS };
    cr_assert (sim_svc_peer_wait_joined (b->physics, kinds, 2, S_WAIT_MS), "the viewer never joined");
    if (config)
        cr_assert_gt (sim_svc_peer_send_config (b->physics, &b->cfg, 1), 0,
                      "the viewer took no configuration");
}

static void
s_start (s_bench_t *b, bool lanes, bool config)
{
    s_setup (b, lanes);
    s_launch (b, config);
}

static void
s_stop (s_bench_t *b)
{
    zactor_destroy (&b->viewer); /* first: a page closed first may miss a status, and that is logged */
    sim_ws_destroy (&b->ws);
    sim_svc_peer_destroy (&b->vision);
    sim_svc_peer_destroy (&b->physics);
    close (b->gateway);
    const char *dir = getenv ("XDG_RUNTIME_DIR");
    if (dir && strncmp (dir, "/tmp/sslsim-vwsvc-", 18) == 0) {
        char cmd[128];
        snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_expect_eq (system (cmd), 0);
    }
}

/* A page connects; with `greeted`, it must get hello, geometry and status. */
static void
s_connect (s_bench_t *b, bool greeted)
{
    b->ws = sim_ws_connect (b->port, "/ws");
    cr_assert_not_null (b->ws, "no WebSocket at /ws");
    if (!greeted)
        return;
    static const char *const greeting[] = { "hello", "geometry", "status" };
    for (size_t i = 0; i < sizeof greeting / sizeof greeting[0]; i++) {
        cJSON *msg = sim_ws_wait (b->ws, greeting[i], S_WAIT_MS);
        cr_assert_not_null (msg, "the page got no %s", greeting[i]);
        cJSON_Delete (msg);
    }
}

static double
s_num (const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, key);
    return cJSON_IsNumber (v) ? v->valuedouble : NAN;
}

static const char *
s_str (const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, key);
    return cJSON_IsString (v) ? v->valuestring : "";
}

/* ---- the world ------------------------------------------------------------ */

/* Physics publishes the world at t_s: the ball at (1.25, -0.5), blue 3 at
   (-2, 1). Returns sim_link_send's result. */
static int
s_snapshot (s_bench_t *b, double t_s)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = (uint64_t) llround (t_s * 1e9);
    snap.ball.x = 1.25;
    snap.ball.y = -0.5;
    snap.ball.z = b->cfg.ball.radius;
    snap.robot_count = 1;
    sim_robot_state_t *r = &snap.robots[0];
    r->team = SIM_TEAM_BLUE;
    r->id = 3;
    r->x = -2.0;
    r->y = 1.0;
    r->radius = b->cfg.team[0].radius;
    r->height = b->cfg.team[0].height;
    sim_bus_snapshot_msg_t msg;
    return sim_link_send (sim_svc_peer_link (b->physics), sim_bus_snapshot_encode (&msg, &snap, false, 0));
}

/* Physics publishes blue 3's kick at 4.5 m/s. */
static void
s_kick (s_bench_t *b)
{
    sim_event_t kick = {
        .kind = SIM_EVENT_KICK, .time_ns = 100000000, .team = SIM_TEAM_BLUE, .id = 3, .speed = 4.5
    };
    sim_bus_events_msg_t msg;
    cr_assert_gt (sim_link_send (sim_svc_peer_link (b->physics), sim_bus_events_encode (&msg, &kick, 1)), 0);
}

/* Vision publishes camera 0's frame 42 with a ball at (500, 250) mm.
   Returns sim_link_send's result: 0 while no subscriber is known (vision
   reads its subscribers when it publishes). */
static int
s_frame (s_bench_t *b)
{
    SSLDetectionBall ball = SSL__DETECTION_BALL__INIT;
    ball.confidence = 0.9f;
    ball.x = 500.0f;
    ball.y = 250.0f;
    SSLDetectionBall *balls[] = { &ball };
    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.frame_number = 42;
    det.camera_id = 0;
    det.t_capture = 0.1;
    det.t_sent = 0.1;
    det.n_balls = 1;
    det.balls = balls;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = &det;
    uint8_t buf[256];
    cr_assert_leq (ssl__wrapper_packet__get_packed_size (&w), sizeof buf);
    ProtobufCBinaryData packet = { ssl__wrapper_packet__pack (&w, buf), buf };
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = 100000000;
    frames.n_wrapper = 1;
    frames.wrapper = &packet;
    return sim_svc_send (sim_svc_peer_link (b->vision), SIMBUS__ENVELOPE__BODY_FRAMES, &frames);
}

/* The page asks for the next world and gets it (yours to free). */
static cJSON *
s_next (s_bench_t *b)
{
    cr_assert_eq (sim_ws_send (b->ws, "{\"op\":\"next\"}"), 0);
    cJSON *world = sim_ws_wait (b->ws, "world", S_WAIT_MS);
    cr_assert_not_null (world, "the page asked and got no world");
    return world;
}

/* True when the world's truth is s_snapshot's at t_s. */
static void
s_expect_truth (const cJSON *world, double t_s)
{
    cr_expect_float_eq (s_num (world, "t"), t_s, 1e-9);
    const cJSON *ball = cJSON_GetObjectItemCaseSensitive (world, "ball");
    cr_expect_float_eq (s_num (ball, "x"), 1.25, 1e-6);
    cr_expect_float_eq (s_num (ball, "y"), -0.5, 1e-6);
    const cJSON *robots = cJSON_GetObjectItemCaseSensitive (world, "robots");
    cr_assert_eq (cJSON_GetArraySize (robots), 1);
    const cJSON *r = cJSON_GetArrayItem (robots, 0);
    cr_expect_str_eq (s_str (r, "team"), "blue");
    cr_expect_eq (s_num (r, "id"), 3);
    cr_expect_float_eq (s_num (r, "x"), -2.0, 1e-6);
    cr_expect_float_eq (s_num (r, "y"), 1.0, 1e-6);
}

/* The world has the kick of s_kick. */
static bool
s_has_kick (const cJSON *world)
{
    const cJSON *k = cJSON_GetArrayItem (cJSON_GetObjectItemCaseSensitive (world, "kicks"), 0);
    return k && strcmp (s_str (k, "team"), "blue") == 0 && s_num (k, "id") == 3
        && fabs (s_num (k, "speed") - 4.5) < 1e-6;
}

/* The world has camera 0's frame of s_frame, in metres. */
static bool
s_has_frame (const cJSON *world)
{
    const cJSON *cam = cJSON_GetArrayItem (cJSON_GetObjectItemCaseSensitive (world, "vision"), 0);
    const cJSON *ball = cJSON_GetArrayItem (cJSON_GetObjectItemCaseSensitive (cam, "balls"), 0);
    return cam && s_num (cam, "camera") == 0 && s_num (cam, "frame") == 42 && ball
        && fabs (s_num (ball, "x") - 0.5) < 1e-6 && fabs (s_num (ball, "y") - 0.25) < 1e-6;
}

/* Over the ZeroMQ carrier: with lanes, physics' link says a snapshot is
   wanted whenever its lane to vision is, and the viewer takes nothing by
   lane, so only there does sim_link_wanted show the viewer's own
   subscriptions. */
Test (viewer_service, a_snapshot_reaches_a_page_that_asked_as_a_world)
{
    s_bench_t b;
    s_start (&b, false, true);
    cr_expect (!sim_link_wanted (sim_svc_peer_link (b.physics), SIMBUS__ENVELOPE__BODY_SNAPSHOT),
               "the viewer watches the world with no page");
    s_connect (&b, true);
    cr_assert (s_wanted_becomes (b.physics, SIMBUS__ENVELOPE__BODY_SNAPSHOT, true, S_WAIT_MS),
               "a page came and the viewer does not take snapshots");
    cr_assert (s_wanted_becomes (b.physics, SIMBUS__ENVELOPE__BODY_EVENTS, true, S_WAIT_MS));

    cr_assert_gt (s_snapshot (&b, 0.5), 0);
    cJSON *world = s_next (&b);
    s_expect_truth (world, 0.5);
    cJSON_Delete (world);

    /* the kick and the detection come by other routes than the snapshot:
       each world after they arrived shows them (the kick once); vision
       learns of the viewer's subscription when it publishes, so its
       frame goes again each round until one was taken */
    s_kick (&b);
    bool kick = false, frame = false, sent = false;
    for (int k = 1; k <= S_ROUNDS && !(kick && frame); k++) {
        if (!sent)
            sent = s_frame (&b) > 0;
        double t_s = 0.5 + 0.1 * k;
        cr_assert_gt (s_snapshot (&b, t_s), 0);
        world = s_next (&b);
        s_expect_truth (world, t_s);
        kick = kick || s_has_kick (world);
        frame = s_has_frame (world);
        cJSON_Delete (world);
    }
    cr_expect (kick, "no world carried the kick");
    cr_expect (frame, "no world carried camera 0's detection");

    /* the last page leaving stops the watching */
    sim_ws_destroy (&b.ws);
    cr_expect (s_wanted_becomes (b.physics, SIMBUS__ENVELOPE__BODY_SNAPSHOT, false, S_WAIT_MS),
               "the last page left and the viewer still takes snapshots");
    s_stop (&b);
}

/* A paused world (a replay after a seek or a step) publishes no snapshot
   after its last one, and vision releases that instant's frames after it:
   the frames alone make a new world for a page that asked, so the page
   draws the cameras of the time it shows at once. Vision learns of the
   viewer's subscription when it publishes: its frame goes again until one
   was taken. */
Test (viewer_service, camera_frames_alone_reach_a_page_that_asked)
{
    s_bench_t b;
    s_start (&b, false, true);
    s_connect (&b, true);
    cr_assert (s_wanted_becomes (b.physics, SIMBUS__ENVELOPE__BODY_SNAPSHOT, true, S_WAIT_MS));
    cr_assert_gt (s_snapshot (&b, 0.5), 0);
    cJSON *world = s_next (&b);
    cJSON_Delete (world);

    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"next\"}"), 0);
    world = NULL;
    for (int k = 0; k < S_ROUNDS && !world; k++)
        world = sim_ws_wait (b.ws, "world", s_frame (&b) > 0 ? S_WAIT_MS : 100);
    cr_assert_not_null (world, "camera 0's frame came and the page that asked got no world");
    cr_expect (s_has_frame (world), "the world after the frame does not carry it");
    s_expect_truth (world, 0.5); /* the same instant: no snapshot came */
    cJSON_Delete (world);
    s_stop (&b);
}

/* ---- the page's ops ---------------------------------------------------------- */

/* The request the gateway gets within S_WAIT_MS, as a SimulatorCommand
   (caller frees); *from is where to answer. */
static SimulatorCommand *
s_request (s_bench_t *b, struct sockaddr_in *from)
{
    struct pollfd p = { .fd = b->gateway, .events = POLLIN };
    cr_assert_eq (poll (&p, 1, S_WAIT_MS), 1, "the gateway got no request");
    uint8_t buf[65536];
    socklen_t fromlen = sizeof *from;
    ssize_t n = recvfrom (b->gateway, buf, sizeof buf, 0, (struct sockaddr *) from, &fromlen);
    cr_assert_gt (n, 0);
    SimulatorCommand *cmd = simulator_command__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (cmd, "the page's op is no SimulatorCommand");
    return cmd;
}

/* The gateway answers `from` with no error, or with `code`. */
static void
s_answer (s_bench_t *b, const struct sockaddr_in *from, const char *code)
{
    SimulatorError error = SIMULATOR_ERROR__INIT;
    error.code = (char *) code;
    error.message = (char *) "as the test says";
    SimulatorError *errors[] = { &error };
    SimulatorResponse answer = SIMULATOR_RESPONSE__INIT;
    answer.n_errors = code ? 1 : 0;
    answer.errors = errors;
    uint8_t buf[256];
    size_t len = simulator_response__pack (&answer, buf);
    cr_assert_eq (sendto (b->gateway, buf, len, 0, (const struct sockaddr *) from, sizeof *from),
                  (ssize_t) len);
}

/* The "result" with `id`. */
static cJSON *
s_result (s_bench_t *b, int id)
{
    cJSON *result = sim_ws_result (b->ws, id, S_WAIT_MS);
    cr_assert_not_null (result, "no result for op %d", id);
    return result;
}

Test (viewer_service, an_op_reaches_the_gateway_and_its_answer_is_the_result)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);

    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"teleport_ball\",\"id\":7,\"x\":1,\"y\":2}"), 0);
    struct sockaddr_in from;
    SimulatorCommand *cmd = s_request (&b, &from);
    cr_assert (cmd->control && cmd->control->teleport_ball, "a teleport_ball op is no teleport_ball");
    cr_expect_float_eq (cmd->control->teleport_ball->x, 1.0f, 1e-6);
    cr_expect_float_eq (cmd->control->teleport_ball->y, 2.0f, 1e-6);
    simulator_command__free_unpacked (cmd, NULL);
    s_answer (&b, &from, NULL);
    cJSON *result = s_result (&b, 7);
    cr_expect (cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (result, "ok")));
    cJSON_Delete (result);

    /* a refusal comes back with the gateway's code */
    cr_assert_eq (
        sim_ws_send (b.ws, "{\"op\":\"teleport_robot\",\"id\":8,\"team\":\"yellow\",\"robot\":4,\"x\":0.5}"),
        0);
    cmd = s_request (&b, &from);
    cr_assert (cmd->control && cmd->control->n_teleport_robot == 1);
    const TeleportRobot *t = cmd->control->teleport_robot[0];
    cr_expect (t->id && t->id->id == 4 && t->id->team == TEAM__YELLOW);
    cr_expect (t->has_x && !t->has_y, "a missing coordinate is passed on as missing");
    simulator_command__free_unpacked (cmd, NULL);
    s_answer (&b, &from, "PARTIAL_COORD");
    result = s_result (&b, 8);
    cr_expect (cJSON_IsFalse (cJSON_GetObjectItemCaseSensitive (result, "ok")));
    cr_expect_str_eq (s_str (result, "code"), "PARTIAL_COORD");
    cr_expect_str_eq (s_str (result, "message"), "as the test says");
    cJSON_Delete (result);
    s_stop (&b);
}

/* ---- tournament mode: the page acts as the operator does ------------- */

/* Whether the gateway gets a datagram within ms. */
static bool
s_gateway_hears (s_bench_t *b, int ms)
{
    struct pollfd p = { .fd = b->gateway, .events = POLLIN };
    return poll (&p, 1, ms) == 1;
}

/* A tournament with `control` as the operator's list; the page connects
   with the token or without. */
static void
s_tournament (s_bench_t *b, const char *control, bool token)
{
    s_setup (b, true);
    b->cfg.tournament.enabled = true;
    snprintf (b->cfg.tournament.control, sizeof b->cfg.tournament.control, "%s", control);
    s_launch (b, true);
    char url[512], path[600];
    cr_assert_eq (vw_viewer_url (&b->cfg, url, sizeof url), 0, "the viewer wrote no address");
    const char *hash = strstr (url, "#token=");
    cr_assert_not_null (hash, "tournament mode needs a token, and the address has none: %s", url);
    snprintf (path, sizeof path, "/ws?token=%s", token ? hash + 7 : "");
    b->ws = sim_ws_connect (b->port, path);
    cr_assert_not_null (b->ws);
}

Test (viewer_service, in_a_tournament_a_page_acts_only_with_the_token_from_a_control_address)
{
    s_bench_t b;
    s_tournament (&b, "10.0.0.2, 127.0.0.1", false);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"pause\",\"id\":1}"), 0);
    cJSON *result = s_result (&b, 1);
    cr_expect_str_eq (s_str (result, "code"), "FORBIDDEN", "a page without the token acted");
    cJSON_Delete (result);
    cr_expect_not (s_gateway_hears (&b, 200), "a refused op reached the gateway");
    s_stop (&b);

    s_tournament (&b, "10.0.0.2, 127.0.0.1", true);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"pause\",\"id\":2}"), 0);
    struct sockaddr_in from;
    SimulatorCommand *cmd = s_request (&b, &from);
    simulator_command__free_unpacked (cmd, NULL);
    s_answer (&b, &from, NULL);
    result = s_result (&b, 2);
    cr_expect (cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (result, "ok")));
    cJSON_Delete (result);
    s_stop (&b);
}

Test (viewer_service, in_a_tournament_a_page_not_at_a_control_address_cannot_act)
{
    s_bench_t b;
    s_tournament (&b, "10.0.0.2", true);
    /* watching stays open */
    cJSON *hello = sim_ws_wait (b.ws, "hello", S_WAIT_MS);
    cr_expect_not_null (hello, "the page was not greeted");
    cJSON_Delete (hello);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"teleport_ball\",\"id\":3,\"x\":1,\"y\":1}"), 0);
    cJSON *result = s_result (&b, 3);
    cr_expect_str_eq (s_str (result, "code"), "FORBIDDEN");
    cr_expect_neq (strstr (s_str (result, "message"), "[tournament] control"), NULL, "%s",
                   s_str (result, "message"));
    cJSON_Delete (result);
    cr_expect_not (s_gateway_hears (&b, 200), "a refused op reached the gateway");
    s_stop (&b);
}

Test (viewer_service, an_op_before_the_configuration_is_unavailable)
{
    s_bench_t b;
    s_start (&b, true, false);
    s_connect (&b, false);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"pause\",\"id\":3}"), 0);
    cJSON *result = s_result (&b, 3);
    cr_expect (cJSON_IsFalse (cJSON_GetObjectItemCaseSensitive (result, "ok")));
    cr_expect_str_eq (s_str (result, "code"), "UNAVAILABLE");
    cJSON_Delete (result);
    cr_expect_eq (sim_ws_count (b.ws, "hello"), 0, "a page was greeted before the configuration came");
    s_stop (&b);
}

/* One message nesting 900 arrays killed the viewer (and with
   --single-process the whole simulator): cJSON's recursion overflowed the
   web server thread's stack before the token was checked. It is refused
   with BAD_REQUEST (no id could be read: -1), and the page goes on. */
Test (viewer_service, a_deeply_nested_message_is_refused_and_the_viewer_goes_on)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    enum { DEPTH = 900 };
    static const char head[] = "{\"op\":\"speed\",\"id\":1,\"value\":1,\"x\":";
    char *text = malloc (sizeof head + 2 * DEPTH + 1);
    cr_assert_not_null (text);
    size_t n = strlen (head);
    memcpy (text, head, n);
    memset (text + n, '[', DEPTH);
    memset (text + n + DEPTH, ']', DEPTH);
    strcpy (text + n + 2 * DEPTH, "}");
    cr_assert_eq (sim_ws_send (b.ws, text), 0);
    free (text);
    cJSON *refused = s_result (&b, -1);
    cr_expect (cJSON_IsFalse (cJSON_GetObjectItemCaseSensitive (refused, "ok")));
    cr_expect_str_eq (s_str (refused, "code"), "BAD_REQUEST");
    cJSON_Delete (refused);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"speed\",\"id\":2,\"value\":1}"), 0);
    cJSON_Delete (s_result (&b, 2)); /* answered: the viewer is still there */
    s_stop (&b);
}

/* ---- status, /metrics, /healthz ------------------------------------------------ */

/* The first "status" for which ok (status) holds, within S_WAIT_MS (yours
   to free); NULL when none. `before` (or NULL) runs before each wait. */
static cJSON *
s_status_where (s_bench_t *b, bool (*ok) (const cJSON *status), void (*before) (s_bench_t *b))
{
    int64_t end = sim_test_now_ms () + S_WAIT_MS;
    for (int64_t left = S_WAIT_MS; left > 0; left = end - sim_test_now_ms ()) {
        if (before)
            before (b);
        cJSON *status = sim_ws_wait (b->ws, "status", (int) left);
        if (!status || ok (status))
            return status;
        cJSON_Delete (status);
    }
    return NULL;
}

static bool
s_rtf_is_075 (const cJSON *status)
{
    return fabs (s_num (status, "rtf") - 0.75) < 1e-9;
}

static bool
s_realism_is_go26 (const cJSON *status)
{
    return strcmp (s_str (status, "realism"), "go26") == 0;
}

static bool
s_vision_alive (const cJSON *status)
{
    return cJSON_IsTrue (
        cJSON_GetObjectItemCaseSensitive (cJSON_GetObjectItemCaseSensitive (status, "services"), "vision"));
}

Test (viewer_service, physics_stats_show_in_the_status_and_metrics)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    Simbus__Stats stats;
    sim_stats_begin (&stats, "physics", zclock_usecs ());
    stats.has_rtf = true;
    stats.rtf = 0.75;
    cr_assert_gt (sim_svc_send (sim_svc_peer_link (b.physics), SIMBUS__ENVELOPE__BODY_STATS, &stats), 0);
    cJSON *status = s_status_where (&b, s_rtf_is_075, NULL);
    cr_assert_not_null (status, "physics' real-time factor never showed in the status");
    cJSON_Delete (status);
    char *body = NULL;
    cr_assert_eq (sim_http_get (b.port, "/metrics", &body), 200);
    cr_expect_not_null (strstr (body, "\nssl_sim_real_time_factor 0.75\n"), "/metrics:\n%s", body);
    free (body);
    s_stop (&b);
}

/* The status shows the preset in force: the effective configuration's
   [run] realism, which physics sets when it applies a preset by name. */
Test (viewer_service, a_realism_the_page_set_shows_in_the_status)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    cr_assert_eq (sim_ws_send (b.ws, "{\"op\":\"realism\",\"id\":5,\"preset\":\"go26\"}"), 0);
    struct sockaddr_in from;
    SimulatorCommand *cmd = s_request (&b, &from);
    cr_expect (cmd->config && cmd->config->realism_config, "a realism op is no realism_config");
    simulator_command__free_unpacked (cmd, NULL);
    char err[256];
    cr_assert_eq (sim_config_switch_realism (&b.cfg, "go26", err, sizeof err), 0, "%s", err);
    s_answer (&b, &from, NULL);
    cr_assert_gt (sim_svc_peer_send_config (b.physics, &b.cfg, 2), 0, "the viewer took no configuration");
    cJSON_Delete (s_result (&b, 5));
    cJSON *status = s_status_where (&b, s_realism_is_go26, NULL);
    cr_expect_not_null (status, "the status never showed the preset the page set");
    cJSON_Delete (status);
    s_stop (&b);
}

/* Vision sends its Stats. */
static void
s_vision_stats (s_bench_t *b)
{
    Simbus__Stats stats;
    sim_stats_begin (&stats, "vision", zclock_usecs ());
    sim_svc_send (sim_svc_peer_link (b->vision), SIMBUS__ENVELOPE__BODY_STATS, &stats);
}

Test (viewer_service, healthz_follows_vision_stats_and_the_page_is_served)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    char *body = NULL;
    cr_expect_eq (sim_http_get (b.port, "/healthz", &body), 503, "healthz with no word from vision");
    cr_expect (body && strstr (body, "vision is not running"), "503 names vision: %s", body ? body : "");
    free (body);

    /* vision learns of the viewer's subscription when it publishes: its
       Stats go with each status the page gets until the viewer shows it */
    cJSON *status = s_status_where (&b, s_vision_alive, s_vision_stats);
    cr_assert_not_null (status, "vision's Stats never showed in the status");
    cJSON_Delete (status);
    cr_expect_eq (sim_http_get (b.port, "/healthz", &body), 200, "healthz once vision was heard");
    cr_expect (body && strcmp (body, "ok\n") == 0);
    free (body);

    /* the page and its modules */
    static const char *const files[] = { "/", "/main.js", "/state.js", "/interaction.js", "/status.js" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        cr_expect_eq (sim_http_get (b.port, files[i], &body), 200, "%s is not served", files[i]);
        free (body);
    }
    s_stop (&b);
}

/* A stopping viewer (ssl-sim restart, the end of a run) tells an open
   page it is going away (close code 1001) instead of leaving it to find
   out; the page's reply ends the thread serving it, so the stop does not
   wait for that thread's read timeout. */
Test (viewer_service, a_stopping_viewer_tells_its_pages_it_is_going_away)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    cr_expect_eq (sim_ws_close_code (b.ws), 0, "a close before the stop");
    zactor_destroy (&b.viewer);
    cr_expect_eq (sim_ws_close_code (b.ws), 1001, "the page's close code");
    s_stop (&b);
}

/* A program that closes its page and waits for the viewer's close frame,
   as WebSocket libraries do, gets it with its own status code: a clean
   close, not a dropped connection. */
Test (viewer_service, a_page_that_closes_gets_the_viewers_close_in_answer)
{
    s_bench_t b;
    s_start (&b, true, true);
    s_connect (&b, true);
    cr_expect_eq (sim_ws_close (b.ws, 2000), 1000, "the viewer's answer to the page's close (1000)");
    s_stop (&b);
}
