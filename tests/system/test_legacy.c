/*  test_legacy.c - the legacy grSim port end to end (spec/protocol.md §9):
    every grSim_Packet field seen in vision, Robots_Status to the sender's
    IP on the team's status port with infrared and the kick flags, once per
    sync step in sync mode (§8.5), and undecodable datagrams dropped while
    the port keeps serving. The world is stepped by a sync client on the
    control port, so effects are read from the step's frames.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "grSim_Packet.pb-c.h"
#include "grSim_Robotstatus.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define BLUE   0
#define YELLOW 1

typedef struct {
    sim_fixture_t sim; /* sim.fd: the sync client */
    int grsim;         /* legacy client */
    int status[2];     /* Robots_Status receivers */
} fixture_t;

static const char *const SYNC_ARGS[] = { "--mode", "sync", "--realism", "none", NULL };

static void
s_start (fixture_t *f)
{
    cr_assert_eq (sim_fixture_start (&f->sim, SYNC_ARGS, NULL, SIM_FIXTURE_FRAMES), 0,
                  "ssl-sim did not come up");
    f->grsim = sim_fixture_socket (&f->sim, 0);
    f->status[BLUE] = sim_fixture_socket (&f->sim, f->sim.proc.status_blue_port);
    f->status[YELLOW] = sim_fixture_socket (&f->sim, f->sim.proc.status_yellow_port);
    cr_assert (f->grsim >= 0 && f->status[BLUE] >= 0 && f->status[YELLOW] >= 0);
}

static void
s_stop (fixture_t *f)
{
    cr_expect_eq (sim_fixture_stop (&f->sim), 0, "ssl-sim did not stop cleanly");
}

static void
s_look (fixture_t *f, double seconds, sim_view_t *v)
{
    int n = sim_test_look (f->sim.fd, f->sim.proc.control_port, seconds, v);
    cr_assert_gt (n, 0, "a %.3f s step released no frames", seconds);
}

/* Legacy datagrams reach physics on their own path, so a step requested
   right after one may run before it applies: look until `cond` holds, at
   most 3 s of wall time, 0.02 s of sim time per look, paced by a bounded
   wait on the legacy client's socket (nothing arrives there). */
#define LOOK_UNTIL(f, v, cond) \
    do { \
        int64_t end_ = sim_test_now_ms () + 3000; \
        uint8_t pace_[16]; \
        do { \
            s_look ((f), 0.02, (v)); \
            if (cond) \
                break; \
            sim_test_recv ((f)->grsim, pace_, sizeof pace_, 5); \
        } while (sim_test_now_ms () < end_); \
    } while (0)

static void
s_send (fixture_t *f, GrSimPacket *packet)
{
    cr_assert_eq (sim_test_send (f->grsim, f->sim.proc.legacy_port, &packet->base), 0);
}

/* Replace one robot; (x, y) m, dir degrees. turnon < 0 leaves it unset. */
static void
s_replace_robot (fixture_t *f, int team, uint32_t id, double x, double y, double dir, int turnon)
{
    cr_assert_eq (
        sim_test_grsim_place (f->grsim, f->sim.proc.legacy_port, team == YELLOW, id, x, y, dir, turnon), 0);
}

static bool
s_at (const sim_view_t *v, int team, uint32_t id, double x, double y)
{
    return v->robot[team][id] && fabs (v->rx[team][id] - x) < 0.005 && fabs (v->ry[team][id] - y) < 0.005;
}

/* The test's first grSim datagram, sent once: the grSim port is bound and
   physics listens before the first frame (docs/protocol.md, Start), so it
   is never lost, only perhaps applied a step late. True once robot `id`
   shows at (x, y); the simulator's log is dumped when it never does. */
