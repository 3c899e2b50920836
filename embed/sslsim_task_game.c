/*  sslsim_task_game.c - tasks with an opponent on the field (sslsim.h,
    docs/embedding.md "Tasks"): keep-away 1v1 and 2v2, and full games of
    6 a side (Division B) and 11 a side (Division A).

    A game's rules here are a task's, not a referee's: a goal scores +1 or
    -1 for the task's team and both teams go back to a kick-off formation,
    the team that conceded kicking off; a ball that leaves the field is put
    back inside at rest. Placements during an episode draw from the slot's
    stream (seeded by the episode's seed), so they are as deterministic as
    the reset. No fouls, no free-kick distances, no stop: the league's game
    controller referees a match over the network.
*/
#include "sslsim_task_internal.h"

#include <math.h>

/* ---- keep-away ---------------------------------------------------------- */

static void
s_keepaway_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    const sslsim_task_field_t *f = &s->field;
    double m = SSLSIM_KEEPAWAY_MARGIN;
    double bx = sim_rng_uniform (rng, -(f->hl - m), f->hl - m),
           by = sim_rng_uniform (rng, -(f->hw - m), f->hw - m);
    sslsim_task_clear (task, world);
    for (int i = 0; i < task->robot_count; i++) {
        double x, y;
        if (i == 0) { /* the holder: the ball at its dribbler */
            double a = sim_rng_uniform (rng, -M_PI, M_PI);
            x = bx - f->seat * cos (a);
            y = by - f->seat * sin (a);
        } else {
            sslsim_task_draw_near (rng, bx, by, SSLSIM_KEEPAWAY_MIN, SSLSIM_KEEPAWAY_MAX, f->hl - 0.3,
                                   f->hw - 0.3, &x, &y);
        }
        sslsim_task_place (world, task->teams[i], task->ids[i], x, y, bx, by);
    }
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
}

/* RATE per second while the ball is kept; LOST when an opponent's
   break-beam sees it or it leaves the field. */
static bool
s_keepaway_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
                  const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    bool lost = sslsim_task_out (&s->field, t->ball);
    for (int i = task->driven; i < task->robot_count && !lost; i++) {
        const sslsim_truth_robot_t *r = sslsim_task_robot (t, task->teams[i], task->ids[i]);
        lost = r && r->ball_contact;
    }
    if (lost) {
        out->reward = SSLSIM_KEEPAWAY_LOST;
        out->terminated = true;
    } else {
        out->reward = SSLSIM_KEEPAWAY_RATE * (double) (t->time_ns - s->time_ns) * 1e-9;
    }
    return false;
}

#define S_KEEPAWAY \
    { "rate", SSLSIM_KEEPAWAY_RATE }, { "lost", SSLSIM_KEEPAWAY_LOST }, { "min", SSLSIM_KEEPAWAY_MIN }, \
        { "max", SSLSIM_KEEPAWAY_MAX }, \
    { \
        "margin", SSLSIM_KEEPAWAY_MARGIN \
    }

const sslsim_task_kind_t sslsim_task_keepaway_1v1 = {
    .name = "keepaway_1v1",
    .scene = s_keepaway_scene,
    .score = s_keepaway_score,
    .constants = { S_KEEPAWAY },
};

const sslsim_task_kind_t sslsim_task_keepaway_2v2 = {
    .name = "keepaway_2v2",
    .scene = s_keepaway_scene,
    .score = s_keepaway_score,
    .constants = { S_KEEPAWAY },
};

/* ---- full games --------------------------------------------------------- */

/* Whether (x, y) is a free spot of team `own_side`'s half for a field
   player: outside the centre circle and the defense area, SEPARATION
   from the robots placed so far. */
static bool
s_free (const sslsim_task_field_t *f, double x, double y, const double *placed, int n)
{
    if (hypot (x, y) < f->circle + SSLSIM_GAME_CLEAR)
        return false;
    if (fabs (x) > f->hl - f->area_depth - SSLSIM_GAME_CLEAR
        && fabs (y) < f->area_width / 2 + SSLSIM_GAME_CLEAR)
        return false;
    for (int i = 0; i < n; i++)
        if (hypot (x - placed[2 * i], y - placed[2 * i + 1]) < SSLSIM_GAME_SEPARATION)
            return false;
    return true;
}

/* The kick-off formation: the ball at rest on the centre mark; each team
   in its own half (blue's at -x), its robot 0 the keeper on its goal
   line, the others spread at random outside the centre circle and the
   defense area; the kicking team's robot 1 just behind the ball. */
