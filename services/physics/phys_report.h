/*  phys_report.h - what physics says about itself: the status line and
    the Stats message once a second (sim_stats.h: real-time factor, the
    cost of a substep and its histogram, speed, mode), and a log line when
    the free-running clock pauses or runs again.
*/
#ifndef PHYS_REPORT_H_INCLUDED
#define PHYS_REPORT_H_INCLUDED

#include "physics_internal.h"

/* The CPU time this thread has used, us: what a run of substeps costs is
   measured in it (see phys_report.c). */
double phys_report_cpu_us (void);

/* A run of `done` substeps cost `cost_us` of CPU time. */
void phys_report_substeps (phys_service_t *self, uint64_t done, double cost_us);

/* Once PHYS_STATUS_PERIOD_US passed since the last: the status line and
   Stats, and a new window. */
void phys_report_status (phys_service_t *self, int64_t now);

/* The sim time jumped (a replay's seek, or its restart from the end):
   the window's sim time starts again from here, so the next real-time
   factor counts the time since the jump, not a difference across it
   (backwards, it would wrap). Its wall time is kept, so seeks do not
   hold back the status line and Stats due once a second. */
void phys_report_jumped (phys_service_t *self);

/* Log "paused" once when the free-running clock stops for speed 0, and
   "running again" once when it restarts. */
void phys_report_pause (phys_service_t *self);

#endif
