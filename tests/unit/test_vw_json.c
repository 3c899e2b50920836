/*  test_vw_json.c - services/viewer/vw_json.c and vw_metrics.c: what the
    viewer sends the page, parsed back as the page would, the page's ops
    parsed or refused, and the status as Prometheus text. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_utf8.h"
#include "common/config/config.h"
#include "services/viewer/vw_json.h"
#include "ssl_vision_wrapper.pb-c.h"

static cJSON *
s_parse (char *text)
{
    cr_assert_not_null (text);
    cJSON *root = cJSON_Parse (text);
    cr_assert_not_null (root, "not JSON: %s", text);
    free (text);
    return root;
}

static const cJSON *
s_get (const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive (obj, key);
    cr_assert_not_null (item, "no \"%s\"", key);
    return item;
}

static double
s_num (const cJSON *obj, const char *key)
{
    const cJSON *item = s_get (obj, key);
    cr_assert (cJSON_IsNumber (item), "\"%s\" is not a number", key);
    return item->valuedouble;
}

static const char *
s_str (const cJSON *obj, const char *key)
{
    const cJSON *item = s_get (obj, key);
    cr_assert (cJSON_IsString (item), "\"%s\" is not a string", key);
    return item->valuestring;
}

Test (vw_json, hello_names_mode_and_seed)
{
    cJSON *h = s_parse (vw_json_hello (SIM_MODE_SYNC, 42));
    cr_expect_str_eq (s_str (h, "type"), "hello");
    cr_expect_eq (s_num (h, "version"), VW_PROTOCOL_VERSION);
    cr_expect_str_eq (s_str (h, "mode"), "sync");
    cr_expect_eq (s_num (h, "seed"), 42);
    cJSON_Delete (h);
}

Test (vw_json, geometry_is_the_division_field_and_its_rig)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cJSON *g = s_parse (vw_json_geometry (&cfg));
    const cJSON *field = s_get (g, "field");
    cr_expect_float_eq (s_num (field, "length"), 12.0, 1e-9);
    cr_expect_float_eq (s_num (field, "width"), 9.0, 1e-9);
    cr_expect_float_eq (s_num (field, "goal_width"), 1.8, 1e-9);
    cr_expect_float_eq (s_num (field, "penalty_area_depth"), 1.8, 1e-9);
    cr_expect_float_eq (s_num (field, "center_circle_radius"), 0.5, 1e-9);
    cr_expect_float_eq (s_num (field, "ball_radius"), cfg.ball.radius, 1e-6);
    /* the 2026 Division A margins and the goal substitution area the page draws */
    cr_expect_float_eq (s_num (field, "boundary_width"), 0.3, 1e-9);
    cr_expect_float_eq (s_num (field, "boundary_width_goal_line"), 0.6, 1e-9);
    cr_expect_float_eq (s_num (field, "goal_substitution_area_width"), 0.3, 1e-9);
    const cJSON *cams = s_get (g, "cameras");
    cr_assert_eq (cJSON_GetArraySize (cams), 2, "division A: two cameras");
    /* the two halves: regions meet at x = 0 and cover the field with its boundary */
    const cJSON *c0 = cJSON_GetArrayItem (cams, 0), *c1 = cJSON_GetArrayItem (cams, 1);
    const cJSON *r0 = s_get (c0, "region"), *r1 = s_get (c1, "region");
    double lo0 = s_num (r0, "x_min"), hi0 = s_num (r0, "x_max");
    double lo1 = s_num (r1, "x_min"), hi1 = s_num (r1, "x_max");
    cr_expect (s_num (c0, "x") * s_num (c1, "x") < 0, "one camera over each half");
    cr_expect_float_eq (fmin (hi0, hi1), 0.0, 1e-9);
    cr_expect_float_eq (fmax (lo0, lo1), 0.0, 1e-9);
    cr_expect_float_eq (fmin (lo0, lo1), -6.6, 1e-9);
    cr_expect_float_eq (fmax (hi0, hi1), 6.6, 1e-9);
    cr_expect_float_eq (s_num (r0, "y_min"), -4.8, 1e-9);
    cr_expect_float_eq (s_num (r0, "y_max"), 4.8, 1e-9);
    cr_expect_eq (s_str (c0, "color")[0], '#');
    cr_expect_str_neq (s_str (c0, "color"), s_str (c1, "color"));
    cJSON_Delete (g);
}

