/*  config_presets.c - the named presets that replace whole tables:
    realism (vision.md §11), ball (physics.md §5.6) and robot limits
    (physics.md §6.3), and applying them to a configuration. Each preset is
    one row of constants; the name lookup is case-insensitive and knows the
    spec's aliases.
*/
#include "config_parts.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/base/sim_team.h"
#include "common/base/sim_utf8.h"

/* 2.5 and 6 degrees, written as the spec prints them so the default
   column and the [realism] defaults of config_keys.c agree to the last bit */
#define S_KICK_DIR   0.04363323129985824
#define S_CHIP_ANGLE 0.10471975511965978
/* the round-2 keys (and sensor_mix) of a row that leaves all their models off */
#define S_ROUND2_OFF 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, S_VP_OFF, S_VENUE_OFF
/* the vision-processor keys of a row that sends SSL-Vision's kind of packets */
#define S_VP_OFF 0, 0, 0, 0, 0, false
/* venue_ball_confidence of a row that keeps the [vision] mean */
#define S_VENUE_OFF 0

/* ---- realism ----------------------------------------------------------- */

/* Every preset row starts with its names, so one lookup serves all. */
typedef struct {
    const char *name;
    const char *alias[3]; /* NULL-terminated */
} s_names_t;

typedef struct {
    s_names_t names;
    sim_realism_t values;
} s_realism_preset_t;

/* Field order of sim_realism_t: stddev_ball_p, stddev_robot_p,
   stddev_robot_phi, stddev_ball_area, enable_invisible_ball,
   ball_visibility_threshold, camera_overlap, dribbler_ball_detections,
   camera_position_error, robot_command_loss, robot_response_loss,
   missing_ball_detections, missing_robot_detections, vision_delay,
   vision_processing_time, simulate_dribbling, object_position_offset,
   command_delay, calibration_warp_stddev, calibration_warp_length,
   calibration_orientation_offset, calibration_orientation_warp,
   kick_direction_stddev, chip_angle_stddev, kick_speed_factor_stddev, then
   the round-2 keys (S_ROUND2_OFF: all 0, so off, in the other rows):
   robot_marker_height_error, vision_processing_p90, vision_processing_p99,
   vision_processing_low_stddev, fov_edge_radius, fov_edge_width,
   ball_loss_burst_rate, ball_loss_burst_length, near_robot_ball_loss,
   near_robot_ball_loss_length, ghost_ball_rate, ghost_ball_more,
   ball_area_height_gain, ball_area_height_exponent, capture_jitter,
   capture_late_rate, capture_late_fraction, sensor_mix, then the
   vision-processor keys (S_VP_OFF in the rows of SSL-Vision): source,
   line_ghost_rate, robot_identity_swap, close_robot_loss_distance,
   camera_clock_offset, geometry_alone, then venue_ball_confidence
   (S_VENUE_OFF: the [vision] mean, in all but go26 and rc26), then
   report_ball_area (false in go26 alone: SSL-Vision at GO 2026 sent no
   area), then vision_artefacts (false in none alone: no realism at all
   takes no duplicate robot or confidence spread from [vision]). */
