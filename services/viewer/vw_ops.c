/*  vw_ops.c - the page's actions as SSL simulation protocol requests
    (vw_ops.h). */
#include "vw_ops.h"

#include <arpa/inet.h>
#include <czmq.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_utf8.h"
#include "common/config/config.h"
#include "common/base/sim_field.h"
#include "common/base/sim_schedule.h"
#include "common/base/sim_team.h"
#include "common/bus/sim_udp.h"
#include "engine/physics/phys_field.h"
#include "google/protobuf/any.pb-c.h"
#include "ssl_simulation_config.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_custom_sslsim_realism_preset.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_geometry.pb-c.h"

#define VW_REALISM_TYPE_URL "type.googleapis.com/sslsim.RealismPreset"

static int
s_refuse (char *why, size_t len, const char *text)
{
    snprintf (why, len, "%s", text);
    return -1;
}

static int
s_pack (const ProtobufCMessage *msg, uint8_t *buf, size_t cap, char *why, size_t whylen)
{
    size_t len = protobuf_c_message_get_packed_size (msg);
    if (len > cap)
        return s_refuse (why, whylen, "the request does not fit a datagram");
    return (int) protobuf_c_message_pack (msg, buf);
}

/* reset: every robot of the start formation back in its slot, the others
   off the field, the ball still at the centre spot. */
static int
s_reset (const vw_ops_ctx_t *ctx, SimulatorControl *control, TeleportRobot *tr, RobotId *ids, int cap)
{
    sim_field_t field;
    sim_field_resolve (&ctx->cfg.field, ctx->cfg.run.division, &field);
    int per_team = ctx->cfg.sim.initial_robots_per_team;
    int n = 0;
    for (int team = 0; team < 2; team++)
        for (int slot = 0; slot < per_team && n < cap; slot++) {
            double x, y, theta;
            if (phys_formation (&field, (sim_team_t) team, slot, &x, &y, &theta))
                continue;
            robot_id__init (&ids[n]);
            ids[n].has_id = true;
            ids[n].id = (uint32_t) slot;
            ids[n].has_team = true;
            ids[n].team = sim_team_league ((sim_team_t) team);
            teleport_robot__init (&tr[n]);
            tr[n].id = &ids[n];
            tr[n].has_x = tr[n].has_y = tr[n].has_orientation = true;
            tr[n].x = (float) x;
            tr[n].y = (float) y;
            tr[n].orientation = (float) theta;
            tr[n].has_present = true;
            tr[n].present = true;
            tr[n].has_v_x = tr[n].has_v_y = tr[n].has_v_angular = true;
            n++;
        }
    for (int i = 0; i < ctx->robot_count && n < cap; i++) {
        if (ctx->robots[i].id < per_team)
            continue;
        robot_id__init (&ids[n]);
        ids[n].has_id = true;
        ids[n].id = (uint32_t) ctx->robots[i].id;
        ids[n].has_team = true;
        ids[n].team = sim_team_league (ctx->robots[i].team);
        teleport_robot__init (&tr[n]);
        tr[n].id = &ids[n];
        tr[n].has_present = true;
        tr[n].present = false;
        n++;
    }
    control->n_teleport_robot = (size_t) n;
    return n;
}

/* cameras: the auto-placed rig of `count` over the field in force, as a
   geometry message (the field goes along: the message requires it). */
static int
s_cameras (const vw_op_t *op, const vw_ops_ctx_t *ctx, uint8_t *buf, size_t cap, char *why, size_t whylen)
{
    sim_field_t f;
    sim_field_resolve (&ctx->cfg.field, ctx->cfg.run.division, &f);
    sim_rig_t rig;
    sim_rig_place (&rig, op->count, &f, ctx->cfg.vision.default_camera_height,
                   ctx->cfg.vision.default_camera_x_fraction);
    SSLGeometryFieldSize field = SSL__GEOMETRY_FIELD_SIZE__INIT;
    field.field_length = (int32_t) lround (f.length * 1000);
    field.field_width = (int32_t) lround (f.width * 1000);
    field.goal_width = (int32_t) lround (f.goal_width * 1000);
    field.goal_depth = (int32_t) lround (f.goal_depth * 1000);
    field.boundary_width = (int32_t) lround (f.boundary_width * 1000);
    SSLGeometryCameraCalibration calib[SIM_MAX_CAMERAS], *ptrs[SIM_MAX_CAMERAS];
    for (int i = 0; i < rig.count && i < SIM_MAX_CAMERAS; i++) {
        SSLGeometryCameraCalibration *c = &calib[i];
        ssl__geometry_camera_calibration__init (c);
        c->camera_id = (uint32_t) rig.cams[i].id;
        c->focal_length = (float) ctx->cfg.vision.focal_length_px;
        c->q3 = 1; /* the identity rotation: only the derived position is read */
        c->has_derived_camera_world_tx = c->has_derived_camera_world_ty = c->has_derived_camera_world_tz =
            true;
        c->derived_camera_world_tx = (float) (rig.cams[i].x * 1000);
        c->derived_camera_world_ty = (float) (rig.cams[i].y * 1000);
        c->derived_camera_world_tz = (float) (rig.cams[i].z * 1000);
        ptrs[i] = c;
    }
    SSLGeometryData geometry = SSL__GEOMETRY_DATA__INIT;
    geometry.field = &field;
    geometry.n_calib = (size_t) rig.count;
    geometry.calib = ptrs;
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    config.geometry = &geometry;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.config = &config;
    return s_pack (&cmd.base, buf, cap, why, whylen);
}

