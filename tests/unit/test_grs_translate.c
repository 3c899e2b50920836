/*  test_grs_translate.c - services/legacy-grsim/grs_translate.c: what a
    grSim_Packet asks of physics (protocol.md §9) as the bus requests the
    adapter sends: the team of the commands, each robot's move, kick and
    dribbler with its team's specs, the replacement's teleports, and the
    limits on ids and counts that keep the wire inside the arrays.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "services/legacy-grsim/grs_translate.h"
#include "common/base/sim_team.h"
#include "common/config/config.h"
#include "grSim_Packet.pb-c.h"

/* float fields hold what the wire's float or double held, rounded once */
#define S_EPS 1e-6

static sim_config_t s_cfg;

static void
s_setup (void)
{
    sim_config_defaults (&s_cfg);
    /* two teams that differ, to see which one's specs a command gets */
    s_cfg.team[SIM_TEAM_BLUE].drive.wheel_radius = 0.025;
    s_cfg.team[SIM_TEAM_YELLOW].drive.wheel_radius = 0.03;
    s_cfg.team[SIM_TEAM_BLUE].dribbler.max_speed_rpm = 1000;
    s_cfg.team[SIM_TEAM_YELLOW].dribbler.max_speed_rpm = 2000;
}

TestSuite (grs_translate, .init = s_setup);

/* A grSim robot command for robot `id` that asks for nothing. */
static GrSimRobotCommand
s_robot_command (uint32_t id)
{
    GrSimRobotCommand g;
    gr_sim__robot__command__init (&g);
    g.id = id;
    return g;
}

/* The commands of `n` robots in `items` for the blue or yellow team. */
static GrSimCommands
s_commands_of (GrSimRobotCommand **items, size_t n, bool yellow)
{
    GrSimCommands cmds;
    gr_sim__commands__init (&cmds);
    cmds.isteamyellow = yellow;
    cmds.robot_commands = items;
    cmds.n_robot_commands = n;
    return cmds;
}

/* One robot's command translated for the team; the result is in *out. */
static const RobotCommand *
s_translate_one (grs_commands_t *out, GrSimRobotCommand *g, bool yellow)
{
    GrSimRobotCommand *items[] = { g };
    GrSimCommands cmds = s_commands_of (items, 1, yellow);
    grs_translate_commands (out, &cmds, &s_cfg);
    cr_assert_eq (out->req.team_control->control->n_robot_commands, 1);
    return out->req.team_control->control->robot_commands[0];
}

/* ---- commands ------------------------------------------------------------ */

Test (grs_translate, commands_go_to_the_team_that_isteamyellow_names)
{
    grs_commands_t *out = malloc (sizeof *out);
    cr_assert_not_null (out);
    GrSimRobotCommand g = s_robot_command (1);
    GrSimRobotCommand *items[] = { &g };
    for (int yellow = 0; yellow < 2; yellow++) {
        GrSimCommands cmds = s_commands_of (items, 1, yellow);
        sim_team_t want = yellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
        cr_expect_eq (grs_translate_team (&cmds), want);
        cr_expect_eq (grs_translate_commands (out, &cmds, &s_cfg), want);
        cr_assert_not_null (out->req.team_control);
        cr_expect_eq (out->req.team_control->team, sim_team_number (want), "the bus's team number");
        cr_expect_null (out->req.simulator_command, "commands only");
        cr_expect_eq (out->req.id, 0, "the sender numbers its requests");
        cr_expect_null (out->req.source);
    }
    free (out);
}

Test (grs_translate, a_local_velocity_moves_forward_left_and_turns)
{
    grs_commands_t *out = malloc (sizeof *out);
    GrSimRobotCommand g = s_robot_command (4);
    g.veltangent = 1.5f;
    g.velnormal = -0.5f;
    g.velangular = 2.0f;
    const RobotCommand *c = s_translate_one (out, &g, false);
    cr_expect_eq (c->id, 4);
    cr_assert_eq (c->move_command->command_case, ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY);
    cr_expect_float_eq (c->move_command->local_velocity->forward, 1.5f, S_EPS);
    cr_expect_float_eq (c->move_command->local_velocity->left, -0.5f, S_EPS);
    cr_expect_float_eq (c->move_command->local_velocity->angular, 2.0f, S_EPS);
    cr_expect (!c->has_kick_speed && !c->has_kick_angle && !c->has_dribbler_speed, "nothing else asked");
    free (out);
}

