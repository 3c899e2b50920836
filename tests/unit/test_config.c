/*  test_config.c - the configuration module (common/config/config*.c): defaults
    with the numbers of spec/config.md, INI files, flags and their
    precedence, error messages naming file, line and key, presets, the
    dump round trip, keys by name, the local keys, and the --help text
    against the flag and key tables (config_table.h).
*/
#include <criterion/criterion.h>
#include <ctype.h>
#include <criterion/redirect.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/config/config_table.h"
#include "common/base/sim_hash.h"

/* 2.5 degrees as vision.md §11 prints it */
#define KICK_DIR_2_5_DEG 0.04363323129985824

/* ---- helpers ------------------------------------------------------------ */

/* A fresh directory per test, named into the caller's buffer. It stays in
   /tmp after the test (a few bytes) so a failure can be inspected. */
#define S_TMPDIR(name_) \
    char name_[64]; \
    snprintf (name_, sizeof name_, "/tmp/test_config.XXXXXX"); \
    cr_assert_not_null (mkdtemp (name_))

/* Write `text` to DIR/NAME; returns a heap path the caller frees. */
static char *
s_write (const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    cr_assert (asprintf (&path, "%s/%s", dir, name) > 0);
    FILE *file = fopen (path, "w");
    cr_assert_not_null (file);
    fputs (text, file);
    fclose (file);
    return path;
}

static int
s_args (sim_config_t *cfg, char *err, size_t errlen, int argc, ...)
{
    char *argv[32];
    va_list args;
    va_start (args, argc);
    for (int i = 0; i < argc; i++)
        argv[i] = va_arg (args, char *);
    va_end (args);
    sim_config_defaults (cfg);
    return sim_config_from_args (cfg, argc, argv, err, errlen);
}

/* Strings are compared with memcmp too, so the tail must be zero. */
static void
s_set_string (char *dest, size_t size, const char *text)
{
    memset (dest, 0, size);
    strncpy (dest, text, size - 1);
}

static int
s_load (sim_config_t *cfg, const char *text, char *err, size_t errlen)
{
    sim_config_defaults (cfg);
    return sim_config_load_string (cfg, text, "test.ini", err, errlen);
}

/* The message of a failed string load. */
static void
s_expect_error (const char *text, const char *needle)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_load (&cfg, text, err, sizeof err), -1, "accepted: %s", text);
    cr_assert_not_null (strstr (err, needle), "message '%s' lacks '%s'", err, needle);
}

static void
s_expect_round_trip (const sim_config_t *cfg)
{
    char *text = sim_config_dump (cfg, true);
    cr_assert_not_null (text);
    sim_config_t back;
    char err[512] = "";
    int rc = s_load (&back, text, err, sizeof err);
    cr_assert_eq (rc, 0, "dump does not load: %s\n%s", err, text);
    back.rig_generation = cfg->rig_generation;
    for (size_t i = 0; i < sizeof back; i++)
        if (((const unsigned char *) cfg)[i] != ((const unsigned char *) &back)[i]) {
            fprintf (stderr, "first difference at byte %zu\n", i);
            break;
        }
    cr_assert_eq (memcmp (cfg, &back, sizeof back), 0, "round trip differs:\n%s", text);
    free (text);
}

/* ---- defaults ----------------------------------------------------------- */

