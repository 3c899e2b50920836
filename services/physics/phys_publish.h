/*  phys_publish.h - what physics tells the bus about the world: snapshots
    (at the instants phys_policy picks, and a heartbeat), the events of a
    substep, the effective configuration (field geometry, rig, realism:
    every service follows it) and the clock. Each skips the encoding when
    nobody reads the kind (sim_link_wanted) where the link can tell.
*/
#ifndef PHYS_PUBLISH_H_INCLUDED
#define PHYS_PUBLISH_H_INCLUDED

#include "physics_internal.h"

/* A snapshot of the world now, with the wire timestamps' base and the
   newest command's receive time; has_step/step_id name the sync step it
   belongs to. Recorded as published (self->published) even when nobody
   reads it. */
void phys_publish_snapshot (phys_service_t *self, bool has_step, uint64_t step_id);

/* The events of the last substep, at most SIM_BUS_EVENTS_MAX. */
void phys_publish_events (phys_service_t *self);

/* The effective configuration with its serial; clears config_due. */
void phys_publish_config (phys_service_t *self);

/* The clock: sim time, mode, whether it runs at now, the robot count. */
void phys_publish_clock (phys_service_t *self, int64_t now);

/* A team's commands as just applied, with the feedback of self->applied
   (Commands on the bus), only while somebody subscribes: the viewer's
   inspector while a page watches. */
void phys_publish_commands (phys_service_t *self, Simbus__TeamControl *control);

#endif
