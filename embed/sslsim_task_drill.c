/*  sslsim_task_drill.c - one team's exercises with the ball (sslsim.h,
    docs/embedding.md "Tasks"): go_to_ball, shoot, dribble, pass and
    penalty.

    Each but go_to_ball rewards progress of a potential, phi = -(APPROACH
    * the driven robot's distance to the ball + the ball's distance to
    where it must go), so an episode's rewards add up to how much nearer
    the goal the ball ended than it began (plus the bonus or the failure);
    go_to_ball keeps its own distance-and-heading progress. The slot keeps
    the last potential, and the task's own observation points (dribble's
    target, pass's receiving spot) in keep[].
*/
#include "sslsim_task_internal.h"

#include <math.h>

/* ---- go_to_ball --------------------------------------------------------- */

/* The robot's distance to the ball and heading error (rad, 0..pi); false
   when the robot is not on the field. */
static bool
s_approach (const sslsim_task_t *task, const sslsim_truth_t *t, double *distance, double *heading)
{
    const sslsim_truth_robot_t *r = sslsim_task_robot (t, task->team, task->id);
    if (!r)
        return false;
    double dx = t->ball[0] - r->x, dy = t->ball[1] - r->y;
    *distance = hypot (dx, dy);
    *heading = fabs (remainder (atan2 (dy, dx) - r->orientation, 2 * M_PI));
    return true;
}

static void
s_go_to_ball_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    double hx = s->field.hl - SSLSIM_GO_TO_BALL_MARGIN, hy = s->field.hw - SSLSIM_GO_TO_BALL_MARGIN;
    double rx = sim_rng_uniform (rng, -hx, hx), ry = sim_rng_uniform (rng, -hy, hy);
    double ro = sim_rng_uniform (rng, -M_PI, M_PI);
    double bx = 0, by = 0;
    /* the ball anywhere at least APART from the robot: a few draws, then
       the field's centre mirrored away from the robot (always far enough
       on a field of the league's sizes) */
    int tries = 0;
    for (; tries < 32; tries++) {
        bx = sim_rng_uniform (rng, -hx, hx);
        by = sim_rng_uniform (rng, -hy, hy);
        if (hypot (bx - rx, by - ry) >= SSLSIM_GO_TO_BALL_APART)
            break;
    }
    if (tries == 32) {
        bx = rx > 0 ? rx - 1.0 : rx + 1.0;
        by = ry;
    }
    sslsim_task_clear (task, world);
    sslsim_world_teleport_robot (world, task->team, task->id, rx, ry, ro, 1);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    sslsim_truth_t t;
    sslsim_world_truth (world, &t);
    if (!s_approach (task, &t, &s->keep[0], &s->keep[1]))
        s->keep[0] = s->keep[1] = 0;
}

static bool
s_go_to_ball_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
                    const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    double distance, heading;
    if (!s_approach (task, t, &distance, &heading)) {
        out->terminated = true; /* the robot was taken off the field: nothing left to learn */
        return false;
    }
    double r = (s->keep[0] - distance) + SSLSIM_GO_TO_BALL_TURN * (s->keep[1] - heading);
    s->keep[0] = distance;
    s->keep[1] = heading;
    if (distance <= SSLSIM_GO_TO_BALL_DISTANCE && heading <= SSLSIM_GO_TO_BALL_ANGLE) {
        r += SSLSIM_GO_TO_BALL_BONUS;
        out->terminated = true;
    } else if (fabs (t->ball[0]) > s->field.hl || fabs (t->ball[1]) > s->field.hw) {
        r += SSLSIM_GO_TO_BALL_OUT;
        out->terminated = true;
    }
    out->reward = r;
    return false;
}

