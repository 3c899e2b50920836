/*  test_viewer.c - the browser viewer from outside, as a page sees it: a
    real ssl-sim, a real WebSocket client and real HTTP. The page's
    teleport must show in the UDP vision packets, a request the simulator
    refuses must come back with the protocol's error code, /metrics must be
    Prometheus text with the named metrics, /healthz must say 503 while
    vision is stopped (SIGSTOP) and 200 again when it goes on, and team
    commands sent over UDP must show as a command->vision latency that the
    configured vision delay explains (none without commands).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_ws.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define WAIT_MS 15000

static const char *const s_args[] = { NULL };

static void
s_start (sim_fixture_t *f, sim_ws_t **ws)
{
    cr_assert_eq (sim_fixture_start (f, s_args, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION), 0,
                  "ssl-sim did not come up");
    /* the pid file is written once the viewer's server listens */
    cr_assert (sim_fixture_wait_service (f, "viewer", 0, WAIT_MS), "the viewer did not start");
    *ws = sim_ws_connect (f->proc.viewer_port, "/ws");
    cr_assert_not_null (*ws, "no WebSocket on the viewer's port %d", f->proc.viewer_port);
}

static double
s_num (const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive (obj, key);
    cr_assert (cJSON_IsNumber (item), "\"%s\" is not a number", key);
    return item->valuedouble;
}

/* Read vision until a ball detection lies within tol of (x, y); true when
   one did within ms. */
static bool
s_vision_ball_at (int fd, double x, double y, double tol, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    uint8_t buf[65536];
    while (sim_test_now_ms () < end) {
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, 500);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        bool hit = false;
        for (size_t i = 0; w && w->detection && i < w->detection->n_balls; i++) {
            const SSLDetectionBall *b = w->detection->balls[i];
            hit |= hypot (b->x / 1000.0 - x, b->y / 1000.0 - y) <= tol;
        }
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        if (hit)
            return true;
    }
    return false;
}

Test (viewer, page_sees_the_world_and_teleports_the_ball, .timeout = 90)
{
    sim_fixture_t f;
    sim_ws_t *ws;
    s_start (&f, &ws);

    cJSON *hello = sim_ws_wait (ws, "hello", WAIT_MS);
    cr_assert_not_null (hello, "no hello");
    cr_expect_eq (s_num (hello, "version"), 1);
    cJSON_Delete (hello);
    cJSON *geometry = sim_ws_wait (ws, "geometry", WAIT_MS);
    cr_assert_not_null (geometry, "no geometry after hello");
    const cJSON *field = cJSON_GetObjectItemCaseSensitive (geometry, "field");
    cr_expect_float_eq (s_num (field, "length"), 12.0, 1e-9, "division A field length");
    cr_expect_float_eq (s_num (field, "width"), 9.0, 1e-9);
    cr_expect_eq (cJSON_GetArraySize (cJSON_GetObjectItemCaseSensitive (geometry, "cameras")), 2);
    cJSON_Delete (geometry);

    /* no "world" before the page asks for one */
    cr_expect_eq (sim_ws_count (ws, "world"), 0);
    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"next\"}"), 0);
    cJSON *world = sim_ws_wait (ws, "world", WAIT_MS);
    cr_assert_not_null (world, "no world after next");
    cr_expect_eq (cJSON_GetArraySize (cJSON_GetObjectItemCaseSensitive (world, "robots")), 22,
                  "11 robots per team");
    cJSON_Delete (world);

    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"teleport_ball\",\"id\":1,\"x\":1.0,\"y\":1.0}"), 0);
    cJSON *result = sim_ws_result (ws, 1, WAIT_MS);
    cr_assert_not_null (result, "no result for the teleport");
    cr_expect (cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (result, "ok")), "teleport refused");
    cJSON_Delete (result);
    double tol = sim_test_vision_tolerance (); /* the realistic calibration error */
    cr_expect (s_vision_ball_at (f.vision, 1.0, 1.0, tol, WAIT_MS),
               "vision never showed the ball within %.3f m of (1, 1)", tol);

    /* the gateway's own refusal: a robot that is not on the field,
       created without a position */
    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"teleport_robot\",\"id\":2,\"team\":\"blue\",\"robot\":15}"), 0);
    result = sim_ws_result (ws, 2, WAIT_MS);
    cr_assert_not_null (result, "no result for the refused request");
    cr_expect (cJSON_IsFalse (cJSON_GetObjectItemCaseSensitive (result, "ok")));
    const cJSON *code = cJSON_GetObjectItemCaseSensitive (result, "code");
    cr_expect (cJSON_IsString (code) && strcmp (code->valuestring, "CREATE_NOPOS_ROBOT") == 0,
               "the protocol's error code, not %s", cJSON_IsString (code) ? code->valuestring : "none");
    cJSON_Delete (result);

    /* the viewer's own refusal of what is not an op */
    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"fly\",\"id\":3}"), 0);
    result = sim_ws_result (ws, 3, WAIT_MS);
    cr_assert_not_null (result);
    code = cJSON_GetObjectItemCaseSensitive (result, "code");
    cr_expect (cJSON_IsString (code) && strcmp (code->valuestring, "BAD_REQUEST") == 0);
    cJSON_Delete (result);

    /* the status lists the control port's source: the viewer itself */
    bool source = false;
    for (int i = 0; i < 20 && !source; i++) {
        cJSON *status = sim_ws_wait (ws, "status", WAIT_MS);
        cr_assert_not_null (status, "no status");
        const cJSON *port;
        cJSON_ArrayForEach (port, cJSON_GetObjectItemCaseSensitive (status, "ports"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive (port, "name");
            if (cJSON_IsString (name) && strcmp (name->valuestring, "control") == 0)
                source |= cJSON_GetArraySize (cJSON_GetObjectItemCaseSensitive (port, "sources")) > 0;
        }
        cJSON_Delete (status);
    }
    cr_expect (source, "the status never showed a source on the control port");

    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* Ask for the next world and return its "t" (and whether it says paused). */
static double
s_world_t_paused (sim_ws_t *ws, bool *paused)
{
    sim_ws_clear (ws);
    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"next\"}"), 0);
    cJSON *world = sim_ws_wait (ws, "world", WAIT_MS);
    cr_assert_not_null (world, "no world after next");
    double t = s_num (world, "t");
    if (paused)
        *paused = cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (world, "paused"));
    cJSON_Delete (world);
    return t;
}

