/*  phys_policy.h - the step policy: at which sim times physics publishes
    a snapshot of the world. The physics service and libsslsim
    (embed/sslsim_world.c, sslsim_world_request.c) both call these
    functions, so the camera model sees snapshots at the same instants in
    both, and the library's vision bytes equal those of `ssl-sim run
    --mode sync` by construction (the system test test_embed_sync checks
    it).

    - After a substep: a snapshot when the capture schedule (sim_schedule)
      has an instant due, so what is published grows with the camera rate,
      not the substep rate (ARCHITECTURE.md §2).
    - At the end of a sync step: a closing snapshot of its last substep,
      unless one of that instant went out already, so vision can answer
      the step with everything up to its end.
    - At the end of a replay: the same, once anything was published.
    - After a request that replaced the camera rig: the new rig's instants;
      after one that changed the realism: its capture jitter.

    Pure: a schedule, sim times and what was published in, a decision out;
    no clock, no socket. The caller publishes and then records it with
    phys_policy_published.
*/
#ifndef PHYS_POLICY_H_INCLUDED
#define PHYS_POLICY_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_schedule.h"
#include "common/config/sim_config.h"

/* What was published so far; all zero before the first snapshot. */
typedef struct {
    bool any;         /* a snapshot was published */
    uint64_t last_ns; /* the sim time of the last one */
} phys_policy_t;

/* After a substep that took the world to time_ns: true when a snapshot of
   it is due. The schedule then moves past the instants that came
   (sim_schedule_advance, captures released delay_ns later); otherwise it
   is left as it was. */
bool phys_policy_substep (sim_schedule_t *schedule, uint64_t time_ns, uint64_t delay_ns);

/* A sync step of `substeps` substeps ended at time_ns: true when it closes
   with a snapshot (it ran a substep, and the last snapshot published is
   not of time_ns). */
bool phys_policy_step_closes (const phys_policy_t *self, uint64_t substeps, uint64_t time_ns);

/* A replay ended at time_ns: true when a last snapshot goes before the
   end mark (snapshots were published, the last not of time_ns). */
bool phys_policy_replay_closes (const phys_policy_t *self, uint64_t time_ns);

/* A snapshot of time_ns was published. */
void phys_policy_published (phys_policy_t *self, uint64_t time_ns);

/* A request replaced the camera rig at time_ns (phys_changes_t rig): the
   schedule takes cfg's new rig, so the snapshot instants follow it. */
void phys_policy_rig (sim_schedule_t *schedule, const sim_config_t *cfg, uint64_t time_ns);

/* A request changed the configuration without replacing the rig (a
   realism preset): the schedule takes cfg's capture jitter from its next
   instants on (sim_schedule_set_jitter), as the camera model's does when
   the configuration reaches vision. */
void phys_policy_config (sim_schedule_t *schedule, const sim_config_t *cfg);

/* What a request changed, for the schedule (phys_changes_t's two flags):
   a replaced rig is taken whole at time_ns (phys_policy_rig), else a
   changed configuration gives its capture jitter (phys_policy_config),
   else nothing. The one rule the physics service and libsslsim share. */
void phys_policy_changed (sim_schedule_t *schedule, const sim_config_t *cfg, bool rig, bool config,
                          uint64_t time_ns);

#endif
