/*  fuzz_grsim.c - libFuzzer harness: one datagram on the legacy grSim
    port. The adapter's translation is static in grs_service.c and only
    reachable through its socket, so the harness unpacks the grSim_Packet
    as the adapter does and turns it into the league messages it sends
    (protocol.md §9: commands as a team's RobotControl, replacements as
    teleports), which go through the bus to physics on a fresh world. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_support.h"
#include "common/base/sim_params.h"
#include "common/base/sim_team.h"
#include "grSim_Packet.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

#define FZ_GRS_MAX 256 /* commands and robots taken per packet, as the adapter */

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* One team's commands: the storage of a RobotControl. */
typedef struct {
    RobotCommand items[FZ_GRS_MAX];
    RobotCommand *ptrs[FZ_GRS_MAX];
    RobotMoveCommand moves[FZ_GRS_MAX];
    MoveLocalVelocity locals[FZ_GRS_MAX];
    MoveWheelVelocity wheels[FZ_GRS_MAX];
} s_commands_t;

static void
s_commands (fz_physics_t *phys, const GrSimCommands *cmds, s_commands_t *m)
{
    sim_team_t team = cmds->isteamyellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
    const sim_robot_specs_t *spec = &phys->cfg.team[team];
    size_t n = cmds->n_robot_commands < FZ_GRS_MAX ? cmds->n_robot_commands : FZ_GRS_MAX;
    for (size_t i = 0; i < n; i++) {
        const GrSimRobotCommand *g = cmds->robot_commands[i];
        RobotCommand *c = &m->items[i];
        robot_command__init (c);
        robot_move_command__init (&m->moves[i]);
        c->id = g->id > SIM_MAX_ROBOT_ID ? SIM_MAX_ROBOT_ID : g->id;
        if (g->wheelsspeed) {
            MoveWheelVelocity *w = &m->wheels[i];
            move_wheel_velocity__init (w);
            double r = spec->drive.wheel_radius; /* rad/s on the wire */
            w->front_left = (float) ((g->has_wheel1 ? g->wheel1 : 0) * r);
            w->back_left = (float) ((g->has_wheel2 ? g->wheel2 : 0) * r);
            w->back_right = (float) ((g->has_wheel3 ? g->wheel3 : 0) * r);
            w->front_right = (float) ((g->has_wheel4 ? g->wheel4 : 0) * r);
            m->moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY;
            m->moves[i].wheel_velocity = w;
        } else {
            MoveLocalVelocity *l = &m->locals[i];
            move_local_velocity__init (l);
            l->forward = g->veltangent;
            l->left = g->velnormal;
            l->angular = g->velangular;
            m->moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
            m->moves[i].local_velocity = l;
        }
        c->move_command = &m->moves[i];
        double speed = hypot (g->kickspeedx, g->kickspeedz);
        if (isfinite (speed) && speed > 1e-6) {
            c->has_kick_speed = c->has_kick_angle = true;
            c->kick_speed = (float) speed;
            c->kick_angle = (float) (atan2 (g->kickspeedz, g->kickspeedx) * 180.0 / M_PI);
        }
        if (g->spinner) {
            c->has_dribbler_speed = true;
            c->dribbler_speed = (float) spec->dribbler.max_speed_rpm;
        }
        m->ptrs[i] = c;
    }
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = n;
    rc.robot_commands = m->ptrs;
    Simbus__TeamControl tc = SIMBUS__TEAM_CONTROL__INIT;
    tc.team = (uint32_t) team;
    tc.control = &rc;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 1;
    req.team_control = &tc;
    fz_forward (phys, &req);
}

/* The storage of a replacement's teleports. */
typedef struct {
    TeleportRobot items[FZ_GRS_MAX];
    TeleportRobot *ptrs[FZ_GRS_MAX];
    RobotId ids[FZ_GRS_MAX];
} s_teleports_t;

static void
s_replacement (fz_physics_t *phys, const GrSimReplacement *rep, s_teleports_t *m)
{
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    TeleportBall ball = TELEPORT_BALL__INIT;
    if (rep->ball) {
        const GrSimBallReplacement *b = rep->ball;
        ball.has_x = ball.has_y = b->has_x && b->has_y;
        ball.x = (float) b->x;
        ball.y = (float) b->y;
        ball.has_vx = ball.has_vy = b->has_vx || b->has_vy;
        ball.vx = (float) (b->has_vx ? b->vx : 0);
        ball.vy = (float) (b->has_vy ? b->vy : 0);
        control.teleport_ball = &ball;
    }
    size_t n = rep->n_robots < FZ_GRS_MAX ? rep->n_robots : FZ_GRS_MAX;
    for (size_t i = 0; i < n; i++) {
        const GrSimRobotReplacement *r = rep->robots[i];
        RobotId *id = &m->ids[i];
        robot_id__init (id);
        id->has_id = id->has_team = true;
        id->id = r->id > SIM_MAX_ROBOT_ID ? SIM_MAX_ROBOT_ID : r->id;
        id->team = sim_team_league (sim_team_from_yellow (r->yellowteam));
        TeleportRobot *t = &m->items[i];
        teleport_robot__init (t);
        t->id = id;
        t->has_x = t->has_y = t->has_orientation = true;
        t->x = (float) r->x;
        t->y = (float) r->y;
        t->orientation = (float) (r->dir * M_PI / 180.0); /* degrees on the wire */
        t->has_v_x = t->has_v_y = t->has_v_angular = true;
        t->has_present = true;
        t->present = r->has_turnon ? r->turnon : true;
        m->ptrs[i] = t;
    }
    control.n_teleport_robot = n;
    control.teleport_robot = m->ptrs;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 2;
    req.simulator_command = &cmd;
    fz_forward (phys, &req);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static s_commands_t *commands;
    static s_teleports_t *teleports;
    if (!commands) {
        fz_init ();
        commands = malloc (sizeof *commands);
        teleports = malloc (sizeof *teleports);
        if (!commands || !teleports)
            abort ();
    }
    GrSimPacket *packet = gr_sim__packet__unpack (NULL, size, data);
    if (!packet)
        return 0; /* the adapter drops it, counted */
    fz_physics_t phys;
    fz_physics_init (&phys);
    if (packet->commands)
        s_commands (&phys, packet->commands, commands);
    if (packet->replacement)
        s_replacement (&phys, packet->replacement, teleports);
    fz_physics_fini (&phys);
    gr_sim__packet__free_unpacked (packet, NULL);
    return 0;
}
