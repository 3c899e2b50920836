/*  vis_sync.c - a sync step's packets, kept for the gateway's answer and
    sent by UDP after it (vis_sync.h). */
#include "vis_sync.h"

#include <string.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "vis_send.h"

/* Send the oldest kept packet by UDP and forget it. */
static void
s_drop_oldest (vis_service_t *self)
{
    vis_held_t *step = &self->step;
    vis_send_packet (self, step->bytes, step->len[0]);
    size_t cut = step->len[0];
    memmove (step->bytes, step->bytes + cut, step->used - cut);
    step->used -= cut;
    step->count--;
    for (size_t i = 0; i < step->count; i++) {
        step->off[i] = step->off[i + 1] - cut;
        step->len[i] = step->len[i + 1];
    }
}

void
vis_sync_flush (vis_service_t *self)
{
    vis_held_t *step = &self->step;
    for (size_t i = 0; i < step->count; i++)
        vis_send_packet (self, step->bytes + step->off[i], step->len[i]);
    step->count = step->used = 0;
}

void
vis_sync_keep (vis_service_t *self, uint64_t step_id, const ProtobufCBinaryData *w)
{
    vis_held_t *step = &self->step;
    if (step->step_id != step_id) {
        vis_sync_flush (self); /* the last step's, or one whose end never came */
        step->step_id = step_id;
        /* kept for the gateway until its end */
        sim_loop_timer_set (self->loop, self->flush_timer, SIM_LOOP_NEVER);
    }
    if (w->len > VIS_HELD_BYTES) {
        vis_send_packet (self, w->data, w->len);
        return;
    }
    while (step->count == VIS_HELD_FRAMES || step->used + w->len > VIS_HELD_BYTES)
        s_drop_oldest (self);
    memcpy (step->bytes + step->used, w->data, w->len);
    step->off[step->count] = step->used;
    step->len[step->count++] = w->len;
    step->used += w->len;
}

void
vis_sync_answer (vis_service_t *self, const Simbus__StepDone *msg)
{
    vis_held_t *step = &self->step;
    ProtobufCBinaryData wrappers[VIS_HELD_FRAMES];
    size_t n = step->step_id == msg->step_id ? step->count : 0;
    for (size_t i = 0; i < n; i++)
        wrappers[i] = (ProtobufCBinaryData) { step->len[i], step->bytes + step->off[i] };
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = msg->step_id;
    done.time_ns = msg->time_ns;
    done.n_wrapper = n;
    done.wrapper = wrappers;
    done.reply = msg->reply;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done);
    if (sim_link_send (self->link, &env) <= 0)
        sim_debug ("the end of sync step %llu reached nobody", (unsigned long long) msg->step_id);
    /* the UDP sends wait: the gateway is about to answer on this core
       (physics waits for the next step on the other one) and would wait
       for them; they go out with the next step's first packet */
    sim_loop_timer_set (self->loop, self->flush_timer, zclock_usecs () + VIS_FLUSH_US);
}
