/*  test_config_dump.c - presets, the dump round trip, keys by name, the
    local keys, and the --help text against the flag and key tables
    (common/config/config_presets.c, config_dump.c, config_table.h).
*/
#include <criterion/criterion.h>
#include <ctype.h>
#include <criterion/redirect.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/config/config_table.h"
#include "common/base/sim_hash.h"
#include "test_config_support.h"

/* ---- presets ------------------------------------------------------------ */

Test (config, realism_presets_and_aliases)
{
    sim_config_t cfg;
    char err[512] = "";
    struct {
        const char *name;
        double stddev_ball_p, camera_overlap, dribbler_ball_detections, vision_delay;
        double object_position_offset, kick_direction_stddev;
        bool simulate_dribbling;
    } cases[] = {
        { "none", 0, 0.3, 0, 0.035, 0, 0, true },
        { "realistic", 0.0007, 0.8, 0.03, 0.022, 0, KICK_DIR_2_5_DEG, true },
        { "Measured", 0.0007, 0.8, 0.03, 0.022, 0, KICK_DIR_2_5_DEG, true },
        { "default", 0.0007, 0.8, 0.03, 0.022, 0, KICK_DIR_2_5_DEG, true },
        { "go26", 0.0007, 0.8, 0.06, 0.022, 0, KICK_DIR_2_5_DEG, true },
        { "RC26", 0.0007, 0.8, 0.0027, 0.022, 0, KICK_DIR_2_5_DEG, true },
        { "erforce_friendly", 0.0004, 1.0, 0.001, 0.035, 0.02, 0, true },
        { "friendly", 0.0004, 1.0, 0.001, 0.035, 0.02, 0, true },
        { "erforce_realistic", 0.0014, 1.0, 0.05, 0.035, 0.02, 0, true },
        { "erforce_rc2021", 0.0010, 1.0, 0.02, 0.035, 0, 0, false },
        { "rc2021", 0.0010, 1.0, 0.02, 0.035, 0, 0, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_config_defaults (&cfg);
        cr_assert_eq (sim_config_apply_realism (&cfg, cases[i].name, err, sizeof err), 0, "%s: %s",
                      cases[i].name, err);
        const sim_realism_t *r = &cfg.realism;
        cr_expect_eq (r->stddev_ball_p, cases[i].stddev_ball_p, "%s", cases[i].name);
        cr_expect_eq (r->camera_overlap, cases[i].camera_overlap, "%s", cases[i].name);
        cr_expect_eq (r->dribbler_ball_detections, cases[i].dribbler_ball_detections, "%s", cases[i].name);
        cr_expect_eq (r->vision_delay, cases[i].vision_delay, "%s", cases[i].name);
        cr_expect_eq (r->object_position_offset, cases[i].object_position_offset, "%s", cases[i].name);
        cr_expect_eq (r->kick_direction_stddev, cases[i].kick_direction_stddev, "%s", cases[i].name);
        cr_expect_eq (r->simulate_dribbling, cases[i].simulate_dribbling, "%s", cases[i].name);
        cr_expect_eq (cfg.team[0].dribbler.glue, !cases[i].simulate_dribbling);
        cr_expect (r->enable_invisible_ball);
        /* the three measured presets (the ones with ghost balls) tuned it
           to the near-robot detection curve in issue 14 */
        bool measured = r->ghost_ball_rate > 0;
        cr_expect_eq (r->ball_visibility_threshold, measured ? 0.25 : 0.4, "%s", cases[i].name);
        /* go26's shorter waves (docs/vision.md, "Camera disagreement") */
        bool go26 = strcasecmp (cases[i].name, "go26") == 0;
        cr_expect_eq (r->calibration_warp_length, go26 ? 2.0 : 3.0, "%s", cases[i].name);
        cr_expect_eq (r->command_delay, 0);
    }
    /* a few more columns */
    sim_config_apply_realism (&cfg, "go26", err, sizeof err);
    cr_expect_eq (cfg.realism.calibration_warp_stddev, 0.009);
    cr_expect_eq (cfg.realism.calibration_orientation_warp, 0.018);
    cr_expect_eq (cfg.realism.vision_processing_time, 0.00569);
    sim_config_apply_realism (&cfg, "rc26", err, sizeof err);
    cr_expect_eq (cfg.realism.calibration_warp_stddev, 0.0065);
    cr_expect_eq (cfg.realism.vision_processing_time, 0.00829);
    sim_config_apply_realism (&cfg, "erforce_realistic", err, sizeof err);
    cr_expect_eq (cfg.realism.camera_position_error, 0.1);
    cr_expect_eq (cfg.realism.robot_response_loss, 0.1);
    cr_expect_eq (cfg.realism.stddev_ball_area, 6.5);
    sim_config_apply_realism (&cfg, "none", err, sizeof err);
    cr_expect_eq (cfg.realism.vision_processing_time, 0.005);
    cr_expect_eq (cfg.realism.chip_angle_stddev, 0);
    sim_config_apply_realism (&cfg, "realistic", err, sizeof err);
    cr_expect_eq (cfg.realism.chip_angle_stddev, 0.10471975511965978);
    cr_expect_eq (cfg.realism.missing_robot_detections, 0.0017);
    sim_config_apply_realism (&cfg, "rc2021", err, sizeof err);
    cr_expect_eq (cfg.realism.missing_robot_detections, 0);
    cr_expect_eq (cfg.realism.camera_position_error, 0);

    cr_expect_eq (sim_config_apply_realism (&cfg, "nope", err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "none, realistic, go26, rc26"), "%s", err);
}

Test (config, ball_presets_and_aliases)
{
    sim_config_t cfg;
    char err[512] = "";
    struct {
        const char *name;
        double acc_slide, acc_roll, roll_coef, inertia, xy1, xy2, z1, z2;
    } cases[] = {
        { "default", -3.3, -0.22, 0.045, 0.5, 0.70, 0.87, 0.46, 0.40 },
        { "MEASURED", -3.3, -0.22, 0.045, 0.5, 0.70, 0.87, 0.46, 0.40 },
        { "go26", -3.42, -0.19, 0.045, 0.5, 0.73, 0.87, 0.46, 0.40 },
        { "rc26", -3.10, -0.26, 0.045, 0.5, 0.67, 0.87, 0.46, 0.40 },
        { "erforce", -3.9, -0.35, 0, 0.449275, 0.715, 1.0, 0.566, 0.566 },
        { "Tigers", -3.0, -0.26, 0, 1.0 / 0.64 - 1.0, 0.8, 0.85, 0.47, 0.47 },
        { "grsim", -0.49, -0.49, 0, 0.5, 0.6, 0.96, 0.42, 0.42 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_config_defaults (&cfg);
        cfg.ball.mass = 1;
        cr_assert_eq (sim_config_apply_ball_preset (&cfg, cases[i].name, err, sizeof err), 0, "%s", err);
        const sim_ball_cfg_t *b = &cfg.ball;
        cr_expect_eq (b->acc_slide, cases[i].acc_slide, "%s", cases[i].name);
        cr_expect_eq (b->acc_roll, cases[i].acc_roll, "%s", cases[i].name);
        cr_expect_eq (b->roll_speed_coefficient, cases[i].roll_coef, "%s", cases[i].name);
        cr_expect_float_eq (b->inertia_distribution, cases[i].inertia, 1e-6, "%s", cases[i].name);
        cr_expect_eq (b->chip_damping_xy_first_hop, cases[i].xy1, "%s", cases[i].name);
        cr_expect_eq (b->chip_damping_xy_other_hops, cases[i].xy2, "%s", cases[i].name);
        cr_expect_eq (b->chip_damping_z, cases[i].z1, "%s", cases[i].name);
        cr_expect_eq (b->chip_damping_z_other_hops, cases[i].z2, "%s", cases[i].name);
        cr_expect_eq (b->radius, 0.0215);
        cr_expect_eq (b->mass, 0.046, "the whole table is replaced");
        cr_expect_eq (b->advertise_roll_speed, 1.5);
        cr_expect_eq (b->min_hop_height, 0.01);
        cr_expect_eq (b->rest_speed, 0.01);
    }
    cr_expect_eq (sim_config_apply_ball_preset (&cfg, "heavy", err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "grsim"), "%s", err);
}

Test (config, robot_limit_presets_and_aliases)
{
    sim_config_t cfg;
    char err[512] = "";
    /* clang-format off */
    struct {
        const char *name;
        double speedup, brake, vel, speedup_ang, brake_ang, vel_ang;
    } cases[] = {
        { "default", 3.5, 5.0, 3.0, 40, 40, 12 },
        { "measured", 3.5, 5.0, 3.0, 40, 40, 12 },
        { "tigers", 3.0, 6.0, 3.0, 50, 50, 20 },
        { "ERFORCE", 3.7, 5.5, 3.0, 45, 45, 12 },
        { "kiks", 4.2, 5.5, 3.4, 45, 45, 12 },
        { "fast", 4.5, 6.0, 3.5, 50, 50, 15 },
        { "grsim", 4.0, 4.0, 5.0, 50, 50, 20 },
        { "zjunlict", 3.5, 6.0, 3.0, 50, 50, 20 },
        { "immortals", 3.3, 5.6, 3.2, 50, 50, 20 },
        { "roboteam", 2.0, 3.0, 2.2, 50, 50, 20 },
        { "RoboTeam_Twente", 2.0, 3.0, 2.2, 50, 50, 20 },
        { "luhbots", 1.5, 3.0, 2.5, 50, 50, 20 },
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_config_defaults (&cfg);
        cr_assert_eq (sim_config_apply_robot_limits (&cfg, cases[i].name, err, sizeof err), 0, "%s", err);
        for (int team = 0; team < 2; team++) {
            const sim_limits_t *l = &cfg.team[team].limits;
            cr_expect_eq (l->acc_speedup_absolute_max, cases[i].speedup, "%s", cases[i].name);
            cr_expect_eq (l->acc_brake_absolute_max, cases[i].brake, "%s", cases[i].name);
            cr_expect_eq (l->vel_absolute_max, cases[i].vel, "%s", cases[i].name);
            cr_expect_eq (l->acc_speedup_angular_max, cases[i].speedup_ang, "%s", cases[i].name);
            cr_expect_eq (l->acc_brake_angular_max, cases[i].brake_ang, "%s", cases[i].name);
            cr_expect_eq (l->vel_angular_max, cases[i].vel_ang, "%s", cases[i].name);
        }
    }
    cr_expect_eq (sim_config_apply_robot_limits (&cfg, "snail", err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "kiks"), "%s", err);
}

/* Every name in a "a, b (aliases: c, d)" list resolves with `lookup`. */
static void
s_expect_names_resolve (const char *list, int (*lookup) (const char *, void *), void *out)
{
    char copy[512];
    snprintf (copy, sizeof copy, "%s", list);
    int count = 0;
    for (char *token = strtok (copy, " ,()"); token; token = strtok (NULL, " ,()")) {
        if (strcmp (token, "aliases:") == 0 || strcmp (token, "alias:") == 0)
            continue;
        cr_expect_eq (lookup (token, out), 0, "'%s' from '%s' does not resolve", token, list);
        count++;
    }
    cr_expect_geq (count, 6, "%s", list);
}

static int
s_realism_lookup (const char *name, void *out)
{
    return sim_config_realism_preset (name, (sim_realism_t *) out);
}

static int
s_ball_lookup (const char *name, void *out)
{
    return sim_config_ball_preset (name, (sim_ball_cfg_t *) out);
}

static int
s_limits_lookup (const char *name, void *out)
{
    return sim_config_limits_preset (name, (sim_limits_t *) out);
}

Test (config, listed_preset_names_all_resolve)
{
    sim_realism_t realism;
    sim_ball_cfg_t ball;
    sim_limits_t limits;
    s_expect_names_resolve (sim_config_realism_names (), s_realism_lookup, &realism);
    s_expect_names_resolve (sim_config_ball_names (), s_ball_lookup, &ball);
    s_expect_names_resolve (sim_config_limits_names (), s_limits_lookup, &limits);
    cr_expect_eq (sim_config_realism_preset (NULL, &realism), -1);
    cr_expect_eq (sim_config_ball_preset ("", &ball), -1);
}

/* ---- dump --------------------------------------------------------------- */

Test (config, dump_of_defaults_round_trips)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg_test_expect_round_trip (&cfg);
    char *text = sim_config_dump (&cfg, true);
    cr_assert_not_null (text);
    cr_expect_not_null (strstr (text, "; --realism choices:"));
    cr_expect_not_null (strstr (text, "erforce_rc2021"));
    cr_expect_not_null (strstr (text, "\n[blue.limits]\nacc_speedup_absolute_max = 3.5\n"));
    cr_expect_not_null (strstr (text, "vel_angular_max = 12.0\n"));
    cr_expect_not_null (strstr (text, "duplicate_robot_rate = 3e-05\n"));
    cr_expect_not_null (strstr (text, "front_right = -1.0471975511965976\n"));
    cr_expect_not_null (strstr (text, "kick_direction_stddev = 0.04363323129985824\n"));
    cr_expect_not_null (strstr (text, "; inertia_z omitted"));
    cr_expect_not_null (strstr (text, "\n[run]\ndivision = a\nmode = realtime\n"));
    cr_expect_null (strstr (text, "\nrealism ="), "unset strings are not written");
    free (text);
    text = sim_config_dump (&cfg, false);
    cr_expect_null (strstr (text, "--realism choices"));
    free (text);
    text = sim_config_dump_annotated (&cfg);
    cr_assert_not_null (text);
    cr_expect_not_null (strstr (text, "; ball radius [m] (> 0)\nradius = 0.0215\n"));
    cfg_test_expect_round_trip (&cfg);
    free (text);
}

Test (config, dump_of_a_changed_configuration_round_trips)
{
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cfg.sim.seed = UINT64_MAX;
    cfg.sim.substep = 1.0 / 3000.0;
    cfg.ball.acc_slide = -0.1 - 0.2; /* not the shortest decimal */
    cfg.ball.acc_roll = -0.0;
    cfg.contact.robot_hull_chord_contacts = false;
    cfg.team[1].inertia_z = 0.0123456789012345678;
    cfg.team[1].drive.model = SIM_DRIVE_IDEAL;
    cfg.team[0].wheel_angles.front_right = -M_PI / 3;
    cfg.team[0].dribbler.glue = true;
    cfg.vision.default_camera_count = 4;
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    cfg.vision.phase_offset_count = 8;
    for (int i = 0; i < 8; i++) /* long numbers with exponents */
        cfg.vision.phase_offsets[i] = -(i + 1) * 0.1 / 7e4;
    cfg.vision.camera_count = 3;
    for (int i = 0; i < 3; i++) {
        cfg.vision.cameras[i].id = 10 - i;
        cfg.vision.cameras[i].x = 1.1 * i - 2.2;
        cfg.vision.cameras[i].y = 0.1 * i;
        cfg.vision.cameras[i].z = 6.0 + 0.01 * i;
    }
    cfg.vision.outage_count = 2;
    cfg.vision.outages[0] = (sim_outage_cfg_t) { 1.5, 0.25 };
    cfg.vision.outages[1] = (sim_outage_cfg_t) { 120.0, 310.0 };
    cr_assert_eq (sim_config_apply_realism (&cfg, "go26", err, sizeof err), 0);
    cfg.realism.vision_delay = 1e-3 / 3;
    cfg.field.length = 10.4;
    cfg.field.goal_height = 0.155;
    cfg.run.division = SIM_DIVISION_B;
    cfg.run.mode = SIM_MODE_SYNC;
    cfg.run.speed = 0;
    cfg_test_set_string (cfg.run.realism, sizeof cfg.run.realism, "go26");
    cfg_test_set_string (cfg.run.ball_preset, sizeof cfg.run.ball_preset, "tigers");
    cfg_test_set_string (cfg.run.robot_limits, sizeof cfg.run.robot_limits, "kiks");
    cfg_test_set_string (cfg.run.vision_addr, sizeof cfg.run.vision_addr, "[::1]:10006");
    cfg_test_set_string (cfg.run.log_level, sizeof cfg.run.log_level, "trace");
    cfg.run.localhost = true;
    cfg.run.truth = true;
    cfg.run.legacy_grsim = false;
    cfg.run.duration = 3600.5;
    cfg_test_set_string (cfg.network.bind_address, sizeof cfg.network.bind_address, "127.0.0.1");
    cfg.network.port_offset = 1000;
    cfg.network.multicast_ttl = 0;
    cfg_test_set_string (cfg.bus.cmd_bind, sizeof cfg.bus.cmd_bind, "tcp://*:7301");
    cfg_test_set_string (cfg.bus.cmd_connect, sizeof cfg.bus.cmd_connect, "tcp://labpc1:7301");
    cfg_test_set_string (cfg.bus.frames_bind, sizeof cfg.bus.frames_bind, "ipc:///tmp/ssl-sim-1000/frames");
    cfg.bus.sync_timeout = 0.125;
    cfg.rig_generation = 7;
    cfg_test_expect_round_trip (&cfg);
}

Test (config, dump_of_every_preset_round_trips)
{
    const char *realism[] = { "none",          "realistic",        "go26",
                              "rc26",          "erforce_friendly", "erforce_realistic",
                              "erforce_rc2021" };
    const char *ball[] = { "default", "go26", "rc26", "erforce", "tigers", "grsim" };
    const char *limits[] = { "default", "tigers",   "erforce",   "kiks",     "fast",
                             "grsim",   "zjunlict", "immortals", "roboteam", "luhbots" };
    sim_config_t cfg;
    char err[512] = "";
    for (int i = 0; i < 10; i++) {
        sim_config_defaults (&cfg);
        cr_assert_eq (sim_config_apply_realism (&cfg, realism[i % 7], err, sizeof err), 0);
        cr_assert_eq (sim_config_apply_ball_preset (&cfg, ball[i % 6], err, sizeof err), 0);
        cr_assert_eq (sim_config_apply_robot_limits (&cfg, limits[i], err, sizeof err), 0);
        cfg_test_expect_round_trip (&cfg);
    }
}

/* A repository file relative to this source file's directory. */
static void
s_repo_path (char *path, size_t size, const char *relative)
{
    const char *file = __FILE__;
    const char *slash = strrchr (file, '/');
    int dirlen = slash ? (int) (slash - file) : 1;
    snprintf (path, size, "%.*s/../../%s", dirlen, slash ? file : ".", relative);
}

/* The text of repository file `relative` (heap, NUL-terminated, at most
   256 KiB); the test is skipped when it is not there. */
static char *
s_repo_text (const char *relative)
{
    char path[PATH_MAX];
    s_repo_path (path, sizeof path, relative);
    FILE *file = fopen (path, "r");
    if (!file)
        cr_skip_test ("%s not found (run from the repository root)", path);
    size_t size = 256 * 1024;
    char *text = (char *) malloc (size);
    cr_assert_not_null (text);
    size_t len = fread (text, 1, size - 1, file);
    fclose (file);
    text[len] = '\0';
    return text;
}

Test (config, example_configuration_is_the_defaults)
{
    char path[PATH_MAX];
    s_repo_path (path, sizeof path, "configs/ssl-sim.ini");
    if (access (path, R_OK) != 0)
        cr_skip_test ("%s not found (run from the repository root)", path);
    sim_config_t cfg, ref;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_load_file (&cfg, path, err, sizeof err), 0, "%s", err);
    sim_config_defaults (&ref);
    cr_assert_eq (memcmp (&cfg, &ref, sizeof cfg), 0,
                  "configs/ssl-sim.ini differs from the "
                  "built-in defaults");
}

