/*  phys_apply_realism.c - the realism entries of a SimulatorConfig
    (RealismConfig.custom): ER-Force's keys, or ssl-sim's named preset,
    applied to the configuration and the world (see phys_apply_realism.h).
*/
#include "phys_apply_realism.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "phys_apply_internal.h"
#include "ssl_simulation_custom_erforce_realism.pb-c.h"
#include "ssl_simulation_custom_sslsim_realism_preset.pb-c.h"

/* The ErForce keys of `r` that are set, on top of *d. */
static void
s_realism_erforce (sim_realism_t *d, const RealismConfigErForce *r)
{
    SET_IF (r->has_stddev_ball_p, d->stddev_ball_p, r->stddev_ball_p);
    SET_IF (r->has_stddev_robot_p, d->stddev_robot_p, r->stddev_robot_p);
    SET_IF (r->has_stddev_robot_phi, d->stddev_robot_phi, r->stddev_robot_phi);
    SET_IF (r->has_stddev_ball_area, d->stddev_ball_area, r->stddev_ball_area);
    SET_IF (r->has_enable_invisible_ball, d->enable_invisible_ball, r->enable_invisible_ball);
    SET_IF (r->has_ball_visibility_threshold, d->ball_visibility_threshold, r->ball_visibility_threshold);
    SET_IF (r->has_camera_overlap, d->camera_overlap, r->camera_overlap);
    SET_IF (r->has_dribbler_ball_detections, d->dribbler_ball_detections, r->dribbler_ball_detections);
    SET_IF (r->has_camera_position_error, d->camera_position_error, r->camera_position_error);
    SET_IF (r->has_robot_command_loss, d->robot_command_loss, r->robot_command_loss);
    SET_IF (r->has_robot_response_loss, d->robot_response_loss, r->robot_response_loss);
    SET_IF (r->has_missing_ball_detections, d->missing_ball_detections, r->missing_ball_detections);
    SET_IF (r->has_vision_delay, d->vision_delay, fmax (0, (double) r->vision_delay * 1e-9));
    SET_IF (r->has_vision_processing_time, d->vision_processing_time,
            fmax (0, (double) r->vision_processing_time * 1e-9));
    SET_IF (r->has_simulate_dribbling, d->simulate_dribbling, r->simulate_dribbling);
    SET_IF (r->has_object_position_offset, d->object_position_offset, r->object_position_offset);
    SET_IF (r->has_missing_robot_detections, d->missing_robot_detections, r->missing_robot_detections);
}

/* One entry of RealismConfig.custom applied to cfg (nothing of the world
   yet): ssl-sim's RealismPreset replaces the whole table as a start with
   that preset does (the keys ErForce's message has no field for too);
   ErForce's RealismConfigErForce changes the keys it sets and leaves every
   other key, file-only ones included, as it was. 0, or -1 with the reason
   in why. */
static int
s_realism_entry (sim_config_t *cfg, const Google__Protobuf__Any *any, char *why, size_t whylen)
{
    if (phys_apply_any_is (any->type_url, "RealismPreset")) {
        Sslsim__RealismPreset *p = sslsim__realism_preset__unpack (NULL, any->value.len, any->value.data);
        if (!p) {
            snprintf (why, whylen, "RealismPreset does not parse");
            return -1;
        }
        int rc = sim_config_switch_realism (cfg, p->name, why, whylen);
        sslsim__realism_preset__free_unpacked (p, NULL);
        return rc;
    }
    RealismConfigErForce *r = NULL;
    if (phys_apply_any_is (any->type_url, "RealismConfigErForce"))
        r = realism_config_er_force__unpack (NULL, any->value.len, any->value.data);
    if (!r) {
        snprintf (why, whylen, "realism entry of type %.120s not understood",
                  any->type_url ? any->type_url : "(none)");
        return -1;
    }
    sim_realism_t realism = cfg->realism;
    s_realism_erforce (&realism, r);
    realism_config_er_force__free_unpacked (r, NULL);
    sim_config_set_realism (cfg, &realism);
    return 0;
}

void
phys_apply_realism (phys_world_t *world, sim_config_t *cfg, const RealismConfig *rc, sim_errors_t *errors,
                    phys_changes_t *changes)
{
    for (size_t i = 0; i < rc->n_custom; i++) {
        /* what an entry may change, to put back when it is refused */
        sim_realism_t before = cfg->realism;
        bool glue[2] = { cfg->team[0].dribbler.glue, cfg->team[1].dribbler.glue };
        char name[sizeof cfg->run.realism];
        memcpy (name, cfg->run.realism, sizeof name);
        char why[384];
        int refused = s_realism_entry (cfg, rc->custom[i], why, sizeof why);
        /* a value out of its range (a loss of 5, a NaN deviation) would
           make the published configuration unloadable for every other
           service */
        bool invalid = !refused && sim_config_validate (cfg, why, sizeof why);
        if (refused || invalid) {
            cfg->realism = before;
            cfg->team[0].dribbler.glue = glue[0];
            cfg->team[1].dribbler.glue = glue[1];
            memcpy (cfg->run.realism, name, sizeof name);
            sim_errors_add (errors, "UNSUPPORTED", "%s%s",
                            invalid ? "realism rejected, nothing changed: " : "", why);
            continue;
        }
        phys_realism_def_t physics_realism;
        phys_realism_def_pick (&physics_realism, &cfg->realism);
        phys_world_set_realism (world, &physics_realism);
        changes->config = true;
    }
}
