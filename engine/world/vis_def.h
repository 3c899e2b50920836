/*  vis_def.h - the vision service's edge to its camera model: fills the
    model's definition from the application configuration, so the model
    never sees [run], [bus] or [network].
*/
#ifndef VIS_DEF_H_INCLUDED
#define VIS_DEF_H_INCLUDED

#include "common/config/sim_config.h"
#include "engine/vision/vis_model.h"

/* Fill every field of *def from cfg: the schedule (rig in force, timing,
   outages, substep, seed, cfg->rig_generation), the field in force, the
   ball, the larger team robot radius, [realism] and the camera-model keys
   of [vision]. */
void vis_model_def_from_config (vis_model_def_t *def, const sim_config_t *cfg);

/* The truth stream's uuid into out (len >= 37): [vision] truth_uuid when
   set, else one derived from the seed, the port offset, the control port
   and `host` (this machine's name), so one simulator keeps its id across
   restarts and two simulators on one network differ. Returns out. */
const char *vis_truth_uuid (const sim_config_t *cfg, const char *host, char *out, size_t len);

#endif