/* clang-format off */
static const s_realism_preset_t s_realism_presets[] = {
    { { "none", { NULL } },
      { 0, 0, 0, 0, true, 0.4, 0.3, 0, 0, 0, 0, 0, 0, 0.035, 0.005, true, 0, 0,
        0, 3.0, 0, 0, 0, 0, 0, S_ROUND2_OFF, true, false } },
    { { "realistic", { "measured", "default", NULL } },
      { 0.0007, 0.00042, 0.0043, 3.3, true, 0.25, 0.8, 0.030, 0.02, 0.01, 0.01, 0,
        0.0017, 0.022, 0.00675, true, 0, 0, 0.0095, 3.0, 0, 0.02, S_KICK_DIR,
        S_CHIP_ANGLE, 0.1,
        0.015, 0.00894, 0.01048, 0.0004, 6.92, 0.133, 0.0155, 2.6, 0.06, 0.12, 0.025, 0.072,
        0.60, 0.62, 0.00014, 0, 0.5, 0, S_VP_OFF, S_VENUE_OFF, true, true } },
    { { "go26", { NULL } },
      { 0.0007, 0.00042, 0.0043, 3.3, true, 0.25, 0.8, 0.06, 0.02, 0.01, 0.01, 0,
        0.00008, 0.022, 0.00569, true, 0, 0, 0.009, 2.0, 0, 0.018, S_KICK_DIR,
        S_CHIP_ANGLE, 0.1,
        0, 0.00788, 0.00942, 0.0004, 6.92, 0.133, 0.0155, 2.6, 0.06, 0.12, 0.025, 0.072,
        0.60, 0.62, 0.00014, 0, 0.5, 1, S_VP_OFF, 0.70, false, true } },
    { { "rc26", { NULL } },
      { 0.0007, 0.00042, 0.0043, 3.3, true, 0.25, 0.8, 0.0027, 0.02, 0.01, 0.01, 0,
        0.002, 0.022, 0.00829, true, 0, 0, 0.0065, 3.0, 0, 0.02, S_KICK_DIR,
        S_CHIP_ANGLE, 0.1,
        0.030, 0.01048, 0.01202, 0.0004, 6.92, 0.133, 0.0155, 2.6, 0.06, 0.12, 0.025, 0.072,
        0.60, 0.62, 0.00061, 0.01, 0.5, 2, S_VP_OFF, 0.96, true, true } },
    /* TIGERs-Mannheim's vision-processor (docs/vision.md "vp26"): the
       realistic camera and field, its own GPU timing, and its documented
       artefacts; magnitudes it does not publish are chosen there */
    { { "vp26", { "vision_processor", NULL } },
      { 0.0007, 0.00042, 0.0043, 3.3, true, 0.25, 0.8, 0.030, 0.02, 0.01, 0.01, 0,
        0.0017, 0.022, 0.005, true, 0, 0, 0.0095, 3.0, 0, 0.02, S_KICK_DIR,
        S_CHIP_ANGLE, 0.1,
        0.015, 0.007, 0.010, 0.0004, 6.92, 0.133, 0.0155, 2.6, 0.06, 0.12, 0.005, 0.072,
        0.60, 0.62, 0.00014, 0, 0.5, 0,
        1, 0.02, 0.001, 0.185, 3600.0, true, S_VENUE_OFF, true, true } },
    { { "erforce_friendly", { "friendly", NULL } },
      { 0.0004, 0.0003, 0.003, 1.0, true, 0.4, 1.0, 0.001, 0.05, 0.01, 0.01, 0.05,
        0.02, 0.035, 0.010, true, 0.02, 0, 0, 3.0, 0, 0, 0, 0, 0, S_ROUND2_OFF, true, true } },
    { { "erforce_realistic", { NULL } },
      { 0.0014, 0.0013, 0.01, 6.5, true, 0.4, 1.0, 0.05, 0.1, 0.03, 0.1, 0.05, 0.02,
        0.035, 0.010, true, 0.02, 0, 0, 3.0, 0, 0, 0, 0, 0, S_ROUND2_OFF, true, true } },
    { { "erforce_rc2021", { "rc2021", NULL } },
      { 0.0010, 0.0013, 0.01, 6.5, true, 0.4, 1.0, 0.02, 0, 0.03, 0.1, 0.05, 0,
        0.035, 0.010, false, 0, 0, 0, 3.0, 0, 0, 0, 0, 0, S_ROUND2_OFF, true, true } },
};
/* clang-format on */

#define S_COUNT(a) (sizeof (a) / sizeof (a)[0])

/* The row of `rows` (count rows of `stride` bytes, each starting with an
   s_names_t) whose name or alias is `name`, case-insensitive; NULL if none. */
