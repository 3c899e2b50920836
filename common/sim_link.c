/*  sim_link.c - a service's bus endpoint: routes, carriers, backpressure
    (see sim_link.h). */
#include "sim_link.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bus.h"
#include "sim_log.h"

#define S_KINDS      11      /* SIMBUS__ENVELOPE__BODY_* cases, 0 (none) to 10 */
#define S_WAIT_MS    500     /* longest wait for a receiver that takes its time */
#define S_RETRY_US   1000000 /* after a wait timed out: drop, don't wait, this long */
#define S_HELLO_US   1000000 /* a joiner without the configuration asks this often */
#define S_BACKLOG    1024    /* requests waiting for room (the gateway's pending table) */
#define S_PUB_HWM    1000    /* world messages queued per ZeroMQ subscriber */
#define S_SUB_HWM    100000  /* messages queued in a subscriber, but see s_sub_hwm */
#define S_VISION_HWM 1000    /* vision: small, so physics waits instead of queueing */
#define S_CMD_HWM    100000

typedef enum { S_CMD, S_WORLD, S_FRAMES } s_sock_t;

/* Who sends a kind, on which ZeroMQ socket and topic. */
typedef struct {
    const char *topic;
    s_sock_t sock;
    sim_link_role_t sender; /* SIM_LINK_ROLES: any but physics (requests) */
} s_kind_t;

static const s_kind_t s_kinds[S_KINDS] = {
    [SIMBUS__ENVELOPE__BODY_SNAPSHOT] = { SIM_TOPIC_SNAPSHOT, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_EVENTS] = { SIM_TOPIC_EVENTS, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_CONFIG] = { SIM_TOPIC_CONFIG, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_CLOCK] = { SIM_TOPIC_CLOCK, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_STEP_DONE] = { SIM_TOPIC_STEP_DONE, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_FRAMES] = { SIM_TOPIC_FRAMES, S_FRAMES, SIM_LINK_VISION },
    [SIMBUS__ENVELOPE__BODY_FRAMES_DONE] = { SIM_TOPIC_FRAMES_DONE, S_FRAMES, SIM_LINK_VISION },
    [SIMBUS__ENVELOPE__BODY_REQUEST] = { "Q", S_CMD, SIM_LINK_ROLES },
    [SIMBUS__ENVELOPE__BODY_REPLY] = { "R", S_CMD, SIM_LINK_PHYSICS },
};

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

static const s_lane_route_t s_lane_routes[] = {
    /* one lane to vision, so it sees them in publication order */
    { SIMBUS__ENVELOPE__BODY_CONFIG, SIM_LANE_VISION, S_WAIT_MS, true },
    { SIMBUS__ENVELOPE__BODY_SNAPSHOT, SIM_LANE_VISION, S_WAIT_MS, true },
    { SIMBUS__ENVELOPE__BODY_STEP_DONE, SIM_LANE_VISION, S_WAIT_MS, true },
    /* the gateway reads the configuration where it reads replies, so a
       reply never overtakes the configuration its request changed; never
       waited for (it comes again within a second) */
    { SIMBUS__ENVELOPE__BODY_CONFIG, SIM_LANE_GATEWAY, -1, false },
    /* the gateway always reads; a lane that stays full means it is stuck */
    { SIMBUS__ENVELOPE__BODY_FRAMES_DONE, SIM_LANE_GATEWAY, 200, false },
    { SIMBUS__ENVELOPE__BODY_REQUEST, SIM_LANE_PHYSICS, -1, false },
};
#define S_LANE_ROUTES (sizeof s_lane_routes / sizeof s_lane_routes[0])

static const int s_role_lane[SIM_LINK_ROLES] = { SIM_LANE_PHYSICS, SIM_LANE_VISION, SIM_LANE_GATEWAY, -1,
                                                 -1 };
static const char *const s_role_names[SIM_LINK_ROLES] = { "physics", "vision", "gateway", "legacy-grsim",
                                                          "tool" };

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
    bool lanes;              /* lanes are on for this configuration */
    sim_bus_subs_t subs[3];  /* a publisher's subscribers, per s_sock_t */
    bool subscribed[S_KINDS];
    bool warned;
    bool joined;

    /* attached */
    sim_loop_t *loop;
    sim_link_fn *fn;
    void *arg;
    int burst;

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

    /* joining */
    bool want_config, have_config;
    int64_t next_hello_us;
};

