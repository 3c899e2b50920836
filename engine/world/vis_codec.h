/*  vis_codec.h - protobuf encoding of the vision model's output at the
    service edge (spec/vision.md §8-§10): SSL_WrapperPacket per released
    frame, with geometry when the frame carries it, and the ground-truth
    TrackerWrapperPacket. Converts SI units to the wire's mm.
*/
#ifndef VIS_CODEC_H_INCLUDED
#define VIS_CODEC_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "engine/vision/vis_model.h"

/* Source name of the ground-truth stream (vision.md §10); its uuid is
   per instance (vis_truth_uuid). */
#define VIS_TRUTH_SOURCE_NAME "ssl-sim-truth"

/* Largest wrapper a frame can need is well under this; size buffers with it. */
#define VIS_CODEC_MAX_PACKET 65536

/* Encode a released frame as an SSL_WrapperPacket (detection, plus the
   geometry of the model's current field and rig when frame->geometry,
   source SSL_SOURCE_OTHER) into buf. Returns the byte count, 0 if cap is
   too small. */
size_t vis_codec_wrapper (const vis_model_t *model, const vis_frame_t *frame, uint8_t *buf, size_t cap);

/* vis_codec_wrapper by protobuf-c's pack alone: the same bytes (the
   direct writer's reference, for its test). */
size_t vis_codec_wrapper_general (const vis_model_t *model, const vis_frame_t *frame, uint8_t *buf,
                                  size_t cap);

/* Encode an SSL_WrapperPacket that carries only the geometry (no
   detection), e.g. for tools. Returns the byte count, 0 if cap is too
   small. */
size_t vis_codec_geometry (const vis_model_t *model, uint8_t *buf, size_t cap);

/* Encode the ground-truth TrackerWrapperPacket for `snap` with frame
   number vis_model_truth_frame_number(model), timestamp sim time plus
   timestamp_epoch_offset (which the service sets to include the Unix
   base) and source id `uuid` (borrowed). Returns the byte count, 0 if cap
   is too small. */
size_t vis_codec_truth (const vis_model_t *model, const sim_snapshot_t *snap, const char *uuid, uint8_t *buf,
                        size_t cap);

#endif
