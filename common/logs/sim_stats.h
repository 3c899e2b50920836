/*  sim_stats.h - the common part of a service's Stats message (sim_bus.proto),
    which each service sends once a second for `ssl-sim status`, the
    viewer's status bar and its /metrics (docs/viewer.md).
*/
#ifndef SIM_STATS_H_INCLUDED
#define SIM_STATS_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_rng.h"
#include "common/bus/sim_bus.h"

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

/* ---- command->vision latency (docs/viewer.md) ----------------------------

   Every local service stamps and compares the same clock: CLOCK_REALTIME
   in microseconds (with a tcp bus across machines, their clocks must agree,
   for example by NTP, to well below the latency measured). */
int64_t sim_stats_wall_us (void);

#define SIM_LATENCY_PENDING 128      /* commands seen on snapshots, not yet in a packet sent */
#define SIM_LATENCY_SAMPLES 1024     /* kept per period for its quantiles (a reservoir beyond) */
#define SIM_LATENCY_MAX_US  10000000 /* longer is a pause or a clock step, not a latency */

/* What vision keeps to measure the latency: the commands physics applied
   (their gateway receive times, in the snapshots after them) that no
   detection packet has shown yet, and the period's samples. Plain data:
   zero it with sim_latency_init. */
typedef struct {
    bool primed;             /* a snapshot came since init */
    int64_t last_command_us; /* the newest a snapshot carried */
    struct {
        uint64_t time_ns;   /* sim time of the first snapshot that carried it */
        int64_t command_us; /* its receive time */
    } pending[SIM_LATENCY_PENDING];
    int head, n_pending;
    double samples_ms[SIM_LATENCY_SAMPLES];
    sim_rng_t reservoir;   /* which samples of a busy period are kept */
    uint32_t period_count; /* measured this period (may exceed the samples kept) */
    double period_max_ms;
    uint64_t count; /* since start */
    double sum_ms;
} sim_latency_t;

void sim_latency_init (sim_latency_t *self);

/* A snapshot of sim time `time_ns` carried `command_us` (0: none): a
   receive time not seen before is a command whose first capture is still
   to come. Sim time going back (physics resumed from its checkpoint)
   forgets what is pending. The first snapshot after init only tells what
   is old: a restarted vision must not measure a command the one before
   it showed. */
void sim_latency_snapshot (sim_latency_t *self, uint64_t time_ns, int64_t command_us);

/* Physics re-based the wire timestamps (a pause, a stall, a mode change):
   what is pending waited through it and is not measured. */
void sim_latency_forget (sim_latency_t *self);

/* A detection packet captured at sim time `capture_ns` is being sent now:
   every pending command applied at or before that capture is measured
   (now, by sim_stats_wall_us, read only when there is one). */
void sim_latency_sent (sim_latency_t *self, uint64_t capture_ns);

/* Fill msg's latency fields (quantiles and max of this period when it
   measured any, the totals always) and start a new period. */
void sim_latency_report (sim_latency_t *self, Simbus__Stats *msg);

#endif