static const void *
s_find (const void *rows, size_t count, size_t stride, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        const void *row = (const char *) rows + i * stride;
        const s_names_t *names = (const s_names_t *) row;
        if (strcasecmp (name, names->name) == 0)
            return row;
        for (int a = 0; names->alias[a]; a++)
            if (strcasecmp (name, names->alias[a]) == 0)
                return row;
    }
    return NULL;
}

int
sim_config_realism_preset (const char *name, sim_realism_t *out)
{
    const s_realism_preset_t *p = (const s_realism_preset_t *) s_find (
        s_realism_presets, S_COUNT (s_realism_presets), sizeof s_realism_presets[0], name);
    if (!p)
        return -1;
    *out = p->values;
    return 0;
}

const char *
sim_config_realism_names (void)
{
    return "none, realistic, go26, rc26, vp26, erforce_friendly, erforce_realistic, "
           "erforce_rc2021 (aliases: measured, default, vision_processor, friendly, rc2021)";
}

/* ---- ball -------------------------------------------------------------- */

typedef struct {
    s_names_t names;
    double acc_slide, acc_roll, roll_speed_coefficient, inertia_distribution;
    double xy_first, xy_other, z_first, z_other;
} s_ball_preset_t;

static const s_ball_preset_t s_ball_presets[] = {
    { { "default", { "measured", NULL } }, -3.3, -0.22, 0.045, 0.5, 0.70, 0.87, 0.46, 0.40 },
    { { "go26", { NULL } }, -3.42, -0.19, 0.045, 0.5, 0.73, 0.87, 0.46, 0.40 },
    { { "rc26", { NULL } }, -3.10, -0.26, 0.045, 0.5, 0.67, 0.87, 0.46, 0.40 },
    /* ER-Force advertises k_switch = 0.69, so p = 1/k - 1 */
    { { "erforce", { NULL } }, -3.9, -0.35, 0, 1.0 / 0.69 - 1.0, 0.715, 1.0, 0.566, 0.566 },
    /* TIGERs' BallParameters (Sumatra, docs/config.md "Team presets"):
       kSwitch 0.64, so p = 1/k - 1; one z damping for every hop */
    { { "tigers", { NULL } }, -3.0, -0.26, 0, 1.0 / 0.64 - 1.0, 0.8, 0.85, 0.47, 0.47 },
    { { "grsim", { NULL } }, -0.49, -0.49, 0, 0.5, 0.6, 0.96, 0.42, 0.42 },
};

int
sim_config_ball_preset (const char *name, sim_ball_cfg_t *out)
{
    const s_ball_preset_t *p = (const s_ball_preset_t *) s_find (s_ball_presets, S_COUNT (s_ball_presets),
                                                                 sizeof s_ball_presets[0], name);
    if (!p)
        return -1;
    /* keys a preset does not list keep the default-column value */
    sim_config_t defaults;
    sim_config_defaults (&defaults);
    *out = defaults.ball;
    out->acc_slide = p->acc_slide;
    out->acc_roll = p->acc_roll;
    out->roll_speed_coefficient = p->roll_speed_coefficient;
    out->inertia_distribution = p->inertia_distribution;
    out->chip_damping_xy_first_hop = p->xy_first;
    out->chip_damping_xy_other_hops = p->xy_other;
    out->chip_damping_z = p->z_first;
    out->chip_damping_z_other_hops = p->z_other;
    return 0;
}

const char *
sim_config_ball_names (void)
{
    return "default, go26, rc26, erforce, tigers, grsim (alias: measured)";
}

/* ---- robot limits ------------------------------------------------------ */

typedef struct {
    s_names_t names;
    sim_limits_t limits;
    double kick_max, chip_max; /* m/s, [TEAM.kicker] caps; 0 = the preset leaves the kicker */
} s_limits_preset_t;

