/*  phys_apply.c - league messages to physics core calls (protocol.md §4,
    §5): wire units and conventions are converted here, never in the core. */
#include "phys_apply.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "common/base/sim_field.h"
#include "common/base/sim_log.h"
#include "common/base/sim_team.h"
#include "engine/physics/phys_check.h"
#include "phys_apply_internal.h"
#include "phys_apply_realism.h"
#include "ssl_simulation_custom_erforce_robot_spec.pb-c.h"

void
phys_apply_report (sim_errors_t *errors, phys_err_t err, const char *what)
{
    if (err != PHYS_OK)
        sim_errors_add (errors, phys_err_code (err), "%s", what);
}

bool
phys_apply_robot_id (const RobotId *rid, sim_team_t *team, unsigned *id, sim_errors_t *errors)
{
    int league = rid && rid->has_team ? sim_team_from_league (rid->team) : -1;
    if (!rid || !rid->has_id || league < 0 || rid->id > SIM_MAX_ROBOT_ID) {
        sim_errors_add (errors, "UNSUPPORTED", "robot id needs a team (BLUE or YELLOW) and an id <= 255");
        return false;
    }
    *team = (sim_team_t) league;
    *id = rid->id;
    return true;
}

/* Field sizes from a geometry message (protocol.md §4.3), mm -> m. */
static void
s_geometry_field (const SSLGeometryFieldSize *f, sim_field_t *field)
{
    field->length = f->field_length / 1000.0;
    field->width = f->field_width / 1000.0;
    field->goal_width = f->goal_width / 1000.0;
    field->goal_depth = f->goal_depth / 1000.0;
    field->boundary_width = f->boundary_width / 1000.0;
    double depth = 0, width = 0;
    if (f->has_penalty_area_depth && f->has_penalty_area_width) {
        depth = f->penalty_area_depth / 1000.0;
        width = f->penalty_area_width / 1000.0;
    } else {
        for (size_t i = 0; i < f->n_field_lines; i++) {
            const SSLFieldLineSegment *l = f->field_lines[i];
            if (!l->name || !l->p1 || !l->p2)
                continue;
            if (strcmp (l->name, "LeftPenaltyStretch") == 0) {
                depth = (field->length / 2 - fabs (l->p1->x / 1000.0));
                width = fabs (l->p2->y - l->p1->y) / 1000.0;
                break;
            }
            if (strcmp (l->name, "LeftFieldLeftPenaltyStretch") == 0 && depth <= 0) {
                depth = fabs (l->p2->x - l->p1->x) / 1000.0;
                width = 2 * fabs (l->p1->y) / 1000.0;
            }
        }
    }
    if (depth > 0 && width > 0) {
        field->penalty_area_depth = depth;
        field->penalty_area_width = width;
    }
    double thickness = 0;
    for (size_t i = 0; i < f->n_field_lines; i++) {
        const SSLFieldLineSegment *l = f->field_lines[i];
        if (l->thickness > 0 && (thickness == 0 || l->thickness / 1000.0 < thickness))
            thickness = l->thickness / 1000.0;
    }
    if (thickness > 0)
        field->line_thickness = thickness;
    for (size_t i = 0; i < f->n_field_arcs; i++) {
        const SSLFieldCircularArc *a = f->field_arcs[i];
        if (a->name && strcmp (a->name, "CenterCircle") == 0 && a->radius > 0)
            field->center_circle_radius = a->radius / 1000.0;
    }
    /* the sizes only the geometry packet carries: kept when absent or not positive */
    if (f->has_boundary_width_goal_line && f->boundary_width_goal_line > 0)
        field->boundary_width_goal_line = f->boundary_width_goal_line / 1000.0;
    if (f->has_goal_center_to_penalty_mark && f->goal_center_to_penalty_mark > 0)
        field->goal_center_to_penalty_mark = f->goal_center_to_penalty_mark / 1000.0;
    if (f->has_goal_substitution_area_width && f->goal_substitution_area_width > 0)
        field->goal_substitution_area_width = f->goal_substitution_area_width / 1000.0;
}

