/*  sim_rng.h - seeded xoshiro256++ streams and the draw primitives of
    physics.md §11.2, shared by every service so all agree on each draw.

    A generator is a plain value (no allocation): embed it, copy it to
    checkpoint it. Streams are seeded from (seed, stream id); keyed
    generators from (seed, stream id, key a, key b), so a service that
    restarts draws the same numbers for the same key (ARCHITECTURE.md §4).
*/
#ifndef SIM_RNG_H_INCLUDED
#define SIM_RNG_H_INCLUDED

#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum {
    SIM_STREAM_VISION_NOISE = 1,
    SIM_STREAM_VISION_DROPOUT = 2,
    SIM_STREAM_PACKET_LOSS = 3,
    SIM_STREAM_SHUFFLE = 4,
    SIM_STREAM_PHYSICS = 5,
    SIM_STREAM_CALIBRATION = 6,
    SIM_STREAM_VISION_TIMING = 7, /* processing time per frame */
    SIM_STREAM_BALL_BURST = 8,    /* ball-loss burst starts per frame */
    SIM_STREAM_CAPTURE_JITTER = 9 /* capture instants (sim_schedule) */
} sim_stream_t;

typedef struct {
    uint64_t s[4];
} sim_rng_t;

/* Seeding, the draws and the normal pair are inline: vision seeds four
   keyed generators per capture and draws several numbers per detection,
   and a call cost about as much as each; inline, a constant stream's
   avalanche is folded at compile time. */

/* Seed stream `stream` from `seed` exactly as physics.md §11.2 lays out. */
static inline void
sim_rng_seed (sim_rng_t *rng, uint64_t seed, uint64_t stream)
{
    rng->s[0] = seed;
    rng->s[1] = stream * 0x9E3779B97F4A7C15ull;
    rng->s[2] = ~seed;
    rng->s[3] = stream ^ 0xD1B54A32D192ED03ull;
}

/* The splitmix64 avalanche of physics.md §11.2 (`--seed random`). */
static inline uint64_t
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

/* The next 64 bits of the stream. Inline, with sim_rng_uniform01 and
   sim_rng_chance: vision draws several per detection and a call costs as
   much as the draw. */
static inline uint64_t
sim_rng_next (sim_rng_t *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = ((s[0] + s[3]) << 23 | (s[0] + s[3]) >> 41) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return result;
}

/* Uniform in [0, 1) from the top 53 bits. */
static inline double
sim_rng_uniform01 (sim_rng_t *rng)
{
    return (double) (sim_rng_next (rng) >> 11) * 0x1.0p-53;
}

/* Seed a keyed generator: the same (seed, stream, key_a, key_b) always
   gives the same sequence, different keys independent-looking ones. */
static inline void
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

/* lo + u (hi - lo); returns lo without drawing when hi <= lo. */
double sim_rng_uniform (sim_rng_t *rng, double lo, double hi);
/* Box-Muller normal with deviation sigma; no draw and 0 when sigma <= 0. */
double sim_rng_normal (sim_rng_t *rng, double sigma);
/* One try of the Marsaglia polar method: u and v uniform in [-1, 1)
   into *u, *v, two draws; returns s = u^2 + v^2, a point to keep when
   0 < s < 1 (sim_rng_polar_kept). */
static inline double
sim_rng_polar_try (sim_rng_t *rng, double *u, double *v)
{
    /* exact: a 53-bit uniform doubled, less one */
    *u = 2 * sim_rng_uniform01 (rng) - 1;
    *v = 2 * sim_rng_uniform01 (rng) - 1;
    return *u * *u + *v * *v;
}
static inline bool
sim_rng_polar_kept (double s)
{
    return s < 1 && s != 0;
}
/* The factor sqrt (-2 ln s / s) that turns a kept point (u, v) into two
   unit normals u f and v f. Apart from the draws, so a caller with many
   points can take all their logs in one tight loop. */
static inline double
sim_rng_polar_scale (double s)
{
    return sqrt (-2 * log (s) / s);
}
/* Two independent normals with deviations sigma_a into *a and sigma_b
   into *b from one Marsaglia polar draw: a point uniform in the unit disc
   (2 uniforms a try, 1.27 tries on average) scaled by
   sqrt (-2 ln s / s), one log and one sqrt for the pair and no
   trigonometry, so about a third of the cost of two sim_rng_normal
   (other numbers). No draw and both 0 when neither sigma is > 0; a side
   whose sigma is <= 0 gets 0 (*a = u f sigma_a, *b = v f sigma_b, each
   product left to right). */
static inline void
sim_rng_normal_pair (sim_rng_t *rng, double sigma_a, double sigma_b, double *a, double *b)
{
    *a = *b = 0;
    if (!(sigma_a > 0) && !(sigma_b > 0))
        return;
    double u, v, s;
    do
        s = sim_rng_polar_try (rng, &u, &v);
    while (!sim_rng_polar_kept (s));
    double f = sim_rng_polar_scale (s);
    if (sigma_a > 0)
        *a = u * f * sigma_a;
    if (sigma_b > 0)
        *b = v * f * sigma_b;
}
/* No draw for p <= 0 (false) or p >= 1 (true); else u < p. */
static inline bool
sim_rng_chance (sim_rng_t *rng, double p)
{
    if (!(p > 0))
        return false;
    if (p >= 1)
        return true;
    return sim_rng_uniform01 (rng) < p;
}
/* sim_rng_chance (rng, p) for a p drawn against many times, made ready
   once: u = k 2^-53 with k the draw's top 53 bits, so u < p exactly when
   k < ceil (p 2^53) (p 2^53 is exact, a power-of-two scale of p < 1).
   Returns 0 for p <= 0 or NaN (never, no draw), UINT64_MAX for p >= 1
   (always, no draw), else that bound in [1, 2^53]. */
static inline uint64_t
sim_rng_odds (double p)
{
    if (!(p > 0))
        return 0;
    if (p >= 1)
        return UINT64_MAX;
    /* ceil without libm's call: the scaled p is below 2^53, so its
       truncation is exact and short of it only by a fraction */
    double scaled = p * 0x1.0p53;
    uint64_t bound = (uint64_t) scaled;
    return (double) bound < scaled ? bound + 1 : bound;
}
/* sim_rng_chance with odds from sim_rng_odds: the same draws, the same
   answers, an integer compare instead of a conversion. */
static inline bool
sim_rng_chance_odds (sim_rng_t *rng, uint64_t odds)
{
    if (odds == 0)
        return false;
    if (odds == UINT64_MAX)
        return true;
    return (sim_rng_next (rng) >> 11) < odds;
}
/* Fisher-Yates over n elements of `size` bytes, last index down. */
void sim_rng_shuffle (sim_rng_t *rng, void *base, size_t n, size_t size);

#endif