Test (config, user_documentation_lists_every_key)
{
    char *text = s_repo_text ("docs/config.md");
    char *reference = sim_config_doc_markdown ();
    cr_assert_not_null (reference);
    cr_expect_not_null (strstr (text, reference),
                        "docs/config.md lacks the current key reference; regenerate it "
                        "with sim_config_doc_markdown ()");
    free (reference);
    free (text);
}

Test (config, example_realism_file_loads)
{
    char path[PATH_MAX];
    s_repo_path (path, sizeof path, "configs/realism/noisy-venue.ini");
    if (access (path, R_OK) != 0)
        cr_skip_test ("%s not found (run from the repository root)", path);
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_apply_realism (&cfg, path, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.realism.dribbler_ball_detections, 0.08);
    cr_expect_eq (cfg.realism.vision_delay, 0.03);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.0007, "unlisted keys are realistic");
}

Test (config, run_realism_file_is_found_next_to_the_config)
{
    CFG_TEST_TMPDIR (dir);
    char sub[128];
    snprintf (sub, sizeof sub, "%s/lab", dir);
    cr_assert_eq (mkdir (sub, 0700), 0);
    char *venue = cfg_test_write (sub, "venue.ini", "vision_delay = 0.04\n");
    char *config = cfg_test_write (sub, "lab.ini", "[run]\nrealism = venue.ini\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", config), 0, "%s", err);
    cr_expect_eq (cfg.realism.vision_delay, 0.04);
    cr_expect_str_eq (cfg.run.realism, venue);
    free (venue);
    free (config);
}

