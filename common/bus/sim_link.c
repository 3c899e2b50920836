/*  sim_link.c - a service's bus endpoint: the route tables, sending and
    backpressure, and the link's life (see sim_link.h; receiving is in
    sim_link_recv.c, requests to physics and their backlog in
    sim_link_backlog.c). */
#include "sim_link_impl.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/sim_log.h"

const s_kind_t sim_link_kinds[S_KINDS] = {
    [SIMBUS__ENVELOPE__BODY_SNAPSHOT] = { SIM_TOPIC_SNAPSHOT, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_EVENTS] = { SIM_TOPIC_EVENTS, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_CONFIG] = { SIM_TOPIC_CONFIG, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_CLOCK] = { SIM_TOPIC_CLOCK, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_STEP_DONE] = { SIM_TOPIC_STEP_DONE, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_FRAMES] = { SIM_TOPIC_FRAMES, S_FRAMES, SIM_LINK_VISION },
    [SIMBUS__ENVELOPE__BODY_FRAMES_DONE] = { SIM_TOPIC_FRAMES_DONE, S_FRAMES, SIM_LINK_VISION },
    [SIMBUS__ENVELOPE__BODY_REQUEST] = { "Q", S_CMD, SIM_LINK_ROLES },
    [SIMBUS__ENVELOPE__BODY_REPLY] = { "R", S_CMD, SIM_LINK_PHYSICS },
    /* physics publishes every Stats on world; vision's go on frames, and
       the others' come to physics on cmd for it to publish (sim_link_send) */
    [SIMBUS__ENVELOPE__BODY_STATS] = { SIM_TOPIC_STATS, S_WORLD, SIM_LINK_PHYSICS },
    [SIMBUS__ENVELOPE__BODY_COMMANDS] = { SIM_TOPIC_COMMANDS, S_WORLD, SIM_LINK_PHYSICS },
};

/* The routes that take a lane when lanes are on: the hot ones, between
   physics, vision and the gateway. Everything else, and every receiver
   not named here, goes over ZeroMQ. `paced`: the wait follows the
   pacing; otherwise it is wait_ms (-1: never wait). */
