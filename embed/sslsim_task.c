/*  sslsim_task.c - tasks for learning (sslsim.h): the table of tasks by
    name, a task's life, its reset and its step's judgement, computed in C
    so a batch's step needs no Python per world; and the geometry the
    tasks share. The tasks themselves are in sslsim_task_drill.c (one
    team's exercises) and sslsim_task_game.c (keep-away, full games);
    docs/embedding.md, "Tasks", gives every formula.

    The reset's draws come from a stream seeded by the episode's seed
    alone, so an episode does not depend on which slot, batch or thread
    runs it; a task that places things during an episode (a kick-off after
    a goal) draws from the same stream, kept in its slot.
*/
#include "sslsim_task_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_field.h"

/* the random stream of a task's reset: apart from the simulator's own */
#define SSLSIM_TASK_STREAM 0x5441534bull

static const sslsim_task_kind_t *const s_kinds[] = {
    &sslsim_task_go_to_ball,   &sslsim_task_shoot,   &sslsim_task_dribble,
    &sslsim_task_pass,         &sslsim_task_penalty, &sslsim_task_keepaway_1v1,
    &sslsim_task_keepaway_2v2, &sslsim_task_game_b,  &sslsim_task_game_a,
};
#define S_KINDS ((int) (sizeof s_kinds / sizeof s_kinds[0]))

static const sslsim_task_kind_t *
s_kind (const char *name)
{
    for (int i = 0; name && i < S_KINDS; i++)
        if (!strcmp (s_kinds[i]->name, name))
            return s_kinds[i];
    return NULL;
}

const char *
sslsim_task_name (int i)
{
    return i >= 0 && i < S_KINDS ? s_kinds[i]->name : NULL;
}

const char *const *
sslsim_task_flags (const char *name)
{
    const sslsim_task_kind_t *kind = s_kind (name);
    return kind ? kind->flags : NULL;
}

double
sslsim_task_constant (const char *task, const char *name)
{
    const sslsim_task_kind_t *kind = s_kind (task);
    for (int i = 0; kind && name && i < 12 && kind->constants[i].name; i++)
        if (!strcmp (kind->constants[i].name, name))
            return kind->constants[i].value;
    return NAN;
}

const char *
sslsim_task_constant_name (const char *task, int i)
{
    const sslsim_task_kind_t *kind = s_kind (task);
    return kind && i >= 0 && i < 12 ? kind->constants[i].name : NULL;
}

/* The scene's robots of a task for (team, id): driven first. */
static int
s_cast (sslsim_task_t *self, char *err, size_t err_len)
{
    const char *n = self->kind->name;
    int team = self->team, other = 1 - team, id = self->id, count = 0, driven = 0;
#define S_ADD(tm, i) \
    do { \
        self->teams[count] = (tm); \
        self->ids[count++] = (i); \
    } while (0)
    if (!strcmp (n, "pass") || !strcmp (n, "keepaway_2v2")) {
        if (id > 14) {
            snprintf (err, err_len, "task %s needs robot ids id and id + 1: id 0..14, not %d", n, id);
            return -1;
        }
    }
    if (!strncmp (n, "game_", 5)) {
        int per_team = !strcmp (n, "game_a") ? 11 : 6;
        for (int i = 0; i < per_team; i++)
            S_ADD (team, i);
        driven = per_team;
        for (int i = 0; i < per_team; i++)
            S_ADD (other, i);
    } else if (!strcmp (n, "penalty")) {
        S_ADD (team, id);
        S_ADD (other, 0); /* the keeper */
        driven = 1;
    } else if (!strcmp (n, "pass")) {
        S_ADD (team, id);
        S_ADD (team, id + 1);
        driven = 2;
    } else if (!strcmp (n, "keepaway_1v1")) {
        S_ADD (team, id);
        S_ADD (other, id);
        driven = 1;
    } else if (!strcmp (n, "keepaway_2v2")) {
        S_ADD (team, id);
        S_ADD (team, id + 1);
        S_ADD (other, id);
        S_ADD (other, id + 1);
        driven = 2;
    } else {
        S_ADD (team, id);
        driven = 1;
    }
#undef S_ADD
    self->robot_count = count;
    self->driven = driven;
    return 0;
}

