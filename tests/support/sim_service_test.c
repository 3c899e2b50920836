/*  sim_service_test.c - service test helpers (see sim_service_test.h). */
#include "sim_service_test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "sim_test.h"
#include "ssl_simulation_error.pb-c.h"

#define S_QUEUE_MAX 4096 /* messages a peer holds before it drops the oldest */

int
sim_svc_config (sim_config_t *cfg, const char *name, sim_mode_t mode, bool lanes)
{
    sim_config_defaults (cfg);
    cfg->run.mode = mode;
    cfg->bus.lanes = lanes;
    cfg->bus.sync_timeout = 0.2;
    snprintf (cfg->run.log_level, sizeof cfg->run.log_level, "warn");
    snprintf (cfg->network.bind_address, sizeof cfg->network.bind_address, "127.0.0.1");
    int *ports[] = { &cfg->network.control_port,
                     &cfg->network.blue_port,
                     &cfg->network.yellow_port,
                     &cfg->network.legacy_port,
                     &cfg->network.legacy_status_port_blue,
                     &cfg->network.legacy_status_port_yellow,
                     &cfg->network.truth_port };
    for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++)
        if ((*ports[i] = sim_test_free_port ()) <= 0)
            return -1;
    int vision_port = sim_test_free_port ();
    if (vision_port <= 0)
        return -1;
    snprintf (cfg->run.vision_addr, sizeof cfg->run.vision_addr, "127.0.0.1:%d", vision_port);
    cfg->run.localhost = true;
    char prefix[64];
    snprintf (prefix, sizeof prefix, "svc-%s-%d", name, (int) getpid ());
    return sim_bus_resolve (cfg, prefix);
}

zactor_t *
sim_svc_start (zactor_fn *fn, const sim_config_t *cfg)
{
    sim_service_args_t args = { .replay = NULL };
    args.cfg = *cfg;
    return sim_service_start (fn, &args);
}

/* ---- fake peers ------------------------------------------------------- */

struct sim_svc_peer_t {
    sim_link_t *link;
    sim_loop_t *loop;
    zlist_t *queue; /* Simbus__Envelope *, oldest first */
    /* where requests came from, in the order they are queued */
    zlist_t *froms;           /* s_from_t * */
    struct s_from_t *current; /* of the request last taken */
    bool joined;
};

typedef struct s_from_t {
    Simbus__Envelope *env; /* the request it belongs to (not owned) */
    sim_link_from_t *from; /* owned copy */
} s_from_t;

static void
s_from_destroy (s_from_t **from_p)
{
    s_from_t *from = *from_p;
    if (!from)
        return;
    sim_link_from_destroy (&from->from);
    free (from);
    *from_p = NULL;
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    sim_svc_peer_t *self = arg;
    if (zlist_size (self->queue) >= S_QUEUE_MAX) {
        Simbus__Envelope *old = zlist_pop (self->queue);
        simbus__envelope__free_unpacked (old, NULL);
    }
    if (env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST && from) {
        s_from_t *copy = calloc (1, sizeof *copy);
        if (!copy)
            return false;
        copy->env = env;
        if (!(copy->from = sim_link_from_dup (from))) {
            free (copy);
            return false;
        }
        zlist_append (self->froms, copy);
    }
    zlist_append (self->queue, env);
    return true;
}

sim_svc_peer_t *
sim_svc_peer_new (const sim_config_t *cfg, sim_link_role_t role)
{
    sim_svc_peer_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->link = sim_link_new (cfg, role);
    self->loop = sim_loop_new ();
    self->queue = zlist_new ();
    self->froms = zlist_new ();
    if (!self->link || !self->loop || !self->queue || !self->froms
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)) {
        sim_svc_peer_destroy (&self);
        return NULL;
    }
    return self;
}

void
sim_svc_peer_destroy (sim_svc_peer_t **self_p)
{
    sim_svc_peer_t *self = *self_p;
    if (!self)
        return;
    if (self->queue)
        sim_svc_peer_drop (self, SIMBUS__ENVELOPE__BODY__NOT_SET);
    s_from_destroy (&self->current);
    while (self->froms && zlist_size (self->froms)) {
        s_from_t *from = zlist_pop (self->froms);
        s_from_destroy (&from);
    }
    zlist_destroy (&self->queue);
    zlist_destroy (&self->froms);
    sim_loop_destroy (&self->loop);
    sim_link_destroy (&self->link);
    free (self);
    *self_p = NULL;
}

sim_link_t *
sim_svc_peer_link (sim_svc_peer_t *self)
{
    return self->link;
}

int
sim_svc_peer_subscribe (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind)
{
    return sim_link_subscribe (self->link, kind);
}