Test (vw_json, world_carries_truth_kicks_and_vision_in_metres)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = 12345000000ull;
    snap.ball = (sim_ball_state_t) { 1.5, -2.25, 0.1, 3, 0, 0, 0, 0 };
    snap.robot_count = 2;
    snap.robots[0] = (sim_robot_state_t) { 0, 3, 1, 2, 0.5, 0, 0, 0, true, 0.09, 0.15 };
    snap.robots[1] = (sim_robot_state_t) { 1, 7, -1, -2, -3, 0, 0, 0, false, 0.09, 0.15 };
    vw_kick_t kick = { 0, 3, 5.2, 12.3 };
    SSLDetectionBall ball = SSL__DETECTION_BALL__INIT;
    ball.confidence = 0.9f;
    ball.x = 1500;
    ball.y = -2250;
    SSLDetectionBall *balls[] = { &ball };
    SSLDetectionRobot robot = SSL__DETECTION_ROBOT__INIT;
    robot.confidence = 0.95f;
    robot.has_robot_id = true;
    robot.robot_id = 7;
    robot.x = -1000;
    robot.y = -2000;
    robot.has_orientation = true;
    robot.orientation = -3;
    SSLDetectionRobot *robots[] = { &robot };
    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.camera_id = 1;
    det.frame_number = 99;
    det.t_capture = 12.3;
    det.n_balls = 1;
    det.balls = balls;
    det.n_robots_yellow = 1;
    det.robots_yellow = robots;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = &det;
    const void *frames[] = { NULL, &w };
    vw_world_t world = { &snap, true, 1, &kick, 2, frames, 0, NULL, 0 };
    cJSON *j = s_parse (vw_json_world (&world));
    cr_expect_str_eq (s_str (j, "type"), "world");
    cr_expect_float_eq (s_num (j, "t"), 12.345, 1e-9);
    cr_expect (cJSON_IsTrue (s_get (j, "paused")));
    cr_expect_float_eq (s_num (s_get (j, "ball"), "y"), -2.25, 1e-9);
    const cJSON *rs = s_get (j, "robots");
    cr_assert_eq (cJSON_GetArraySize (rs), 2);
    const cJSON *r0 = cJSON_GetArrayItem (rs, 0), *r1 = cJSON_GetArrayItem (rs, 1);
    cr_expect_str_eq (s_str (r0, "team"), "blue");
    cr_expect_str_eq (s_str (r1, "team"), "yellow");
    cr_expect_eq (s_num (r1, "id"), 7);
    cr_expect (cJSON_IsTrue (s_get (r0, "contact")));
    cr_expect_float_eq (s_num (r0, "o"), 0.5, 1e-9);
    const cJSON *ks = s_get (j, "kicks");
    cr_assert_eq (cJSON_GetArraySize (ks), 1);
    cr_expect_float_eq (s_num (cJSON_GetArrayItem (ks, 0), "speed"), 5.2, 1e-9);
    const cJSON *vs = s_get (j, "vision");
    cr_assert_eq (cJSON_GetArraySize (vs), 1, "a NULL frame is skipped");
    const cJSON *v = cJSON_GetArrayItem (vs, 0);
    cr_expect_eq (s_num (v, "camera"), 1);
    cr_expect_eq (s_num (v, "frame"), 99);
    const cJSON *vb = cJSON_GetArrayItem (s_get (v, "balls"), 0);
    cr_expect_float_eq (s_num (vb, "x"), 1.5, 1e-6, "millimetres on the wire, metres to the page");
    const cJSON *vr = cJSON_GetArrayItem (s_get (v, "robots"), 0);
    cr_expect_str_eq (s_str (vr, "team"), "yellow");
    cr_expect_float_eq (s_num (vr, "y"), -2.0, 1e-6);
    cJSON_Delete (j);
}

/* The status of the default configuration, every service alive and no
   Stats yet. */
static void
s_status_of_defaults (vw_status_t *st)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    bool alive[VW_SERVICES] = { true, true, true, true, true };
    vw_status_from_stats (st, &cfg, NULL, NULL, NULL, NULL, alive, 1);
}

