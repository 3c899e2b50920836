/*  sim_from_config.h - the pure parts made from a whole configuration the
    way the services make them (through the definition structs), for the
    tests and benchmarks that describe their scene as a sim_config_t.
    Header-only; every helper asserts nothing and returns what the core's
    own call returns.
*/
#ifndef SIM_FROM_CONFIG_H_INCLUDED
#define SIM_FROM_CONFIG_H_INCLUDED

#include "common/config/sim_config.h"
#include "common/config/sim_schedule_config.h"
#include "engine/world/phys_def.h"
#include "engine/world/vis_def.h"

/* phys_world_new for cfg (no error text); the caller owns the world. */
static inline phys_world_t *
sim_fc_world_new (const sim_config_t *cfg)
{
    phys_world_def_t def;
    phys_world_def_from_config (&def, cfg);
    return phys_world_new (&def, NULL, 0);
}

/* vis_model_new for cfg; the caller owns the model. */
static inline vis_model_t *
sim_fc_model_new (const sim_config_t *cfg)
{
    vis_model_def_t def;
    vis_model_def_from_config (&def, cfg);
    return vis_model_new (&def);
}

/* vis_model_set_def with cfg's definition. */
static inline void
sim_fc_model_set (vis_model_t *model, const sim_config_t *cfg)
{
    vis_model_def_t def;
    vis_model_def_from_config (&def, cfg);
    vis_model_set_def (model, &def);
}

/* sim_schedule_new for cfg; the caller owns the schedule. */
static inline sim_schedule_t *
sim_fc_schedule_new (const sim_config_t *cfg)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    return sim_schedule_new (&def);
}

/* sim_schedule_reset_rig with cfg's definition. */
static inline void
sim_fc_schedule_reset_rig (sim_schedule_t *schedule, const sim_config_t *cfg, uint64_t t_ns)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    sim_schedule_reset_rig (schedule, &def, t_ns);
}

/* sim_schedule_offset_ns and sim_schedule_in_outage for cfg. */
static inline uint64_t
sim_fc_offset_ns (const sim_config_t *cfg, int index)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    return sim_schedule_offset_ns (&def, index);
}

static inline bool
sim_fc_in_outage (const sim_config_t *cfg, uint64_t t_ns)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    return sim_schedule_in_outage (&def, t_ns);
}

#endif