/* ---- keys by name ------------------------------------------------------- */

Test (config, set_and_get_one_key_by_name)
{
    sim_config_t cfg;
    char err[512] = "";
    char value[64];
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_set (&cfg, "run", "mode", "Sync", err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.run.mode, SIM_MODE_SYNC);
    cr_assert_eq (sim_config_set (&cfg, "Yellow.Limits", "vel_absolute_max", "2.5", err, sizeof err), 0, "%s",
                  err);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, 2.5);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, 3.0);
    cr_expect_eq (sim_config_get (&cfg, "yellow.limits", "vel_absolute_max", value, sizeof value), 0);
    cr_expect_str_eq (value, "2.5");
    cr_expect_eq (sim_config_get (&cfg, "run", "mode", value, sizeof value), 0);
    cr_expect_str_eq (value, "sync");
    cr_expect_eq (sim_config_get (&cfg, "run", "duration", value, sizeof value), 1,
                  "an unset key is not written");
    cr_expect_str_eq (value, "");
    cr_expect_eq (sim_config_get (&cfg, "run", "vision_addr", value, 4), -1, "too small");
    cr_expect_eq (sim_config_get (&cfg, "run", "nope", value, sizeof value), -1);

    sim_config_t before = cfg;
    cr_expect_eq (sim_config_set (&cfg, "sim", "initial_robots_per_team", "17", err, sizeof err), -1);
    cr_expect_str_eq (err, "[sim] initial_robots_per_team: 17 is out of range (must be within "
                           "0..16)");
    cr_expect_eq (sim_config_set (&cfg, "ball", "colour", "orange", err, sizeof err), -1);
    cr_expect_str_eq (err, "[ball] colour: unknown key");
    cr_expect_eq (sim_config_set (&cfg, "camera 0", "x", "1", err, sizeof err), -1,
                  "numbered sections are not reachable by name");
    cr_expect_eq (memcmp (&before, &cfg, sizeof cfg), 0, "a refused value changes nothing");
}

