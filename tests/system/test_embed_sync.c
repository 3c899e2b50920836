/*  test_embed_sync.c - libsslsim gives the bytes of `ssl-sim run --mode
    sync` (embed/sslsim.h): a real simulator process is stepped over UDP
    with SimulationSyncRequests while a library world of the same
    configuration gets the same messages and steps; every detection frame
    of every step must be byte for byte the one the process answered.

    A realism preset switched to mid-run (capture jitter included) must
    keep them equal: the physics and vision services apply it where the
    library does.

    The process's vision may join a few steps late (it waits for the
    configuration on the bus), so both sides first run the same 1 s of 1 ms
    steps; from there on every frame must match, count and bytes. The one
    exception is the protocol's own: a vision held up past sync_timeout on
    a loaded machine has its step answered without frames, sync_timeout
    after the request (docs/protocol.md, "Vision down or stuck"); that
    step is counted and skipped, and the next ones must match again.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_msg.h"
#include "embed/sslsim.h"
#include "services/gateway/gw_wire.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define ES_MAX_FRAMES   64
#define ES_SYNC_TIMEOUT 500 /* ms, [bus] sync_timeout's default */

typedef struct {
    const uint8_t *data[ES_MAX_FRAMES];
    size_t len[ES_MAX_FRAMES];
    size_t count;
} es_frames_t;

static bool
s_varint (const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* The detection fields (1, length-delimited) of a packed
   SimulationSyncResponse, as they came. */
static void
s_response_frames (const uint8_t *raw, size_t len, es_frames_t *out)
{
    out->count = 0;
    const uint8_t *p = raw, *end = raw + len;
    while (p < end) {
        uint64_t key, n;
        cr_assert (s_varint (&p, end, &key), "bad key in the answer");
        cr_assert_eq (key & 7, 2, "field %llu is not length-delimited", (unsigned long long) (key >> 3));
        cr_assert (s_varint (&p, end, &n) && n <= (uint64_t) (end - p), "bad length in the answer");
        if (key >> 3 == 1 && out->count < ES_MAX_FRAMES) {
            out->data[out->count] = p;
            out->len[out->count++] = (size_t) n;
        }
        p += n;
    }
}

/* The detection field of each wrapper the library released in its step. */
static void
s_library_frames (const sslsim_world_t *w, es_frames_t *out)
{
    out->count = 0;
    for (int i = 0; i < sslsim_world_vision_count (w) && out->count < ES_MAX_FRAMES; i++) {
        const uint8_t *bytes;
        size_t len;
        cr_assert_eq (sslsim_world_vision (w, i, &bytes, &len), SSLSIM_OK);
        cr_assert (gw_wire_bytes_field (bytes, len, 1, &out->data[out->count], &out->len[out->count]),
                   "library packet %d has no detection", i);
        out->count++;
    }
}

/* One team's 11 robots, driven differently every step. */
typedef struct {
    RobotControl rc;
    RobotCommand cmds[11];
    RobotCommand *ptrs[11];
    RobotMoveCommand moves[11];
    MoveLocalVelocity locals[11];
} es_team_t;

static void
s_team_control (es_team_t *t, int step)
{
    robot_control__init (&t->rc);
    for (int i = 0; i < 11; i++) {
        robot_command__init (&t->cmds[i]);
        t->cmds[i].id = (uint32_t) i;
        move_local_velocity__init (&t->locals[i]);
        t->locals[i].forward = (float) (1.2 * sin (step * 0.05 + i));
        t->locals[i].left = (float) (0.4 * cos (step * 0.03 + i));
        t->locals[i].angular = (float) (2.0 * cos (step * 0.07 + i));
        robot_move_command__init (&t->moves[i]);
        t->moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
        t->moves[i].local_velocity = &t->locals[i];
        t->cmds[i].move_command = &t->moves[i];
        if (step % 20 == i) {
            t->cmds[i].has_kick_speed = true;
            t->cmds[i].kick_speed = 4.0f;
        }
        t->ptrs[i] = &t->cmds[i];
    }
    t->rc.n_robot_commands = 11;
    t->rc.robot_commands = t->ptrs;
}

static void
s_pack_apply (sslsim_world_t *w, sslsim_msg_t kind, const ProtobufCMessage *msg)
{
    uint8_t buf[8192];
    size_t len = protobuf_c_message_get_packed_size (msg);
    cr_assert (len <= sizeof buf);
    protobuf_c_message_pack (msg, buf);
    cr_assert_geq (sslsim_world_command (w, kind, buf, len), 0, "%s", sslsim_world_last_error (w));
}

/* One sync step on the process and the same on the library; returns the
   frames compared. A step the process answered without frames after
   sync_timeout, where the library released some, is counted in *late
   and not compared. */
static size_t
s_step_both (sim_fixture_t *f, sslsim_world_t *w, int port, float dt, SimulatorCommand *cmd, RobotControl *rc,
             int step, bool compare, int *late)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = dt;
    req.simulator_command = cmd;
    req.robot_control = rc;
    static _Thread_local uint8_t raw[65536];
    size_t raw_len = 0;
    int64_t sent = sim_test_now_ms ();
    SimulationSyncResponse *resp = sim_test_sync (f->fd, port, &req, raw, &raw_len, 10000);
    int64_t waited = sim_test_now_ms () - sent;
    cr_assert_not_null (resp, "step %d: no answer", step);
    simulation_sync_response__free_unpacked (resp, NULL);

    if (cmd)
        s_pack_apply (w, SSLSIM_MSG_SIMULATOR_COMMAND, &cmd->base);
    if (rc)
        s_pack_apply (
            w, port == f->proc.yellow_port ? SSLSIM_MSG_ROBOT_CONTROL_YELLOW : SSLSIM_MSG_ROBOT_CONTROL_BLUE,
            &rc->base);
    cr_assert_eq (sslsim_world_step (w, (double) dt), SSLSIM_OK, "%s", sslsim_world_last_error (w));
    if (!compare)
        return 0;
    es_frames_t a, b;
    s_response_frames (raw, raw_len, &a);
    s_library_frames (w, &b);
    if (a.count == 0 && b.count > 0 && waited >= ES_SYNC_TIMEOUT) {
        cr_log_warn ("step %d: answered without frames after %lld ms (vision held up past sync_timeout)",
                     step, (long long) waited);
        (*late)++;
        return 0;
    }
    cr_assert_eq (a.count, b.count, "step %d: the process answered %zu frames, the library released %zu",
                  step, a.count, b.count);
    for (size_t i = 0; i < a.count; i++) {
        cr_assert_eq (a.len[i], b.len[i], "step %d frame %zu: %zu bytes against %zu", step, i, a.len[i],
                      b.len[i]);
        cr_assert (memcmp (a.data[i], b.data[i], a.len[i]) == 0, "step %d frame %zu: the bytes differ", step,
                   i);
    }
    return a.count;
}