Test (config, defaults_match_the_spec)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_expect_eq (cfg.sim.substep, 0.001);
    cr_expect_eq (cfg.sim.seed, 0);
    cr_expect_eq (cfg.sim.command_timeout, 0.1);
    cr_expect_eq (cfg.sim.wall_height, 0.10);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 11);

    cr_expect_eq (cfg.ball.radius, 0.0215);
    cr_expect_eq (cfg.ball.mass, 0.046);
    cr_expect_eq (cfg.ball.acc_slide, -3.3);
    cr_expect_eq (cfg.ball.acc_roll, -0.22);
    cr_expect_eq (cfg.ball.roll_speed_coefficient, 0.045);
    cr_expect_eq (cfg.ball.advertise_roll_speed, 1.5);
    cr_expect_eq (cfg.ball.inertia_distribution, 0.5);
    cr_expect_eq (cfg.ball.chip_damping_xy_first_hop, 0.70);
    cr_expect_eq (cfg.ball.chip_damping_xy_other_hops, 0.87);
    cr_expect_eq (cfg.ball.chip_damping_z, 0.46);
    cr_expect_eq (cfg.ball.chip_damping_z_other_hops, 0.40);
    cr_expect_eq (cfg.ball.min_hop_height, 0.01);
    cr_expect_eq (cfg.ball.rest_speed, 0.01);

    cr_expect_eq (cfg.contact.ball_robot_normal, 0.5);
    cr_expect_eq (cfg.contact.ball_kicker_normal, 0.8);
    cr_expect_eq (cfg.contact.ball_wall_tangent, 0.0);
    cr_expect_eq (cfg.contact.spin_retention, 0.6);
    cr_expect_eq (cfg.contact.ball_robot_top_normal, 0.54);
    cr_expect (cfg.contact.robot_hull_chord_contacts);

    for (int team = 0; team < 2; team++) {
        const sim_robot_specs_t *s = &cfg.team[team];
        cr_expect_eq (s->radius, 0.09);
        cr_expect_eq (s->height, 0.15);
        cr_expect_eq (s->mass, 2.5);
        cr_expect_eq (s->inertia_z, 0, "inertia_z is unset by default");
        cr_expect_eq (s->center_to_dribbler, 0.075);
        cr_expect_eq (s->dribbler_width, 0.07);
        cr_expect_eq (s->shoot_radius, 0.0965);
        cr_expect_eq (s->limits.acc_speedup_absolute_max, 3.5);
        cr_expect_eq (s->limits.acc_speedup_angular_max, 40);
        cr_expect_eq (s->limits.acc_brake_absolute_max, 5.0);
        cr_expect_eq (s->limits.acc_brake_angular_max, 40);
        cr_expect_eq (s->limits.vel_absolute_max, 3.0);
        cr_expect_eq (s->limits.vel_angular_max, 12);
        cr_expect_eq (s->wheel_angles.front_right, -1.0471975511965976);
        cr_expect_eq (s->wheel_angles.back_right, -2.356194490192345);
        cr_expect_eq (s->wheel_angles.back_left, 2.356194490192345);
        cr_expect_eq (s->wheel_angles.front_left, 1.0471975511965976);
        cr_expect_eq (s->drive.model, SIM_DRIVE_WHEELS);
        cr_expect_eq (s->drive.wheel_radius, 0.027);
        cr_expect_eq (s->drive.wheel_mount_radius, 0.0875);
        cr_expect_eq (s->drive.max_wheel_speed, 5.0);
        cr_expect_eq (s->drive.max_wheel_force, 6.0);
        cr_expect_eq (s->drive.velocity_gain, 60);
        cr_expect_eq (s->drive.mu_drive, 0.8);
        cr_expect_eq (s->drive.mu_lateral, 0.05);
        cr_expect_eq (s->drive.coast_decel, 8.0);
        cr_expect_eq (s->drive.coast_angular_decel, 50);
        cr_expect_eq (s->kicker.max_linear_speed, 6.5);
        cr_expect_eq (s->kicker.max_chip_speed, 5.5);
        cr_expect_eq (s->kicker.min_speed, 0.05);
        cr_expect_eq (s->kicker.charge_time, 0.1);
        cr_expect_eq (s->kicker.max_ball_height, 0.05);
        cr_expect_eq (s->kicker.incoming_damping, 1.0);
        cr_expect_eq (s->dribbler.max_speed_rpm, 10000);
        cr_expect_eq (s->dribbler.hold_accel, 3.0);
        cr_expect_eq (s->dribbler.hold_accel_stddev, 1.0);
        cr_expect_eq (s->dribbler.hold_accel_min, 1.5);
        cr_expect_eq (s->dribbler.roller_radius, 0.007);
        cr_expect_eq (s->dribbler.seat_depth, 0.0);
        cr_expect_not (s->dribbler.glue);
    }

    cr_expect_eq (cfg.vision.default_camera_count, 0);
    cr_expect_eq (cfg.vision.default_camera_height, 6.4);
    cr_expect_eq (cfg.vision.default_camera_x_fraction, 0.20);
    cr_expect_eq (cfg.vision.fov_radius, 6.6);
    cr_expect_eq (cfg.vision.camera_phase, SIM_PHASE_LOCKED);
    cr_expect_eq (cfg.vision.phase_offset_count, 0);
    cr_expect (cfg.vision.report_area);
    cr_expect_eq (cfg.vision.area_at_nadir_px, 63.0);
    cr_expect_eq (cfg.vision.spurious_ball_area_px, 32.0);
    cr_expect_eq (cfg.vision.spurious_ball_forward, 0.13);
    cr_expect_eq (cfg.vision.spurious_ball_lateral_stddev, 0.07);
    cr_expect_eq (cfg.vision.robot_confidence_mean, 0.9);
    cr_expect_eq (cfg.vision.confidence_stddev, 0.05);
    cr_expect_eq (cfg.vision.duplicate_robot_rate, 3e-5);
    cr_expect_eq (cfg.vision.frame_rate, 73.3);
    cr_expect_eq (cfg.vision.geometry_every_n_frames, 73);
    cr_expect_not (cfg.vision.report_ball_z);
    cr_expect_eq (cfg.vision.timestamp_epoch_offset, 0.0);
    cr_expect_eq (cfg.vision.focal_length_px, 1420.0);
    cr_expect_eq (cfg.vision.camera_count, 0);
    cr_expect_eq (cfg.vision.outage_count, 0);

    cr_expect_eq (cfg.realism.stddev_ball_p, 0.0007);
    cr_expect_eq (cfg.realism.stddev_ball_area, 3.3);
    cr_expect_eq (cfg.realism.camera_overlap, 0.8);
    cr_expect_eq (cfg.realism.vision_delay, 0.022);
    /* the median since issue 14 (it was the mean 0.0073, a constant) */
    cr_expect_eq (cfg.realism.vision_processing_time, 0.00675);
    cr_expect_eq (cfg.realism.vision_processing_p90, 0.00894);
    cr_expect_eq (cfg.realism.fov_edge_radius, 6.92);
    cr_expect_eq (cfg.realism.calibration_warp_length, 3.0);
    cr_expect_eq (cfg.realism.kick_direction_stddev, 0.04363323129985824);
    cr_expect_eq (cfg.realism.chip_angle_stddev, 0.10471975511965978);
    cr_expect_eq (cfg.realism.kick_speed_factor_stddev, 0.1);

    cr_expect_eq (cfg.field.length, 0);
    cr_expect_eq (cfg.field.line_thickness, 0);

    cr_expect_eq (cfg.run.division, SIM_DIVISION_A);
    cr_expect_eq (cfg.run.mode, SIM_MODE_REALTIME);
    cr_expect_eq (cfg.run.speed, 1.0);
    cr_expect_str_empty (cfg.run.realism);
    cr_expect_str_empty (cfg.run.ball_preset);
    cr_expect_str_empty (cfg.run.robot_limits);
    cr_expect_str_eq (cfg.run.vision_addr, "224.5.23.2:10020");
    cr_expect_not (cfg.run.localhost);
    cr_expect_not (cfg.run.truth);
    cr_expect (cfg.run.legacy_grsim);
    cr_expect_eq (cfg.run.duration, 0);
    cr_expect_str_eq (cfg.run.log_level, "info");

    cr_expect_str_eq (cfg.network.bind_address, "0.0.0.0");
    cr_expect_eq (cfg.network.control_port, 10300);
    cr_expect_eq (cfg.network.blue_port, 10301);
    cr_expect_eq (cfg.network.yellow_port, 10302);
    cr_expect_eq (cfg.network.legacy_port, 20011);
    cr_expect_eq (cfg.network.legacy_status_port_blue, 30011);
    cr_expect_eq (cfg.network.legacy_status_port_yellow, 30012);
    cr_expect_eq (cfg.network.truth_port, 10010);
    cr_expect_eq (cfg.network.multicast_ttl, 1);
    cr_expect_eq (cfg.network.port_offset, 0);

    cr_expect_str_empty (cfg.bus.cmd_bind);
    cr_expect_str_empty (cfg.bus.frames_connect);
    cr_expect_eq (cfg.bus.sync_timeout, 0.5);
    cr_expect_eq (cfg.rig_generation, 0);
}

Test (config, defaults_are_deterministic_and_realistic)
{
    sim_config_t a, b;
    memset (&a, 0xa5, sizeof a);
    memset (&b, 0x5a, sizeof b);
    sim_config_defaults (&a);
    sim_config_defaults (&b);
    cr_assert_eq (memcmp (&a, &b, sizeof a), 0, "padding or unused slots differ");

    sim_realism_t realistic;
    cr_assert_eq (sim_config_realism_preset ("realistic", &realistic), 0);
    cr_assert_eq (memcmp (&a.realism, &realistic, sizeof realistic), 0,
                  "default [realism] is the realistic preset");
    sim_ball_cfg_t ball;
    cr_assert_eq (sim_config_ball_preset ("default", &ball), 0);
    cr_assert_eq (memcmp (&a.ball, &ball, sizeof ball), 0);
    sim_limits_t limits;
    cr_assert_eq (sim_config_limits_preset ("default", &limits), 0);
    cr_assert_eq (memcmp (&a.team[0].limits, &limits, sizeof limits), 0);
}

Test (config, defaults_pass_validation_and_empty_args)
{
    sim_config_t cfg, ref;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 0), 0, "%s", err);
    sim_config_defaults (&ref);
    cr_assert_eq (memcmp (&cfg, &ref, sizeof cfg), 0, "no flags = defaults");
}

