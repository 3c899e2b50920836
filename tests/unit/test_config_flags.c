/*  test_config_flags.c - the configuration's command-line flags and their
    precedence over files and presets (common/config/config_cli.c,
    config_flags.c).
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

/* ---- flags -------------------------------------------------------------- */

Test (config, every_flag_sets_its_key)
{
    sim_config_t cfg;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    int rc =
        cfg_test_args (&cfg, err, sizeof err, 27, "--division", "B", "--robots", "6", "--mode", "sync",
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
        cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 1, flag), 0, "%s", err);
        cr_expect_eq (cfg.run.division, expect[i], "%s", names[i]);
    }
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--mode", "real-time"), 0, "%s", err);
    cr_expect_eq (cfg.run.mode, SIM_MODE_REALTIME);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--mode=fast", "--speed=2.5"), 0, "%s", err);
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
    cr_assert_eq (cfg_test_args (&a, err, sizeof err, 2, "--seed", "random"), 0, "%s", err);
    cr_assert_eq (cfg_test_args (&b, err, sizeof err, 2, "--seed", "RANDOM"), 0, "%s", err);
    cr_expect_neq (a.sim.seed, b.sim.seed, "two clock readings give two seeds");
    cr_assert_eq (cfg_test_args (&a, err, sizeof err, 2, "--seed", "18446744073709551615"), 0);
    cr_expect_eq (a.sim.seed, UINT64_MAX);
}

Test (config, cameras_flag_clears_explicit_cameras)
{
    CFG_TEST_TMPDIR (dir);
    char *path =
        cfg_test_write (dir, "rig.ini", "[camera 0]\nx = 0\ny = 0\nz = 6\n[camera 1]\nx = 1\ny = 0\nz = 6\n");
    sim_config_t cfg, ref;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.vision.camera_count, 2);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--cameras", "1", "--config", path), 0, "%s", err);
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
        { 1, { "--loop" }, "option '--loop' is not one of this command's (play takes it)" },
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
        { 2, { "--step-ms", "0.0000001" }, "--step-ms: 0.0000001 ms is not a whole number of nanoseconds" },
        { 2, { "--config", "/" }, "/: cannot read: Is a directory" },
        { 1, { "--local-multicast" }, "--local-multicast needs --localhost" },
        { 2, { "--step-ms", "2000" }, "--step-ms: 2000 is out of range (must be > 0 and <= 1000)" },
        { 2, { "--cameras", "3" }, "--cameras: '3' must be 1, 2 or 4" },
        { 2, { "--seed", "-4" }, "--seed:" },
        { 2, { "--seed", "99999999999999999999" }, "--seed:" },
        { 2, { "--vision-addr", "nohost" }, "--vision-addr:" },
        { 2, { "--duration", "0" }, "--duration:" },
        { 2, { "--log-level", "chatty" }, "--log-level:" },
        { 2, { "--port-offset", "-1" }, "--port-offset:" },
        { 2, { "--port-offset", "40000" }, "--port-offset 40000 moves port" },
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
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--realism", "ultra"), -1);
    cr_expect_not_null (strstr (err, "erforce_rc2021"), "%s", err);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--ball-preset", "x"), -1);
    cr_expect_not_null (strstr (err, "tigers"), "%s", err);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--robot-limits", "x"), -1);
    cr_expect_not_null (strstr (err, "kiks"), "%s", err);
}

Test (config, log_level_environment_wins, .init = cr_redirect_stderr)
{
    sim_config_t cfg;
    char err[512] = "";
    setenv ("SSL_SIM_LOG", "warn", 1);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--log-level", "trace"), 0, "%s", err);
    cr_expect_str_eq (cfg.run.log_level, "warn");
    setenv ("SSL_SIM_LOG", "nonsense", 1);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--log-level", "trace"), 0, "%s", err);
    cr_expect_str_eq (cfg.run.log_level, "trace", "an invalid environment value is ignored");
    unsetenv ("SSL_SIM_LOG");
    /* ... and said so, with the levels it takes */
    fflush (stderr);
    char text[2048];
    size_t len = fread (text, 1, sizeof text - 1, cr_get_redirected_stderr ());
    text[len] = '\0';
    cr_expect_not_null (strstr (text, "SSL_SIM_LOG=nonsense is not a log level (error, warn, info, debug, "
                                      "trace): ignored"),
                        "%s", text);
}