/* A log played (ssl-sim play) has vision and no truth: the world's time
   is the log's, with no ball and no robots of its own. */
Test (vw_json, a_world_of_a_log_has_its_time_and_no_truth)
{
    vw_world_t world = { .truth = NULL, .paused = true, .t = 12.5 };
    cJSON *j = s_parse (vw_json_world (&world));
    cr_expect_float_eq (s_num (j, "t"), 12.5, 1e-12);
    cr_expect_eq (cJSON_GetArraySize (s_get (j, "robots")), 0);
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (s_get (j, "ball"), "x"));
    cJSON_Delete (j);
}

Test (vw_json, status_carries_the_timeline_of_a_log)
{
    vw_status_t st;
    s_status_of_defaults (&st);
    cJSON *j = s_parse (vw_json_status (&st));
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (j, "player"), "a simulator has no timeline");
    cJSON_Delete (j);
    st.has_player = true;
    st.player_t = 3.5;
    st.player_duration = 600;
    st.player_speed = 10;
    st.player_paused = true;
    st.player_next_command = 4.25;
    st.player_next_goal = -1;
    j = s_parse (vw_json_status (&st));
    const cJSON *p = s_get (j, "player");
    cr_expect_float_eq (s_num (p, "t"), 3.5, 1e-12);
    cr_expect_float_eq (s_num (p, "duration"), 600, 1e-12);
    cr_expect_float_eq (s_num (p, "speed"), 10, 1e-12);
    cr_expect (cJSON_IsTrue (s_get (p, "paused")));
    cr_expect (cJSON_IsFalse (s_get (p, "ended")));
    cr_expect_float_eq (s_num (p, "next_command"), 4.25, 1e-12);
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (p, "next_goal"), "no goal after t: absent");
    cJSON_Delete (j);
}

/* The world is written into a reused buffer, not built as a cJSON tree:
   every separator must still be right with several of each, and a smaller
   world after a bigger one must not keep the bigger one's tail. */
Test (vw_json, world_text_is_json_with_many_of_each_and_reused)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.robot_count = 3;
    for (int i = 0; i < 3; i++)
        snap.robots[i] = (sim_robot_state_t) { i % 2, i, -0.000001 * i, 1e6, 1, 0, 0, 0, false, 0.09, 0.15 };
    vw_kick_t kicks[] = { { 0, 1, 2, 3 }, { 1, 2, 3, 4 } };
    SSLDetectionBall b0 = SSL__DETECTION_BALL__INIT, b1 = SSL__DETECTION_BALL__INIT;
    SSLDetectionBall *balls[] = { &b0, &b1 };
    SSLDetectionRobot r0 = SSL__DETECTION_ROBOT__INIT, r1 = SSL__DETECTION_ROBOT__INIT;
    SSLDetectionRobot *blue[] = { &r0 }, *yellow[] = { &r1 };
    SSLDetectionFrame d = SSL__DETECTION_FRAME__INIT;
    d.n_balls = 2;
    d.balls = balls;
    d.n_robots_blue = 1;
    d.robots_blue = blue;
    d.n_robots_yellow = 1;
    d.robots_yellow = yellow;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT, geometry_only = SSL__WRAPPER_PACKET__INIT;
    w.detection = &d;
    const void *frames[] = { &w, &geometry_only, &w };
    vw_world_t big = { &snap, false, 2, kicks, 3, frames, 0, NULL, 0 };
    vw_text_t text = { 0 };
    cJSON *j = cJSON_Parse (vw_json_world_into (&big, &text));
    cr_assert_not_null (j, "not JSON: %s", text.buf);
    cr_expect_eq (cJSON_GetArraySize (s_get (j, "robots")), 3);
    cr_expect_eq (cJSON_GetArraySize (s_get (j, "kicks")), 2);
    const cJSON *vision = s_get (j, "vision");
    cr_assert_eq (cJSON_GetArraySize (vision), 2, "a packet without detection is skipped");
    cr_expect_eq (cJSON_GetArraySize (s_get (cJSON_GetArrayItem (vision, 1), "robots")), 2);
    cr_expect_eq (s_num (cJSON_GetArrayItem (s_get (cJSON_GetArrayItem (vision, 1), "robots"), 0), "id"), -1,
                  "no id: -1");
    cr_expect_float_eq (s_num (cJSON_GetArrayItem (s_get (j, "robots"), 2), "x"), -0.000002, 1e-12);
    cr_expect_float_eq (s_num (cJSON_GetArrayItem (s_get (j, "robots"), 2), "y"), 1e6, 1e-6);
    cJSON_Delete (j);
    vw_world_t empty = { NULL, true, 0, NULL, 0, NULL, 0, NULL, 0 };
    j = cJSON_Parse (vw_json_world_into (&empty, &text));
    cr_assert_not_null (j, "not JSON: %s", text.buf);
    cr_expect_eq (cJSON_GetArraySize (s_get (j, "robots")), 0);
    cr_expect_eq (cJSON_GetArraySize (s_get (j, "vision")), 0);
    cr_expect_eq (strlen (text.buf), text.len);
    cJSON_Delete (j);
    vw_text_free (&text);
    cr_expect_null (text.buf);
}

