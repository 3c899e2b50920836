/*  sim_schedule_config.c - rig and schedule definition from the
    configuration (see sim_schedule_config.h). */
#include "sim_schedule_config.h"

#include <string.h>

#include "common/base/sim_field.h"

void
sim_rig_resolve (const sim_config_t *cfg, sim_rig_t *out)
{
    memset (out, 0, sizeof *out);
    const sim_vision_cfg_t *v = &cfg->vision;
    if (v->camera_count > 0) {
        out->count = v->camera_count < SIM_MAX_CAMERAS ? v->camera_count : SIM_MAX_CAMERAS;
        for (int i = 0; i < out->count; i++)
            out->cams[i] = v->cameras[i];
        return;
    }
    int n = v->default_camera_count;
    if (n <= 0)
        n = cfg->run.division == SIM_DIVISION_A ? 2 : 1;
    else if (n == 3)
        n = 2;
    else if (n > 4)
        n = 4;
    sim_field_t field;
    sim_field_resolve (&cfg->field, cfg->run.division, &field);
    sim_rig_place (out, n, &field, v->default_camera_height, v->default_camera_x_fraction);
}

void
sim_schedule_def_from_config (sim_schedule_def_t *def, const sim_config_t *cfg)
{
    memset (def, 0, sizeof *def);
    const sim_vision_cfg_t *v = &cfg->vision;
    sim_rig_resolve (cfg, &def->rig);
    def->frame_rate = v->frame_rate;
    def->camera_phase = v->camera_phase;
    def->phase_offset_count = v->phase_offset_count;
    memcpy (def->phase_offsets, v->phase_offsets, sizeof def->phase_offsets);
    def->outage_count = v->outage_count;
    memcpy (def->outages, v->outages, sizeof def->outages);
    def->substep = cfg->sim.substep;
    def->seed = cfg->sim.seed;
    def->rig_generation = cfg->rig_generation;
    def->capture_jitter = cfg->realism.capture_jitter;
    def->capture_late_rate = cfg->realism.capture_late_rate;
    def->capture_late_fraction = cfg->realism.capture_late_fraction;
}
