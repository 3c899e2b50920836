/*  vis_step.c - vision's part of a step: advance, then encode what is
    released (vis_step.h). */
#include "vis_step.h"

#include "vis_codec.h"

int
vis_step_encode (vis_model_t *model, const sim_snapshot_t *snap, uint8_t *buf, size_t cap,
                 vis_step_out_t *out)
{
    out->count = out->lost = 0;
    out->used = 0;
    out->released = vis_model_advance (model, snap);
    int released = out->released;
    if (released > VIS_STEP_MAX_RELEASED)
        released = VIS_STEP_MAX_RELEASED;
    for (int i = 0; i < released; i++) {
        if (cap - out->used < VIS_STEP_PACKET_MAX) {
            out->lost++;
            continue;
        }
        const vis_frame_t *frame = vis_model_released (model, i);
        /* vision-processor's geometry comes from a process of its own, in
           wrappers of their own; the camera-0 cadence stands for its timer */
        if (frame->geometry && vis_model_def (model)->realism.geometry_alone
            && out->count < VIS_STEP_MAX_PACKETS - 1) {
            size_t glen = vis_codec_geometry (model, buf + out->used, VIS_STEP_PACKET_MAX);
            if (glen) {
                out->packet[out->count++] = (vis_step_packet_t) { NULL, out->used, glen };
                out->used += glen;
            }
            if (cap - out->used < VIS_STEP_PACKET_MAX) {
                out->lost++;
                continue;
            }
        }
        size_t len = vis_codec_wrapper (model, frame, buf + out->used, VIS_STEP_PACKET_MAX);
        if (len == 0)
            continue;
        out->packet[out->count++] = (vis_step_packet_t) { frame, out->used, len };
        out->used += len;
    }
    return out->released;
}
