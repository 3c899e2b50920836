/*  vis_def.h - the vision service's edge to its camera model: fills the
    model's definition from the application configuration, so the model
    never sees [run], [bus] or [network].
*/
#ifndef VIS_DEF_H_INCLUDED
#define VIS_DEF_H_INCLUDED

#include "sim_config.h"
#include "vision/model/vis_model.h"

/* Fill every field of *def from cfg: the schedule (rig in force, timing,
   outages, substep, seed, cfg->rig_generation), the field in force, the
   ball, the larger team robot radius, [realism] and the camera-model keys
   of [vision]. */
void vis_model_def_from_config (vis_model_def_t *def, const sim_config_t *cfg);

#endif