static double
s_world_t (sim_ws_t *ws)
{
    return s_world_t_paused (ws, NULL);
}

static void
s_expect_ok (sim_ws_t *ws, int id, const char *op)
{
    char fields[64];
    snprintf (fields, sizeof fields, "\"op\":\"%s\"", op);
    cJSON *result = sim_ws_op (ws, id, fields, WAIT_MS);
    cr_assert_not_null (result, "no result for %s", op);
    cr_expect (sim_ws_ok (result), "%s refused", op);
    cJSON_Delete (result);
}

Test (viewer, pause_step_resume, .timeout = 90)
{
    sim_fixture_t f;
    sim_ws_t *ws;
    s_start (&f, &ws);
    cJSON_Delete (sim_ws_wait (ws, "status", WAIT_MS));
    double t0 = s_world_t (ws);
    s_expect_ok (ws, 1, "pause");
    /* The answer comes through the gateway; what physics published before
       it (snapshots, vision's frames of them) comes straight and may still
       be on its way on a busy machine. A world says paused once physics'
       Stats say its clock stopped, and physics publishes the world where it
       stopped before those: from that world on, t must not move. */
    bool paused = false;
    double t1 = 0;
    int64_t until = sim_test_now_ms () + WAIT_MS;
    while (!paused && sim_test_now_ms () < until)
        t1 = s_world_t_paused (ws, &paused);
    cr_assert (paused, "no world said paused after the pause was answered");
    double t2 = s_world_t (ws);
    cr_expect_float_eq (t2, t1, 1e-9, "sim time went on while paused (%.6f -> %.6f)", t1, t2);
    t2 = s_world_t (ws);
    cr_expect_float_eq (t2, t1, 1e-9, "sim time went on while paused (%.6f -> %.6f)", t1, t2);
    cr_expect_geq (t1, t0);
    s_expect_ok (ws, 2, "step");
    double t3 = s_world_t (ws);
    /* one frame period of whole substeps (1 ms each by default) */
    cr_expect_float_eq (t3 - t2, 0.014, 0.0015, "a step advanced %.6f s", t3 - t2);
    s_expect_ok (ws, 3, "resume");
    double t4 = s_world_t (ws);
    int64_t end = sim_test_now_ms () + WAIT_MS;
    while (t4 <= t3 + 0.05 && sim_test_now_ms () < end)
        t4 = s_world_t (ws);
    cr_expect_gt (t4, t3 + 0.05, "sim time did not go on after resume");
    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* Every line of a Prometheus text exposition: a comment, blank, or
   `name{labels} value`. */
static void
s_check_prometheus (const char *text)
{
    regex_t sample, comment;
    cr_assert_eq (regcomp (&sample,
                           "^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\",?)*\\})? "
                           "(-?[0-9.eE+-]+|[+-]Inf|NaN)$",
                           REG_EXTENDED | REG_NOSUB),
                  0);
    cr_assert_eq (regcomp (&comment, "^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$", REG_EXTENDED | REG_NOSUB),
                  0);
    char *copy = strdup (text);
    int lines = 0;
    for (char *save = NULL, *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
        bool ok = regexec (&sample, line, 0, NULL, 0) == 0 || regexec (&comment, line, 0, NULL, 0) == 0;
        cr_expect (ok, "not Prometheus text: '%s'", line);
        lines++;
    }
    cr_expect_gt (lines, 20);
    free (copy);
    regfree (&sample);
    regfree (&comment);
}

static int
s_healthz (int port)
{
    char *body = NULL;
    int status = sim_http_get (port, "/healthz", &body);
    free (body);
    return status;
}

/* Poll /healthz, paced by the page's status messages (twice a second),
   until it answers `want`; true when it did within ms. */
static bool
s_healthz_becomes (sim_ws_t *ws, int port, int want, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        if (s_healthz (port) == want)
            return true;
        cJSON_Delete (sim_ws_wait (ws, "status", 2000));
    }
    return false;
}

