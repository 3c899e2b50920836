/*  sslsim_batch.c - n independent worlds stepped by one call on a pool of
    threads (sslsim.h).

    Thread t owns the worlds [t*n/T, (t+1)*n/T) for the batch's life, so a
    world's state stays in one core's cache and nothing is shared while
    they step; the caller's thread is thread 0 (one thread less to wake,
    and a batch of one thread has no thread at all). A world's bytes depend
    only on its seed and inputs: the threads never touch each other's
    worlds, and the order in which they finish does not matter.
*/
#include "sslsim_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sslsim_worker_t sslsim_worker_t;

struct sslsim_worker_t {
    sslsim_batch_t *batch;
    int index, first, last; /* worlds [first, last) */
    pthread_t thread;
    bool started;
};

/* Commands queued for one world's next step. */
typedef struct {
    sslsim_robot_command_t *cmds;
    int count, cap;
} sslsim_queue_t;

struct sslsim_batch_t {
    int n, threads;
    sslsim_world_t **worlds;
    sslsim_queue_t *queues;
    sslsim_status_t *status; /* per world, of the last step */
    sslsim_worker_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    uint64_t generation; /* bumped per step: the workers' signal */
    int running;         /* workers still stepping */
    bool quit;
    double dt;
    /* what the workers do to each of their worlds this round */
    sslsim_batch_job_t job;
    void *job_arg;
    char last_error[256];
};

static void s_fail (sslsim_batch_t *self, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static void
s_fail (sslsim_batch_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->last_error, sizeof self->last_error, fmt, ap);
    va_end (ap);
}

/* A step of world k: its queued commands, then dt. */
static sslsim_status_t
s_job_step (void *arg, int k, sslsim_world_t *world)
{
    sslsim_batch_t *self = arg;
    sslsim_queue_t *q = &self->queues[k];
    if (q->count > 0) {
        sslsim_world_apply_commands (world, q->cmds, q->count);
        q->count = 0;
    }
    return sslsim_world_step (world, self->dt);
}

/* One worker's share of a round: the job for each of its worlds. */
static void
s_run_share (sslsim_batch_t *self, const sslsim_worker_t *w)
{
    for (int k = w->first; k < w->last; k++)
        self->status[k] = self->job (self->job_arg, k, self->worlds[k]);
}

static void *
s_worker_main (void *arg)
{
    sslsim_worker_t *w = arg;
    sslsim_batch_t *self = w->batch;
    uint64_t seen = 0;
    pthread_mutex_lock (&self->lock);
    for (;;) {
        while (!self->quit && self->generation == seen)
            pthread_cond_wait (&self->go, &self->lock);
        if (self->quit)
            break;
        seen = self->generation;
        pthread_mutex_unlock (&self->lock);
        s_run_share (self, w);
        pthread_mutex_lock (&self->lock);
        if (--self->running == 0)
            pthread_cond_signal (&self->done);
    }
    pthread_mutex_unlock (&self->lock);
    return NULL;
}

static int
s_online_cores (void)
{
    long n = sysconf (_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int) n : 1;
}

sslsim_batch_t *
sslsim_batch_new (int n, const sslsim_config_t *config, int threads, const uint64_t *seeds, char *err,
                  size_t err_len)
{
    char scratch[256];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    *err = '\0';
    if (n < 1 || n > 65536 || !config || threads < 0) {
        snprintf (err, err_len,
                  "a batch needs 1..65536 worlds, a configuration and threads >= 0 (n %d, threads %d)", n,
                  threads);
        return NULL;
    }
    sim_config_t cfg;
    if (sslsim_config_resolve (config, &cfg, err, err_len))
        return NULL;
    if (threads == 0)
        threads = s_online_cores ();
    if (threads > n)
        threads = n;
    sslsim_batch_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->n = n;
    self->threads = threads;
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->go, NULL);
    pthread_cond_init (&self->done, NULL);
    self->worlds = calloc ((size_t) n, sizeof *self->worlds);
    self->queues = calloc ((size_t) n, sizeof *self->queues);
    self->status = calloc ((size_t) n, sizeof *self->status);
    self->workers = calloc ((size_t) threads, sizeof *self->workers);
    if (!self->worlds || !self->queues || !self->status || !self->workers) {
        snprintf (err, err_len, "out of memory");
        sslsim_batch_free (self);
        return NULL;
    }
    sslsim_config_t each = *config;
    each.has_seed = 1;
    for (int k = 0; k < n; k++) {
        each.seed = seeds ? seeds[k] : cfg.sim.seed + (uint64_t) k;
        self->worlds[k] = sslsim_world_new (&each, err, err_len);
        if (!self->worlds[k]) {
            sslsim_batch_free (self);
            return NULL;
        }
    }
    for (int t = 0; t < threads; t++) {
        sslsim_worker_t *w = &self->workers[t];
        *w = (sslsim_worker_t) {
            self, t, (int) ((int64_t) t * n / threads), (int) ((int64_t) (t + 1) * n / threads), 0, false
        };
        if (t > 0) {
            if (pthread_create (&w->thread, NULL, s_worker_main, w) != 0) {
                snprintf (err, err_len, "cannot start thread %d of %d", t, threads);
                sslsim_batch_free (self);
                return NULL;
            }
            w->started = true;
        }
    }
    return self;
}

