/*  vis_def.c - the camera model's definition from the configuration. */
#include "common/base/sim_hash.h"
#include "vis_def.h"

#include <stdio.h>
#include <string.h>

#include "common/base/sim_field.h"
#include "common/config/sim_schedule_config.h"

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
    def->area_at_nadir_px = v->area_at_nadir_px;
    def->spurious_ball_area_px = v->spurious_ball_area_px;
    def->spurious_ball_forward = v->spurious_ball_forward;
    def->spurious_ball_lateral_stddev = v->spurious_ball_lateral_stddev;
    def->robot_confidence_mean = v->robot_confidence_mean;
    def->ball_confidence_mean = v->ball_confidence_mean;
    /* [realism] vision_artefacts false (the none preset): the [vision]
       confidence spread and duplicate rate are not read, so the model
       draws neither (docs/vision.md "No artefact under none") */
    bool artefacts = cfg->realism.vision_artefacts;
    def->confidence_stddev = artefacts ? v->confidence_stddev : 0;
    def->duplicate_robot_rate = artefacts ? v->duplicate_robot_rate : 0;
    def->geometry_every_n_frames = v->geometry_every_n_frames;
    def->report_ball_z = v->report_ball_z;
    def->timestamp_epoch_offset = v->timestamp_epoch_offset;
    def->focal_length_px = v->focal_length_px;
    def->image_width = v->image_width;
    def->image_height = v->image_height;
}

const char *
vis_truth_uuid (const sim_config_t *cfg, const char *host, char *out, size_t len)
{
    if (*cfg->vision.truth_uuid) {
        snprintf (out, len, "%s", cfg->vision.truth_uuid);
        return out;
    }
    /* 128 bits from two FNV-1a streams over the instance's identity,
       written as an RFC 9562 version 8 (custom) uuid */
    char key[512];
    /* the control port (after the offset) is bound by one simulator per
       host, so it tells apart two on one host that share everything else */
    int n = snprintf (key, sizeof key, "ssl-sim truth|%llu|%d|%d|%s", (unsigned long long) cfg->sim.seed,
                      cfg->network.port_offset, cfg->network.control_port, host ? host : "");
    size_t klen = n < 0 ? 0 : (size_t) n < sizeof key ? (size_t) n : sizeof key - 1;
    uint64_t hi = sim_fnv1a (SIM_FNV1A_BASIS, key, klen);
    uint64_t lo = sim_fnv1a (hi ^ 0x9e3779b97f4a7c15ull, key, klen);
    hi = (hi & ~0xf000ull) | 0x8000ull;                        /* version 8 */
    lo = (lo & 0x3fffffffffffffffull) | 0x8000000000000000ull; /* variant 10 */
    snprintf (out, len, "%08llx-%04llx-%04llx-%04llx-%012llx", (unsigned long long) (hi >> 32),
              (unsigned long long) ((hi >> 16) & 0xffff), (unsigned long long) (hi & 0xffff),
              (unsigned long long) (lo >> 48), (unsigned long long) (lo & 0xffffffffffffull));
    return out;
}