static void
s_geometry (phys_world_t *world, sim_config_t *cfg, const SSLGeometryData *g, sim_errors_t *errors,
            phys_changes_t *changes)
{
    if (g->field) {
        sim_field_t field;
        sim_field_resolve (&cfg->field, cfg->run.division, &field);
        s_geometry_field (g->field, &field);
        /* the world validates the sizes; only an accepted field enters the
           configuration, so the two never disagree */
        if (phys_world_set_field (world, &field) == PHYS_OK) {
            cfg->field = field;
            changes->config = true;
        } else
            sim_errors_add (errors, "UNSUPPORTED", "geometry with non-positive field sizes ignored");
    }
    int count = 0;
    sim_camera_cfg_t cams[SIM_MAX_CAMERAS];
    for (size_t i = 0; i < g->n_calib && count < SIM_MAX_CAMERAS; i++) {
        const SSLGeometryCameraCalibration *c = g->calib[i];
        if (!c->has_derived_camera_world_tx || !c->has_derived_camera_world_ty
            || !c->has_derived_camera_world_tz)
            continue;
        cams[count++] = (sim_camera_cfg_t) {
            .id = (int) c->camera_id,
            .x = c->derived_camera_world_tx / 1000.0,
            .y = c->derived_camera_world_ty / 1000.0,
            .z = c->derived_camera_world_tz / 1000.0,
            /* the sensor rides along; a nonsensical one falls back to the default */
            .focal_length_px = c->focal_length > 0 && c->focal_length < 1e6 ? c->focal_length : 0,
            .image_width =
                c->has_pixel_image_width && c->pixel_image_width <= 100000 ? (int) c->pixel_image_width : 0,
            .image_height = c->has_pixel_image_height && c->pixel_image_height <= 100000
                              ? (int) c->pixel_image_height
                              : 0,
        };
    }
    if (count > 0) {
        /* the rig enters the configuration only if every other service
           can load it (a camera below the floor, say, would not) */
        sim_vision_cfg_t before = cfg->vision;
        cfg->vision.camera_count = count;
        memcpy (cfg->vision.cameras, cams, sizeof cams[0] * (size_t) count);
        char why[256];
        if (sim_config_validate (cfg, why, sizeof why)) {
            cfg->vision = before;
            sim_errors_add (errors, "UNSUPPORTED", "camera geometry ignored: %s", why);
            return;
        }
        cfg->rig_generation++;
        changes->config = changes->rig = true;
    }
}

/* phys_apply_internal.h */
bool
phys_apply_any_is (const char *url, const char *type)
{
    if (!url)
        return false;
    const char *slash = strrchr (url, '/');
    const char *name = slash ? slash + 1 : url;
    if (strcmp (name, type) == 0)
        return true;
    const char *dot = strrchr (name, '.');
    return dot && strcmp (dot + 1, type) == 0;
}

static void
s_spec_update (const RobotSpecs *s, phys_spec_update_t *u)
{
    memset (u, 0, sizeof *u);
    if (s->has_radius) {
        u->mask |= PHYS_SPEC_RADIUS;
        u->v.radius = s->radius;
    }
    if (s->has_height) {
        u->mask |= PHYS_SPEC_HEIGHT;
        u->v.height = s->height;
    }
    if (s->has_mass) {
        u->mask |= PHYS_SPEC_MASS;
        u->v.mass = s->mass;
    }
    if (s->has_center_to_dribbler) {
        u->mask |= PHYS_SPEC_CENTER_TO_DRIBBLER;
        u->v.center_to_dribbler = s->center_to_dribbler;
    }
    if (s->has_max_linear_kick_speed) {
        u->mask |= PHYS_SPEC_MAX_LINEAR_KICK_SPEED;
        u->v.kicker.max_linear_speed = s->max_linear_kick_speed;
    }
    if (s->has_max_chip_kick_speed) {
        u->mask |= PHYS_SPEC_MAX_CHIP_KICK_SPEED;
        u->v.kicker.max_chip_speed = s->max_chip_kick_speed;
    }
    const RobotLimits *l = s->limits;
    if (l) {
        sim_limits_t *d = &u->v.limits;
        if (l->has_acc_speedup_absolute_max) {
            u->mask |= PHYS_SPEC_ACC_SPEEDUP_ABSOLUTE_MAX;
            d->acc_speedup_absolute_max = l->acc_speedup_absolute_max;
        }
        if (l->has_acc_speedup_angular_max) {
            u->mask |= PHYS_SPEC_ACC_SPEEDUP_ANGULAR_MAX;
            d->acc_speedup_angular_max = l->acc_speedup_angular_max;
        }
        if (l->has_acc_brake_absolute_max) {
            u->mask |= PHYS_SPEC_ACC_BRAKE_ABSOLUTE_MAX;
            d->acc_brake_absolute_max = l->acc_brake_absolute_max;
        }
        if (l->has_acc_brake_angular_max) {
            u->mask |= PHYS_SPEC_ACC_BRAKE_ANGULAR_MAX;
            d->acc_brake_angular_max = l->acc_brake_angular_max;
        }
        if (l->has_vel_absolute_max) {
            u->mask |= PHYS_SPEC_VEL_ABSOLUTE_MAX;
            d->vel_absolute_max = l->vel_absolute_max;
        }
        if (l->has_vel_angular_max) {
            u->mask |= PHYS_SPEC_VEL_ANGULAR_MAX;
            d->vel_angular_max = l->vel_angular_max;
        }
    }
    if (s->wheel_angles) {
        /* clockwise on the wire, counter-clockwise inside */
        u->mask |= PHYS_SPEC_WHEEL_FRONT_RIGHT | PHYS_SPEC_WHEEL_BACK_RIGHT | PHYS_SPEC_WHEEL_BACK_LEFT
                 | PHYS_SPEC_WHEEL_FRONT_LEFT;
        u->v.wheel_angles =
            (sim_wheel_angles_t) { -s->wheel_angles->front_right, -s->wheel_angles->back_right,
                                   -s->wheel_angles->back_left, -s->wheel_angles->front_left };
    }
    for (size_t i = 0; i < s->n_custom; i++) {
        const Google__Protobuf__Any *any = s->custom[i];
        if (!phys_apply_any_is (any->type_url, "RobotSpecErForce"))
            continue;
        Sslsim__RobotSpecErForce *er =
            sslsim__robot_spec_er_force__unpack (NULL, any->value.len, any->value.data);
        if (!er)
            continue; /* protocol.md §4.3: ignored silently */
        if (er->has_shoot_radius) {
            u->mask |= PHYS_SPEC_SHOOT_RADIUS;
            u->v.shoot_radius = er->shoot_radius;
        }
        if (er->has_dribbler_width) {
            u->mask |= PHYS_SPEC_DRIBBLER_WIDTH;
            u->v.dribbler_width = er->dribbler_width;
        }
        sslsim__robot_spec_er_force__free_unpacked (er, NULL);
    }
}