Test (grs_translate, wheel_speeds_in_rad_per_s_become_m_per_s_in_grsim_order)
{
    grs_commands_t *out = malloc (sizeof *out);
    GrSimRobotCommand g = s_robot_command (0);
    g.wheelsspeed = true;
    g.has_wheel1 = g.has_wheel2 = g.has_wheel3 = true; /* wheel4 missing: 0 */
    g.wheel1 = 10;
    g.wheel2 = 20;
    g.wheel3 = 30;
    g.wheel4 = 40;
    for (int yellow = 0; yellow < 2; yellow++) {
        double r = s_cfg.team[yellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE].drive.wheel_radius;
        const RobotCommand *c = s_translate_one (out, &g, yellow);
        cr_assert_eq (c->move_command->command_case, ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY);
        const MoveWheelVelocity *w = c->move_command->wheel_velocity;
        cr_expect_float_eq (w->front_left, 10 * r, S_EPS, "wheel1 is front-left");
        cr_expect_float_eq (w->back_left, 20 * r, S_EPS, "wheel2 is back-left");
        cr_expect_float_eq (w->back_right, 30 * r, S_EPS, "wheel3 is back-right");
        cr_expect_eq (w->front_right, 0, "a missing wheel4 stands still");
    }
    free (out);
}

Test (grs_translate, kick_speed_and_elevation_come_from_kickspeedx_and_kickspeedz)
{
    grs_commands_t *out = malloc (sizeof *out);
    GrSimRobotCommand g = s_robot_command (2);
    g.kickspeedx = 3;
    g.kickspeedz = 4;
    const RobotCommand *c = s_translate_one (out, &g, false);
    cr_assert (c->has_kick_speed && c->has_kick_angle);
    cr_expect_float_eq (c->kick_speed, 5.0f, S_EPS);
    cr_expect_float_eq (c->kick_angle, atan2 (4, 3) * 180.0 / M_PI, 1e-4, "degrees above the floor");
    g.kickspeedz = 0;
    c = s_translate_one (out, &g, false);
    cr_expect_float_eq (c->kick_speed, 3.0f, S_EPS);
    cr_expect_eq (c->kick_angle, 0, "a flat kick");
    free (out);
}

Test (grs_translate, no_kick_for_a_zero_or_non_finite_speed)
{
    grs_commands_t *out = malloc (sizeof *out);
    const float speeds[][2] = { { 0, 0 }, { NAN, 1 }, { INFINITY, 0 }, { 1, -INFINITY } };
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        GrSimRobotCommand g = s_robot_command (2);
        g.kickspeedx = speeds[i][0];
        g.kickspeedz = speeds[i][1];
        const RobotCommand *c = s_translate_one (out, &g, false);
        cr_expect (!c->has_kick_speed && !c->has_kick_angle, "case %zu: no kick", i);
    }
    free (out);
}

/* grSim kicks only when kickspeedx or kickspeedz is above 0.0001 m/s
   (SSLWorld::recvActions): a negative horizontal speed alone, or a speed
   too small to count, is no kick there, not a kick backwards or at the
   kicker's least speed here. */
Test (grs_translate, no_kick_where_grsim_does_not_kick)
{
    grs_commands_t *out = malloc (sizeof *out);
    const float speeds[][2] = { { -3, 0 }, { 0, -2 }, { -3, -1 }, { 0.00005f, 0 }, { 0, 0.0001f } };
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        GrSimRobotCommand g = s_robot_command (2);
        g.kickspeedx = speeds[i][0];
        g.kickspeedz = speeds[i][1];
        const RobotCommand *c = s_translate_one (out, &g, false);
        cr_expect (!c->has_kick_speed && !c->has_kick_angle, "(%g, %g): no kick in grSim, kick_speed %g here",
                   speeds[i][0], speeds[i][1], c->kick_speed);
    }
    /* either component above the threshold kicks, as in grSim */
    GrSimRobotCommand g = s_robot_command (2);
    g.kickspeedx = 3;
    g.kickspeedz = -1;
    const RobotCommand *c = s_translate_one (out, &g, false);
    cr_expect (c->has_kick_speed && c->kick_speed > 3, "(3, -1) kicks");
    free (out);
}