/* ---- file loading ------------------------------------------------------- */

Test (config, file_sets_every_kind_of_key)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "a.ini",
                          "; a comment\n"
                          "# another comment\n"
                          "[sim]\n"
                          "substep = 0.002\n"
                          "seed = 18446744073709551615\n"
                          "initial_robots_per_team = 6   ; inline comment\n"
                          "[ball]\n"
                          "acc_slide = -3.9e0\n"
                          "[contact]\n"
                          "robot_hull_chord_contacts = off\n"
                          "[Yellow.Limits]\n"
                          "VEL_ABSOLUTE_MAX = 2.5\n"
                          "[yellow]\n"
                          "inertia_z = 0.02\n"
                          "[blue.drive]\n"
                          "model = IDEAL\n"
                          "[vision]\n"
                          "camera_phase = free_running\n"
                          "phase_offsets = 0.0, 0.00136 ,-0.5\n"
                          "report_area = no\n"
                          "[realism]\n"
                          "stddev_ball_p = 0.001\n"
                          "[field]\n"
                          "length = 10.4\n"
                          "[run]\n"
                          "division = div_b\n"
                          "mode = real-time\n"
                          "vision_addr = 127.0.0.1:10006\n"
                          "truth = yes\n"
                          "duration = 12.5\n"
                          "log_level = debug\n"
                          "[network]\n"
                          "port_offset = 100\n"
                          "bind_address = 127.0.0.1\n"
                          "[bus]\n"
                          "cmd_bind = tcp://*:7301\n"
                          "sync_timeout = 0.25\n"
                          "substep = 1\n"
                          "substep = 2\n");
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_load_file (&cfg, path, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.sim.substep, 0.002);
    cr_expect_eq (cfg.sim.seed, UINT64_MAX);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 6);
    cr_expect_eq (cfg.ball.acc_slide, -3.9);
    cr_expect_eq (cfg.ball.acc_roll, -0.22, "partial tables keep the other defaults");
    cr_expect_not (cfg.contact.robot_hull_chord_contacts);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, 2.5);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, 3.0);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].inertia_z, 0.02);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].drive.model, SIM_DRIVE_IDEAL);
    cr_expect_eq (cfg.vision.camera_phase, SIM_PHASE_FREE_RUNNING);
    cr_expect_eq (cfg.vision.phase_offset_count, 3);
    cr_expect_eq (cfg.vision.phase_offsets[1], 0.00136);
    cr_expect_eq (cfg.vision.phase_offsets[2], -0.5);
    cr_expect_not (cfg.vision.report_area);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.001);
    cr_expect_eq (cfg.realism.stddev_robot_p, 0.0005, "partial [realism] stays realistic");
    cr_expect_eq (cfg.field.length, 10.4);
    cr_expect_eq (cfg.run.division, SIM_DIVISION_B);
    cr_expect_eq (cfg.run.mode, SIM_MODE_REALTIME);
    cr_expect_str_eq (cfg.run.vision_addr, "127.0.0.1:10006");
    cr_expect (cfg.run.truth);
    cr_expect_eq (cfg.run.duration, 12.5);
    cr_expect_str_eq (cfg.run.log_level, "debug");
    cr_expect_eq (cfg.network.port_offset, 100);
    cr_expect_eq (sim_config_port (&cfg, cfg.network.control_port), 10400);
    cr_expect_str_eq (cfg.network.bind_address, "127.0.0.1");
    cr_expect_str_eq (cfg.bus.cmd_bind, "tcp://*:7301");
    cr_expect_eq (cfg.bus.sync_timeout, 0.25);
    free (path);
}

Test (config, repeated_key_last_wins_and_indentation_is_ignored)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_load (&cfg, "[sim]\n  seed = 1\n\tseed = 7\n", err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 7);
}

Test (config, windows_line_ends_and_byte_order_mark)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (
        s_load (&cfg, "\xEF\xBB\xBF[sim]\r\nseed = 9\r\n[run]\r\nlog_level = warn\r\n", err, sizeof err), 0,
        "%s", err);
    cr_expect_eq (cfg.sim.seed, 9);
    cr_expect_str_eq (cfg.run.log_level, "warn");
}

Test (config, several_config_files_load_in_order)
{
    S_TMPDIR (dir);
    char *first = s_write (dir, "1.ini", "[sim]\nseed = 1\nwall_height = 0.2\n");
    char *second = s_write (dir, "2.ini", "[sim]\nseed = 2\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 3, "--config", first, "--config="), -1,
                  "an empty --config= value is not a file");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--config", first, "--config", second), 0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 2);
    cr_expect_eq (cfg.sim.wall_height, 0.2);
    free (first);
    free (second);
}

Test (config, cameras_and_outages_are_ordered_by_number)
{
    sim_config_t cfg;
    char err[512] = "";
    const char *text = "[camera 7]\nx = -2.4\ny = 0\nz = 6.1\n"
                       "[camera 2]\nid = 5\nx = 2.4\ny = 0.5\nz = 6.4\n"
                       "[outage 3]\nstart = 9\nduration = 1\n"
                       "[outage 0]\nstart = 120.0\nduration = 310.0\n";
    cr_assert_eq (s_load (&cfg, text, err, sizeof err), 0, "%s", err);
    cr_assert_eq (cfg.vision.camera_count, 2);
    cr_expect_eq (cfg.vision.cameras[0].id, 5);
    cr_expect_eq (cfg.vision.cameras[0].x, 2.4);
    cr_expect_eq (cfg.vision.cameras[0].y, 0.5);
    cr_expect_eq (cfg.vision.cameras[1].id, 7, "id defaults to the section number");
    cr_expect_eq (cfg.vision.cameras[1].z, 6.1);
    cr_assert_eq (cfg.vision.outage_count, 2);
    cr_expect_eq (cfg.vision.outages[0].start, 120.0);
    cr_expect_eq (cfg.vision.outages[0].duration, 310.0);
    cr_expect_eq (cfg.vision.outages[1].start, 9);

    /* a later source with cameras replaces the list; one without keeps it */
    cr_assert_eq (sim_config_load_string (&cfg, "[camera 0]\nx=0\ny=0\nz=5\n", "b", err, sizeof err), 0, "%s",
                  err);
    cr_expect_eq (cfg.vision.camera_count, 1);
    cr_expect_eq (cfg.vision.cameras[1].z, 0, "dropped slots are zeroed");
    cr_assert_eq (sim_config_load_string (&cfg, "[sim]\nseed=3\n", "c", err, sizeof err), 0);
    cr_expect_eq (cfg.vision.camera_count, 1);
    cr_expect_eq (cfg.vision.outage_count, 2);
}

/* ---- errors ------------------------------------------------------------- */