/* Replace the port of a HOST:PORT string. */
static void
s_set_vision_port (sim_config_t *cfg, unsigned port)
{
    char host[SIM_STRING_MAX];
    snprintf (host, sizeof host, "%s", cfg->run.vision_addr);
    char *colon = strrchr (host, ':');
    if (colon)
        *colon = '\0';
    snprintf (cfg->run.vision_addr, sizeof cfg->run.vision_addr, "%.200s:%u", host, port);
}

void
phys_apply_command (phys_world_t *world, sim_config_t *cfg, const SimulatorCommand *cmd, sim_errors_t *errors,
                    phys_changes_t *changes)
{
    const SimulatorControl *control = cmd->control;
    if (control) {
        if (control->has_simulation_speed) {
            float speed = control->simulation_speed;
            /* a huge factor would have the clock owe hours at once */
            if (!isfinite (speed) || speed < 0 || speed > SIM_SPEED_MAX)
                sim_errors_add (errors, "UNSUPPORTED", "simulation_speed %g is not within 0..%g",
                                (double) speed, SIM_SPEED_MAX);
            else if (cfg->run.speed != speed) {
                cfg->run.speed = speed;
                changes->config = true;
            }
        }
        if (control->teleport_ball)
            phys_apply_teleport_ball (world, control->teleport_ball, errors);
        for (size_t i = 0; i < control->n_teleport_robot; i++)
            phys_apply_teleport_robot (world, control->teleport_robot[i], errors);
    }
    const SimulatorConfig *config = cmd->config;
    if (!config)
        return;
    if (config->geometry)
        s_geometry (world, cfg, config->geometry, errors, changes);
    for (size_t i = 0; i < config->n_robot_specs; i++) {
        const RobotSpecs *s = config->robot_specs[i];
        sim_team_t team;
        unsigned id;
        if (!phys_apply_robot_id (s->id, &team, &id, errors))
            continue;
        phys_spec_update_t u;
        s_spec_update (s, &u);
        char why[256] = "";
        phys_err_t err = phys_world_update_specs (world, team, id, &u, why, sizeof why);
        char what[320];
        snprintf (what, sizeof what, "robot specs for %s %u%s%s", sim_team_name (team), id,
                  why[0] ? ": " : "", why);
        phys_apply_report (errors, err, what);
        cfg->team[team] = *phys_world_team_specs (world, team);
        changes->config = true;
    }
    if (config->realism_config)
        phys_apply_realism (world, cfg, config->realism_config, errors, changes);
    if (config->has_vision_port) {
        if (config->vision_port == 0 || config->vision_port > 65535)
            sim_errors_add (errors, "UNSUPPORTED", "vision_port %u is not a UDP port (1..65535)",
                            config->vision_port);
        else if (!sim_config_port_fits (cfg, (int) config->vision_port))
            /* the port vision would send to moves by the offset: past
               65535 it would have wrapped to another, a privileged one */
            sim_errors_add (errors, "UNSUPPORTED",
                            "vision_port %u is port %d with port_offset %d, not a UDP port (1..65535)",
                            config->vision_port, sim_config_port (cfg, (int) config->vision_port),
                            cfg->network.port_offset);
        else {
            s_set_vision_port (cfg, config->vision_port);
            changes->config = true;
        }
    }
}

