/*  test_config.c - the configuration module (common/config/config*.c):
    defaults with the numbers of spec/config.md, INI files, and error
    messages naming file, line and key. Flags and precedence are in
    test_config_flags.c; presets, dumps, keys and --help in
    test_config_dump.c.
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
#include "test_config_support.h"

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
    cr_expect (cfg.realism.report_ball_area);
    cr_expect_eq (cfg.vision.area_at_nadir_px, 63.0);
    cr_expect_eq (cfg.vision.spurious_ball_area_px, 32.0);
    cr_expect_eq (cfg.vision.spurious_ball_forward, 0.13);
    cr_expect_eq (cfg.vision.spurious_ball_lateral_stddev, 0.07);
    cr_expect_eq (cfg.vision.robot_confidence_mean, 0.9);
    cr_expect_eq (cfg.vision.confidence_stddev, 0.09);
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
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 0), 0, "%s", err);
    sim_config_defaults (&ref);
    cr_assert_eq (memcmp (&cfg, &ref, sizeof cfg), 0, "no flags = defaults");
}

/* ---- file loading ------------------------------------------------------- */

/* The realism a run reports: a preset's name while the table is that
   preset's, NAME+custom after a file's single keys, custom for a realism
   file (docs/config.md, docs/vision.md "Realism at runtime"). */
Test (config, realism_label_says_when_single_keys_changed_the_preset)
{
    CFG_TEST_TMPDIR (dir);
    struct {
        const char *text, *label;
    } cases[] = {
        { "", "realistic" },
        { "[realism]\nstddev_ball_p = 0.001\n", "realistic+custom" },
        { "[run]\nrealism = go26\n", "go26" },
        { "[run]\nrealism = go26\n[realism]\nstddev_ball_p = 0.001\n", "go26+custom" },
        /* the value the preset has already */
        { "[run]\nrealism = go26\n[realism]\nstddev_ball_p = 0.0007\n", "go26" },
        { "[run]\nrealism = Friendly\n", "Friendly" },
        { "[run]\nrealism = rc26\n[realism]\nreport_ball_area = false\n", "rc26+custom" },
    };
    char err[512], label[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf (name, sizeof name, "r%zu.ini", i);
        char *path = cfg_test_write (dir, name, cases[i].text);
        sim_config_t cfg;
        sim_config_defaults (&cfg);
        char *argv[] = { "--config", path };
        cr_assert_eq (sim_config_from_args (&cfg, 2, argv, err, sizeof err), 0, "%s", err);
        sim_config_realism_label (&cfg, label, sizeof label);
        cr_expect_str_eq (label, cases[i].label, "%s: %s", cases[i].text, label);
        free (path);
    }
    /* a realism file: ssl-sim keeps no preset to compare with */
    char *file = cfg_test_write (dir, "venue.ini", "[realism]\nstddev_ball_p = 0.001\n");
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char *argv[] = { "--realism", file };
    cr_assert_eq (sim_config_from_args (&cfg, 2, argv, err, sizeof err), 0, "%s", err);
    sim_config_realism_label (&cfg, label, sizeof label);
    cr_expect_str_eq (label, "custom");
    free (file);
}

Test (config, file_sets_every_kind_of_key)
{
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "a.ini",
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
                                 "[realism]\n"
                                 "stddev_ball_p = 0.001\n"
                                 "report_ball_area = no\n"
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
    cr_expect_not (cfg.realism.report_ball_area);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.001);
    cr_expect_eq (cfg.realism.stddev_robot_p, 0.00042, "partial [realism] stays realistic");
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
    cr_assert_eq (cfg_test_load (&cfg, "[sim]\n  seed = 1\n\tseed = 7\n", err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 7);
}

Test (config, windows_line_ends_and_byte_order_mark)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_load (&cfg, "\xEF\xBB\xBF[sim]\r\nseed = 9\r\n[run]\r\nlog_level = warn\r\n", err,
                                 sizeof err),
                  0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 9);
    cr_expect_str_eq (cfg.run.log_level, "warn");
}

