/*  sslsim_task.c - tasks for learning (sslsim.h): a task's reset
    distribution, reward and termination, computed in C so a batch's step
    needs no Python per world.

    go_to_ball: one robot alone on the field drives to the ball and faces
    it. The reward is the progress of the step (distance and heading), so
    its sum over an episode telescopes to how much nearer the robot ended
    than it began, plus a bonus on success; docs/embedding.md gives the
    formula. Each slot keeps the previous step's distance and heading error.

    The reset's draws come from a stream seeded by the episode's seed
    alone, so an episode does not depend on which slot, batch or thread
    runs it.
*/
#include "sslsim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_rng.h"

/* the random stream of a task's reset: apart from the simulator's own */
#define SSLSIM_TASK_STREAM 0x5441534bull

typedef struct {
    double distance, heading; /* after the last step (or the reset) */
} s_progress_t;

struct sslsim_task_t {
    int team, id, slots;
    s_progress_t *last;
    double half_length, half_width; /* m, of the field at the last reset */
};

double
sslsim_task_constant (const char *task, const char *name)
{
    static const struct {
        const char *name;
        double value;
    } go_to_ball[] = {
        { "distance", SSLSIM_GO_TO_BALL_DISTANCE }, { "angle", SSLSIM_GO_TO_BALL_ANGLE },
        { "bonus", SSLSIM_GO_TO_BALL_BONUS },       { "out", SSLSIM_GO_TO_BALL_OUT },
        { "turn", SSLSIM_GO_TO_BALL_TURN },         { "margin", SSLSIM_GO_TO_BALL_MARGIN },
        { "apart", SSLSIM_GO_TO_BALL_APART },
    };
    if (task && name && !strcmp (task, "go_to_ball"))
        for (size_t i = 0; i < sizeof go_to_ball / sizeof go_to_ball[0]; i++)
            if (!strcmp (go_to_ball[i].name, name))
                return go_to_ball[i].value;
    return NAN;
}

