/*  phys_def.h - the physics service's edge to its core: fills the world's
    definition from the application configuration, so the core never sees
    [run], [bus] or [network] and the configuration module never sees the
    core.
*/
#ifndef PHYS_DEF_H_INCLUDED
#define PHYS_DEF_H_INCLUDED

#include "common/config/sim_config.h"
#include "engine/physics/phys_world.h"

/* Fill every field of *def from cfg: [sim], [ball], [contact], the team
   specs, the physics keys of [realism] and the field in force ([field]
   sizes, the division's where 0). */
void phys_world_def_from_config (phys_world_def_t *def, const sim_config_t *cfg);

#endif