int
sim_svc_peer_pump (sim_svc_peer_t *self, int timeout_ms)
{
    /* the link may need a turn of its own (a hello, the rest of a lane
       datagram): never wait past it */
    int64_t now = zclock_usecs ();
    int link_ms = sim_loop_timeout_ms (now, sim_loop_next (self->loop, now));
    if (link_ms >= 0 && link_ms < timeout_ms)
        timeout_ms = link_ms;
    int ready = sim_loop_wait (self->loop, timeout_ms);
    sim_loop_dispatch (self->loop);
    if (sim_link_joined (self->link))
        self->joined = true;
    return ready;
}

/* The queued message of `kind` (oldest), removed from the queue; NULL. */
static Simbus__Envelope *
s_take (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind)
{
    for (Simbus__Envelope *env = zlist_first (self->queue); env; env = zlist_next (self->queue))
        if (env->body_case == kind) {
            zlist_remove (self->queue, env);
            return env;
        }
    return NULL;
}

/* The copy of where `env` came from, removed from the list; NULL. */
static s_from_t *
s_take_from (sim_svc_peer_t *self, const Simbus__Envelope *env)
{
    for (s_from_t *from = zlist_first (self->froms); from; from = zlist_next (self->froms))
        if (from->env == env) {
            zlist_remove (self->froms, from);
            return from;
        }
    return NULL;
}

Simbus__Envelope *
sim_svc_peer_wait (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind, int timeout_ms)
{
    int64_t end = zclock_mono () + timeout_ms;
    while (true) {
        Simbus__Envelope *env = s_take (self, kind);
        if (env) {
            if (kind == SIMBUS__ENVELOPE__BODY_REQUEST) {
                s_from_destroy (&self->current);
                self->current = s_take_from (self, env);
            }
            return env;
        }
        int64_t left = end - zclock_mono ();
        if (left <= 0)
            return NULL;
        sim_svc_peer_pump (self, (int) left);
    }
}

int
sim_svc_peer_count (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind)
{
    sim_svc_peer_pump (self, 0);
    int n = 0;
    for (Simbus__Envelope *env = zlist_first (self->queue); env; env = zlist_next (self->queue))
        n += env->body_case == kind;
    return n;
}

int
sim_svc_peer_drop (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind)
{
    int n = 0;
    Simbus__Envelope *env = zlist_first (self->queue);
    while (env) {
        Simbus__Envelope *next = zlist_next (self->queue);
        if (kind == SIMBUS__ENVELOPE__BODY__NOT_SET || env->body_case == kind) {
            zlist_remove (self->queue, env);
            s_from_t *from = s_take_from (self, env);
            s_from_destroy (&from);
            simbus__envelope__free_unpacked (env, NULL);
            n++;
            /* zlist_remove resets the cursor: start again */
            next = zlist_first (self->queue);
        }
        env = next;
    }
    return n;
}

int
sim_svc_peer_reply (sim_svc_peer_t *self, Simbus__Reply *reply)
{
    if (!self->current)
        return -1;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, reply);
    return sim_link_reply (self->link, self->current->from, &env);
}

bool
sim_svc_peer_wait_joined (sim_svc_peer_t *self, const Simbus__Envelope__BodyCase *kinds, int n,
                          int timeout_ms)
{
    int64_t end = zclock_mono () + timeout_ms;
    while (true) {
        bool wanted = self->joined;
        for (int i = 0; wanted && i < n; i++)
            wanted = sim_link_wanted (self->link, kinds[i]);
        if (wanted) {
            self->joined = false;
            return true;
        }
        int64_t left = end - zclock_mono ();
        if (left <= 0)
            return false;
        sim_svc_peer_pump (self, (int) left);
    }
}

int
sim_svc_peer_send_config (sim_svc_peer_t *self, const sim_config_t *cfg, uint64_t serial)
{
    sim_bus_config_msg_t msg;
    Simbus__Envelope *env = sim_bus_config_encode (&msg, cfg, serial);
    int rc = env ? sim_link_send (self->link, env) : -1;
    sim_bus_config_msg_release (&msg);
    return rc;
}

int
sim_svc_send (sim_link_t *link, Simbus__Envelope__BodyCase kind, void *body)
{
    Simbus__Envelope env;
    sim_bus_wrap (&env, kind, body);
    return sim_link_send (link, &env);
}

bool
sim_svc_has_error (SimulatorError *const *errors, size_t n, const char *code)
{
    for (size_t i = 0; i < n; i++)
        if (errors[i]->code && strcmp (errors[i]->code, code) == 0)
            return true;
    return false;
}
