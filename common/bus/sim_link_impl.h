/*  sim_link_impl.h - what the two halves of the link share (private to
    common/bus/sim_link.c, the routes, sending and life of a link, and
    common/bus/sim_link_recv.c, its receiving side). See sim_link.h.
*/
#ifndef SIM_LINK_IMPL_H_INCLUDED
#define SIM_LINK_IMPL_H_INCLUDED

#include "sim_bus.h"
#include "sim_bus_codec.h"
#include "sim_curve.h"
#include "sim_link.h"

#define S_KINDS      13      /* SIMBUS__ENVELOPE__BODY_* cases, 0 (none) to 12 */
#define S_WAIT_MS    500     /* longest wait for a receiver that takes its time */
#define S_RETRY_US   1000000 /* after a wait timed out: drop, don't wait, this long */
#define S_HELLO_US   1000000 /* a joiner without the configuration asks this often */
#define S_BACKLOG    1024    /* requests waiting for room (the gateway's pending table) */
#define S_FLUSH_MAX  65536   /* bytes of backlog records sent together in one lane datagram */
#define S_PUB_HWM    1000    /* world messages queued per ZeroMQ subscriber */
#define S_SUB_HWM    100000  /* messages queued in a subscriber (vision: S_VISION_HWM) */
#define S_VISION_HWM 1000    /* vision: small, so physics waits instead of queueing */
#define S_CMD_HWM    100000
#define S_ARENA      (32 * 1024) /* a snapshot of 64 robots takes about 7 KiB */

typedef enum { S_CMD, S_WORLD, S_FRAMES } s_sock_t;

/* Who sends a kind, on which ZeroMQ socket and topic. */
typedef struct {
    const char *topic;
    s_sock_t sock;
    sim_link_role_t sender; /* SIM_LINK_ROLES: any but physics (requests) */
} s_kind_t;

/* The routes that take a lane when lanes are on: the hot ones, between
   physics, vision and the gateway. Everything else, and every receiver
   not named here, goes over ZeroMQ. `paced`: the wait follows the
   pacing; otherwise it is wait_ms (-1: never wait). */
typedef struct {
    Simbus__Envelope__BodyCase kind;
    sim_lane_id_t to;
    int wait_ms;
    bool paced;
} s_lane_route_t;

typedef struct {
    uint8_t *data; /* a lane record (sim_lane_pack) */
    size_t len;
} s_queued_t;

struct sim_link_t {
    sim_link_role_t role;
    sim_bus_cfg_t bus;
    zsock_t *cmd;            /* physics: ROUTER (bound); others: DEALER */
    zsock_t *world, *frames; /* the publisher's XPUB, or a receiver's SUB (made when needed) */
    sim_lane_t *lane;        /* NULL: no lanes for this role or configuration */
    sim_curve_t *curve;      /* NULL: no CURVE ([bus] curve off, or no tcp endpoint) */
    bool lanes;              /* lanes are on for this configuration */
    sim_bus_subs_t subs[3];  /* a publisher's subscribers, per s_sock_t */
    uint64_t bound_ino[3];   /* the file an ipc endpoint bound made (its inode; 0: none), per s_sock_t */
    bool subscribed[S_KINDS];
    bool warned;
    bool joined;
    bool vision_joined; /* physics: vision's lane took a message, or vision subscribed */
    /* vision: the frames XPUB's subscriptions were read in this burst of
       lane input (each read is a system call in libzmq; a burst publishes
       dozens of Frames in fast mode) */
    bool in_burst, frames_subs_read;
    /* the cmd socket's last look (ZMQ_EVENTS) found nothing and nothing
       was read since: its ZMQ_FD turns readable when a message comes
       (sim_link_input_waiting) */
    bool cmd_idle;
    /* sim_link_borrow: lane records of this topic decode into the arena */
    const char *borrow_topic;
    sim_bus_arena_t arena;
    uint8_t *arena_buf;

    /* attached */
    sim_loop_t *loop;
    sim_link_fn *fn;
    void *arg;
    int burst;
    const uint8_t *rx; /* the bytes of the message being handled (sim_link_received) */
    size_t rx_len;

