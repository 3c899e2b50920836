/*  gw_pending.h - the gateway's table of requests waiting for physics (and,
    for a sync step, for vision): what each datagram asked, where its
    answer goes, until when to wait, and what has come back so far.

    A request's bus id carries SIM_BUS_ID_ONCE (physics applies it at most
    once) and starts, per table, from the wall clock, so a restarted
    gateway never reuses an id physics still remembers.

    A plain command keeps its bus Request and is handed to physics again
    while it waits for an answer: a physics killed before it answered
    leaves it to its successor, which applies it unless its predecessor
    did (SIM_BUS_ID_ONCE), and answers. It goes again on a schedule (for a
    physics that is slow, or whose copy was lost with it) and at once when
    physics speaks after the first hand-over was due (a restarted one
    publishes its configuration as soon as the gateway is subscribed), so
    a physics back at any time before the answer's limit gets it.

    A request's bus id is chosen so that id % capacity is its slot: finding
    the request of a reply costs one lookup, and an id that is no longer
    pending (answered, forgotten, or never ours) finds nothing.

    Quotas (gw_pending_set_quota) keep one port or one source from taking
    what the others need: each port may hold at most its share of the
    table, each source address (ip:port) at most a few requests. Shares
    that add up to no more than the capacity are reservations: a flood on
    one port, or from one source, leaves every other port its share.
*/
#ifndef GW_PENDING_H_INCLUDED
#define GW_PENDING_H_INCLUDED

#include <czmq.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "gw_port.h"
#include "common/base/sim_errors.h"
#include "bus/sim_bus.pb-c.h"

#define GW_SYNC_FRAMES 256 /* frames kept per sync step (the newest) */

/* A refusal's warning comes once until a request is taken again, and at
   most once in this long for each reason: a client that keeps its share
   full while physics answers gets one line a second, not one per answer
   (a 20 kHz flood of commands wrote 200-700 lines a second). */
#define GW_REFUSE_LOG_US 1000000

typedef enum { GW_REQ_COMMAND, GW_REQ_ROBOTS, GW_REQ_SYNC } gw_req_kind_t;

/* Why an add is refused, or GW_ADMIT_OK. */
typedef enum {
    GW_ADMIT_OK = 0,
    GW_ADMIT_FULL,   /* every slot of the table is taken */
    GW_ADMIT_PORT,   /* the port holds its whole share */
    GW_ADMIT_SOURCE, /* the source holds all it may */
    GW_ADMIT_REASONS
} gw_admit_t;

typedef struct {
    bool used;
    uint64_t id;
    gw_req_kind_t kind;
    gw_port_kind_t port;
    struct sockaddr_in from;
    int64_t deadline_us;
    int64_t give_up_us; /* sync: waiting for physics to read ends here */
    size_t answer_cap;  /* largest answer its source may get (sim_trust_cap; gw_pending_add: SIZE_MAX) */
    bool first;         /* its source's first datagram on the port: its answer is never lost */
    /* plain only: the bus Request as sent (owned; NULL: none kept), handed
       to physics again while unanswered (gw_pending_resend_due) */
    uint8_t *resend;
    size_t resend_len;
    int64_t resend_gap_us; /* until the next hand-over */
    int64_t final_us;      /* answered UNAVAILABLE then */
    int64_t kept_us;       /* when it came in */
    /* sync only */
    bool frames_done;
    bool team_robot_control;     /* robot_control on a team port: a response always exists */
    Simbus__Envelope *reply_env; /* owned: the message that carried the reply */
    const Simbus__Reply *reply;  /* inside reply_env; NULL: none yet */
    sim_errors_t *early;         /* errors found by the gateway (INVALID_STEP ...), owned */
    size_t frame_count;
    zchunk_t *frames[GW_SYNC_FRAMES]; /* SSL_WrapperPacket bytes, owned */
} gw_request_t;

typedef struct gw_pending_t gw_pending_t;

/* A table of `capacity` slots; NULL when out of memory. */
gw_pending_t *gw_pending_new (int capacity);

/* Release every request and free the table; nulls *self_p. Safe twice. */
void gw_pending_destroy (gw_pending_t **self_p);

/* Bound what one port (per_port requests) and one source address
   (per_source) may hold; 0 lifts that bound. A new table has none. Asserts
   3 * per_port <= capacity, so that each share is a reservation. */