static bool
s_binds (const sim_link_t *self, s_sock_t sock)
{
    return (sock == S_WORLD && self->role == SIM_LINK_PHYSICS)
        || (sock == S_FRAMES && self->role == SIM_LINK_VISION)
        || (sock == S_CMD && self->role == SIM_LINK_PHYSICS);
}

static zsock_t **
s_sock (sim_link_t *self, s_sock_t sock)
{
    return sock == S_CMD ? &self->cmd : sock == S_WORLD ? &self->world : &self->frames;
}

static const char *
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

static bool
s_valid_kind (int kind)
{
    return kind > 0 && kind < S_KINDS && s_kinds[kind].topic;
}

static const char *
s_topic (const Simbus__Envelope *env)
{
    /* a sync step's frames have a topic of their own (a prefix of which
       is the free-running frames'), so a receiver could take them alone */
    if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES && env->frames->has_step_id)
        return SIM_TOPIC_STEP_FRAMES;
    return s_kinds[env->body_case].topic;
}

/* True when `kind` comes to this role by its lane. */
static bool
s_by_lane (const sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    if (!self->lane)
        return false;
    for (size_t i = 0; i < S_LANE_ROUTES; i++)
        if (s_lane_routes[i].kind == kind && (int) s_lane_routes[i].to == s_role_lane[self->role])
            return true;
    return false;
}

/* ---- receiving ------------------------------------------------------- */

/* Kinds a role accepts on each input; anything else from the bus is
   dropped here, so a service never sees a message it has no handler for. */
static bool
s_accepts (const sim_link_t *self, const Simbus__Envelope *env, bool on_cmd)
{
    int kind = env->body_case;
    if (!s_valid_kind (kind))
        return false;
    if (kind == SIMBUS__ENVELOPE__BODY_REQUEST)
        return self->role == SIM_LINK_PHYSICS;
    if (kind == SIMBUS__ENVELOPE__BODY_REPLY)
        return self->role != SIM_LINK_PHYSICS && self->role != SIM_LINK_VISION; /* they send no requests */
    return !on_cmd && self->subscribed[kind];
}