const sslsim_task_kind_t sslsim_task_go_to_ball = {
    .name = "go_to_ball",
    .scene = s_go_to_ball_scene,
    .score = s_go_to_ball_score,
    .constants = { { "distance", SSLSIM_GO_TO_BALL_DISTANCE },
                   { "angle", SSLSIM_GO_TO_BALL_ANGLE },
                   { "bonus", SSLSIM_GO_TO_BALL_BONUS },
                   { "out", SSLSIM_GO_TO_BALL_OUT },
                   { "turn", SSLSIM_GO_TO_BALL_TURN },
                   { "margin", SSLSIM_GO_TO_BALL_MARGIN },
                   { "apart", SSLSIM_GO_TO_BALL_APART } },
};

/* ---- what the other drills share ----------------------------------------- */

/* The potential of robot r bringing the ball to (gx, gy). */
static double
s_potential (const sslsim_truth_robot_t *r, const sslsim_truth_t *t, double gx, double gy)
{
    double d_robot = hypot (t->ball[0] - r->x, t->ball[1] - r->y);
    return -(SSLSIM_TASK_APPROACH * d_robot + hypot (gx - t->ball[0], gy - t->ball[1]));
}

/* Progress of the potential since the last step, and the new one kept. */
static double
s_progress (sslsim_task_slot_t *s, double phi)
{
    double r = phi - s->phi;
    s->phi = phi;
    return r;
}

/* A step's outcome: the potential's progress, plus the bonus and the end
   on success, else the failure and the end on failure. */
static void
s_judge (sslsim_task_slot_t *s, double phi, bool success, bool failure, sslsim_task_score_t *out)
{
    out->reward = s_progress (s, phi);
    if (success || failure) {
        out->reward += success ? SSLSIM_TASK_BONUS : SSLSIM_TASK_FAIL;
        out->terminated = true;
    }
}

/* The first potential of the episode, after the scene is placed. */
static void
s_start (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, double gx, double gy)
{
    sslsim_truth_t t;
    sslsim_world_truth (world, &t);
    const sslsim_truth_robot_t *r = sslsim_task_robot (&t, task->team, task->id);
    s->phi = r ? s_potential (r, &t, gx, gy) : 0.0;
}

/* ---- shoot -------------------------------------------------------------- */

static void
s_shoot_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    const sslsim_task_field_t *f = &s->field;
    double m = SSLSIM_TASK_MARGIN;
    double bx = f->attack * sim_rng_uniform (rng, 0.0, f->hl - f->area_depth - SSLSIM_SHOOT_AREA_GAP);
    double by = sim_rng_uniform (rng, -(f->hw - m), f->hw - m);
    double rx, ry;
    sslsim_task_draw_near (rng, bx, by, SSLSIM_TASK_APART, SSLSIM_TASK_NEAR, f->hl - m, f->hw - m, &rx, &ry);
    double ro = sim_rng_uniform (rng, -M_PI, M_PI);
    sslsim_task_clear (task, world);
    sslsim_world_teleport_robot (world, task->team, task->id, rx, ry, ro, 1);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    s_start (task, s, world, f->attack * f->hl, 0.0);
}

/* Goal (bonus) into the attacked goal, out (failure) anywhere else;
   the potential's progress towards the goal's centre. */
static bool
s_shoot_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
               const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    const sslsim_task_field_t *f = &s->field;
    const sslsim_truth_robot_t *r = sslsim_task_robot (t, task->team, task->id);
    if (!r) {
        out->terminated = true;
        return false;
    }
    s_judge (s, s_potential (r, t, f->attack * f->hl, 0.0), sslsim_task_in_goal (f, t->ball, f->attack),
             sslsim_task_out (f, t->ball), out);
    return false;
}

#define S_COMMON \
    { "bonus", SSLSIM_TASK_BONUS }, { "fail", SSLSIM_TASK_FAIL }, { "approach", SSLSIM_TASK_APPROACH }, \
        { "margin", SSLSIM_TASK_MARGIN }, { "apart", SSLSIM_TASK_APART }, \
    { \
        "near", SSLSIM_TASK_NEAR \
    }

