/*  sim_stats.h - the common part of a service's Stats message (sim_bus.proto),
    which each service sends once a second for `ssl-sim status`, the
    viewer's status bar and its /metrics (docs/viewer.md).
*/
#ifndef SIM_STATS_H_INCLUDED
#define SIM_STATS_H_INCLUDED

#include <stdint.h>

#include "sim_bus.h"

/* Reset *msg and fill who sends it: `service` (borrowed: must outlive
   the message), this process's pid, how many times its supervisor
   restarted it (SSL_SIM_RESTARTS, 0 without) and the seconds since
   `started_us` (zclock_usecs at the service's start). */
void sim_stats_begin (Simbus__Stats *msg, const char *service, int64_t started_us);

/* Count a run of `n` substeps that cost `cost_us` in all into the
   cumulative histogram `buckets` (bounds SIM_STATS_SUBSTEP_BOUNDS_US, the
   last one +Inf), each at the run's mean cost: a service times runs, not
   single substeps, since a clock read per substep would cost more than
   some substeps. */
void sim_stats_substeps (uint64_t *buckets, uint64_t n, double cost_us);

#endif
