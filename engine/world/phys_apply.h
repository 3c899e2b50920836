/*  phys_apply.h - the physics service's edge: applies the league messages
    that arrive over the bus (SimulatorCommand, RobotControl) to the world
    and to the effective configuration, in protocol.md §4.1 order, and
    collects the protocol's errors. The pure core never sees protobuf.
*/
#ifndef PHYS_APPLY_H_INCLUDED
#define PHYS_APPLY_H_INCLUDED

#include <stdbool.h>

#include "common/config/sim_config.h"
#include "common/base/sim_errors.h"
#include "engine/physics/phys_world.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"

#define PHYS_FEEDBACK_MAX 512

/* What a command changed outside the world state. */
typedef struct {
    bool config; /* the effective configuration changed: republish */
    bool rig;    /* the camera rig was replaced (rig_generation bumped) */
} phys_changes_t;

/* RobotFeedback entries with storage inside (bounded, like sim_errors_t). */
typedef struct {
    size_t count;
    RobotFeedback items[PHYS_FEEDBACK_MAX];
    RobotFeedback *ptrs[PHYS_FEEDBACK_MAX];
} phys_feedback_t;

/* Apply a SimulatorCommand (protocol.md §4) to world and cfg; errors are
   appended; *changes says what else must happen. */
void phys_apply_command (phys_world_t *world, sim_config_t *cfg, const SimulatorCommand *cmd,
                         sim_errors_t *errors, phys_changes_t *changes);

/* One robot's command from the league's RobotCommand into *out: the one
   reading of its move (local, global or wheel velocities), kick and
   dribbler, absent fields as 0 (none). Pure; the viewer's inspector shows
   the same reading. */
void phys_apply_robot_command_of (const RobotCommand *rcmd, phys_command_t *out);

/* Apply a RobotControl for `team` (protocol.md §5): each command replaces
   its robot's; unknown ids are reported and the rest applies. Feedback is
   the break-beam state before the new commands act. */
void phys_apply_robot_control (phys_world_t *world, sim_team_t team, const RobotControl *rc,
                               sim_errors_t *errors, phys_feedback_t *feedback);

#endif
