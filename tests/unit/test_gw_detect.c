/*  test_gw_detect.c - the top-level tag scan that tells a
    SimulationSyncRequest from a port's normal message (spec/protocol.md §3),
    for services/gateway/gw_detect.c.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "gateway/gw_detect.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

static size_t
s_sync (uint8_t *buf, bool step, bool command, bool control)
{
    static SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    static RobotControl rc = ROBOT_CONTROL__INIT;
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = step;
    req.sim_step = 0.016f;
    req.simulator_command = command ? &cmd : NULL;
    req.robot_control = control ? &rc : NULL;
    return simulation_sync_request__pack (&req, buf);
}

Test (gw_detect, sync_requests_are_candidates_where_the_spec_says)
{
    uint8_t buf[256];
    size_t n = s_sync (buf, true, false, false);
    cr_expect (gw_detect_sync_candidate (buf, n, GW_PORT_CONTROL), "sim_step (1, fixed32) on control");
    cr_expect (gw_detect_sync_candidate (buf, n, GW_PORT_BLUE));
    n = s_sync (buf, false, false, true);
    cr_expect (gw_detect_sync_candidate (buf, n, GW_PORT_CONTROL), "field 3 on control");
    cr_expect (gw_detect_sync_candidate (buf, n, GW_PORT_YELLOW));
    /* field 2 alone: a candidate on team ports only (it is SimulatorCommand.config on control) */
    n = s_sync (buf, false, true, false);
    cr_expect (!gw_detect_sync_candidate (buf, n, GW_PORT_CONTROL));
    cr_expect (gw_detect_sync_candidate (buf, n, GW_PORT_BLUE));
}

Test (gw_detect, normal_messages_are_not_candidates)
{
    uint8_t buf[256];
    RobotCommand c = ROBOT_COMMAND__INIT;
    RobotCommand *cp = &c;
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = &cp;
    size_t n = robot_control__pack (&rc, buf);
    cr_expect (!gw_detect_sync_candidate (buf, n, GW_PORT_BLUE), "RobotControl (1, length-delimited)");
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    cmd.config = &config;
    n = simulator_command__pack (&cmd, buf);
    cr_expect (!gw_detect_sync_candidate (buf, n, GW_PORT_CONTROL), "SimulatorCommand");
    cr_expect (!gw_detect_sync_candidate (buf, 0, GW_PORT_CONTROL), "empty");
    cr_expect (!gw_detect_sync_candidate (buf, 0, GW_PORT_BLUE));
}

Test (gw_detect, the_scan_stops_at_malformed_fields_but_keeps_what_it_saw)
{
    /* (1, fixed32) whole, then garbage: still a candidate */
    uint8_t a[] = { 0x0d, 0x00, 0x00, 0x80, 0x3f, 0xff, 0xff };
    cr_expect (gw_detect_sync_candidate (a, sizeof a, GW_PORT_CONTROL));
    /* (1, fixed32) truncated: not seen */
    cr_expect (!gw_detect_sync_candidate (a, 3, GW_PORT_CONTROL));
    /* field number 0 stops the scan before field 3 */
    uint8_t b[] = { 0x00, 0x1a, 0x00 };
    cr_expect (!gw_detect_sync_candidate (b, sizeof b, GW_PORT_BLUE));
    /* wire types 3/4/6/7 stop it */
    uint8_t c[] = { 0x0b, 0x1a, 0x00 };
    cr_expect (!gw_detect_sync_candidate (c, sizeof c, GW_PORT_BLUE));
    /* a length running past the end is not a whole field */
    uint8_t d[] = { 0x1a, 0x05, 0x00 };
    cr_expect (!gw_detect_sync_candidate (d, sizeof d, GW_PORT_BLUE));
    /* varints: an 11-byte varint key is malformed; fields after a skipped
       varint and a fixed64 still count */
    uint8_t e[12];
    memset (e, 0x80, sizeof e);
    cr_expect (!gw_detect_sync_candidate (e, sizeof e, GW_PORT_BLUE));
    uint8_t f[] = { 0x20, 0x96, 0x01, 0x29, 1, 2, 3, 4, 5, 6, 7, 8, 0x1a, 0x00 };
    cr_expect (gw_detect_sync_candidate (f, sizeof f, GW_PORT_CONTROL));
    /* (1, varint) is not (1, fixed32) */
    uint8_t g[] = { 0x08, 0x01 };
    cr_expect (!gw_detect_sync_candidate (g, sizeof g, GW_PORT_CONTROL));
}
