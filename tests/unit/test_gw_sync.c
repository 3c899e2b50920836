/*  test_gw_sync.c - services/gateway/gw_sync.c: how many substeps a
    SimulationSyncRequest asks for, and the SimulationSyncResponse spliced
    from a step's packets and reply. The reference for every answer is
    protobuf-c itself: the same response built as a message (detection
    frames unpacked from the real SSL_WrapperPacket bytes) and packed must
    give the same bytes.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "services/gateway/gw_sync.h"
#include "common/bus/sim_bus.h"
#include "ssl_simulation_robot_feedback.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

/* ---- gw_sync_substeps ------------------------------------------------- */

static int64_t
s_substeps (float sim_step, double substep_s)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = sim_step;
    return gw_sync_substeps (&req, substep_s, NULL, 0);
}

Test (gw_sync, substeps_for_none_and_exact_multiples)
{
    SimulationSyncRequest none = SIMULATION_SYNC_REQUEST__INIT;
    cr_expect_eq (gw_sync_substeps (&none, 0.001, NULL, 0), 0, "no sim_step: no step");
    cr_expect_eq (s_substeps (0.0f, 0.001), 0);
    cr_expect_eq (s_substeps (-0.0f, 0.001), 0, "minus zero is zero");
    cr_expect_eq (s_substeps (0.001f, 0.001), 1);
    cr_expect_eq (s_substeps (0.016f, 0.001), 16, "a float's rounding is not a remainder");
    cr_expect_eq (s_substeps (0.1f, 0.001), 100);
    cr_expect_eq (s_substeps (1.0f, 0.001), 1000);
    cr_expect_eq (s_substeps (0.0105f, 0.0005), 21);
    cr_expect_eq (s_substeps (0.002f, 0.0002), 10);
    cr_expect_eq (s_substeps (10.0f, 0.001), 10000, "the longest step accepted");
    cr_expect_eq (s_substeps (10.0f, 0.002), 5000);
}

/* A step's work is bounded in substeps too (issue 24): with a finer
   substep the longest step is shorter. */
Test (gw_sync, substeps_refused_beyond_the_most_a_step_may_have)
{
    cr_expect_eq (s_substeps (1.0f, 0.0001), 10000, "1 s of 0.1 ms: the most");
    cr_expect_eq (s_substeps (1.0001f, 0.0001), -1);
    cr_expect_eq (s_substeps (10.0f, 0.0001), -1, "10 s of 0.1 ms substeps");
    char why[200] = "";
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = 5.0f;
    cr_expect_eq (gw_sync_substeps (&req, 0.0001, why, sizeof why), -1);
    cr_expect (strstr (why, "10000 substeps"), "%s", why);
}

Test (gw_sync, substeps_refused_when_not_a_whole_number)
{
    cr_expect_eq (s_substeps (0.0105f, 0.001), -1);
    cr_expect_eq (s_substeps (0.0015f, 0.001), -1);
    cr_expect_eq (s_substeps (0.0001f, 0.001), -1, "less than one substep");
    cr_expect_eq (s_substeps (0.0009f, 0.001), -1);
    cr_expect_eq (s_substeps (1.0005f, 0.001), -1);
}

Test (gw_sync, substeps_refused_when_negative_or_not_finite)
{
    cr_expect_eq (s_substeps (-0.016f, 0.001), -1);
    cr_expect_eq (s_substeps (-1e-30f, 0.001), -1);
    cr_expect_eq (s_substeps (NAN, 0.001), -1);
    cr_expect_eq (s_substeps (-NAN, 0.001), -1);
    cr_expect_eq (s_substeps (INFINITY, 0.001), -1);
    cr_expect_eq (s_substeps (-INFINITY, 0.001), -1);
}

Test (gw_sync, substeps_refused_beyond_sixty_seconds)
{
    cr_expect_eq (s_substeps (60.002f, 0.001), -1);
    cr_expect_eq (s_substeps (61.0f, 0.001), -1);
    cr_expect_eq (s_substeps (3600.0f, 0.001), -1);
    cr_expect_eq (s_substeps (3.0e38f, 0.001), -1, "the largest float");
}

/* ---- gw_sync_answer: packets and replies as they arrive ---------------- */

