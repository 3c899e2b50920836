/*  sslsim_task_internal.h - what the tasks of libsslsim share (not
    installed): a task's state per slot, the field a scene is drawn on, the
    table entry each task fills, and the geometry and placement helpers.

    sslsim_task.c holds the table and the public calls; the exercises of
    one team against an empty or near-empty field (go_to_ball, shoot,
    dribble, pass, penalty) live in sslsim_task_drill.c, the ones with an
    opponent playing (keep-away, the full games) in sslsim_task_game.c.
*/
#ifndef SSLSIM_TASK_INTERNAL_H_INCLUDED
#define SSLSIM_TASK_INTERNAL_H_INCLUDED

#include <stdbool.h>

#include "sslsim_internal.h"
#include "common/base/sim_rng.h"

/* The most robots a task's scene holds (11 a side). */
#define SSLSIM_TASK_MAX_ROBOTS 22

/* The field in force at the episode's reset (m), and the side the task's
   team attacks: +1 the goal at +x (blue), -1 the goal at -x (yellow). */
typedef struct {
    double hl, hw;         /* half length and half width */
    double goal_w, goal_h; /* inside the posts; the crossbar's height */
    double ball_r;
    double area_depth, area_width; /* the defense (penalty) area */
    double mark;                   /* goal centre to the penalty mark */
    double circle;                 /* centre circle radius */
    double seat;                   /* the task team's seated ball: robot centre to ball centre */
    int attack;
} sslsim_task_field_t;

/* One slot's episode: whether one has started (sslsim_task_reset), the
   potential after the last step, numbers a task keeps (a target, a start
   point, the last time), and for the tasks that place things during an
   episode, the episode's own random stream. */
typedef struct {
    bool started;
    double phi;
    double keep[4];
    uint64_t time_ns;
    sim_rng_t rng;
    sslsim_task_field_t field;
} sslsim_task_slot_t;

struct sslsim_task_t;

/* The outcome of a step: the reward and whether the episode ended. */
typedef struct {
    double reward;
    bool terminated;
} sslsim_task_score_t;

typedef struct {
    const char *name, *value;
} sslsim_task_flag_t;

/* One task. scene places the episode's start (the world just reset;
   draws from rng, the episode's stream); score judges a step and may move
   things (a kick-off after a goal), returning whether it did. The task's
   own observation floats are slot->keep[0 .. extras), points (x, y) in
   the world's frame. */
typedef struct {
    const char *name;
    const char *flags[3]; /* what the world needs, as `ssl-sim run` flags; NULL-ended */
    int extras;           /* the task's own floats after the observer's: 0, 2 or 4 */
    void (*scene) (const struct sslsim_task_t *task, sslsim_task_slot_t *slot, sslsim_world_t *world,
                   sim_rng_t *rng);
    bool (*score) (const struct sslsim_task_t *task, sslsim_task_slot_t *slot, sslsim_world_t *world,
                   const sslsim_truth_t *truth, sslsim_task_score_t *out);
    const struct {
        const char *name;
        double value;
    } constants[12];
} sslsim_task_kind_t;

struct sslsim_task_t {
    const sslsim_task_kind_t *kind;
    int team, id, slots;
    /* the scene's robots, the driven ones first (sslsim_task_robots) */
    int robot_count, driven;
    int teams[SSLSIM_TASK_MAX_ROBOTS], ids[SSLSIM_TASK_MAX_ROBOTS];
    sslsim_task_slot_t *slot;
};

/* the tasks of sslsim_task_drill.c and sslsim_task_game.c */
extern const sslsim_task_kind_t sslsim_task_go_to_ball, sslsim_task_shoot, sslsim_task_dribble,
    sslsim_task_pass, sslsim_task_penalty;
extern const sslsim_task_kind_t sslsim_task_keepaway_1v1, sslsim_task_keepaway_2v2, sslsim_task_game_a,
    sslsim_task_game_b;

/* ---- helpers (sslsim_task.c) -------------------------------------------- */

/* Robot (team, id) in *t, NULL when not on the field. */
const sslsim_truth_robot_t *sslsim_task_robot (const sslsim_truth_t *t, int team, int id);

/* Take every robot off the field but the task's scene robots (placed by
   the caller next). */
void sslsim_task_clear (const struct sslsim_task_t *task, sslsim_world_t *world);

/* A point at distance lo..hi from (cx, cy) in a uniform direction, inside
   |x| <= ax, |y| <= ay: a few draws, then the nearest point of the box. */
void sslsim_task_draw_near (sim_rng_t *rng, double cx, double cy, double lo, double hi, double ax, double ay,
                            double *x, double *y);

/* Whether the ball has wholly crossed the goal line of the goal at side
   (+1: +x) between the posts and under the crossbar. */
bool sslsim_task_in_goal (const sslsim_task_field_t *f, const double *ball, int side);

/* Whether the ball has wholly left the field (goals included). */
bool sslsim_task_out (const sslsim_task_field_t *f, const double *ball);

/* Heading from (x, y) towards (tx, ty). */
double sslsim_task_bearing (double x, double y, double tx, double ty);

/* Robot (team, id) put on the field at rest at (x, y), facing the ball
   at (bx, by): how the drills and keep-away place a scene's robots. */
void sslsim_task_place (sslsim_world_t *world, int team, int id, double x, double y, double bx, double by);

#endif
