/*  grs_translate.c - a grSim_Packet's commands and replacement as bus
    requests (see grs_translate.h). */
#include "grs_translate.h"

#include <math.h>

#include "common/base/sim_team.h"

#define GRS_KICK_MIN 0.0001 /* m/s: grSim's SSLWorld::recvActions kicks above it */

sim_team_t
grs_translate_team (const GrSimCommands *cmds)
{
    return sim_team_from_yellow (cmds->isteamyellow);
}

/* Robot command i of self: the move, the kick and the dribbler of `g`. */
static RobotCommand *
s_command (grs_commands_t *self, size_t i, const GrSimRobotCommand *g, const sim_robot_specs_t *spec)
{
    RobotCommand *c = &self->items[i];
    robot_command__init (c);
    c->id = g->id; /* physics refuses an id above SIM_MAX_ROBOT_ID */
    RobotMoveCommand *move = &self->moves[i];
    robot_move_command__init (move);
    if (g->wheelsspeed) {
        /* grSim's wheel1..4 run front-left, back-left, back-right,
           front-right; rad/s times the wheel radius gives m/s */
        double r = spec->drive.wheel_radius;
        MoveWheelVelocity *w = &self->wheels[i];
        move_wheel_velocity__init (w);
        w->front_right = (float) ((g->has_wheel4 ? g->wheel4 : 0) * r);
        w->back_right = (float) ((g->has_wheel3 ? g->wheel3 : 0) * r);
        w->back_left = (float) ((g->has_wheel2 ? g->wheel2 : 0) * r);
        w->front_left = (float) ((g->has_wheel1 ? g->wheel1 : 0) * r);
        move->command_case = ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY;
        move->wheel_velocity = w;
    } else {
        MoveLocalVelocity *l = &self->locals[i];
        move_local_velocity__init (l);
        l->forward = g->veltangent;
        l->left = g->velnormal;
        l->angular = g->velangular;
        move->command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
        move->local_velocity = l;
    }
    c->move_command = move;
    /* grSim kicks only when either speed is above GRS_KICK_MIN: a
       negative kickspeedx alone is no kick backwards */
    double speed = hypot (g->kickspeedx, g->kickspeedz);
    if ((g->kickspeedx > GRS_KICK_MIN || g->kickspeedz > GRS_KICK_MIN) && isfinite (speed)) {
        c->has_kick_speed = c->has_kick_angle = true;
        c->kick_speed = (float) speed;
        c->kick_angle = (float) (atan2 (g->kickspeedz, g->kickspeedx) * 180.0 / M_PI);
    }
    if (g->spinner) {
        c->has_dribbler_speed = true;
        c->dribbler_speed = (float) spec->dribbler.max_speed_rpm;
    }
    return c;
}

sim_team_t
grs_translate_commands (grs_commands_t *self, const GrSimCommands *cmds, const sim_config_t *cfg)
{
    sim_team_t team = grs_translate_team (cmds);
    const sim_robot_specs_t *spec = &cfg->team[team];
    size_t n = cmds->n_robot_commands < GRS_MAX_COMMANDS ? cmds->n_robot_commands : GRS_MAX_COMMANDS;
    for (size_t i = 0; i < n; i++)
        self->ptrs[i] = s_command (self, i, cmds->robot_commands[i], spec);
    robot_control__init (&self->control);
    self->control.n_robot_commands = n;
    self->control.robot_commands = self->ptrs;
    simbus__team_control__init (&self->team);
    self->team.team = sim_team_number (team);
    self->team.control = &self->control;
    simbus__request__init (&self->req);
    self->req.team_control = &self->team;
    return team;
}

/* The ball's teleport: a position when both coordinates are given, a
   velocity (a missing part 0) when either is. */
static void
s_ball (TeleportBall *ball, const GrSimBallReplacement *b)
{
    teleport_ball__init (ball);
    if (b->has_x && b->has_y) {
        ball->has_x = ball->has_y = true;
        ball->x = (float) b->x;
        ball->y = (float) b->y;
    }
    if (b->has_vx || b->has_vy) {
        ball->has_vx = ball->has_vy = true;
        ball->vx = (float) (b->has_vx ? b->vx : 0);
        ball->vy = (float) (b->has_vy ? b->vy : 0);
    }
}

/* Robot teleport i of self, from `r`. */
static TeleportRobot *
s_robot (grs_replacement_t *self, size_t i, const GrSimRobotReplacement *r)
{
    RobotId *id = &self->ids[i];
    robot_id__init (id);
    id->has_id = id->has_team = true;
    id->id = r->id; /* physics refuses an id above SIM_MAX_ROBOT_ID */
    id->team = sim_team_league (sim_team_from_yellow (r->yellowteam));
    TeleportRobot *t = &self->items[i];
    teleport_robot__init (t);
    t->id = id;
    t->has_x = t->has_y = t->has_orientation = true;
    t->x = (float) r->x;
    t->y = (float) r->y;
    t->orientation = (float) (r->dir * M_PI / 180.0);
    t->has_v_x = t->has_v_y = t->has_v_angular = true;
    t->v_x = t->v_y = t->v_angular = 0;
    t->has_present = true;
    t->present = r->has_turnon ? r->turnon : true;
    return t;
}

void
grs_translate_replacement (grs_replacement_t *self, const GrSimReplacement *rep)
{
    simulator_control__init (&self->control);
    if (rep->ball) {
        s_ball (&self->ball, rep->ball);
        self->control.teleport_ball = &self->ball;
    }
    size_t n = rep->n_robots < GRS_MAX_COMMANDS ? rep->n_robots : GRS_MAX_COMMANDS;
    for (size_t i = 0; i < n; i++)
        self->ptrs[i] = s_robot (self, i, rep->robots[i]);
    self->control.n_teleport_robot = n;
    self->control.teleport_robot = self->ptrs;
    simulator_command__init (&self->command);
    self->command.control = &self->control;
    simbus__request__init (&self->req);
    self->req.simulator_command = &self->command;
}
