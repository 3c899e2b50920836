/*  sim_bus_codec.h - the one codec for the bodies of sim_bus.proto
    messages: snapshots, events, clock marks and the effective
    configuration, turned into envelopes and back, for every service.

    Encoding never allocates (sync clients make physics encode thousands of
    snapshots a second): the caller owns a message struct, the encoder fills
    it and returns the envelope inside it, valid while the struct lives and
    the data it points at stays put. Decoding reads an unpacked envelope's
    body into the plain structs of sim_snapshot.h and trusts no count,
    team or id from the bus.
*/
#ifndef SIM_BUS_CODEC_H_INCLUDED
#define SIM_BUS_CODEC_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "common/base/sim_snapshot.h"
#include "bus/sim_bus.pb-c.h"

#define SIM_BUS_EVENTS_MAX 32 /* events carried per message (a substep's) */

/* A protobuf-c allocator that serves one decoded message at a time from a
   buffer the caller owns, so decoding a snapshot costs no malloc per
   message and array (fourteen of them, and their frees). What does not
   fit comes from the heap. Use `base` as the ProtobufCAllocator; free the
   message with it (heap parts are freed, the buffer's are not), then
   sim_bus_arena_reset before decoding the next one into it. A reader
   that wants the whole message in its buffer looks at `spilled`. */
typedef struct {
    ProtobufCAllocator base;
    uint8_t *buf; /* borrowed */
    size_t cap, used;
    size_t spilled; /* allocations that came from the heap since the reset */
} sim_bus_arena_t;

void sim_bus_arena_init (sim_bus_arena_t *self, void *buf, size_t cap);
void sim_bus_arena_reset (sim_bus_arena_t *self);

/* Free `env`, decoded with the arena since its last reset: when nothing
   spilled to the heap there is nothing to free, and the walk over the
   message (~2 % of vision's CPU in fast mode) is skipped. */
void sim_bus_arena_free (sim_bus_arena_t *self, Simbus__Envelope *env);

/* A snapshot's robots travel as one packed array per field (sim_bus.proto
   Snapshot): packing them is a copy, not 22 submessages walked field by
   field. */
typedef struct {
    Simbus__Envelope env;
    Simbus__Snapshot snapshot;
    Simbus__BallState ball;
    uint32_t team[SIM_SNAPSHOT_MAX_ROBOTS], id[SIM_SNAPSHOT_MAX_ROBOTS];
    double x[SIM_SNAPSHOT_MAX_ROBOTS], y[SIM_SNAPSHOT_MAX_ROBOTS], orientation[SIM_SNAPSHOT_MAX_ROBOTS];
    double vx[SIM_SNAPSHOT_MAX_ROBOTS], vy[SIM_SNAPSHOT_MAX_ROBOTS], omega[SIM_SNAPSHOT_MAX_ROBOTS];
    protobuf_c_boolean ball_contact[SIM_SNAPSHOT_MAX_ROBOTS];
    double radius[SIM_SNAPSHOT_MAX_ROBOTS], height[SIM_SNAPSHOT_MAX_ROBOTS];
} sim_bus_snapshot_msg_t;

typedef struct {
    Simbus__Envelope env;
    Simbus__Events events;
    Simbus__Event items[SIM_BUS_EVENTS_MAX];
    Simbus__Event *ptrs[SIM_BUS_EVENTS_MAX];
} sim_bus_events_msg_t;

typedef struct {
    Simbus__Envelope env;
    Simbus__Clock clock;
} sim_bus_clock_msg_t;

typedef struct {
    Simbus__Envelope env;
    Simbus__Config config;
    char *ini; /* owned; sim_bus_config_msg_release */
} sim_bus_config_msg_t;

/* Set `body` as the envelope's oneof body of kind `kind` (one of the
   SIMBUS__ENVELOPE__BODY_* cases; the body is borrowed). */
void sim_bus_wrap (Simbus__Envelope *env, Simbus__Envelope__BodyCase kind, void *body);

