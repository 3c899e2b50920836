/*  sim_link.h - one bus endpoint per service (ARCHITECTURE.md §2, §5).

    A link owns every bus socket of one service and a route table from
    message kind (the envelope's body) to its receivers, and picks the
    carrier of each route: ZeroMQ (tcp, ipc, inproc) everywhere, or, when
    all services share a host, a same-host datagram lane (sim_lane.h) for
    the hot routes, which costs one thread wake-up per hop instead of
    three. Services send envelopes and get envelopes; they never name a
    carrier, and every message takes the same path on both:

      kind         from        to
      snapshot     physics     vision, legacy-grsim, tools
      events       physics     legacy-grsim, tools
      config       physics     every service (re-published each second)
      clock        physics     tools
      step_done    physics     vision (carries the step's Reply)
      frames       vision      legacy-grsim, tools
      frames_done  vision      gateway (carries the step's packets and
                               Reply), legacy-grsim
      request      gateway, legacy-grsim, tools -> physics
      stats        every one  tools, viewer (once a second; physics
                               publishes its own and the gateway's on
                               world, vision its own on frames)
      reply        physics     back to the request's sender; a sync
                               step's reply (a request with a step id)
                               comes inside frames_done instead, unless
                               no vision took the step mark

    What the link does so services need not:
    - subscriptions: a service says which kinds it receives; the link
      subscribes where needed;
    - joining: until the first configuration arrives, a service that wants
      it asks physics for it each second; physics learns of a joiner from
      sim_link_joined;
    - backpressure on physics' routes (sim_link_set_pacing) and, for
      requests, a backlog that never blocks and never loses one: a request
      the carrier has no room for waits in order in the link.
*/
#ifndef SIM_LINK_H_INCLUDED
#define SIM_LINK_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "sim_lane.h"
#include "sim_loop.h"
#include "sim_service.h"
#include "bus/sim_bus.pb-c.h"

/* The largest envelope every carrier takes (a lane datagram is 256 KiB
   with its record headers); a bigger one may be dropped, logged. */
#define SIM_LINK_MESSAGE_MAX (240 * 1024)

/* A service's role is its id (sim_service.h); a tool comes after them. */
typedef enum {
    SIM_LINK_PHYSICS = SIM_SERVICE_PHYSICS,
    SIM_LINK_VISION = SIM_SERVICE_VISION,
    SIM_LINK_GATEWAY = SIM_SERVICE_GATEWAY,
    SIM_LINK_LEGACY = SIM_SERVICE_LEGACY,
    SIM_LINK_VIEWER = SIM_SERVICE_VIEWER, /* the browser viewer: subscriptions only */
    SIM_LINK_TOOL = SIM_SERVICE_COUNT,    /* ssl-sim status, tests, benchmarks: requests and subscriptions */
    SIM_LINK_ROLES
} sim_link_role_t;

/* How long physics' sends to a slow receiver may wait. */
typedef enum {
    SIM_LINK_DROP,          /* never wait (realtime: the clock is not ours to slow) */
    SIM_LINK_WAIT_PIPELINE, /* wait for vision where the carrier can tell it apart (sync) */
    SIM_LINK_WAIT_ALL       /* wait for every receiver (fast: the pipeline runs at its slowest stage) */
} sim_link_pacing_t;

/* Where a request came from, to answer it (sim_link_reply): the one a
   handler gets is valid only while it runs; a copy (sim_link_from_dup)
   keeps it for a later answer. Opaque. */
typedef struct sim_link_from_t sim_link_from_t;

/* A received message: env is the decoded envelope, from where it came.
   Return true to keep env (free it later with
   simbus__envelope__free_unpacked), false to let the link free it. */
typedef bool (sim_link_fn) (void *arg, Simbus__Envelope *env, const sim_link_from_t *from);

typedef struct sim_link_t sim_link_t;

/* The endpoint of service `role` for the resolved configuration `cfg`
   (its [bus] section): binds or connects its sockets. NULL on failure
   (logged: which endpoint and why). */
sim_link_t *sim_link_new (const sim_config_t *cfg, sim_link_role_t role);

/* Close every socket; nulls *self_p. Safe on NULL and twice. */
void sim_link_destroy (sim_link_t **self_p);

/* Receive messages of `kind` (a SIMBUS__ENVELOPE__BODY_* case) from now
   on, or no more. Returns 0, or -1 when this role cannot receive them. */
int sim_link_subscribe (sim_link_t *self, Simbus__Envelope__BodyCase kind);
int sim_link_unsubscribe (sim_link_t *self, Simbus__Envelope__BodyCase kind);

