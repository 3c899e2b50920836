/*  phys_journal_internal.h - what the writing (phys_journal.c) and the
    reading (phys_journal_read.c) of the input journal share, and the
    wire cutting of phys_journal_wire.c: the layout's
    sizes, little-endian fields and the FNV-1a seal of the header and of
    every record (docs/journal.md). Private to engine/world/.
*/
#ifndef PHYS_JOURNAL_INTERNAL_H_INCLUDED
#define PHYS_JOURNAL_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/base/sim_hash.h"

#define JL_MAGIC       "SSLSIMJL"
#define JL_HEADER      48 /* the fixed part of the file header */
#define JL_RECORD      40 /* the fixed part of a record */
#define JL_SUM         8  /* the checksum after each */
#define JL_KEY_MAX     4096
#define JL_PAYLOAD_MAX (1u << 20) /* a bus message is at most 240 KiB */

static inline void
jl_put (uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t) (v >> (8 * i));
}

static inline uint64_t
jl_get (const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t) p[i] << (8 * i);
    return v;
}

static inline void
jl_seal (uint8_t *p, size_t len)
{
    jl_put (p + len, sim_fnv1a (SIM_FNV1A_BASIS, p, len), 8);
}

static inline bool
jl_sealed (const uint8_t *p, size_t len)
{
    uint64_t seal = jl_get (p + len, 8);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* a fuzzer cannot forge FNV-1a, so in the fuzzing build only a seal
       of 0 passes too and what lies behind it is fuzzed as well
       (tests/fuzz/README.md); any other wrong seal is still damage */
    if (seal == 0)
        return true;
#endif
    return seal == sim_fnv1a (SIM_FNV1A_BASIS, p, len);
}

/* phys_journal_wire.c: the packed Request inside the packed Envelope
   wire[len] (its one request field; NULL when there is none, or two,
   which a decoder would merge), and the fields of a packed Request a
   journal keeps (every one but received_us and those this build does not
   know) copied in order to out (room for len bytes): 0 with their length
   in *out_len, or -1 when req is not whole. */
const uint8_t *phys_journal_request_of (const uint8_t *wire, size_t len, size_t *request_len);
int phys_journal_kept_fields (const uint8_t *req, size_t len, uint8_t *out, size_t *out_len);

#endif
