/*  test_fit_motion.c - `ssl-sim stats --fit` fits the ball model and each
    team's limits back from a log that `ssl-sim run --record --truth`
    wrote with non-default [ball] and [TEAM.limits] keys while a client
    kicked, chipped and drove (issue 25), and says what it could not fit;
    reads chip hops and chip caps from vision alone (a log without the
    truth stream, as a league log); and fits a live stream with
    `--listen`.

    The run is a sync-mode run (the client steps time, so the scenario is
    the same on a loaded machine) with the default realism but for one
    key: calibration_warp_stddev = 0. The default warp (10 mm in waves
    3 m long) bends every run through one place alike, by up to
    sigma (2 pi / L)^2 v^2 = 0.7 m/s^2 at 4 m/s, so this scenario's single
    ball lane would measure one stretch of warp, not the fitter; the
    docs give what a user with a warped field sees. The client's scenario keeps every event
    clear of the default formation (which stands within 2.5 m of the
    centre line's axis): robots drive and turn near the touch line at
    y = 3.3 .. 3.9, the ball is launched along y = -3.8 and kicked by
    robots along y = -3.3.

    Tolerances (docs/stats.md "Motion" derives them from the vision noise
    and the event counts): decelerations within 8 %, the switch ratio and
    hop dampings within 0.03, accelerations within 6 %, top speeds within
    2 %, turn rates within 3 %, turn accelerations within 10 %, the
    fastest kick within 0.15 m/s below the cap. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_team.h"
#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "tests/support/sim_test.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define S_WAIT_MS 5000
#define S_STEP    0.01 /* s of sim time per sync request */

static const char s_known[] = "[ball]\n"
                              "acc_slide = -3.9\n"
                              "acc_roll = -0.3\n"
                              "inertia_distribution = 0.6\n"
                              "chip_damping_xy_first_hop = 0.78\n"
                              "chip_damping_xy_other_hops = 0.9\n"
                              "chip_damping_z = 0.52\n"
                              "chip_damping_z_other_hops = 0.45\n"
                              "[blue.limits]\n"
                              "acc_speedup_absolute_max = 2.5\n"
                              "acc_brake_absolute_max = 4.5\n"
                              "vel_absolute_max = 2.2\n"
                              "acc_speedup_angular_max = 30\n"
                              "acc_brake_angular_max = 35\n"
                              "vel_angular_max = 8\n"
                              "[blue.kicker]\n"
                              "max_linear_speed = 5.0\n"
                              "[yellow.limits]\n"
                              "acc_speedup_absolute_max = 3.2\n"
                              "acc_brake_absolute_max = 5.5\n"
                              "vel_absolute_max = 2.6\n"
                              "acc_speedup_angular_max = 45\n"
                              "acc_brake_angular_max = 45\n"
                              "vel_angular_max = 10\n"
                              "[yellow.kicker]\n"
                              "max_linear_speed = 6.0\n"
                              /* see the head of the file */
                              "[realism]\n"
                              "calibration_warp_stddev = 0\n";

/* The value of `key = value` in [section] of an INI text; NAN when absent. */
static double
s_value (const char *text, const char *section, const char *key)
{
    char head[64];
    snprintf (head, sizeof head, "[%s]\n", section);
    const char *p = strstr (text, head);
    if (!p)
        return NAN;
    const char *end = strstr (p + 1, "\n[");
    size_t n = strlen (key);
    for (p += strlen (head); *p && (!end || p < end); p = strchr (p, '\n') ? strchr (p, '\n') + 1 : "")
        if (strncmp (p, key, n) == 0 && strncmp (p + n, " = ", 3) == 0)
            return strtod (p + n + 3, NULL);
    return NAN;
}

static void
s_near (const char *fit, const char *section, const char *key, double want, double tol)
{
    double got = s_value (fit, section, key);
    cr_expect (fabs (got - want) <= tol, "[%s] %s: fitted %g, recorded with %g (tolerance %g)", section, key,
               got, want, tol);
}

static void
s_slurp (const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *in = fopen (path, "r");
    if (!in)
        return;
    size_t n = fread (buf, 1, cap - 1, in);
    buf[n] = '\0';
    fclose (in);
}

/* `ssl-sim stats --fit LOG` as a user runs it: the file to dir/fit.ini
   (its path into ini), its text into fit and stderr into err. */
