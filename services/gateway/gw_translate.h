/*  gw_translate.h - what a datagram on a protocol port becomes
    (protocol.md §3-§7): the decode, and the bus request to physics that a
    decoded message turns into.

    The decode tries a SimulationSyncRequest first where its tags say it
    may be one (gw_wire_sync_candidate), else the port's own message (a
    SimulatorCommand on the control port, a RobotControl on a team port);
    the control port tries a sync request last. A message holding a field
    number 0 (anywhere, nested too) is no protobuf and the datagram is
    unreadable; what is decoded is stripped of the fields the gateway
    cannot vouch for (gw_strip.h). A
    sync request becomes a sync step with its command, its robot control
    for the port's team and its substeps, and the errors the gateway finds
    itself; a plain message becomes a request that carries it.

    Pure: no socket, no clock, no log, no state. The gateway's actor
    (gateway.c) and the fuzz harnesses (tests/fuzz) call the same
    functions, so what is fuzzed is what runs.
*/
#ifndef GW_TRANSLATE_H_INCLUDED
#define GW_TRANSLATE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_port.h"
#include "common/base/sim_errors.h"
#include "bus/sim_bus.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

typedef enum {
    GW_DATAGRAM_UNREADABLE = 0, /* none of the messages the port takes */
    GW_DATAGRAM_SYNC,           /* a SimulationSyncRequest */
    GW_DATAGRAM_COMMAND,        /* a SimulatorCommand (control port) */
    GW_DATAGRAM_ROBOTS,         /* a RobotControl (team port) */
} gw_datagram_kind_t;

/* A decoded datagram: the message of its kind (owned, unpacked with
   protobuf-c's default allocator), the others NULL. */
typedef struct {
    gw_datagram_kind_t kind;
    SimulationSyncRequest *sync;
    SimulatorCommand *command;
    RobotControl *robots;
    const ProtobufCMessage *msg; /* the one decoded (borrowed from above), or NULL */
    size_t stripped;             /* unknown fields dropped from it */
} gw_datagram_t;

/* Decode the `len` bytes at `data` that arrived on `port` into *self (no
   need to clear it first). Returns self->kind; release with
   gw_translate_release whatever the kind. */
gw_datagram_kind_t gw_translate_decode (gw_datagram_t *self, gw_port_kind_t port, const uint8_t *data,
                                        size_t len);

/* Free the decoded message and clear *self. Safe twice. */
void gw_translate_release (gw_datagram_t *self);

/* A bus request and the team control it may point at. `req` borrows the
   datagram's messages and `team`: keep *self where it is, and the
   datagram decoded, until the request is sent. */
typedef struct {
    Simbus__Request req;
    Simbus__TeamControl team;
} gw_bus_request_t;

/* The sync step of `sync`, received on `port`, as bus request `id` (its
   step id too): its simulator_command, its robot_control for the port's
   team, and `substeps` substeps (gw_sync_substeps: 0 for none, -1 when
   the step is invalid, with the reason in step_why). The errors the
   gateway finds itself are added to `early` in processing order:
   UNSUPPORTED for robot_control on the control port (it has no team),
   then INVALID_STEP. Returns true when robot_control goes to a team: the
   answer then always carries a RobotControlResponse
   (gw_request_t.team_robot_control). */
bool gw_translate_sync (gw_bus_request_t *self, uint64_t id, gw_port_kind_t port, SimulationSyncRequest *sync,
                        int64_t substeps, const char *step_why, sim_errors_t *early);

/* A plain request as bus request `id`: the control port's `command`, or
   a team port's `robots` for the port's team (the other NULL). */
void gw_translate_plain (gw_bus_request_t *self, uint64_t id, gw_port_kind_t port, SimulatorCommand *command,
                         RobotControl *robots);

/* Add the error that answers an unreadable datagram on `port` (or one the
   receive cut short) to `errors`. */
void gw_translate_unreadable (gw_port_kind_t port, sim_errors_t *errors);

#endif