Test (vw_json, result_ok_and_refused)
{
    cJSON *ok = s_parse (vw_json_result (7, NULL, NULL));
    cr_expect_eq (s_num (ok, "id"), 7);
    cr_expect (cJSON_IsTrue (s_get (ok, "ok")));
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (ok, "code"));
    cJSON_Delete (ok);
    cJSON *bad = s_parse (vw_json_result (8, "INVALID_SPEC", "radius \"too\" small"));
    cr_expect (cJSON_IsFalse (s_get (bad, "ok")));
    cr_expect_str_eq (s_str (bad, "code"), "INVALID_SPEC");
    cr_expect_str_eq (s_str (bad, "message"), "radius \"too\" small", "escaped and back");
    cJSON_Delete (bad);
}

static int
s_op (const char *text, vw_op_t *op)
{
    char why[160];
    return vw_json_parse_op (text, strlen (text), op, why, sizeof why);
}

Test (vw_json, ops_parse)
{
    vw_op_t op;
    cr_assert_eq (s_op ("{\"op\":\"next\"}", &op), 0);
    cr_expect_eq (op.kind, VW_OP_NEXT);
    cr_assert_eq (s_op ("{\"op\":\"teleport_ball\",\"id\":1,\"x\":1.0,\"y\":-1,\"vx\":2}", &op), 0);
    cr_expect_eq (op.kind, VW_OP_TELEPORT_BALL);
    cr_expect_eq (op.id, 1);
    cr_expect (op.has_v && !op.has_z);
    cr_expect_float_eq (op.vx, 2.0, 1e-12);
    cr_assert_eq (s_op ("{\"op\":\"teleport_robot\",\"id\":2,\"team\":\"yellow\",\"robot\":3,\"x\":0,\"y\":1,"
                        "\"o\":1.5,\"present\":true}",
                        &op),
                  0);
    cr_expect_eq (op.team, SIM_TEAM_YELLOW);
    cr_expect_eq (op.robot, 3);
    cr_expect (op.has_o && op.has_x && op.present);
    cr_assert_eq (
        s_op ("{\"op\":\"teleport_robot\",\"id\":2,\"team\":\"blue\",\"robot\":3,\"present\":false}", &op),
        0);
    cr_expect (!op.present && op.has_present);
    cr_assert_eq (s_op ("{\"op\":\"speed\",\"id\":7,\"value\":0.5}", &op), 0);
    cr_expect_float_eq (op.value, 0.5, 1e-12);
    cr_assert_eq (s_op ("{\"op\":\"realism\",\"id\":8,\"preset\":\"none\"}", &op), 0);
    cr_expect_str_eq (op.preset, "none");
    cr_assert_eq (s_op ("{\"op\":\"cameras\",\"id\":9,\"count\":4}", &op), 0);
    cr_expect_eq (op.count, 4);
    cr_assert_eq (s_op ("{\"op\":\"seek\",\"id\":10,\"t\":12.5}", &op), 0);
    cr_expect (op.kind == VW_OP_SEEK && op.value == 12.5);
    cr_assert_eq (s_op ("{\"op\":\"jump\",\"id\":11,\"to\":\"goal\"}", &op), 0);
    cr_expect (op.kind == VW_OP_JUMP && op.to_goal);
    cr_assert_eq (s_op ("{\"op\":\"jump\",\"id\":11,\"to\":\"command\"}", &op), 0);
    cr_expect (!op.to_goal);
    const char *plain[] = { "pause", "resume", "step", "reset" };
    const vw_op_kind_t kinds[] = { VW_OP_PAUSE, VW_OP_RESUME, VW_OP_STEP, VW_OP_RESET };
    for (int i = 0; i < 4; i++) {
        char text[64];
        snprintf (text, sizeof text, "{\"op\":\"%s\",\"id\":%d}", plain[i], i);
        cr_assert_eq (s_op (text, &op), 0, "%s", text);
        cr_expect_eq (op.kind, kinds[i]);
        cr_expect_eq (op.id, i);
    }
}