Test (config, malformed_values_name_file_line_and_key)
{
    s_expect_error ("[sim]\nseed = 1\nsubstep = 0.0O1\n",
                    "test.ini:3: [sim] substep: '0.0O1' is not a finite number");
    s_expect_error ("[ball]\nmass = nan\n", "test.ini:2: [ball] mass:");
    s_expect_error ("[ball]\nmass = 1e999\n", "test.ini:2: [ball] mass:");
    s_expect_error ("[ball]\nmass =\n", "test.ini:2: [ball] mass:");
    s_expect_error ("[sim]\ninitial_robots_per_team = 2.5\n",
                    "test.ini:2: [sim] initial_robots_per_team: '2.5' is not an integer");
    s_expect_error ("[sim]\nseed = -1\n", "test.ini:2: [sim] seed:");
    s_expect_error ("[sim]\nseed = random\n", "only on the command line");
    s_expect_error ("\n\n[contact]\nrobot_hull_chord_contacts = maybe\n",
                    "test.ini:4: [contact] robot_hull_chord_contacts: 'maybe' is not a boolean");
    s_expect_error ("[vision]\nphase_offsets = 0.1, x\n", "test.ini:2: [vision] phase_offsets:");
    s_expect_error ("[vision]\nphase_offsets = 0.1,\n", "[vision] phase_offsets: empty list item");
    s_expect_error ("[vision]\nphase_offsets = 1,2,3,4,5,6,7,8,9\n", "more than 8 values");
    s_expect_error ("[network]\nmulticast_ttl = 99999999999\n", "[network] multicast_ttl:");
    s_expect_error ("[vision]\ngeometry_every_n_frames = 4294967297\n",
                    "[vision] geometry_every_n_frames: 4294967297 is out of range");
}

Test (config, out_of_range_values_are_errors)
{
    s_expect_error ("[sim]\ninitial_robots_per_team = 17\n",
                    "test.ini:2: [sim] initial_robots_per_team: 17 is out of range "
                    "(must be within 0..16)");
    s_expect_error ("[sim]\nsubstep = 0\n", "[sim] substep: 0 is out of range (must be > 0 and <= 1)");
    s_expect_error ("[sim]\nsubstep = 2\n", "[sim] substep: 2 is out of range (must be > 0 and <= 1)");
    s_expect_error ("[ball]\nacc_slide = 3.3\n", "[ball] acc_slide: 3.3 is out of range");
    s_expect_error ("[contact]\nspin_retention = 1.01\n", "must be within 0..1");
    s_expect_error ("[blue]\nradius = 0.02\n", "test.ini:2: [blue] radius: 0.02 is out of range");
    s_expect_error ("[yellow]\ninertia_z = -1\n", "[yellow] inertia_z:");
    s_expect_error ("[yellow.kicker]\nincoming_damping = 2\n", "[yellow.kicker] incoming_damping:");
    s_expect_error ("[vision]\ndefault_camera_x_fraction = 0.6\n", "within 0..0.5");
    s_expect_error ("[network]\ncontrol_port = 70000\n", "within 1..65535");
    s_expect_error ("[run]\nspeed = -1\n", "[run] speed:");
    s_expect_error ("[run]\nduration = -5\n", "[run] duration:");
    s_expect_error ("[realism]\nrobot_command_loss = 1.5\n", "[realism] robot_command_loss:");
    s_expect_error ("[camera 0]\nx = 0\ny = 0\nz = -1\n", "[camera 0] z:");
    s_expect_error ("[outage 1]\nstart = -1\nduration = 1\n", "[outage 1] start:");
}

Test (config, zero_means_unset_where_documented)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_load (&cfg, "[blue]\ninertia_z = 0\n[run]\nduration = 0\n", err, sizeof err), 0, "%s",
                  err);
    cr_expect_eq (cfg.team[0].inertia_z, 0);
    cr_expect_eq (cfg.run.duration, 0);
}

Test (config, bad_enums_list_the_choices)
{
    s_expect_error ("[run]\ndivision = c\n", "test.ini:2: [run] division: 'c' is not one of a | b");
    s_expect_error ("[run]\nmode = slow\n", "'slow' is not one of realtime | fast | sync");
    s_expect_error ("[vision]\ncamera_phase = random\n", "locked | free_running");
    s_expect_error ("[blue.drive]\nmodel = tracks\n",
                    "[blue.drive] model: 'tracks' is not one of wheels | ideal");
    s_expect_error ("[run]\nlog_level = loud\n", "[run] log_level:");
    s_expect_error ("[run]\nball_preset = bouncy\n", "[run] ball_preset: unknown ball preset 'bouncy'");
    s_expect_error ("[run]\nrobot_limits = slow\n", "[run] robot_limits: unknown robot limits");
    s_expect_error ("[run]\nvision_addr = 224.5.23.2\n", "[run] vision_addr: '224.5.23.2' is not HOST:PORT");
    s_expect_error ("[run]\nvision_addr = host:0\n", "is not HOST:PORT");
}

Test (config, syntax_errors_and_incomplete_sections)
{
    s_expect_error ("[sim]\nseed = 1\njust some words\n", "test.ini:3: syntax error");
    s_expect_error ("[sim\nseed = 1\n", "test.ini:1: syntax error");
    s_expect_error ("[sim]\nwords\nseed = x\n", "test.ini:2: syntax error");
    s_expect_error ("[sim]\nseed = x\nwords\n", "test.ini:2: [sim] seed:");
    s_expect_error ("[camera 0]\nx = 1\ny = 2\n", "test.ini:1: [camera 0] z: missing");
    s_expect_error ("[sim]\n[outage 4]\nduration = 1\n", "test.ini:2: [outage 4] start: missing");
    s_expect_error ("[camera 0]\nx=0\ny=0\nz=1\n[camera 1]\nx=0\ny=0\nz=1\n[camera 2]\nx=0\ny=0\nz=1\n"
                    "[camera 3]\nx=0\ny=0\nz=1\n[camera 4]\nx=0\ny=0\nz=1\n[camera 5]\nx=0\ny=0\nz=1\n"
                    "[camera 6]\nx=0\ny=0\nz=1\n[camera 7]\nx=0\ny=0\nz=1\n[camera 8]\nx=0\ny=0\nz=1\n",
                    "test.ini:33: [camera 8]: more than 8 such sections");
    char line[400];
    memset (line, 'x', sizeof line);
    memcpy (line, "[sim]\nseed = ", 13);
    memcpy (line + sizeof line - 2, "\n", 2);
    s_expect_error (line, "test.ini:2: line longer than 199 characters");
}

