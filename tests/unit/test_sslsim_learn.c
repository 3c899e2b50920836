/*  test_sslsim_learn.c - libsslsim's observers, tasks and learner's step
    (embed/sslsim_obs.c, sslsim_task.c, sslsim_batch_env.c) from C: a
    refused step moves nothing, observations keep their bounds, and a
    decode of bytes that are no packet is refused. That world k's outputs
    do not depend on the batch size or thread count is tested for every
    task in test_sslsim_task.c.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "embed/sslsim.h"

static sslsim_batch_t *
s_batch (int n, int threads, const uint64_t *seeds)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    char err[256];
    sslsim_batch_t *b = sslsim_batch_new (n, &config, threads, seeds, err, sizeof err);
    cr_assert_not_null (b, "%s", err);
    return b;
}

Test (sslsim_learn, a_refused_step_moves_nothing)
{
    sslsim_batch_t *b = s_batch (2, 1, NULL);
    int team = 0, id = 0;
    double act[12] = { 0 };
    act[7] = NAN;
    sslsim_batch_env_t step = { .dt = 0.016, .actions = act, .teams = &team, .ids = &id, .per_world = 1 };
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_EINVAL);
    cr_assert (strstr (sslsim_batch_last_error (b), "world 1"), "%s", sslsim_batch_last_error (b));
    cr_assert_eq (sslsim_world_time_ns (sslsim_batch_world (b, 0)), 0);
    step.dt = 0.0165; /* not a whole number of substeps */
    act[7] = 0;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_time_ns (sslsim_batch_world (b, 1)), 0);
    step.dt = 0.016;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK);
    cr_assert_eq (sslsim_world_time_ns (sslsim_batch_world (b, 1)), 16000000);
    sslsim_batch_free (b);
}

/* reset[k]: step, reset or hold, per world in one call (Gymnasium's
   reset_mask is built on the hold) */
Test (sslsim_learn, a_held_world_is_neither_stepped_nor_reset_nor_written)
{
    sslsim_batch_t *b = s_batch (3, 2, NULL);
    sslsim_batch_env_t step = { .dt = 0.016 };
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK); /* every world at 16 ms */
    uint8_t reset[3] = { SSLSIM_ENV_RESET, SSLSIM_ENV_HOLD, SSLSIM_ENV_STEP };
    uint64_t seeds[3] = { 5, 6, 7 };
    float rewards[3] = { -1, -1, -1 };
    uint8_t terminated[3] = { 9, 9, 9 };
    step.reset = reset;
    step.seeds = seeds;
    step.rewards = rewards;
    step.terminated = terminated;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK);
    cr_expect_eq (sslsim_world_time_ns (sslsim_batch_world (b, 0)), 0);
    cr_expect_eq (sslsim_world_seed (sslsim_batch_world (b, 0)), 5);
    cr_expect_eq (sslsim_world_time_ns (sslsim_batch_world (b, 1)), 16000000);
    cr_expect_eq (sslsim_world_time_ns (sslsim_batch_world (b, 2)), 32000000);
    cr_expect (rewards[0] == 0 && terminated[0] == 0);
    cr_expect (rewards[1] == -1 && terminated[1] == 9, "the held world's outputs were written");
    cr_expect (rewards[2] == 0 && terminated[2] == 0);
    sslsim_batch_free (b);
}

/* A task's slot has nothing to judge before its first episode: the
   batch's step refuses to step such a world (its reward would be the
   distance to a ball of no episode, -5.7 on the first step of the
   documented example), and a game's rules move nothing. */