/* An SSL_WrapperPacket as vision sends it: a detection frame with
   `robots` blue robots, and a geometry part when asked. */
static ProtobufCBinaryData
s_wrapper (int i, int robots, bool detection, bool geometry)
{
    SSLDetectionBall ball = SSL__DETECTION_BALL__INIT;
    ball.confidence = 0.9f;
    ball.x = 100.25f * (float) i;
    ball.y = -7.5f;
    ball.has_z = i % 2;
    ball.z = 21.0f;
    ball.pixel_x = 320.0f;
    ball.pixel_y = 240.0f;
    SSLDetectionBall *balls[1] = { &ball };
    SSLDetectionRobot rs[64];
    SSLDetectionRobot *rp[64];
    cr_assert_leq (robots, 64);
    for (int k = 0; k < robots; k++) {
        ssl__detection_robot__init (&rs[k]);
        rs[k].confidence = 0.5f + 0.001f * (float) k;
        rs[k].has_robot_id = true;
        rs[k].robot_id = (uint32_t) k;
        rs[k].x = 1234.5f + (float) (k * i);
        rs[k].y = -987.25f - (float) k;
        rs[k].has_orientation = true;
        rs[k].orientation = 0.1f * (float) k;
        rs[k].pixel_x = (float) k;
        rs[k].pixel_y = (float) i;
        rs[k].has_height = true;
        rs[k].height = 150.0f;
        rp[k] = &rs[k];
    }
    SSLDetectionFrame frame = SSL__DETECTION_FRAME__INIT;
    frame.frame_number = (uint32_t) (1000 + i);
    frame.t_capture = 1.0 / 3.0 + i * 0.016;
    frame.t_sent = frame.t_capture + 0.004;
    frame.has_t_capture_camera = true;
    frame.t_capture_camera = frame.t_capture;
    frame.camera_id = (uint32_t) (i % 4);
    frame.n_balls = 1;
    frame.balls = balls;
    frame.n_robots_blue = (size_t) robots;
    frame.robots_blue = rp;

    SSLGeometryFieldSize field = SSL__GEOMETRY_FIELD_SIZE__INIT;
    field.field_length = 12000;
    field.field_width = 9000;
    field.goal_width = 1800;
    field.goal_depth = 180;
    field.boundary_width = 300;
    SSLGeometryData geo = SSL__GEOMETRY_DATA__INIT;
    geo.field = &field;

    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = detection ? &frame : NULL;
    w.geometry = geometry ? &geo : NULL;
    size_t len = ssl__wrapper_packet__get_packed_size (&w);
    uint8_t *data = malloc (len ? len : 1);
    cr_assert_not_null (data);
    cr_assert_eq (ssl__wrapper_packet__pack (&w, data), len);
    return (ProtobufCBinaryData) { len, data };
}

/* A step's reply from physics, decoded from the wire as the gateway gets
   it: the simulator_command's errors, the robots', and feedback. */
static Simbus__Envelope *
s_reply_env (uint64_t id, int errors, int robot_errors, int feedback)
{
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = id;
    reply.time_ns = 16000000;
    SimulatorError e[8], re[8];
    SimulatorError *ep[8], *rep[8];
    char text[16][64];
    cr_assert (errors <= 8 && robot_errors <= 8);
    for (int i = 0; i < errors; i++) {
        simulator_error__init (&e[i]);
        snprintf (text[i], sizeof text[i], "CMD_%d: command error %d", i, i);
        e[i].code = (char *) "CMD";
        e[i].message = text[i];
        ep[i] = &e[i];
    }
    for (int i = 0; i < robot_errors; i++) {
        simulator_error__init (&re[i]);
        snprintf (text[8 + i], sizeof text[8 + i], "ROBOT_%d: robot error %d", i, i);
        re[i].code = (char *) "ROBOT";
        re[i].message = text[8 + i];
        rep[i] = &re[i];
    }
    reply.n_errors = (size_t) errors;
    reply.errors = ep;
    reply.n_robot_errors = (size_t) robot_errors;
    reply.robot_errors = rep;
    RobotFeedback *fb = calloc ((size_t) (feedback ? feedback : 1), sizeof *fb);
    RobotFeedback **fbp = calloc ((size_t) (feedback ? feedback : 1), sizeof *fbp);
    cr_assert (fb && fbp);
    for (int i = 0; i < feedback; i++) {
        robot_feedback__init (&fb[i]);
        fb[i].id = (uint32_t) (i % 256 + 1000);
        fb[i].has_dribbler_ball_contact = true;
        fb[i].dribbler_ball_contact = i % 2;
        fbp[i] = &fb[i];
    }
    reply.n_feedback = (size_t) feedback;
    reply.feedback = fbp;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.version = SIM_BUS_VERSION;
    env.body_case = SIMBUS__ENVELOPE__BODY_REPLY;
    env.reply = &reply;
    size_t size = simbus__envelope__get_packed_size (&env);
    uint8_t *buf = malloc (size);
    cr_assert_not_null (buf);
    simbus__envelope__pack (&env, buf);
    Simbus__Envelope *out = sim_bus_decode (buf, size, NULL);
    cr_assert_not_null (out);
    free (buf);
    free (fb);
    free (fbp);
    return out;
}

