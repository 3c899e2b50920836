/*  test_grs_wire.c - services/legacy-grsim/grs_wire.c: a grSim_Packet
    read the way grSim reads it. grSim takes a packet whose `required`
    fields are missing (it ignores what ParseFromArray says and reads each
    field it finds, a missing one as 0 or false); senders that leave
    fields out are real: protobuf.js and C++
    release builds write what was set, a proto3 copy of the messages
    leaves every zero out. The datagrams here are written byte by byte, as
    such a sender puts them on the wire.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "services/legacy-grsim/grs_wire.h"
#include "grSim_Packet.pb-c.h"

/* commands { isteamyellow absent, timestamp absent, robot_commands {
   id 3, veltangent 1.0 } }: what a proto3 copy of grSim_Commands sends
   for "blue 3, forward 1 m/s" (every zero left out) */
static const uint8_t S_PROTO3_COMMANDS[] = {
    0x0a, 0x09, 0x1a, 0x07,       /* grSim_Packet.commands, robot_commands */
    0x08, 0x03,                   /* id 3 */
    0x25, 0x00, 0x00, 0x80, 0x3f, /* veltangent 1.0f */
};

Test (grs_wire, missing_required_fields_read_as_grsim_reads_them)
{
    cr_assert_null (gr_sim__packet__unpack (NULL, sizeof S_PROTO3_COMMANDS, S_PROTO3_COMMANDS),
                    "protobuf-c refuses the datagram (the reason for grs_wire)");
    GrSimPacket *p = grs_wire_unpack (S_PROTO3_COMMANDS, sizeof S_PROTO3_COMMANDS);
    cr_assert_not_null (p, "a packet grSim takes was dropped");
    cr_assert_not_null (p->commands);
    cr_expect (!p->commands->isteamyellow, "a missing isteamyellow is blue");
    cr_assert_eq (p->commands->n_robot_commands, 1);
    const GrSimRobotCommand *c = p->commands->robot_commands[0];
    cr_expect_eq (c->id, 3);
    cr_expect_eq (c->veltangent, 1.0f);
    cr_expect (c->velnormal == 0 && c->velangular == 0 && c->kickspeedx == 0 && c->kickspeedz == 0);
    cr_expect (!c->spinner && !c->wheelsspeed && !c->has_wheel1);
    gr_sim__packet__free_unpacked (p, NULL);
}

/* grSim skips a robot without an id; a proto3 sender writes robot 0 so,
   and here it is robot 0 like any other missing field is 0 */
Test (grs_wire, a_robot_without_an_id_is_robot_0)
{
    static const uint8_t datagram[] = {
        0x0a, 0x0e, 0x10, 0x01,       /* commands (14 bytes): isteamyellow */
        0x1a, 0x05,                   /* robot_commands without an id */
        0x25, 0x00, 0x00, 0x80, 0x3f, /* veltangent 1.0f */
        0x1a, 0x03, 0x08, 0x07, 0x38, /* robot_commands: id 7, spinner ... */
    };
    /* the last byte above opens a field it does not finish: not protobuf */
    cr_expect_null (grs_wire_unpack (datagram, sizeof datagram), "a truncated datagram is still refused");

    uint8_t fixed[sizeof datagram + 1];
    memcpy (fixed, datagram, sizeof datagram);
    fixed[1] = 0x0f;  /* commands one byte longer */
    fixed[12] = 0x04; /* robot_commands: id 7, spinner true */
    fixed[sizeof datagram] = 0x01;
    GrSimPacket *p = grs_wire_unpack (fixed, sizeof fixed);
    cr_assert_not_null (p);
    cr_expect (p->commands->isteamyellow);
    cr_assert_eq (p->commands->n_robot_commands, 2);
    cr_expect_eq (p->commands->robot_commands[0]->id, 0);
    cr_expect_eq (p->commands->robot_commands[0]->veltangent, 1.0f);
    cr_expect_eq (p->commands->robot_commands[1]->id, 7);
    cr_expect (p->commands->robot_commands[1]->spinner);
    gr_sim__packet__free_unpacked (p, NULL);
}

Test (grs_wire, a_replacement_without_zeros_places_the_robot)
{
    /* replacement { robots { x 1.5 (double), id 3 } }: y, dir and
       yellowteam left out; grSim reads them as 0 and blue */
    static const uint8_t datagram[] = {
        0x12, 0x0d,                                           /* replacement, 13 bytes */
        0x12, 0x0b,                                           /* robots, 11 bytes */
        0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, /* x 1.5 */
        0x20, 0x03,                                           /* id 3 */
    };
    GrSimPacket *p = grs_wire_unpack (datagram, sizeof datagram);
    cr_assert_not_null (p);
    cr_assert_not_null (p->replacement);
    cr_assert_eq (p->replacement->n_robots, 1);
    const GrSimRobotReplacement *r = p->replacement->robots[0];
    cr_expect (r->id == 3 && r->x == 1.5 && r->y == 0 && r->dir == 0 && !r->yellowteam && !r->has_turnon);
    gr_sim__packet__free_unpacked (p, NULL);
}

Test (grs_wire, a_complete_packet_and_garbage_as_before)
{
    GrSimRobotCommand rc = GR_SIM__ROBOT__COMMAND__INIT;
    rc.id = 2;
    rc.velangular = -1.5f;
    GrSimRobotCommand *rcs[] = { &rc };
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.isteamyellow = true;
    cmds.timestamp = 12.5;
    cmds.n_robot_commands = 1;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    uint8_t buf[256];
    size_t n = gr_sim__packet__pack (&packet, buf);
    GrSimPacket *p = grs_wire_unpack (buf, n);
    cr_assert_not_null (p);
    cr_expect (p->commands->isteamyellow && p->commands->timestamp == 12.5);
    cr_expect (p->commands->robot_commands[0]->id == 2
               && p->commands->robot_commands[0]->velangular == -1.5f);
    gr_sim__packet__free_unpacked (p, NULL);

    static const uint8_t junk[][4] = {
        { 0x80, 0x00, 0x00, 0x00 }, /* field number 0 */
        { 0x0b, 0x00, 0x00, 0x00 }, /* a group */
        { 0x0a, 0x7f, 0x00, 0x00 }, /* a length past the end */
        { 0xff, 0xff, 0xff, 0xff }, /* a key that never ends */
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        cr_expect_null (grs_wire_unpack (junk[i], sizeof junk[i]), "junk %zu taken", i);
    p = grs_wire_unpack (NULL, 0);
    cr_assert_not_null (p, "an empty datagram is an empty packet");
    cr_expect (!p->commands && !p->replacement);
    gr_sim__packet__free_unpacked (p, NULL);
}
