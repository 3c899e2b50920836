/*  test_legacy_service.c - the legacy-grsim actor alone, in-process,
    between a grSim client on 127.0.0.1 and a fake physics and vision:
    robot commands and replacements become requests, undecodable packets
    are dropped, and a Robots_Status follows the world. Both carriers
    (legacy-grsim itself always speaks ZeroMQ; physics and vision pick).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus_codec.h"
#include "tests/support/sim_service_test.h"
#include "tests/support/sim_test.h"
#include "services/legacy-grsim/grs_service.h"
#include "grSim_Packet.pb-c.h"
#include "grSim_Robotstatus.pb-c.h"
#include "ssl_gc_common.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

#define S_WAIT_MS 3000

typedef struct {
    sim_config_t cfg;
    sim_svc_peer_t *physics, *vision;
    zactor_t *legacy;
    int fd;
    uint8_t buf[65536];
} s_bench_t;

static void
s_start (s_bench_t *b, bool lanes)
{
    memset (b, 0, sizeof *b);
    cr_assert_eq (sim_svc_config (&b->cfg, "grs", SIM_MODE_SYNC, lanes), 0);
    b->physics = sim_svc_peer_new (&b->cfg, SIM_LINK_PHYSICS);
    b->vision = sim_svc_peer_new (&b->cfg, SIM_LINK_VISION);
    cr_assert (b->physics && b->vision);
    b->legacy = sim_svc_start (grs_service_actor, &b->cfg);
    cr_assert_not_null (b->legacy, "legacy-grsim did not start");
    b->fd = sim_test_udp (0);
    cr_assert_geq (b->fd, 0);
}

static void
s_stop (s_bench_t *b)
{
    zactor_destroy (&b->legacy);
    sim_svc_peer_destroy (&b->vision);
    sim_svc_peer_destroy (&b->physics);
    close (b->fd);
}

static void
s_send_commands (s_bench_t *b, bool yellow, uint32_t id)
{
    GrSimRobotCommand rc = GR_SIM__ROBOT__COMMAND__INIT;
    rc.id = id;
    rc.veltangent = 1.5f;
    rc.velnormal = -0.5f;
    rc.velangular = 2.0f;
    rc.kickspeedx = 3.0f;
    rc.spinner = true;
    GrSimRobotCommand *rcs[1] = { &rc };
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.timestamp = 1.0;
    cmds.isteamyellow = yellow;
    cmds.n_robot_commands = 1;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    cr_assert_eq (sim_test_send (b->fd, b->cfg.network.legacy_port, &packet.base), 0);
}

/* The next request at physics: a team control for robot `id` of the
   yellow team, as s_send_commands sent it. */
static void
s_expect_commands (s_bench_t *b, uint32_t id)
{
    Simbus__Envelope *env = sim_svc_peer_wait (b->physics, SIMBUS__ENVELOPE__BODY_REQUEST, S_WAIT_MS);
    cr_assert_not_null (env, "physics got no request");
    const Simbus__Request *req = env->request;
    cr_expect_null (req->simulator_command);
    cr_assert_not_null (req->team_control, "a grSim command did not become a team control");
    cr_expect_eq (req->team_control->team, 1);
    const RobotControl *rc = req->team_control->control;
    cr_assert_eq (rc->n_robot_commands, 1);
    const RobotCommand *c = rc->robot_commands[0];
    cr_expect_eq (c->id, id);
    cr_assert (c->move_command && c->move_command->local_velocity, "not a local velocity");
    cr_expect_float_eq (c->move_command->local_velocity->forward, 1.5f, 1e-6);
    cr_expect_float_eq (c->move_command->local_velocity->left, -0.5f, 1e-6);
    cr_expect_float_eq (c->move_command->local_velocity->angular, 2.0f, 1e-6);
    cr_expect (c->has_kick_speed);
    cr_expect_float_eq (c->kick_speed, 3.0f, 1e-6);
    cr_expect_float_eq (c->kick_angle, 0.0f, 1e-6);
    cr_expect (c->has_dribbler_speed && c->dribbler_speed > 0);
    simbus__envelope__free_unpacked (env, NULL);
}

