/*  sim_stats.c - the common part of a service's Stats message. */
#include "sim_stats.h"

#include <czmq.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void
sim_stats_begin (Simbus__Stats *msg, const char *service, int64_t started_us)
{
    simbus__stats__init (msg);
    msg->service = (char *) service;
    msg->pid = (uint32_t) getpid ();
    const char *restarts = getenv ("SSL_SIM_RESTARTS");
    long n = restarts ? strtol (restarts, NULL, 10) : 0;
    msg->restarts = n > 0 && n < UINT32_MAX ? (uint32_t) n : 0;
    msg->uptime_s = (double) (zclock_usecs () - started_us) / 1e6;
}

void
sim_stats_substeps (uint64_t *buckets, uint64_t n, double cost_us)
{
    static const double bounds[] = SIM_STATS_SUBSTEP_BOUNDS_US;
    if (n == 0)
        return;
    double mean = cost_us / (double) n;
    for (int i = 0; i < SIM_STATS_SUBSTEP_BUCKETS; i++)
        if (i == SIM_STATS_SUBSTEP_BUCKETS - 1 || mean <= bounds[i])
            buckets[i] += n;
}

int64_t
sim_stats_wall_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
sim_latency_init (sim_latency_t *self)
{
    memset (self, 0, sizeof *self);
    sim_rng_seed (&self->reservoir, 1, 0);
}

void
sim_latency_snapshot (sim_latency_t *self, uint64_t time_ns, int64_t command_us)
{
    if (self->n_pending) {
        int newest = (self->head + self->n_pending - 1) % SIM_LATENCY_PENDING;
        if (time_ns < self->pending[newest].time_ns)
            self->n_pending = 0; /* a timeline that will not be captured */
    }
    if (!self->primed) {
        self->primed = true;
        self->last_command_us = command_us;
        return;
    }
    if (command_us <= 0 || command_us == self->last_command_us)
        return;
    self->last_command_us = command_us;
    if (self->n_pending == SIM_LATENCY_PENDING) {
        /* nothing was sent for a long while: the oldest is not measured */
        self->head = (self->head + 1) % SIM_LATENCY_PENDING;
        self->n_pending--;
    }
    int slot = (self->head + self->n_pending) % SIM_LATENCY_PENDING;
    self->pending[slot].time_ns = time_ns;
    self->pending[slot].command_us = command_us;
    self->n_pending++;
}

void
sim_latency_forget (sim_latency_t *self)
{
    self->n_pending = 0;
}

void
sim_latency_sent (sim_latency_t *self, uint64_t capture_ns)
{
    if (self->n_pending == 0 || self->pending[self->head].time_ns > capture_ns)
        return;
    int64_t now = sim_stats_wall_us ();
    while (self->n_pending && self->pending[self->head].time_ns <= capture_ns) {
        int64_t us = now - self->pending[self->head].command_us;
        self->head = (self->head + 1) % SIM_LATENCY_PENDING;
        self->n_pending--;
        if (us < 0 || us > SIM_LATENCY_MAX_US)
            continue;
        double ms = (double) us / 1000.0;
        if (self->period_count < SIM_LATENCY_SAMPLES)
            self->samples_ms[self->period_count] = ms;
        else {
            /* every sample of a busy period is kept with the same chance,
               so the quantiles describe all of it, not its start */
            uint64_t j = sim_rng_next (&self->reservoir) % ((uint64_t) self->period_count + 1);
            if (j < SIM_LATENCY_SAMPLES)
                self->samples_ms[j] = ms;
        }
        self->period_count++;
        if (ms > self->period_max_ms)
            self->period_max_ms = ms;
        self->count++;
        self->sum_ms += ms;
    }
}

static int
s_compare_ms (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The q-quantile of n sorted samples, the nearest rank. */
static double
s_quantile (const double *sorted, uint32_t n, double q)
{
    uint32_t rank = (uint32_t) (q * (double) n + 0.999999);
    if (rank < 1)
        rank = 1;
    return sorted[(rank > n ? n : rank) - 1];
}

void
sim_latency_report (sim_latency_t *self, Simbus__Stats *msg)
{
    msg->has_latency_count = msg->has_latency_sum_ms = true;
    msg->latency_count = self->count;
    msg->latency_sum_ms = self->sum_ms;
    msg->has_latency_period_count = true;
    msg->latency_period_count = self->period_count;
    if (self->period_count) {
        uint32_t n = self->period_count < SIM_LATENCY_SAMPLES ? self->period_count : SIM_LATENCY_SAMPLES;
        qsort (self->samples_ms, n, sizeof self->samples_ms[0], s_compare_ms);
        msg->has_latency_p50_ms = msg->has_latency_p90_ms = msg->has_latency_max_ms = true;
        msg->latency_p50_ms = s_quantile (self->samples_ms, n, 0.5);
        msg->latency_p90_ms = s_quantile (self->samples_ms, n, 0.9);
        msg->latency_max_ms = self->period_max_ms;
    }
    self->period_count = 0;
    self->period_max_ms = 0;
}