/* sim_limits_t order: acc_speedup_absolute_max, acc_speedup_angular_max,
   acc_brake_absolute_max, acc_brake_angular_max, vel_absolute_max,
   vel_angular_max (the spec's table lists them in another order). The
   team rows below `kiks` come from TIGERs' per-team bot parameter
   database (Sumatra config/botParamsDatabase.json, docs/config.md "Team
   presets"): velMax, accMax, brkMax, velMaxW, accMaxW (also the angular
   brake: the database has none) and the kicker's straight and chip caps. */
static const s_limits_preset_t s_limits_presets[] = {
    { { "default", { "measured", NULL } }, { 3.5, 40, 5.0, 40, 3.0, 12 }, 0, 0 },
    { { "tigers", { NULL } }, { 3.0, 50, 6.0, 50, 3.0, 20 }, 7.5, 5.5 },
    { { "erforce", { NULL } }, { 3.7, 45, 5.5, 45, 3.0, 12 }, 0, 0 },
    { { "kiks", { NULL } }, { 4.2, 45, 5.5, 45, 3.4, 12 }, 0, 0 },
    { { "fast", { NULL } }, { 4.5, 50, 6.0, 50, 3.5, 15 }, 0, 0 },
    { { "grsim", { NULL } }, { 4.0, 50, 4.0, 50, 5.0, 20 }, 0, 0 },
    { { "zjunlict", { NULL } }, { 3.5, 50, 6.0, 50, 3.0, 20 }, 8.0, 8.0 },
    { { "immortals", { NULL } }, { 3.3, 50, 5.6, 50, 3.2, 20 }, 8.0, 6.5 },
    { { "roboteam", { "roboteam_twente", NULL } }, { 2.0, 50, 3.0, 50, 2.2, 20 }, 8.0, 6.5 },
    { { "luhbots", { NULL } }, { 1.5, 50, 3.0, 50, 2.5, 20 }, 8.0, 6.5 },
};

static const s_limits_preset_t *
s_limits_find (const char *name)
{
    return (const s_limits_preset_t *) s_find (s_limits_presets, S_COUNT (s_limits_presets),
                                               sizeof s_limits_presets[0], name);
}

int
sim_config_limits_preset (const char *name, sim_limits_t *out)
{
    const s_limits_preset_t *p = s_limits_find (name);
    if (!p)
        return -1;
    *out = p->limits;
    return 0;
}

const char *
sim_config_limits_names (void)
{
    return "default, tigers, erforce, kiks, fast, grsim, zjunlict, immortals, roboteam, luhbots "
           "(aliases: measured, roboteam_twente)";
}

/* ---- applying presets --------------------------------------------------- */

void
sim_config_set_realism (sim_config_t *cfg, const sim_realism_t *realism)
{
    cfg->realism = *realism;
    for (int team = 0; team < 2; team++)
        cfg->team[team].dribbler.glue = !realism->simulate_dribbling;
}

int
sim_config_switch_realism (sim_config_t *cfg, const char *name, char *err, size_t errlen)
{
    sim_realism_t realism;
    if (sim_config_realism_preset (name, &realism) != 0) {
        /* the name comes from a client: quoted as whole characters, for the
           answer and the page (sim_utf8.h) */
        char shown[41];
        sim_utf8_copy (shown, sizeof shown, name ? name : "");
        sim_cfg_err (err, errlen, "unknown realism preset '%s' (choices: %s)", shown,
                     sim_config_realism_names ());
        return -1;
    }
    sim_config_set_realism (cfg, &realism);
    snprintf (cfg->run.realism, sizeof cfg->run.realism, "%s", name);
    return 0;
}

