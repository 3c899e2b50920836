/*  sim_service_test.h - helpers for the service tests (tests/service/):
    one service actor runs in the test process over inproc endpoints, and
    the test plays the services around it with fake peers.

    A fake peer is a real bus endpoint (sim_link) of some role, attached
    to a loop of its own that the test pumps while it waits: every message
    it receives is queued, and the test takes them by kind, in arrival
    order, with a deadline. Nothing here sleeps: every wait is a bounded
    poll of the peer's inputs.
*/
#ifndef SIM_SERVICE_TEST_H_INCLUDED
#define SIM_SERVICE_TEST_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/config/sim_config.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_service.h"
#include "bus/sim_bus.pb-c.h"

/* Defaults for a service test: `mode`, [bus] lanes = `lanes`, sync_timeout
   0.2 s, inproc endpoints named after this process and `name` (Criterion
   runs each test in a process of its own), every UDP port a free one on
   127.0.0.1, vision to 127.0.0.1 at a free port (run.localhost), log
   level "warn". Returns 0, or -1 when no free port or endpoint was found. */
int sim_svc_config (sim_config_t *cfg, const char *name, sim_mode_t mode, bool lanes);

/* Start `fn` (a *_service_actor) with `cfg` (copied). Returns the actor
   (destroy it with zactor_destroy: $TERM), or NULL when it failed. */
zactor_t *sim_svc_start (zactor_fn *fn, const sim_config_t *cfg);

typedef struct sim_svc_peer_t sim_svc_peer_t;

/* A fake service of `role` on the bus of `cfg`, not yet subscribed to
   anything (see sim_svc_peer_subscribe). NULL on failure. */
sim_svc_peer_t *sim_svc_peer_new (const sim_config_t *cfg, sim_link_role_t role);

/* Close the peer and free what it still holds; nulls *self_p. Safe twice. */
void sim_svc_peer_destroy (sim_svc_peer_t **self_p);

/* The peer's link (borrowed), to send with sim_link_send. */
sim_link_t *sim_svc_peer_link (sim_svc_peer_t *self);

/* sim_link_subscribe for the peer; returns its result. */
int sim_svc_peer_subscribe (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind);

/* Pump the peer's loop up to timeout_ms: one wait and dispatch. Returns
   the number of ready inputs (0 on timeout). */
int sim_svc_peer_pump (sim_svc_peer_t *self, int timeout_ms);

/* The oldest received message of `kind`, waiting up to timeout_ms for
   one; messages of other kinds stay queued. The envelope is the
   caller's: free it with simbus__envelope__free_unpacked (env, NULL).
   NULL on timeout. A Request taken here becomes the one
   sim_svc_peer_reply answers. */
Simbus__Envelope *sim_svc_peer_wait (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind, int timeout_ms);

/* Messages of `kind` received and not taken yet; pumps without waiting
   first. */
int sim_svc_peer_count (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind);

/* Free every queued message of `kind` (SIMBUS__ENVELOPE__BODY__NOT_SET:
   of every kind); returns how many. */
int sim_svc_peer_drop (sim_svc_peer_t *self, Simbus__Envelope__BodyCase kind);

/* A physics peer: answer the Request last taken by sim_svc_peer_wait with
   `reply` (borrowed), again and again if the test wants. The peer keeps
   where the request came from, since sim_link_from_t is valid only in
   the link's handler. Returns sim_link_reply's result, -1 when no
   request was taken yet. */
int sim_svc_peer_reply (sim_svc_peer_t *self, Simbus__Reply *reply);

/* A physics peer: pump up to timeout_ms until a receiver joined
   (sim_link_joined) and every kind in kinds[n] is wanted
   (sim_link_wanted). Returns true when so. */
bool sim_svc_peer_wait_joined (sim_svc_peer_t *self, const Simbus__Envelope__BodyCase *kinds, int n,
                               int timeout_ms);

/* A physics peer: publish `cfg` as the effective configuration with
   `serial`. Returns sim_link_send's result (-1 when it cannot encode). */
int sim_svc_peer_send_config (sim_svc_peer_t *self, const sim_config_t *cfg, uint64_t serial);

/* Wrap `body` as an envelope of `kind` and send it; as sim_link_send. */
int sim_svc_send (sim_link_t *link, Simbus__Envelope__BodyCase kind, void *body);

/* The first error code of errors[n] equal to `code`: true when found. */
struct SimulatorError;
bool sim_svc_has_error (struct SimulatorError *const *errors, size_t n, const char *code);

#endif
