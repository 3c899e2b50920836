/*  vw_commands.c - the last command of each robot (vw_commands.h). */
#include "vw_commands.h"

#include <string.h>

#include "common/base/sim_team.h"
#include "engine/world/phys_apply.h"

void
vw_commands_take (vw_commands_t *self, const Simbus__Commands *msg)
{
    const Simbus__TeamControl *tc = msg->control;
    if (!tc || !tc->control || tc->team > 1)
        return;
    sim_team_t team = sim_team_from_number (tc->team);
    self->seq++;
    for (size_t i = 0; i < tc->control->n_robot_commands; i++) {
        const RobotCommand *rc = tc->control->robot_commands[i];
        if (rc->id > SIM_MAX_ROBOT_ID)
            continue;
        int k = (int) team * (SIM_MAX_ROBOT_ID + 1) + (int) rc->id;
        vw_command_t *c = &self->slot[k];
        if (c->count == 0)
            self->used[self->n_used++] = k;
        uint64_t count = c->count + 1;
        *c = (vw_command_t) { .team = team, .id = (int) rc->id, .seq = self->seq, .count = count };
        c->t = (double) msg->time_ns / 1e9;
        phys_apply_robot_command_of (rc, &c->cmd);
        c->has_kick_speed = rc->has_kick_speed;
        c->has_kick_angle = rc->has_kick_angle;
        c->has_dribbler = rc->has_dribbler_speed;
        for (size_t f = 0; f < msg->n_feedback; f++)
            if (msg->feedback[f]->id == rc->id && msg->feedback[f]->has_dribbler_ball_contact) {
                c->has_contact = true;
                c->contact = msg->feedback[f]->dribbler_ball_contact;
            }
    }
}

int
vw_commands_since (const vw_commands_t *self, uint64_t since, const vw_command_t **out)
{
    int n = 0;
    for (int i = 0; i < self->n_used; i++)
        if (self->slot[self->used[i]].seq > since)
            out[n++] = &self->slot[self->used[i]];
    return n;
}

void
vw_commands_forget (vw_commands_t *self)
{
    memset (self, 0, sizeof *self);
}