int
sim_config_apply_realism (sim_config_t *cfg, const char *name_or_file, char *err, size_t errlen)
{
    sim_realism_t realism;
    if (!name_or_file || name_or_file[0] == '\0') {
        sim_cfg_err (err, errlen, "empty realism name (choices: %s, or an INI file)",
                     sim_config_realism_names ());
        return -1;
    }
    if (sim_config_realism_preset (name_or_file, &realism) != 0) {
        FILE *probe = fopen (name_or_file, "r");
        if (!probe) {
            sim_cfg_err (err, errlen,
                         "unknown realism '%s': not a preset (%s) and not a "
                         "readable file",
                         name_or_file, sim_config_realism_names ());
            return -1;
        }
        fclose (probe);
        /* missing keys of a realism file take the realistic values */
        sim_config_t *scratch = (sim_config_t *) malloc (sizeof (sim_config_t));
        if (!scratch) {
            sim_cfg_err (err, errlen, "out of memory");
            return -1;
        }
        sim_config_defaults (scratch);
        sim_config_realism_preset ("realistic", &scratch->realism);
        int rc = sim_cfg_load_file (scratch, name_or_file, true, NULL, err, errlen);
        realism = scratch->realism;
        free (scratch);
        if (rc != 0)
            return -1;
    }
    sim_config_set_realism (cfg, &realism);
    return 0;
}

int
sim_config_apply_ball_preset (sim_config_t *cfg, const char *name, char *err, size_t errlen)
{
    sim_ball_cfg_t ball;
    if (sim_config_ball_preset (name, &ball) != 0) {
        sim_cfg_err (err, errlen, "unknown ball preset '%s' (choices: %s)", name ? name : "",
                     sim_config_ball_names ());
        return -1;
    }
    cfg->ball = ball;
    return 0;
}

int
sim_config_apply_team_robot_limits (sim_config_t *cfg, int team, const char *name, char *err, size_t errlen)
{
    assert (team == 0 || team == 1);
    const s_limits_preset_t *p = name ? s_limits_find (name) : NULL;
    if (!p) {
        sim_cfg_err (err, errlen, "unknown robot limits preset '%s' (choices: %s)", name ? name : "",
                     sim_config_limits_names ());
        return -1;
    }
    sim_robot_specs_t *spec = &cfg->team[team];
    spec->limits = p->limits;
    /* a team's published set includes its kick caps */
    if (p->kick_max > 0)
        spec->kicker.max_linear_speed = p->kick_max;
    if (p->chip_max > 0)
        spec->kicker.max_chip_speed = p->chip_max;
    return 0;
}

int
sim_config_apply_robot_limits (sim_config_t *cfg, const char *name, char *err, size_t errlen)
{
    for (int team = 0; team < 2; team++)
        if (sim_config_apply_team_robot_limits (cfg, team, name, err, errlen))
            return -1;
    return 0;
}

int
sim_config_apply_run_presets (sim_config_t *cfg, char *err, size_t errlen)
{
    char why[1024];
    if (cfg->run.realism[0] && sim_config_apply_realism (cfg, cfg->run.realism, why, sizeof why)) {
        sim_cfg_err (err, errlen, "realism: %s", why);
        return -1;
    }
    if (cfg->run.ball_preset[0]
        && sim_config_apply_ball_preset (cfg, cfg->run.ball_preset, why, sizeof why)) {
        sim_cfg_err (err, errlen, "ball preset: %s", why);
        return -1;
    }
    if (cfg->run.robot_limits[0]
        && sim_config_apply_robot_limits (cfg, cfg->run.robot_limits, why, sizeof why)) {
        sim_cfg_err (err, errlen, "robot limits: %s", why);
        return -1;
    }
    for (int team = 0; team < 2; team++)
        if (cfg->run.team_robot_limits[team][0]
            && sim_config_apply_team_robot_limits (cfg, team, cfg->run.team_robot_limits[team], why,
                                                   sizeof why)) {
            sim_cfg_err (err, errlen, "%s robot limits: %s", sim_team_name ((sim_team_t) team), why);
            return -1;
        }
    return 0;
}
