/*  sim_link_recv.c - the receiving side of a link: its inputs in the
    service's loop, what each role accepts, subscriptions and joining
    (see sim_link.h). */
#include "sim_link_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_log.h"

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
    if (kind == SIMBUS__ENVELOPE__BODY_STATS && on_cmd)
        return self->role == SIM_LINK_PHYSICS; /* to publish for its sender */
    return !on_cmd && self->subscribed[kind];
}

/* Free env, decoded with `alloc` (NULL: the heap, else the link's arena). */
static void
s_free (sim_link_t *self, Simbus__Envelope *env, ProtobufCAllocator *alloc)
{
    if (alloc)
        sim_bus_arena_free (&self->arena, env);
    else
        simbus__envelope__free_unpacked (env, NULL);
}

/* `alloc`: what env was decoded with (NULL: the heap). */
static void
s_deliver (sim_link_t *self, Simbus__Envelope *env, const sim_link_from_t *from, bool on_cmd,
           ProtobufCAllocator *alloc)
{
    if (!env)
        return;
    assert (!alloc || alloc == &self->arena.base);
    if (!s_accepts (self, env, on_cmd)) {
        sim_debug ("dropped a bus message of kind %d", (int) env->body_case);
        s_free (self, env, alloc);
        return;
    }
    if (env->body_case == SIMBUS__ENVELOPE__BODY_CONFIG)
        self->have_config = true;
    bool kept = self->fn (self->arg, env, from);
    assert (!(kept && alloc) && "a borrowed envelope cannot be kept (sim_link_borrow)");
    if (!kept)
        s_free (self, env, alloc);
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
        self->rx = zframe_data (body);
        self->rx_len = zframe_size (body);
        s_deliver (self, env, &from, true, NULL);
        self->rx = NULL;
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
    s_deliver (self, env, NULL, true, NULL);
}

static void
s_on_cmd (void *arg)
{
    sim_link_t *self = arg;
    self->cmd_idle = false; /* the burst bound may leave messages */
    for (int i = 0; self->burst == 0 || i < self->burst; i++) {
        if (!(zsock_events (self->cmd) & ZMQ_POLLIN)) {
            self->cmd_idle = true;
            break;
        }
        if (self->role == SIM_LINK_PHYSICS)
            s_read_router (self);
        else
            s_read_dealer (self);
    }
}

