/*  sim_msg.h - builders for the league messages tests send: teleports,
    geometry and robot moves wrapped in their SimulatorCommand or
    RobotControl, with all storage in the caller's struct (no allocation,
    nothing to free), so a test sets only the fields it is about. Used by
    the unit tests of the physics edge and by the system tests alike.
*/
#ifndef SIM_MSG_H_INCLUDED
#define SIM_MSG_H_INCLUDED

#include <stdint.h>

#include "google/protobuf/any.pb-c.h"
#include "ssl_simulation_config.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

/* Teams as the builders take them; SIM_MSG_NO_TEAM leaves it unset. */
#define SIM_MSG_BLUE    0
#define SIM_MSG_YELLOW  1
#define SIM_MSG_NO_TEAM (-1)

typedef struct {
    SimulatorControl control;
    SimulatorCommand cmd;
} sim_msg_control_t;

/* A SimulatorCommand with an empty b->control. Returns &b->cmd. */
SimulatorCommand *sim_msg_control (sim_msg_control_t *b);

typedef struct {
    SimulatorConfig config;
    SimulatorCommand cmd;
} sim_msg_config_t;

/* A SimulatorCommand with an empty b->config. Returns &b->cmd. */
SimulatorCommand *sim_msg_config (sim_msg_config_t *b);

typedef struct {
    uint8_t inner[128];
    Google__Protobuf__Any any;
    Google__Protobuf__Any *anys[2];
    RealismConfig realism;
    sim_msg_config_t config;
} sim_msg_preset_t;

/* A SimulatorCommand whose config.realism_config holds one entry:
   ssl-sim's RealismPreset `name` (NULL: no name), what the viewer's
   realism op sends. A second entry goes in b->anys[1] (the caller's,
   with b->realism.n_custom = 2). Returns &b->config.cmd. */
SimulatorCommand *sim_msg_realism_preset (sim_msg_preset_t *b, const char *name);

typedef struct {
    RobotId rid;
    TeleportRobot tr;
    TeleportRobot *ptr;
    SimulatorControl control;
    SimulatorCommand cmd;
} sim_msg_robot_tp_t;

/* A SimulatorCommand teleporting robot `id` of `team` (b->tr has no
   other field set). Returns &b->cmd. */
SimulatorCommand *sim_msg_robot_tp (sim_msg_robot_tp_t *b, int team, unsigned id);

/* Set a teleport's x and y (m). */
void sim_msg_robot_xy (TeleportRobot *tr, double x, double y);

/* Set a teleport's x, y (m) and orientation (rad), at rest. */
void sim_msg_robot_pose (TeleportRobot *tr, double x, double y, double orientation);

typedef struct {
    RobotId rid;
    RobotSpecs spec;
    RobotSpecs *ptr;
    SimulatorConfig config;
    SimulatorCommand cmd;
} sim_msg_specs_t;

/* A SimulatorCommand whose configuration carries robot specs for robot
   `id` of `team` (b->spec has no other field set). Returns &b->cmd. */
SimulatorCommand *sim_msg_specs (sim_msg_specs_t *b, int team, unsigned id);

typedef struct {
    TeleportBall tb;
    SimulatorControl control;
    SimulatorCommand cmd;
} sim_msg_ball_tp_t;

/* A SimulatorCommand with an empty ball teleport in b->tb. Returns &b->cmd. */
SimulatorCommand *sim_msg_ball_tp (sim_msg_ball_tp_t *b);

typedef struct {
    SSLGeometryFieldSize field;
    SSLGeometryData geometry;
    SimulatorConfig config;
    SimulatorCommand cmd;
} sim_msg_field_t;

/* A SimulatorCommand whose configuration carries field sizes (mm, as on
   the wire). Returns &b->cmd. */
SimulatorCommand *sim_msg_field (sim_msg_field_t *b, int length, int width, int goal_width, int goal_depth,
                                 int boundary_width);

typedef struct {
    MoveLocalVelocity local;
    MoveGlobalVelocity global;
    MoveWheelVelocity wheels;
    RobotMoveCommand move;
    RobotCommand cmd;
    RobotCommand *ptr;
    RobotControl rc;
} sim_msg_robot_cmd_t;

/* A RobotControl of one command for robot `id`, without a move (b->cmd
   is the command, for controls of several). Returns &b->rc. */
RobotControl *sim_msg_robot_cmd (sim_msg_robot_cmd_t *b, unsigned id);

/* Give the command a move: local (m/s, m/s, rad/s), global (the same in
   the field frame) or wheel velocities (m/s, protocol order). */
void sim_msg_local (sim_msg_robot_cmd_t *b, double forward, double left, double angular);
void sim_msg_global (sim_msg_robot_cmd_t *b, double x, double y, double angular);
void sim_msg_wheels (sim_msg_robot_cmd_t *b, double front_right, double back_right, double back_left,
                     double front_left);

#endif