/* A pending sync request with n packets kept. */
typedef struct {
    gw_pending_t *pending;
    gw_request_t *req;
    size_t n;
    ProtobufCBinaryData wrappers[256];
} s_step_t;

static void
s_step_open (s_step_t *s)
{
    memset (s, 0, sizeof *s);
    s->pending = gw_pending_new (4);
    struct sockaddr_in from;
    memset (&from, 0, sizeof from);
    from.sin_family = AF_INET;
    from.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    s->req = gw_pending_add (s->pending, GW_REQ_SYNC, GW_PORT_BLUE, &from, 0);
    cr_assert_not_null (s->req);
}

static void
s_step_packet (s_step_t *s, ProtobufCBinaryData w)
{
    cr_assert_lt (s->n, 256);
    s->wrappers[s->n++] = w;
    gw_pending_keep_frames (s->req, &w, 1);
}

static void
s_step_close (s_step_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free (s->wrappers[i].data);
    gw_pending_destroy (&s->pending);
}

/* The answer as protobuf-c packs it: the detection frames of packets
   [first, s->n) and, when with_rcr, a RobotControlResponse with the
   errors in processing order (robots', command's, gateway's) and the
   reply's feedback. Returns the packed size; *out is malloc'd. */
static size_t
s_expected (const s_step_t *s, size_t first, bool with_rcr, uint8_t **out)
{
    SSLWrapperPacket *unpacked[256];
    SSLDetectionFrame *frames[256];
    size_t n = 0;
    for (size_t i = first; i < s->n; i++) {
        unpacked[i] = ssl__wrapper_packet__unpack (NULL, s->wrappers[i].len, s->wrappers[i].data);
        cr_assert_not_null (unpacked[i]);
        if (unpacked[i]->detection)
            frames[n++] = unpacked[i]->detection;
    }
    const gw_request_t *req = s->req;
    const Simbus__Reply *reply = req->reply;
    SimulatorError *errors[SIM_ERRORS_MAX * 3];
    size_t ne = 0;
    if (reply) {
        for (size_t i = 0; i < reply->n_robot_errors; i++)
            errors[ne++] = reply->robot_errors[i];
        for (size_t i = 0; i < reply->n_errors; i++)
            errors[ne++] = reply->errors[i];
    }
    for (size_t i = 0; i < req->early->count; i++)
        errors[ne++] = req->early->ptrs[i];
    RobotControlResponse rcr = ROBOT_CONTROL_RESPONSE__INIT;
    rcr.n_errors = ne;
    rcr.errors = errors;
    if (reply) {
        rcr.n_feedback = reply->n_feedback;
        rcr.feedback = reply->feedback;
    }
    SimulationSyncResponse resp = SIMULATION_SYNC_RESPONSE__INIT;
    resp.n_detection = n;
    resp.detection = frames;
    resp.robot_control_response = with_rcr ? &rcr : NULL;
    size_t len = simulation_sync_response__get_packed_size (&resp);
    *out = malloc (len ? len : 1);
    cr_assert_not_null (*out);
    cr_assert_eq (simulation_sync_response__pack (&resp, *out), len);
    for (size_t i = first; i < s->n; i++)
        ssl__wrapper_packet__free_unpacked (unpacked[i], NULL);
    return len;
}

