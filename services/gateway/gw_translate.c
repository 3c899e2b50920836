/*  gw_translate.c - a datagram's decode and its bus request (see
    gw_translate.h). */
#include "gw_translate.h"

#include <string.h>

#include "gw_strip.h"
#include "gw_wire.h"

/* Keep `msg`, decoded as `kind`, with only the fields the gateway knows;
   a field number 0 anywhere in it makes it no protobuf: unreadable. */
static gw_datagram_kind_t
s_take (gw_datagram_t *self, gw_datagram_kind_t kind, ProtobufCMessage *msg)
{
    if (gw_strip_field_zero (msg)) {
        protobuf_c_message_free_unpacked (msg, NULL);
        self->sync = NULL;
        self->command = NULL;
        self->robots = NULL;
        self->kind = GW_DATAGRAM_UNREADABLE;
        return self->kind;
    }
    self->kind = kind;
    self->msg = msg;
    self->stripped = gw_strip_unknown (msg, NULL);
    return kind;
}

/* 1: the bytes are a sync request, now in self; 0: they do not decode
   as one; -1: they do, with a field number 0 (then nothing else is
   tried: the datagram is no protobuf). */
static int
s_try_sync (gw_datagram_t *self, const uint8_t *data, size_t len)
{
    self->sync = simulation_sync_request__unpack (NULL, len, data);
    if (!self->sync)
        return 0;
    return s_take (self, GW_DATAGRAM_SYNC, &self->sync->base) == GW_DATAGRAM_SYNC ? 1 : -1;
}

gw_datagram_kind_t
gw_translate_decode (gw_datagram_t *self, gw_port_kind_t port, const uint8_t *data, size_t len)
{
    memset (self, 0, sizeof *self);
    if (gw_wire_sync_candidate (data, len, port) && s_try_sync (self, data, len) != 0)
        return self->kind;
    if (port == GW_PORT_CONTROL) {
        self->command = simulator_command__unpack (NULL, len, data);
        if (self->command)
            return s_take (self, GW_DATAGRAM_COMMAND, &self->command->base);
        s_try_sync (self, data, len);
        return self->kind;
    }
    self->robots = robot_control__unpack (NULL, len, data);
    if (self->robots)
        return s_take (self, GW_DATAGRAM_ROBOTS, &self->robots->base);
    return self->kind;
}

void
gw_translate_release (gw_datagram_t *self)
{
    if (self->sync)
        simulation_sync_request__free_unpacked (self->sync, NULL);
    if (self->command)
        simulator_command__free_unpacked (self->command, NULL);
    if (self->robots)
        robot_control__free_unpacked (self->robots, NULL);
    memset (self, 0, sizeof *self);
}

/* `control` for the team of team port `port`. */
static void
s_team_control (gw_bus_request_t *self, gw_port_kind_t port, RobotControl *control)
{
    self->team.team = sim_team_number (gw_port_team (port));
    self->team.control = control;
    self->req.team_control = &self->team;
}

bool
gw_translate_sync (gw_bus_request_t *self, uint64_t id, gw_port_kind_t port, SimulationSyncRequest *sync,
                   int64_t substeps, const char *step_why, sim_errors_t *early)
{
    simbus__request__init (&self->req);
    simbus__team_control__init (&self->team);
    self->req.id = id;
    self->req.has_sync = self->req.sync = true;
    self->req.has_step_id = true;
    self->req.step_id = id;
    self->req.simulator_command = sync->simulator_command;
    bool team_robot_control = false;
    if (sync->robot_control) {
        if (port == GW_PORT_CONTROL)
            sim_errors_add (early, "UNSUPPORTED",
                            "robot_control in a sync request has no team; "
                            "send it to the blue or yellow port");
        else {
            s_team_control (self, port, sync->robot_control);
            team_robot_control = true;
        }
    }
    if (substeps < 0)
        sim_errors_add (early, "INVALID_STEP", "%s", step_why);
    else if (substeps > 0) {
        self->req.has_substeps = true;
        self->req.substeps = (uint64_t) substeps;
    }
    return team_robot_control;
}

void
gw_translate_plain (gw_bus_request_t *self, uint64_t id, gw_port_kind_t port, SimulatorCommand *command,
                    RobotControl *robots)
{
    simbus__request__init (&self->req);
    simbus__team_control__init (&self->team);
    self->req.id = id;
    self->req.simulator_command = command;
    if (robots)
        s_team_control (self, port, robots);
}

void
gw_translate_unreadable (gw_port_kind_t port, sim_errors_t *errors)
{
    sim_errors_add (errors, "UNREADABLE", "the datagram is neither a %s nor a SimulationSyncRequest",
                    port == GW_PORT_CONTROL ? "SimulatorCommand" : "RobotControl");
}