Test (config, cross_key_checks)
{
    sim_config_t cfg;
    char err[512] = "";
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "c.ini", "[blue]\ncenter_to_dribbler = 0.095\n");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "[blue] center_to_dribbler"), "%s", err);
    free (path);
    path = cfg_test_write (dir, "d.ini", "[yellow]\nshoot_radius = 0.09\n");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect_not_null (strstr (err, "[yellow] shoot_radius"), "%s", err);
    free (path);
    path = cfg_test_write (dir, "e.ini", "[sim]\nsubstep = 0.0000000015\n");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
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
    CFG_TEST_TMPDIR (dir);
    char *path =
        cfg_test_write (dir, "p.ini", "[sim]\ninitial_robots_per_team = 3\nseed = 5\n[run]\nspeed = 4\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--robots", "8", "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 8, "flag beats file");
    cr_expect_eq (cfg.sim.seed, 5, "file beats default");
    cr_expect_eq (cfg.run.speed, 4);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--robots", "8", "--robots", "9"), 0);
    cr_expect_eq (cfg.sim.initial_robots_per_team, 9, "a later flag wins");
    free (path);
}

Test (config, preset_flag_replaces_a_table_the_file_set)
{
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "p.ini",
                                 "[ball]\nmass = 0.05\nacc_roll = -0.3\n"
                                 "[blue.limits]\nvel_absolute_max = 1.0\n"
                                 "[realism]\nstddev_ball_p = 0.5\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 8, "--config", path, "--ball-preset", "tigers",
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
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
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
    CFG_TEST_TMPDIR (dir);
    /* [run] comes first: the file's own values still win over its presets */
    char *path = cfg_test_write (dir, "r.ini",
                                 "[run]\nrealism = erforce_rc2021\nball_preset = grsim\n"
                                 "robot_limits = fast\n"
                                 "[realism]\nstddev_ball_p = 0.5\nsimulate_dribbling = true\n"
                                 "[ball]\nacc_slide = -1\n[yellow.limits]\nvel_angular_max = 1\n");
    sim_config_t cfg;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
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
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--config", path, "--realism", "go26"), 0, "%s",
                  err);
    cr_expect_str_eq (cfg.run.realism, "go26");
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.0007);
    cr_expect_eq (cfg.realism.dribbler_ball_detections, 0.06);
    cr_expect_eq (cfg.ball.acc_slide, -1, "--realism leaves [ball] alone");
    free (path);
}

/* A later file that names a preset replaces what an earlier file wrote. */
Test (config, a_later_file_preset_replaces_an_earlier_file)
{
    CFG_TEST_TMPDIR (dir);
    char *first = cfg_test_write (dir, "a.ini", "[realism]\nstddev_ball_p = 0.5\n");
    char *second = cfg_test_write (dir, "b.ini", "[run]\nrealism = none\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--config", first, "--config", second), 0, "%s",
                  err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0);
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 4, "--config", second, "--config", first), 0, "%s",
                  err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.5);
    free (first);
    free (second);
}

/* An unknown preset name in a file says where it was written. */
Test (config, an_unknown_realism_in_a_file_names_file_and_line)
{
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "u.ini", "[sim]\nseed = 1\n\n[run]\nrealism = realstic\n");
    sim_config_t cfg;
    char err[1024] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    char where[300];
    snprintf (where, sizeof where, "%s:5: [run] realism: unknown realism 'realstic'", path);
    cr_expect (strstr (err, where), "%s", err);
    free (path);
}

Test (config, file_realism_table_sets_glue_at_startup)
{
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "g.ini", "[realism]\nsimulate_dribbling = false\n");
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect (cfg.team[0].dribbler.glue);
    cr_expect (cfg.team[1].dribbler.glue);
    free (path);
}