Test (vw_json, bad_ops_are_refused_with_their_id)
{
    static const char *const bad[] = {
        "",
        "[1,2]",
        "{\"op\":\"fly\",\"id\":1}",
        "{\"op\":\"pause\"}",
        "{\"op\":\"teleport_ball\",\"id\":1,\"x\":\"1\",\"y\":1}",
        "{\"op\":\"teleport_ball\",\"id\":1,\"x\":1}",
        "{\"op\":\"teleport_robot\",\"id\":1,\"team\":\"red\",\"robot\":1,\"x\":0,\"y\":0}",
        "{\"op\":\"teleport_robot\",\"id\":1,\"team\":\"blue\",\"robot\":256,\"x\":0,\"y\":0}",
        "{\"op\":\"teleport_robot\",\"id\":1,\"team\":\"blue\",\"robot\":1.5,\"x\":0,\"y\":0}",
        "{\"op\":\"teleport_robot\",\"id\":1,\"team\":\"blue\",\"robot\":1,\"present\":\"yes\"}",
        "{\"op\":\"speed\",\"id\":1,\"value\":-1}",
        "{\"op\":\"speed\",\"id\":1}",
        "{\"op\":\"cameras\",\"id\":1,\"count\":3}",
        "{\"op\":\"realism\",\"id\":1,\"preset\":5}",
        "{\"op\":\"teleport_ball\",\"id\":1,\"x\":1e999,\"y\":0}",
        "{\"op\":\"seek\",\"id\":1}",
        "{\"op\":\"seek\",\"id\":1,\"t\":\"5\"}",
        "{\"op\":\"jump\",\"id\":1,\"to\":\"card\"}",
        "{\"op\":\"jump\",\"id\":1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vw_op_t op;
        char why[160] = "";
        cr_expect_eq (vw_json_parse_op (bad[i], strlen (bad[i]), &op, why, sizeof why), -1, "accepted: %s",
                      bad[i]);
        cr_expect_neq (why[0], '\0', "no reason for %s", bad[i]);
    }
    vw_op_t op;
    char why[160];
    const char *text = "{\"op\":\"speed\",\"id\":12,\"value\":-1}";
    cr_expect_eq (vw_json_parse_op (text, strlen (text), &op, why, sizeof why), -1);
    cr_expect (op.has_id && op.id == 12, "a refusal can be answered with the op's id");

    /* the refusal quotes the op's name cut between whole characters: the
       answer goes back in a WebSocket text frame, which must be UTF-8 */
    text = "{\"op\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u00e9\u00e9\",\"id\":1}";
    cr_expect_eq (vw_json_parse_op (text, strlen (text), &op, why, sizeof why), -1);
    cr_expect (sim_utf8_valid (why, strlen (why)), "a cut character in: %s", why);
    cr_expect (strstr (why, "aaa\""), "the \u00e9 that does not fit whole is left out: %s", why);
}

/* A message nesting ~800 arrays killed the viewer (cJSON's recursion on
   the web server's small thread stack) before its token was checked: the
   nesting is refused before the parse. Brackets inside a string are
   text, and an escaped quote does not end the string. */