Test (config, several_config_files_load_in_order)
{
    CFG_TEST_TMPDIR (dir);
    char *first = cfg_test_write (dir, "1.ini", "[sim]\nseed = 1\nwall_height = 0.2\n");
    char *second = cfg_test_write (dir, "2.ini", "[sim]\nseed = 2\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 3, "--config", first, "--config="), -1,
                  "an empty --config= value is not a file");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--config", first, "--config", second), 0, "%s",
                  err);
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
    cr_assert_eq (cfg_test_load (&cfg, text, err, sizeof err), 0, "%s", err);
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
    cfg_test_expect_error ("[sim]\nseed = 1\nsubstep = 0.0O1\n",
                           "test.ini:3: [sim] substep: '0.0O1' is not a finite number");
    cfg_test_expect_error ("[ball]\nmass = nan\n", "test.ini:2: [ball] mass:");
    cfg_test_expect_error ("[ball]\nmass = 1e999\n", "test.ini:2: [ball] mass:");
    cfg_test_expect_error ("[ball]\nmass =\n", "test.ini:2: [ball] mass:");
    cfg_test_expect_error ("[sim]\ninitial_robots_per_team = 2.5\n",
                           "test.ini:2: [sim] initial_robots_per_team: '2.5' is not an integer");
    cfg_test_expect_error ("[sim]\nseed = -1\n", "test.ini:2: [sim] seed:");
    cfg_test_expect_error ("[sim]\nseed = random\n", "only on the command line");
    cfg_test_expect_error ("\n\n[contact]\nrobot_hull_chord_contacts = maybe\n",
                           "test.ini:4: [contact] robot_hull_chord_contacts: 'maybe' is not a boolean");
    cfg_test_expect_error ("[vision]\nphase_offsets = 0.1, x\n", "test.ini:2: [vision] phase_offsets:");
    cfg_test_expect_error ("[vision]\nphase_offsets = 0.1,\n", "[vision] phase_offsets: empty list item");
    cfg_test_expect_error ("[vision]\nphase_offsets = 1,2,3,4,5,6,7,8,9\n", "more than 8 values");
    cfg_test_expect_error ("[network]\nmulticast_ttl = 99999999999\n", "[network] multicast_ttl:");
    cfg_test_expect_error ("[vision]\ngeometry_every_n_frames = 4294967297\n",
                           "[vision] geometry_every_n_frames: 4294967297 is out of range");
    /* an interface name or a host name where an IPv4 address belongs was
       taken, and only failed at runtime (vision: "not usable, using the
       default") */
    cfg_test_expect_error ("[network]\nmulticast_interface = eth9\n",
                           "test.ini:2: [network] multicast_interface: 'eth9' is not an IPv4 address");
    cfg_test_expect_error ("[network]\nbind_address = localhost\n",
                           "test.ini:2: [network] bind_address: 'localhost' is not an IPv4 address");
    cfg_test_expect_error ("[network]\nlegacy_bind_address = 10.0.0\n",
                           "test.ini:2: [network] legacy_bind_address:");
}

/* "seed = 1<NUL> 2" was read as seed 1: a NUL byte ended the line for the
   parser. A file holding one is not text, and says where. */
Test (config, a_nul_byte_names_its_line)
{
    CFG_TEST_TMPDIR (dir);
    char path[256];
    snprintf (path, sizeof path, "%s/nul.ini", dir);
    static const char text[] = "[sim]\nseed = 1\0 2\n";
    FILE *f = fopen (path, "wb");
    cr_assert_not_null (f);
    cr_assert_eq (fwrite (text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose (f);
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_load_file (&cfg, path, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "nul.ini:2: a NUL byte"), "%s", err);
}

Test (config, out_of_range_values_are_errors)
{
    cfg_test_expect_error ("[sim]\ninitial_robots_per_team = 17\n",
                           "test.ini:2: [sim] initial_robots_per_team: 17 is out of range "
                           "(must be within 0..16)");
    cfg_test_expect_error ("[sim]\nsubstep = 0\n", "[sim] substep: 0 is out of range (must be > 0 and <= 1)");
    cfg_test_expect_error ("[sim]\nsubstep = 2\n", "[sim] substep: 2 is out of range (must be > 0 and <= 1)");
    cfg_test_expect_error ("[ball]\nacc_slide = 3.3\n", "[ball] acc_slide: 3.3 is out of range");
    cfg_test_expect_error ("[contact]\nspin_retention = 1.01\n", "must be within 0..1");
    cfg_test_expect_error ("[blue]\nradius = 0.02\n", "test.ini:2: [blue] radius: 0.02 is out of range");
    cfg_test_expect_error ("[yellow]\ninertia_z = -1\n", "[yellow] inertia_z:");
    cfg_test_expect_error ("[yellow.kicker]\nincoming_damping = 2\n", "[yellow.kicker] incoming_damping:");
    cfg_test_expect_error ("[vision]\ndefault_camera_x_fraction = 0.6\n", "within 0..0.5");
    cfg_test_expect_error ("[network]\ncontrol_port = 70000\n", "within 1..65535");
    cfg_test_expect_error ("[run]\nspeed = -1\n", "[run] speed:");
    cfg_test_expect_error ("[run]\nduration = -5\n", "[run] duration:");
    cfg_test_expect_error ("[realism]\nrobot_command_loss = 1.5\n", "[realism] robot_command_loss:");
    cfg_test_expect_error ("[camera 0]\nx = 0\ny = 0\nz = -1\n", "[camera 0] z:");
    cfg_test_expect_error ("[outage 1]\nstart = -1\nduration = 1\n", "[outage 1] start:");
}

Test (config, zero_means_unset_where_documented)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_load (&cfg, "[blue]\ninertia_z = 0\n[run]\nduration = 0\n", err, sizeof err), 0,
                  "%s", err);
    cr_expect_eq (cfg.team[0].inertia_z, 0);
    cr_expect_eq (cfg.run.duration, 0);
}

