/*  sim_hash.h - FNV-1a 64, the project's one non-cryptographic hash: the
    checksum of checkpoints and journal records, the physics state hash,
    the truth uuid and the names of inproc lanes. Not for anything an
    attacker chooses to collide. */
#ifndef SIM_HASH_H_INCLUDED
#define SIM_HASH_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define SIM_FNV1A_BASIS 0xcbf29ce484222325ull

/* FNV-1a 64 of len bytes at data, continuing from h (start from
   SIM_FNV1A_BASIS). */
static inline uint64_t
sim_fnv1a (uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
