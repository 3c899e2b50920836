/*  sim_stats.c - the common part of a service's Stats message. */
#include "sim_stats.h"

#include <czmq.h>
#include <stdlib.h>
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
