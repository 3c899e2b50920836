/*  test_vw_commands.c - services/viewer/vw_commands.c: each robot's last
    command kept from physics' Commands, and what is new for a page. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "services/viewer/vw_commands.h"

static void
s_take (vw_commands_t *store, uint32_t team, RobotCommand **cmds, size_t n, RobotFeedback **fb, size_t nfb,
        uint64_t time_ns)
{
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = n;
    rc.robot_commands = cmds;
    Simbus__TeamControl tc = SIMBUS__TEAM_CONTROL__INIT;
    tc.team = team;
    tc.control = &rc;
    Simbus__Commands msg = SIMBUS__COMMANDS__INIT;
    msg.time_ns = time_ns;
    msg.control = &tc;
    msg.n_feedback = nfb;
    msg.feedback = fb;
    vw_commands_take (store, &msg);
}

Test (vw_commands, keeps_each_robots_last_command_and_what_is_new)
{
    vw_commands_t *store = calloc (1, sizeof *store);
    cr_assert_not_null (store);
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.forward = 0.5f;
    local.angular = -1.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand a = ROBOT_COMMAND__INIT, b = ROBOT_COMMAND__INIT, bad = ROBOT_COMMAND__INIT;
    a.id = 3;
    a.move_command = &move;
    a.has_kick_speed = true;
    a.kick_speed = 4;
    b.id = 5; /* no move, no kick: an empty command */
    bad.id = 300;
    RobotCommand *cmds[] = { &a, &b, &bad };
    RobotFeedback fb = ROBOT_FEEDBACK__INIT, *fbs[] = { &fb };
    fb.id = 3;
    fb.has_dribbler_ball_contact = true;
    fb.dribbler_ball_contact = true;
    s_take (store, 1, cmds, 3, fbs, 1, 2000000000);

    const vw_command_t *got[VW_COMMAND_SLOTS];
    int n = vw_commands_since (store, 0, got);
    cr_assert_eq (n, 2, "robot 300 is no robot");
    cr_expect_eq (got[0]->team, SIM_TEAM_YELLOW);
    cr_expect_eq (got[0]->id, 3);
    cr_expect_eq (got[0]->cmd.move, PHYS_MOVE_LOCAL);
    cr_expect_float_eq (got[0]->cmd.v[0], 0.5, 1e-9);
    cr_expect_float_eq (got[0]->cmd.v[2], -1.0, 1e-9);
    cr_expect (got[0]->has_kick_speed && got[0]->cmd.kick_speed == 4 && !got[0]->has_dribbler);
    cr_expect (got[0]->has_contact && got[0]->contact);
    cr_expect_float_eq (got[0]->t, 2.0, 1e-9);
    cr_expect_eq (got[1]->cmd.move, PHYS_MOVE_NONE);
    cr_expect (!got[1]->has_contact);

    /* a page that has seen everything gets only what changed next */
    uint64_t seen = store->seq;
    RobotCommand *again[] = { &a };
    s_take (store, 1, again, 1, NULL, 0, 2016000000);
    n = vw_commands_since (store, seen, got);
    cr_assert_eq (n, 1);
    cr_expect_eq (got[0]->id, 3);
    cr_expect_eq (got[0]->count, 2u);
    cr_expect (!got[0]->has_contact, "no feedback this time");

    /* a team number that is neither blue nor yellow is dropped */
    s_take (store, 7, again, 1, NULL, 0, 2032000000);
    cr_expect_eq (vw_commands_since (store, store->seq, got), 0);
    cr_expect_eq (store->slot[SIM_MAX_ROBOT_ID + 1 + 3].count, 2u);
    vw_commands_forget (store);
    cr_expect_eq (vw_commands_since (store, 0, got), 0);
    free (store);
}