/* The world state `snap`; with `has_step`, tagged as part of sync step
   `step_id`. Returns the envelope inside *m. */
Simbus__Envelope *sim_bus_snapshot_encode (sim_bus_snapshot_msg_t *m, const sim_snapshot_t *snap,
                                           bool has_step, uint64_t step_id);

/* Read a snapshot body into *out: robots with a team other than 0/1, an
   id over SIM_MAX_ROBOT_ID or beyond SIM_SNAPSHOT_MAX_ROBOTS are left out.
   Returns 0, or -1 (leaving *out alone) when the message has no ball or
   robot arrays of different lengths (not a snapshot physics sent). */
int sim_bus_snapshot_decode (const Simbus__Snapshot *msg, sim_snapshot_t *out);

/* A snapshot as it crosses a same-host lane (sim_lane.h): the Snapshot's
   fields copied as they lie in memory, in this host's byte order, behind
   a header naming the layout; the robots as the message's arrays. Both
   ends are processes of one build on one host, so nothing needs the
   protobuf encoding there, and packing the robots' arrays and parsing
   them again was ~8 % of physics' CPU and ~11 % of vision's in fast mode;
   these are copies. A record of another layout (another SIM_BUS_VERSION)
   is refused, never guessed at. */
#define SIM_BUS_FLAT_MAX (112 + 76 * SIM_SNAPSHOT_MAX_ROBOTS) /* bytes, SIM_SNAPSHOT_MAX_ROBOTS robots */

/* Write `msg` flat into buf[cap]. Returns the bytes written, or 0 when it
   is not a snapshot physics sends (no ball, arrays of different lengths,
   more than SIM_SNAPSHOT_MAX_ROBOTS robots) or does not fit: the caller
   packs the envelope instead. */
size_t sim_bus_snapshot_flatten (const Simbus__Snapshot *msg, void *buf, size_t cap);

/* The envelope of the flat snapshot data[len], allocated from `alloc`
   (NULL: the heap) as simbus__envelope__unpack would allocate it: free it
   with simbus__envelope__free_unpacked (env, alloc). NULL when data is not
   one whole flat snapshot of this layout, or without memory. */
Simbus__Envelope *sim_bus_snapshot_unflatten (const void *data, size_t len, ProtobufCAllocator *alloc);

/* The first SIM_BUS_EVENTS_MAX of events[n]. NULL when n <= 0. */
Simbus__Envelope *sim_bus_events_encode (sim_bus_events_msg_t *m, const sim_event_t *events, int n);

/* Read one event into *out; -1 when its kind is unknown or a team or id
   it carries is out of range. */
int sim_bus_event_decode (const Simbus__Event *msg, sim_event_t *out);

/* A clock mark: sim time, mode (sim_mode_t), whether the free-running
   clock advances, robots on the field. */
Simbus__Envelope *sim_bus_clock_encode (sim_bus_clock_msg_t *m, uint64_t time_ns, sim_mode_t mode,
                                        bool running, int robots);

/* The effective configuration `cfg` as INI text, with the serial of this
   version of it. NULL when the text cannot be made. Free the text with
   sim_bus_config_msg_release (also after a NULL). */
Simbus__Envelope *sim_bus_config_encode (sim_bus_config_msg_t *m, const sim_config_t *cfg, uint64_t serial);
void sim_bus_config_msg_release (sim_bus_config_msg_t *m);

/* Decode the effective configuration physics published into *out. The
   receiver's own local keys (sim_config_keep_local: [bus] endpoints,
   [network] settings, log level, run length) are kept: they describe its
   host and process, not the simulation. *serial is the serial of the
   configuration in *out (0: none yet): physics re-publishes it every
   second, and the same serial and rig generation again is not parsed
   again. Returns 0 when *out was loaded (and *serial set), 1 when it
   already was, -1 (logged) when the text does not load. */
int sim_bus_config_decode (const Simbus__Config *msg, const sim_config_t *own, sim_config_t *out,
                           uint64_t *serial);

#endif
