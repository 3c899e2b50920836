/*  test_gateway_support.h - the bench shared by the gateway service tests
    (test_gateway_service.c, test_gateway_edge_service.c,
    test_gateway_badinput_service.c): the gateway actor in-process between
    a UDP client on 127.0.0.1 and a fake physics and vision on the bus.
*/
#ifndef TEST_GATEWAY_SUPPORT_H_INCLUDED
#define TEST_GATEWAY_SUPPORT_H_INCLUDED

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

#define GW_TEST_WAIT_MS 3000

typedef struct {
    sim_config_t cfg;
    sim_svc_peer_t *physics, *vision;
    zactor_t *gateway;
    int fd; /* the client */
    uint8_t buf[65536];
} gw_test_bench_t;

/* The bench's configuration in `mode`, to change before gw_test_launch. */
static inline void
gw_test_prepare (gw_test_bench_t *b, bool lanes, double sync_timeout, sim_mode_t mode)
{
    memset (b, 0, sizeof *b);
    cr_assert_eq (sim_svc_config (&b->cfg, "gw", mode, lanes), 0);
    b->cfg.bus.sync_timeout = sync_timeout;
}

/* The fake physics and vision, the gateway on b->cfg, and the client. */
static inline void
gw_test_launch (gw_test_bench_t *b)
{
    /* the binders first, as in ssl-sim */
    b->physics = sim_svc_peer_new (&b->cfg, SIM_LINK_PHYSICS);
    b->vision = sim_svc_peer_new (&b->cfg, SIM_LINK_VISION);
    cr_assert (b->physics && b->vision);
    b->gateway = sim_svc_start (gw_service_actor, &b->cfg);
    cr_assert_not_null (b->gateway, "the gateway did not start");
    b->fd = sim_test_udp (0);
    cr_assert_geq (b->fd, 0);
}

/* The bench in `mode`, with [network] sync_takeover = `takeover` and
   [tournament] = *tournament (NULL: the default, off). */
static inline void
gw_test_start_with (gw_test_bench_t *b, bool lanes, double sync_timeout, sim_mode_t mode, bool takeover,
                    const sim_tournament_cfg_t *tournament)
{
    gw_test_prepare (b, lanes, sync_timeout, mode);
    b->cfg.network.sync_takeover = takeover;
    if (tournament)
        b->cfg.tournament = *tournament;
    gw_test_launch (b);
}

/* The bench in `mode`, with [network] sync_takeover = `takeover`. */
static inline void
gw_test_start_in (gw_test_bench_t *b, bool lanes, double sync_timeout, sim_mode_t mode, bool takeover)
{
    gw_test_start_with (b, lanes, sync_timeout, mode, takeover, NULL);
}

static inline void
gw_test_start (gw_test_bench_t *b, bool lanes, double sync_timeout)
{
    gw_test_start_in (b, lanes, sync_timeout, SIM_MODE_SYNC, true);
}

static inline void
gw_test_stop (gw_test_bench_t *b)
{
    zactor_destroy (&b->gateway);
    sim_svc_peer_destroy (&b->vision);
    sim_svc_peer_destroy (&b->physics);
    close (b->fd);
}

/* The next request the fake physics gets (caller frees). */
static inline Simbus__Envelope *
gw_test_request (gw_test_bench_t *b)
{
    Simbus__Envelope *env = sim_svc_peer_wait (b->physics, SIMBUS__ENVELOPE__BODY_REQUEST, GW_TEST_WAIT_MS);
    cr_assert_not_null (env, "physics got no request");
    return env;
}

/* Answer the last request with an error whose code is `code` (NULL: none). */
static inline void
gw_test_reply (gw_test_bench_t *b, uint64_t id, const char *code)
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
static inline size_t
gw_test_recv (gw_test_bench_t *b, int ms)
{
    ssize_t n = sim_test_recv (b->fd, b->buf, sizeof b->buf, ms);
    cr_assert_geq (n, 0, "the client got no answer");
    return (size_t) n;
}

static inline SimulatorCommand *
gw_test_teleport (SimulatorCommand *cmd, SimulatorControl *control, TeleportRobot *robot,
                  TeleportRobot **robots, RobotId *rid)
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
static inline void
gw_test_command_round_trip (gw_test_bench_t *b, const char *code)
{
    SimulatorCommand cmd;
    SimulatorControl control;
    TeleportRobot robot, *robots[1];
    RobotId rid;
    cr_assert_eq (sim_test_send (b->fd, b->cfg.network.control_port,
                                 &gw_test_teleport (&cmd, &control, &robot, robots, &rid)->base),
                  0);
    Simbus__Envelope *env = gw_test_request (b);
    const Simbus__Request *req = env->request;
    cr_assert_not_null (req->simulator_command, "the request lost its command");
    cr_assert_not_null (req->simulator_command->control);
    cr_expect_eq (req->simulator_command->control->n_teleport_robot, 1);
    cr_expect (!req->has_substeps && !req->has_step_id && !(req->has_sync && req->sync));
    cr_expect_null (req->team_control);
    gw_test_reply (b, req->id, code);
    simbus__envelope__free_unpacked (env, NULL);
    size_t n = gw_test_recv (b, GW_TEST_WAIT_MS);
    SimulatorResponse *r = simulator_response__unpack (NULL, n, b->buf);
    cr_assert_not_null (r, "the answer is not a SimulatorResponse");
    cr_expect (sim_svc_has_error (r->errors, r->n_errors, code), "the answer lost physics' error %s", code);
    simulator_response__free_unpacked (r, NULL);
}

/* Send a 10 ms sync step on the control port; returns its request at
   physics (caller frees), checked. */
static inline Simbus__Envelope *
gw_test_sync_request (gw_test_bench_t *b)
{
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.has_sim_step = true;
    sync.sim_step = 0.01f;
    cr_assert_eq (sim_test_send (b->fd, b->cfg.network.control_port, &sync.base), 0);
    Simbus__Envelope *env = gw_test_request (b);
    const Simbus__Request *req = env->request;
    cr_expect (req->has_sync && req->sync, "a sync step does not hold the clock");
    cr_assert (req->has_step_id, "a sync step has no step id");
    cr_expect_eq (req->step_id, req->id);
    cr_expect (req->has_substeps);
    cr_expect_eq (req->substeps, (uint64_t) (0.01 / b->cfg.sim.substep + 0.5));
    return env;
}

/* Vision's end of step `id` with the packets wrappers[count] and, when
   `with_reply`, physics' reply. Sent until a carrier takes it (a ZeroMQ
   subscription may still be on its way). */
static inline void
gw_test_send_frames_done (gw_test_bench_t *b, uint64_t id, ProtobufCBinaryData *wrappers, int count,
                          bool with_reply)
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
    int64_t end = zclock_mono () + GW_TEST_WAIT_MS;
    while (sim_svc_send (sim_svc_peer_link (b->vision), SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done) <= 0) {
        cr_assert_lt (zclock_mono (), end, "nobody takes vision's end of a step");
        sim_svc_peer_pump (b->vision, 10);
    }
}

#endif