Test (config, unknown_keys_and_sections_are_warnings)
{
    sim_config_t cfg;
    char err[512] = "";
    const char *text = "orphan = 1\n"
                       "[sim]\nseed = 4\nsubstepp = 0.1\n"
                       "[physics]\ngravity = 9.81\nmore = 1\n"
                       "[blue.wheels]\nn = 4\n"
                       "[camera x]\nid = 1\n"
                       "[camera 0]\nx = 1\ny = 1\nz = 6\nfocal = 3\n"
                       "[ball]\nradius = 0.0213\n";
    cr_assert_eq (s_load (&cfg, text, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 4);
    cr_expect_eq (cfg.ball.radius, 0.0213, "keys after unknown ones still apply");
    cr_expect_eq (cfg.vision.camera_count, 1);
}

Test (config, unknown_key_warning_names_file_line_and_key, .init = cr_redirect_stderr)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_load (&cfg, "[sim]\nseed = 1\n\nsubstepp = 0.1\n[physics]\ng = 9.8\n", err, sizeof err),
                  0, "%s", err);
    fflush (stderr);
    FILE *captured = cr_get_redirected_stderr ();
    char text[2048];
    size_t len = fread (text, 1, sizeof text - 1, captured);
    text[len] = '\0';
    cr_expect_not_null (strstr (text, "test.ini:4: [sim] substepp: unknown key ignored"), "%s", text);
    cr_expect_not_null (strstr (text, "test.ini:6: unknown section [physics] ignored"), "%s", text);
}

Test (config, unreadable_file_is_an_error)
{
    S_TMPDIR (dir);
    char path[256];
    snprintf (path, sizeof path, "%s/missing.ini", dir);
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_load_file (&cfg, path, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, path), "%s", err);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "missing.ini"), "%s", err);
    /* a directory is not a readable configuration either */
    cr_assert_eq (sim_config_load_file (&cfg, dir, err, sizeof err), -1);
}

Test (config, file_error_through_args_names_the_file)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "bad.ini", "[sim]\n\nwall_height = -0.1\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    char expect[400];
    snprintf (expect, sizeof expect, "%s:3: [sim] wall_height:", path);
    cr_expect_not_null (strstr (err, expect), "%s", err);
    free (path);
}

/* ---- flags -------------------------------------------------------------- */

Test (config, every_flag_sets_its_key)
{
    sim_config_t cfg;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    int rc = s_args (&cfg, err, sizeof err, 27, "--division", "B", "--robots", "6", "--mode", "sync",
                     "--speed", "0", "--step-ms", "0.5", "--cameras", "4", "--seed", "42", "--vision-addr",
                     "10.0.0.1:10006", "--localhost", "--truth", "--no-legacy-grsim", "--duration", "30",
                     "--log-level", "trace", "--port-offset", "20", "--realism", "none");
    cr_assert_eq (rc, 0, "%s", err);
    cr_expect_eq (cfg.run.division, SIM_DIVISION_B);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 6);
    cr_expect_eq (cfg.run.mode, SIM_MODE_SYNC);
    cr_expect_eq (cfg.run.speed, 0);
    cr_expect_eq (cfg.sim.substep, 0.0005);
    cr_expect_eq (cfg.vision.default_camera_count, 4);
    cr_expect_eq (cfg.sim.seed, 42);
    cr_expect_str_eq (cfg.run.vision_addr, "10.0.0.1:10006");
    cr_expect (cfg.run.localhost);
    cr_expect (cfg.run.truth);
    cr_expect_not (cfg.run.legacy_grsim);
    cr_expect_eq (cfg.run.duration, 30);
    cr_expect_str_eq (cfg.run.log_level, "trace");
    cr_expect_eq (cfg.network.port_offset, 20);
    cr_expect_eq (sim_config_port (&cfg, 10020), 10040);
    cr_expect_str_eq (cfg.run.realism, "none");
    cr_expect_eq (cfg.realism.stddev_ball_p, 0);
    cr_expect_eq (cfg.realism.vision_delay, 0.035);
}

Test (config, flags_with_equals_and_division_aliases)
{
    sim_config_t cfg;
    char err[512] = "";
    const char *names[] = { "a", "b", "diva", "div_a", "DivB", "div_b" };
    const sim_division_t expect[] = { SIM_DIVISION_A, SIM_DIVISION_B, SIM_DIVISION_A,
                                      SIM_DIVISION_A, SIM_DIVISION_B, SIM_DIVISION_B };
    for (int i = 0; i < 6; i++) {
        char flag[64];
        snprintf (flag, sizeof flag, "--division=%s", names[i]);
        cr_assert_eq (s_args (&cfg, err, sizeof err, 1, flag), 0, "%s", err);
        cr_expect_eq (cfg.run.division, expect[i], "%s", names[i]);
    }
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--mode", "real-time"), 0, "%s", err);
    cr_expect_eq (cfg.run.mode, SIM_MODE_REALTIME);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--mode=fast", "--speed=2.5"), 0, "%s", err);
    cr_expect_eq (cfg.run.mode, SIM_MODE_FAST);
    cr_expect_eq (cfg.run.speed, 2.5);
    cr_expect_str_eq (sim_config_mode_name (cfg.run.mode), "fast");
    cr_expect_str_eq (sim_config_mode_name (SIM_MODE_REALTIME), "realtime");
    cr_expect_str_eq (sim_config_mode_name (SIM_MODE_SYNC), "sync");
}

Test (config, seed_random_differs_and_u64_max_is_accepted)
{
    sim_config_t a, b;
    char err[512] = "";
    cr_assert_eq (s_args (&a, err, sizeof err, 2, "--seed", "random"), 0, "%s", err);
    cr_assert_eq (s_args (&b, err, sizeof err, 2, "--seed", "RANDOM"), 0, "%s", err);
    cr_expect_neq (a.sim.seed, b.sim.seed, "two clock readings give two seeds");
    cr_assert_eq (s_args (&a, err, sizeof err, 2, "--seed", "18446744073709551615"), 0);
    cr_expect_eq (a.sim.seed, UINT64_MAX);
}

Test (config, cameras_flag_clears_explicit_cameras)
{
    S_TMPDIR (dir);
    char *path =
        s_write (dir, "rig.ini", "[camera 0]\nx = 0\ny = 0\nz = 6\n[camera 1]\nx = 1\ny = 0\nz = 6\n");
    sim_config_t cfg, ref;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.vision.camera_count, 2);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--cameras", "1", "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.vision.camera_count, 0);
    cr_expect_eq (cfg.vision.default_camera_count, 1);
    sim_config_defaults (&ref);
    cr_expect_eq (memcmp (cfg.vision.cameras, ref.vision.cameras, sizeof ref.vision.cameras), 0);
    free (path);
}