static void
s_fit (const char *dir, const char *log, char *ini, size_t ini_cap, char *fit, size_t fit_cap, char *err,
       size_t err_cap)
{
    char err_path[300];
    snprintf (ini, ini_cap, "%s/fit.ini", dir);
    snprintf (err_path, sizeof err_path, "%s/fit.err", dir);
    int rc = sim_lab_sh ("'%s' stats --fit '%s' > '%s' 2> '%s'", sim_lab_exe (), log, ini, err_path);
    s_slurp (ini, fit, fit_cap);
    s_slurp (err_path, err, err_cap);
    cr_log_info ("%s\n%s", fit, err);
    cr_assert_eq (rc, 0, "%s\n%s", fit, err);
}

/* One sync step on a team's port with its robots' commands. */
static void
s_step (sim_fixture_t *f, int port, SimulatorCommand *cmd, RobotControl *rc)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = (float) S_STEP;
    req.simulator_command = cmd;
    req.robot_control = rc;
    SimulationSyncResponse *resp = sim_test_sync (f->fd, port, &req, NULL, NULL, S_WAIT_MS);
    cr_assert_not_null (resp, "no SimulationSyncResponse on port %d", port);
    simulation_sync_response__free_unpacked (resp, NULL);
}

static void
s_place (sim_fixture_t *f, int team, unsigned id, double x, double y, double dir)
{
    sim_msg_robot_tp_t tp;
    SimulatorCommand *c = sim_msg_robot_tp (&tp, team, id);
    sim_msg_robot_pose (&tp.tr, x, y, dir);
    s_step (f, f->proc.control_port, c, NULL);
}

/* The ball at (x, y), launched with (vx, vy, vz), without spin. */
static SimulatorCommand *
s_ball (sim_msg_ball_tp_t *b, double x, double y, double vx, double vy, double vz)
{
    SimulatorCommand *c = sim_msg_ball_tp (b);
    b->tb.has_x = b->tb.has_y = b->tb.has_z = true;
    b->tb.x = (float) x;
    b->tb.y = (float) y;
    b->tb.z = 0;
    b->tb.has_vx = b->tb.has_vy = b->tb.has_vz = true;
    b->tb.vx = (float) vx;
    b->tb.vy = (float) vy;
    b->tb.vz = (float) vz;
    return c;
}

typedef struct {
    sim_msg_robot_cmd_t cmd[3];
    RobotCommand *ptr[3];
    RobotControl rc;
} s_team_cmd_t;

/* Robot 0 drives to and fro, robot 1 turns to and fro (legs of 2 s:
   full ahead, stop, full astern, stop), robot 2 does `kick` (forward
   speed, kick speed) when kick_speed > 0. */
static RobotControl *
s_team_cmd (s_team_cmd_t *t, double time, double fwd, double kick_speed)
{
    static const double drive[4] = { 5, 0, -5, 0 }, turn[4] = { 20, 0, -20, 0 };
    int leg = (int) (time / 2.0) % 4;
    sim_msg_robot_cmd (&t->cmd[0], 0);
    sim_msg_local (&t->cmd[0], drive[leg], 0, 0);
    sim_msg_robot_cmd (&t->cmd[1], 1);
    sim_msg_local (&t->cmd[1], 0, 0, turn[leg]);
    sim_msg_robot_cmd (&t->cmd[2], 2);
    sim_msg_local (&t->cmd[2], fwd, 0, 0);
    if (kick_speed > 0) {
        t->cmd[2].cmd.has_kick_speed = true;
        t->cmd[2].cmd.kick_speed = (float) kick_speed;
    }
    robot_control__init (&t->rc);
    for (int i = 0; i < 3; i++)
        t->ptr[i] = &t->cmd[i].cmd;
    t->rc.n_robot_commands = 3;
    t->rc.robot_commands = t->ptr;
    return &t->rc;
}

