/*  test_gw_translate.c - services/gateway/gw_translate.c: which message a
    datagram on each port decodes as (protocol.md §3), and the bus request
    to physics each becomes: ids, the port's team, the substeps, and the
    errors the gateway finds itself, in processing order and with the
    texts the clients read.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "services/gateway/gw_translate.h"
#include "common/base/sim_team.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

/* A SimulationSyncRequest packed into buf: a 16 ms step unless !step,
   an empty simulator_command and robot_control when asked for. */
static size_t
s_sync (uint8_t *buf, bool step, bool command, bool control)
{
    SimulatorCommand cmd;
    RobotControl rc;
    SimulationSyncRequest req;
    simulator_command__init (&cmd);
    robot_control__init (&rc);
    simulation_sync_request__init (&req);
    if (step) {
        req.has_sim_step = true;
        req.sim_step = 0.016f;
    }
    if (command)
        req.simulator_command = &cmd;
    if (control)
        req.robot_control = &rc;
    return simulation_sync_request__pack (&req, buf);
}

/* A SimulatorCommand that moves the simulation speed, packed into buf. */
static size_t
s_command (uint8_t *buf)
{
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    control.has_simulation_speed = true;
    control.simulation_speed = 2.0f;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    return simulator_command__pack (&cmd, buf);
}

/* A RobotControl that kicks with robot 3, packed into buf. */
static size_t
s_robots (uint8_t *buf)
{
    RobotCommand kick;
    robot_command__init (&kick);
    kick.id = 3;
    kick.has_kick_speed = true;
    kick.kick_speed = 4;
    RobotCommand *commands[] = { &kick };
    RobotControl rc;
    robot_control__init (&rc);
    rc.robot_commands = commands;
    rc.n_robot_commands = 1;
    return robot_control__pack (&rc, buf);
}

/* ---- gw_translate_decode ----------------------------------------------- */

Test (gw_translate, each_port_decodes_its_own_message)
{
    uint8_t buf[256];
    gw_datagram_t d;
    size_t n = s_command (buf);
    cr_assert_eq (gw_translate_decode (&d, GW_PORT_CONTROL, buf, n), GW_DATAGRAM_COMMAND);
    cr_assert_not_null (d.command);
    cr_expect (d.command->control && d.command->control->simulation_speed == 2.0f);
    cr_expect_eq (d.msg, &d.command->base);
    cr_expect (!d.sync && !d.robots);
    gw_translate_release (&d);
    cr_expect (!d.command && !d.msg, "released and cleared");
    gw_translate_release (&d);

    n = s_robots (buf);
    for (int port = GW_PORT_BLUE; port <= GW_PORT_YELLOW; port++) {
        cr_assert_eq (gw_translate_decode (&d, (gw_port_kind_t) port, buf, n), GW_DATAGRAM_ROBOTS);
        cr_expect (d.robots && d.robots->n_robot_commands == 1 && d.robots->robot_commands[0]->id == 3);
        cr_expect_eq (d.msg, &d.robots->base);
        gw_translate_release (&d);
    }
}

Test (gw_translate, sync_requests_decode_on_every_port)
{
    uint8_t buf[256];
    gw_datagram_t d;
    size_t n = s_sync (buf, true, true, true);
    for (int port = GW_PORT_CONTROL; port <= GW_PORT_YELLOW; port++) {
        cr_assert_eq (gw_translate_decode (&d, (gw_port_kind_t) port, buf, n), GW_DATAGRAM_SYNC);
        cr_expect (d.sync && d.sync->has_sim_step && d.sync->simulator_command && d.sync->robot_control);
        cr_expect (!d.command && !d.robots);
        gw_translate_release (&d);
    }
    /* field 2 alone is SimulatorCommand.config on the control port: a command there */
    n = s_sync (buf, false, true, false);
    cr_expect_eq (gw_translate_decode (&d, GW_PORT_CONTROL, buf, n), GW_DATAGRAM_COMMAND);
    gw_translate_release (&d);
    cr_expect_eq (gw_translate_decode (&d, GW_PORT_BLUE, buf, n), GW_DATAGRAM_SYNC);
    gw_translate_release (&d);
}

