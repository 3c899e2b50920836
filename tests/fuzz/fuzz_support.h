/*  fuzz_support.h - what the libFuzzer harnesses of tests/fuzz share: a
    fresh physics world and configuration per input, physics' handling of a
    bus request, the gateway's forwarding of a decoded datagram to physics,
    and every receiver's handling of a bus envelope.

    The gateway's decode and request translation are called as the
    gateway calls them (services/gateway/gw_translate.h). The services'
    other handlers are static functions of their actors, reachable only
    through sockets, so these helpers make the same library calls in the
    same order (services/physics/physics.c s_handle_request, the
    gateway's s_handle_reply, the codecs' decoders). Whatever they
    find wrong aborts: libFuzzer reports an abort as a crash.
*/
#ifndef FUZZ_SUPPORT_H_INCLUDED
#define FUZZ_SUPPORT_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "common/base/sim_schedule.h"
#include "bus/sim_bus.pb-c.h"
#include "engine/physics/phys_world.h"
#include "engine/world/phys_apply.h"

/* Substeps a request may run in a harness: a sync request asks for up to
   10 s (10 000 substeps), far too slow per input; a few show what the
   applied state does to the core. */
#define FZ_STEPS_MAX 4

/* Physics as s_new makes it from the default configuration. */
typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_schedule_t *schedule;
    uint64_t config_serial;
    phys_feedback_t *feedback; /* a reply's feedback (100 KB), reused */
} fz_physics_t;

/* Once per process: log only errors (a fuzzer makes every warning
   millions of times). */
void fz_init (void);

/* A fresh physics; aborts when it cannot be made (a harness bug). */
void fz_physics_init (fz_physics_t *self);
void fz_physics_fini (fz_physics_t *self);

/* Physics' handling of request `req`: the command and the team's robot
   control applied in protocol order, the configuration republished and
   read back as every other service reads it (aborts when it does not
   load: the effective configuration must always load), a rig change
   rescheduled, up to FZ_STEPS_MAX substeps, and the reply packed. */
void fz_physics_request (fz_physics_t *self, const Simbus__Request *req);

/* What the gateway sends for a datagram: `req` packed into a lane record
   as sim_link_send packs it, decoded as physics decodes it, handled by
   fz_physics_request. Returns 0, or -1 when physics cannot decode what
   the gateway sent (issue 11: such a request is never answered). */
int fz_forward (fz_physics_t *self, Simbus__Request *req);

/* The gateway's handling of one datagram on `port` (0 control, 1 blue,
   2 yellow; gateway.c s_handle_datagram): the datagram decoded and its
   bus request built by gw_translate, forwarded to a fresh physics, a sync answer assembled from
   what the gateway knows alone; an undecodable datagram answered
   UNREADABLE. Returns fz_forward's result (0 when nothing was
   forwarded). */
int fz_datagram (int port, const uint8_t *data, size_t size);

/* True when SSL_SIM_FUZZ_STRICT=1: the harnesses then also abort on the
   defects issue 11 reported and that are still open (tests/fuzz/README.md). */
bool fz_strict (void);

/* Every receiver's handling of `env` (taken): a request as physics
   handles it; snapshots, events and configuration through the codec's
   decoders; a reply or a sync step's end as the gateway keeps them for a
   pending sync request (gw_pending) and answers it (gw_sync_answer). */
void fz_receive (fz_physics_t *self, Simbus__Envelope *env);

#endif