Test (sslsim_learn, a_task_step_before_the_first_episode_is_refused)
{
    sslsim_batch_t *b = s_batch (2, 2, NULL);
    char err[200];
    sslsim_task_t *task = sslsim_task_new ("go_to_ball", 0, 0, 2, err, sizeof err);
    cr_assert_not_null (task, "%s", err);
    uint8_t reset[2] = { SSLSIM_ENV_STEP, SSLSIM_ENV_STEP };
    uint64_t seeds[2] = { 1, 2 };
    float rewards[2] = { 7, 7 };
    uint8_t terminated[2] = { 9, 9 };
    sslsim_batch_env_t step = { .dt = 0.016, .task = task, .rewards = rewards, .terminated = terminated };
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_batch_last_error (b), "world 0 has no episode"), "%s",
               sslsim_batch_last_error (b));
    step.reset = reset;
    step.seeds = seeds;
    reset[0] = SSLSIM_ENV_RESET;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_batch_last_error (b), "world 1 has no episode"), "%s",
               sslsim_batch_last_error (b));
    cr_expect (sslsim_world_time_ns (sslsim_batch_world (b, 0)) == 0
                   && sslsim_world_time_ns (sslsim_batch_world (b, 1)) == 0,
               "a refused step moved a world");
    cr_expect (rewards[0] == 7 && terminated[1] == 9, "a refused step wrote outputs");
    reset[1] = SSLSIM_ENV_RESET;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK, "%s", sslsim_batch_last_error (b));
    reset[0] = reset[1] = SSLSIM_ENV_STEP;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK, "%s", sslsim_batch_last_error (b));
    cr_expect_eq (sslsim_world_time_ns (sslsim_batch_world (b, 1)), 16000000);
    sslsim_task_free (task);
    sslsim_batch_free (b);

    /* one world: a game's rules on a slot with no episode move nothing */
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.vision = 0;
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    task = sslsim_task_new ("game_a", 0, 0, 1, err, sizeof err);
    cr_assert_not_null (task, "%s", err);
    cr_assert_eq (sslsim_world_teleport_ball (w, 3.0, 2.0, 0, 0), 0);
    float reward = 7;
    uint8_t done = 9;
    sslsim_task_evaluate (task, 0, w, &reward, &done);
    sslsim_truth_t t;
    sslsim_world_truth (w, &t);
    cr_expect (reward == 0 && done == 0, "reward %g terminated %d", reward, done);
    cr_expect (fabs (t.ball[0] - 3.0) < 1e-6 && fabs (t.ball[1] - 2.0) < 1e-6, "the ball moved to %g %g",
               t.ball[0], t.ball[1]);
    sslsim_task_free (task);
    sslsim_world_free (w);
}

/* A vision observer of worlds made without vision would read "never
   seen" forever: every way to use one is refused with the reason. */
Test (sslsim_learn, a_vision_observer_of_a_world_without_vision_is_refused)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.vision = 0;
    char err[256];
    sslsim_batch_t *b = sslsim_batch_new (2, &config, 1, NULL, err, sizeof err);
    cr_assert_not_null (b, "%s", err);
    sslsim_world_t *w = sslsim_batch_world (b, 0);
    sslsim_limits_t lim;
    sslsim_world_limits (w, &lim);
    int team = 0, id = 0;
    sslsim_obs_t *obs = sslsim_obs_new (SSLSIM_OBS_VISION, &team, &id, 1, 2, &lim, err, sizeof err);
    cr_assert_not_null (obs, "%s", err);
    float o[2 * 7];
    sslsim_batch_env_t step = { .dt = 0.016, .obs = obs, .obs_out = o };
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_batch_last_error (b), "vision = 1"), "%s", sslsim_batch_last_error (b));
    cr_expect_eq (sslsim_world_time_ns (w), 0, "a refused step moved the world");
    cr_assert_eq (sslsim_batch_observe (b, obs, o), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_obs_write (obs, 0, w, o), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_env_step (w, NULL, NULL, 0, NULL, 0.016, obs, 0, o, NULL), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_world_last_error (w), "vision = 1"), "%s", sslsim_world_last_error (w));
    cr_expect_eq (sslsim_world_time_ns (w), 0, "a refused step moved the world");
    /* the truth observer is fine without cameras */
    sslsim_obs_t *truth = sslsim_obs_new (SSLSIM_OBS_TRUTH, &team, &id, 1, 2, &lim, err, sizeof err);
    cr_assert_not_null (truth, "%s", err);
    float t[2 * 13];
    step.obs = truth;
    step.obs_out = t;
    cr_assert_eq (sslsim_batch_env_step (b, &step), SSLSIM_OK, "%s", sslsim_batch_last_error (b));
    sslsim_obs_free (truth);
    sslsim_obs_free (obs);
    sslsim_batch_free (b);
}