/* realism: the preset by name (ssl-sim's RealismPreset), so physics
   replaces every key of [realism], the ones ErForce's RealismConfig has
   no field for too, as a start with that preset does. */
static int
s_realism (const vw_op_t *op, uint8_t *buf, size_t cap, char *why, size_t whylen)
{
    sim_realism_t preset;
    if (sim_config_realism_preset (op->preset, &preset)) {
        char shown[41]; /* whole characters: the answer is a WebSocket text frame */
        sim_utf8_copy (shown, sizeof shown, op->preset);
        snprintf (why, whylen, "unknown realism preset '%s' (choices: %s)", shown,
                  sim_config_realism_names ());
        return -1;
    }
    Sslsim__RealismPreset p = SSLSIM__REALISM_PRESET__INIT;
    p.name = (char *) op->preset;
    uint8_t inner[128];
    size_t inner_len = sslsim__realism_preset__get_packed_size (&p);
    if (inner_len > sizeof inner)
        return s_refuse (why, whylen, "the realism preset's name does not fit");
    sslsim__realism_preset__pack (&p, inner);
    Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
    any.type_url = (char *) VW_REALISM_TYPE_URL;
    any.value.data = inner;
    any.value.len = inner_len;
    Google__Protobuf__Any *anys[1] = { &any };
    RealismConfig rc = REALISM_CONFIG__INIT;
    rc.n_custom = 1;
    rc.custom = anys;
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    config.realism_config = &rc;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.config = &config;
    return s_pack (&cmd.base, buf, cap, why, whylen);
}

/* step: one vision frame period as a sync step of whole substeps. */
static int
s_step (const vw_ops_ctx_t *ctx, uint8_t *buf, size_t cap, char *why, size_t whylen)
{
    double substep = ctx->cfg.sim.substep > 0 ? ctx->cfg.sim.substep : 0.001;
    double rate = ctx->cfg.vision.frame_rate > 0 ? ctx->cfg.vision.frame_rate : 60;
    double n = round (1.0 / rate / substep);
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = (float) ((n < 1 ? 1 : n) * substep);
    return s_pack (&req.base, buf, cap, why, whylen);
}

int
vw_ops_encode (const vw_op_t *op, const vw_ops_ctx_t *ctx, uint8_t *buf, size_t cap, bool *sync, char *why,
               size_t whylen)
{
    *sync = false;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    cmd.control = &control;
    TeleportBall ball = TELEPORT_BALL__INIT;
    TeleportRobot robots[2 * SIM_SNAPSHOT_MAX_ROBOTS], *robot_ptrs[2 * SIM_SNAPSHOT_MAX_ROBOTS];
    RobotId ids[2 * SIM_SNAPSHOT_MAX_ROBOTS];
    for (int i = 0; i < 2 * SIM_SNAPSHOT_MAX_ROBOTS; i++)
        robot_ptrs[i] = &robots[i];
    control.teleport_robot = robot_ptrs;
    switch (op->kind) {
    case VW_OP_TELEPORT_BALL:
        ball.has_x = ball.has_y = ball.has_z = true;
        ball.x = (float) op->x;
        ball.y = (float) op->y;
        ball.z = (float) (op->has_z ? op->z : 0);
        ball.has_vx = ball.has_vy = ball.has_vz = true;
        ball.vx = (float) op->vx;
        ball.vy = (float) op->vy;
        ball.vz = (float) op->vz;
        control.teleport_ball = &ball;
        break;
    case VW_OP_TELEPORT_ROBOT:
        robot_id__init (&ids[0]);
        ids[0].has_id = ids[0].has_team = true;
        ids[0].id = (uint32_t) op->robot;
        ids[0].team = sim_team_league (op->team);
        teleport_robot__init (&robots[0]);
        robots[0].id = &ids[0];
        robots[0].has_present = true;
        robots[0].present = op->present;
        if (op->present) {
            robots[0].has_x = op->has_x;
            robots[0].has_y = op->has_y;
            robots[0].x = (float) op->x;
            robots[0].y = (float) op->y;
            robots[0].has_orientation = op->has_o;
            robots[0].orientation = (float) op->o;
            robots[0].has_v_x = robots[0].has_v_y = robots[0].has_v_angular = true;
        }
        control.n_teleport_robot = 1;
        break;
    case VW_OP_RESET:
        teleport_ball__init (&ball);
        ball.has_x = ball.has_y = ball.has_z = ball.has_vx = ball.has_vy = ball.has_vz = true;
        control.teleport_ball = &ball;
        s_reset (ctx, &control, robots, ids, 2 * SIM_SNAPSHOT_MAX_ROBOTS);
        break;
    case VW_OP_PAUSE:
        control.has_simulation_speed = true;
        control.simulation_speed = 0;
        break;
    case VW_OP_RESUME:
        control.has_simulation_speed = true;
        control.simulation_speed = (float) (ctx->resume_speed > 0 ? ctx->resume_speed : 1.0);
        break;
    case VW_OP_SPEED:
        control.has_simulation_speed = true;
        control.simulation_speed = (float) op->value;
        break;
    case VW_OP_STEP:
        *sync = true;
        return s_step (ctx, buf, cap, why, whylen);
    case VW_OP_REALISM:
        return s_realism (op, buf, cap, why, whylen);
    case VW_OP_CAMERAS:
        return s_cameras (op, ctx, buf, cap, why, whylen);
    case VW_OP_SEEK:
    case VW_OP_JUMP:
        return s_refuse (why, whylen, "seek and jump move a log's timeline: `ssl-sim play FILE` serves it");
    default:
        return s_refuse (why, whylen, "this op has no request");
    }
    return s_pack (&cmd.base, buf, cap, why, whylen);
}