void
phys_apply_robot_command_of (const RobotCommand *rcmd, phys_command_t *out)
{
    *out = (phys_command_t) { .move = PHYS_MOVE_NONE };
    const RobotMoveCommand *m = rcmd->move_command;
    if (m && m->command_case == ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY) {
        out->move = PHYS_MOVE_LOCAL;
        out->v[0] = m->local_velocity->forward;
        out->v[1] = m->local_velocity->left;
        out->v[2] = m->local_velocity->angular;
    } else if (m && m->command_case == ROBOT_MOVE_COMMAND__COMMAND_GLOBAL_VELOCITY) {
        out->move = PHYS_MOVE_GLOBAL;
        out->v[0] = m->global_velocity->x;
        out->v[1] = m->global_velocity->y;
        out->v[2] = m->global_velocity->angular;
    } else if (m && m->command_case == ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY) {
        out->move = PHYS_MOVE_WHEELS;
        out->v[0] = m->wheel_velocity->front_right;
        out->v[1] = m->wheel_velocity->back_right;
        out->v[2] = m->wheel_velocity->back_left;
        out->v[3] = m->wheel_velocity->front_left;
    }
    out->kick_speed = rcmd->has_kick_speed ? rcmd->kick_speed : 0;
    out->kick_angle_deg = rcmd->has_kick_angle ? rcmd->kick_angle : 0;
    out->dribbler_rpm = rcmd->has_dribbler_speed ? rcmd->dribbler_speed : 0;
}

/* The field of a robot command physics refused as no physical value (not
   finite, or beyond PHYS_INPUT_LIMIT), named as on the wire; NULL when
   every field is one. */
static const char *
s_insane_field (const phys_command_t *c)
{
    static const char *const moves[][4] = {
        [PHYS_MOVE_LOCAL] = { "move_command.local_velocity.forward", "move_command.local_velocity.left",
                              "move_command.local_velocity.angular" },
        [PHYS_MOVE_GLOBAL] = { "move_command.global_velocity.x", "move_command.global_velocity.y",
                               "move_command.global_velocity.angular" },
        [PHYS_MOVE_WHEELS] = { "move_command.wheel_velocity.front_right",
                               "move_command.wheel_velocity.back_right",
                               "move_command.wheel_velocity.back_left",
                               "move_command.wheel_velocity.front_left" },
    };
    int nv = c->move == PHYS_MOVE_WHEELS ? 4 : c->move == PHYS_MOVE_NONE ? 0 : 3;
    for (int i = 0; i < nv; i++)
        if (!phys_sane (c->v[i]))
            return moves[c->move][i];
    if (!phys_sane (c->kick_speed))
        return "kick_speed";
    if (!phys_sane (c->kick_angle_deg))
        return "kick_angle";
    if (!phys_sane (c->dribbler_rpm))
        return "dribbler_speed";
    return NULL;
}

void
phys_apply_robot_control (phys_world_t *world, sim_team_t team, const RobotControl *rc, sim_errors_t *errors,
                          phys_feedback_t *feedback)
{
    for (size_t i = 0; i < rc->n_robot_commands; i++) {
        const RobotCommand *rcmd = rc->robot_commands[i];
        if (rcmd->id > SIM_MAX_ROBOT_ID) {
            sim_errors_add (errors, "UNKNOWN_ROBOT", "robot id %u is above 255", rcmd->id);
            continue;
        }
        phys_command_t c;
        phys_apply_robot_command_of (rcmd, &c);
        int contact = phys_world_ball_contact (world, team, rcmd->id);
        phys_err_t err = phys_world_command (world, team, rcmd->id, &c);
        if (err != PHYS_OK) {
            const char *field = err == PHYS_ERR_UNSUPPORTED ? s_insane_field (&c) : NULL;
            if (err == PHYS_ERR_UNKNOWN_ROBOT)
                sim_errors_add (errors, phys_err_code (err), "robot %s %u is not on the field",
                                sim_team_name (team), rcmd->id);
            else if (field)
                sim_errors_add (errors, phys_err_code (err), "robot %s %u: %s is not a number within +-%g",
                                sim_team_name (team), rcmd->id, field, PHYS_INPUT_LIMIT);
            else
                sim_errors_add (errors, phys_err_code (err), "robot %s %u: command refused",
                                sim_team_name (team), rcmd->id);
            continue;
        }
        if (feedback && feedback->count < PHYS_FEEDBACK_MAX) {
            RobotFeedback *fb = &feedback->items[feedback->count];
            *fb = (RobotFeedback) ROBOT_FEEDBACK__INIT;
            fb->id = rcmd->id;
            fb->has_dribbler_ball_contact = true;
            fb->dribbler_ball_contact = contact > 0;
            feedback->ptrs[feedback->count++] = fb;
        }
    }
}