static bool
s_first_replacement (fixture_t *f, int team, uint32_t id, double x, double y, double dir, int turnon,
                     sim_view_t *v)
{
    s_replace_robot (f, team, id, x, y, dir, turnon);
    LOOK_UNTIL (f, v, s_at (v, team, id, x, y));
    if (s_at (v, team, id, x, y))
        return true;
    sim_proc_dump_log (&f->sim.proc);
    return false;
}

static void
s_replace_ball (fixture_t *f, double x, double y, bool velocity, double vx, double vy)
{
    GrSimBallReplacement b = GR_SIM__BALL_REPLACEMENT__INIT;
    b.has_x = b.has_y = true;
    b.x = x;
    b.y = y;
    b.has_vx = b.has_vy = velocity;
    b.vx = vx;
    b.vy = vy;
    GrSimReplacement rep = GR_SIM__REPLACEMENT__INIT;
    rep.ball = &b;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.replacement = &rep;
    s_send (f, &packet);
}

/* One grSim robot command for `team`. */
static void
s_command (fixture_t *f, int team, GrSimRobotCommand *rc)
{
    GrSimRobotCommand *rcs[] = { rc };
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.isteamyellow = team == YELLOW;
    cmds.n_robot_commands = 1;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    s_send (f, &packet);
}

/* Step while re-sending the command (legacy commands time out after 0.1 s
   like protocol ones); collect the status flags seen for robot `id`. */
typedef struct {
    int messages; /* Robots_Status datagrams */
    int max_per_step;
    bool infrared, flat, chip;
    bool cleared; /* a kick flag seen set, later seen cleared */
} status_seen_t;

static void
s_drive (fixture_t *f, int team, GrSimRobotCommand *rc, int steps, double dt, int id, status_seen_t *seen)
{
    for (int i = 0; i < steps; i++) {
        if (rc)
            s_command (f, team, rc);
        sim_view_t v;
        sim_test_look (f->sim.fd, f->sim.proc.control_port, dt, &v);
        uint8_t buf[65536];
        int this_step = 0;
        ssize_t n;
        /* the status of a step follows its answer closely */
        while ((n = sim_test_recv (f->status[team], buf, sizeof buf, this_step ? 0 : 20)) >= 0) {
            RobotsStatus *st = robots__status__unpack (NULL, (size_t) n, buf);
            cr_assert_not_null (st, "a status datagram that is not Robots_Status");
            this_step++;
            if (seen)
                for (size_t k = 0; k < st->n_robots_status; k++) {
                    RobotStatus *r = st->robots_status[k];
                    if (r->robot_id != id)
                        continue;
                    if ((seen->flat || seen->chip) && !r->flat_kick && !r->chip_kick)
                        seen->cleared = true;
                    seen->infrared |= r->infrared;
                    seen->flat |= r->flat_kick;
                    seen->chip |= r->chip_kick;
                }
            robots__status__free_unpacked (st, NULL);
        }
        if (getenv ("SIM_TEST_LOG"))
            fprintf (stderr, "step %d: %d status, ball (%.3f, %.3f)\n", i, this_step, v.bx, v.by);
        if (seen) {
            seen->messages += this_step;
            if (this_step > seen->max_per_step)
                seen->max_per_step = this_step;
        }
    }
}