void gw_pending_set_quota (gw_pending_t *self, int per_port, int per_source);

/* Whether a request from `from` on `port` would be taken now: GW_ADMIT_OK
   or the first bound it meets (table, port, source). Changes nothing. */
gw_admit_t gw_pending_admit (const gw_pending_t *self, gw_port_kind_t port, const struct sockaddr_in *from);

/* A new request of `kind` from `from` on `port`, waiting until
   deadline_us; a sync request gets its `early` error list. Returns it
   (borrowed, with its id), or NULL when gw_pending_admit refuses it
   (counted by reason) or out of memory. */
gw_request_t *gw_pending_add (gw_pending_t *self, gw_req_kind_t kind, gw_port_kind_t port,
                              const struct sockaddr_in *from, int64_t deadline_us);

/* Plain request req keeps `bus` (packed) to hand it to physics again,
   first after GW_RESEND_FIRST_US from `now_us`, then at twice the
   interval each time, answered UNAVAILABLE at `final_us`: its deadline is
   the nearer one. Returns 0, or -1 when out of memory (then it is only
   answered UNAVAILABLE at final_us). */
#define GW_RESEND_FIRST_US 150000
int gw_pending_keep_request (gw_pending_t *self, gw_request_t *req, const Simbus__Request *bus,
                             int64_t now_us, int64_t final_us);

/* Inside gw_pending_expire's callback, for a plain request whose deadline
   came: true when it is to be handed to physics again now (its deadline
   moved to the next hand-over or final_us), false when its time is up. */
bool gw_pending_resend_due (gw_request_t *req, int64_t now_us);

/* The pending request with bus id `id`, or NULL. */
gw_request_t *gw_pending_find (gw_pending_t *self, uint64_t id);

/* Forget a request, freeing what it owns. */
void gw_pending_release (gw_pending_t *self, gw_request_t *req);

/* Give a sync request its reply: `env` (taken) is the message that
   carries `reply`. A second reply for the same request is freed (the
   first one counts). */
void gw_pending_set_reply (gw_request_t *req, Simbus__Envelope *env, const Simbus__Reply *reply);

/* Keep n released packets for a sync request; beyond GW_SYNC_FRAMES, the
   newest. Returns how many older ones were dropped for room. */
size_t gw_pending_keep_frames (gw_request_t *req, const ProtobufCBinaryData *wrappers, size_t n);

/* Call fn (arg, req) for every request whose deadline has come by now_us;
   fn answers or forgets it (gw_pending_release) or moves its deadline.
   Returns the earliest deadline still pending, or INT64_MAX. */
typedef void (gw_pending_fn) (void *arg, gw_request_t *req);

/* Move a request's deadline (outside gw_pending_expire's callback, where
   setting req->deadline_us is enough). */
void gw_pending_set_deadline (gw_pending_t *self, gw_request_t *req, int64_t deadline_us);
int64_t gw_pending_expire (gw_pending_t *self, int64_t now_us, gw_pending_fn *fn, void *arg);

/* Call fn (arg, req) for every plain request kept for a hand-over that
   came in before `before_us` (fn must not release it): what a physics
   that just spoke (a restarted one's first configuration) gets at once,
   not at the next hand-over, which may come after the last one. */
void gw_pending_each_kept (gw_pending_t *self, int64_t before_us, gw_pending_fn *fn, void *arg);

/* Requests pending, and adds refused (for any reason). */
int gw_pending_count (const gw_pending_t *self);
uint64_t gw_pending_refused (const gw_pending_t *self);

/* Requests of `kind` pending, and the oldest of them (the first added
   that is still pending; NULL when none). Borrowed, valid until the table
   changes. */
int gw_pending_kind_count (const gw_pending_t *self, gw_req_kind_t kind);
const gw_request_t *gw_pending_oldest_of (gw_pending_t *self, gw_req_kind_t kind);

/* Requests pending on `port`, and from `from` (ip:port). */
int gw_pending_port_count (const gw_pending_t *self, gw_port_kind_t port);
int gw_pending_source_count (const gw_pending_t *self, const struct sockaddr_in *from);

/* Adds refused for `reason` (not GW_ADMIT_OK). */
uint64_t gw_pending_refused_for (const gw_pending_t *self, gw_admit_t reason);

#endif