/* Decode messages of `kind` that come by lane into memory the link
   reuses instead of the heap (sim_bus_arena_t): the envelope handed to
   the handler is valid only while it runs, and the handler must return
   false for it. Vision borrows snapshots: ~170 a sim second in fast mode,
   fourteen mallocs and frees each otherwise. Returns 0, or -1 (nothing
   changed) for a kind without a topic of its own or without memory. */
int sim_link_borrow (sim_link_t *self, Simbus__Envelope__BodyCase kind);

/* Add the link's inputs to `loop`; each message read goes to fn (arg, ...).
   At most `burst` messages per input per turn (0: all waiting), so a busy
   bus cannot hide $TERM. The loop also wakes when the link needs a turn
   of its own (records read but not handled, requests waiting for room,
   asking for the configuration). Returns 0 or -1. */
int sim_link_attach (sim_link_t *self, sim_loop_t *loop, int burst, sim_link_fn *fn, void *arg);

/* Inside a handler: the packed Envelope it was given, as the carrier
   delivered it (physics' cmd socket, or a lane), its length in *len, so
   physics can journal a request without packing it again. Borrowed, valid
   while the handler runs; NULL from other inputs and outside a handler. */
const uint8_t *sim_link_received (const sim_link_t *self, size_t *len);

/* Send `env` to the receivers of its kind (version set here). While a
   batch is open (sim_link_batch), messages may be held back and go out
   together at its end. Returns how many carriers took it (0: nobody
   wanted it, or it was dropped: see the pacing) or -1 for a kind this
   role does not send. */
int sim_link_send (sim_link_t *self, Simbus__Envelope *env);

/* Answer a request `from` described. Returns 0 or -1 (dropped). */
int sim_link_reply (sim_link_t *self, const sim_link_from_t *from, Simbus__Envelope *env);

/* A copy of `from` that stays valid after the handler (physics answers
   the requests it held while its clock waited); NULL when out of memory.
   Free it with sim_link_from_destroy. */
sim_link_from_t *sim_link_from_dup (const sim_link_from_t *from);

/* Free a copy; nulls *self_p. Safe on NULL and twice. */
void sim_link_from_destroy (sim_link_from_t **self_p);

/* True when the request came by a lane, false by ZeroMQ. */
bool sim_link_from_lane (const sim_link_from_t *from);

/* True when a receiver would get a message of `kind` now: physics skips
   encoding what nobody reads. */
bool sim_link_wanted (const sim_link_t *self, Simbus__Envelope__BodyCase kind);

/* Open (true) or close (false) a batch: a run of sends whose messages may
   travel together, so a burst costs each receiver one wake-up. Closing
   sends what was held back: returns -1 when that could not be delivered,
   else 0. */
int sim_link_batch (sim_link_t *self, bool open);

/* The backpressure of this link's sends; see sim_link_pacing_t. */
void sim_link_set_pacing (sim_link_t *self, sim_link_pacing_t pacing);
sim_link_pacing_t sim_link_pacing (const sim_link_t *self);

/* True once since the last call when a receiver joined (subscribed, or
   asked for the configuration): physics then re-publishes it at once. */
bool sim_link_joined (sim_link_t *self);

/* Physics: true once vision has joined (its lane took a message, or it
   subscribed to snapshots and step marks), so what physics
   publishes from now on reaches it. A run that must be reproducible from
   its first frame (--journal, a replay) starts its clock then. */
bool sim_link_vision_joined (const sim_link_t *self);

/* True when a request waits to be read (physics looks while it steps). */
bool sim_link_input_waiting (sim_link_t *self);

/* Watch for a request without sleeping until `until_us` (wall clock, us),
   where the carrier allows it; true when one is waiting. Waking a
   sleeping thread costs a good part of a sync round trip on a virtual
   machine. Read it with sim_link_receive_spun. */
bool sim_link_spin (sim_link_t *self, int64_t until_us);

/* Read what sim_link_spin saw, or what waits on a deferred lane, as the
   attached handlers would. */
void sim_link_receive_spun (sim_link_t *self);

/* Deferred (true): what comes on this service's lane no longer wakes it;
   it waits, in order, until sim_link_receive_spun reads it. For a service
   that wakes soon anyway and would rather take a burst of messages in
   that one turn than be woken for each. Returns whether the link has a
   lane (false: nothing is deferred, every message wakes it as before). */
bool sim_link_defer_lane (sim_link_t *self, bool defer);

/* False while requests this link sent may still wait, unread, for
   physics (a starved machine); true when the carrier says they were all
   read. A carrier that cannot tell says false. */
bool sim_link_requests_read (const sim_link_t *self);

#endif
