/*  test_physics_service.c - the physics actor alone, in-process, over
    inproc endpoints: requests and their replies, sync steps with and
    without a vision to hand the reply on, the configuration for a
    joiner, a restart, and bad bus input. Every case runs over both
    carriers (lanes on and off).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_lane.h"
#include "tests/support/sim_service_test.h"
#include "services/physics/physics.h"
#include "ssl_gc_common.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_error.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

#define S_WAIT_MS 3000 /* longest wait for anything on the bus */

typedef struct {
    sim_config_t cfg;
    zactor_t *physics;
    sim_svc_peer_t *client;
} s_bench_t;

static void
s_start (s_bench_t *b, bool lanes, sim_link_role_t client_role)
{
    memset (b, 0, sizeof *b);
    cr_assert_eq (sim_svc_config (&b->cfg, "phys", SIM_MODE_SYNC, lanes), 0);
    b->cfg.sim.seed = 4242;
    b->physics = sim_svc_start (phys_service_actor, &b->cfg);
    cr_assert_not_null (b->physics, "physics did not start");
    b->client = sim_svc_peer_new (&b->cfg, client_role);
    cr_assert_not_null (b->client);
}

static void
s_stop (s_bench_t *b)
{
    sim_svc_peer_destroy (&b->client);
    zactor_destroy (&b->physics);
}

static void
s_send (sim_svc_peer_t *peer, Simbus__Request *req)
{
    cr_assert_gt (sim_svc_send (sim_svc_peer_link (peer), SIMBUS__ENVELOPE__BODY_REQUEST, req), 0,
                  "request %llu not sent", (unsigned long long) req->id);
}

/* The next Reply `peer` gets; it must answer request `id`. Caller frees. */
static Simbus__Envelope *
s_reply (sim_svc_peer_t *peer, uint64_t id)
{
    Simbus__Envelope *env = sim_svc_peer_wait (peer, SIMBUS__ENVELOPE__BODY_REPLY, S_WAIT_MS);
    cr_assert_not_null (env, "no reply to request %llu", (unsigned long long) id);
    cr_assert_eq (env->reply->id, id, "the next reply answers %llu, not %llu",
                  (unsigned long long) env->reply->id, (unsigned long long) id);
    return env;
}

/* Send an empty request and return the sim time its reply reports. */
static uint64_t
s_time_ns (sim_svc_peer_t *peer, uint64_t id)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = id;
    s_send (peer, &req);
    Simbus__Envelope *env = s_reply (peer, id);
    uint64_t t = env->reply->time_ns;
    simbus__envelope__free_unpacked (env, NULL);
    return t;
}

/* A SimulatorCommand teleporting robot (team, id) to (x, y) at rest. */
typedef struct {
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportRobot robot;
    TeleportRobot *robots[1];
    RobotId rid;
} s_teleport_t;

static SimulatorCommand *
s_teleport (s_teleport_t *t, Team team, uint32_t id, float x, float y)
{
    simulator_command__init (&t->cmd);
    simulator_control__init (&t->control);
    teleport_robot__init (&t->robot);
    robot_id__init (&t->rid);
    t->rid.has_id = t->rid.has_team = true;
    t->rid.id = id;
    t->rid.team = team;
    t->robot.id = &t->rid;
    t->robot.has_x = t->robot.has_y = t->robot.has_orientation = true;
    t->robot.x = x;
    t->robot.y = y;
    t->robot.orientation = 0;
    t->robot.has_present = t->robot.present = true;
    t->robots[0] = &t->robot;
    t->control.n_teleport_robot = 1;
    t->control.teleport_robot = t->robots;
    t->cmd.control = &t->control;
    return &t->cmd;
}

/* ---- requests and replies --------------------------------------------- */

static void
s_teleport_answered (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    s_teleport_t t;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 17;
    req.simulator_command = s_teleport (&t, TEAM__BLUE, 0, 1.0f, -0.5f);
    s_send (b.client, &req);
    Simbus__Envelope *env = s_reply (b.client, 17);
    cr_expect_eq (env->reply->n_errors, 0, "a valid teleport got %zu errors", env->reply->n_errors);
    cr_expect_eq (env->reply->n_robot_errors, 0);
    simbus__envelope__free_unpacked (env, NULL);
    /* exactly one reply: the next one answers the next request */
    s_time_ns (b.client, 18);
    cr_expect_eq (sim_svc_peer_count (b.client, SIMBUS__ENVELOPE__BODY_REPLY), 0);
    s_stop (&b);
}