Test (viewer, metrics_and_healthz, .timeout = 90)
{
    sim_fixture_t f;
    sim_ws_t *ws;
    s_start (&f, &ws);
    int port = f.proc.viewer_port;

    cr_assert (s_healthz_becomes (ws, port, 200, WAIT_MS), "/healthz never said 200");
    char *body = NULL;
    cr_assert_eq (sim_http_get (port, "/metrics", &body), 200);
    cr_assert_not_null (body);
    s_check_prometheus (body);
    static const char *const names[] = {
        "ssl_sim_real_time_factor ",         "ssl_sim_substep_seconds_bucket{le=\"+Inf\"} ",
        "ssl_sim_substep_seconds_count ",    "ssl_sim_vision_packets_sent_total{camera=\"0\"} ",
        "ssl_sim_datagrams_received_total{", "ssl_sim_datagrams_refused_total{",
        "ssl_sim_datagrams_lost_total{",     "ssl_sim_sync_round_trips_total ",
        "ssl_sim_service_restarts_total{",   "ssl_sim_uptime_seconds{service=\"physics\"} ",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect_not_null (strstr (body, names[i]), "/metrics has no %s", names[i]);
    free (body);
    cr_expect_eq (sim_http_get (port, "/", &body), 200, "the page is served");
    cr_expect (body && strstr (body, "<canvas"), "the page has a canvas");
    free (body);
    /* one caching rule an answer, never two that disagree: the page's
       files, the server's own answers and its error pages alike */
    static const char *const paths[] = { "/", "/index.html", "/metrics", "/healthz", "/no-such-page" };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char value[160] = "";
        cr_expect_eq (sim_http_header (port, paths[i], "Cache-Control", value, sizeof value), 1,
                      "%s: one Cache-Control header", paths[i]);
        cr_expect (strstr (value, "no-cache"), "%s: Cache-Control: %s", paths[i], value);
    }

    cr_assert_gt (sim_fixture_signal (&f, "vision", SIGSTOP), 0);
    bool down = s_healthz_becomes (ws, port, 503, WAIT_MS);
    cr_assert_gt (sim_fixture_signal (&f, "vision", SIGCONT), 0);
    cr_expect (down, "/healthz did not say 503 with vision stopped");
    cr_expect (s_healthz_becomes (ws, port, 200, WAIT_MS), "/healthz did not come back to 200");

    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* The value of the first /metrics sample line that starts with `prefix`
   (name and labels, then a space); NAN when there is none. */
static double
s_metric (int port, const char *prefix)
{
    char *body = NULL;
    double v = NAN;
    if (sim_http_get (port, "/metrics", &body) == 200 && body) {
        for (const char *line = body; line && *line;
             line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
            if (strncmp (line, prefix, strlen (prefix)) == 0) {
                v = strtod (line + strlen (prefix), NULL);
                break;
            }
    }
    free (body);
    return v;
}

/* One RobotControl for blue robot 0 (turning on the spot) to the blue port. */
static void
s_send_command (sim_fixture_t *f)
{
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.angular = 1.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand cmd = ROBOT_COMMAND__INIT;
    cmd.id = 0;
    cmd.move_command = &move;
    RobotCommand *ptr = &cmd;
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = &ptr;
    cr_assert_eq (sim_test_send (f->fd, f->proc.blue_port, &rc.base), 0);
}

/* The vision delay the latency must at least contain, and the frame period
   (73.3 Hz) plus the slack a loaded 2-core machine needs on top of it. */
#define LAT_VISION_DELAY_S 0.15
#define LAT_FRAME_S        (1.0 / 73.3)
#define LAT_SLACK_S        0.5
#define LAT_COMMAND_MS     20 /* a team's command every 20 ms (50 Hz) */

Test (viewer, command_to_vision_latency, .timeout = 120)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, s_args, "[realism]\nvision_delay = 0.15\n",
                                     SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION),
                  0, "ssl-sim did not come up");
    cr_assert (sim_fixture_wait_service (&f, "viewer", 0, WAIT_MS), "the viewer did not start");
    int port = f.proc.viewer_port;
    sim_ws_t *ws = sim_ws_connect (port, "/ws");
    cr_assert_not_null (ws);

    /* no team command yet: statuses with vision's cameras but no latency */
    int seen = 0;
    for (int i = 0; i < 40 && seen < 3; i++) {
        sim_ws_send (ws, "{\"op\":\"next\"}");
        cJSON *status = sim_ws_wait (ws, "status", WAIT_MS);
        cr_assert_not_null (status, "no status");
        if (cJSON_GetArraySize (cJSON_GetObjectItemCaseSensitive (status, "cameras")) > 0) {
            seen++;
            cr_expect_null (cJSON_GetObjectItemCaseSensitive (status, "latency_ms"),
                            "a latency with no team command sent");
        }
        cJSON_Delete (status);
    }
    cr_assert_eq (seen, 3, "vision's Stats never reached the page");
    cr_expect_eq (s_metric (port, "ssl_sim_command_latency_seconds_count "), 0.0);
    cr_expect (isnan (s_metric (port, "ssl_sim_command_latency_seconds{quantile=\"0.5\"} ")),
               "a median latency with no command");

    /* commands at 50 Hz over real UDP until the page is told a latency */
    double p50 = NAN, p90 = NAN, max = NAN;
    int64_t end = sim_test_now_ms () + 30000, next = sim_test_now_ms ();
    uint8_t buf[4096];
    while (isnan (p50) && sim_test_now_ms () < end) {
        s_send_command (&f);
        sim_ws_send (ws, "{\"op\":\"next\"}");
        next += LAT_COMMAND_MS;
        /* the gateway's answers pace the sends: drain them until the next one is due */
        for (int64_t now = sim_test_now_ms (); now < next; now = sim_test_now_ms ())
            if (sim_test_recv (f.fd, buf, sizeof buf, (int) (next - now)) < 0)
                break;
        cJSON *status = sim_ws_wait (ws, "status", 0);
        if (status && cJSON_IsNumber (cJSON_GetObjectItemCaseSensitive (status, "latency_ms"))) {
            p50 = s_num (status, "latency_ms");
            p90 = s_num (status, "latency_p90_ms");
            max = s_num (status, "latency_max_ms");
            cr_expect_gt (s_num (status, "latency_count"), 0);
        }
        cJSON_Delete (status);
    }
    cr_log_info ("latency p50 %.2f p90 %.2f max %.2f ms", p50, p90, max);
    cr_assert (!isnan (p50), "no latency in the page's status within 30 s of commands");
    /* every command waits at least the vision delay (less the realtime
       pacing's catch-up, far below half of it) and at most a frame period
       more, plus the bus hops and scheduling of a loaded machine */
    double bound_ms = (LAT_VISION_DELAY_S + LAT_FRAME_S + LAT_SLACK_S) * 1e3;
    cr_expect (p50 >= LAT_VISION_DELAY_S * 1e3 / 2 && p50 <= bound_ms, "median latency %.1f ms", p50);
    cr_expect (p90 >= p50 && max >= p90, "p50 %.1f <= p90 %.1f <= max %.1f ms", p50, p90, max);
    double count = s_metric (port, "ssl_sim_command_latency_seconds_count ");
    cr_expect_gt (count, 0, "/metrics counted no latency");
    double sum = s_metric (port, "ssl_sim_command_latency_seconds_sum ");
    cr_expect (sum / count >= LAT_VISION_DELAY_S / 2 && sum / count <= bound_ms / 1e3,
               "/metrics mean latency %.4f s", sum / count);
    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