Test (vw_json, a_deeply_nested_op_is_refused_before_it_is_parsed)
{
    enum { DEPTH = 100000 };
    static const char head[] = "{\"op\":\"speed\",\"id\":1,\"value\":1,\"x\":";
    size_t len = strlen (head) + 2 * DEPTH + 1;
    char *text = malloc (len + 1);
    cr_assert_not_null (text);
    memcpy (text, head, strlen (head));
    memset (text + strlen (head), '[', DEPTH);
    memset (text + strlen (head) + DEPTH, ']', DEPTH);
    text[len - 1] = '}';
    text[len] = '\0';
    vw_op_t op;
    char why[160] = "";
    cr_expect_eq (vw_json_parse_op (text, len, &op, why, sizeof why), -1);
    cr_expect (strstr (why, "nested too deep") != NULL, "%s", why);
    /* 900 deep, which cJSON itself would take */
    memmove (text + strlen (head) + 900, text + strlen (head) + DEPTH, 900);
    text[strlen (head) + 1800] = '}';
    cr_expect_eq (vw_json_parse_op (text, strlen (head) + 1801, &op, why, sizeof why), -1);
    cr_expect (strstr (why, "nested too deep") != NULL, "%s", why);
    free (text);
    const char *flat = "{\"op\":\"realism\",\"id\":2,\"preset\":\"[[[[[[[[[[\\\"{{{{{{{{{{\"}";
    why[0] = '\0';
    cr_expect_eq (vw_json_parse_op (flat, strlen (flat), &op, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq (op.preset, "[[[[[[[[[[\"{{{{{{{{{{");
    /* VW_OP_NESTING_MAX (8) levels, the op's own object among them */
    const char *ok = "{\"op\":\"speed\",\"id\":3,\"value\":2,\"x\":[[[[[[{}]]]]]]}";
    cr_expect_eq (vw_json_parse_op (ok, strlen (ok), &op, why, sizeof why), 0, "%s", why);
}

Test (vw_json, status_and_metrics_show_the_same_numbers)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    uint64_t buckets[SIM_STATS_SUBSTEP_BUCKETS] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    Simbus__Stats physics = SIMBUS__STATS__INIT, vision = SIMBUS__STATS__INIT, gateway = SIMBUS__STATS__INIT;
    physics.service = (char *) "physics";
    physics.restarts = 2;
    physics.uptime_s = 30;
    physics.time_ns = 12500000000ull;
    physics.rtf = 0.99;
    physics.substep_us = 1.7;
    physics.n_substep_buckets = SIM_STATS_SUBSTEP_BUCKETS;
    physics.substep_buckets = buckets;
    physics.substeps = 10;
    physics.substep_sum_us = 17;
    Simbus__CameraStats cam = SIMBUS__CAMERA_STATS__INIT, *cams[] = { &cam };
    cam.id = 1;
    cam.packets = 500;
    cam.pps = 73.3;
    vision.service = (char *) "vision";
    vision.n_cameras = 1;
    vision.cameras = cams;
    vision.has_latency_p50_ms = vision.has_latency_p90_ms = vision.has_latency_max_ms = true;
    vision.latency_p50_ms = 40;
    vision.latency_p90_ms = 45.5;
    vision.latency_max_ms = 50;
    vision.has_latency_period_count = vision.has_latency_count = vision.has_latency_sum_ms = true;
    vision.latency_period_count = 50;
    vision.latency_count = 200;
    vision.latency_sum_ms = 8000;
    Simbus__PortStats blue = SIMBUS__PORT_STATS__INIT, *ports[] = { &blue };
    char *sources[] = { (char *) "127.0.0.1:40000" };
    blue.name = (char *) "blue";
    blue.port = 10301;
    blue.received = 600;
    blue.refused = 3;
    blue.lost = 4;
    blue.rate = 60;
    blue.n_sources = 1;
    blue.sources = sources;
    gateway.service = (char *) "gateway";
    gateway.n_ports = 1;
    gateway.ports = ports;
    gateway.sync_round_trips = 77;
    bool alive[VW_SERVICES] = { true, true, true, false, true };
    vw_status_t st;
    vw_status_from_stats (&st, &cfg, &physics, &vision, &gateway, NULL, alive, 5);
    cJSON *j = s_parse (vw_json_status (&st));
    cr_expect_float_eq (s_num (j, "t"), 12.5, 1e-9);
    cr_expect_float_eq (s_num (j, "rtf"), 0.99, 1e-9);
    cr_expect_float_eq (s_num (j, "substep_us"), 1.7, 1e-9);
    cr_expect_str_eq (s_str (j, "mode"), "realtime");
    cr_expect (cJSON_IsFalse (s_get (j, "paused")));
    const cJSON *c = cJSON_GetArrayItem (s_get (j, "cameras"), 0);
    cr_expect_float_eq (s_num (c, "pps"), 73.3, 1e-9);
    const cJSON *p = cJSON_GetArrayItem (s_get (j, "ports"), 0);
    cr_expect_str_eq (s_str (p, "name"), "blue");
    cr_expect_float_eq (s_num (p, "rate"), 60, 1e-9);
    cr_expect_str_eq (cJSON_GetArrayItem (s_get (p, "sources"), 0)->valuestring, "127.0.0.1:40000");
    cr_expect (cJSON_IsFalse (s_get (s_get (j, "services"), "legacy-grsim")));
    cr_expect_float_eq (s_num (j, "latency_ms"), 40, 1e-9);
    cr_expect_float_eq (s_num (j, "latency_p90_ms"), 45.5, 1e-9);
    cr_expect_float_eq (s_num (j, "latency_max_ms"), 50, 1e-9);
    cr_expect_float_eq (s_num (j, "latency_count"), 50, 1e-9);
    cJSON_Delete (j);

    char *m = vw_metrics_text (&st);
    cr_assert_not_null (m);
    const char *want[] = {
        "ssl_sim_real_time_factor 0.99\n",
        "ssl_sim_vision_packets_sent_total{camera=\"1\"} 500\n",
        "ssl_sim_datagrams_received_total{port=\"blue\",number=\"10301\"} 600\n",
        "ssl_sim_datagrams_refused_total{port=\"blue\",number=\"10301\"} 3\n",
        "ssl_sim_datagrams_lost_total{port=\"blue\",number=\"10301\"} 4\n",
        "ssl_sim_sync_round_trips_total 77\n",
        "ssl_sim_service_restarts_total{service=\"physics\"} 2\n",
        "ssl_sim_substep_seconds_bucket{le=\"+Inf\"} 10\n",
        "ssl_sim_substep_seconds_count 10\n",
        "ssl_sim_up{service=\"legacy-grsim\"} 0\n",
        "# TYPE ssl_sim_substep_seconds histogram\n",
        "# TYPE ssl_sim_command_latency_seconds summary\n",
        "ssl_sim_command_latency_seconds{quantile=\"0.5\"} 0.04\n",
        "ssl_sim_command_latency_seconds{quantile=\"0.9\"} 0.0455\n",
        "ssl_sim_command_latency_seconds_sum 8\n",
        "ssl_sim_command_latency_seconds_count 200\n",
        "ssl_sim_command_latency_max_seconds 0.05\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_not_null (strstr (m, want[i]), "no '%s' in\n%s", want[i], m);
    free (m);

    /* a second without a command: no latency on the page, NaN quantiles */
    vision.latency_period_count = 0;
    vision.has_latency_p50_ms = vision.has_latency_p90_ms = vision.has_latency_max_ms = false;
    vw_status_from_stats (&st, &cfg, &physics, &vision, &gateway, NULL, alive, 5);
    j = s_parse (vw_json_status (&st));
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (j, "latency_ms"));
    cJSON_Delete (j);
    m = vw_metrics_text (&st);
    cr_assert_not_null (m);
    cr_expect_not_null (strstr (m, "ssl_sim_command_latency_seconds{quantile=\"0.5\"} NaN\n"), "%s", m);
    cr_expect_not_null (strstr (m, "ssl_sim_command_latency_seconds_count 200\n"));
    free (m);
}

Test (vw_json, status_carries_the_referee_only_when_heard)
{
    vw_status_t st;
    s_status_of_defaults (&st);
    cJSON *j = s_parse (vw_json_status (&st));
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (j, "referee"), "no game controller, no game state");
    cJSON_Delete (j);

    st.has_referee = true;
    sim_referee_t *r = &st.referee;
    memset (r, 0, sizeof *r);
    r->stage = 1;    /* NORMAL_FIRST_HALF */
    r->command = 17; /* BALL_PLACEMENT_BLUE */
    r->command_counter = 9;
    r->has_stage_time = true;
    r->stage_time_left_us = 61500000;
    snprintf (r->team[0].name, sizeof r->team[0].name, "a \"quoted\" team");
    r->team[0].score = 2;
    r->team[1].score = 1;
    r->team[1].n_yellow_running = 1;
    r->team[1].yellow_left_us[0] = 90000000;
    r->has_placement = true;
    r->placement_x = 1.5;
    r->placement_y = -1;
    st.referee_age_s = 0.25;
    j = s_parse (vw_json_status (&st));
    const cJSON *ref = s_get (j, "referee");
    cr_expect_str_eq (s_str (ref, "stage"), "NORMAL_FIRST_HALF");
    cr_expect_str_eq (s_str (ref, "command"), "BALL_PLACEMENT_BLUE");
    cr_expect_float_eq (s_num (ref, "stage_time_left"), 61.5, 1e-9);
    cr_expect_str_eq (s_str (s_get (ref, "blue"), "name"), "a \"quoted\" team");
    cr_expect_float_eq (s_num (s_get (ref, "blue"), "score"), 2, 1e-9);
    cr_expect_float_eq (
        cJSON_GetArrayItem (s_get (s_get (ref, "yellow"), "yellow_card_times"), 0)->valuedouble, 90, 1e-9);
    cr_expect_float_eq (s_num (s_get (ref, "placement"), "x"), 1.5, 1e-9);
    cr_expect_float_eq (s_num (s_get (ref, "placement"), "y"), -1, 1e-9);
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (ref, "next_command"),
                    "absent when the packet had none");
    cJSON_Delete (j);
}