Test (legacy, replacements, .timeout = 60)
{
    fixture_t f;
    s_start (&f);
    sim_view_t v;
    cr_assert (s_first_replacement (&f, BLUE, 7, 1.0, -1.0, 90.0, -1, &v),
               "the grSim robot replacement never showed in vision");
    cr_expect (fabs (v.ro[BLUE][7] - M_PI / 2) < 0.01, "dir 90 degrees gave %.3f rad", v.ro[BLUE][7]);

    /* turnon = false removes; absent turnon creates (yellow 12 is new) */
    s_replace_robot (&f, BLUE, 7, 1.0, -1.0, 0, 0);
    s_replace_robot (&f, YELLOW, 12, -1.5, 2.0, -45.0, -1);
    LOOK_UNTIL (&f, &v, !v.robot[BLUE][7] && v.robot[YELLOW][12]);
    cr_expect (!v.robot[BLUE][7], "turnon = false did not remove blue 7");
    cr_expect (v.robot[YELLOW][12] && fabs (v.rx[YELLOW][12] + 1.5) < 0.005
                   && fabs (v.ro[YELLOW][12] + M_PI / 4) < 0.01,
               "yellow 12 not created at (-1.5, 2.0, -45 deg)");
    /* an id above 255 names no robot: refused as on the protocol ports,
       not taken as robot 255; the next replacement, applied after it,
       shows when it has been */
    s_replace_robot (&f, YELLOW, 1000, 0.5, -3.5, 0, 1);
    s_replace_robot (&f, YELLOW, 13, 0.5, -3.0, 0, 1);
    LOOK_UNTIL (&f, &v, s_at (&v, YELLOW, 13, 0.5, -3.0));
    cr_expect (s_at (&v, YELLOW, 13, 0.5, -3.0), "yellow 13 not created at (0.5, -3.0)");
    cr_expect (!v.robot[YELLOW][255], "the replacement of yellow 1000 created yellow 255");

    /* ball: position, then a velocity */
    s_replace_ball (&f, -2.0, -2.0, false, 0, 0);
    LOOK_UNTIL (&f, &v, v.ball && fabs (v.bx + 2.0) < 0.005);
    cr_expect (v.ball && fabs (v.bx + 2.0) < 0.005 && fabs (v.by + 2.0) < 0.005, "ball at (%.3f, %.3f)", v.bx,
               v.by);
    s_replace_ball (&f, -2.0, -2.0, true, 0, 1.5);
    LOOK_UNTIL (&f, &v, v.ball && v.by > -1.8);
    cr_expect (v.ball && v.by > -1.8 && fabs (v.bx + 2.0) < 0.02, "ball velocity: at (%.3f, %.3f)", v.bx,
               v.by);

    /* undecodable datagrams are dropped; the port keeps serving */
    uint8_t junk[600];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t) (i * 37 + 11);
    for (int i = 0; i < 200; i++)
        sim_test_send_raw (f.grsim, f.sim.proc.legacy_port, junk, (size_t) (i * 3) % sizeof junk);
    s_replace_robot (&f, BLUE, 3, 0.7, 0.7, 0, 1);
    LOOK_UNTIL (&f, &v, v.robot[BLUE][3] && fabs (v.rx[BLUE][3] - 0.7) < 0.005);
    cr_expect (v.robot[BLUE][3] && fabs (v.rx[BLUE][3] - 0.7) < 0.005, "the legacy port stopped serving");
    s_stop (&f);
}