Test (gw_translate, what_no_message_reads_is_unreadable)
{
    const uint8_t junk[] = { 0xff, 0xff, 0xff };
    gw_datagram_t d;
    for (int port = GW_PORT_CONTROL; port <= GW_PORT_YELLOW; port++) {
        cr_expect_eq (gw_translate_decode (&d, (gw_port_kind_t) port, junk, sizeof junk),
                      GW_DATAGRAM_UNREADABLE);
        cr_expect (!d.sync && !d.command && !d.robots && !d.msg);
        gw_translate_release (&d);
    }
}

Test (gw_translate, unknown_fields_are_dropped_and_counted)
{
    uint8_t buf[256];
    size_t n = s_command (buf);
    /* field 100 (varint 7), which no SimulatorCommand has */
    buf[n++] = 0xa0;
    buf[n++] = 0x06;
    buf[n++] = 0x07;
    gw_datagram_t d;
    cr_assert_eq (gw_translate_decode (&d, GW_PORT_CONTROL, buf, n), GW_DATAGRAM_COMMAND);
    cr_expect_eq (d.stripped, 1);
    cr_expect_eq (d.command->base.n_unknown_fields, 0);
    cr_expect_eq (simulator_command__get_packed_size (d.command), s_command (buf),
                  "forwarded: what is known");
    gw_translate_release (&d);
}

/* ---- gw_translate_sync / _plain ---------------------------------------- */

Test (gw_translate, a_sync_step_carries_its_parts_for_the_ports_team)
{
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    RobotControl rc = ROBOT_CONTROL__INIT;
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.simulator_command = &cmd;
    sync.robot_control = &rc;
    const struct {
        gw_port_kind_t port;
        uint32_t team;
    } cases[] = { { GW_PORT_BLUE, 0 }, { GW_PORT_YELLOW, 1 } };
    for (size_t i = 0; i < 2; i++) {
        sim_errors_t early;
        sim_errors_init (&early);
        gw_bus_request_t out;
        cr_expect (gw_translate_sync (&out, 42, cases[i].port, &sync, 16, "", &early));
        cr_expect_eq (out.req.id, 42);
        cr_expect (out.req.has_step_id && out.req.step_id == 42);
        cr_expect (out.req.has_sync && out.req.sync);
        cr_expect (out.req.has_substeps && out.req.substeps == 16);
        cr_expect_eq (out.req.simulator_command, &cmd);
        cr_assert_not_null (out.req.team_control);
        cr_expect_eq (out.req.team_control->team, cases[i].team);
        cr_expect_eq (sim_team_from_number (out.req.team_control->team), gw_port_team (cases[i].port));
        cr_expect_eq (out.req.team_control->control, &rc);
        cr_expect_eq (early.count, 0);
    }
}

Test (gw_translate, a_sync_step_without_substeps_asks_for_none)
{
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sim_errors_t early;
    sim_errors_init (&early);
    gw_bus_request_t out;
    cr_expect (!gw_translate_sync (&out, 7, GW_PORT_CONTROL, &sync, 0, "", &early));
    cr_expect (!out.req.has_substeps);
    cr_expect_null (out.req.team_control);
    cr_expect_null (out.req.simulator_command);
    cr_expect_eq (early.count, 0);
}

Test (gw_translate, the_gateways_own_errors_come_in_processing_order)
{
    RobotControl rc = ROBOT_CONTROL__INIT;
    SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
    sync.robot_control = &rc;
    sim_errors_t early;
    sim_errors_init (&early);
    gw_bus_request_t out;
    cr_expect (!gw_translate_sync (&out, 9, GW_PORT_CONTROL, &sync, -1, "sim_step -1 s is negative", &early),
               "robot_control on the control port goes to no team");
    cr_expect_null (out.req.team_control);
    cr_expect (!out.req.has_substeps);
    cr_assert_eq (early.count, 2);
    cr_expect_str_eq (early.ptrs[0]->code, "UNSUPPORTED");
    cr_expect_str_eq (early.ptrs[0]->message,
                      "UNSUPPORTED: robot_control in a sync request has no team; send it to the blue or "
                      "yellow port");
    cr_expect_str_eq (early.ptrs[1]->code, "INVALID_STEP");
    cr_expect_str_eq (early.ptrs[1]->message, "INVALID_STEP: sim_step -1 s is negative");
}