Test (vw_json, status_lists_only_the_cameras_of_the_rig_in_force)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.vision.default_camera_count = 2;
    /* vision counted four cameras before the rig went from 4 to 2 */
    Simbus__CameraStats cam[4], *cams[4];
    for (int i = 0; i < 4; i++) {
        simbus__camera_stats__init (&cam[i]);
        cam[i].id = (uint32_t) i;
        cam[i].packets = 100;
        cams[i] = &cam[i];
    }
    Simbus__Stats vision = SIMBUS__STATS__INIT;
    vision.service = (char *) "vision";
    vision.n_cameras = 4;
    vision.cameras = cams;
    bool alive[VW_SERVICES] = { true, true, true, true, true };
    vw_status_t st;
    vw_status_from_stats (&st, &cfg, NULL, &vision, NULL, NULL, alive, 1);
    cr_expect_eq (st.n_cameras, 2);
    cr_expect_eq (st.cameras[1].id, 1);
}

Test (vw_json, world_carries_the_robot_commands_given)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    vw_command_t a = { .team = 0, .id = 4, .count = 7, .t = 1.25 };
    a.cmd = (phys_command_t) {
        .move = PHYS_MOVE_LOCAL, .v = { 0.2, 0, 1, 0 }, .kick_speed = 3, .dribbler_rpm = 150
    };
    a.has_kick_speed = a.has_dribbler = a.has_contact = true;
    vw_command_t b = { .team = 1, .id = 2, .count = 1 };
    b.cmd = (phys_command_t) { .move = PHYS_MOVE_WHEELS, .v = { 1, 2, 3, 4 } };
    const vw_command_t *cmds[] = { &a, &b };
    vw_world_t w = { .n_commands = 2, .commands = cmds, .truth = &snap };
    cJSON *j = s_parse (vw_json_world (&w));
    const cJSON *list = s_get (j, "commands");
    cr_assert_eq (cJSON_GetArraySize (list), 2);
    const cJSON *c = cJSON_GetArrayItem (list, 0);
    cr_expect_str_eq (s_str (c, "team"), "blue");
    cr_expect_str_eq (s_str (c, "move"), "local");
    cr_expect_eq (cJSON_GetArraySize (s_get (c, "v")), 3);
    cr_expect_float_eq (cJSON_GetArrayItem (s_get (c, "v"), 0)->valuedouble, 0.2, 1e-9);
    cr_expect_float_eq (s_num (c, "kick_speed"), 3, 1e-9);
    cr_expect_float_eq (s_num (c, "dribbler"), 150, 1e-9);
    cr_expect_null (cJSON_GetObjectItemCaseSensitive (c, "kick_angle"), "absent when the team sent none");
    cr_expect (cJSON_IsFalse (s_get (c, "contact")));
    c = cJSON_GetArrayItem (list, 1);
    cr_expect_str_eq (s_str (c, "move"), "wheels");
    cr_expect_eq (cJSON_GetArraySize (s_get (c, "v")), 4);
    cJSON_Delete (j);
}