Test (physics_service, teleport_answered_lanes)
{
    s_teleport_answered (true);
}
Test (physics_service, teleport_answered_zmq)
{
    s_teleport_answered (false);
}

static void
s_bad_robot (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_TOOL);
    s_teleport_t t;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 3;
    req.simulator_command = s_teleport (&t, TEAM__BLUE, 300, 0.0f, 0.0f);
    s_send (b.client, &req);
    Simbus__Envelope *env = s_reply (b.client, 3);
    cr_expect (sim_svc_has_error (env->reply->errors, env->reply->n_errors, "UNSUPPORTED"),
               "a teleport of robot 300 was not refused");
    simbus__envelope__free_unpacked (env, NULL);

    /* the same robot in a team's control: a robot error, not a command one */
    RobotCommand rcmd = ROBOT_COMMAND__INIT;
    rcmd.id = 300;
    RobotCommand *rcmds[1] = { &rcmd };
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = rcmds;
    Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
    team.team = 1;
    team.control = &rc;
    Simbus__Request req2 = SIMBUS__REQUEST__INIT;
    req2.id = 4;
    req2.team_control = &team;
    s_send (b.client, &req2);
    env = s_reply (b.client, 4);
    cr_expect_eq (env->reply->n_errors, 0);
    cr_expect (sim_svc_has_error (env->reply->robot_errors, env->reply->n_robot_errors, "UNKNOWN_ROBOT"),
               "a command for robot 300 was not refused");
    simbus__envelope__free_unpacked (env, NULL);
    s_stop (&b);
}

Test (physics_service, bad_robot_lanes)
{
    s_bad_robot (true);
}
Test (physics_service, bad_robot_zmq)
{
    s_bad_robot (false);
}

/* ---- sync steps ------------------------------------------------------- */

static void
s_step_without_vision (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    uint64_t t0 = s_time_ns (b.client, 1);
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 2;
    req.has_step_id = true;
    req.step_id = 2;
    req.has_substeps = true;
    req.substeps = 25;
    req.has_sync = req.sync = true;
    s_send (b.client, &req);
    /* nobody took the step's end: physics answers itself */
    Simbus__Envelope *env = s_reply (b.client, 2);
    uint64_t substep_ns = (uint64_t) llround (b.cfg.sim.substep * 1e9);
    cr_expect_eq (env->reply->time_ns, t0 + 25 * substep_ns, "after 25 substeps: %llu ns, from %llu",
                  (unsigned long long) env->reply->time_ns, (unsigned long long) t0);
    simbus__envelope__free_unpacked (env, NULL);
    /* sync mode: nothing else moves the clock */
    cr_expect_eq (s_time_ns (b.client, 3), t0 + 25 * substep_ns);
    s_stop (&b);
}

Test (physics_service, step_without_vision_lanes)
{
    s_step_without_vision (true);
}
Test (physics_service, step_without_vision_zmq)
{
    s_step_without_vision (false);
}

/* A request whose id asks to be applied once (SIM_BUS_ID_ONCE: the
   gateway hands what a killed physics left unanswered to the next one)
   is answered again but applied once: its 25 substeps run one time. An
   id without the bit is applied as often as it comes. */
static uint64_t
s_step_ns (sim_svc_peer_t *peer, uint64_t id)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = id;
    req.has_substeps = true;
    req.substeps = 25;
    s_send (peer, &req);
    Simbus__Envelope *env = s_reply (peer, id);
    uint64_t t = env->reply->time_ns;
    simbus__envelope__free_unpacked (env, NULL);
    return t;
}