    /* backpressure of sends */
    sim_link_pacing_t pacing;
    bool pacing_set;
    bool batch;
    bool pub_stalled;
    int64_t pub_retry_us;
    uint64_t pub_dropped;
    int64_t lane_retry_us;

    /* requests waiting for room, in order */
    s_queued_t backlog[S_BACKLOG];
    int backlog_head, backlog_len;
    uint8_t *flush_buf; /* S_FLUSH_MAX bytes, made on first use */

    /* joining */
    bool want_config, have_config;
    int64_t next_hello_us;
};

/* Where a request came from (sim_link.h). */
struct sim_link_from_t {
    zframe_t *identity; /* ZeroMQ: the sender's routing id; borrowed, owned by a copy */
    sim_lane_peer_t lane;
    bool by_lane;
};

/* The route tables (sim_link.c). */
extern const s_kind_t sim_link_kinds[S_KINDS];
extern const s_lane_route_t sim_link_lane_routes[];
extern const size_t sim_link_lane_route_count;
extern const int sim_link_role_lane[SIM_LINK_ROLES];

static inline bool
s_binds (const sim_link_t *self, s_sock_t sock)
{
    return (sock == S_WORLD && self->role == SIM_LINK_PHYSICS)
        || (sock == S_FRAMES && self->role == SIM_LINK_VISION)
        || (sock == S_CMD && self->role == SIM_LINK_PHYSICS);
}

static inline zsock_t **
s_sock (sim_link_t *self, s_sock_t sock)
{
    return sock == S_CMD ? &self->cmd : sock == S_WORLD ? &self->world : &self->frames;
}

static inline const char *
s_endpoint (const sim_link_t *self, s_sock_t sock)
{
    bool bind = s_binds (self, sock);
    const sim_bus_cfg_t *b = &self->bus;
    if (sock == S_CMD)
        return bind ? b->cmd_bind : b->cmd_connect;
    if (sock == S_WORLD)
        return bind ? b->world_bind : b->world_connect;
    return bind ? b->frames_bind : b->frames_connect;
}

static inline bool
s_valid_kind (int kind)
{
    return kind > 0 && kind < S_KINDS && sim_link_kinds[kind].topic;
}

static inline const char *
s_topic (const Simbus__Envelope *env)
{
    /* a sync step's frames have a topic of their own (a prefix of which
       is the free-running frames'), so a receiver could take them alone */
    if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES && env->frames->has_step_id)
        return SIM_TOPIC_STEP_FRAMES;
    return sim_link_kinds[env->body_case].topic;
}

/* True when `kind` comes to this role by its lane. */
static inline bool
s_by_lane (const sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    if (!self->lane)
        return false;
    for (size_t i = 0; i < sim_link_lane_route_count; i++)
        if (sim_link_lane_routes[i].kind == kind
            && (int) sim_link_lane_routes[i].to == sim_link_role_lane[self->role])
            return true;
    return false;
}

/* The loop's wake-up for a link (sim_loop_wake_fn, sim_link.c): the
   next instant (zclock_usecs) it needs a turn of its own, or
   SIM_LOOP_NEVER. */
int64_t sim_link_wake_us (void *self, int64_t now);

/* Send the requests waiting for room, in order (sim_link_backlog.c). */
void sim_link_backlog_flush (sim_link_t *self);

/* Send a request (or a service's Stats) to physics: over the lane
   without waiting, queued in the backlog behind earlier ones while the
   lane is full, over ZeroMQ when physics is not running or the backlog
   is full. Returns 1 (taken) or 0 (sim_link_backlog.c). */
int sim_link_send_request (sim_link_t *self, Simbus__Envelope *env);

/* Secure socket `sock` (made, not yet bound or connected) with CURVE when
   its endpoint is tcp and [bus] curve is on (sim_link.c). Returns 0, or
   -1 (logged). */
int sim_link_secure (sim_link_t *self, s_sock_t sock);

/* Add the input of socket `sock` to the attached loop, if any
   (sim_link_recv.c). Returns 0 or -1. */
int sim_link_add_input (sim_link_t *self, s_sock_t sock);

#endif