sslsim_task_t *
sslsim_task_new (const char *name, int team, int id, int slots, char *err, size_t err_len)
{
    char scratch[200];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    const sslsim_task_kind_t *kind = s_kind (name);
    if (!kind) {
        int at = snprintf (err, err_len, "no task %s%s%s (tasks:", name ? "\"" : "", name ? name : "NULL",
                           name ? "\"" : "");
        for (int i = 0; i < S_KINDS && at > 0 && (size_t) at < err_len; i++)
            at += snprintf (err + at, err_len - (size_t) at, "%s %s", i ? "," : "", s_kinds[i]->name);
        if (at > 0 && (size_t) at < err_len)
            snprintf (err + at, err_len - (size_t) at, ")");
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
        self->slot = calloc ((size_t) slots, sizeof *self->slot);
    if (!self || !self->slot) {
        free (self);
        snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->kind = kind;
    self->team = team;
    self->id = id;
    self->slots = slots;
    if (s_cast (self, err, err_len) < 0) {
        sslsim_task_free (self);
        return NULL;
    }
    return self;
}

void
sslsim_task_free (sslsim_task_t *task)
{
    if (!task)
        return;
    free (task->slot);
    free (task);
}

int
sslsim_task_robots (const sslsim_task_t *task, int *teams, int *ids, int max, int *driven)
{
    if (!task)
        return 0;
    for (int i = 0; i < task->robot_count && i < max; i++) {
        if (teams)
            teams[i] = task->teams[i];
        if (ids)
            ids[i] = task->ids[i];
    }
    if (driven)
        *driven = task->driven;
    return task->robot_count;
}

int
sslsim_task_obs_size (const sslsim_task_t *task)
{
    return task ? task->kind->extras : 0;
}

void
sslsim_task_obs_bounds (const sslsim_task_t *task, const sslsim_limits_t *limits, float *low, float *high)
{
    if (!task || !limits || !low || !high)
        return;
    /* points on the field */
    for (int i = 0; i < task->kind->extras; i++) {
        double half = (i % 2 ? limits->field_width : limits->field_length) / 2;
        low[i] = (float) -half;
        high[i] = (float) half;
    }
}

void
sslsim_task_observe (const sslsim_task_t *task, int slot, int frame, float *out)
{
    if (!task || slot < 0 || slot >= task->slots || !out)
        return;
    /* points: half a turn negates both coordinates (sslsim_obs_set_frame) */
    for (int i = 0; i < task->kind->extras; i++) {
        float v = (float) task->slot[slot].keep[i];
        out[i] = frame ? 0.0f - v : v;
    }
}

static void
s_field (const sslsim_world_t *world, int team, sslsim_task_field_t *out)
{
    sim_field_t f;
    sim_field_resolve (&world->cfg.field, world->cfg.run.division, &f);
    out->hl = f.length / 2;
    out->hw = f.width / 2;
    out->goal_w = f.goal_width;
    out->goal_h = f.goal_height;
    out->ball_r = world->cfg.ball.radius;
    out->area_depth = f.penalty_area_depth;
    out->area_width = f.penalty_area_width;
    out->mark = f.goal_center_to_penalty_mark;
    out->circle = f.center_circle_radius;
    out->seat = world->cfg.team[team].shoot_radius;
    out->attack = team == 0 ? 1 : -1;
}

sslsim_status_t
sslsim_task_reset (sslsim_task_t *task, int slot, sslsim_world_t *world, uint64_t seed)
{
    if (!task || !world || slot < 0 || slot >= task->slots)
        return SSLSIM_EINVAL;
    const char *const *flags = task->kind->flags;
    if (flags[0] && !strcmp (flags[0], "--division")) {
        sim_division_t want = !strcmp (flags[1], "a") ? SIM_DIVISION_A : SIM_DIVISION_B;
        if (world->base.run.division != want) {
            snprintf (world->last_error, sizeof world->last_error,
                      "task %s needs a Division %s world (make it with %s %s)", task->kind->name,
                      want == SIM_DIVISION_A ? "A" : "B", flags[0], flags[1]);
            return SSLSIM_ECONFIG;
        }
    }
    sslsim_status_t rc = sslsim_world_reset (world, seed);
    if (rc)
        return rc;
    sslsim_task_slot_t *s = &task->slot[slot];
    memset (s, 0, sizeof *s);
    s_field (world, task->team, &s->field);
    /* keyed: nearby seeds (world k's is the batch's plus k) start far apart */
    sim_rng_seed_keyed (&s->rng, seed, SSLSIM_TASK_STREAM, 0, 0);
    task->kind->scene (task, s, world, &s->rng);
    s->time_ns = sslsim_world_time_ns (world);
    s->started = true;
    return SSLSIM_OK;
}

void
sslsim_task_evaluate (sslsim_task_t *task, int slot, sslsim_world_t *world, float *reward,
                      uint8_t *terminated)
{
    float r = 0.0f;
    uint8_t done = 0;
    if (task && world && slot >= 0 && slot < task->slots) {
        sslsim_truth_t t;
        sslsim_world_truth (world, &t);
        sslsim_task_evaluate_with (task, slot, world, &t, &r, &done);
    }
    if (reward)
        *reward = r;
    if (terminated)
        *terminated = done;
}

bool
sslsim_task_evaluate_with (sslsim_task_t *task, int slot, sslsim_world_t *world, const sslsim_truth_t *t,
                           float *reward, uint8_t *terminated)
{
    sslsim_task_score_t score = { 0.0, false };
    sslsim_task_slot_t *s = &task->slot[slot];
    if (!s->started) {
        /* no episode to judge: its field and potential are not drawn yet
           (a game's rules would move the ball on a field of size 0) */
        *reward = 0.0f;
        *terminated = 0;
        return false;
    }
    bool moved = task->kind->score (task, s, world, t, &score);
    s->time_ns = t->time_ns;
    *reward = (float) score.reward;
    *terminated = score.terminated ? 1 : 0;
    return moved;
}

int
sslsim_task_slots (const sslsim_task_t *task)
{
    return task ? task->slots : 0;
}

bool
sslsim_task_started (const sslsim_task_t *task, int slot)
{
    return task && slot >= 0 && slot < task->slots && task->slot[slot].started;
}

/* ---- helpers ------------------------------------------------------------- */

const sslsim_truth_robot_t *
sslsim_task_robot (const sslsim_truth_t *t, int team, int id)
{
    for (int k = 0; k < t->robot_count; k++)
        if (t->robots[k].team == team && t->robots[k].id == id)
            return &t->robots[k];
    return NULL;
}

void
sslsim_task_clear (const sslsim_task_t *task, sslsim_world_t *world)
{
    sslsim_truth_t t;
    sslsim_world_truth (world, &t);
    for (int k = 0; k < t.robot_count; k++) {
        bool cast = false;
        for (int i = 0; i < task->robot_count && !cast; i++)
            cast = t.robots[k].team == task->teams[i] && t.robots[k].id == task->ids[i];
        if (!cast)
            sslsim_world_teleport_robot (world, t.robots[k].team, t.robots[k].id, 0, 0, 0, 0);
    }
}

void
sslsim_task_draw_near (sim_rng_t *rng, double cx, double cy, double lo, double hi, double ax, double ay,
                       double *x, double *y)
{
    for (int tries = 0; tries < 16; tries++) {
        double r = sim_rng_uniform (rng, lo, hi), a = sim_rng_uniform (rng, -M_PI, M_PI);
        *x = cx + r * cos (a);
        *y = cy + r * sin (a);
        if (fabs (*x) <= ax && fabs (*y) <= ay)
            return;
    }
    *x = fmax (-ax, fmin (ax, *x));
    *y = fmax (-ay, fmin (ay, *y));
}

bool
sslsim_task_in_goal (const sslsim_task_field_t *f, const double *ball, int side)
{
    return side * ball[0] > f->hl + f->ball_r && fabs (ball[1]) < f->goal_w / 2 && ball[2] < f->goal_h;
}

bool
sslsim_task_out (const sslsim_task_field_t *f, const double *ball)
{
    return fabs (ball[0]) > f->hl + f->ball_r || fabs (ball[1]) > f->hw + f->ball_r;
}

double
sslsim_task_bearing (double x, double y, double tx, double ty)
{
    return atan2 (ty - y, tx - x);
}

void
sslsim_task_place (sslsim_world_t *world, int team, int id, double x, double y, double bx, double by)
{
    sslsim_world_teleport_robot (world, team, id, x, y, sslsim_task_bearing (x, y, bx, by), 1);
}