static void
s_on_sub (sim_link_t *self, zsock_t *sub)
{
    for (int i = 0; (self->burst == 0 || i < self->burst) && (zsock_events (sub) & ZMQ_POLLIN); i++) {
        char topic;
        s_deliver (self, sim_bus_recv_sub (sub, &topic, &self->warned), NULL, false, NULL);
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
        /* only vision takes step marks besides snapshots */
        if (sim_bus_subs_want (&self->subs[S_WORLD], SIM_TOPIC_SNAPSHOT)
            && sim_bus_subs_want (&self->subs[S_WORLD], SIM_TOPIC_STEP_DONE))
            self->vision_joined = true;
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
    ProtobufCAllocator *arena = self->borrow_topic ? &self->arena.base : NULL;
    for (int i = 0; self->burst == 0 || i < self->burst; i++) {
        sim_bus_arena_reset (&self->arena); /* the last borrowed envelope is gone */
        if (!sim_lane_recv_in (self->lane, arena, self->borrow_topic, &env, topic, sizeof topic, &from.lane,
                               &self->warned))
            return;
        ProtobufCAllocator *alloc = arena && strcmp (topic, self->borrow_topic) == 0 ? arena : NULL;
        if (strcmp (topic, SIM_TOPIC_HELLO) == 0) {
            if (self->role == SIM_LINK_PHYSICS)
                self->joined = true;
            if (env)
                s_free (self, env, alloc);
            continue;
        }
        if (!env)
            sim_debug ("dropped a malformed lane message");
        /* requests and replies come to a lane as on cmd */
        self->rx = sim_lane_record (self->lane, &self->rx_len);
        s_deliver (self, env, &from,
                   env
                       && (env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST
                           || env->body_case == SIMBUS__ENVELOPE__BODY_REPLY
                           || env->body_case == SIMBUS__ENVELOPE__BODY_STATS),
                   alloc);
        self->rx = NULL;
    }
}

static void
s_on_lane (void *arg)
{
    sim_link_t *self = arg;
    self->in_burst = true; /* until the turn's tick */
    s_read_lane (self);
}

/* Every turn: records left in a datagram by the burst bound, requests
   waiting for room, a stalled publisher's retry, asking for the
   configuration. */
static void
s_tick (void *arg)
{
    sim_link_t *self = arg;
    if (self->lane && sim_lane_buffered (self->lane)) {
        self->in_burst = true;
        s_read_lane (self);
    }
    self->in_burst = self->frames_subs_read = false;
    if (self->backlog_len > 0)
        sim_link_backlog_flush (self);
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

int
sim_link_add_input (sim_link_t *self, s_sock_t sock)
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
sim_link_borrow (sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    assert (self);
    if (!s_valid_kind (kind) || kind == SIMBUS__ENVELOPE__BODY_FRAMES)
        return -1; /* frames have two topics */
    if (!self->arena_buf && !(self->arena_buf = malloc (S_ARENA)))
        return -1;
    sim_bus_arena_init (&self->arena, self->arena_buf, S_ARENA);
    self->borrow_topic = sim_link_kinds[kind].topic;
    return 0;
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
        rc |= sim_link_add_input (self, (s_sock_t) s);
    if (self->lane)
        rc |= sim_loop_add_fd (loop, "bus lane", sim_lane_fd (self->lane), s_on_lane, self);
    rc |= sim_loop_add_tick (loop, "bus", s_tick, self);
    rc |= sim_loop_add_wake (loop, "bus", sim_link_wake_us, self);
    return rc ? -1 : 0;
}

const uint8_t *
sim_link_received (const sim_link_t *self, size_t *len)
{
    assert (self && len);
    *len = self->rx ? self->rx_len : 0;
    return self->rx;
}

void
sim_link_receive_spun (sim_link_t *self)
{
    if (self->lane)
        s_read_lane (self);
}

bool
sim_link_defer_lane (sim_link_t *self, bool defer)
{
    assert (self && self->loop);
    if (!self->lane)
        return false;
    sim_loop_set_quiet (self->loop, "bus lane", defer);
    return true;
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
    if (sim_link_secure (self, sock)) {
        zsock_destroy (sub);
        return NULL;
    }
    if (zsock_connect (*sub, "%s", s_endpoint (self, sock)) < 0) {
        sim_error ("cannot connect %s", s_endpoint (self, sock));
        zsock_destroy (sub);
        return NULL;
    }
    if (sim_link_add_input (self, sock)) {
        zsock_destroy (sub);
        return NULL;
    }
    return *sub;
}

static int
s_subscription (sim_link_t *self, Simbus__Envelope__BodyCase kind, bool on)
{
    if (!s_valid_kind (kind) || kind == SIMBUS__ENVELOPE__BODY_REQUEST || kind == SIMBUS__ENVELOPE__BODY_REPLY
        || sim_link_kinds[kind].sender == self->role)
        return -1;
    if (self->subscribed[kind] == on)
        return 0;
    self->subscribed[kind] = on;
    if (kind == SIMBUS__ENVELOPE__BODY_CONFIG)
        self->want_config = on;
    if (s_by_lane (self, kind))
        return 0;
    if (kind == SIMBUS__ENVELOPE__BODY_STATS && self->role != SIM_LINK_VISION) {
        /* vision's come on frames, everyone else's on world */
        zsock_t *frames = s_sub (self, S_FRAMES);
        if (!frames)
            return -1;
        if (on)
            zsock_set_subscribe (frames, SIM_TOPIC_STATS);
        else
            zsock_set_unsubscribe (frames, SIM_TOPIC_STATS);
    }
    zsock_t *sub = s_sub (self, sim_link_kinds[kind].sock);
    if (!sub)
        return -1;
    if (on)
        zsock_set_subscribe (sub, sim_link_kinds[kind].topic);
    else
        zsock_set_unsubscribe (sub, sim_link_kinds[kind].topic);
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
