/*  sslsim_batch_env.c - a learner's step in one call (sslsim.h): for one
    world (sslsim_world_env_step: actions, step, observation, truth) and
    for a batch (sslsim_batch_env_step: the same for every world, or its
    reset, with reward and termination, on the batch's threads).

    Everything is checked before any world moves, so a refused call
    changes nothing. Each world's work touches only that world, its
    observer slot and its task slot, which is why the job can run on the
    world's own thread and why a world's bytes do not depend on the batch
    size or the thread count.
*/
#include "sslsim_internal.h"

#include <math.h>
#include <stdio.h>

#include "engine/world/sim_step.h"

int
sslsim_world_env_step (sslsim_world_t *world, const int *teams, const int *ids, int n, const double *actions,
                       double dt, sslsim_obs_t *obs, int slot, float *obs_out, sslsim_truth_t *truth)
{
    if (!world)
        return SSLSIM_EINVAL;
    if (obs && (!obs_out || slot < 0 || slot >= sslsim_obs_slots (obs))) {
        snprintf (world->last_error, sizeof world->last_error, "observation slot %d of %d, or no buffer",
                  slot, sslsim_obs_slots (obs));
        return SSLSIM_EINVAL;
    }
    const char *refused = sslsim_obs_refuses (obs, world);
    if (refused)
        return sslsim_world_fail (world, SSLSIM_EINVAL, "%s", refused);
    if (sslsim_world_substeps (world, dt) < 0)
        return SSLSIM_EINVAL;
    int errors = n != 0 ? sslsim_world_actions (world, teams, ids, n, actions) : 0;
    if (errors < 0)
        return errors;
    sslsim_status_t rc = sslsim_world_step (world, dt);
    if (rc != SSLSIM_OK)
        return rc;
    sslsim_truth_t own;
    sslsim_truth_t *t = truth ? truth : &own;
    if (truth || obs)
        sslsim_world_truth (world, t);
    if (obs)
        sslsim_obs_write_with (obs, slot, world, t, obs_out);
    return errors;
}

static sslsim_status_t
s_job_env (void *arg, int k, sslsim_world_t *world)
{
    const sslsim_batch_env_t *e = arg;
    float reward = 0.0f;
    uint8_t terminated = 0;
    int extras = sslsim_task_obs_size (e->task);
    float *out =
        e->obs && e->obs_out ? e->obs_out + (size_t) k * (size_t) (sslsim_obs_size (e->obs) + extras) : NULL;
    sslsim_obs_t *obs = out ? e->obs : NULL;
    sslsim_truth_t truth;
    if (e->reset && e->reset[k] == SSLSIM_ENV_HOLD)
        return SSLSIM_OK;
    if (e->reset && e->reset[k]) {
        sslsim_status_t rc = e->task ? sslsim_task_reset (e->task, k, world, e->seeds[k])
                                     : sslsim_world_reset (world, e->seeds[k]);
        if (rc != SSLSIM_OK)
            return rc;
        sslsim_obs_forget (e->obs, k);
        if (obs)
            sslsim_world_truth (world, &truth);
    } else {
        /* the actions were checked for the whole batch before any world moved */
        int n = e->actions ? e->per_world : 0;
        const double *rows = n ? e->actions + (size_t) k * (size_t) n * 6 : NULL;
        int rc = sslsim_world_env_step (world, e->teams, e->ids, n, rows, e->dt, NULL, k, NULL, &truth);
        if (rc < 0)
            return (sslsim_status_t) rc;
        /* the task's rules before the observation, so it shows what they placed */
        if (e->task && sslsim_task_evaluate_with (e->task, k, world, &truth, &reward, &terminated) && obs)
            sslsim_world_truth (world, &truth);
    }
    if (obs) {
        sslsim_obs_write_with (obs, k, world, &truth, out);
        if (extras)
            sslsim_task_observe (e->task, k, sslsim_obs_frame (obs), out + sslsim_obs_size (obs));
    }
    if (e->rewards)
        e->rewards[k] = reward;
    if (e->terminated)
        e->terminated[k] = terminated;
    return SSLSIM_OK;
}

