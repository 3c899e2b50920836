/*  sslsim_task.h - libsslsim's tasks for learning: an exercise's reset
    distribution, reward and termination computed in C, with their
    constants by name, and the learner's step over a whole batch that
    uses them (docs/embedding.md, "Tasks").

    Part of the API of sslsim.h, under the same rules, and included by it:
    `#include <sslsim.h>` gives both; naming this header alone does too.
*/
#ifndef SSLSIM_TASK_H_INCLUDED
#define SSLSIM_TASK_H_INCLUDED

#include "sslsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tasks (for learning) ----------------------------------------------- */

/* A task: the reward, termination and reset distribution of an exercise,
   computed in C (docs/embedding.md, "Tasks", has the formulas). It is
   made for a robot (team, id), the one it centres on, and names the
   other robots of its scene from it. Like an observer it has one slot
   per world. Tasks by name (sslsim_task_name lists them):
     "go_to_ball": reach the ball and face it;
     "shoot": score into the empty goal the team attacks;
     "dribble": bring the ball, in the dribbler, to a target point;
     "pass": pass from (team, id) to (team, id + 1), who receives it;
     "penalty": (team, id) takes a penalty against the keeper (other team, 0);
     "keepaway_1v1", "keepaway_2v2": keep the ball from as many opponents;
     "game_b", "game_a": a full game, 6 a side in Division B, 11 a side
       in Division A, with goals, the ball out of the field and kick-off
       placement as the task's rules (no referee).
   In the world's frame the team with the task attacks the goal at +x when
   blue (team 0) and at -x when yellow, so each team attacks +x in its own
   frame (sslsim_obs_set_frame). */
typedef struct sslsim_task_t sslsim_task_t;

/* go_to_ball's constants (docs/embedding.md). */
#define SSLSIM_GO_TO_BALL_DISTANCE 0.15 /* m, robot centre to ball centre for success */
#define SSLSIM_GO_TO_BALL_ANGLE    0.2  /* rad, heading off the ball's bearing for success */
#define SSLSIM_GO_TO_BALL_BONUS    10.0 /* reward on success */
#define SSLSIM_GO_TO_BALL_OUT      -5.0 /* reward when the ball leaves the field */
#define SSLSIM_GO_TO_BALL_TURN     0.2  /* weight of the heading's progress (per rad) */
#define SSLSIM_GO_TO_BALL_MARGIN   0.3  /* m, the reset keeps this far inside the field lines */
#define SSLSIM_GO_TO_BALL_APART    0.5  /* m, the reset's least distance robot to ball */

/* What shoot, dribble, pass and penalty share. */
#define SSLSIM_TASK_BONUS         10.0 /* reward on success */
#define SSLSIM_TASK_FAIL          -5.0 /* reward on failure (ball out, penalty saved) */
#define SSLSIM_TASK_APPROACH      0.2  /* weight of the robot's distance to the ball in the potential */
#define SSLSIM_TASK_MARGIN        0.3  /* m, resets keep the ball and robots this far inside the lines */
#define SSLSIM_TASK_APART         0.5  /* m, the reset's least distance robot to ball */
#define SSLSIM_TASK_NEAR          2.0  /* m, the reset's largest distance robot to ball */
#define SSLSIM_SHOOT_AREA_GAP     0.3  /* m, the ball starts this far outside the defense area */
#define SSLSIM_DRIBBLE_REACH      0.2  /* m, ball centre to target for success */
#define SSLSIM_DRIBBLE_TARGET_MIN 1.0  /* m, the target's distance to the ball at the reset */
#define SSLSIM_DRIBBLE_TARGET_MAX 3.0
#define SSLSIM_PASS_PASSER_MAX    1.0 /* m, the passer's largest distance to the ball at the reset */
#define SSLSIM_PASS_MIN           2.0 /* m, the receiver's distance to the ball at the reset */
#define SSLSIM_PASS_MAX           4.0
#define SSLSIM_PASS_ZONE          1.0 /* m, how far the receiver may move from its start */
#define SSLSIM_PASS_CLEAR         1.0 /* m, the passer's least distance to the ball at the reception */
#define SSLSIM_PENALTY_BEHIND_MIN 0.3 /* m, the kicker behind the ball at the reset */
#define SSLSIM_PENALTY_BEHIND_MAX 1.0
#define SSLSIM_PENALTY_LINE       0.1  /* m, the keeper's centre inside its goal line */
#define SSLSIM_PENALTY_POST       0.1  /* m, the keeper's centre inside its posts */
#define SSLSIM_KEEPAWAY_RATE      1.0  /* reward per second of the ball kept */
#define SSLSIM_KEEPAWAY_LOST      -1.0 /* reward when an opponent gets the ball or it leaves the field */
#define SSLSIM_KEEPAWAY_MIN       1.0  /* m, the other robots' distance to the ball at the reset */
#define SSLSIM_KEEPAWAY_MAX       2.0
#define SSLSIM_KEEPAWAY_MARGIN    1.0  /* m, the ball this far inside the lines at the reset */
#define SSLSIM_GAME_GOAL          1.0  /* reward for a goal (minus for one conceded) */
#define SSLSIM_GAME_INSET         0.2  /* m, a ball out is put back this far inside the lines */
#define SSLSIM_GAME_CLEAR         0.2  /* m, robots kept off the ball's new spot, circles and areas */
#define SSLSIM_GAME_SEPARATION    0.4  /* m, least distance between robots of a kick-off formation */
#define SSLSIM_GAME_KEEPER        0.3  /* m, the keeper's centre inside its goal line at a kick-off */
#define SSLSIM_GAME_KICKER        0.25 /* m, the kicker's centre behind the ball at a kick-off */

