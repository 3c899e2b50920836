/*  phys_apply_internal.h - what the parts of the physics service's edge
    (phys_apply.c, phys_apply_realism.c, phys_apply_teleport.c) share;
    not for other files.
*/
#ifndef PHYS_APPLY_INTERNAL_H_INCLUDED
#define PHYS_APPLY_INTERNAL_H_INCLUDED

#include <stdbool.h>

#include "common/base/sim_team.h"
#include "phys_apply.h"

/* Whether an Any's type URL names `type` (its last '/' segment, or that
   segment's last '.' part). */
bool phys_apply_any_is (const char *url, const char *type);

/* Add `what` to errors with err's code, unless err is PHYS_OK. */
void phys_apply_report (sim_errors_t *errors, phys_err_t err, const char *what);

/* Whether a RobotId names a team and an id <= 255: into *team and *id,
   or an UNSUPPORTED error in errors and false. */
bool phys_apply_robot_id (const RobotId *rid, sim_team_t *team, unsigned *id, sim_errors_t *errors);

/* Apply a SimulatorControl's ball teleport, or a robot's, to the world;
   a refusal names what is missing or which coordinate is no number
   (phys_apply_teleport.c). */
void phys_apply_teleport_ball (phys_world_t *world, const TeleportBall *tb, sim_errors_t *errors);
void phys_apply_teleport_robot (phys_world_t *world, const TeleportRobot *tr, sim_errors_t *errors);

/* clang-format off */
#define SET_IF(has, dst, src) do { if (has) { (dst) = (src); } } while (0)
/* clang-format on */

#endif