static void
s_commands (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes);
    s_send_commands (&b, true, 3);
    s_expect_commands (&b, 3);

    /* a replacement becomes a teleport */
    GrSimRobotReplacement r = GR_SIM__ROBOT_REPLACEMENT__INIT;
    r.x = 1.0;
    r.y = 2.0;
    r.dir = 90.0;
    r.id = 4;
    r.yellowteam = false;
    GrSimRobotReplacement *rs[1] = { &r };
    GrSimReplacement rep = GR_SIM__REPLACEMENT__INIT;
    rep.n_robots = 1;
    rep.robots = rs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.replacement = &rep;
    cr_assert_eq (sim_test_send (b.fd, b.cfg.network.legacy_port, &packet.base), 0);
    Simbus__Envelope *env = sim_svc_peer_wait (b.physics, SIMBUS__ENVELOPE__BODY_REQUEST, S_WAIT_MS);
    cr_assert_not_null (env);
    const SimulatorCommand *cmd = env->request->simulator_command;
    cr_assert (cmd && cmd->control && cmd->control->n_teleport_robot == 1, "a replacement is no teleport");
    const TeleportRobot *t = cmd->control->teleport_robot[0];
    cr_expect (t->id->id == 4 && t->id->team == TEAM__BLUE);
    cr_expect_float_eq (t->x, 1.0f, 1e-6);
    cr_expect_float_eq (t->y, 2.0f, 1e-6);
    cr_expect_float_eq (t->orientation, (float) (M_PI / 2), 1e-6);
    simbus__envelope__free_unpacked (env, NULL);

    /* undecodable packets are dropped; the next good one goes through */
    const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01 };
    cr_assert_eq (sim_test_send_raw (b.fd, b.cfg.network.legacy_port, junk, sizeof junk), 0);
    s_send_commands (&b, true, 9);
    s_expect_commands (&b, 9);
    s_stop (&b);
}

Test (legacy_service, commands_lanes)
{
    s_commands (true);
}
Test (legacy_service, commands_zmq)
{
    s_commands (false);
}

/* ---- Robots_Status ---------------------------------------------------- */

static void
s_status (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes);
    int status = sim_test_udp (b.cfg.network.legacy_status_port_yellow);
    cr_assert_geq (status, 0);
    /* the first command makes legacy-grsim follow the world */
    s_send_commands (&b, true, 3);
    s_expect_commands (&b, 3);
    static const Simbus__Envelope__BodyCase kinds[] = { SIMBUS__ENVELOPE__BODY_SNAPSHOT };
    cr_assert (sim_svc_peer_wait_joined (b.physics, kinds, 1, S_WAIT_MS),
               "legacy-grsim follows no snapshots");

    /* yellow 3 holds the ball at 0.1 s, and vision released a frame then */
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = 100000000;
    snap.ball.z = b.cfg.ball.radius;
    snap.robot_count = 1;
    snap.robots[0] = (sim_robot_state_t) { .team = SIM_TEAM_YELLOW, .id = 3 };
    snap.robots[0].ball_contact = true;
    sim_bus_snapshot_msg_t msg;
    cr_assert_gt (
        sim_link_send (sim_svc_peer_link (b.physics), sim_bus_snapshot_encode (&msg, &snap, false, 0)), 0);
    ProtobufCBinaryData wrapper = { 3, (uint8_t *) "abc" };
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = snap.time_ns;
    frames.n_wrapper = 1;
    frames.wrapper = &wrapper;
    int64_t end = zclock_mono () + S_WAIT_MS;
    while (sim_svc_send (sim_svc_peer_link (b.vision), SIMBUS__ENVELOPE__BODY_FRAMES, &frames) <= 0) {
        cr_assert_lt (zclock_mono (), end, "legacy-grsim follows no frames");
        sim_svc_peer_pump (b.vision, 10);
    }
    ssize_t n = sim_test_recv (status, b.buf, sizeof b.buf, S_WAIT_MS);
    cr_assert_gt (n, 0, "no Robots_Status came");
    RobotsStatus *rs = robots__status__unpack (NULL, (size_t) n, b.buf);
    cr_assert_not_null (rs);
    bool found = false;
    for (size_t i = 0; i < rs->n_robots_status; i++)
        if (rs->robots_status[i]->robot_id == 3) {
            found = true;
            cr_expect (rs->robots_status[i]->infrared, "yellow 3 holds the ball but shows no infrared");
        }
    cr_expect (found, "yellow 3 is not in the status");
    robots__status__free_unpacked (rs, NULL);
    close (status);
    s_stop (&b);
}

Test (legacy_service, status_lanes)
{
    s_status (true);
}
Test (legacy_service, status_zmq)
{
    s_status (false);
}