/* ---- local keys --------------------------------------------------------- */

/* The rule of config.md "Local keys", written out once more on purpose:
   the table's flags must say exactly this. */
static bool
s_expect_local (const char *section, const char *key)
{
    return strcmp (section, "bus") == 0 || strcmp (section, "network") == 0 || strcmp (section, "viewer") == 0
        || (strcmp (section, "run") == 0
            && (strcmp (key, "log_level") == 0 || strcmp (key, "duration") == 0 || strcmp (key, "record") == 0
                || strcmp (key, "journal") == 0));
}

Test (config, the_local_keys_are_bus_network_viewer_log_level_and_duration)
{
    int local = 0;
    for (size_t i = 0; i < sim_cfg_keys_count; i++) {
        const sim_cfg_key_t *key = &sim_cfg_keys[i];
        bool flagged = (key->flags & SIM_CFG_LOCAL) != 0;
        cr_expect_eq (flagged, s_expect_local (key->section, key->key), "[%s] %s is %slocal", key->section,
                      key->key, flagged ? "" : "not ");
        local += flagged;
    }
    /* issue 12: [viewer] enabled, addr and www_dir; issue 13: [network]
       local_vision; issue 15: [network] referee_addr, [run] record and
       journal; issue 24: [network] trusted_sources */
    cr_expect_eq (local, 13 + 15 + 5 + 3,
                  "every [bus], [network] and [viewer] key, log_level, duration, record, "
                  "journal");
    const sim_cfg_key_t *tables[] = { sim_cfg_team_keys, sim_cfg_camera_keys, sim_cfg_outage_keys };
    const size_t counts[] = { sim_cfg_team_keys_count, sim_cfg_camera_keys_count, sim_cfg_outage_keys_count };
    for (size_t t = 0; t < 3; t++)
        for (size_t i = 0; i < counts[t]; i++)
            cr_expect_not (tables[t][i].flags & SIM_CFG_LOCAL, "%s %s is local", tables[t][i].section,
                           tables[t][i].key);
}