Test (sslsim_learn, observations_keep_their_bounds)
{
    sslsim_batch_t *b = s_batch (1, 1, NULL);
    sslsim_world_t *w = sslsim_batch_world (b, 0);
    sslsim_limits_t lim;
    sslsim_world_limits (w, &lim);
    int teams[2] = { 0, 1 }, ids[2] = { 0, 0 };
    sslsim_obs_t *obs = sslsim_obs_new (SSLSIM_OBS_TRUTH, teams, ids, 2, 1, &lim, NULL, 0);
    cr_assert_not_null (obs);
    int d = sslsim_obs_size (obs);
    cr_assert_eq (d, 6 + 7 * 2);
    float low[20], high[20], o[20];
    sslsim_obs_bounds (obs, low, high);
    sslsim_world_teleport_ball (w, 40.0, -40.0, 0, 0); /* far beyond the walls */
    cr_assert_eq (sslsim_obs_write (obs, 0, w, o), SSLSIM_OK);
    for (int i = 0; i < d; i++) {
        cr_assert (isfinite (low[i]) && isfinite (high[i]) && low[i] < high[i]);
        cr_assert (o[i] >= low[i] && o[i] <= high[i], "%d: %g not in [%g, %g]", i, o[i], low[i], high[i]);
    }
    cr_assert_eq (o[0], high[0]);
    cr_assert_eq (o[1], low[1]);
    cr_assert_eq (o[6], 1.0f); /* blue 0 is present */
    cr_assert_eq (sslsim_obs_write (obs, 1, w, o), SSLSIM_EINVAL);
    sslsim_obs_free (obs);
    sslsim_batch_free (b);
}

Test (sslsim_learn, bad_observers_and_tasks_are_refused_with_a_reason)
{
    sslsim_limits_t lim = { 0 };
    int teams[2] = { 0, 0 }, ids[2] = { 3, 3 };
    char err[200] = "";
    cr_assert_null (sslsim_obs_new (SSLSIM_OBS_TRUTH, teams, ids, 2, 1, &lim, err, sizeof err));
    cr_assert (strstr (err, "each once"), "%s", err);
    cr_assert_null (sslsim_obs_new ((sslsim_obs_kind_t) 7, teams, ids, 1, 1, &lim, err, sizeof err));
    /* limits never filled, or with a NaN: no finite bounds to keep */
    cr_assert_null (sslsim_obs_new (SSLSIM_OBS_TRUTH, teams, ids, 1, 1, &lim, err, sizeof err));
    cr_assert (strstr (err, "field_length"), "%s", err);
    sslsim_config_t config;
    sslsim_config_init (&config);
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    cr_assert_eq (sslsim_world_limits (w, &lim), SSLSIM_OK);
    sslsim_world_free (w);
    sslsim_obs_t *obs = sslsim_obs_new (SSLSIM_OBS_VISION, teams, ids, 1, 1, &lim, err, sizeof err);
    cr_assert_not_null (obs, "%s", err);
    sslsim_obs_free (obs);
    lim.robot_speed_max[1] = NAN;
    cr_assert_null (sslsim_obs_new (SSLSIM_OBS_VISION, teams, ids, 1, 1, &lim, err, sizeof err));
    cr_assert (strstr (err, "robot_speed_max[1] = nan"), "%s", err);
    lim.robot_speed_max[1] = 3.0;
    lim.boundary_width = -INFINITY;
    cr_assert_null (sslsim_obs_new (SSLSIM_OBS_TRUTH, teams, ids, 1, 1, &lim, err, sizeof err));
    cr_assert (strstr (err, "boundary_width"), "%s", err);
    cr_assert_null (sslsim_task_new ("juggle", 0, 0, 1, err, sizeof err));
    cr_assert (strstr (err, "juggle"), "%s", err);
    cr_assert_null (sslsim_task_new ("go_to_ball", 2, 0, 1, err, sizeof err));
    cr_assert (isnan (sslsim_task_constant ("go_to_ball", "nothing")));
    cr_assert_eq (sslsim_task_constant ("go_to_ball", "bonus"), SSLSIM_GO_TO_BALL_BONUS);
}