Test (config, bad_flags_are_errors)
{
    sim_config_t cfg;
    char err[512] = "";
    struct {
        int argc;
        const char *argv[3];
        const char *needle;
    } cases[] = {
        { 1, { "--bogus" }, "unknown option '--bogus'" },
        { 1, { "--bogus=3" }, "unknown option '--bogus'" },
        { 1, { "run" }, "unexpected argument 'run'" },
        { 1, { "--speed" }, "option --speed needs a value" },
        { 2, { "--config", "--truth" }, "option --config needs a value" },
        { 1, { "--truth=yes" }, "option --truth takes no value" },
        { 2, { "--robots", "17" }, "--robots: 17 is out of range (must be within 0..16)" },
        { 2, { "--robots", "x" }, "--robots: 'x' is not an integer" },
        { 2, { "--division", "c" }, "--division: 'c' is not one of a | b" },
        { 2, { "--mode", "slow" }, "--mode:" },
        { 2, { "--speed", "-1" }, "--speed:" },
        { 2, { "--speed", "inf" }, "--speed:" },
        { 2, { "--step-ms", "0" }, "--step-ms:" },
        { 2, { "--step-ms", "0.0000001" }, "nanoseconds" },
        { 2, { "--cameras", "3" }, "--cameras: '3' must be 1, 2 or 4" },
        { 2, { "--seed", "-4" }, "--seed:" },
        { 2, { "--seed", "99999999999999999999" }, "--seed:" },
        { 2, { "--vision-addr", "nohost" }, "--vision-addr:" },
        { 2, { "--duration", "0" }, "--duration:" },
        { 2, { "--log-level", "chatty" }, "--log-level:" },
        { 2, { "--port-offset", "-1" }, "--port-offset:" },
        { 2, { "--port-offset", "40000" }, "port_offset 40000 moves port" },
        { 2, { "--realism", "ultra" }, "unknown realism 'ultra'" },
        { 2, { "--ball-preset", "bouncy" }, "--ball-preset: unknown ball preset 'bouncy'" },
        { 2, { "--robot-limits", "slow" }, "--robot-limits: unknown robot limits preset 'slow'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[3];
        for (int k = 0; k < cases[i].argc; k++)
            argv[k] = (char *) cases[i].argv[k];
        sim_config_defaults (&cfg);
        err[0] = '\0';
        cr_expect_eq (sim_config_from_args (&cfg, cases[i].argc, argv, err, sizeof err), -1, "accepted %s",
                      cases[i].argv[0]);
        cr_expect_not_null (strstr (err, cases[i].needle), "'%s' lacks '%s'", err, cases[i].needle);
    }
}

Test (config, realism_error_lists_the_presets)
{
    sim_config_t cfg;
    char err[1024] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--realism", "ultra"), -1);
    cr_expect_not_null (strstr (err, "erforce_rc2021"), "%s", err);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--ball-preset", "x"), -1);
    cr_expect_not_null (strstr (err, "tigers"), "%s", err);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--robot-limits", "x"), -1);
    cr_expect_not_null (strstr (err, "kiks"), "%s", err);
}

Test (config, log_level_environment_wins)
{
    sim_config_t cfg;
    char err[512] = "";
    setenv ("SSL_SIM_LOG", "warn", 1);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--log-level", "trace"), 0, "%s", err);
    cr_expect_str_eq (cfg.run.log_level, "warn");
    setenv ("SSL_SIM_LOG", "nonsense", 1);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--log-level", "trace"), 0, "%s", err);
    cr_expect_str_eq (cfg.run.log_level, "trace", "an invalid environment value is ignored");
    unsetenv ("SSL_SIM_LOG");
}

Test (config, cross_key_checks)
{
    sim_config_t cfg;
    char err[512] = "";
    S_TMPDIR (dir);
    char *path = s_write (dir, "c.ini", "[blue]\ncenter_to_dribbler = 0.095\n");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "[blue] center_to_dribbler"), "%s", err);
    free (path);
    path = s_write (dir, "d.ini", "[yellow]\nshoot_radius = 0.09\n");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "[yellow] shoot_radius"), "%s", err);
    free (path);
    path = s_write (dir, "e.ini", "[sim]\nsubstep = 0.0000000015\n");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "nanoseconds"), "%s", err);
    free (path);
}

Test (config, validate_checks_every_range_of_a_struct)
{
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_validate (&cfg, err, sizeof err), 0, "%s", err);

    sim_config_defaults (&cfg);
    cfg.ball.mass = -1;
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "[ball] mass: -1.0 is out of range (must be > 0)"), "%s", err);

    sim_config_defaults (&cfg);
    cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max = NAN;
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "[yellow.limits] vel_absolute_max: 'nan' is not a finite"), "%s", err);

    sim_config_defaults (&cfg);
    cfg.run.mode = (sim_mode_t) 7;
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "[run] mode:"), "%s", err);

    sim_config_defaults (&cfg);
    cfg.vision.camera_count = 1;
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1, "a camera at z = 0");
    cr_expect_not_null (strstr (err, "[camera 0] z:"), "%s", err);

    sim_config_defaults (&cfg);
    cfg.realism.robot_command_loss = 2;
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "[realism] robot_command_loss:"), "%s", err);

    sim_config_defaults (&cfg);
    memset (cfg.bus.cmd_bind, 'x', sizeof cfg.bus.cmd_bind);
    cr_expect_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "[bus] cmd_bind: not terminated"), "%s", err);
}

/* ---- precedence --------------------------------------------------------- */

Test (config, flag_beats_file_whatever_the_order)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "p.ini", "[sim]\ninitial_robots_per_team = 3\nseed = 5\n[run]\nspeed = 4\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--robots", "8", "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 8, "flag beats file");
    cr_expect_eq (cfg.sim.seed, 5, "file beats default");
    cr_expect_eq (cfg.run.speed, 4);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--robots", "8", "--robots", "9"), 0);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 9, "a later flag wins");
    free (path);
}

Test (config, preset_flag_replaces_a_table_the_file_set)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "p.ini",
                          "[ball]\nmass = 0.05\nacc_roll = -0.3\n"
                          "[blue.limits]\nvel_absolute_max = 1.0\n"
                          "[realism]\nstddev_ball_p = 0.5\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 8, "--config", path, "--ball-preset", "tigers",
                          "--robot-limits", "kiks", "--realism", "rc26"),
                  0, "%s", err);
    cr_expect_eq (cfg.ball.mass, 0.046, "the whole [ball] table is replaced");
    cr_expect_eq (cfg.ball.acc_roll, -0.26);
    cr_expect_eq (cfg.ball.acc_slide, -3.0);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, 3.4);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, 3.4);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.0007);
    cr_expect_eq (cfg.realism.robot_marker_height_error, 0.030, "rc26's parallax");

    /* without the flags the file's values stand */
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.ball.mass, 0.05);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, 1.0);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, 3.0);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.5);
    free (path);
}

/* `ssl-sim presets --realism X > my.ini`, then an edit under [realism]:
   the edit must count although the file also names the preset. */
