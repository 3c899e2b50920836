/*  sim_rng.c - xoshiro256++ and the spec's draw primitives. */
#include "sim_rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

double
sim_rng_uniform (sim_rng_t *rng, double lo, double hi)
{
    if (!(hi > lo))
        return lo;
    return lo + sim_rng_uniform01 (rng) * (hi - lo);
}

double
sim_rng_normal (sim_rng_t *rng, double sigma)
{
    if (!(sigma > 0))
        return 0;
    double u1;
    do
        u1 = sim_rng_uniform01 (rng);
    while (u1 <= DBL_MIN);
    double u2 = sim_rng_uniform01 (rng);
    return sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2) * sigma;
}

void
sim_rng_shuffle (sim_rng_t *rng, void *base, size_t n, size_t size)
{
    if (n < 2)
        return;
    unsigned char *a = base;
    unsigned char tmp[256];
    for (size_t i = n - 1; i >= 1; i--) {
        size_t j = (size_t) (sim_rng_uniform01 (rng) * (double) (i + 1));
        if (j > i)
            j = i;
        if (j == i)
            continue;
        /* elements larger than the bounce buffer are swapped in chunks */
        for (size_t off = 0; off < size; off += sizeof tmp) {
            size_t len = size - off < sizeof tmp ? size - off : sizeof tmp;
            memcpy (tmp, a + i * size + off, len);
            memcpy (a + i * size + off, a + j * size + off, len);
            memcpy (a + j * size + off, tmp, len);
        }
    }
}
