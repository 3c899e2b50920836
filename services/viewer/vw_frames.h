/*  vw_frames.h - the vision packets the viewer draws: each camera's
    newest detection, decoded only when a page gets a "world".

    Vision publishes some 70 packets a second per camera; a page draws at
    most 60 worlds a second and often far fewer. So packets are kept as
    they came (the newest VW_FRAMES_RAW, copied), and vw_frames_newest
    decodes, newest first, only those that came since the last look, until
    every camera of the rig has its newest. Each decoded packet lives in a
    block of its own that only grows (an arena for protobuf-c), so a world
    costs about one decode per camera and no malloc per packet.

    Pure but for the allocator: no clock, no socket, no lock. The viewer's
    loop owns it (viewer.c).
*/
#ifndef VW_FRAMES_H_INCLUDED
#define VW_FRAMES_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "common/base/sim_params.h"

#define VW_FRAMES_RAW       16                /* newest vision packets kept undecoded */
#define VW_FRAMES_ARENA_MIN (64 * 1024)       /* a packet's block, usually */
#define VW_FRAMES_ARENA_MAX (4 * 1024 * 1024) /* a packet that needs more is not drawn */

typedef struct vw_frames_t vw_frames_t;

/* Nothing kept; NULL when out of memory. */
vw_frames_t *vw_frames_new (void);

/* Frees every packet and block. Nulls *self_p; safe twice. */
void vw_frames_destroy (vw_frames_t **self_p);

/* Keep a copy of one SSL_WrapperPacket's bytes `data[len]` as it came
   (not parsed yet). Returns 0, or -1 when out of memory (not kept). */
int vw_frames_keep (vw_frames_t *self, const uint8_t *data, size_t len);

/* Forget every camera's decoded detection; what is kept counts as seen
   (it is older than any world a page gets from now on). */
void vw_frames_forget (vw_frames_t *self);

/* Each camera's newest detection (an SSLWrapperPacket with a detection,
   by camera id; NULL for a camera with none), after decoding the packets
   kept since the last call until `camera_count` cameras have theirs.
   Written to frames[SIM_MAX_CAMERAS]; borrowed until the next call of
   vw_frames_newest, vw_frames_forget or vw_frames_destroy. */
void vw_frames_newest (vw_frames_t *self, int camera_count, const void *frames[SIM_MAX_CAMERAS]);

#endif
