/*  sim_lane.h - same-host datagram lanes for the bus's hot messages.

    A ZeroMQ message between two processes passes through an I/O thread on
    each side: three thread wake-ups per hop. On the virtual machines labs
    and CI run on, each wake-up is tens of microseconds, so the sync round
    trip and the idle CPU were dominated by them (docs/design.md, "Lanes").
    A lane is one AF_UNIX datagram socket per service, bound at a fixed
    address derived from the [bus] endpoints, that carries the same packed
    sim_bus envelopes as the ZeroMQ sockets, behind a topic: one wake-up per
    hop. Snapshots alone travel flat (sim_bus_snapshot_flatten: their
    fields as copied from memory, which only processes of one build on
    one host can share) and are read back as the envelope a packed one
    gives, under their own topic. Lanes are used only when the endpoints are ipc:// or inproc:// (all
    services on one host) and [bus] lanes is on; with tcp endpoints every
    message goes over ZeroMQ as before.

    Which messages take a lane (everything else stays on ZeroMQ):
      physics -> vision   configuration, snapshots, step marks (one lane,
                          so vision sees them in publication order)
      vision  -> physics  hello (send me the configuration now)
      gateway -> physics  requests; physics -> gateway: their replies
      vision  -> gateway  sync-step frames and frames-done marks

    A lane has no connection: a datagram to a service that is not running
    fails at once (the caller drops or falls back), and a restarted service
    binds the same address again, so nothing needs to reconnect.
*/
#ifndef SIM_LANE_H_INCLUDED
#define SIM_LANE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "common/config/sim_config.h"
#include "sim_service.h"
#include "bus/sim_bus.pb-c.h"

/* Topics only lanes carry (the others are sim_bus.h's). */
#define SIM_TOPIC_HELLO "H"

typedef enum {
    SIM_LANE_PHYSICS = SIM_SERVICE_PHYSICS,
    SIM_LANE_VISION = SIM_SERVICE_VISION,
    SIM_LANE_GATEWAY = SIM_SERVICE_GATEWAY,
    SIM_LANE_COUNT
} sim_lane_id_t;

/* The address a datagram came from, to answer it. */
typedef struct {
    struct sockaddr_un addr;
    socklen_t len;
} sim_lane_peer_t;

typedef struct sim_lane_t sim_lane_t;

/* True when this configuration uses lanes: [bus] lanes is on, the three
   connect endpoints are all ipc:// (lanes NAME.lane in the directory of
   cmd_connect) or all inproc:// (lanes inproc-CMD.NAME.lane in the
   private runtime directory, see sim_bus_runtime_dir; CMD is the cmd
   endpoint's name, hashed when long), and the addresses fit. Every service
   decides alike from the same [bus] section and environment. Lane files
   are sockets of mode 0600: only the user writes to them. */
bool sim_lane_enabled (const sim_config_t *cfg);

/* The address of service `id`'s lane for cfg into *addr (for a test or
   tool that writes to a lane without one of its own). Returns 0, or -1
   when lanes are off for cfg. */
int sim_lane_address (const sim_config_t *cfg, sim_lane_id_t id, sim_lane_peer_t *addr);

/* Bind the lane of service `id` (replacing a stale one left by a killed
   process). NULL when lanes are off for cfg, or on failure (logged). */
sim_lane_t *sim_lane_new (const sim_config_t *cfg, sim_lane_id_t id);

/* Close (and remove, when it is still ours) the lane; nulls *self_p. Safe
   on NULL and twice. */
void sim_lane_destroy (sim_lane_t **self_p);

/* The socket to poll for input. */
int sim_lane_fd (const sim_lane_t *self);

/* Pack `env` (version set) behind `topic` into a new lane record the
   caller frees; *len gets its size. NULL when it does not fit a lane
   datagram. Always a packed envelope, a snapshot too (never the flat
   form sim_lane_queue uses), so its bytes may also go over ZeroMQ. */
void *sim_lane_pack (const char *topic, Simbus__Envelope *env, size_t *len);

/* The packed envelope inside a record made by sim_lane_pack (borrowed);
   *env_len gets its size. */
const void *sim_lane_envelope (const void *record, size_t len, size_t *env_len);

/* Add `env` behind `topic` to the batch for service `to`: one datagram
   carries many records, so a burst costs the receiver one wake-up and
   fills one slot of its queue. Nothing is sent until sim_lane_flush, or
   until the batch is full or a message for another service comes (that
   send waits as wait_ms says). Returns 0, or -1 (errno EMSGSIZE: too big
   for a lane; otherwise an earlier batch was not delivered). */
int sim_lane_queue (sim_lane_t *self, sim_lane_id_t to, const char *topic, Simbus__Envelope *env,
                    int wait_ms);

/* Send the batch, if any; as sim_lane_send_bytes. */
int sim_lane_flush (sim_lane_t *self, int wait_ms);

/* Send records (from sim_lane_pack) to service `to`, after any batch.
   wait_ms <= 0: never wait (a full peer queue fails with EAGAIN);
   otherwise wait up to wait_ms for room.
   Returns 0, or -1 with errno: ECONNREFUSED or ENOENT when `to` is not
   running, EAGAIN when its queue stayed full. */
int sim_lane_send_bytes (sim_lane_t *self, sim_lane_id_t to, const void *data, size_t len, int wait_ms);

/* Queue `env` behind `topic` for service `to` and flush; as
   sim_lane_send_bytes. */
int sim_lane_send (sim_lane_t *self, sim_lane_id_t to, const char *topic, Simbus__Envelope *env, int wait_ms);

/* Same, to the address a datagram came from. */
int sim_lane_reply (sim_lane_t *self, const sim_lane_peer_t *to, const char *topic, Simbus__Envelope *env,
                    int wait_ms);

/* For a service still without the configuration: ask physics for it at
   once when *next_us (wall clock, us) has come, and set *next_us to the
   next asking, a second later (physics also re-publishes it every second;
   this only spares a starting service the wait). Returns *next_us, the
   time to wake up for. */
int64_t sim_lane_hello (sim_lane_t *self, int64_t now, int64_t *next_us);

/* Bytes this lane sent that their receivers have not read yet (AF_UNIX
   datagrams stay charged to the sender until read). */
size_t sim_lane_unread (const sim_lane_t *self);

/* True while records of the last datagram wait to be read: poll() on the
   socket does not see them. */
bool sim_lane_buffered (const sim_lane_t *self);

/* Receive one record without waiting (the rest of the last datagram
   first). Returns 0 when nothing is waiting; 1 when one was read: *env is
   its decoded envelope (NULL when malformed or of another bus version,
   the first logged per *warned), the topic is
   copied into topic[cap] and, when `from` is not NULL, the sender's
   address into *from. Free *env with simbus__envelope__free_unpacked. */
int sim_lane_recv (sim_lane_t *self, Simbus__Envelope **env, char *topic, size_t cap, sim_lane_peer_t *from,
                   bool *warned);

/* Same, decoding a record of topic `alloc_topic` with `alloc` (see
   sim_bus_decode_in); free its *env with that allocator. */
int sim_lane_recv_in (sim_lane_t *self, ProtobufCAllocator *alloc, const char *alloc_topic,
                      Simbus__Envelope **env, char *topic, size_t cap, sim_lane_peer_t *from, bool *warned);

/* The packed Envelope of the record the last receive read, its length in
   *len: borrowed, valid until the next receive; NULL when that record held
   none (a flat snapshot, or nothing was read). */
const uint8_t *sim_lane_record (const sim_lane_t *self, size_t *len);

#endif