Test (sslsim_learn, decoding_bytes_that_are_no_packet_is_refused)
{
    sslsim_detection_t *d = malloc (sizeof *d);
    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01 };
    cr_assert_eq (sslsim_detection_decode (junk, sizeof junk, d), SSLSIM_EDECODE);
    cr_assert_eq (sslsim_detection_decode (NULL, 3, d), SSLSIM_EINVAL);
    free (d);
}

/* The yellow frame is the world turned half a turn: yellow's view of a
   scene equals blue's view of the same scene turned, with the teams'
   places swapped; and each field follows the documented rule. */
Test (sslsim_learn, the_yellow_frame_is_the_blue_frame_of_the_scene_turned_half_a_turn)
{
    sslsim_batch_t *b = s_batch (1, 1, NULL);
    sslsim_world_t *w = sslsim_batch_world (b, 0);
    sslsim_limits_t lim;
    sslsim_world_limits (w, &lim);
    int blue_first[2] = { 0, 1 }, yellow_first[2] = { 1, 0 }, ids[2] = { 0, 0 };
    sslsim_obs_t *as_blue = sslsim_obs_new (SSLSIM_OBS_TRUTH, blue_first, ids, 2, 1, &lim, NULL, 0);
    sslsim_obs_t *as_yellow = sslsim_obs_new (SSLSIM_OBS_TRUTH, yellow_first, ids, 2, 1, &lim, NULL, 0);
    cr_assert_eq (sslsim_obs_set_frame (as_yellow, 1), SSLSIM_OK);
    cr_assert_eq (sslsim_obs_set_frame (as_yellow, 2), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_obs_set_frame (NULL, 0), SSLSIM_EINVAL);
    float ob[20], oy[20], plain[20];

    /* a scene symmetric under the turn: blue 0 and yellow 0 each other's image, the ball at the centre */
    sslsim_world_teleport_robot (w, 0, 0, 1.5, 0.7, 0.3, 1);
    sslsim_world_teleport_robot (w, 1, 0, -1.5, -0.7, 0.3 - M_PI, 1);
    sslsim_world_teleport_ball (w, 0, 0, 0, 0);
    cr_assert_eq (sslsim_obs_write (as_blue, 0, w, ob), SSLSIM_OK);
    cr_assert_eq (sslsim_obs_write (as_yellow, 0, w, oy), SSLSIM_OK);
    for (int i = 0; i < 20; i++)
        cr_assert_float_eq (ob[i], oy[i], 1e-6, "%d: blue %g, yellow %g", i, ob[i], oy[i]);
    cr_assert_eq (oy[7], 1.5f); /* yellow sees itself where blue sees itself */

    /* field by field: x y vx vy negated, z vz kept, orientation + pi */
    sslsim_world_teleport_ball (w, 1.0, 2.0, 0.5, -0.3);
    sslsim_world_teleport_robot (w, 1, 0, -2.0, 1.0, -2.5, 1);
    cr_assert_eq (sslsim_obs_set_frame (as_blue, 1), SSLSIM_OK);
    sslsim_obs_write (as_blue, 0, w, oy);
    cr_assert_eq (sslsim_obs_set_frame (as_blue, 0), SSLSIM_OK);
    sslsim_obs_write (as_blue, 0, w, plain);
    int sign[6] = { -1, -1, 1, -1, -1, 1 };
    for (int i = 0; i < 6; i++)
        cr_assert_eq (oy[i], sign[i] * plain[i] + 0.0f, "ball %d", i);
    float *r = plain + 13, *t = oy + 13; /* yellow 0 */
    cr_assert_eq (t[0], 1.0f);
    cr_assert_eq (t[1], -r[1]);
    cr_assert_eq (t[2], -r[2]);
    cr_assert_float_eq (t[3], r[3] + (float) M_PI, 1e-6);
    cr_assert_eq (t[6], r[6]);
    sslsim_obs_free (as_blue);
    sslsim_obs_free (as_yellow);
    sslsim_batch_free (b);
}
