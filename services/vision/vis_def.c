/*  vis_def.c - the camera model's definition from the configuration. */
#include "vis_def.h"

#include <string.h>

#include "sim_field.h"
#include "sim_schedule_config.h"

void
vis_model_def_from_config (vis_model_def_t *def, const sim_config_t *cfg)
{
    memset (def, 0, sizeof *def);
    const sim_vision_cfg_t *v = &cfg->vision;
    sim_schedule_def_from_config (&def->schedule, cfg);
    sim_field_resolve (&cfg->field, cfg->run.division, &def->field);
    def->ball = cfg->ball;
    double r0 = cfg->team[SIM_TEAM_BLUE].radius, r1 = cfg->team[SIM_TEAM_YELLOW].radius;
    def->max_robot_radius = r0 > r1 ? r0 : r1;
    def->realism = cfg->realism;
    def->fov_radius = v->fov_radius;
    def->report_area = v->report_area;
    def->area_at_nadir_px = v->area_at_nadir_px;
    def->spurious_ball_area_px = v->spurious_ball_area_px;
    def->spurious_ball_forward = v->spurious_ball_forward;
    def->spurious_ball_lateral_stddev = v->spurious_ball_lateral_stddev;
    def->robot_confidence_mean = v->robot_confidence_mean;
    def->ball_confidence_mean = v->ball_confidence_mean;
    def->confidence_stddev = v->confidence_stddev;
    def->duplicate_robot_rate = v->duplicate_robot_rate;
    def->geometry_every_n_frames = v->geometry_every_n_frames;
    def->report_ball_z = v->report_ball_z;
    def->timestamp_epoch_offset = v->timestamp_epoch_offset;
    def->focal_length_px = v->focal_length_px;
}