const sslsim_task_kind_t sslsim_task_shoot = {
    .name = "shoot",
    .scene = s_shoot_scene,
    .score = s_shoot_score,
    .constants = { S_COMMON, { "area_gap", SSLSIM_SHOOT_AREA_GAP } },
};

/* ---- dribble ------------------------------------------------------------ */

static void
s_dribble_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    const sslsim_task_field_t *f = &s->field;
    double m = SSLSIM_TASK_MARGIN;
    double bx = sim_rng_uniform (rng, -(f->hl - m), f->hl - m),
           by = sim_rng_uniform (rng, -(f->hw - m), f->hw - m);
    double rx, ry, tx, ty;
    sslsim_task_draw_near (rng, bx, by, SSLSIM_TASK_APART, SSLSIM_TASK_NEAR, f->hl - m, f->hw - m, &rx, &ry);
    double ro = sim_rng_uniform (rng, -M_PI, M_PI);
    sslsim_task_draw_near (rng, bx, by, SSLSIM_DRIBBLE_TARGET_MIN, SSLSIM_DRIBBLE_TARGET_MAX, f->hl - m,
                           f->hw - m, &tx, &ty);
    s->keep[0] = tx;
    s->keep[1] = ty;
    sslsim_task_clear (task, world);
    sslsim_world_teleport_robot (world, task->team, task->id, rx, ry, ro, 1);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    s_start (task, s, world, tx, ty);
}

/* Success: the ball within REACH of the target and in the robot's
   dribbler (its break-beam); out: failure. */
static bool
s_dribble_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
                 const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    const sslsim_truth_robot_t *r = sslsim_task_robot (t, task->team, task->id);
    if (!r) {
        out->terminated = true;
        return false;
    }
    double tx = s->keep[0], ty = s->keep[1];
    s_judge (s, s_potential (r, t, tx, ty),
             r->ball_contact && hypot (tx - t->ball[0], ty - t->ball[1]) <= SSLSIM_DRIBBLE_REACH,
             sslsim_task_out (&s->field, t->ball), out);
    return false;
}

const sslsim_task_kind_t sslsim_task_dribble = {
    .name = "dribble",
    .extras = 2,
    .scene = s_dribble_scene,
    .score = s_dribble_score,
    .constants = { S_COMMON,
                   { "reach", SSLSIM_DRIBBLE_REACH },
                   { "target_min", SSLSIM_DRIBBLE_TARGET_MIN },
                   { "target_max", SSLSIM_DRIBBLE_TARGET_MAX } },
};

/* ---- pass --------------------------------------------------------------- */

static void
s_pass_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    const sslsim_task_field_t *f = &s->field;
    double m = SSLSIM_TASK_MARGIN;
    double bx = sim_rng_uniform (rng, -(f->hl - m), f->hl - m),
           by = sim_rng_uniform (rng, -(f->hw - m), f->hw - m);
    double px, py, qx, qy;
    sslsim_task_draw_near (rng, bx, by, SSLSIM_TASK_APART, SSLSIM_PASS_PASSER_MAX, f->hl - m, f->hw - m, &px,
                           &py);
    sslsim_task_draw_near (rng, bx, by, SSLSIM_PASS_MIN, SSLSIM_PASS_MAX, f->hl - m, f->hw - m, &qx, &qy);
    s->keep[0] = qx;
    s->keep[1] = qy;
    sslsim_task_clear (task, world);
    sslsim_task_place (world, task->team, task->id, px, py, bx, by);
    sslsim_task_place (world, task->team, task->id + 1, qx, qy, bx, by);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    s_start (task, s, world, qx, qy);
}

/* Success: the receiver's break-beam sees the ball while it is within
   ZONE of where it started and the passer at least CLEAR from the ball
   (passed, not carried). The potential's goal is the receiving spot. */
