/*  sim_schedule_config.h - the configuration side of sim_schedule: the
    camera rig in force and the schedule's definition, read from the
    application configuration. Physics and the vision service's edge both
    fill their schedules through here, so they agree on every instant.
*/
#ifndef SIM_SCHEDULE_CONFIG_H_INCLUDED
#define SIM_SCHEDULE_CONFIG_H_INCLUDED

#include "sim_config.h"
#include "common/base/sim_schedule.h"

/* The rig in force: the explicit [camera N] list when there is one,
   otherwise auto-placement by default_camera_count (0 = by division:
   A 2, B 1; 3 => 2, > 4 => 4) on the resolved field (vision.md §2.1). */
void sim_rig_resolve (const sim_config_t *cfg, sim_rig_t *out);

/* Fill every field of *def from cfg: the rig in force, [vision] timing
   and outages, the substep, the seed and cfg->rig_generation. */
void sim_schedule_def_from_config (sim_schedule_def_t *def, const sim_config_t *cfg);

#endif