static void
s_once (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    uint64_t t0 = s_time_ns (b.client, 1);
    uint64_t step = 25 * (uint64_t) llround (b.cfg.sim.substep * 1e9);
    cr_expect_eq (s_step_ns (b.client, SIM_BUS_ID_ONCE | 7), t0 + step);
    cr_expect_eq (s_step_ns (b.client, SIM_BUS_ID_ONCE | 7), t0 + step, "a repeat ran its substeps again");
    cr_expect_eq (s_step_ns (b.client, SIM_BUS_ID_ONCE | 8), t0 + 2 * step);
    cr_expect_eq (s_step_ns (b.client, 9), t0 + 3 * step);
    cr_expect_eq (s_step_ns (b.client, 9), t0 + 4 * step, "an id without the bit is applied each time");
    s_stop (&b);
}

Test (physics_service, a_request_asking_once_is_applied_once_lanes)
{
    s_once (true);
}
Test (physics_service, a_request_asking_once_is_applied_once_zmq)
{
    s_once (false);
}

static void
s_step_with_vision (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    sim_svc_peer_t *vision = sim_svc_peer_new (&b.cfg, SIM_LINK_VISION);
    cr_assert_not_null (vision);
    cr_assert_eq (sim_svc_peer_subscribe (vision, SIMBUS__ENVELOPE__BODY_STEP_DONE), 0);
    cr_assert_eq (sim_svc_peer_subscribe (vision, SIMBUS__ENVELOPE__BODY_SNAPSHOT), 0);
    cr_assert_eq (sim_svc_peer_subscribe (vision, SIMBUS__ENVELOPE__BODY_CONFIG), 0);
    /* the configuration comes once physics knows of the joiner: from then
       on its step marks reach it */
    Simbus__Envelope *config = sim_svc_peer_wait (vision, SIMBUS__ENVELOPE__BODY_CONFIG, S_WAIT_MS);
    cr_assert_not_null (config, "vision got no configuration");
    simbus__envelope__free_unpacked (config, NULL);
    sim_svc_peer_drop (vision, SIMBUS__ENVELOPE__BODY_SNAPSHOT);

    uint64_t t0 = s_time_ns (b.client, 1);
    s_teleport_t t;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 5;
    req.simulator_command = s_teleport (&t, TEAM__BLUE, 0, 1.0f, -0.5f);
    req.has_step_id = true;
    req.step_id = 5;
    req.has_substeps = true;
    req.substeps = 20;
    req.has_sync = req.sync = true;
    s_send (b.client, &req);

    Simbus__Envelope *env = sim_svc_peer_wait (vision, SIMBUS__ENVELOPE__BODY_STEP_DONE, S_WAIT_MS);
    cr_assert_not_null (env, "vision got no end of the step");
    const Simbus__StepDone *done = env->step_done;
    uint64_t substep_ns = (uint64_t) llround (b.cfg.sim.substep * 1e9);
    cr_expect_eq (done->step_id, 5);
    cr_expect_eq (done->time_ns, t0 + 20 * substep_ns);
    cr_assert_not_null (done->reply, "the end of the step carries no reply");
    cr_expect_eq (done->reply->id, 5);
    cr_expect_eq (done->reply->time_ns, done->time_ns);
    cr_expect_eq (done->reply->n_errors, 0);

    /* the step's snapshots came first, tagged, the last at its end, with
       the teleported robot */
    int tagged = 0;
    Simbus__Envelope *last = NULL, *snap;
    while ((snap = sim_svc_peer_wait (vision, SIMBUS__ENVELOPE__BODY_SNAPSHOT, 0))) {
        if (snap->snapshot->has_step_id && snap->snapshot->step_id == 5)
            tagged++;
        if (last)
            simbus__envelope__free_unpacked (last, NULL);
        last = snap;
    }
    cr_assert_not_null (last, "no snapshot during the step");
    cr_expect_gt (tagged, 0);
    cr_expect_eq (last->snapshot->time_ns, done->time_ns);
    sim_snapshot_t s;
    cr_assert_eq (sim_bus_snapshot_decode (last->snapshot, &s), 0);
    bool seen = false;
    for (int i = 0; i < s.robot_count; i++)
        if (s.robots[i].team == SIM_TEAM_BLUE && s.robots[i].id == 0) {
            seen = true;
            cr_expect (fabs (s.robots[i].x - 1.0) < 1e-3 && fabs (s.robots[i].y + 0.5) < 1e-3,
                       "blue 0 at (%g, %g), not (1, -0.5)", s.robots[i].x, s.robots[i].y);
        }
    cr_expect (seen, "blue 0 is not in the step's last snapshot");
    simbus__envelope__free_unpacked (last, NULL);
    simbus__envelope__free_unpacked (env, NULL);

    /* no direct reply for step 5: the next reply answers the next request */
    s_time_ns (b.client, 6);
    sim_svc_peer_destroy (&vision);
    s_stop (&b);
}