/* Bytes [offset, offset + size) of a key's field (and a list's count). */
static void
s_mark_field (const sim_cfg_key_t *key, size_t base, unsigned char *mask)
{
    if (key->type == SIM_CFG_LIST)
        memset (mask + base + key->count_offset, 1, sizeof (int));
    memset (mask + base + key->offset, 1, sim_cfg_key_size (key));
}

Test (config, keep_local_copies_exactly_the_local_keys)
{
    /* every byte of own differs from cfg, so any byte copied shows */
    sim_config_t *own = malloc (sizeof *own);
    sim_config_t *cfg = malloc (sizeof *cfg);
    unsigned char *mask = calloc (1, sizeof *cfg);
    cr_assert (own && cfg && mask);
    memset (own, 0xa5, sizeof *own);
    memset (cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < sim_cfg_keys_count; i++)
        if (sim_cfg_keys[i].flags & SIM_CFG_LOCAL)
            s_mark_field (&sim_cfg_keys[i], 0, mask);
    sim_config_keep_local (cfg, own);
    const unsigned char *bytes = (const unsigned char *) cfg;
    size_t copied = 0;
    for (size_t i = 0; i < sizeof *cfg; i++) {
        cr_assert_eq (bytes[i], mask[i] ? 0xa5 : 0, "byte %zu of sim_config_t", i);
        copied += mask[i];
    }
    cr_expect_gt (copied, sizeof cfg->bus, "the local fields were copied");
    free (mask);
    free (cfg);
    free (own);
}