static int
s_first_error (SimulatorError *const *errors, size_t n, char *code, size_t code_len, char *message,
               size_t message_len)
{
    if (n == 0)
        return 0;
    /* a code the page could not show (absent, empty, or a NUL first: the
       wire's strings may hold any byte) is no code at all */
    const char *c = errors[0]->code;
    snprintf (code, code_len, "%s", c && c[0] ? c : "UNKNOWN");
    snprintf (message, message_len, "%s", errors[0]->message ? errors[0]->message : "");
    return 1;
}

int
vw_ops_decode (const uint8_t *buf, size_t len, bool sync, char *code, size_t code_len, char *message,
               size_t message_len)
{
    int rc;
    if (sync) {
        SimulationSyncResponse *r = simulation_sync_response__unpack (NULL, len, buf);
        if (!r)
            return -1;
        rc = r->robot_control_response
               ? s_first_error (r->robot_control_response->errors, r->robot_control_response->n_errors, code,
                                code_len, message, message_len)
               : 0;
        simulation_sync_response__free_unpacked (r, NULL);
        return rc;
    }
    SimulatorResponse *r = simulator_response__unpack (NULL, len, buf);
    if (!r)
        return -1;
    rc = s_first_error (r->errors, r->n_errors, code, code_len, message, message_len);
    simulator_response__free_unpacked (r, NULL);
    return rc;
}

int
vw_ops_call (int fd, const struct sockaddr_in *to, const uint8_t *req, size_t len, bool sync, int timeout_ms,
             char *code, size_t code_len, char *message, size_t message_len)
{
    uint8_t *buf = malloc (VW_OPS_DATAGRAM_MAX);
    struct sockaddr_in from;
    /* an answer that came after its op gave up must not answer this one */
    while (buf && sim_udp_recv (fd, buf, VW_OPS_DATAGRAM_MAX, &from) >= 0)
        ;
    if (!buf || sim_udp_send (fd, req, len, to)) {
        free (buf);
        snprintf (code, code_len, "UNAVAILABLE");
        snprintf (message, message_len, "cannot send to the gateway's control port");
        return -1;
    }
    int64_t end = zclock_mono () + timeout_ms;
    int rc = -2;
    while (rc == -2) {
        int64_t left = end - zclock_mono ();
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0 || poll (&p, 1, (int) left) <= 0)
            break;
        ssize_t n = sim_udp_recv (fd, buf, VW_OPS_DATAGRAM_MAX, &from);
        if (n < 0 || from.sin_port != to->sin_port || from.sin_addr.s_addr != to->sin_addr.s_addr)
            continue; /* not the gateway's answer */
        rc = vw_ops_decode (buf, (size_t) n, sync, code, code_len, message, message_len);
        if (rc < 0) {
            snprintf (code, code_len, "BAD_REQUEST");
            snprintf (message, message_len, "the gateway's answer does not parse");
        }
    }
    free (buf);
    if (rc == -2) {
        snprintf (code, code_len, "UNAVAILABLE");
        snprintf (message, message_len, "the gateway did not answer within %d ms", timeout_ms);
        return -1;
    }
    return rc;
}

int
vw_ops_socket (const struct sockaddr_in *to)
{
    /* a gateway on this host is answered on loopback only */
    bool local = to->sin_addr.s_addr == htonl (INADDR_LOOPBACK);
    return sim_udp_bind (local ? "127.0.0.1" : "0.0.0.0", 0);
}

int
vw_ops_control_addr (const sim_config_t *cfg, struct sockaddr_in *out)
{
    const char *host = cfg->network.bind_address;
    if (cfg->run.localhost || !host[0] || strcmp (host, "0.0.0.0") == 0)
        host = "127.0.0.1";
    char text[SIM_STRING_MAX + 16];
    snprintf (text, sizeof text, "%.200s:%d", host, sim_config_port (cfg, cfg->network.control_port));
    return sim_udp_parse_addr (text, out);
}