static void
s_deliver (sim_link_t *self, Simbus__Envelope *env, const sim_link_from_t *from, bool on_cmd)
{
    if (!env)
        return;
    if (!s_accepts (self, env, on_cmd)) {
        sim_debug ("dropped a bus message of kind %d", (int) env->body_case);
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    if (env->body_case == SIMBUS__ENVELOPE__BODY_CONFIG)
        self->have_config = true;
    if (!self->fn (self->arg, env, from))
        simbus__envelope__free_unpacked (env, NULL);
}

static void
s_read_router (sim_link_t *self)
{
    zmsg_t *msg = zmsg_recv (self->cmd);
    if (!msg)
        return;
    zframe_t *identity = zmsg_pop (msg);
    zframe_t *body = zmsg_last (msg);
    if (identity && body) {
        Simbus__Envelope *env = sim_bus_decode (zframe_data (body), zframe_size (body), &self->warned);
        if (!env)
            sim_debug ("dropped a malformed bus request");
        sim_link_from_t from = { identity, { .len = 0 }, false };
        s_deliver (self, env, &from, true);
    }
    zframe_destroy (&identity);
    zmsg_destroy (&msg);
}

static void
s_read_dealer (sim_link_t *self)
{
    zframe_t *frame = zframe_recv (self->cmd);
    if (!frame)
        return;
    Simbus__Envelope *env = sim_bus_decode (zframe_data (frame), zframe_size (frame), &self->warned);
    zframe_destroy (&frame);
    s_deliver (self, env, NULL, true);
}

static void
s_on_cmd (void *arg)
{
    sim_link_t *self = arg;
    for (int i = 0; (self->burst == 0 || i < self->burst) && (zsock_events (self->cmd) & ZMQ_POLLIN); i++)
        if (self->role == SIM_LINK_PHYSICS)
            s_read_router (self);
        else
            s_read_dealer (self);
}

static void
s_on_sub (sim_link_t *self, zsock_t *sub)
{
    for (int i = 0; (self->burst == 0 || i < self->burst) && (zsock_events (sub) & ZMQ_POLLIN); i++) {
        char topic;
        s_deliver (self, sim_bus_recv_sub (sub, &topic, &self->warned), NULL, false);
    }
}

static void
s_on_world (void *arg)
{
    sim_link_t *self = arg;
    if (self->role == SIM_LINK_PHYSICS) {
        /* XPUB delivers subscriptions: a (re)joining subscriber gets the
           configuration at once instead of at the next periodic one */
        if (sim_bus_subs_read (&self->subs[S_WORLD], self->world))
            self->joined = true;
    } else
        s_on_sub (self, self->world);
}

static void
s_on_frames (void *arg)
{
    sim_link_t *self = arg;
    s_on_sub (self, self->frames);
}

static void
s_read_lane (sim_link_t *self)
{
    Simbus__Envelope *env;
    char topic[8];
    sim_link_from_t from = { NULL, { .len = 0 }, true };
    for (int i = 0; self->burst == 0 || i < self->burst; i++) {
        if (!sim_lane_recv (self->lane, &env, topic, sizeof topic, &from.lane, &self->warned))
            return;
        if (strcmp (topic, SIM_TOPIC_HELLO) == 0) {
            if (self->role == SIM_LINK_PHYSICS)
                self->joined = true;
            if (env)
                simbus__envelope__free_unpacked (env, NULL);
            continue;
        }
        if (!env)
            sim_debug ("dropped a malformed lane message");
        /* requests and replies come to a lane as on cmd */
        s_deliver (self, env, &from,
                   env
                       && (env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST
                           || env->body_case == SIMBUS__ENVELOPE__BODY_REPLY));
    }
}

static void
s_on_lane (void *arg)
{
    s_read_lane (arg);
}

static void s_flush_backlog (sim_link_t *self);

/* Every turn: records left in a datagram by the burst bound, requests
   waiting for room, a stalled publisher's retry, asking for the
   configuration. */
static void
s_tick (void *arg)
{
    sim_link_t *self = arg;
    if (self->lane && sim_lane_buffered (self->lane))
        s_read_lane (self);
    if (self->backlog_len > 0)
        s_flush_backlog (self);
    int64_t now = zclock_usecs ();
    if (self->pub_stalled && now >= self->pub_retry_us) {
        self->pub_stalled = false;
        zsock_set_sndtimeo (self->world, S_WAIT_MS);
        sim_warn ("a world subscriber stopped reading: %llu messages dropped",
                  (unsigned long long) self->pub_dropped);
        self->pub_dropped = 0;
    }
    if (self->lane && self->want_config && !self->have_config && now >= self->next_hello_us) {
        Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
        sim_lane_send (self->lane, SIM_LANE_PHYSICS, SIM_TOPIC_HELLO, &env, -1);
        self->next_hello_us = now + S_HELLO_US;
    }
}

static int
s_add_input (sim_link_t *self, s_sock_t sock)
{
    if ((unsigned) sock > S_FRAMES || !self->loop || !*s_sock (self, sock))
        return 0;
    if (sock == S_FRAMES && self->role == SIM_LINK_VISION)
        return 0; /* subscriptions are read before each publication */
    static const char *const names[] = { "bus cmd", "bus world", "bus frames" };
    static sim_loop_fn *const fns[] = { s_on_cmd, s_on_world, s_on_frames };
    return sim_loop_add_sock (self->loop, names[sock], *s_sock (self, sock), fns[sock], self);
}

int
sim_link_attach (sim_link_t *self, sim_loop_t *loop, int burst, sim_link_fn *fn, void *arg)
{
    assert (self && loop && fn && !self->loop);
    self->loop = loop;
    self->fn = fn;
    self->arg = arg;
    self->burst = burst;
    int rc = 0;
    for (int s = S_CMD; s <= S_FRAMES; s++)
        rc |= s_add_input (self, (s_sock_t) s);
    if (self->lane)
        rc |= sim_loop_add_fd (loop, "bus lane", sim_lane_fd (self->lane), s_on_lane, self);
    rc |= sim_loop_add_tick (loop, "bus", s_tick, self);
    return rc ? -1 : 0;
}

/* ---- subscriptions ---------------------------------------------------- */

/* A receiver's SUB socket, made and connected on first use. */
static zsock_t *
s_sub (sim_link_t *self, s_sock_t sock)
{
    zsock_t **sub = s_sock (self, sock);
    if (*sub)
        return *sub;
    *sub = zsock_new (ZMQ_SUB);
    if (!*sub)
        return NULL;
    /* vision's is small: physics waits for it when it falls behind (fast
       mode) rather than queueing snapshots here without bound */
    zsock_set_rcvhwm (*sub, self->role == SIM_LINK_VISION ? S_VISION_HWM : S_SUB_HWM);
    if (zsock_connect (*sub, "%s", s_endpoint (self, sock)) < 0) {
        sim_error ("cannot connect %s", s_endpoint (self, sock));
        zsock_destroy (sub);
        return NULL;
    }
    if (s_add_input (self, sock)) {
        zsock_destroy (sub);
        return NULL;
    }
    return *sub;
}

static int
s_subscription (sim_link_t *self, Simbus__Envelope__BodyCase kind, bool on)
{
    if (!s_valid_kind (kind) || kind == SIMBUS__ENVELOPE__BODY_REQUEST || kind == SIMBUS__ENVELOPE__BODY_REPLY
        || s_kinds[kind].sender == self->role)
        return -1;
    if (self->subscribed[kind] == on)
        return 0;
    self->subscribed[kind] = on;
    if (kind == SIMBUS__ENVELOPE__BODY_CONFIG)
        self->want_config = on;
    if (s_by_lane (self, kind))
        return 0;
    zsock_t *sub = s_sub (self, s_kinds[kind].sock);
    if (!sub)
        return -1;
    if (on)
        zsock_set_subscribe (sub, s_kinds[kind].topic);
    else
        zsock_set_unsubscribe (sub, s_kinds[kind].topic);
    return 0;
}

int
sim_link_subscribe (sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    return s_subscription (self, kind, true);
}

int
sim_link_unsubscribe (sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    return s_subscription (self, kind, false);
}

/* ---- sending ---------------------------------------------------------- */

static int
s_lane_wait_ms (sim_link_t *self, const s_lane_route_t *route)
{
    if (!route->paced)
        return route->wait_ms;
    return self->pacing != SIM_LINK_DROP && zclock_usecs () >= self->lane_retry_us ? route->wait_ms : -1;
}

/* A lane send that failed: a receiver that did not make room in time is
   not waited for again for a while. */
static void
s_lane_failed (sim_link_t *self, const s_lane_route_t *route, int wait_ms)
{
    if (route->paced && wait_ms >= 0 && errno == EAGAIN) {
        self->lane_retry_us = zclock_usecs () + S_RETRY_US;
        sim_warn ("vision is not reading its lane; dropping what it cannot take for a while");
    }
}

static int
s_send_lanes (sim_link_t *self, Simbus__Envelope *env)
{
    int taken = 0;
    for (size_t i = 0; i < S_LANE_ROUTES; i++) {
        const s_lane_route_t *route = &s_lane_routes[i];
        if (route->kind != env->body_case)
            continue;
        int wait_ms = s_lane_wait_ms (self, route);
        const char *topic = s_topic (env);
        int rc = self->batch && route->paced ? sim_lane_queue (self->lane, route->to, topic, env, wait_ms)
                                             : sim_lane_send (self->lane, route->to, topic, env, wait_ms);
        if (rc == 0)
            taken++;
        else
            s_lane_failed (self, route, wait_ms);
    }
    return taken;
}

/* On a publisher's XPUB, packed only when a subscriber wants the topic.
   A send that times out means a subscriber stopped reading (stuck, or
   shutting down): from then on sends do not wait, and drop, for a while,
   so physics stays responsive; then waiting (backpressure) resumes. */
static int
s_publish (sim_link_t *self, s_sock_t sock, const char *topic, Simbus__Envelope *env)
{
    zsock_t *pub = *s_sock (self, sock);
    if (sock == S_FRAMES)
        sim_bus_subs_read (&self->subs[sock], pub);
    if (!sim_bus_subs_want (&self->subs[sock], topic))
        return 0;
    if (sim_bus_send (pub, topic, env) == 0)
        return 1;
    self->pub_dropped++;
    if (sock == S_WORLD && !self->pub_stalled) {
        self->pub_stalled = true;
        self->pub_retry_us = zclock_usecs () + S_RETRY_US;
        zsock_set_sndtimeo (pub, 0);
        sim_debug ("a world subscriber is not reading; dropping messages for a while");
    }
    return 0;
}

static void
s_send_cmd_record (sim_link_t *self, const uint8_t *data, size_t len)
{
    size_t env_len;
    const void *env = sim_lane_envelope (data, len, &env_len);
    zframe_t *frame = zframe_new (env, env_len);
    if (frame && zframe_send (&frame, self->cmd, 0))
        zframe_destroy (&frame);
}

/* Send what waits in the backlog while physics' lane takes it. */
static void
s_flush_backlog (sim_link_t *self)
{
    while (self->backlog_len > 0) {
        s_queued_t *q = &self->backlog[self->backlog_head];
        if (sim_lane_send_bytes (self->lane, SIM_LANE_PHYSICS, q->data, q->len, -1)) {
            if (errno == EAGAIN)
                return;
            s_send_cmd_record (self, q->data, q->len); /* physics is not running */
        }
        free (q->data);
        q->data = NULL;
        self->backlog_head = (self->backlog_head + 1) % S_BACKLOG;
        self->backlog_len--;
    }
}

/* A request goes over physics' lane without waiting: the gateway never
   blocks (every other service's messages end at it, so it breaks any
   cycle of full queues). A full lane queues it in the backlog, in order;
   a physics that is not running gets it over ZeroMQ, which holds it
   until physics is back. */
static int
s_send_request (sim_link_t *self, Simbus__Envelope *env)
{
    if (!self->lane)
        return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    if (self->backlog_len == 0) {
        if (sim_lane_send (self->lane, SIM_LANE_PHYSICS, "Q", env, -1) == 0)
            return 1;
        if (errno != EAGAIN)
            return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    }
    size_t len = 0;
    uint8_t *data = sim_lane_pack ("Q", env, &len);
    if (!data || self->backlog_len == S_BACKLOG) {
        free (data);
        return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    }
    int tail = (self->backlog_head + self->backlog_len) % S_BACKLOG;
    self->backlog[tail] = (s_queued_t) { data, len };
    self->backlog_len++;
    return 1;
}

int
sim_link_send (sim_link_t *self, Simbus__Envelope *env)
{
    assert (self && env);
    int kind = env->body_case;
    if (!s_valid_kind (kind) || kind == SIMBUS__ENVELOPE__BODY_REPLY)
        return -1;
    env->version = SIM_BUS_VERSION;
    if (kind == SIMBUS__ENVELOPE__BODY_REQUEST)
        return self->role == SIM_LINK_PHYSICS ? -1 : s_send_request (self, env);
    if (s_kinds[kind].sender != self->role)
        return -1;
    int taken = self->lane ? s_send_lanes (self, env) : 0;
    return taken + s_publish (self, s_kinds[kind].sock, s_topic (env), env);
}

int
sim_link_reply (sim_link_t *self, const sim_link_from_t *from, Simbus__Envelope *env)
{
    assert (self && from && env && self->role == SIM_LINK_PHYSICS);
    if (from->by_lane) {
        if (sim_lane_reply (self->lane, &from->lane, "R", env, S_WAIT_MS) == 0)
            return 0;
        sim_debug ("a reply on the lane was dropped: %s", strerror (errno));
        return -1;
    }
    return sim_bus_send_to (self->cmd, from->identity, env);
}

bool
sim_link_wanted (const sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    assert (self && s_valid_kind (kind));
    if (self->lanes)
        for (size_t i = 0; i < S_LANE_ROUTES; i++)
            if (s_lane_routes[i].kind == kind)
                return true;
    return sim_bus_subs_want (&self->subs[s_kinds[kind].sock], s_kinds[kind].topic);
}

int
sim_link_batch (sim_link_t *self, bool open)
{
    self->batch = open;
    if (open || !self->lane)
        return 0;
    /* the batch goes to vision (the only paced lane) */
    const s_lane_route_t *route = &s_lane_routes[0];
    int wait_ms = s_lane_wait_ms (self, route);
    if (sim_lane_flush (self->lane, wait_ms) == 0)
        return 0;
    s_lane_failed (self, route, wait_ms);
    return -1;
}

void
sim_link_set_pacing (sim_link_t *self, sim_link_pacing_t pacing)
{
    if (self->pacing_set && pacing == self->pacing)
        return;
    self->pacing = pacing;
    self->pacing_set = true;
    /* XPUB nodrop: a full subscriber queue makes the send wait (for at most
       S_WAIT_MS), instead of a queue that grows by megabytes a second */
    if (self->world && self->role == SIM_LINK_PHYSICS)
        zsock_set_xpub_nodrop (self->world, pacing == SIM_LINK_WAIT_ALL ? 1 : 0);
}

bool
sim_link_joined (sim_link_t *self)
{
    bool joined = self->joined;
    self->joined = false;
    return joined;
}

bool
sim_link_input_waiting (sim_link_t *self)
{
    if (zsock_events (self->cmd) & ZMQ_POLLIN)
        return true;
    if (!self->lane)
        return false;
    struct pollfd p = { sim_lane_fd (self->lane), POLLIN, 0 };
    return sim_lane_buffered (self->lane) || poll (&p, 1, 0) == 1;
}

bool
sim_link_spin (sim_link_t *self, int64_t until_us)
{
    if (!self->lane)
        return false;
    struct pollfd p = { sim_lane_fd (self->lane), POLLIN, 0 };
    while (zclock_usecs () < until_us)
        if (poll (&p, 1, 0) == 1)
            return true;
    return false;
}

void
sim_link_receive_spun (sim_link_t *self)
{
    if (self->lane)
        s_read_lane (self);
}

bool
sim_link_requests_read (const sim_link_t *self)
{
    return self->lane && self->backlog_len == 0 && sim_lane_unread (self->lane) == 0;
}

int64_t
sim_link_next_us (sim_link_t *self, int64_t now)
{
    if (self->lane && sim_lane_buffered (self->lane))
        return now;
    int64_t next = INT64_MAX;
    /* a datagram socket cannot be polled for room in its peer's queue */
    if (self->backlog_len > 0)
        next = now + 1000;
    if (self->pub_stalled && self->pub_retry_us < next)
        next = self->pub_retry_us;
    if (self->lane && self->want_config && !self->have_config && self->next_hello_us < next)
        next = self->next_hello_us;
    return next;
}

/* ---- life ------------------------------------------------------------- */

static int
s_open (sim_link_t *self, s_sock_t sock, int type)
{
    zsock_t **s = s_sock (self, sock);
    *s = zsock_new (type);
    if (!*s)
        return -1;
    const char *endpoint = s_endpoint (self, sock);
    int rc;
    if (type == ZMQ_XPUB) {
        zsock_set_xpub_verbose (*s, 1);
        zsock_set_sndhwm (*s, sock == S_WORLD ? S_PUB_HWM : S_SUB_HWM);
        if (sock == S_WORLD)
            zsock_set_sndtimeo (*s, S_WAIT_MS);
    } else if (type == ZMQ_DEALER) {
        /* a request send never blocks: an inproc connection whose binder
           went away is never made again, and a DEALER without a peer
           would wait forever (ipc and tcp queue until physics is back) */
        zsock_set_sndhwm (*s, S_CMD_HWM);
        zsock_set_sndtimeo (*s, 0);
    }
    if (s_binds (self, sock))
        rc = zsock_bind (*s, "%s", endpoint) < 0 ? -1 : 0;
    else
        rc = zsock_connect (*s, "%s", endpoint);
    if (rc) {
        sim_error ("cannot %s %s: %s", s_binds (self, sock) ? "bind" : "connect", endpoint,
                   zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
}

sim_link_t *
sim_link_new (const sim_config_t *cfg, sim_link_role_t role)
{
    assert (cfg && role >= 0 && role < SIM_LINK_ROLES);
    sim_link_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->role = role;
    self->bus = cfg->bus;
    self->lanes = sim_lane_enabled (cfg);
    int rc;
    switch (role) {
    case SIM_LINK_PHYSICS:
        rc = s_open (self, S_CMD, ZMQ_ROUTER) || s_open (self, S_WORLD, ZMQ_XPUB);
        break;
    case SIM_LINK_VISION:
        rc = s_open (self, S_FRAMES, ZMQ_XPUB);
        break;
    default:
        rc = s_open (self, S_CMD, ZMQ_DEALER);
        break;
    }
    if (rc == 0 && self->lanes && s_role_lane[role] >= 0
        && !(self->lane = sim_lane_new (cfg, (sim_lane_id_t) s_role_lane[role])))
        rc = -1;
    if (rc) {
        sim_error ("the %s bus endpoint cannot start", s_role_names[role]);
        sim_link_destroy (&self);
        return NULL;
    }
    sim_link_set_pacing (self, SIM_LINK_DROP);
    return self;
}

void
sim_link_destroy (sim_link_t **self_p)
{
    sim_link_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < self->backlog_len; i++)
        free (self->backlog[(self->backlog_head + i) % S_BACKLOG].data);
    sim_lane_destroy (&self->lane);
    /* unbind first: libzmq frees an inproc name only when it reaps the
       closed socket, and a service restarted at once binds it again */
    for (int s = S_CMD; s <= S_FRAMES; s++) {
        zsock_t **sock = s_sock (self, (s_sock_t) s);
        if (*sock && s_binds (self, (s_sock_t) s))
            zsock_unbind (*sock, "%s", s_endpoint (self, (s_sock_t) s));
        zsock_destroy (sock);
    }
    free (self);
    *self_p = NULL;
}