void
sslsim_batch_free (sslsim_batch_t *batch)
{
    if (!batch)
        return;
    sslsim_batch_t *self = batch;
    pthread_mutex_lock (&self->lock);
    self->quit = true;
    pthread_cond_broadcast (&self->go);
    pthread_mutex_unlock (&self->lock);
    for (int t = 0; self->workers && t < self->threads; t++)
        if (self->workers[t].started)
            pthread_join (self->workers[t].thread, NULL);
    for (int k = 0; self->worlds && k < self->n; k++)
        sslsim_world_free (self->worlds[k]);
    for (int k = 0; self->queues && k < self->n; k++)
        free (self->queues[k].cmds);
    free (self->worlds);
    free (self->queues);
    free (self->status);
    free (self->workers);
    pthread_cond_destroy (&self->go);
    pthread_cond_destroy (&self->done);
    pthread_mutex_destroy (&self->lock);
    free (self);
}

int
sslsim_batch_size (const sslsim_batch_t *batch)
{
    return batch ? batch->n : 0;
}

int
sslsim_batch_threads (const sslsim_batch_t *batch)
{
    return batch ? batch->threads : 0;
}

sslsim_world_t *
sslsim_batch_world (sslsim_batch_t *batch, int k)
{
    return batch && k >= 0 && k < batch->n ? batch->worlds[k] : NULL;
}

sslsim_status_t
sslsim_batch_robot_commands (sslsim_batch_t *batch, const sslsim_robot_command_t *cmds, int per_world)
{
    if (!batch)
        return SSLSIM_EINVAL;
    sslsim_batch_t *self = batch;
    if (per_world < 0 || per_world > 4 * SSLSIM_MAX_ROBOTS) {
        s_fail (self, "%d commands per world (0..%d)", per_world, 4 * SSLSIM_MAX_ROBOTS);
        return SSLSIM_EINVAL;
    }
    if (sslsim_robot_commands_check (cmds, self->n * per_world, self->last_error, sizeof self->last_error))
        return SSLSIM_EINVAL;
    for (int k = 0; k < self->n; k++) {
        sslsim_queue_t *q = &self->queues[k];
        if (q->count + per_world > q->cap) {
            int cap = q->count + per_world;
            sslsim_robot_command_t *c = realloc (q->cmds, (size_t) cap * sizeof *c);
            if (!c) {
                s_fail (self, "out of memory");
                return SSLSIM_ENOMEM;
            }
            q->cmds = c;
            q->cap = cap;
        }
        memcpy (q->cmds + q->count, cmds + (size_t) k * (size_t) per_world,
                (size_t) per_world * sizeof *cmds);
        q->count += per_world;
    }
    return SSLSIM_OK;
}

static void
s_run (sslsim_batch_t *self)
{
    if (self->threads > 1) {
        pthread_mutex_lock (&self->lock);
        self->running = self->threads - 1;
        self->generation++;
        pthread_cond_broadcast (&self->go);
        pthread_mutex_unlock (&self->lock);
    }
    s_run_share (self, &self->workers[0]);
    if (self->threads > 1) {
        pthread_mutex_lock (&self->lock);
        while (self->running > 0)
            pthread_cond_wait (&self->done, &self->lock);
        pthread_mutex_unlock (&self->lock);
    }
}

sslsim_status_t
sslsim_batch_run (sslsim_batch_t *self, sslsim_batch_job_t job, void *arg)
{
    self->job = job;
    self->job_arg = arg;
    s_run (self);
    for (int k = 0; k < self->n; k++)
        if (self->status[k] != SSLSIM_OK) {
            s_fail (self, "world %d: %s", k, sslsim_world_last_error (self->worlds[k]));
            return self->status[k];
        }
    return SSLSIM_OK;
}

sslsim_status_t
sslsim_batch_step (sslsim_batch_t *batch, double dt)
{
    if (!batch)
        return SSLSIM_EINVAL;
    sslsim_batch_t *self = batch;
    self->dt = dt;
    return sslsim_batch_run (self, s_job_step, self);
}

void
sslsim_batch_fail (sslsim_batch_t *self, const char *why)
{
    s_fail (self, "%s", why);
}

void
sslsim_batch_truth (const sslsim_batch_t *batch, sslsim_truth_t *out)
{
    for (int k = 0; batch && out && k < batch->n; k++)
        sslsim_world_truth (batch->worlds[k], &out[k]);
}

sslsim_status_t
sslsim_batch_reset (sslsim_batch_t *batch, int k, uint64_t seed)
{
    sslsim_world_t *w = sslsim_batch_world (batch, k);
    if (!w) {
        if (batch)
            s_fail (batch, "no world %d in a batch of %d", k, batch->n);
        return SSLSIM_EINVAL;
    }
    batch->queues[k].count = 0;
    sslsim_status_t rc = sslsim_world_reset (w, seed);
    if (rc)
        s_fail (batch, "world %d: %s", k, sslsim_world_last_error (w));
    return rc;
}

const char *
sslsim_batch_last_error (const sslsim_batch_t *batch)
{
    return batch ? batch->last_error : "no batch";
}