Test (gw_translate, a_plain_request_carries_the_command_or_the_teams_control)
{
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    RobotControl rc = ROBOT_CONTROL__INIT;
    gw_bus_request_t out;
    gw_translate_plain (&out, 5, GW_PORT_CONTROL, &cmd, NULL);
    cr_expect_eq (out.req.id, 5);
    cr_expect_eq (out.req.simulator_command, &cmd);
    cr_expect_null (out.req.team_control);
    cr_expect (!out.req.has_sync && !out.req.has_step_id && !out.req.has_substeps);
    gw_translate_plain (&out, 6, GW_PORT_YELLOW, NULL, &rc);
    cr_expect_null (out.req.simulator_command);
    cr_assert_not_null (out.req.team_control);
    cr_expect_eq (out.req.team_control->team, 1);
    cr_expect_eq (out.req.team_control->control, &rc);
    gw_translate_plain (&out, 7, GW_PORT_BLUE, NULL, &rc);
    cr_expect_eq (out.req.team_control->team, 0);
}

Test (gw_translate, a_request_packs_and_reads_back)
{
    RobotControl rc = ROBOT_CONTROL__INIT;
    gw_bus_request_t out;
    gw_translate_plain (&out, 11, GW_PORT_YELLOW, NULL, &rc);
    uint8_t buf[256];
    size_t n = simbus__request__pack (&out.req, buf);
    Simbus__Request *back = simbus__request__unpack (NULL, n, buf);
    cr_assert_not_null (back);
    cr_expect_eq (back->id, 11);
    cr_expect (back->team_control && back->team_control->team == 1 && back->team_control->control);
    simbus__request__free_unpacked (back, NULL);
}

Test (gw_translate, an_unreadable_datagram_is_told_what_the_port_takes)
{
    sim_errors_t errors;
    sim_errors_init (&errors);
    gw_translate_unreadable (GW_PORT_CONTROL, &errors);
    gw_translate_unreadable (GW_PORT_BLUE, &errors);
    cr_assert_eq (errors.count, 2);
    cr_expect_str_eq (errors.ptrs[0]->message,
                      "UNREADABLE: the datagram is neither a SimulatorCommand nor a SimulationSyncRequest");
    cr_expect_str_eq (errors.ptrs[1]->message,
                      "UNREADABLE: the datagram is neither a RobotControl nor a SimulationSyncRequest");
}

/* A field number 0 is no protobuf (issue 24): `80 00 00` alone, nested in
   a RobotCommand, or after a valid sync request's fields, on any port,
   decodes as nothing, where protobuf-c alone would take it as an unknown
   field. */
Test (gw_translate, a_field_number_zero_is_unreadable_on_every_port)
{
    uint8_t buf[64];
    const uint8_t zero[] = { 0x80, 0x00, 0x00 };
    const uint8_t nested[] = { 0x0a, 0x05, 0x08, 0x02, 0x80, 0x00, 0x00 };
    size_t n = s_sync (buf, true, false, false);
    memcpy (buf + n, zero, sizeof zero);
    for (int port = GW_PORT_CONTROL; port <= GW_PORT_YELLOW; port++) {
        gw_datagram_t d;
        cr_expect_eq (gw_translate_decode (&d, (gw_port_kind_t) port, zero, sizeof zero),
                      GW_DATAGRAM_UNREADABLE, "80 00 00 on port %d", port);
        cr_expect_null (d.msg);
        gw_translate_release (&d);
        cr_expect_eq (gw_translate_decode (&d, (gw_port_kind_t) port, nested, sizeof nested),
                      GW_DATAGRAM_UNREADABLE, "nested on port %d", port);
        gw_translate_release (&d);
        cr_expect_eq (gw_translate_decode (&d, (gw_port_kind_t) port, buf, n + sizeof zero),
                      GW_DATAGRAM_UNREADABLE, "after a sync request on port %d", port);
        gw_translate_release (&d);
    }
}