/* `ssl-sim run --mode sync` in *f and a library world of the very
   configuration the process was started with (the fixture's file: ports,
   loopback). */
static sslsim_world_t *
s_start_both (sim_fixture_t *f)
{
    static const char *const args[] = { "--mode", "sync", NULL };
    cr_assert_eq (sim_fixture_start (f, args, NULL, SIM_FIXTURE_GATEWAY), 0, "ssl-sim did not come up");
    char path[320];
    snprintf (path, sizeof path, "%s/test.ini", f->proc.dir);
    const char *lib_args[] = { "--mode", "sync", "--config", path, NULL };
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.args = lib_args;
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    return w;
}

Test (embed_sync, library_frames_are_the_sync_mode_bytes, .timeout = 180)
{
    sim_fixture_t f;
    sslsim_world_t *w = s_start_both (&f);

    bool seen = false;
    for (int i = 0; i < 1000; i++) {
        s_step_both (&f, w, f.proc.control_port, 0.001f, NULL, NULL, i, false, NULL);
        seen |= sslsim_world_vision_count (w) > 0;
    }
    cr_assert (seen, "the library released no frame in 1 s");

    es_team_t blue, yellow;
    TeleportBall tb = TELEPORT_BALL__INIT;
    SimulatorControl ctl = SIMULATOR_CONTROL__INIT;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    ctl.teleport_ball = &tb;
    cmd.control = &ctl;
    size_t compared = 0;
    int late = 0;
    for (int step = 0; step < 300; step++) {
        int kind = step % 3;
        if (kind == 0) {
            tb.has_x = tb.has_y = tb.has_vx = tb.has_vy = true;
            tb.x = (float) (-2.0 + 0.01 * step);
            tb.y = (float) (0.5 * sin (step * 0.1));
            tb.vx = 2.0f;
            tb.vy = (float) (0.5 * cos (step * 0.2));
            compared += s_step_both (&f, w, f.proc.control_port, 0.016f, step % 30 == 0 ? &cmd : NULL, NULL,
                                     step, true, &late);
        } else if (kind == 1) {
            s_team_control (&blue, step);
            compared += s_step_both (&f, w, f.proc.blue_port, 0.016f, NULL, &blue.rc, step, true, &late);
        } else {
            s_team_control (&yellow, step);
            compared += s_step_both (&f, w, f.proc.yellow_port, 0.016f, NULL, &yellow.rc, step, true, &late);
        }
    }
    /* two cameras at the default rate release about 2.4 frames per 16 ms */
    cr_expect_gt (compared, 300 * 2, "only %zu frames compared in 300 steps (%d held up)", compared, late);
    sslsim_world_free (w);
    cr_expect_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
}

/* A realism preset switched to in the middle of a run (the page's op, here
   in a sync request): the services apply it where the library does, so
   the frames stay the library's, byte for byte, across a change of the
   capture jitter (rc26) and back to none. */
Test (embed_sync, a_realism_switched_mid_run_keeps_the_library_bytes, .timeout = 180)
{
    sim_fixture_t f;
    sslsim_world_t *w = s_start_both (&f);
    for (int i = 0; i < 1000; i++)
        s_step_both (&f, w, f.proc.control_port, 0.001f, NULL, NULL, i, false, NULL);

    static const char *const presets[] = { "rc26", "none", "realistic" };
    es_team_t blue;
    size_t compared = 0;
    int late = 0;
    for (int step = 0; step < 240; step++) {
        sim_msg_preset_t m;
        bool switch_now = step % 80 == 0;
        SimulatorCommand *cmd = switch_now ? sim_msg_realism_preset (&m, presets[step / 80]) : NULL;
        s_team_control (&blue, step);
        compared += s_step_both (&f, w, f.proc.blue_port, 0.016f, cmd, &blue.rc, step, true, &late);
    }
    cr_expect_gt (compared, 240 * 2, "only %zu frames compared in 240 steps (%d held up)", compared, late);
    sslsim_world_free (w);
    cr_expect_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly");
}