Test (fit_motion, recovers_ball_and_team_limits_from_a_recorded_run, .timeout = 300)
{
    char dir[] = "/tmp/ssl-sim-fitmotion-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char log[256];
    snprintf (log, sizeof log, "%s/run.log", dir);
    const char *args[] = { "--mode", "sync", "--truth", "--record", log, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, s_known, SIM_FIXTURE_GATEWAY), 0);
    const int blue = 0, yellow = 1; /* sim_msg's team numbers */
    s_place (&f, blue, 0, -4.5, 3.9, 0);
    s_place (&f, blue, 1, -5.3, 3.3, 0);
    s_place (&f, yellow, 0, 4.5, 3.9, M_PI);
    s_place (&f, yellow, 1, 5.3, 3.3, 0);
    s_place (&f, blue, 2, -3.0, -3.3, 0);
    s_place (&f, yellow, 2, 1.5, -3.3, 0);
    double t = 0;
    /* 10 launches along the ball lane, then 6 chips, then 4 kicks by
       each team's robot 2; every robot drives or turns all along */
    for (int ev = 0; ev < 24; ev++) {
        sim_msg_ball_tp_t bt;
        SimulatorCommand *launch = NULL;
        bool kicks = ev >= 16;
        int kicker = ev % 2 ? yellow : blue;
        if (ev < 10)
            launch = s_ball (&bt, -5.5, -3.8, 3.5 + 0.15 * ev, 0.02 * (ev % 3 - 1), 0);
        else if (ev < 16)
            launch = s_ball (&bt, -5.5, -3.8, 2.5 + 0.2 * (ev - 10), 0, 3.0 + 0.2 * (ev - 10));
        else {
            /* the kicker back at its mark, the ball resting before it,
               the other team's robot 2 out of the ball's way */
            s_place (&f, kicker, 2, kicker == blue ? -3.0 : 1.5, -3.3, 0);
            s_place (&f, kicker == blue ? yellow : blue, 2, kicker == blue ? 1.5 : -3.0, -4.3, 0);
            launch = s_ball (&bt, (kicker == blue ? -3.0 : 1.5) + 0.099, -3.3, 0, 0, 0);
        }
        double start = t, end = t + (kicks ? 2.0 : 2.5);
        for (bool first = true; t < end; t += 2 * S_STEP, first = false) {
            s_team_cmd_t bc, yc;
            /* the ball rests at the kicker for 0.3 s first, as it would
               after a pass: the fitter finds the kicker where it rested */
            bool armed = kicks && t - start > 0.3;
            bool mine_b = armed && kicker == blue, mine_y = armed && kicker == yellow;
            s_step (&f, f.proc.blue_port, first ? launch : NULL, s_team_cmd (&bc, t, 0, mine_b ? 8 : 0));
            s_step (&f, f.proc.yellow_port, NULL, s_team_cmd (&yc, t, 0, mine_y ? 8 : 0));
        }
    }
    cr_assert_eq (sim_fixture_stop (&f), 0);

    static char fit[32768], err[4096];
    char ini[300];
    s_fit (dir, log, ini, sizeof ini, fit, sizeof fit, err, sizeof err);
    s_near (fit, "ball", "acc_slide", -3.9, 0.08 * 3.9);
    s_near (fit, "ball", "acc_roll", -0.3, 0.08 * 0.3);
    /* k = 1 / (1 + p) = 0.625 within 0.03, so p within about 0.08 */
    s_near (fit, "ball", "inertia_distribution", 0.6, 0.08);
    s_near (fit, "ball", "chip_damping_z", 0.52, 0.03);
    s_near (fit, "ball", "chip_damping_z_other_hops", 0.45, 0.03);
    s_near (fit, "ball", "chip_damping_xy_first_hop", 0.78, 0.03);
    s_near (fit, "ball", "chip_damping_xy_other_hops", 0.9, 0.03);
    s_near (fit, "blue.limits", "acc_speedup_absolute_max", 2.5, 0.06 * 2.5);
    s_near (fit, "blue.limits", "acc_brake_absolute_max", 4.5, 0.06 * 4.5);
    s_near (fit, "blue.limits", "vel_absolute_max", 2.2, 0.02 * 2.2);
    s_near (fit, "blue.limits", "vel_angular_max", 8, 0.03 * 8);
    s_near (fit, "blue.limits", "acc_speedup_angular_max", 30, 0.10 * 30);
    s_near (fit, "blue.limits", "acc_brake_angular_max", 35, 0.10 * 35);
    s_near (fit, "yellow.limits", "acc_speedup_absolute_max", 3.2, 0.06 * 3.2);
    s_near (fit, "yellow.limits", "acc_brake_absolute_max", 5.5, 0.06 * 5.5);
    s_near (fit, "yellow.limits", "vel_absolute_max", 2.6, 0.02 * 2.6);
    s_near (fit, "yellow.limits", "vel_angular_max", 10, 0.03 * 10);
    s_near (fit, "blue.kicker", "max_linear_speed", 5.0 - 0.075, 0.075);
    s_near (fit, "yellow.kicker", "max_linear_speed", 6.0 - 0.075, 0.075);
    /* no robot chipped: the file says so and leaves the key out, and
       the user is told on stderr */
    cr_expect (strstr (fit, "; max_chip_speed: not fitted, no chips"), "%s", fit);
    cr_expect (isnan (s_value (fit, "blue.kicker", "max_chip_speed")), "%s", fit);
    cr_expect (strstr (err, "too little in the log to fit") && strstr (err, "[blue.kicker] max_chip_speed"),
               "%s", err);

    /* the file is a configuration --config loads, with the fitted values */
    static char dump[262144];
    cr_assert_eq (sim_lab_capture (dump, sizeof dump, "'%s' presets --config '%s' 2>&1", sim_lab_exe (), ini),
                  0, "%s", dump);
    double slide = s_value (fit, "ball", "acc_slide");
    cr_expect (fabs (s_value (dump, "ball", "acc_slide") - slide) < 1e-4, "%s", dump);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* Chips as a real field's log shows them: `ssl-sim run --record`
   without --truth writes vision alone (as a league recorder's log holds
   vision and the referee, and no ball heights), so the fit reads chip
   hops from the ball's image against the cameras' positions in the
   geometry. Robot 2 of each team chips from rest eight times,
   commanded at 8 m/s at 45 degrees, above each team's max_chip_speed,
   so the chips leave at the cap (times the default kick speed spread,
   itself capped) and the fastest one seen reads the cap.

   The realism is the default, calibration warp included: a chip is
   read from its kinks and from decimetres of apparent displacement, and
   the warp's centimetre bends the ground lines a little (the fit allows
   each camera its own offset in a flight); docs/stats.md gives the
   numbers with and without it.

   Tolerances: a hop's take-off and landing are kinks of the image, each
   placed to a few milliseconds (0.75 mm of noise on a velocity jump of
   0.5 to 5 m/s; a weak one, a last landing, up to half a frame late);
   a first hop lasts about 0.8 s, a second 0.4 s, a third 0.2 s, so one
   bounce's vertical ratio is good to 0.01 to 0.03 and the median of 16
   to better than 0.01, plus the late landings' bias on the third hops
   (+0.01 measured); the horizontal ratio comes from two ground lines
   over 15 to 60 detections each, a few mm/s on 3 m/s, plus the warp's
   bend (-0.008 measured). Each is allowed 0.03, as the heights path is.
   The chip cap: the fastest chip's speed from its take-off vz (the
   hop's length, a few ms in 0.8 s: 0.5 %, 0.02 m/s) and its ground
   speed, within 0.1 m/s of the cap. */
