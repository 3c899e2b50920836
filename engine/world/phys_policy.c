/*  phys_policy.c - when physics publishes a snapshot (see phys_policy.h). */
#include "phys_policy.h"

#include "common/config/sim_schedule_config.h"

bool
phys_policy_substep (sim_schedule_t *schedule, uint64_t time_ns, uint64_t delay_ns)
{
    if (time_ns < sim_schedule_next_due (schedule))
        return false;
    uint32_t mask, frames[SIM_MAX_CAMERAS];
    sim_schedule_advance (schedule, time_ns, delay_ns, &mask, frames);
    return true;
}

bool
phys_policy_step_closes (const phys_policy_t *self, uint64_t substeps, uint64_t time_ns)
{
    return substeps > 0 && (!self->any || self->last_ns != time_ns);
}

bool
phys_policy_replay_closes (const phys_policy_t *self, uint64_t time_ns)
{
    return self->any && self->last_ns != time_ns;
}

void
phys_policy_published (phys_policy_t *self, uint64_t time_ns)
{
    self->any = true;
    self->last_ns = time_ns;
}

void
phys_policy_rig (sim_schedule_t *schedule, const sim_config_t *cfg, uint64_t time_ns)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    sim_schedule_reset_rig (schedule, &def, time_ns);
}

void
phys_policy_config (sim_schedule_t *schedule, const sim_config_t *cfg)
{
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, cfg);
    sim_schedule_set_jitter (schedule, &def);
}

void
phys_policy_changed (sim_schedule_t *schedule, const sim_config_t *cfg, bool rig, bool config,
                     uint64_t time_ns)
{
    if (rig)
        phys_policy_rig (schedule, cfg, time_ns);
    else if (config)
        phys_policy_config (schedule, cfg);
}