Test (physics_service, step_with_vision_lanes)
{
    s_step_with_vision (true);
}
Test (physics_service, step_with_vision_zmq)
{
    s_step_with_vision (false);
}

/* ---- configuration ---------------------------------------------------- */

static void
s_expect_config (sim_svc_peer_t *peer, const sim_config_t *cfg)
{
    Simbus__Envelope *env = sim_svc_peer_wait (peer, SIMBUS__ENVELOPE__BODY_CONFIG, S_WAIT_MS);
    cr_assert_not_null (env, "the joiner got no configuration");
    sim_config_t out;
    uint64_t serial = 0;
    cr_expect_eq (sim_bus_config_decode (env->config, cfg, &out, &serial), 0);
    cr_expect_geq (serial, 1);
    cr_expect_eq (out.sim.seed, 4242);
    cr_expect_eq (out.run.mode, SIM_MODE_SYNC);
    simbus__envelope__free_unpacked (env, NULL);
}

static void
s_config_joiner (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_TOOL);
    cr_assert_eq (sim_svc_peer_subscribe (b.client, SIMBUS__ENVELOPE__BODY_CONFIG), 0);
    s_expect_config (b.client, &b.cfg);
    /* a gateway asks for it on its own carrier */
    sim_svc_peer_t *gateway = sim_svc_peer_new (&b.cfg, SIM_LINK_GATEWAY);
    cr_assert_not_null (gateway);
    cr_assert_eq (sim_svc_peer_subscribe (gateway, SIMBUS__ENVELOPE__BODY_CONFIG), 0);
    s_expect_config (gateway, &b.cfg);
    sim_svc_peer_destroy (&gateway);
    s_stop (&b);
}

Test (physics_service, config_joiner_lanes)
{
    s_config_joiner (true);
}
Test (physics_service, config_joiner_zmq)
{
    s_config_joiner (false);
}

/* ---- restart ---------------------------------------------------------- */

static void
s_restart (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 1;
    req.has_substeps = true;
    req.substeps = 10;
    s_send (b.client, &req);
    simbus__envelope__free_unpacked (s_reply (b.client, 1), NULL);
    /* a physics started again on the same endpoints (single process: no
       checkpoint, so a new world) answers a new client */
    sim_svc_peer_destroy (&b.client);
    zactor_destroy (&b.physics);
    b.physics = sim_svc_start (phys_service_actor, &b.cfg);
    cr_assert_not_null (b.physics, "physics did not start again on its endpoints");
    b.client = sim_svc_peer_new (&b.cfg, SIM_LINK_GATEWAY);
    cr_assert_not_null (b.client);
    cr_expect_eq (s_time_ns (b.client, 2), 0);
    s_stop (&b);
}

Test (physics_service, restart_lanes)
{
    s_restart (true);
}
Test (physics_service, restart_zmq)
{
    s_restart (false);
}

/* Regression: sim_link_destroy closed bound sockets without unbinding,
   and libzmq frees an inproc name only when its reaper gets to the closed
   socket, so an actor started again at once on the same endpoints could
   fail "Address already in use". 200 restarts, none may fail. */
static void
s_restart_at_once (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_GATEWAY);
    for (int i = 0; i < 200; i++) {
        s_time_ns (b.client, (uint64_t) i + 1);
        sim_svc_peer_destroy (&b.client);
        zactor_destroy (&b.physics);
        b.physics = sim_svc_start (phys_service_actor, &b.cfg);
        cr_assert_not_null (b.physics, "physics did not start again at once (restart %d)", i + 1);
        b.client = sim_svc_peer_new (&b.cfg, SIM_LINK_GATEWAY);
        cr_assert_not_null (b.client);
    }
    s_stop (&b);
}