static const char s_chips[] = "[ball]\n"
                              "chip_damping_xy_first_hop = 0.78\n"
                              "chip_damping_xy_other_hops = 0.9\n"
                              "chip_damping_z = 0.52\n"
                              "chip_damping_z_other_hops = 0.45\n"
                              "[blue.kicker]\n"
                              "max_chip_speed = 5.6\n"
                              "[yellow.kicker]\n"
                              "max_chip_speed = 6.0\n";

Test (fit_motion, reads_chip_hops_and_caps_from_vision_alone, .timeout = 300)
{
    char dir[] = "/tmp/ssl-sim-fitchip-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char log[256];
    snprintf (log, sizeof log, "%s/run.log", dir);
    const char *args[] = { "--mode", "sync", "--record", log, NULL };
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, s_chips, SIM_FIXTURE_GATEWAY), 0);
    const int blue = 0, yellow = 1; /* sim_msg's team numbers */
    double t = 0;
    for (int ev = 0; ev < 16; ev++) {
        /* the kicker at its mark, blue's at x = -4 facing +x and
           yellow's at x = 4 facing -x, each turned a little more to +y
           each time; the ball resting before it; the other kicker out
           of the way */
        int kicker = ev % 2 ? yellow : blue;
        double kx = kicker == blue ? -4.0 : 4.0, ky = -3.3, turn = 0.05 * (ev / 2);
        double dir_k = kicker == blue ? turn : M_PI - turn;
        s_place (&f, kicker, 2, kx, ky, dir_k);
        s_place (&f, kicker == blue ? yellow : blue, 2, -kx, -4.3, 0);
        sim_msg_ball_tp_t bt;
        SimulatorCommand *rest = s_ball (&bt, kx + 0.099 * cos (dir_k), ky + 0.099 * sin (dir_k), 0, 0, 0);
        double start = t;
        for (bool first = true; t < start + 2.5; t += 2 * S_STEP, first = false) {
            /* the ball rests 0.3 s first, as it would after a pass */
            bool armed = t - start > 0.3;
            s_team_cmd_t c[2];
            RobotControl *rc[2];
            for (int team = 0; team < 2; team++) {
                rc[team] = s_team_cmd (&c[team], 0, 0, armed && team == kicker ? 8 : 0);
                c[team].rc.n_robot_commands = 1; /* robot 0 only: the others stand */
                c[team].ptr[0] = &c[team].cmd[2].cmd;
                c[team].cmd[2].cmd.has_kick_angle = true;
                c[team].cmd[2].cmd.kick_angle = 45;
            }
            s_step (&f, f.proc.blue_port, first ? rest : NULL, rc[blue]);
            s_step (&f, f.proc.yellow_port, NULL, rc[yellow]);
        }
    }
    cr_assert_eq (sim_fixture_stop (&f), 0);

    static char fit[32768], err[4096];
    char ini[300];
    s_fit (dir, log, ini, sizeof ini, fit, sizeof fit, err, sizeof err);
    cr_expect (strstr (fit, "(from vision alone"), "%s", fit);
    s_near (fit, "ball", "chip_damping_z", 0.52, 0.03);
    s_near (fit, "ball", "chip_damping_z_other_hops", 0.45, 0.03);
    s_near (fit, "ball", "chip_damping_xy_first_hop", 0.78, 0.03);
    s_near (fit, "ball", "chip_damping_xy_other_hops", 0.9, 0.03);
    s_near (fit, "blue.kicker", "max_chip_speed", 5.6, 0.1);
    s_near (fit, "yellow.kicker", "max_chip_speed", 6.0, 0.1);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* The live path: `ssl-sim stats --listen ... --fit` on a running
   simulator with the defaults writes the same file from the stream (no
   tracker there: vision alone), says that the default formation, which
   stands still, gives too few chips, and the file loads with --config. */
