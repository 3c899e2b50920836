/*  sim_rng.c - xoshiro256++ and the spec's draw primitives. */
#include "sim_rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

void
sim_rng_seed (sim_rng_t *rng, uint64_t seed, uint64_t stream)
{
    rng->s[0] = seed;
    rng->s[1] = stream * 0x9E3779B97F4A7C15ull;
    rng->s[2] = ~seed;
    rng->s[3] = stream ^ 0xD1B54A32D192ED03ull;
}

uint64_t
sim_rng_avalanche (uint64_t x)
{
    x ^= 0x9E3779B97F4A7C15ull;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

void
sim_rng_seed_keyed (sim_rng_t *rng, uint64_t seed, uint64_t stream, uint64_t key_a, uint64_t key_b)
{
    /* Fold the keys into the seed through the avalanche so that nearby keys
       (consecutive frame numbers) start far apart in state space. */
    uint64_t mixed = sim_rng_avalanche (
        seed ^ sim_rng_avalanche (key_a ^ sim_rng_avalanche (key_b ^ sim_rng_avalanche (stream))));
    sim_rng_seed (rng, mixed, stream);
    /* The first outputs of a freshly seeded xoshiro are weakly mixed. */
    for (int i = 0; i < 4; i++)
        sim_rng_next (rng);
}

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
sim_rng_normal_pair (sim_rng_t *rng, double sigma_a, double sigma_b, double *a, double *b)
{
    *a = *b = 0;
    if (!(sigma_a > 0) && !(sigma_b > 0))
        return;
    double u, v, s;
    do {
        /* exact: a 53-bit uniform doubled, less one */
        u = 2 * sim_rng_uniform01 (rng) - 1;
        v = 2 * sim_rng_uniform01 (rng) - 1;
        s = u * u + v * v;
    } while (!(s < 1) || s == 0);
    double f = sqrt (-2 * log (s) / s);
    if (sigma_a > 0)
        *a = u * f * sigma_a;
    if (sigma_b > 0)
        *b = v * f * sigma_b;
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