Test (config, keep_local_keeps_the_own_process_and_adopts_the_simulation)
{
    sim_config_t published, own;
    char err[512] = "";
    sim_config_defaults (&published);
    sim_config_defaults (&own);
    cr_assert_eq (sim_config_set (&published, "run", "mode", "fast", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&published, "run", "vision_addr", "10.0.0.9:10020", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&published, "bus", "cmd_connect", "tcp://physics:1", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&published, "network", "truth_port", "11111", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&published, "run", "log_level", "trace", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&published, "run", "duration", "5", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&own, "bus", "cmd_connect", "ipc:///tmp/me", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&own, "network", "port_offset", "7", err, sizeof err), 0);
    cr_assert_eq (sim_config_set (&own, "bus", "lanes", "false", err, sizeof err), 0);
    published.rig_generation = 3;
    sim_config_keep_local (&published, &own);
    cr_expect_eq (published.run.mode, SIM_MODE_FAST, "the simulation is physics'");
    cr_expect_str_eq (published.run.vision_addr, "10.0.0.9:10020",
                      "the vision destination follows physics (its port changes at runtime)");
    cr_expect_eq (published.rig_generation, 3);
    cr_expect_eq (memcmp (&published.bus, &own.bus, sizeof own.bus), 0);
    cr_expect_eq (memcmp (&published.network, &own.network, sizeof own.network), 0);
    cr_expect_str_eq (published.run.log_level, "info");
    cr_expect_eq (published.run.duration, 0);
}

/* ---- the --help text ---------------------------------------------------- */

/* The help of `flag` in the usage text, its wrapped lines joined by one
   space, into buf; false when the flag is not listed at a line start. */
static bool
s_flag_block (const char *usage, const char *flag, char *buf, size_t size)
{
    char start[64];
    snprintf (start, sizeof start, "\n  %s", flag);
    const char *p = usage;
    size_t len = strlen (start);
    while ((p = strstr (p, start)) && p[len] != ' ' && p[len] != '\n')
        p += len;
    if (!p)
        return false;
    p += 3;
    size_t used = 0;
    bool first = true;
    while (*p) {
        const char *end = strchr (p, '\n');
        size_t n = end ? (size_t) (end - p) : strlen (p);
        while (n > 0 && *p == ' ') {
            p++;
            n--;
        }
        if (used + n + 2 < size) {
            if (!first)
                buf[used++] = ' ';
            memcpy (buf + used, p, n);
            used += n;
        }
        first = false;
        if (!end || strncmp (end + 1, "                         ", 25) != 0)
            break;
        p = end + 1;
    }
    buf[used] = '\0';
    return true;
}

Test (config, help_lists_every_flag_of_the_table_and_no_other)
{
    char *usage = sim_config_usage ();
    cr_assert_not_null (usage);
    char block[1024];
    for (size_t i = 0; i < sim_cfg_flags_count; i++)
        cr_expect (s_flag_block (usage, sim_cfg_flags[i].name, block, sizeof block), "--help lacks %s:\n%s",
                   sim_cfg_flags[i].name, usage);
    int listed = 0;
    for (const char *p = strstr (usage, "\noptions:\n"); p && (p = strstr (p, "\n  --")); p++)
        listed++;
    cr_expect_eq (listed, (int) sim_cfg_flags_count, "one line per flag:\n%s", usage);
    cr_expect_null (strchr (usage, '{'), "a {placeholder} was left:\n%s", usage);
    for (size_t i = 0; i < sim_cfg_commands_count; i++)
        cr_expect_not_null (strstr (usage, sim_cfg_commands[i].synopsis));
    const char *line = usage;
    while (line && *line) {
        const char *end = strchr (line, '\n');
        size_t n = end ? (size_t) (end - line) : strlen (line);
        cr_expect_leq (n, 80, "line over 80 columns: %.*s", (int) n, line);
        line = end ? end + 1 : NULL;
    }
    free (usage);
}

