/*  test_operator.c - what an operator sees (issue 13): the presets they
    dump and edit count, a command-line preset says what it replaced, a
    config warning shows once per run and not once per service, the
    gateway logs each new client and each configuration change with its
    source and the time of day, and `ssl-sim status` says when it cannot
    see a tcp bus, and exits 4 when the bus refuses its CURVE certificate
    (issue 23).
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/bus/sim_curve.h"
#include "common/bus/sim_service.h"
#include "common/config/config.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "ssl_simulation_control.pb-c.h"

/* How many times `needle` occurs in `text`. */
static int
s_count (const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* The line of `text` holding `needle`, copied into line[cap]; false if none. */
static bool
s_line_with (const char *text, const char *needle, char *line, size_t cap)
{
    const char *hit = strstr (text, needle);
    if (!hit)
        return false;
    const char *start = hit;
    while (start > text && start[-1] != '\n')
        start--;
    size_t len = strcspn (start, "\n");
    snprintf (line, cap, "%.*s", (int) (len < cap ? len : cap - 1), start);
    return true;
}

/* Whether a line starts with the time of day, "HH:MM:SS.mmm ". */
static bool
s_stamped (const char *line)
{
    const char *shape = "dd:dd:dd.ddd ";
    for (int i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !isdigit ((unsigned char) line[i]) : line[i] != shape[i])
            return false;
    return true;
}

/* The whole file at `path`, NUL-terminated; the caller frees it. */
static char *
s_read (const char *path)
{
    FILE *f = fopen (path, "r");
    cr_assert_not_null (f, "cannot read %s", path);
    cr_assert_eq (fseek (f, 0, SEEK_END), 0);
    long size = ftell (f);
    cr_assert_geq (size, 0);
    rewind (f);
    char *all = malloc ((size_t) size + 1);
    cr_assert_not_null (all);
    size_t n = fread (all, 1, (size_t) size, f);
    all[n] = '\0';
    fclose (f);
    return all;
}

/* The user's own steps: dump a preset, edit a value under [realism], run
   with the file; then name another preset on the command line. */
Test (operator, an_edited_preset_dump_counts_and_a_flag_says_what_it_replaced, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char out[65536];
    cr_assert_eq (sim_lab_sh ("'%s' presets --realism go26 > '%s/my.ini'", sim_lab_exe (), dir), 0);
    cr_assert_eq (sim_lab_sh ("sed -i 's/^stddev_ball_p = .*/stddev_ball_p = 0.25/' '%s/my.ini'", dir), 0);
    int code =
        sim_lab_capture (out, sizeof out, "'%s' presets --config '%s/my.ini' 2>&1", sim_lab_exe (), dir);
    cr_assert_eq (code, 0, "%s", out);
    cr_expect (strstr (out, "\nstddev_ball_p = 0.25\n"), "the edit under [realism] was ignored");
    cr_expect (strstr (out, "\nrealism = go26\n"), "the file still names its preset");
    cr_expect (strstr (out, "\ndribbler_ball_detections = 0.06\n"), "the rest is go26's");

    code =
        sim_lab_capture (out, sizeof out, "'%s' presets --config '%s/my.ini' --realism rc26 2>&1 >/dev/null",
                         sim_lab_exe (), dir);
    cr_assert_eq (code, 0, "%s", out);
    char where[300];
    snprintf (where, sizeof where,
              "--realism rc26 replaces [realism] stddev_ball_p = 0.25 of %s/my.ini:", dir);
    cr_expect (strstr (out, where) && strstr (out, "(now 0.0007)"),
               "the log does not say what was replaced:\n%s", out);
    cr_expect (strstr (out, "replaces [realism] dribbler_ball_detections = 0.06"), "%s", out);
    cr_expect_null (strstr (out, "stddev_robot_p"), "a value rc26 did not change is reported:\n%s", out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* docs/config.md: "A malformed or out-of-range value stops the simulator
   with FILE:LINE: [section] key: reason", for a value that breaks a rule
   between keys too: the line the user wrote, even when the message is
   about another key (a bigger ball makes the default shoot radius too
   small). */
Test (operator, a_value_that_breaks_a_rule_between_keys_names_its_line, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    const struct {
        const char *ini, *want;
    } cases[] = {
        { "[sim]\nseed = 1\n[blue]\ncenter_to_dribbler = 0.1\n",
          "c.ini:4: [blue] center_to_dribbler (0.1) must be below radius (0.09)" },
        { "[yellow]\nradius = 0.05\n", "c.ini:2: [yellow] radius: [yellow] center_to_dribbler (0.075)" },
        { "\n[ball]\nradius = 0.05\n",
          "c.ini:3: [ball] radius: [blue] shoot_radius (0.0965) must be at least" },
        { "[network]\ncontrol_port = 65000\nport_offset = 1000\n",
          "c.ini:3: [network] port_offset 1000 moves port 65000" },
        { "[network]\ncontrol_port = 10301\n",
          "c.ini:2: [network] control_port: [network] blue_port (10301) is also [network] control_port" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[300], out[4096];
        snprintf (path, sizeof path, "%s/c.ini", dir);
        FILE *f = fopen (path, "w");
        cr_assert_not_null (f);
        fputs (cases[i].ini, f);
        fclose (f);
        int code = sim_lab_capture (out, sizeof out, "cd '%s' && '%s' presets --config c.ini 2>&1 >/dev/null",
                                    dir, sim_lab_exe ());
        cr_expect_eq (code, 2, "%s", out);
        cr_expect (strstr (out, cases[i].want), "case %zu: want '%s' in:\n%s", i, cases[i].want, out);
    }
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* docs/config.md: a rule between keys broken by a value given as a flag
   names the flag the user typed, not the key it sets; the value of a
   file keeps its line, and a flag after a file wins as its value does. */
Test (operator, a_flag_that_breaks_a_rule_between_keys_is_named_as_typed, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char path[300];
    snprintf (path, sizeof path, "%s/c.ini", dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs ("[network]\nport_offset = 1000\n", f);
    fclose (f);
    const struct {
        const char *command, *args, *want;
    } cases[] = {
        { "run", "--localhost --port-offset 65000",
          "--port-offset 65000 moves port 10300 of [network] control_port outside 1..65535" },
        { "presets", "--config c.ini --port-offset 65000", "--port-offset 65000 moves port 10300" },
        { "presets", "--port-offset 1000 --vision-addr 127.0.0.1:65000",
          "--port-offset 1000 moves port 65000 of [run] vision_addr" },
        { "presets", "--config c.ini --vision-addr 127.0.0.1:65000",
          "c.ini:2: [network] port_offset 1000 moves port 65000 of [run] vision_addr" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[4096];
        int code = sim_lab_capture (out, sizeof out,
                                    "cd '%s' && XDG_RUNTIME_DIR='%s' timeout 20 '%s' %s %s 2>&1 >/dev/null",
                                    dir, dir, sim_lab_exe (), cases[i].command, cases[i].args);
        cr_expect_eq (code, 2, "case %zu: exit %d:\n%s", i, code, out);
        cr_expect (strstr (out, cases[i].want), "case %zu: want '%s' in:\n%s", i, cases[i].want, out);
        if (strstr (cases[i].args, "--port-offset"))
            cr_expect_null (strstr (out, "[network] port_offset"), "case %zu names the key:\n%s", i, out);
    }
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* docs/config.md: one team's robots from its published set, the other's
   from another; the dump a user checks before a run shows both. */
Test (operator, each_team_can_take_its_own_limits_preset, .timeout = 30)
{
    char out[65536];
    int code = sim_lab_capture (
        out, sizeof out, "'%s' presets --robot-limits erforce --blue-robot-limits tigers", sim_lab_exe ());
    cr_assert_eq (code, 0, "%s", out);
    const char *blue = strstr (out, "\n[blue.limits]\n"), *yellow = strstr (out, "\n[yellow.limits]\n");
    const char *blue_kick = strstr (out, "\n[blue.kicker]\n");
    cr_assert (blue && yellow && blue_kick, "%s", out);
    cr_expect (strncmp (strstr (blue, "acc_brake_absolute_max = "), "acc_brake_absolute_max = 6.0\n", 29)
                   == 0,
               "blue brakes as TIGERs' robots");
    cr_expect (strstr (blue_kick, "\nmax_linear_speed = 7.5\n") < yellow, "blue kicks at TIGERs' cap");
    sim_limits_t erforce;
    cr_assert_eq (sim_config_limits_preset ("erforce", &erforce), 0);
    char want[80];
    snprintf (want, sizeof want, "\nvel_absolute_max = %.1f\n", erforce.vel_absolute_max);
    cr_expect (strstr (yellow, want), "yellow keeps ER-Force's top speed %s", want);
    code = sim_lab_capture (out, sizeof out, "'%s' presets --yellow-robot-limits snail 2>&1", sim_lab_exe ());
    cr_expect_neq (code, 0);
    cr_expect (strstr (out, "--yellow-robot-limits: unknown robot limits preset 'snail'"), "%s", out);
}

/* A config warning of a real run shows once, from the launcher, though
   all four services read the same file; a key above any section says so. */
Test (operator, a_config_warning_shows_once_per_run, .timeout = 40)
{
    sim_proc_t p;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[128], out[65536];
    snprintf (ini, sizeof ini, "%s/t.ini", dir);
    cr_assert_eq (sim_proc_write_ini (&p, ini, "[sim]\nsubstepp = 0.001\n"), 0);
    /* sim_proc_write_ini writes the file anew: put the stray key on top */
    cr_assert_eq (sim_lab_sh ("sed -i '1i seed = 7' '%s'", ini), 0);
    int code = sim_lab_capture (out, sizeof out,
                                "XDG_RUNTIME_DIR='%s' timeout 20 '%s' run --config '%s' --localhost "
                                "--vision-addr 127.0.0.1:%d --duration 1 2>&1",
                                dir, sim_lab_exe (), ini, sim_test_free_port ());
    cr_expect_eq (code, 0, "exit %d:\n%s", code, out);
    cr_expect_eq (s_count (out, "substepp: unknown key ignored"), 1,
                  "the unknown key is not reported once:\n%s", out);
    cr_expect_eq (s_count (out, "seed is outside any section and ignored (it belongs under [sim])"), 1,
                  "the key above any section is not reported once, with its section:\n%s", out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A client's first datagram on a port and each configuration change it
   asks for are in the log with its address, stamped with the time. */
Test (operator, the_gateway_logs_new_clients_and_their_changes, .timeout = 40)
{
    static const char *const args[] = { "--realism", "none", NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_GATEWAY), 0, "ssl-sim did not come up");
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    cr_assert_eq (getsockname (f.fd, (struct sockaddr *) &me, &len), 0);
    char source[64], want[160];
    snprintf (source, sizeof source, "127.0.0.1:%d", ntohs (me.sin_port));

    /* the fixture probed the gateway from a socket of its own: f.fd's
       first datagram is this command */
    sim_msg_config_t cb;
    SimulatorCommand *cmd = sim_msg_config (&cb);
    cb.config.has_vision_port = true;
    cb.config.vision_port = (uint32_t) f.proc.vision_port; /* where it already goes */
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    control.has_simulation_speed = true;
    control.simulation_speed = 1.0f;
    cmd->control = &control;
    uint8_t buf[65536];
    cr_assert_geq (sim_test_call (f.fd, f.proc.control_port, &cmd->base, buf, sizeof buf, 3000), 0);
    snprintf (want, sizeof want, "first datagram from %s on the control port", source);
    cr_expect_eq (sim_lab_wait_text (f.proc.log, want, 5000), 0, "no line '%s'", want);
    snprintf (want, sizeof want, "%s on the control port asks to change vision port %d, speed 1", source,
              f.proc.vision_port);
    cr_expect_eq (sim_lab_wait_text (f.proc.log, want, 5000), 0, "no line '%s'", want);

    /* a source is new once a port: the same command again logs no line */
    cr_assert_geq (sim_test_call (f.fd, f.proc.control_port, &cmd->base, buf, sizeof buf, 3000), 0);

    /* a team port is a port of its own */
    cr_assert_eq (sim_test_send_raw (f.fd, f.proc.blue_port, "\x0a\x00", 2), 0);
    snprintf (want, sizeof want, "first datagram from %s on the blue port", source);
    cr_expect_eq (sim_lab_wait_text (f.proc.log, want, 5000), 0, "no line '%s'", want);

    char *log = s_read (f.proc.log);
    char line[512];
    char first[96];
    snprintf (first, sizeof first, "first datagram from %s ", source);
    cr_expect_eq (s_count (log, first), 2, "a source is logged more than once a port:\n%s", log);
    cr_assert (s_line_with (log, want, line, sizeof line));
    cr_expect (s_stamped (line), "no time of day on '%s'", line);
    free (log);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* A simulator the systemd units started keeps its runtime directory in
   their place (here a stand-in named by SSL_SIM_UNITS_RUNTIME): `status`
   finds it without the operator exporting anything. */
Test (operator, status_finds_the_units_simulator, .timeout = 40)
{
    char units[] = "/tmp/ssl-sim-test-XXXXXX", mine[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (units));
    cr_assert_not_null (mkdtemp (mine));
    sim_proc_t p;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    char ini[128], log[128], vision[64], out[16384];
    snprintf (ini, sizeof ini, "%s/t.ini", units);
    snprintf (log, sizeof log, "%s/log.txt", units);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    cr_assert_eq (sim_proc_write_ini (&p, ini, NULL), 0);
    const char *args[] = { "run", "--config", ini, "--localhost", "--vision-addr", vision, NULL };
    pid_t run = sim_lab_spawn (args, units, log, NULL);
    cr_assert_gt (run, 0);
    int physics = sim_lab_wait_service (units, 0, "physics", 0, 10000);
    cr_assert_gt (physics, 0, "the simulator did not come up");
    /* status exits non-zero while a service is not up yet: wait for all
       five */
    static const char *const others[] = { "vision", "gateway", "legacy-grsim", "viewer" };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        cr_assert_gt (sim_lab_wait_service (units, 0, others[i], 0, 10000), 0, "%s did not come up",
                      others[i]);
    int code =
        sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' SSL_SIM_UNITS_RUNTIME='%s' '%s' status 2>&1",
                         mine, units, sim_lab_exe ());
    char want[200];
    snprintf (want, sizeof want, "runtime directory %s/ssl-sim\n", units);
    cr_expect_eq (code, 0, "exit %d:\n%s", code, out);
    cr_expect (strstr (out, want), "status did not look in the units' directory:\n%s", out);
    snprintf (want, sizeof want, "%d", physics);
    cr_expect (strstr (out, want), "physics (pid %d) is not listed:\n%s", physics, out);
    cr_expect_null (strstr (out, "cannot see the bus"), "%s", out);
    cr_expect_eq (sim_lab_stop (run), 0);
    sim_lab_sh ("rm -rf '%s' '%s'", units, mine);
}

/* Every service a default `ssl-sim run` starts, up: status exits 1 while
   one is not. Each is a process of its own that writes its pid file when
   it is ready, in no fixed order (on a busy machine vision has come up
   after the viewer). */
static void
s_wait_services (const char *dir)
{
    for (int i = 0; i < SIM_SERVICE_COUNT; i++)
        cr_assert_gt (sim_lab_wait_service (dir, 0, sim_service_names[i], 0, 10000), 0, "%s did not come up",
                      sim_service_names[i]);
}

/* With a tcp bus the services' --config names, `status` without it cannot
   listen: it says so, and how to fix it, instead of printing zero rates. */
Test (operator, status_says_when_it_cannot_see_a_tcp_bus, .timeout = 40)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    sim_proc_t p;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    int cmd = sim_test_free_port (), world = sim_test_free_port (), frames = sim_test_free_port ();
    char ini[128], log[128], vision[64], bus[512], out[16384];
    snprintf (bus, sizeof bus,
              "[bus]\ncmd_bind = tcp://127.0.0.1:%d\ncmd_connect = tcp://127.0.0.1:%d\n"
              "world_bind = tcp://127.0.0.1:%d\nworld_connect = tcp://127.0.0.1:%d\n"
              "frames_bind = tcp://127.0.0.1:%d\nframes_connect = tcp://127.0.0.1:%d\n",
              cmd, cmd, world, world, frames, frames);
    snprintf (ini, sizeof ini, "%s/t.ini", dir);
    snprintf (log, sizeof log, "%s/log.txt", dir);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    cr_assert_eq (sim_proc_write_ini (&p, ini, bus), 0);
    const char *args[] = { "run", "--config", ini, "--localhost", "--vision-addr", vision, NULL };
    pid_t run = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (run, 0);
    s_wait_services (dir);
    int code =
        sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status 2>&1", dir, sim_lab_exe ());
    cr_expect_eq (code, 0, "exit %d:\n%s", code, out);
    cr_expect (strstr (out, "cannot see the bus") && strstr (out, "run status with their --config"),
               "status does not say it cannot see the bus:\n%s", out);
    cr_expect_null (strstr (out, "0 packets/s"), "%s", out);

    /* with their --config it listens where they talk */
    code = sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' 2>&1", dir,
                            sim_lab_exe (), ini);
    cr_expect_eq (code, 0, "exit %d:\n%s", code, out);
    cr_expect_null (strstr (out, "cannot see the bus"), "%s", out);
    cr_expect (strstr (out, "rtf"), "no physics rates with the services' own --config:\n%s", out);
    cr_expect_eq (sim_lab_stop (run), 0);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A lab's CURVE bus, as docs/operations.md sets it up on one host: `status`
   run with a certificate the services do not allow says so and exits 4;
   with theirs it shows the rates and exits 0. */
Test (operator, status_exits_non_zero_when_its_curve_certificate_is_refused, .timeout = 60)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    sim_proc_t p;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    int cmd = sim_test_free_port (), world = sim_test_free_port (), frames = sim_test_free_port ();
    char lab_cert[128], stranger[128], allow[128], err[256];
    snprintf (lab_cert, sizeof lab_cert, "%s/lab.cert", dir);
    snprintf (stranger, sizeof stranger, "%s/stranger.cert", dir);
    snprintf (allow, sizeof allow, "%s/allow", dir);
    cr_assert_eq (sim_curve_keygen (lab_cert, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (stranger, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_lab_sh ("mkdir '%s' && cp '%s' '%s/'", allow, lab_cert, allow), 0);
    char bus[2048], ini[128], bad_ini[128], log[128], vision[64], out[16384];
    const char *certs[2] = { lab_cert, stranger };
    const char *paths[2] = { ini, bad_ini };
    snprintf (ini, sizeof ini, "%s/lab.ini", dir);
    snprintf (bad_ini, sizeof bad_ini, "%s/stranger.ini", dir);
    for (int i = 0; i < 2; i++) {
        snprintf (bus, sizeof bus,
                  "[bus]\ncmd_bind = tcp://127.0.0.1:%d\ncmd_connect = tcp://127.0.0.1:%d\n"
                  "world_bind = tcp://127.0.0.1:%d\nworld_connect = tcp://127.0.0.1:%d\n"
                  "frames_bind = tcp://127.0.0.1:%d\nframes_connect = tcp://127.0.0.1:%d\n"
                  "curve = true\ncurve_cert = %s\ncurve_allow = %s\ncurve_server = %s\n",
                  cmd, cmd, world, world, frames, frames, certs[i], allow, lab_cert);
        cr_assert_eq (sim_proc_write_ini (&p, paths[i], bus), 0);
    }
    snprintf (log, sizeof log, "%s/log.txt", dir);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    const char *args[] = { "run", "--config", ini, "--localhost", "--vision-addr", vision, NULL };
    pid_t run = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (run, 0);
    s_wait_services (dir);

    int code = sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' 2>&1", dir,
                                sim_lab_exe (), bad_ini);
    cr_expect_eq (code, 4, "status with a refused certificate: exit %d:\n%s", code, out);
    cr_expect (strstr (out, "refused this tool's CURVE handshake (certificate not allowed)")
                   && strstr (out, stranger),
               "status does not say its certificate was refused:\n%s", out);

    code = sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' 2>&1", dir,
                            sim_lab_exe (), ini);
    cr_expect_eq (code, 0, "status with the lab's certificate: exit %d:\n%s", code, out);
    cr_expect (strstr (out, "rtf"), "no physics rates with the lab's certificate:\n%s", out);
    cr_expect_eq (sim_lab_stop (run), 0);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A service on a CURVE bus whose certificate physics does not allow, or
   that holds the wrong server key, says so in its own log, naming the
   [bus] file to fix: on a lab of several hosts the refusal in physics'
   log is on another computer, and the service itself only heard nothing
   (its clients got UNAVAILABLE). A tcp bus on 127.0.0.1 stands for the
   lab; the refused gateways get their own runtime directory and ports
   beside the lab's. */
Test (operator, a_service_refused_by_a_curve_bus_says_why_in_its_own_log, .timeout = 60)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX", dir2[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    cr_assert_not_null (mkdtemp (dir2));
    sim_proc_t p, q;
    cr_assert_eq (sim_proc_pick_ports (&p), 0);
    cr_assert_eq (sim_proc_pick_ports (&q), 0);
    int cmd = sim_test_free_port (), world = sim_test_free_port (), frames = sim_test_free_port ();
    char lab_cert[128], stranger[128], allow[128], err[256];
    snprintf (lab_cert, sizeof lab_cert, "%s/lab.cert", dir);
    snprintf (stranger, sizeof stranger, "%s/stranger.cert", dir);
    snprintf (allow, sizeof allow, "%s/allow", dir);
    cr_assert_eq (sim_curve_keygen (lab_cert, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (stranger, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_lab_sh ("mkdir '%s' && cp '%s' '%s/'", allow, lab_cert, allow), 0);
    /* the lab; a gateway with a certificate nobody allowed; one with the
       lab's certificate that takes the stranger's key for physics' */
    char bus[2048], ini[3][128], log[3][128], vision[64];
    const char *certs[3] = { lab_cert, stranger, lab_cert };
    const char *servers[3] = { lab_cert, lab_cert, stranger };
    for (int i = 0; i < 3; i++) {
        snprintf (ini[i], sizeof ini[i], "%s/%d.ini", i ? dir2 : dir, i);
        snprintf (log[i], sizeof log[i], "%s/%d.log", i ? dir2 : dir, i);
        snprintf (bus, sizeof bus,
                  "[bus]\ncmd_bind = tcp://127.0.0.1:%d\ncmd_connect = tcp://127.0.0.1:%d\n"
                  "world_bind = tcp://127.0.0.1:%d\nworld_connect = tcp://127.0.0.1:%d\n"
                  "frames_bind = tcp://127.0.0.1:%d\nframes_connect = tcp://127.0.0.1:%d\n"
                  "curve = true\ncurve_cert = %s\ncurve_allow = %s\ncurve_server = %s\n",
                  cmd, cmd, world, world, frames, frames, certs[i], allow, servers[i]);
        cr_assert_eq (sim_proc_write_ini (i ? &q : &p, ini[i], bus), 0);
    }
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    const char *args[] = { "run", "--config", ini[0], "--localhost", "--vision-addr", vision, NULL };
    pid_t run = sim_lab_spawn (args, dir, log[0], NULL);
    cr_assert_gt (run, 0);
    s_wait_services (dir);

    char want[2][512];
    snprintf (want[0], sizeof want[0],
              "gateway      | warn: bus cmd tcp://127.0.0.1:%d: physics refused this service's certificate "
              "(ZAP status 400): the [bus] curve_allow directory of physics must hold %s",
              cmd, stranger);
    snprintf (want[1], sizeof want[1],
              "gateway      | warn: bus cmd tcp://127.0.0.1:%d: physics broke off the CURVE handshake", cmd);
    for (int i = 1; i <= 2; i++) {
        const char *gw[] = { "service", "gateway", "--config", ini[i], "--localhost", NULL };
        pid_t pid = sim_lab_spawn (gw, dir2, log[i], NULL);
        cr_assert_gt (pid, 0);
        bool said = sim_lab_wait_text (log[i], want[i - 1], 10000) == 0;
        cr_expect (said, "the refused gateway's log does not say: %s", want[i - 1]);
        if (i == 2) {
            char key[256];
            snprintf (key, sizeof key, "this [bus] curve_server %s must be the public certificate of physics",
                      stranger);
            said = said && sim_lab_wait_text (log[i], key, 1000) == 0;
            cr_expect (said, "the gateway with the wrong server key does not name curve_server");
        }
        cr_expect_eq (sim_lab_stop (pid), 0);
        if (!said)
            sim_lab_dump (log[i]);
    }
    cr_expect_eq (sim_lab_stop (run), 0);
    sim_lab_sh ("rm -rf '%s' '%s'", dir, dir2);
}