sslsim_task_t *
sslsim_task_new (const char *name, int team, int id, int slots, char *err, size_t err_len)
{
    char scratch[160];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    if (!name || strcmp (name, "go_to_ball") != 0) {
        snprintf (err, err_len, "no task %s%s%s (tasks: go_to_ball)", name ? "\"" : "", name ? name : "NULL",
                  name ? "\"" : "");
        return NULL;
    }
    if ((team != 0 && team != 1) || id < 0 || id > 15 || slots < 1 || slots > 65536) {
        snprintf (err, err_len,
                  "task robot (team %d, id %d) with %d slots: team 0/1, id 0..15, 1..65536 slots", team, id,
                  slots);
        return NULL;
    }
    sslsim_task_t *self = calloc (1, sizeof *self);
    if (self)
        self->last = calloc ((size_t) slots, sizeof *self->last);
    if (!self || !self->last) {
        free (self);
        snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->team = team;
    self->id = id;
    self->slots = slots;
    return self;
}

void
sslsim_task_free (sslsim_task_t *task)
{
    if (!task)
        return;
    free (task->last);
    free (task);
}

/* The task robot's distance to the ball and heading error (rad, 0..pi);
   false when the robot is not on the field. */
static bool
s_measure (const sslsim_task_t *self, const sslsim_truth_t *t, s_progress_t *out)
{
    for (int k = 0; k < t->robot_count; k++) {
        const sslsim_truth_robot_t *r = &t->robots[k];
        if (r->team != self->team || r->id != self->id)
            continue;
        double dx = t->ball[0] - r->x, dy = t->ball[1] - r->y;
        out->distance = hypot (dx, dy);
        out->heading = fabs (remainder (atan2 (dy, dx) - r->orientation, 2 * M_PI));
        return true;
    }
    return false;
}

sslsim_status_t
sslsim_task_reset (sslsim_task_t *task, int slot, sslsim_world_t *world, uint64_t seed)
{
    if (!task || !world || slot < 0 || slot >= task->slots)
        return SSLSIM_EINVAL;
    sslsim_status_t rc = sslsim_world_reset (world, seed);
    if (rc)
        return rc;
    sslsim_limits_t lim;
    sslsim_world_limits (world, &lim);
    task->half_length = lim.field_length / 2;
    task->half_width = lim.field_width / 2;
    sim_rng_t rng;
    /* keyed: nearby seeds (world k's is the batch's plus k) start far apart */
    sim_rng_seed_keyed (&rng, seed, SSLSIM_TASK_STREAM, 0, 0);
    double hx = lim.field_length / 2 - SSLSIM_GO_TO_BALL_MARGIN;
    double hy = lim.field_width / 2 - SSLSIM_GO_TO_BALL_MARGIN;
    double rx = sim_rng_uniform (&rng, -hx, hx), ry = sim_rng_uniform (&rng, -hy, hy);
    double ro = sim_rng_uniform (&rng, -M_PI, M_PI);
    double bx = 0, by = 0;
    /* the ball anywhere at least APART from the robot: a few draws, then
       the field's centre mirrored away from the robot (always far enough
       on a field of the league's sizes) */
    int tries = 0;
    for (; tries < 32; tries++) {
        bx = sim_rng_uniform (&rng, -hx, hx);
        by = sim_rng_uniform (&rng, -hy, hy);
        if (hypot (bx - rx, by - ry) >= SSLSIM_GO_TO_BALL_APART)
            break;
    }
    if (tries == 32) {
        bx = rx > 0 ? rx - 1.0 : rx + 1.0;
        by = ry;
    }
    sslsim_truth_t t;
    sslsim_world_truth (world, &t);
    for (int k = 0; k < t.robot_count; k++)
        if (t.robots[k].team != task->team || t.robots[k].id != task->id)
            sslsim_world_teleport_robot (world, t.robots[k].team, t.robots[k].id, 0, 0, 0, 0);
    sslsim_world_teleport_robot (world, task->team, task->id, rx, ry, ro, 1);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    sslsim_world_truth (world, &t);
    if (!s_measure (task, &t, &task->last[slot]))
        task->last[slot] = (s_progress_t) { 0, 0 };
    return SSLSIM_OK;
}

void
sslsim_task_evaluate (sslsim_task_t *task, int slot, const sslsim_world_t *world, float *reward,
                      uint8_t *terminated)
{
    *reward = 0.0f;
    *terminated = 0;
    if (!task || !world || slot < 0 || slot >= task->slots)
        return;
    sslsim_truth_t t;
    sslsim_world_truth (world, &t);
    sslsim_task_evaluate_with (task, slot, &t, reward, terminated);
}

void
sslsim_task_evaluate_with (sslsim_task_t *task, int slot, const sslsim_truth_t *t, float *reward,
                           uint8_t *terminated)
{
    *reward = 0.0f;
    *terminated = 0;
    s_progress_t now;
    if (!s_measure (task, t, &now)) {
        *terminated = 1; /* the robot was taken off the field: nothing left to learn */
        return;
    }
    s_progress_t *last = &task->last[slot];
    double r = (last->distance - now.distance) + SSLSIM_GO_TO_BALL_TURN * (last->heading - now.heading);
    *last = now;
    if (now.distance <= SSLSIM_GO_TO_BALL_DISTANCE && now.heading <= SSLSIM_GO_TO_BALL_ANGLE) {
        r += SSLSIM_GO_TO_BALL_BONUS;
        *terminated = 1;
    } else if (fabs (t->ball[0]) > task->half_length || fabs (t->ball[1]) > task->half_width) {
        r += SSLSIM_GO_TO_BALL_OUT;
        *terminated = 1;
    }
    *reward = (float) r;
}

int
sslsim_task_slots (const sslsim_task_t *task)
{
    return task ? task->slots : 0;
}
