/*  vis_sync.h - a sync step's packets on their way to the gateway: kept
    (the newest, within VIS_HELD_FRAMES and VIS_HELD_BYTES) until physics'
    StepDone arrives, then handed on in one FramesDone with physics' reply
    (sim_bus.proto), and sent by UDP after the answer (vision_internal.h,
    vis_held_t, says why).
*/
#ifndef VIS_SYNC_H_INCLUDED
#define VIS_SYNC_H_INCLUDED

#include "common/bus/sim_bus.h"
#include "vision_internal.h"

/* Keep packet `w` (copied) of sync step `step_id` for the gateway. The
   packets of an earlier step go out by UDP first, as does the oldest kept
   one when the bounds are reached. */
void vis_sync_keep (vis_service_t *self, uint64_t step_id, const ProtobufCBinaryData *w);

/* Queue every kept packet for UDP, oldest first, and forget them. */
void vis_sync_flush (vis_service_t *self);

/* The end of sync step msg->step_id: the gateway's whole answer in one
   message, the step's packets and physics' reply. Their UDP sends are
   due VIS_FLUSH_US later. */
void vis_sync_answer (vis_service_t *self, const Simbus__StepDone *msg);

#endif