Test (legacy, commands_and_status, .timeout = 60)
{
    fixture_t f;
    s_start (&f);
    sim_view_t v;
    cr_assert (s_first_replacement (&f, BLUE, 0, -1.0, 0.0, 0, 1, &v), "the legacy port never answered");
    s_replace_ball (&f, 3.0, 2.5, false, 0, 0);

    /* veltangent: forward (local frame) */
    GrSimRobotCommand rc = GR_SIM__ROBOT__COMMAND__INIT;
    rc.id = 0;
    rc.veltangent = 1.0f;
    status_seen_t st = { 0 };
    s_drive (&f, BLUE, &rc, 10, 0.05, 0, &st);
    s_look (&f, 0.05, &v);
    cr_expect (v.rx[BLUE][0] > -0.8 && fabs (v.ry[BLUE][0]) < 0.03, "veltangent: blue 0 at (%.3f, %.3f)",
               v.rx[BLUE][0], v.ry[BLUE][0]);
    cr_expect_gt (st.messages, 0, "no Robots_Status on the blue status port");
    cr_expect_leq (st.max_per_step, 1, "more than one Robots_Status per sync step");

    /* velnormal: left; isteamyellow picks the team */
    s_replace_robot (&f, YELLOW, 1, 1.0, -2.0, 0, 1);
    LOOK_UNTIL (&f, &v, v.robot[YELLOW][1] && fabs (v.ry[YELLOW][1] + 2.0) < 0.005);
    GrSimRobotCommand yc = GR_SIM__ROBOT__COMMAND__INIT;
    yc.id = 1;
    yc.velnormal = 1.0f;
    s_drive (&f, YELLOW, &yc, 10, 0.05, 1, NULL);
    s_look (&f, 0.05, &v);
    cr_expect (v.ry[YELLOW][1] > -1.85 && fabs (v.rx[YELLOW][1] - 1.0) < 0.03,
               "velnormal: yellow 1 at (%.3f, %.3f)", v.rx[YELLOW][1], v.ry[YELLOW][1]);

    /* wheelsspeed: rad/s, wheel1..4 = front-left, back-left, back-right,
       front-right; the IK of "forward 0.5 m/s" drives forward */
    s_replace_robot (&f, BLUE, 2, 2.0, -2.0, 0, 1);
    LOOK_UNTIL (&f, &v, v.robot[BLUE][2] && fabs (v.ry[BLUE][2] + 2.0) < 0.005);
    GrSimRobotCommand wc = GR_SIM__ROBOT__COMMAND__INIT;
    wc.id = 2;
    wc.wheelsspeed = true;
    double r = 0.027;
    wc.has_wheel1 = wc.has_wheel2 = wc.has_wheel3 = wc.has_wheel4 = true;
    wc.wheel1 = (float) (-0.5 * sin (M_PI / 3) / r);
    wc.wheel2 = (float) (-0.5 * sin (3 * M_PI / 4) / r);
    wc.wheel3 = (float) (0.5 * sin (3 * M_PI / 4) / r);
    wc.wheel4 = (float) (0.5 * sin (M_PI / 3) / r);
    s_drive (&f, BLUE, &wc, 10, 0.05, 2, NULL);
    s_look (&f, 0.05, &v);
    cr_expect (v.rx[BLUE][2] > 2.1 && fabs (v.ry[BLUE][2] + 2.0) < 0.05 && fabs (v.ro[BLUE][2]) < 0.1,
               "wheelsspeed forward: blue 2 at (%.3f, %.3f, %.3f)", v.rx[BLUE][2], v.ry[BLUE][2],
               v.ro[BLUE][2]);

    /* spinner with the ball at the dribbler: infrared; then kickspeedx: a
       flat kick flagged in the status */
    s_replace_robot (&f, BLUE, 4, -2.0, 2.0, 0, 1);
    s_replace_ball (&f, -2.0 + 0.0965 + 0.01, 2.0, true, 0, 0);
    LOOK_UNTIL (&f, &v, v.robot[BLUE][4] && fabs (v.rx[BLUE][4] + 2.0) < 0.005 && fabs (v.by - 2.0) < 0.005);
    GrSimRobotCommand kc = GR_SIM__ROBOT__COMMAND__INIT;
    kc.id = 4;
    kc.veltangent = 0.2f;
    kc.spinner = true;
    status_seen_t ks = { 0 };
    s_drive (&f, BLUE, &kc, 10, 0.05, 4, &ks);
    cr_expect (ks.infrared, "no infrared with the ball at the dribbler");
    kc.veltangent = 0.1f;
    kc.spinner = false;
    kc.kickspeedx = 3.0f;
    memset (&ks, 0, sizeof ks);
    s_drive (&f, BLUE, &kc, 6, 0.016, 4, &ks);
    kc.kickspeedx = 0;
    kc.veltangent = 0;
    s_drive (&f, BLUE, &kc, 8, 0.016, 4, &ks);
    cr_expect (ks.flat && !ks.chip, "flat kick flags: flat %d chip %d", ks.flat, ks.chip);
    cr_expect (ks.cleared, "the flat kick flag did not clear within 8 steps (10 released frames)");
    s_look (&f, 0.1, &v);
    cr_expect (v.ball && v.bx > -1.5, "kickspeedx did not kick (ball x %.3f)", v.bx);

    /* kickspeedz: a chip */
    s_replace_robot (&f, BLUE, 5, -3.0, -1.0, 0, 1);
    s_replace_ball (&f, -3.0 + 0.0965 + 0.01, -1.0, true, 0, 0);
    LOOK_UNTIL (&f, &v, v.robot[BLUE][5] && fabs (v.rx[BLUE][5] + 3.0) < 0.005 && fabs (v.by + 1.0) < 0.005);
    GrSimRobotCommand cc = GR_SIM__ROBOT__COMMAND__INIT;
    cc.id = 5;
    cc.veltangent = 0.2f;
    cc.kickspeedx = 2.0f;
    cc.kickspeedz = 2.0f;
    memset (&ks, 0, sizeof ks);
    s_drive (&f, BLUE, &cc, 15, 0.016, 5, &ks);
    s_look (&f, 0.05, &v);
    cr_expect (ks.chip && !ks.flat, "chip kick flags: flat %d chip %d (ball at %.3f, %.3f; %d status)",
               ks.flat, ks.chip, v.bx, v.by, ks.messages);
    s_stop (&f);
}

