/*  vis_wire.h - a detection-only SSL_WrapperPacket (no geometry) written
    byte for byte as protobuf-c packs it, without walking its descriptors:
    the vision frame's hot path (vis_codec.c calls it; the geometry and
    the other packets keep protobuf-c).
*/
#ifndef VIS_WIRE_H_INCLUDED
#define VIS_WIRE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "ssl_vision_wrapper.pb-c.h"

/* The wrapper w (a detection, no geometry) into buf: its byte count, or 0
   when cap is too small. */
size_t vis_wire_detection (const SSLWrapperPacket *w, uint8_t *buf, size_t cap);

#endif