Test (config, bad_enums_list_the_choices)
{
    cfg_test_expect_error ("[run]\ndivision = c\n", "test.ini:2: [run] division: 'c' is not one of a | b");
    cfg_test_expect_error ("[run]\nmode = slow\n", "'slow' is not one of realtime | fast | sync");
    cfg_test_expect_error ("[vision]\ncamera_phase = random\n", "locked | free_running");
    cfg_test_expect_error ("[blue.drive]\nmodel = tracks\n",
                           "[blue.drive] model: 'tracks' is not one of wheels | ideal");
    cfg_test_expect_error ("[run]\nlog_level = loud\n", "[run] log_level:");
    cfg_test_expect_error ("[run]\nball_preset = bouncy\n",
                           "[run] ball_preset: unknown ball preset 'bouncy'");
    cfg_test_expect_error ("[run]\nrobot_limits = slow\n", "[run] robot_limits: unknown robot limits");
    cfg_test_expect_error ("[run]\nvision_addr = 224.5.23.2\n",
                           "[run] vision_addr: '224.5.23.2' is not HOST:PORT");
    cfg_test_expect_error ("[run]\nvision_addr = host:0\n", "is not HOST:PORT");
}

Test (config, syntax_errors_and_incomplete_sections)
{
    cfg_test_expect_error ("[sim]\nseed = 1\njust some words\n", "test.ini:3: syntax error");
    cfg_test_expect_error ("[sim\nseed = 1\n", "test.ini:1: syntax error");
    cfg_test_expect_error ("[sim]\nwords\nseed = x\n", "test.ini:2: syntax error");
    cfg_test_expect_error ("[sim]\nseed = x\nwords\n", "test.ini:2: [sim] seed:");
    cfg_test_expect_error ("[camera 0]\nx = 1\ny = 2\n", "test.ini:1: [camera 0] z: missing");
    cfg_test_expect_error ("[sim]\n[outage 4]\nduration = 1\n", "test.ini:2: [outage 4] start: missing");
    cfg_test_expect_error (
        "[camera 0]\nx=0\ny=0\nz=1\n[camera 1]\nx=0\ny=0\nz=1\n[camera 2]\nx=0\ny=0\nz=1\n"
        "[camera 3]\nx=0\ny=0\nz=1\n[camera 4]\nx=0\ny=0\nz=1\n[camera 5]\nx=0\ny=0\nz=1\n"
        "[camera 6]\nx=0\ny=0\nz=1\n[camera 7]\nx=0\ny=0\nz=1\n[camera 8]\nx=0\ny=0\nz=1\n",
        "test.ini:33: [camera 8]: more than 8 such sections");
    char line[400];
    memset (line, 'x', sizeof line);
    memcpy (line, "[sim]\nseed = ", 13);
    memcpy (line + sizeof line - 2, "\n", 2);
    cfg_test_expect_error (line, "test.ini:2: line longer than 199 characters");
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
    cr_assert_eq (cfg_test_load (&cfg, text, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.sim.seed, 4);
    cr_expect_eq (cfg.ball.radius, 0.0213, "keys after unknown ones still apply");
    cr_expect_eq (cfg.vision.camera_count, 1);
}

Test (config, unknown_key_warning_names_file_line_and_key, .init = cr_redirect_stderr)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (
        cfg_test_load (&cfg, "[sim]\nseed = 1\n\nsubstepp = 0.1\n[physics]\ng = 9.8\n", err, sizeof err), 0,
        "%s", err);
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
    CFG_TEST_TMPDIR (dir);
    char path[256];
    snprintf (path, sizeof path, "%s/missing.ini", dir);
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_config_load_file (&cfg, path, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, path), "%s", err);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "missing.ini"), "%s", err);
    /* a directory is not a readable configuration either */
    cr_assert_eq (sim_config_load_file (&cfg, dir, err, sizeof err), -1);
}

Test (config, file_error_through_args_names_the_file)
{
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "bad.ini", "[sim]\n\nwall_height = -0.1\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    char expect[400];
    snprintf (expect, sizeof expect, "%s:3: [sim] wall_height:", path);
    cr_expect_not_null (strstr (err, expect), "%s", err);
    free (path);
}