/* Whether the request fits the batch; the reason in why. */
static bool
s_acceptable (sslsim_batch_t *batch, const sslsim_batch_env_t *e, char *why, size_t len)
{
    int n = sslsim_batch_size (batch);
    char reason[160];
    sslsim_world_t *w0 = sslsim_batch_world (batch, 0);
    if (sim_step_substeps (e->dt, w0->cfg.sim.substep, reason, sizeof reason) < 0) {
        snprintf (why, len, "dt %s", reason);
        return false;
    }
    if (e->obs && sslsim_obs_slots (e->obs) < n) {
        snprintf (why, len, "the observer has %d slots for %d worlds", sslsim_obs_slots (e->obs), n);
        return false;
    }
    /* a batch's worlds share their configuration's vision */
    const char *refused = e->obs_out ? sslsim_obs_refuses (e->obs, w0) : NULL;
    if (refused) {
        snprintf (why, len, "%s", refused);
        return false;
    }
    if (e->task && sslsim_task_slots (e->task) < n) {
        snprintf (why, len, "the task has %d slots for %d worlds", sslsim_task_slots (e->task), n);
        return false;
    }
    if (e->reset && !e->seeds) {
        snprintf (why, len, "resets without seeds");
        return false;
    }
    for (int k = 0; e->task && k < n; k++)
        if (!(e->reset && e->reset[k]) && !sslsim_task_started (e->task, k)) {
            snprintf (why, len,
                      "world %d has no episode of the task to step: start one first (reset[%d] = "
                      "SSLSIM_ENV_RESET, with seeds[%d])",
                      k, k, k);
            return false;
        }
    if (!e->actions || e->per_world == 0)
        return true;
    if (e->per_world < 0 || e->per_world > 4 * SSLSIM_MAX_ROBOTS || !e->teams || !e->ids) {
        snprintf (why, len, "%d robots per world (0..%d) with their teams and ids", e->per_world,
                  4 * SSLSIM_MAX_ROBOTS);
        return false;
    }
    for (int j = 0; j < e->per_world; j++)
        if ((e->teams[j] != 0 && e->teams[j] != 1) || e->ids[j] < 0 || e->ids[j] > 255) {
            snprintf (why, len, "robot %d: team %d id %d (team 0/1, id 0..255)", j, e->teams[j], e->ids[j]);
            return false;
        }
    size_t count = (size_t) n * (size_t) e->per_world * 6;
    for (size_t i = 0; i < count; i++)
        if (!isfinite (e->actions[i])) {
            snprintf (why, len, "action of world %zu, robot %zu, field %zu is not finite",
                      i / ((size_t) e->per_world * 6), i / 6 % (size_t) e->per_world, i % 6);
            return false;
        }
    return true;
}

sslsim_status_t
sslsim_batch_env_step (sslsim_batch_t *batch, const sslsim_batch_env_t *step)
{
    if (!batch)
        return SSLSIM_EINVAL;
    char why[200];
    if (!step) {
        sslsim_batch_fail (batch, "no step");
        return SSLSIM_EINVAL;
    }
    if (!s_acceptable (batch, step, why, sizeof why)) {
        sslsim_batch_fail (batch, why);
        return SSLSIM_EINVAL;
    }
    return sslsim_batch_run (batch, s_job_env, (void *) step);
}

static sslsim_status_t
s_job_observe (void *arg, int k, sslsim_world_t *world)
{
    void **parts = arg;
    sslsim_obs_t *obs = parts[0];
    float *out = parts[1];
    return sslsim_obs_write (obs, k, world, out + (size_t) k * (size_t) sslsim_obs_size (obs));
}

sslsim_status_t
sslsim_batch_observe (sslsim_batch_t *batch, sslsim_obs_t *obs, float *out)
{
    if (!batch)
        return SSLSIM_EINVAL;
    if (!obs || !out || sslsim_obs_slots (obs) < sslsim_batch_size (batch)) {
        sslsim_batch_fail (batch, "observe needs an observer with a slot per world and a buffer");
        return SSLSIM_EINVAL;
    }
    const char *refused = sslsim_obs_refuses (obs, sslsim_batch_world (batch, 0));
    if (refused) {
        sslsim_batch_fail (batch, refused);
        return SSLSIM_EINVAL;
    }
    void *parts[2] = { obs, out };
    return sslsim_batch_run (batch, s_job_observe, parts);
}