Test (grs_translate, the_spinner_runs_the_dribbler_at_the_teams_top_speed)
{
    grs_commands_t *out = malloc (sizeof *out);
    GrSimRobotCommand g = s_robot_command (5);
    g.spinner = true;
    for (int yellow = 0; yellow < 2; yellow++) {
        const RobotCommand *c = s_translate_one (out, &g, yellow);
        cr_assert (c->has_dribbler_speed);
        cr_expect_float_eq (c->dribbler_speed,
                            s_cfg.team[yellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE].dribbler.max_speed_rpm,
                            S_EPS);
    }
    free (out);
}

Test (grs_translate, counts_from_the_wire_stay_inside_the_arrays_and_ids_pass_as_sent)
{
    grs_commands_t *out = malloc (sizeof *out);
    size_t n = GRS_MAX_COMMANDS + 10;
    GrSimRobotCommand *g = calloc (n, sizeof *g);
    GrSimRobotCommand **items = calloc (n, sizeof *items);
    cr_assert (out && g && items);
    for (size_t i = 0; i < n; i++) {
        g[i] = s_robot_command (i == 0 ? UINT32_MAX : (uint32_t) i % (SIM_MAX_ROBOT_ID + 1));
        items[i] = &g[i];
    }
    GrSimCommands cmds = s_commands_of (items, n, true);
    grs_translate_commands (out, &cmds, &s_cfg);
    const RobotControl *rc = out->req.team_control->control;
    cr_expect_eq (rc->n_robot_commands, GRS_MAX_COMMANDS, "the rest of the packet is not taken");
    cr_expect_eq (rc->robot_commands[0]->id, UINT32_MAX, "an id past the last is left for physics to refuse");
    cr_expect_eq (rc->robot_commands[1]->id, 1);
    free (items);
    free (g);
    free (out);
}

/* ---- replacements -------------------------------------------------------- */

Test (grs_translate, a_ball_gets_a_position_only_with_both_coordinates)
{
    grs_replacement_t *out = malloc (sizeof *out);
    GrSimBallReplacement b;
    gr_sim__ball_replacement__init (&b);
    GrSimReplacement rep;
    gr_sim__replacement__init (&rep);
    rep.ball = &b;
    b.has_x = true;
    b.x = 1.0;
    b.has_vy = true;
    b.vy = -2.0;
    grs_translate_replacement (out, &rep);
    cr_assert_not_null (out->req.simulator_command);
    cr_expect_null (out->req.team_control);
    const TeleportBall *tb = out->req.simulator_command->control->teleport_ball;
    cr_assert_not_null (tb);
    cr_expect (!tb->has_x && !tb->has_y, "x alone is no position");
    cr_expect (tb->has_vx && tb->has_vy, "either speed gives a velocity");
    cr_expect_eq (tb->vx, 0, "the missing part is 0");
    cr_expect_float_eq (tb->vy, -2.0f, S_EPS);
    b.has_y = true;
    b.y = 0.5;
    b.has_vy = false;
    grs_translate_replacement (out, &rep);
    tb = out->req.simulator_command->control->teleport_ball;
    cr_expect (tb->has_x && tb->has_y && !tb->has_vx && !tb->has_vy);
    cr_expect_float_eq (tb->x, 1.0f, S_EPS);
    cr_expect_float_eq (tb->y, 0.5f, S_EPS);
    rep.ball = NULL;
    grs_translate_replacement (out, &rep);
    cr_expect_null (out->req.simulator_command->control->teleport_ball, "no ball, no ball teleport");
    cr_expect_eq (out->req.simulator_command->control->n_teleport_robot, 0);
    free (out);
}

