/*  phys_hold.c - the clock held for vision, and the requests held with it
    (see phys_hold.h). */
#include "phys_hold.h"

#include <stdlib.h>
#include <string.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "phys_answer.h"
#include "phys_epoch.h"
#include "phys_publish.h"

void
phys_hold_begin (phys_service_t *self, bool resumed, int64_t now)
{
    /* realtime without a journal keeps no promise about its first frames
       (its clock is the wall's), so it does not wait; a replay is driven
       by its journal (phys_playback) */
    self->hold_clock =
        (self->user_journal || self->cfg.run.mode == SIM_MODE_FAST) && !resumed && !self->replay;
    self->hold_until_us = now + PHYS_HOLD_US;
}

bool
phys_hold_request (phys_service_t *self, Simbus__Envelope *env, const sim_link_from_t *from)
{
    if (!self->hold_clock || self->held_count >= PHYS_HELD_MAX)
        return false;
    /* kept with a copy of where it came from, to be answered later
       (without memory for the copy: applied now) */
    sim_link_from_t *kept = sim_link_from_dup (from);
    if (!kept)
        return false;
    self->held[self->held_count].from = kept;
    /* and the bytes it came in, for the journals (without them, or
       without memory, they pack it again) */
    size_t len;
    const uint8_t *wire = sim_link_received (self->link, &len);
    uint8_t *copy = wire ? malloc (len) : NULL;
    if (copy)
        memcpy (copy, wire, len);
    self->held[self->held_count].wire = copy;
    self->held[self->held_count].wire_len = copy ? len : 0;
    self->held[self->held_count++].env = env;
    return true;
}

bool
phys_hold_release (phys_service_t *self, int64_t now)
{
    bool joined = sim_link_vision_joined (self->link);
    if (!joined && now < self->hold_until_us)
        return false;
    if (!joined)
        sim_warn ("%s did not join within %d s; the clock starts without it",
                  sim_service_names[SIM_SERVICE_VISION], PHYS_HOLD_US / 1000000);
    self->hold_clock = false;
    phys_clock_init (&self->clock, self->cfg.run.mode, self->cfg.run.speed, phys_world_dt_ns (self->world),
                     now);
    phys_epoch_rebase (self, NULL); /* sim time starts now */
    self->config_due = true;
    phys_publish_config (self); /* before the first snapshot */
    phys_hold_flush (self, true);
    return true;
}

void
phys_hold_flush (phys_service_t *self, bool apply)
{
    for (int i = 0; i < self->held_count; i++) {
        if (apply)
            phys_answer_request (self, self->held[i].env->request, self->held[i].from, self->held[i].wire,
                                 self->held[i].wire_len);
        sim_link_from_destroy (&self->held[i].from);
        free (self->held[i].wire);
        simbus__envelope__free_unpacked (self->held[i].env, NULL);
    }
    self->held_count = 0;
}