const s_lane_route_t sim_link_lane_routes[] = {
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
const size_t sim_link_lane_route_count = sizeof sim_link_lane_routes / sizeof sim_link_lane_routes[0];

const int sim_link_role_lane[SIM_LINK_ROLES] = {
    SIM_LANE_PHYSICS, SIM_LANE_VISION, SIM_LANE_GATEWAY, -1, -1, -1
};

static const char *
s_role_name (sim_link_role_t role)
{
    return role < SIM_LINK_TOOL ? sim_service_names[role] : "tool";
}

/* ---- sending ---------------------------------------------------------- */

static int
s_lane_wait_ms (sim_link_t *self, const s_lane_route_t *route)
{
    if (!route->paced)
        return route->wait_ms;
    /* the clock only while a failed receiver is not waited for: this runs
       for every snapshot */
    if (self->lane_retry_us && zclock_usecs () >= self->lane_retry_us)
        self->lane_retry_us = 0;
    return self->pacing != SIM_LINK_DROP && self->lane_retry_us == 0 ? route->wait_ms : -1;
}

/* A lane send that failed: a receiver that did not make room in time is
   not waited for again for a while. */
static void
s_lane_failed (sim_link_t *self, const s_lane_route_t *route, int wait_ms)
{
    if (route->paced && wait_ms >= 0 && errno == EAGAIN) {
        self->lane_retry_us = zclock_usecs () + S_RETRY_US;
        sim_warn ("%s is not reading its lane; dropping what it cannot take for a while",
                  sim_service_names[SIM_SERVICE_VISION]);
    }
}

static int
s_send_lanes (sim_link_t *self, Simbus__Envelope *env)
{
    int taken = 0;
    for (size_t i = 0; i < sim_link_lane_route_count; i++) {
        const s_lane_route_t *route = &sim_link_lane_routes[i];
        if (route->kind != env->body_case)
            continue;
        int wait_ms = s_lane_wait_ms (self, route);
        const char *topic = s_topic (env);
        int rc = self->batch && route->paced ? sim_lane_queue (self->lane, route->to, topic, env, wait_ms)
                                             : sim_lane_send (self->lane, route->to, topic, env, wait_ms);
        if (rc == 0) {
            taken++;
            /* vision's lane is bound: what follows reaches it in order */
            if (route->to == SIM_LANE_VISION)
                self->vision_joined = true;
        } else
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
    if (sock == S_FRAMES && !self->frames_subs_read) {
        /* once per burst of lane input, before its first publication:
           a subscriber that joins during the burst gets the next one's */
        sim_bus_subs_read (&self->subs[sock], pub);
        self->frames_subs_read = self->in_burst;
    }
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

int
sim_link_send (sim_link_t *self, Simbus__Envelope *env)
{
    assert (self && env);
    int kind = env->body_case;
    if (!s_valid_kind (kind) || kind == SIMBUS__ENVELOPE__BODY_REPLY)
        return -1;
    env->version = SIM_BUS_VERSION;
    if (kind == SIMBUS__ENVELOPE__BODY_REQUEST)
        return self->role == SIM_LINK_PHYSICS ? -1 : sim_link_send_request (self, env);
    if (kind == SIMBUS__ENVELOPE__BODY_STATS && self->role == SIM_LINK_VISION)
        return s_publish (self, S_FRAMES, SIM_TOPIC_STATS, env);
    if (kind == SIMBUS__ENVELOPE__BODY_STATS && self->role != SIM_LINK_PHYSICS)
        return sim_link_send_request (self, env); /* physics publishes it */
    if (sim_link_kinds[kind].sender != self->role)
        return -1;
    int taken = self->lane ? s_send_lanes (self, env) : 0;
    return taken + s_publish (self, sim_link_kinds[kind].sock, s_topic (env), env);
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
    self->cmd_idle =
        false; /* a send handles the socket's commands: its ZMQ_FD may not tell of a message now */
    return sim_bus_send_to (self->cmd, from->identity, env);
}

sim_link_from_t *
sim_link_from_dup (const sim_link_from_t *from)
{
    assert (from);
    sim_link_from_t *copy = malloc (sizeof *copy);
    if (!copy)
        return NULL;
    *copy = *from;
    if (from->identity && !(copy->identity = zframe_dup (from->identity))) {
        free (copy);
        return NULL;
    }
    return copy;
}

void
sim_link_from_destroy (sim_link_from_t **self_p)
{
    sim_link_from_t *self = *self_p;
    if (!self)
        return;
    zframe_destroy (&self->identity);
    free (self);
    *self_p = NULL;
}

bool
sim_link_from_lane (const sim_link_from_t *from)
{
    return from->by_lane;
}

bool
sim_link_wanted (const sim_link_t *self, Simbus__Envelope__BodyCase kind)
{
    assert (self && s_valid_kind (kind));
    if (self->lanes)
        for (size_t i = 0; i < sim_link_lane_route_count; i++)
            if (sim_link_lane_routes[i].kind == kind)
                return true;
    return sim_bus_subs_want (&self->subs[sim_link_kinds[kind].sock], sim_link_kinds[kind].topic);
}

int
sim_link_batch (sim_link_t *self, bool open)
{
    self->batch = open;
    if (open || !self->lane)
        return 0;
    /* the batch goes to vision (the only paced lane) */
    const s_lane_route_t *route = &sim_link_lane_routes[0];
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

sim_link_pacing_t
sim_link_pacing (const sim_link_t *self)
{
    return self->pacing;
}

bool
sim_link_joined (sim_link_t *self)
{
    bool joined = self->joined;
    self->joined = false;
    return joined;
}

bool
sim_link_vision_joined (const sim_link_t *self)
{
    return self->vision_joined;
}

bool
sim_link_input_waiting (sim_link_t *self)
{
    if (self->lane && sim_lane_buffered (self->lane))
        return true;
    /* One poll(2) for both inputs; physics asks this every 16 substeps in
       fast mode, and asking the cmd socket (ZMQ_EVENTS) costs two system
       calls more. Its ZMQ_FD turns readable when something arrives after
       a look found nothing (cmd_idle), so only then, or while messages
       may wait unread, is the socket asked. The loop's wait looks too:
       what it found is marked until its dispatch reads it. */
    if (self->loop && sim_loop_ready (self->loop, "bus cmd"))
        return true;
    struct pollfd p[2] = { { zsock_fd (self->cmd), POLLIN, 0 },
                           { self->lane ? sim_lane_fd (self->lane) : -1, POLLIN, 0 } };
    int n = poll (p, self->lane ? 2 : 1, 0);
    if (n > 0 && (p[1].revents & POLLIN))
        return true;
    if (self->cmd_idle && !(n > 0 && p[0].revents))
        return false;
    bool waiting = (zsock_events (self->cmd) & ZMQ_POLLIN) != 0;
    self->cmd_idle = !waiting;
    return waiting;
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

bool
sim_link_requests_read (const sim_link_t *self)
{
    return self->lane && self->backlog_len == 0 && sim_lane_unread (self->lane) == 0;
}

int64_t
sim_link_wake_us (void *arg, int64_t now)
{
    sim_link_t *self = arg;
    if (self->lane && sim_lane_buffered (self->lane))
        return now;
    int64_t next = SIM_LOOP_NEVER;
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

static const char *const s_sock_names[] = { "cmd", "world", "frames" };

/* What CURVE this role's tcp sockets need (sim_curve.h), 0 with curve off
   or without a tcp endpoint: physics binds cmd and world; vision binds
   frames and subscribes to world; the others connect to all three. */
static unsigned
s_curve_needs (const sim_link_t *self)
{
    const sim_bus_cfg_t *b = &self->bus;
    if (!b->curve)
        return 0;
    switch (self->role) {
    case SIM_LINK_PHYSICS:
        return sim_curve_applies (b->cmd_bind) || sim_curve_applies (b->world_bind) ? SIM_CURVE_SERVE : 0;
    case SIM_LINK_VISION:
        return (sim_curve_applies (b->frames_bind) ? SIM_CURVE_SERVE : 0)
             | (sim_curve_applies (b->world_connect) ? SIM_CURVE_PHYSICS : 0);
    default:
        return (sim_curve_applies (b->cmd_connect) || sim_curve_applies (b->world_connect) ? SIM_CURVE_PHYSICS
                                                                                           : 0)
             | (sim_curve_applies (b->frames_connect) ? SIM_CURVE_VISION : 0);
    }
}

int
sim_link_secure (sim_link_t *self, s_sock_t sock)
{
    const char *endpoint = s_endpoint (self, sock);
    if (!self->curve || !sim_curve_applies (endpoint))
        return 0;
    zsock_t *s = *s_sock (self, sock);
    if (s_binds (self, sock))
        return sim_curve_serve (self->curve, s, s_sock_names[sock], endpoint);
    unsigned needs = s_curve_needs (self);
    if (!(needs & (sock == S_FRAMES ? SIM_CURVE_VISION : SIM_CURVE_PHYSICS))) {
        sim_error ("bus %s %s: no server key for this role's CURVE", s_sock_names[sock], endpoint);
        return -1;
    }
    sim_curve_client (self->curve, s, sock == S_FRAMES);
    return sim_curve_watch_client (self->curve, s, sock == S_FRAMES, s_sock_names[sock], endpoint);
}

/* The socket file of an ipc endpoint, or NULL (inproc, tcp). */
static const char *
s_ipc_file (const char *endpoint)
{
    return strncmp (endpoint, "ipc://", 6) == 0 ? endpoint + 6 : NULL;
}

/* Remember the file an ipc endpoint just bound made, so that the link
   removes it when it stops (libzmq leaves it behind). */
static void
s_remember_file (sim_link_t *self, s_sock_t sock)
{
    const char *file = s_ipc_file (s_endpoint (self, sock));
    struct stat st;
    if (file && stat (file, &st) == 0)
        self->bound_ino[sock] = (uint64_t) st.st_ino;
}

/* Remove the file this link's ipc endpoint made, if it is still that
   one: a service restarted at once may have bound the path again (a
   crashed one leaves its file, which the next bind replaces). */
static void
s_remove_file (sim_link_t *self, s_sock_t sock)
{
    const char *file = s_ipc_file (s_endpoint (self, sock));
    struct stat st;
    if (file && self->bound_ino[sock] && stat (file, &st) == 0 && S_ISSOCK (st.st_mode)
        && (uint64_t) st.st_ino == self->bound_ino[sock])
        unlink (file);
}

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
    if (sim_link_secure (self, sock))
        return -1;
    if (s_binds (self, sock)) {
        rc = zsock_bind (*s, "%s", endpoint) < 0 ? -1 : 0;
        if (rc == 0)
            s_remember_file (self, sock);
    } else
        rc = zsock_connect (*s, "%s", endpoint);
    if (rc) {
        sim_error ("cannot %s %s: %s", s_binds (self, sock) ? "bind" : "connect", endpoint,
                   zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
}

/* The sockets a role owns from the start (a receiver's SUBs come with its
   subscriptions). */
static int
s_open_role (sim_link_t *self)
{
    switch (self->role) {
    case SIM_LINK_PHYSICS:
        return s_open (self, S_CMD, ZMQ_ROUTER) || s_open (self, S_WORLD, ZMQ_XPUB);
    case SIM_LINK_VISION:
        return s_open (self, S_FRAMES, ZMQ_XPUB);
    default:
        return s_open (self, S_CMD, ZMQ_DEALER);
    }
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
    int rc = 0;
    unsigned needs = s_curve_needs (self);
    if (needs) {
        char err[SIM_STRING_MAX + 256];
        self->curve = sim_curve_new (&self->bus, needs, s_role_name (role), err, sizeof err);
        if (!self->curve) {
            sim_error ("%s", err);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = s_open_role (self);
    if (rc == 0 && self->lanes && sim_link_role_lane[role] >= 0
        && !(self->lane = sim_lane_new (cfg, (sim_lane_id_t) sim_link_role_lane[role])))
        rc = -1;
    if (rc) {
        sim_error ("the %s bus endpoint cannot start", s_role_name (role));
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
    free (self->flush_buf);
    sim_lane_destroy (&self->lane);
    free (self->arena_buf);
    /* unbind first: libzmq frees an inproc name only when it reaps the
       closed socket, and a service restarted at once binds it again */
    for (int s = S_CMD; s <= S_FRAMES; s++) {
        zsock_t **sock = s_sock (self, (s_sock_t) s);
        if (*sock && s_binds (self, (s_sock_t) s))
            zsock_unbind (*sock, "%s", s_endpoint (self, (s_sock_t) s));
        zsock_destroy (sock);
        s_remove_file (self, (s_sock_t) s); /* a clean stop leaves no socket file */
    }
    sim_curve_destroy (&self->curve); /* after its sockets: it may stop their monitors' reader */
    free (self);
    *self_p = NULL;
}
