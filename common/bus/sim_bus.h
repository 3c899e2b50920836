/*  sim_bus.h - the ZeroMQ bus between the services (ARCHITECTURE.md §2):
    endpoint resolution, and the one codec for sim_bus.proto envelopes.

    Sockets: physics binds `cmd` (ROUTER, requests in, replies out) and
    `world` (XPUB: snapshots, clock, events, step marks, configuration);
    vision binds `frames` (PUB). PUB messages are two frames, a one-letter
    topic and the packed Envelope; cmd messages are the packed Envelope
    (behind the ROUTER's identity frame on the physics side).
*/
#ifndef SIM_BUS_H_INCLUDED
#define SIM_BUS_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/config/sim_config.h"
#include "bus/sim_bus.pb-c.h"

/* Bumped whenever a bus message changes meaning (2: a snapshot's robots
   travel as packed arrays, sim_bus.proto Snapshot). */
#define SIM_BUS_VERSION 2

/* Topics on world and frames. */
#define SIM_TOPIC_SNAPSHOT  "S"
#define SIM_TOPIC_EVENTS    "E"
#define SIM_TOPIC_CONFIG    "C"
#define SIM_TOPIC_CLOCK     "K"
#define SIM_TOPIC_STEP_DONE "D"
#define SIM_TOPIC_FRAMES    "F"
/* Frames of a sync step: "F" subscribers get them too. */
#define SIM_TOPIC_STEP_FRAMES "FS"
#define SIM_TOPIC_FRAMES_DONE "G"
/* A service's Stats, on world (physics, and the gateway's through it) and
   on frames (vision). */
#define SIM_TOPIC_STATS "T"
/* The robot commands physics applied (the viewer's inspector). */
#define SIM_TOPIC_COMMANDS "U"

/* Upper bounds (us) of the substep cost histogram in Stats.substep_buckets;
   the last bucket is everything (+Inf). */
#define SIM_STATS_SUBSTEP_BOUNDS_US \
    { \
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 \
    }
#define SIM_STATS_SUBSTEP_BUCKETS 11

/* The step id of the StepDone physics sends when `ssl-sim replay` has run
   to its end (docs/logs.md): vision, replaying, closes its log and ends. */
#define SIM_BUS_REPLAY_END_STEP UINT64_MAX

/* The step id of the StepDone physics sends when a replay with its page
   jumped to another time (docs/viewer.md "Replaying a journal"): its
   time_ns is the new time. Vision starts its camera model again there, as
   a vision that had only ever seen the new timeline would. */
#define SIM_BUS_REPLAY_SEEK_STEP (UINT64_MAX - 1)

/* A Request id with this bit set asks to be applied at most once: physics
   remembers the newest such ids, keeps them in its checkpoint and reads
   them back with the restart journal's (so every later physics of the run
   remembers what an earlier one applied), and answers a repeat without
   applying it again. The gateway's ids carry it, so it can
   hand what a killed physics left unanswered to the next one. */
#define SIM_BUS_ID_ONCE (1ull << 63)

/* The per-user runtime directory ($XDG_RUNTIME_DIR/ssl-sim or
   /tmp/ssl-sim-UID, plus /N with a port offset N), created mode 0700.
   One that exists already is used only when it is a directory (not a
   symbolic link) owned by this user with no group or other access: its
   permissions are what keeps other local users off the bus sockets,
   lanes, pid files and checkpoints in it. Writes it into buf; returns 0,
   or -1 (reason logged, naming the path) when it cannot be made or is
   refused. */
int sim_bus_runtime_dir (const sim_config_t *cfg, char *buf, size_t len);

/* The same directory for a query that must leave no trace (`ssl-sim
   status`, reading pid files and the lock): nothing is created. Writes
   its path into buf and returns 0 when it exists and passes the same
   checks, 1 when it does not exist (nothing logged: nothing runs there),
   or -1 when it is refused (reason logged) or the path does not fit. */
int sim_bus_runtime_dir_find (const sim_config_t *cfg, char *buf, size_t len);

/* Fill every empty [bus] endpoint: ipc:// paths in the runtime directory,
   or inproc://NAME-<prefix> names when `inproc_prefix` is not NULL (the
   single-process mode; the prefix keeps two simulators in one test apart).
   Returns 0, or -1 when the runtime directory cannot be made. */
int sim_bus_resolve (sim_config_t *cfg, const char *inproc_prefix);

/* The subscriptions an XPUB socket delivered, as a set of topic prefixes,
   so a publisher packs a message only when somebody will receive it. An
   unsubscription comes only when a prefix's last subscriber leaves (also
   when it disconnects), so the set is exact. */
#define SIM_BUS_SUBS_MAX 16
typedef struct {
    int count;
    size_t len[SIM_BUS_SUBS_MAX];
    char prefix[SIM_BUS_SUBS_MAX][8];
} sim_bus_subs_t;

/* Apply one subscription message (first byte 1 = subscribe, 0 = leave,
   then the prefix). Returns true for a subscription. Longer prefixes than
   8 bytes, or more than SIM_BUS_SUBS_MAX of them, count as "everything":
   never wrong, at worst a message packed for nobody. */
bool sim_bus_subs_update (sim_bus_subs_t *self, const uint8_t *data, size_t size);

/* Read every subscription message waiting on `xpub` into *self; returns
   true when one was a subscription (a joiner). */
bool sim_bus_subs_read (sim_bus_subs_t *self, zsock_t *xpub);

/* True when a subscriber's prefix matches `topic`. */
bool sim_bus_subs_want (const sim_bus_subs_t *self, const char *topic);

/* Pack `env` (version set here) and send it: on PUB/XPUB sockets behind a
   topic frame (topic != NULL), else alone. Returns 0 or -1. */
int sim_bus_send (zsock_t *sock, const char *topic, Simbus__Envelope *env);

/* Same, to one ROUTER peer: identity frame first. Takes no ownership. */
int sim_bus_send_to (zsock_t *router, zframe_t *identity, Simbus__Envelope *env);

/* Decode one packed envelope. NULL when it does not parse or carries
   another bus version; the first mismatch per `*warned` flag is logged.
   Free the result with simbus__envelope__free_unpacked (env, NULL). */
Simbus__Envelope *sim_bus_decode (const void *data, size_t size, bool *warned);

/* Same, with protobuf-c's allocations from `alloc` (NULL: the heap);
   free the result with simbus__envelope__free_unpacked (env, alloc). */
Simbus__Envelope *sim_bus_decode_in (const void *data, size_t size, bool *warned, ProtobufCAllocator *alloc);

/* Receive one message from a SUB socket: returns the decoded envelope (or
   NULL for a malformed one), topic letter in *topic. */
Simbus__Envelope *sim_bus_recv_sub (zsock_t *sub, char *topic, bool *warned);

#endif