static bool
s_pass_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
              const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    const sslsim_truth_robot_t *p = sslsim_task_robot (t, task->team, task->id);
    const sslsim_truth_robot_t *q = sslsim_task_robot (t, task->team, task->id + 1);
    if (!p || !q) {
        out->terminated = true;
        return false;
    }
    double passer = hypot (t->ball[0] - p->x, t->ball[1] - p->y);
    bool received = q->ball_contact && passer >= SSLSIM_PASS_CLEAR
                 && hypot (q->x - s->keep[0], q->y - s->keep[1]) <= SSLSIM_PASS_ZONE;
    s_judge (s, s_potential (p, t, s->keep[0], s->keep[1]), received, sslsim_task_out (&s->field, t->ball),
             out);
    return false;
}

const sslsim_task_kind_t sslsim_task_pass = {
    .name = "pass",
    .extras = 2,
    .scene = s_pass_scene,
    .score = s_pass_score,
    .constants = { S_COMMON,
                   { "passer_max", SSLSIM_PASS_PASSER_MAX },
                   { "min", SSLSIM_PASS_MIN },
                   { "max", SSLSIM_PASS_MAX },
                   { "zone", SSLSIM_PASS_ZONE },
                   { "clear", SSLSIM_PASS_CLEAR } },
};

/* ---- penalty ------------------------------------------------------------ */

static void
s_penalty_scene (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world, sim_rng_t *rng)
{
    const sslsim_task_field_t *f = &s->field;
    int a = f->attack;
    double bx = a * (f->hl - f->mark), by = 0.0;
    /* the kicker behind the ball (away from the goal), within +-60 degrees */
    double d = sim_rng_uniform (rng, SSLSIM_PENALTY_BEHIND_MIN, SSLSIM_PENALTY_BEHIND_MAX);
    double ang = sim_rng_uniform (rng, -M_PI / 3, M_PI / 3);
    double kx = bx - a * d * cos (ang), ky = by + d * sin (ang);
    double gy =
        sim_rng_uniform (rng, -(f->goal_w / 2 - SSLSIM_PENALTY_POST), f->goal_w / 2 - SSLSIM_PENALTY_POST);
    sslsim_task_clear (task, world);
    sslsim_task_place (world, task->team, task->id, kx, ky, bx, by);
    /* the keeper on its goal line, facing the field */
    sslsim_world_teleport_robot (world, 1 - task->team, 0, a * (f->hl - SSLSIM_PENALTY_LINE), gy,
                                 a > 0 ? M_PI : 0.0, 1);
    sslsim_world_teleport_ball (world, bx, by, 0, 0);
    s_start (task, s, world, a * f->hl, 0.0);
}

/* Goal: bonus; the keeper's break-beam sees the ball (saved) or the ball
   leaves the field elsewhere: failure. */
static bool
s_penalty_score (const sslsim_task_t *task, sslsim_task_slot_t *s, sslsim_world_t *world,
                 const sslsim_truth_t *t, sslsim_task_score_t *out)
{
    (void) world;
    const sslsim_task_field_t *f = &s->field;
    const sslsim_truth_robot_t *r = sslsim_task_robot (t, task->team, task->id);
    const sslsim_truth_robot_t *keeper = sslsim_task_robot (t, 1 - task->team, 0);
    if (!r) {
        out->terminated = true;
        return false;
    }
    bool saved = keeper && keeper->ball_contact;
    s_judge (s, s_potential (r, t, f->attack * f->hl, 0.0), sslsim_task_in_goal (f, t->ball, f->attack),
             saved || sslsim_task_out (f, t->ball), out);
    return false;
}

const sslsim_task_kind_t sslsim_task_penalty = {
    .name = "penalty",
    .scene = s_penalty_scene,
    .score = s_penalty_score,
    .constants = { S_COMMON,
                   { "behind_min", SSLSIM_PENALTY_BEHIND_MIN },
                   { "behind_max", SSLSIM_PENALTY_BEHIND_MAX },
                   { "line", SSLSIM_PENALTY_LINE },
                   { "post", SSLSIM_PENALTY_POST } },
};