/* A sender that leaves grSim's `required` fields out when they are zero (a
   proto3 copy of the messages, protobuf.js, a C++ release build that
   forgot one) is obeyed by grSim, which reads what it finds. Written byte
   by byte, as such a sender puts them on the wire. */
Test (legacy, a_packet_without_its_zeros_is_obeyed_as_grsim_obeys_it, .timeout = 60)
{
    fixture_t f;
    s_start (&f);
    sim_view_t v;
    cr_assert (s_first_replacement (&f, BLUE, 0, -1.0, 0.0, 0, 1, &v), "the legacy port never answered");
    /* replacement { robots { x 1.5, y -1.0, id 6 } }: dir 0 and blue
       (yellowteam false) left out */
    static const uint8_t place[] = {
        0x12, 0x16, 0x12, 0x14,                               /* replacement, robots */
        0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, /* x 1.5 */
        0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0xbf, /* y -1.0 */
        0x20, 0x06,                                           /* id 6 */
    };
    cr_assert_eq (sim_test_send_raw (f.grsim, f.sim.proc.legacy_port, place, sizeof place), 0);
    LOOK_UNTIL (&f, &v, s_at (&v, BLUE, 6, 1.5, -1.0));
    cr_expect (s_at (&v, BLUE, 6, 1.5, -1.0),
               "the replacement without its zeros did not place blue 6 (%d at %.3f, %.3f)", v.robot[BLUE][6],
               v.rx[BLUE][6], v.ry[BLUE][6]);
    /* commands { robot_commands { id 6, veltangent 1.0 } }: timestamp,
       isteamyellow (blue), the other speeds, spinner and wheelsspeed left out */
    static const uint8_t drive[] = {
        0x0a, 0x09, 0x1a, 0x07,       /* commands, robot_commands */
        0x08, 0x06,                   /* id 6 */
        0x25, 0x00, 0x00, 0x80, 0x3f, /* veltangent 1.0 */
    };
    for (int i = 0; i < 10; i++) {
        cr_assert_eq (sim_test_send_raw (f.grsim, f.sim.proc.legacy_port, drive, sizeof drive), 0);
        s_look (&f, 0.05, &v);
    }
    cr_expect (v.robot[BLUE][6] && v.rx[BLUE][6] > 1.7 && fabs (v.ry[BLUE][6] + 1.0) < 0.03,
               "commands without their zeros: blue 6 at (%.3f, %.3f), not driven forward from (1.5, -1.0)",
               v.rx[BLUE][6], v.ry[BLUE][6]);
    s_stop (&f);
}