static uint8_t s_buf[GW_DATAGRAM_MAX];

/* Answer the step and compare it with protobuf-c's packing. */
static void
s_expect_answer (const s_step_t *s, size_t first, bool with_rcr)
{
    sim_errors_t scratch;
    size_t len = 12345, left_out = 999;
    cr_assert_eq (gw_sync_answer (s->req, &scratch, s_buf, sizeof s_buf, &len, &left_out), 0);
    cr_expect_eq (left_out, first, "packets left out");
    uint8_t *want;
    size_t want_len = s_expected (s, first, with_rcr, &want);
    cr_assert_eq (len, want_len, "answer of %zu bytes, protobuf-c packs %zu", len, want_len);
    cr_expect (memcmp (s_buf, want, len) == 0, "the same bytes as protobuf-c's packing");
    /* and a client reads it back */
    SimulationSyncResponse *back = simulation_sync_response__unpack (NULL, len, s_buf);
    cr_assert_not_null (back);
    cr_expect_eq (back->robot_control_response != NULL, with_rcr);
    simulation_sync_response__free_unpacked (back, NULL);
    free (want);
}

Test (gw_sync, answer_is_protobuf_c_packing_of_the_same_response)
{
    s_step_t s;
    s_step_open (&s);
    s_step_packet (&s, s_wrapper (0, 6, true, false));
    s_step_packet (&s, s_wrapper (1, 0, false, true)); /* geometry only: no frame */
    s_step_packet (&s, s_wrapper (2, 11, true, true)); /* both: its frame */
    s_step_packet (&s, s_wrapper (3, 1, true, false));
    s_step_packet (&s, s_wrapper (4, 16, true, false));
    Simbus__Envelope *env = s_reply_env (s.req->id, 2, 3, 5);
    gw_pending_set_reply (s.req, env, env->reply);
    sim_errors_add (s.req->early, "UNSUPPORTED", "simulator_command.config is not supported in sync steps");
    s_expect_answer (&s, 0, true);

    /* the order in the answer is robots', command's, gateway's */
    sim_errors_t scratch;
    size_t len, left_out;
    cr_assert_eq (gw_sync_answer (s.req, &scratch, s_buf, sizeof s_buf, &len, &left_out), 0);
    SimulationSyncResponse *back = simulation_sync_response__unpack (NULL, len, s_buf);
    cr_assert_not_null (back);
    cr_assert_eq (back->n_detection, 4);
    cr_expect_eq (back->detection[1]->frame_number, 1002, "release order");
    const RobotControlResponse *rcr = back->robot_control_response;
    cr_assert_not_null (rcr);
    cr_assert_eq (rcr->n_errors, 6);
    cr_expect_str_eq (rcr->errors[0]->code, "ROBOT");
    cr_expect_str_eq (rcr->errors[2]->message, "ROBOT_2: robot error 2");
    cr_expect_str_eq (rcr->errors[3]->message, "CMD_0: command error 0");
    cr_expect_str_eq (rcr->errors[5]->code, "UNSUPPORTED");
    cr_expect_eq (rcr->n_feedback, 5);
    simulation_sync_response__free_unpacked (back, NULL);
    s_step_close (&s);
}

Test (gw_sync, answer_carries_feedback_on_a_team_port)
{
    s_step_t s;
    s_step_open (&s);
    s_step_packet (&s, s_wrapper (7, 3, true, false));
    s.req->team_robot_control = true;
    Simbus__Envelope *env = s_reply_env (s.req->id, 0, 0, 4);
    gw_pending_set_reply (s.req, env, env->reply);
    s_expect_answer (&s, 0, true);
    s_step_close (&s);
}

Test (gw_sync, answer_without_errors_off_a_team_port_has_no_robot_control_response)
{
    s_step_t s;
    s_step_open (&s);
    s_step_packet (&s, s_wrapper (1, 2, true, false));
    s_step_packet (&s, s_wrapper (2, 2, true, false));
    Simbus__Envelope *env = s_reply_env (s.req->id, 0, 0, 3);
    gw_pending_set_reply (s.req, env, env->reply);
    s_expect_answer (&s, 0, false);
    s_step_close (&s);
}