Test (physics_service, restart_at_once_lanes)
{
    s_restart_at_once (true);
}
Test (physics_service, restart_at_once_zmq)
{
    s_restart_at_once (false);
}

/* Regression: an inproc connection is never made again once its binder
   closed, and a DEALER without a connection blocked in send, so a
   request to a physics restarted in the same process never returned
   (sim_link.h promises a request send that never blocks). The timeout
   turns a hang into a failure. */
static void
s_request_after_restart (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_TOOL);
    for (int i = 0; i < 20; i++) {
        s_time_ns (b.client, 1);
        zactor_destroy (&b.physics);
        b.physics = sim_svc_start (phys_service_actor, &b.cfg);
        cr_assert_not_null (b.physics);
        Simbus__Request req = SIMBUS__REQUEST__INIT;
        req.id = 2;
        /* must return; whether the old connection is answered is the
           carrier's business (over ipc it is) */
        sim_svc_send (sim_svc_peer_link (b.client), SIMBUS__ENVELOPE__BODY_REQUEST, &req);
        sim_svc_peer_destroy (&b.client);
        b.client = sim_svc_peer_new (&b.cfg, SIM_LINK_TOOL);
        cr_assert_not_null (b.client);
    }
    s_stop (&b);
}

Test (physics_service, request_after_restart_zmq, .timeout = 10)
{
    s_request_after_restart (false);
}

/* ---- the commands a team sent, for the viewer's inspector -------------- */

/* A team's RobotControl reaches a Commands subscriber as applied, with
   the feedback; the subscription travels to physics on its own time, so
   the team keeps commanding (each request answered) until one arrives. */
static void
s_commands_published (bool lanes)
{
    s_bench_t b;
    s_start (&b, lanes, SIM_LINK_TOOL);
    sim_svc_peer_t *viewer = sim_svc_peer_new (&b.cfg, SIM_LINK_VIEWER);
    cr_assert_not_null (viewer);
    cr_assert_eq (sim_svc_peer_subscribe (viewer, SIMBUS__ENVELOPE__BODY_COMMANDS), 0);
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.forward = 0.5f;
    local.angular = -2.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand rcmd = ROBOT_COMMAND__INIT;
    rcmd.id = 0;
    rcmd.move_command = &move;
    rcmd.has_kick_speed = true;
    rcmd.kick_speed = 2.5f;
    RobotCommand *rcmds[1] = { &rcmd };
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = rcmds;
    Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
    team.team = 0;
    team.control = &rc;
    Simbus__Envelope *got = NULL;
    for (uint64_t id = 10; id < 60 && !got; id++) {
        Simbus__Request req = SIMBUS__REQUEST__INIT;
        req.id = id;
        req.team_control = &team;
        s_send (b.client, &req);
        simbus__envelope__free_unpacked (s_reply (b.client, id), NULL);
        got = sim_svc_peer_wait (viewer, SIMBUS__ENVELOPE__BODY_COMMANDS, 100);
    }
    cr_assert_not_null (got, "no Commands within 50 commands");
    const Simbus__Commands *c = got->commands;
    cr_assert (c->control && c->control->control && c->control->control->n_robot_commands == 1);
    cr_expect_eq (c->control->team, 0u);
    const RobotCommand *seen = c->control->control->robot_commands[0];
    cr_expect_eq (seen->id, 0u);
    cr_expect_float_eq (seen->move_command->local_velocity->forward, 0.5f, 1e-9);
    cr_expect_float_eq (seen->move_command->local_velocity->angular, -2.0f, 1e-9);
    cr_expect (seen->has_kick_speed && seen->kick_speed == 2.5f);
    cr_expect_eq (c->n_feedback, 1u, "the feedback the team was sent back");
    cr_expect_eq (c->feedback[0]->id, 0u);
    simbus__envelope__free_unpacked (got, NULL);
    sim_svc_peer_destroy (&viewer);
    s_stop (&b);
}

Test (physics_service, commands_published_lanes)
{
    s_commands_published (true);
}
Test (physics_service, commands_published_zmq)
{
    s_commands_published (false);
}