Test (config, every_flag_is_accepted_and_names_a_real_key)
{
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        const sim_cfg_flag_t *flag = &sim_cfg_flags[i];
        if (flag->kind == SIM_CFG_FLAG_KEY || flag->key) {
            cr_assert_not_null (flag->key, "%s sets no key", flag->name);
            bool found = false;
            for (size_t k = 0; k < sim_cfg_keys_count; k++)
                found |= strcmp (sim_cfg_keys[k].section, flag->section) == 0
                      && strcmp (sim_cfg_keys[k].key, flag->key) == 0;
            cr_expect (found, "%s names [%s] %s, not in the key table", flag->name, flag->section, flag->key);
        }
        cr_expect_eq (flag->kind == SIM_CFG_FLAG_KEY && !flag->arg, flag->fixed != NULL,
                      "%s: an argument-less key flag has a fixed value", flag->name);
        /* the launcher's own flags are not configuration flags: refused,
           naming the command that takes them (its help's "cmd: ...") */
        if (flag->kind == SIM_CFG_FLAG_LAUNCHER) {
            sim_config_t cfg;
            char err[512] = "";
            cr_expect_eq (cfg_test_args (&cfg, err, sizeof err, 1, flag->name), -1);
            cr_expect_not_null (strstr (err, "is not one of this command's"), "%s: %s", flag->name, err);
        }
    }
}

Test (config, a_flag_default_in_the_help_is_the_key_default)
{
    unsetenv ("SSL_SIM_LOG");
    char *usage = sim_config_usage ();
    cr_assert_not_null (usage);
    sim_config_t reference, cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&reference, err, sizeof err, 0), 0, "%s", err);
    int shown = 0;
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        const sim_cfg_flag_t *flag = &sim_cfg_flags[i];
        char block[1024];
        cr_assert (s_flag_block (usage, flag->name, block, sizeof block));
        const char *at = strstr (block, "default ");
        if (!(flag->flags & SIM_CFG_SHOW_DEFAULT)) {
            cr_expect_null (at, "%s shows a default it does not take from the table: %s", flag->name, block);
            continue;
        }
        cr_assert_not_null (at, "%s shows no default: %s", flag->name, block);
        char value[256];
        snprintf (value, sizeof value, "%s", at + strlen ("default "));
        char *close = strrchr (value, ')');
        cr_assert_not_null (close, "%s: %s", flag->name, block);
        *close = '\0';
        /* giving the shown default as the flag's value changes nothing */
        cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, flag->name, value), 0, "%s %s: %s", flag->name,
                      value, err);
        cr_expect_eq (memcmp (&cfg, &reference, sizeof cfg), 0, "%s %s is not the default configuration",
                      flag->name, value);
        shown++;
    }
    cr_expect_geq (shown, 7);
    cr_expect_not_null (strstr (usage, "(default 224.5.23.2:10020)"));
    cr_expect_not_null (strstr (usage, "port 10010)"), "the truth port is the key's");
    free (usage);
}

/* FNV-1a, 64 bits. */
static uint64_t
s_hash (const char *text)
{
    return sim_fnv1a (SIM_FNV1A_BASIS, text, strlen (text));
}

/* What `ssl-sim presets` prints: the defaults' dump with its notes (yours
   to free). */
static char *
s_presets_text (void)
{
    unsetenv ("SSL_SIM_LOG");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 0), 0, "%s", err);
    char *text = sim_config_dump (&cfg, true);
    cr_assert_not_null (text);
    return text;
}

Test (config, presets_output_is_unchanged)
{
    /* `ssl-sim presets` as it was before the configuration module was
       split; a change of this text is a change of every user's starting
       point, so it must be deliberate */
    char *text = s_presets_text ();
    /* deliberately changed by issue 11: [network] legacy_bind_address and
       sync_takeover (6951 bytes, 0x2fe61ce871dae29f before), then [bus]
       curve and curve_cert's note (7040 bytes, 0x6afb9e7d3de5bf8c before),
       then by issue 13 for the league's tools: [vision] timestamp_base and
       truth_uuid, the three geometry-only [field] sizes and [network]
       local_vision (7092 bytes, 0xcb301d9ad044820a before), and by issue
       15: [run] record and journal (unset, with their notes) and [network]
       referee_addr, the keys of the log files, and by issue 14: the
       realistic preset recalibrated and the [realism] keys of the round-2
       vision models, by issue 12: the [viewer] section, whose defaults a
       user starts from like the others', and by issue 14's image
       coordinates: [vision] image_width and image_height, the default
       sensor, and [realism] sensor_mix, the mixed sensors of the go26 and
       rc26 presets; by issue 23: [network] local_vision = unicast, the
       reference simulator's local contract; by issue 24: [network]
       trusted_sources (unset, with its note) and [run] speed's range (8092
       bytes, 0x1794adb29437ee5d before); by issue 25: the team presets
       from TIGERs' published parameters in the preset notes (8158 bytes,
       0xc87ec48784bac252 before); by issue 25's vision-processor flavour:
       the vp26 preset's note and the six [realism] keys of its models
       (8376 bytes, 0x81b7457fe3b8131e before); by issue 25's closer
       calibration: the realistic preset's noise, dropouts, false balls,
       camera disagreement and ball-loss bursts moved to the 2026 logs'
       values (8657 bytes, 0x167c0dc93064fff1 before), then the confidence
       spread 0.09 and the [realism] key venue_ball_confidence (8661 bytes,
       0xa1548afa385e046 before); by issue 25's team presets applied to one
       team: [run] blue_robot_limits and yellow_robot_limits (8689 bytes,
       0x4504487b6f952889 before); by issue 25's go26 without ball area:
       [vision] report_area became [realism] report_ball_area, which a
       realism preset sets (8812 bytes, 0x9236dfee309d1316 before); the
       [field] note cited a section of a text users do not have and now
       cites docs/config.md as the example configuration does (8817 bytes,
       0xd84bd554038dae3c before); [realism] vision_artefacts, with which
       the none preset stops reading [vision] duplicate_robot_rate and
       confidence_stddev (8824 bytes, 0xa99fc8799ec547ae before) */
    cr_expect_eq (strlen (text), 8848, "%zu bytes, %#llx", strlen (text), (unsigned long long) s_hash (text));
    cr_expect_eq (s_hash (text), 0xc7816d2820402623u, "presets text changed:\n%s", text);
    free (text);
}