/* Task i's name (0, 1, ...), NULL past the last: the list of tasks. */
const char *sslsim_task_name (int i);

/* The `ssl-sim run` flags a world for task `name` needs (borrowed,
   NULL-terminated; empty for most tasks, { "--division", "b", NULL } for
   game_b), NULL for an unknown name. A task's reset refuses a world made
   without them (SSLSIM_ECONFIG). */
const char *const *sslsim_task_flags (const char *name);

/* A task's constant by name (the values above, by the names
   docs/embedding.md gives), NaN for an unknown task or name: lets a
   binding read them rather than copy them. */
double sslsim_task_constant (const char *task, const char *name);

/* The name of task `task`'s constant i (0, 1, ...), NULL past the last. */
const char *sslsim_task_constant_name (const char *task, int i);

/* Task `name` for the robot (team, id) with `slots` slots. Returns NULL
   with a sentence in err for an unknown name (listing the tasks) or a bad
   robot. */
sslsim_task_t *sslsim_task_new (const char *name, int team, int id, int slots, char *err, size_t err_len);

/* Free the task; NULL is fine. */
void sslsim_task_free (sslsim_task_t *task);

/* The robots of the task's scene into teams[i], ids[i] for i < max: the
   ones the task expects to be driven first (*driven of them), then the
   others (opponents, the keeper). Returns their count. */
int sslsim_task_robots (const sslsim_task_t *task, int *teams, int *ids, int max, int *driven);

/* The task's own observation floats E (0 for most; 2 for dribble's
   target and pass's receiving spot, x y), written after the observer's
   D, and their bounds for a world of *limits. */
int sslsim_task_obs_size (const sslsim_task_t *task);
void sslsim_task_obs_bounds (const sslsim_task_t *task, const sslsim_limits_t *limits, float *low,
                             float *high);

/* Slot's E floats into out, in the frame of `frame` (0 the world's, 1
   turned half a turn, as sslsim_obs_set_frame). */
void sslsim_task_observe (const sslsim_task_t *task, int slot, int frame, float *out);

/* Start an episode in `world`: sslsim_world_reset(seed), then the task's
   scene drawn from a random stream seeded by `seed` alone. Returns
   SSLSIM_OK, SSLSIM_ECONFIG for a world the task cannot use (a game on
   the other division's field; the reason in sslsim_world_last_error) or
   the reset's failure. */
sslsim_status_t sslsim_task_reset (sslsim_task_t *task, int slot, sslsim_world_t *world, uint64_t seed);

/* The reward of `world`'s last step and whether the episode ended. A game
   applies its rules here: after a goal or a ball out it moves the ball
   and robots (teleports) before returning. A slot with no episode yet
   (never given to sslsim_task_reset) scores 0, not terminated, and moves
   nothing. */
void sslsim_task_evaluate (sslsim_task_t *task, int slot, sslsim_world_t *world, float *reward,
                           uint8_t *terminated);

/* A learner's step over a whole batch in one call: for every world k, on
   the batch's threads, either
     - reset[k] == SSLSIM_ENV_HOLD: nothing; world k, its observation row,
       reward and termination are left as they are (a reset of some
       worlds only: Gymnasium's reset_mask); or
     - reset[k] != 0 (SSLSIM_ENV_RESET): sslsim_task_reset(task, k, world,
       seeds[k]) (no task: sslsim_world_reset), sslsim_obs_forget(obs, k);
       reward 0, not terminated; or
     - world k's robots (teams[j], ids[j]) for j < per_world take
       actions[(k * per_world + j) * 6 ...] (forward, left, angular,
       kick_speed, kick_angle, dribbler_speed, as sslsim_robot_command_t),
       the world steps dt, and the task says reward and termination (and
       applies its rules: a game's kick-off after a goal);
   then the observation into obs_out[k * (D + E) ...]: the observer's D
   floats, then the task's E (sslsim_task_obs_size) in the observer's
   frame. Any pointer for a part not wanted may be NULL (no obs, no task,
   no resets, no actions). */
#define SSLSIM_ENV_STEP  0 /* reset[k]: step world k */
#define SSLSIM_ENV_RESET 1 /* reset[k]: start its next episode (any value but 0 and 2 too) */
#define SSLSIM_ENV_HOLD  2 /* reset[k]: leave world k and its outputs alone */
typedef struct {
    double dt;
    const double *actions;
    const int *teams, *ids;
    int per_world;
    const uint8_t *reset;
    const uint64_t *seeds;
    sslsim_obs_t *obs;
    float *obs_out;
    sslsim_task_t *task;
    float *rewards;
    uint8_t *terminated;
} sslsim_batch_env_t;

/* Returns SSLSIM_OK, or SSLSIM_EINVAL (non-finite action, bad robot, an
   observer or task with fewer slots than worlds, a bad dt, a world to
   step whose task slot has no episode yet: nothing stepped) with the
   reason in sslsim_batch_last_error. With a task, the first call resets
   every world. */
sslsim_status_t sslsim_batch_env_step (sslsim_batch_t *batch, const sslsim_batch_env_t *step);

#ifdef __cplusplus
}
#endif

#endif
