/*  grs_translate.h - what a grSim_Packet asks of physics (protocol.md §9):
    its commands become a team's RobotControl, its replacement a
    SimulatorCommand of teleports, each a bus request.

    grSim's commands name their team with `isteamyellow`; a robot's move is
    either its local velocity (veltangent forward, velnormal left) or its
    four wheel speeds in rad/s (wheel1..4: front-left, back-left,
    back-right, front-right), which the team's wheel radius turns into
    m/s; kickspeedx and kickspeedz give the kick's speed and elevation in
    degrees; the spinner runs the dribbler at the team's top speed. A
    replacement's robot turns `dir` (degrees) into an orientation in
    radians, stands still, and is present unless `turnon` says otherwise.
    Robot ids pass as they came: physics refuses one above
    SIM_MAX_ROBOT_ID as it does on the protocol ports (a clamp would move
    robot 255 instead), and a packet gives at most GRS_MAX_COMMANDS robots
    of each kind: no count from the wire can reach past an array.

    Pure: no socket, no clock, no log, no state. The legacy-grsim actor
    (grs_service.c) and the fuzz harness (tests/fuzz/fuzz_grsim.c) call the
    same functions, so what is fuzzed is what runs.
*/
#ifndef GRS_TRANSLATE_H_INCLUDED
#define GRS_TRANSLATE_H_INCLUDED

#include "common/base/sim_params.h"
#include "common/config/sim_config.h"
#include "bus/sim_bus.pb-c.h"
#include "grSim_Packet.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

#define GRS_MAX_COMMANDS 256 /* robot commands, and replaced robots, taken per packet */

/* A team's commands as a bus request, and the storage it points into.
   Large (tens of kB): keep one where it can live, not on a small stack. */
typedef struct {
    Simbus__Request req;
    Simbus__TeamControl team;
    RobotControl control;
    RobotCommand items[GRS_MAX_COMMANDS];
    RobotCommand *ptrs[GRS_MAX_COMMANDS];
    RobotMoveCommand moves[GRS_MAX_COMMANDS];
    MoveLocalVelocity locals[GRS_MAX_COMMANDS];
    MoveWheelVelocity wheels[GRS_MAX_COMMANDS];
} grs_commands_t;

/* A replacement as a bus request, and the storage it points into. */
typedef struct {
    Simbus__Request req;
    SimulatorCommand command;
    SimulatorControl control;
    TeleportBall ball;
    TeleportRobot items[GRS_MAX_COMMANDS];
    TeleportRobot *ptrs[GRS_MAX_COMMANDS];
    RobotId ids[GRS_MAX_COMMANDS];
} grs_replacement_t;

/* The team whose robots `cmds` commands. */
sim_team_t grs_translate_team (const GrSimCommands *cmds);

/* `cmds` as a bus request in self->req (id 0, no source: the sender's to
   set), with the robot specs of `cfg` for its team. self->req points into
   *self and borrows nothing from `cmds`. Returns the team. */
sim_team_t grs_translate_commands (grs_commands_t *self, const GrSimCommands *cmds, const sim_config_t *cfg);

/* `rep` as a bus request in self->req (id 0, no source): the ball's
   teleport when the replacement has a ball, and each robot's. self->req
   points into *self and borrows nothing from `rep`. */
void grs_translate_replacement (grs_replacement_t *self, const GrSimReplacement *rep);

#endif