Test (fit_motion, fits_a_live_stream_and_says_what_it_lacks, .timeout = 60)
{
    const char *args[] = { NULL };
    sim_proc_t proc;
    cr_assert_eq (sim_proc_start (&proc, args, NULL), 0);
    cr_assert_eq (sim_lab_wait_text (proc.log, "vision to ", 15000), 0, "the vision service did not start");
    char dir[] = "/tmp/ssl-sim-fitlive-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[300], err_path[300];
    snprintf (ini, sizeof ini, "%s/fit.ini", dir);
    snprintf (err_path, sizeof err_path, "%s/fit.err", dir);
    int rc = sim_lab_sh ("'%s' stats --listen 127.0.0.1:%d --seconds 1.5 --fit > '%s' 2> '%s'",
                         sim_lab_exe (), proc.vision_port, ini, err_path);
    int stopped = sim_proc_stop (&proc);
    if (stopped != 0)
        sim_proc_dump_log (&proc);
    sim_proc_cleanup (&proc);
    cr_assert_eq (stopped, 0);
    static char fit[32768], err[8192];
    s_slurp (ini, fit, sizeof fit);
    s_slurp (err_path, err, sizeof err);
    cr_assert_eq (rc, 0, "%s\n%s", fit, err);
    cr_expect (strstr (fit, "[realism]") && strstr (fit, "[ball]"), "%s", fit);
    cr_expect (strstr (fit, "(from vision alone"), "the stream's geometry gives the cameras: %s", fit);
    cr_expect (strstr (fit, "; too few chips in the log for the chip dampings"), "%s", fit);
    cr_expect (isnan (s_value (fit, "ball", "chip_damping_z")), "%s", fit);
    cr_expect (strstr (err, "[ball] chip_damping_z "), "%s", err);
    static char dump[262144];
    cr_expect_eq (sim_lab_capture (dump, sizeof dump, "'%s' presets --config '%s' 2>&1", sim_lab_exe (), ini),
                  0, "%s", dump);
    sim_lab_sh ("rm -rf '%s'", dir);
}
