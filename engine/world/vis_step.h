/*  vis_step.h - vision's part of a step, the one rule the vision service
    and libsslsim share: advance the camera model to a snapshot's instant,
    take the frames it releases and encode each as an SSL_WrapperPacket
    (vis_codec). Both call this function, so a library world's packets
    are the service's by construction (the sync-vs-library system test
    only checks it).

    Pure: structs in, bytes out; no socket, no clock. The caller owns the
    model and the byte buffer, and does what its edge does with the
    packets: UDP, the bus and a log file in the service, the step's list
    in the library.
*/
#ifndef VIS_STEP_H_INCLUDED
#define VIS_STEP_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "common/base/sim_snapshot.h"
#include "engine/vision/vis_model.h"

#define VIS_STEP_MAX_RELEASED 32    /* frames encoded at one instant; later ones are dropped */
#define VIS_STEP_PACKET_MAX   16384 /* room for one packet (geometry included); a larger one is dropped */
/* packets of one instant: the frames and one geometry-only wrapper (realism.geometry_alone) */
#define VIS_STEP_MAX_PACKETS (VIS_STEP_MAX_RELEASED + 1)
/* a buffer that holds every packet of one instant */
#define VIS_STEP_BYTES ((size_t) VIS_STEP_MAX_PACKETS * VIS_STEP_PACKET_MAX)

/* One encoded packet. */
typedef struct {
    const vis_frame_t *frame; /* the model's, valid until its next advance or set_def;
                                 NULL for a geometry-only wrapper */
    size_t off, len;          /* the packet is buf[off .. off + len) */
} vis_step_packet_t;

/* What one instant released, encoded. */
typedef struct {
    int released; /* what vis_model_advance returned: frames released, -1 on allocation failure */
    int count;    /* packets in packet[], oldest frame first; a geometry-only wrapper
                     (realism.geometry_alone) just before the frame whose cadence it keeps */
    int lost;     /* released frames that found no VIS_STEP_PACKET_MAX of buf left */
    size_t used;  /* bytes of buf the packets take, from its start */
    vis_step_packet_t packet[VIS_STEP_MAX_PACKETS];
} vis_step_out_t;

/* Advance `model` to `snap` (vis_model_advance), then encode the frames it
   releases, oldest first and at most VIS_STEP_MAX_RELEASED, one after the
   other into buf[0 .. cap) (may be NULL when cap is 0), each given exactly
   VIS_STEP_PACKET_MAX bytes of room: a frame whose packet needs more is
   left out, one for which less than that is left is counted in out->lost.
   A cap of VIS_STEP_BYTES loses nothing. Fills *out; returns
   out->released. */
int vis_step_encode (vis_model_t *model, const sim_snapshot_t *snap, uint8_t *buf, size_t cap,
                     vis_step_out_t *out);

#endif