Test (grs_translate, a_robot_stands_still_where_it_is_put_in_its_team)
{
    grs_replacement_t *out = malloc (sizeof *out);
    GrSimRobotReplacement r[3];
    GrSimRobotReplacement *items[3];
    for (int i = 0; i < 3; i++) {
        gr_sim__robot_replacement__init (&r[i]);
        items[i] = &r[i];
    }
    r[0].id = 3;
    r[0].x = -1.25;
    r[0].y = 2.5;
    r[0].dir = 90;
    r[0].yellowteam = true;
    r[1].id = SIM_MAX_ROBOT_ID + 1; /* past the last id */
    r[1].has_turnon = true;
    r[1].turnon = false;
    r[2].id = 0;
    r[2].has_turnon = true;
    r[2].turnon = true;
    GrSimReplacement rep;
    gr_sim__replacement__init (&rep);
    rep.robots = items;
    rep.n_robots = 3;
    grs_translate_replacement (out, &rep);
    const SimulatorControl *sc = out->req.simulator_command->control;
    cr_assert_eq (sc->n_teleport_robot, 3);
    const TeleportRobot *t = sc->teleport_robot[0];
    cr_expect (t->id->has_id && t->id->has_team);
    cr_expect_eq (t->id->id, 3);
    cr_expect_eq (t->id->team, TEAM__YELLOW, "the league's Team");
    cr_expect_float_eq (t->x, -1.25f, S_EPS);
    cr_expect_float_eq (t->y, 2.5f, S_EPS);
    cr_expect_float_eq (t->orientation, M_PI / 2, S_EPS, "dir is in degrees");
    cr_expect (t->has_v_x && t->has_v_y && t->has_v_angular);
    cr_expect (t->v_x == 0 && t->v_y == 0 && t->v_angular == 0, "it stands still");
    cr_expect (t->has_present && t->present, "present unless turnon says otherwise");
    t = sc->teleport_robot[1];
    cr_expect_eq (t->id->team, TEAM__BLUE);
    cr_expect_eq (t->id->id, SIM_MAX_ROBOT_ID + 1, "not robot 255: physics refuses it");
    cr_expect (t->has_present && !t->present, "turnon false takes it off");
    cr_expect (sc->teleport_robot[2]->present);
    free (out);
}

/* ---- a whole packet ---------------------------------------------------- */

Test (grs_translate, the_requests_of_a_packet_outlive_it_and_pack)
{
    /* a packet from the wire, freed before its requests are packed: the
       requests borrow nothing from it */
    GrSimRobotCommand g = s_robot_command (7);
    g.veltangent = 1;
    g.kickspeedx = 2;
    GrSimRobotCommand *gi[] = { &g };
    GrSimCommands cmds = s_commands_of (gi, 1, true);
    GrSimRobotReplacement r = GR_SIM__ROBOT_REPLACEMENT__INIT, *ri[] = { &r };
    r.id = 7;
    r.x = 1;
    GrSimReplacement rep = GR_SIM__REPLACEMENT__INIT;
    rep.robots = ri;
    rep.n_robots = 1;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    packet.replacement = &rep;
    uint8_t wire[512];
    size_t len = gr_sim__packet__pack (&packet, wire);
    GrSimPacket *in = gr_sim__packet__unpack (NULL, len, wire);
    cr_assert_not_null (in);

    grs_commands_t *c = malloc (sizeof *c);
    grs_replacement_t *p = malloc (sizeof *p);
    cr_assert (c && p);
    grs_translate_commands (c, in->commands, &s_cfg);
    grs_translate_replacement (p, in->replacement);
    gr_sim__packet__free_unpacked (in, NULL);

    uint8_t buf[1024];
    len = simbus__request__pack (&c->req, buf);
    Simbus__Request *back = simbus__request__unpack (NULL, len, buf);
    cr_assert_not_null (back);
    cr_assert_not_null (back->team_control);
    cr_expect_eq (back->team_control->team, 1);
    cr_assert_eq (back->team_control->control->n_robot_commands, 1);
    cr_expect_eq (back->team_control->control->robot_commands[0]->id, 7);
    cr_expect_float_eq (back->team_control->control->robot_commands[0]->kick_speed, 2.0f, S_EPS);
    simbus__request__free_unpacked (back, NULL);

    len = simbus__request__pack (&p->req, buf);
    back = simbus__request__unpack (NULL, len, buf);
    cr_assert_not_null (back);
    cr_assert_not_null (back->simulator_command);
    cr_assert_eq (back->simulator_command->control->n_teleport_robot, 1);
    cr_expect_eq (back->simulator_command->control->teleport_robot[0]->id->id, 7);
    cr_expect_float_eq (back->simulator_command->control->teleport_robot[0]->x, 1.0f, S_EPS);
    simbus__request__free_unpacked (back, NULL);
    free (c);
    free (p);
}