Test (gw_sync, answer_of_a_timed_out_step_has_the_gateways_errors)
{
    /* physics never answered: no reply, only what the gateway found */
    s_step_t s;
    s_step_open (&s);
    s_step_packet (&s, s_wrapper (5, 4, true, false));
    sim_errors_add (s.req->early, "INVALID_STEP", "sim_step %g is not a whole number of substeps", 0.0105);
    s_expect_answer (&s, 0, true);
    s_step_close (&s);
}

Test (gw_sync, an_empty_answer_is_no_bytes)
{
    s_step_t s;
    s_step_open (&s);
    sim_errors_t scratch;
    size_t len = 777, left_out = 5;
    cr_expect_eq (gw_sync_answer (s.req, &scratch, s_buf, sizeof s_buf, &len, &left_out), 0);
    cr_expect_eq (len, 0);
    cr_expect_eq (left_out, 0);
    /* a reply with nothing to say, and packets without a frame, add nothing */
    s_step_packet (&s, s_wrapper (1, 0, false, true));
    Simbus__Envelope *env = s_reply_env (s.req->id, 0, 0, 0);
    gw_pending_set_reply (s.req, env, env->reply);
    len = 777;
    cr_expect_eq (gw_sync_answer (s.req, &scratch, s_buf, sizeof s_buf, &len, &left_out), 0);
    cr_expect_eq (len, 0);
    s_step_close (&s);
}

/* How many of the newest packets fit a datagram with the answer's
   RobotControlResponse, by protobuf-c's count. */
static size_t
s_fitting (const s_step_t *s, bool with_rcr)
{
    size_t first = s->n;
    while (first > 0) {
        uint8_t *bytes;
        size_t len = s_expected (s, first - 1, with_rcr, &bytes);
        free (bytes);
        if (len > GW_DATAGRAM_MAX)
            break;
        first--;
    }
    return s->n - first;
}

Test (gw_sync, too_many_frames_keep_the_newest)
{
    s_step_t s;
    s_step_open (&s);
    for (int i = 0; i < 200; i++)
        s_step_packet (&s, s_wrapper (i, 24 + i % 7, true, i % 50 == 0));
    size_t fit = s_fitting (&s, false);
    cr_assert (fit > 10 && fit < 200, "the test needs a step that does not fit (%zu of 200 do)", fit);
    s_expect_answer (&s, 200 - fit, false);

    /* with errors to carry, the frames make room for them */
    Simbus__Envelope *env = s_reply_env (s.req->id, 8, 8, 200);
    gw_pending_set_reply (s.req, env, env->reply);
    size_t fit_rcr = s_fitting (&s, true);
    cr_expect_lt (fit_rcr, fit);
    s_expect_answer (&s, 200 - fit_rcr, true);
    s_step_close (&s);
}

Test (gw_sync, an_answer_that_cannot_fit_is_refused)
{
    /* feedback alone larger than a datagram */
    s_step_t s;
    s_step_open (&s);
    s_step_packet (&s, s_wrapper (0, 2, true, false));
    s.req->team_robot_control = true;
    Simbus__Envelope *env = s_reply_env (s.req->id, 0, 0, 12000);
    gw_pending_set_reply (s.req, env, env->reply);
    sim_errors_t scratch;
    size_t len = 0, left_out = 0;
    cr_expect_eq (gw_sync_answer (s.req, &scratch, s_buf, sizeof s_buf, &len, &left_out), -1);
    s_step_close (&s);
}

/* 100 s is refused for its length, not for its size in substeps. */
Test (gw_sync, each_refusal_says_why)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    char why[200];
    req.sim_step = 100.0f;
    cr_expect_eq (gw_sync_substeps (&req, 0.001, why, sizeof why), -1);
    cr_expect (strstr (why, "longer than the 10 s"), "%s", why);
    req.sim_step = 0.0105f;
    cr_expect_eq (gw_sync_substeps (&req, 0.001, why, sizeof why), -1);
    cr_expect (strstr (why, "not a whole number of the simulator's 0.001 s substeps"), "%s", why);
    req.sim_step = NAN;
    cr_expect_eq (gw_sync_substeps (&req, 0.001, why, sizeof why), -1);
    cr_expect (strstr (why, "finite"), "%s", why);
}