Test (config, values_in_a_file_win_over_the_presets_it_names)
{
    S_TMPDIR (dir);
    /* [run] comes first: the file's own values still win over its presets */
    char *path = s_write (dir, "r.ini",
                          "[run]\nrealism = erforce_rc2021\nball_preset = grsim\n"
                          "robot_limits = fast\n"
                          "[realism]\nstddev_ball_p = 0.5\nsimulate_dribbling = true\n"
                          "[ball]\nacc_slide = -1\n[yellow.limits]\nvel_angular_max = 1\n");
    sim_config_t cfg;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.5, "the file's value");
    cr_expect_eq (cfg.realism.stddev_robot_p, 0.0013, "the rest of [realism] is the preset's");
    cr_expect (cfg.realism.simulate_dribbling, "the file's value");
    cr_expect_not (cfg.team[0].dribbler.glue, "glue follows the file's simulate_dribbling");
    cr_expect_not (cfg.team[1].dribbler.glue);
    cr_expect_eq (cfg.ball.acc_slide, -1, "the file's value");
    cr_expect_eq (cfg.ball.acc_roll, -0.49, "the grsim ball preset");
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_angular_max, 1, "the file's value");
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_angular_max, 15, "the fast limits preset");
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, 3.5, "the fast limits preset");

    /* a preset on the command line wins over the file, its values too */
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--config", path, "--realism", "go26"), 0, "%s", err);
    cr_expect_str_eq (cfg.run.realism, "go26");
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.0007);
    cr_expect_eq (cfg.realism.dribbler_ball_detections, 0.06);
    cr_expect_eq (cfg.ball.acc_slide, -1, "--realism leaves [ball] alone");
    free (path);
}

/* A later file that names a preset replaces what an earlier file wrote. */
Test (config, a_later_file_preset_replaces_an_earlier_file)
{
    S_TMPDIR (dir);
    char *first = s_write (dir, "a.ini", "[realism]\nstddev_ball_p = 0.5\n");
    char *second = s_write (dir, "b.ini", "[run]\nrealism = none\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--config", first, "--config", second), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0);
    cr_assert_eq (s_args (&cfg, err, sizeof err, 4, "--config", second, "--config", first), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.5);
    free (first);
    free (second);
}

/* An unknown preset name in a file says where it was written. */
Test (config, an_unknown_realism_in_a_file_names_file_and_line)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "u.ini", "[sim]\nseed = 1\n\n[run]\nrealism = realstic\n");
    sim_config_t cfg;
    char err[1024] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    char where[300];
    snprintf (where, sizeof where, "%s:5: [run] realism: unknown realism 'realstic'", path);
    cr_expect (strstr (err, where), "%s", err);
    free (path);
}

