/*  vw_commands.h - what each robot was told: the Commands physics
    publishes (each team's RobotControl as applied, and the feedback sent
    back) kept per robot, newest only, for the page's inspector
    (docs/viewer.md "Inspector"). Physics sends them only while the
    viewer subscribes, which it does only while a page watches
    (vw_pages_watch), so an unwatched simulator sends none.

    Nothing from the wire is trusted: ids above SIM_MAX_ROBOT_ID and teams
    other than blue and yellow are dropped. Runs on the actor's thread.
*/
#ifndef VW_COMMANDS_H_INCLUDED
#define VW_COMMANDS_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_params.h"
#include "common/bus/sim_bus.h"
#include "vw_json.h"

#define VW_COMMAND_SLOTS (2 * (SIM_MAX_ROBOT_ID + 1))

typedef struct {
    uint64_t seq;                        /* Commands messages taken */
    vw_command_t slot[VW_COMMAND_SLOTS]; /* [team * 256 + id] */
    int n_used;
    int used[VW_COMMAND_SLOTS]; /* slots that ever held a command, in arrival order */
} vw_commands_t;

/* Take one Commands message. */
void vw_commands_take (vw_commands_t *self, const Simbus__Commands *msg);

/* The robots whose command came after seq `since`, into out (room for
   VW_COMMAND_SLOTS). Returns how many. */
int vw_commands_since (const vw_commands_t *self, uint64_t since, const vw_command_t **out);

/* Forget everything (no page watches). */
void vw_commands_forget (vw_commands_t *self);

#endif