static void
s_kickoff (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, int kicking)
{
    const sslsim_task_field_t *f = &s->field;
    sim_rng_t *rng = &s->rng;
    int per_team = task->driven;
    double placed[2 * SSLSIM_TASK_MAX_ROBOTS];
    int n = 0;
    for (int team = 0; team < 2; team++) {
        double side = team == 0 ? -1.0 : 1.0; /* where its own goal is */
        double ahead = team == 0 ? 0.0 : M_PI;
        for (int id = 0; id < per_team; id++) {
            double x, y, o = ahead + sim_rng_uniform (rng, -M_PI / 4, M_PI / 4);
            if (id == 0) {
                x = side * (f->hl - SSLSIM_GAME_KEEPER);
                y = sim_rng_uniform (rng, -f->goal_w / 4, f->goal_w / 4);
            } else if (id == 1 && team == kicking) {
                x = side * SSLSIM_GAME_KICKER;
                y = 0.0;
                o = ahead;
            } else {
                int tries = 0;
                do {
                    x = side * sim_rng_uniform (rng, SSLSIM_GAME_CLEAR, f->hl - SSLSIM_GAME_CLEAR);
                    y = sim_rng_uniform (rng, -(f->hw - SSLSIM_GAME_CLEAR), f->hw - SSLSIM_GAME_CLEAR);
                } while (!s_free (f, x, y, placed, n) && ++tries < 64);
            }
            placed[2 * n] = x;
            placed[2 * n + 1] = y;
            n++;
            sslsim_world_teleport_robot (world, team, id, x, y, o, 1);
        }
    }
    sslsim_world_teleport_ball (world, 0, 0, 0, 0);
}

static void
s_game_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    sslsim_task_clear (task, world);
    int kicking = sim_rng_uniform01 (rng) < 0.5 ? 0 : 1;
    s_kickoff (task, s, world, kicking);
}

/* The ball back inside at rest where it left, INSET from the lines;
   robots on that spot moved CLEAR away from it. */
static void
s_put_back (const sslsim_task_field_t *f, sslsim_world_t *world, const sslsim_truth_t *t)
{
    double lx = f->hl - SSLSIM_GAME_INSET, ly = f->hw - SSLSIM_GAME_INSET;
    double x = fmax (-lx, fmin (lx, t->ball[0])), y = fmax (-ly, fmin (ly, t->ball[1]));
    for (int k = 0; k < t->robot_count; k++) {
        const sslsim_truth_robot_t *r = &t->robots[k];
        double dx = r->x - x, dy = r->y - y, d = hypot (dx, dy);
        if (d >= SSLSIM_GAME_CLEAR)
            continue;
        if (d < 1e-6) { /* on the spot: towards the centre */
            dx = -x;
            dy = -y;
            d = fmax (hypot (dx, dy), 1e-6);
        }
        sslsim_world_teleport_robot (world, r->team, r->id, x + dx / d * SSLSIM_GAME_CLEAR,
                                     y + dy / d * SSLSIM_GAME_CLEAR, r->orientation, 1);
    }
    sslsim_world_teleport_ball (world, x, y, 0, 0);
}

/* A goal: +-GOAL for the task's team, and a kick-off for the team that
   conceded; out: the ball put back. Never terminated. */
static bool
s_game_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
              const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    const sslsim_task_field_t *f = &s->field;
    int scorer = sslsim_task_in_goal (f, t->ball, 1) ? 0 : sslsim_task_in_goal (f, t->ball, -1) ? 1 : -1;
    if (scorer >= 0) {
        out->reward = scorer == task->team ? SSLSIM_GAME_GOAL : -SSLSIM_GAME_GOAL;
        s_kickoff (task, s, world, 1 - scorer);
        return true;
    }
    if (sslsim_task_out (f, t->ball)) {
        s_put_back (f, world, t);
        return true;
    }
    return false;
}

#define S_GAME \
    { "goal", SSLSIM_GAME_GOAL }, { "inset", SSLSIM_GAME_INSET }, { "clear", SSLSIM_GAME_CLEAR }, \
        { "separation", SSLSIM_GAME_SEPARATION }, { "keeper", SSLSIM_GAME_KEEPER }, \
    { \
        "kicker", SSLSIM_GAME_KICKER \
    }

const sslsim_task_kind_t sslsim_task_game_b = {
    .name = "game_b",
    .flags = { "--division", "b", NULL },
    .scene = s_game_scene,
    .score = s_game_score,
    .constants = { S_GAME, { "robots", 6 } },
};

const sslsim_task_kind_t sslsim_task_game_a = {
    .name = "game_a",
    .flags = { "--division", "a", NULL },
    .scene = s_game_scene,
    .score = s_game_score,
    .constants = { S_GAME, { "robots", 11 } },
};