Test (config, file_realism_table_sets_glue_at_startup)
{
    S_TMPDIR (dir);
    char *path = s_write (dir, "g.ini", "[realism]\nsimulate_dribbling = false\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect (cfg.team[0].dribbler.glue);
    cr_expect (cfg.team[1].dribbler.glue);
    free (path);
}

Test (config, realism_file_partial_keys_are_realistic)
{
    S_TMPDIR (dir);
    char *bare = s_write (dir, "bare.ini", "stddev_ball_p = 0.003\nmissing_ball_detections = 0.1\n");
    char *sect = s_write (dir, "sect.ini", "[realism]\nvision_delay = 0.05\n[ball]\nmass = 1\n");
    char *bad = s_write (dir, "bad.ini", "[realism]\nvision_delay = soon\n");
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    sim_config_apply_realism (&cfg, "none", err, sizeof err);
    cr_assert_eq (sim_config_apply_realism (&cfg, bare, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.003);
    cr_expect_eq (cfg.realism.missing_ball_detections, 0.1);
    cr_expect_eq (cfg.realism.stddev_robot_p, 0.0005, "missing keys are realistic, not none");
    cr_expect_eq (cfg.realism.vision_delay, 0.022);
    cr_assert_eq (sim_config_apply_realism (&cfg, sect, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.realism.vision_delay, 0.05);
    cr_expect_eq (cfg.ball.mass, 0.046, "other sections of a realism file are ignored");
    cr_assert_eq (sim_config_apply_realism (&cfg, bad, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "bad.ini:2: [realism] vision_delay:"), "%s", err);

    /* through the flag */
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--realism", bare), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.003);
    free (bare);
    free (sect);
    free (bad);
}

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
        { "realistic", 0.0007, 0.8, 0.02, 0.022, 0.006, KICK_DIR_2_5_DEG, true },
        { "Measured", 0.0007, 0.8, 0.02, 0.022, 0.006, KICK_DIR_2_5_DEG, true },
        { "default", 0.0007, 0.8, 0.02, 0.022, 0.006, KICK_DIR_2_5_DEG, true },
        { "go26", 0.0007, 0.8, 0.06, 0.022, 0.004, KICK_DIR_2_5_DEG, true },
        { "RC26", 0.0007, 0.8, 0.0015, 0.022, 0, KICK_DIR_2_5_DEG, true },
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
        cr_expect_eq (r->calibration_warp_length, 3.0);
        cr_expect_eq (r->command_delay, 0);
    }
    /* a few more columns */
    sim_config_apply_realism (&cfg, "go26", err, sizeof err);
    cr_expect_eq (cfg.realism.calibration_warp_stddev, 0.010);
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
    cr_expect_eq (cfg.realism.missing_robot_detections, 0.002);
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
        { "Tigers", -3.0, -0.26, 0, 0.5, 0.75, 0.95, 0.5, 0.5 },
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
        { "tigers", 3.2, 4.2, 3.3, 45, 45, 12 },
        { "ERFORCE", 3.7, 5.5, 3.0, 45, 45, 12 },
        { "kiks", 4.2, 5.5, 3.4, 45, 45, 12 },
        { "fast", 4.5, 6.0, 3.5, 50, 50, 15 },
        { "grsim", 4.0, 4.0, 5.0, 50, 50, 20 },
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
    s_expect_round_trip (&cfg);
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
    s_expect_round_trip (&cfg);
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
    s_set_string (cfg.run.realism, sizeof cfg.run.realism, "go26");
    s_set_string (cfg.run.ball_preset, sizeof cfg.run.ball_preset, "tigers");
    s_set_string (cfg.run.robot_limits, sizeof cfg.run.robot_limits, "kiks");
    s_set_string (cfg.run.vision_addr, sizeof cfg.run.vision_addr, "[::1]:10006");
    s_set_string (cfg.run.log_level, sizeof cfg.run.log_level, "trace");
    cfg.run.localhost = true;
    cfg.run.truth = true;
    cfg.run.legacy_grsim = false;
    cfg.run.duration = 3600.5;
    s_set_string (cfg.network.bind_address, sizeof cfg.network.bind_address, "127.0.0.1");
    cfg.network.port_offset = 1000;
    cfg.network.multicast_ttl = 0;
    s_set_string (cfg.bus.cmd_bind, sizeof cfg.bus.cmd_bind, "tcp://*:7301");
    s_set_string (cfg.bus.cmd_connect, sizeof cfg.bus.cmd_connect, "tcp://labpc1:7301");
    s_set_string (cfg.bus.frames_bind, sizeof cfg.bus.frames_bind, "ipc:///tmp/ssl-sim-1000/frames");
    cfg.bus.sync_timeout = 0.125;
    cfg.rig_generation = 7;
    s_expect_round_trip (&cfg);
}

Test (config, dump_of_every_preset_round_trips)
{
    const char *realism[] = { "none",          "realistic",        "go26",
                              "rc26",          "erforce_friendly", "erforce_realistic",
                              "erforce_rc2021" };
    const char *ball[] = { "default", "go26", "rc26", "erforce", "tigers", "grsim" };
    const char *limits[] = { "default", "tigers", "erforce", "kiks", "fast", "grsim" };
    sim_config_t cfg;
    char err[512] = "";
    for (int i = 0; i < 7; i++) {
        sim_config_defaults (&cfg);
        cr_assert_eq (sim_config_apply_realism (&cfg, realism[i], err, sizeof err), 0);
        cr_assert_eq (sim_config_apply_ball_preset (&cfg, ball[i % 6], err, sizeof err), 0);
        cr_assert_eq (sim_config_apply_robot_limits (&cfg, limits[i % 6], err, sizeof err), 0);
        s_expect_round_trip (&cfg);
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
    char path[PATH_MAX];
    s_repo_path (path, sizeof path, "docs/config.md");
    FILE *file = fopen (path, "r");
    if (!file)
        cr_skip_test ("%s not found (run from the repository root)", path);
    size_t size = 256 * 1024;
    char *text = (char *) malloc (size);
    cr_assert_not_null (text);
    size_t len = fread (text, 1, size - 1, file);
    fclose (file);
    text[len] = '\0';
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
    S_TMPDIR (dir);
    char sub[128];
    snprintf (sub, sizeof sub, "%s/lab", dir);
    cr_assert_eq (mkdir (sub, 0700), 0);
    char *venue = s_write (sub, "venue.ini", "vision_delay = 0.04\n");
    char *config = s_write (sub, "lab.ini", "[run]\nrealism = venue.ini\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 2, "--config", config), 0, "%s", err);
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
       journal */
    cr_expect_eq (local, 13 + 14 + 5 + 3,
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
    size_t size = 0;
    switch (key->type) {
    case SIM_CFG_FLOAT:
        size = sizeof (double);
        break;
    case SIM_CFG_INT:
    case SIM_CFG_ENUM:
        size = sizeof (int);
        break;
    case SIM_CFG_U64:
        size = sizeof (uint64_t);
        break;
    case SIM_CFG_BOOL:
        size = sizeof (bool);
        break;
    case SIM_CFG_STRING:
        size = key->size;
        break;
    case SIM_CFG_LIST:
        size = key->size * sizeof (double);
        memset (mask + base + key->count_offset, 1, sizeof (int));
        break;
    }
    memset (mask + base + key->offset, 1, size);
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
        /* the launcher's own flags are not configuration flags */
        if (flag->kind == SIM_CFG_FLAG_LAUNCHER) {
            sim_config_t cfg;
            char err[512] = "";
            cr_expect_eq (s_args (&cfg, err, sizeof err, 1, flag->name), -1);
            cr_expect_not_null (strstr (err, "unknown option"));
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
    cr_assert_eq (s_args (&reference, err, sizeof err, 0), 0, "%s", err);
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
        cr_assert_eq (s_args (&cfg, err, sizeof err, 2, flag->name, value), 0, "%s %s: %s", flag->name, value,
                      err);
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

Test (config, presets_output_is_unchanged)
{
    /* `ssl-sim presets` as it was before the configuration module was
       split; a change of this text is a change of every user's starting
       point, so it must be deliberate */
    unsetenv ("SSL_SIM_LOG");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (s_args (&cfg, err, sizeof err, 0), 0, "%s", err);
    char *text = sim_config_dump (&cfg, true);
    cr_assert_not_null (text);
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
       rc26 presets */
    cr_expect_eq (strlen (text), 8092);
    cr_expect_eq (s_hash (text), 0x1794adb29437ee5du, "presets text changed:\n%s", text);
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
    char path[PATH_MAX];
    s_repo_path (path, sizeof path, "configs/ssl-sim.ini");
    FILE *file = fopen (path, "r");
    if (!file)
        cr_skip_test ("%s not found (run from the repository root)", path);
    size_t size = 256 * 1024;
    char *text = (char *) malloc (size);
    cr_assert_not_null (text);
    size_t len = fread (text, 1, size - 1, file);
    fclose (file);
    text[len] = '\0';
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

/* The words a caller splits from the configuration's: the table says which
   flags take the next word (issue 23: `ssl-sim stats --localhost FILE`). */
Test (config, flag_takes_value_follows_the_flag_table)
{
    cr_expect (sim_config_flag_takes_value ("--config"));
    cr_expect (sim_config_flag_takes_value ("--log-level"));
    cr_expect_not (sim_config_flag_takes_value ("--log-level=warn"), "the value is in the word already");
    cr_expect_not (sim_config_flag_takes_value ("--localhost"), "--localhost takes no value");
    cr_expect_not (sim_config_flag_takes_value ("--no-such-flag"));
    cr_expect_not (sim_config_flag_takes_value ("FILE"));
    for (size_t f = 0; f < sim_cfg_flags_count; f++)
        if (sim_cfg_flags[f].kind != SIM_CFG_FLAG_LAUNCHER)
            cr_expect_eq (sim_config_flag_takes_value (sim_cfg_flags[f].name), sim_cfg_flags[f].arg != NULL,
                          "%s", sim_cfg_flags[f].name);
}

/* The example users copy points them only at pages they have: every
   "NAME.md" its comments name is docs/NAME.md, with no section numbers of
   a text they do not have (issue 23: stale section references). */
Test (config, example_configuration_cites_only_the_docs)
{
    static const char *const files[] = { "configs/ssl-sim.ini", "configs/realism/noisy-venue.ini",
                                         "configs/lab/two-hosts.ini", "configs/lab/three-hosts.ini" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[PATH_MAX];
        s_repo_path (path, sizeof path, files[f]);
        FILE *file = fopen (path, "r");
        if (!file)
            cr_skip_test ("%s not found (run from the repository root)", path);
        char line[512];
        for (int n = 1; fgets (line, sizeof line, file); n++) {
            cr_expect_null (strstr (line, "\xc2\xa7"), "%s:%d cites a section number: %s", files[f], n, line);
            for (char *md = strstr (line, ".md"); md; md = strstr (md + 3, ".md")) {
                char *start = md;
                while (start > line && (isalnum ((unsigned char) start[-1]) || strchr ("-_/", start[-1])))
                    start--;
                char doc[256], rel[300];
                snprintf (doc, sizeof doc, "%.*s", (int) (md + 3 - start), start);
                snprintf (rel, sizeof rel, "%s", doc);
                cr_expect (strncmp (doc, "docs/", 5) == 0 || strcmp (doc, "README.md") == 0,
                           "%s:%d names %s, not a page of docs/", files[f], n, doc);
                char full[PATH_MAX];
                s_repo_path (full, sizeof full, rel);
                cr_expect_eq (access (full, R_OK), 0, "%s:%d names %s, which does not exist", files[f], n,
                              doc);
            }
        }
        fclose (file);
    }
}
