/*  phys_apply_realism.h - a SimulatorConfig's realism entries
    (RealismConfig.custom), in order: ssl-sim's RealismPreset replaces the
    whole [realism] table with the named preset, as a start with it does;
    ER-Force's RealismConfigErForce changes only the keys it sets. An entry
    that is not understood, names no preset or leaves the configuration
    invalid is refused with UNSUPPORTED and changes nothing.
*/
#ifndef PHYS_APPLY_REALISM_H_INCLUDED
#define PHYS_APPLY_REALISM_H_INCLUDED

#include "phys_apply.h"
#include "ssl_simulation_config.pb-c.h"

/* Apply rc's entries to cfg and the world's realism; errors appended;
   changes->config set when the configuration changed. */
void phys_apply_realism (phys_world_t *world, sim_config_t *cfg, const RealismConfig *rc,
                         sim_errors_t *errors, phys_changes_t *changes);

#endif