/* "section.key" of each line of INI text that sets a key or shows one
   commented out ("; key = value"), appended to `out` one per line. */
static void
s_ini_keys (const char *text, char *out, size_t cap)
{
    char section[64] = "";
    out[0] = '\0';
    for (const char *line = text; *line;) {
        size_t len = strcspn (line, "\n");
        const char *p = line;
        while (p < line + len && (*p == ' ' || *p == '\t'))
            p++;
        if (*p == '[') {
            size_t n = strcspn (p + 1, "]\n");
            snprintf (section, sizeof section, "%.*s", (int) n, p + 1);
        } else {
            if (*p == ';' || *p == '#')
                for (p++; *p == ' '; p++)
                    ;
            size_t word = 0;
            while (p + word < line + len && (isalnum ((unsigned char) p[word]) || p[word] == '_'))
                word++;
            const char *q = p + word;
            while (*q == ' ')
                q++;
            if (word > 0 && *q == '=' && section[0]) {
                size_t used = strlen (out);
                snprintf (out + used, cap - used, "%s.%.*s\n", section, (int) word, p);
            }
        }
        line += len + (line[len] == '\n');
    }
}

/* configs/ssl-sim.ini is the example users copy: every key `ssl-sim
   presets` prints must be in it, with its comment. */
Test (config, example_configuration_has_every_key_presets_prints)
{
    char *text = s_repo_text ("configs/ssl-sim.ini");
    size_t size = 256 * 1024;
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char *dump = sim_config_dump (&cfg, true);
    cr_assert_not_null (dump);
    char *printed = (char *) malloc (size), *example = (char *) malloc (size);
    cr_assert (printed && example);
    s_ini_keys (dump, printed, size);
    s_ini_keys (text, example, size);
    int keys = 0;
    for (char *k = strtok (printed, "\n"); k; k = strtok (NULL, "\n")) {
        char want[160];
        snprintf (want, sizeof want, "%s\n", k);
        keys++;
        /* the example's list starts on a line of its own */
        bool found = strncmp (example, want, strlen (want)) == 0;
        char line_want[162];
        snprintf (line_want, sizeof line_want, "\n%s", want);
        found = found || strstr (example, line_want);
        cr_expect (found, "configs/ssl-sim.ini lacks %s, which `ssl-sim presets` prints", k);
    }
    cr_expect_gt (keys, 150, "the dump's keys were not read (%d)", keys);
    free (printed);
    free (example);
    free (dump);
    free (text);
}

/* Expect every "NAME.md" that the comments of INI text `name` name to be
   docs/NAME.md (or README.md) of the repository, with no section numbers
   of a text a user does not have (issue 23: stale section references). */
static void
s_expect_cites_only_docs (const char *name, const char *text)
{
    int n = 1;
    for (const char *at = text; *at; n++) {
        size_t len = strcspn (at, "\n");
        char line[512];
        snprintf (line, sizeof line, "%.*s", (int) len, at);
        at += len + (at[len] == '\n');
        cr_expect_null (strstr (line, "\xc2\xa7"), "%s:%d cites a section number: %s", name, n, line);
        for (char *md = strstr (line, ".md"); md; md = strstr (md + 3, ".md")) {
            char *start = md;
            while (start > line && (isalnum ((unsigned char) start[-1]) || strchr ("-_/", start[-1])))
                start--;
            char doc[256];
            snprintf (doc, sizeof doc, "%.*s", (int) (md + 3 - start), start);
            cr_expect (strncmp (doc, "docs/", 5) == 0 || strcmp (doc, "README.md") == 0,
                       "%s:%d names %s, not a page of docs/", name, n, doc);
            char full[PATH_MAX];
            s_repo_path (full, sizeof full, doc);
            cr_expect_eq (access (full, R_OK), 0, "%s:%d names %s, which does not exist", name, n, doc);
        }
    }
}

/* The example users copy points them only at pages they have. */
Test (config, example_configuration_cites_only_the_docs)
{
    static const char *const files[] = { "configs/ssl-sim.ini", "configs/realism/noisy-venue.ini",
                                         "configs/lab/two-hosts.ini", "configs/lab/three-hosts.ini" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char *text = s_repo_text (files[f]);
        s_expect_cites_only_docs (files[f], text);
        free (text);
    }
}

/* So does what `ssl-sim presets` prints, the file a user starts from when
   they have no example at hand. */
Test (config, presets_output_cites_only_the_docs)
{
    char *text = s_presets_text ();
    s_expect_cites_only_docs ("ssl-sim presets", text);
    free (text);
}