Test (config, realism_file_partial_keys_are_realistic)
{
    CFG_TEST_TMPDIR (dir);
    char *bare = cfg_test_write (dir, "bare.ini", "stddev_ball_p = 0.003\nmissing_ball_detections = 0.1\n");
    char *sect = cfg_test_write (dir, "sect.ini", "[realism]\nvision_delay = 0.05\n[ball]\nmass = 1\n");
    char *bad = cfg_test_write (dir, "bad.ini", "[realism]\nvision_delay = soon\n");
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    sim_config_apply_realism (&cfg, "none", err, sizeof err);
    cr_assert_eq (sim_config_apply_realism (&cfg, bare, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.003);
    cr_expect_eq (cfg.realism.missing_ball_detections, 0.1);
    cr_expect_eq (cfg.realism.stddev_robot_p, 0.00042, "missing keys are realistic, not none");
    cr_expect_eq (cfg.realism.vision_delay, 0.022);
    cr_assert_eq (sim_config_apply_realism (&cfg, sect, err, sizeof err), 0, "%s", err);
    cr_expect_eq (cfg.realism.vision_delay, 0.05);
    cr_expect_eq (cfg.ball.mass, 0.046, "other sections of a realism file are ignored");
    cr_assert_eq (sim_config_apply_realism (&cfg, bad, err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "bad.ini:2: [realism] vision_delay:"), "%s", err);

    /* through the flag */
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--realism", bare), 0, "%s", err);
    cr_expect_eq (cfg.realism.stddev_ball_p, 0.003);
    free (bare);
    free (sect);
    free (bad);
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

/* One team's limits from a preset, the other's from another or the
   default: a team tries its own robots against an opponent's. */
Test (config, a_team_takes_a_limits_preset_of_its_own)
{
    sim_limits_t tigers, kiks, def;
    cr_assert_eq (sim_config_limits_preset ("tigers", &tigers), 0);
    cr_assert_eq (sim_config_limits_preset ("kiks", &kiks), 0);
    sim_config_t cfg;
    char err[512] = "";
    unsetenv ("SSL_SIM_LOG");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 0), 0, "%s", err);
    def = cfg.team[SIM_TEAM_YELLOW].limits;
    double def_kick = cfg.team[SIM_TEAM_YELLOW].kicker.max_linear_speed;

    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--blue-robot-limits", "tigers"), 0, "%s", err);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.acc_speedup_absolute_max, tigers.acc_speedup_absolute_max);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.acc_brake_absolute_max, tigers.acc_brake_absolute_max);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].kicker.max_linear_speed, 7.5, "TIGERs' published kick cap");
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.acc_speedup_absolute_max, def.acc_speedup_absolute_max);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].kicker.max_linear_speed, def_kick, "yellow untouched");

    /* after both teams' preset, whatever the order on the command line */
    cr_assert_eq (
        cfg_test_args (&cfg, err, sizeof err, 4, "--yellow-robot-limits", "tigers", "--robot-limits", "kiks"),
        0, "%s", err);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, kiks.vel_absolute_max);
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.acc_brake_absolute_max, tigers.acc_brake_absolute_max);

    /* in a file: the team's preset, then the file's own values on top */
    CFG_TEST_TMPDIR (dir);
    char *path = cfg_test_write (dir, "t.ini",
                                 "[run]\nblue_robot_limits = tigers\n"
                                 "[blue.limits]\nvel_absolute_max = 2.5\n");
    cr_assert_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), 0, "%s", err);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.acc_speedup_absolute_max, tigers.acc_speedup_absolute_max);
    cr_expect_eq (cfg.team[SIM_TEAM_BLUE].limits.vel_absolute_max, 2.5, "the file's own value");
    cr_expect_eq (cfg.team[SIM_TEAM_YELLOW].limits.vel_absolute_max, def.vel_absolute_max);
    free (path);

    /* a wrong name: the flag, or the file, line and key */
    cr_expect_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--yellow-robot-limits", "snail"), -1);
    cr_expect (strstr (err, "--yellow-robot-limits: unknown robot limits preset 'snail'"), "%s", err);
    path = cfg_test_write (dir, "bad.ini", "[run]\n\nyellow_robot_limits = snail\n");
    cr_expect_eq (cfg_test_args (&cfg, err, sizeof err, 2, "--config", path), -1);
    cr_expect (strstr (err, "bad.ini:3") && strstr (err, "yellow_robot_limits"), "%s", err);
    free (path);
}
