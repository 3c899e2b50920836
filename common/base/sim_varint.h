/*  sim_varint.h - protobuf's base-128 varint, written: the size of one and
    the writer. Where bytes are put down by hand rather than by protobuf-c
    (the gateway's wire helpers, the vision codec's detection writer), both
    use these, so a varint is written one way everywhere.
*/
#ifndef SIM_VARINT_H_INCLUDED
#define SIM_VARINT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* Bytes v takes as a varint (1..10). */
static inline size_t
sim_varint_size (uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Write v as a varint at p (room for sim_varint_size (v) bytes); returns
   the byte after it. */
static inline uint8_t *
sim_varint_put (uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t) (v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t) v;
    return p;
}

#endif
