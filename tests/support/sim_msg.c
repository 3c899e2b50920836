/*  sim_msg.c - league message builders for tests. */
#include "sim_msg.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "common/base/sim_team.h"
#include "ssl_simulation_custom_sslsim_realism_preset.pb-c.h"

/* cmd carries control (both the caller's, initialised here). */
static SimulatorCommand *
s_with_control (SimulatorControl *control, SimulatorCommand *cmd)
{
    simulator_control__init (control);
    simulator_command__init (cmd);
    cmd->control = control;
    return cmd;
}

static SimulatorCommand *
s_with_config (SimulatorConfig *config, SimulatorCommand *cmd)
{
    simulator_config__init (config);
    simulator_command__init (cmd);
    cmd->config = config;
    return cmd;
}

SimulatorCommand *
sim_msg_control (sim_msg_control_t *b)
{
    return s_with_control (&b->control, &b->cmd);
}

SimulatorCommand *
sim_msg_config (sim_msg_config_t *b)
{
    return s_with_config (&b->config, &b->cmd);
}

SimulatorCommand *
sim_msg_realism_preset (sim_msg_preset_t *b, const char *name)
{
    Sslsim__RealismPreset p = SSLSIM__REALISM_PRESET__INIT;
    p.name = (char *) name;
    assert (sslsim__realism_preset__get_packed_size (&p) <= sizeof b->inner);
    google__protobuf__any__init (&b->any);
    b->any.type_url = "type.googleapis.com/sslsim.RealismPreset";
    b->any.value = (ProtobufCBinaryData) { sslsim__realism_preset__pack (&p, b->inner), b->inner };
    b->anys[0] = &b->any;
    realism_config__init (&b->realism);
    b->realism.n_custom = 1;
    b->realism.custom = b->anys;
    SimulatorCommand *cmd = sim_msg_config (&b->config);
    b->config.config.realism_config = &b->realism;
    return cmd;
}

static void
s_robot_id (RobotId *rid, int team, unsigned id)
{
    robot_id__init (rid);
    rid->has_id = true;
    rid->id = id;
    rid->has_team = team != SIM_MSG_NO_TEAM;
    rid->team = sim_team_league (sim_team_from_number ((uint64_t) team)); /* SIM_MSG_ are the bus numbers */
}

SimulatorCommand *
sim_msg_robot_tp (sim_msg_robot_tp_t *b, int team, unsigned id)
{
    s_robot_id (&b->rid, team, id);
    teleport_robot__init (&b->tr);
    b->tr.id = &b->rid;
    b->ptr = &b->tr;
    s_with_control (&b->control, &b->cmd);
    b->control.n_teleport_robot = 1;
    b->control.teleport_robot = &b->ptr;
    return &b->cmd;
}

void
sim_msg_robot_xy (TeleportRobot *tr, double x, double y)
{
    tr->has_x = tr->has_y = true;
    tr->x = (float) x;
    tr->y = (float) y;
}

void
sim_msg_robot_pose (TeleportRobot *tr, double x, double y, double orientation)
{
    sim_msg_robot_xy (tr, x, y);
    tr->has_orientation = true;
    tr->orientation = (float) orientation;
    tr->has_v_x = tr->has_v_y = tr->has_v_angular = true;
    tr->v_x = tr->v_y = tr->v_angular = 0;
}

SimulatorCommand *
sim_msg_specs (sim_msg_specs_t *b, int team, unsigned id)
{
    s_robot_id (&b->rid, team, id);
    robot_specs__init (&b->spec);
    b->spec.id = &b->rid;
    b->ptr = &b->spec;
    s_with_config (&b->config, &b->cmd);
    b->config.n_robot_specs = 1;
    b->config.robot_specs = &b->ptr;
    return &b->cmd;
}

SimulatorCommand *
sim_msg_ball_tp (sim_msg_ball_tp_t *b)
{
    teleport_ball__init (&b->tb);
    s_with_control (&b->control, &b->cmd);
    b->control.teleport_ball = &b->tb;
    return &b->cmd;
}

SimulatorCommand *
sim_msg_field (sim_msg_field_t *b, int length, int width, int goal_width, int goal_depth, int boundary_width)
{
    ssl__geometry_field_size__init (&b->field);
    b->field.field_length = length;
    b->field.field_width = width;
    b->field.goal_width = goal_width;
    b->field.goal_depth = goal_depth;
    b->field.boundary_width = boundary_width;
    ssl__geometry_data__init (&b->geometry);
    b->geometry.field = &b->field;
    s_with_config (&b->config, &b->cmd);
    b->config.geometry = &b->geometry;
    return &b->cmd;
}

RobotControl *
sim_msg_robot_cmd (sim_msg_robot_cmd_t *b, unsigned id)
{
    memset (b, 0, sizeof *b);
    move_local_velocity__init (&b->local);
    move_global_velocity__init (&b->global);
    move_wheel_velocity__init (&b->wheels);
    robot_command__init (&b->cmd);
    b->cmd.id = id;
    b->ptr = &b->cmd;
    robot_control__init (&b->rc);
    b->rc.n_robot_commands = 1;
    b->rc.robot_commands = &b->ptr;
    return &b->rc;
}

/* Point the command's move at `kind`. */
static void
s_move (sim_msg_robot_cmd_t *b, RobotMoveCommand__CommandCase kind)
{
    robot_move_command__init (&b->move);
    b->move.command_case = kind;
    b->move.local_velocity = kind == ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY ? &b->local : NULL;
    if (kind == ROBOT_MOVE_COMMAND__COMMAND_GLOBAL_VELOCITY)
        b->move.global_velocity = &b->global;
    else if (kind == ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY)
        b->move.wheel_velocity = &b->wheels;
    b->cmd.move_command = &b->move;
}

void
sim_msg_local (sim_msg_robot_cmd_t *b, double forward, double left, double angular)
{
    b->local.forward = (float) forward;
    b->local.left = (float) left;
    b->local.angular = (float) angular;
    s_move (b, ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY);
}

void
sim_msg_global (sim_msg_robot_cmd_t *b, double x, double y, double angular)
{
    b->global.x = (float) x;
    b->global.y = (float) y;
    b->global.angular = (float) angular;
    s_move (b, ROBOT_MOVE_COMMAND__COMMAND_GLOBAL_VELOCITY);
}

void
sim_msg_wheels (sim_msg_robot_cmd_t *b, double front_right, double back_right, double back_left,
                double front_left)
{
    b->wheels.front_right = (float) front_right;
    b->wheels.back_right = (float) back_right;
    b->wheels.back_left = (float) back_left;
    b->wheels.front_left = (float) front_left;
    s_move (b, ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY);
}
