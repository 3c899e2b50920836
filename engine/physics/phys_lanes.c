/*  phys_lanes.c - the robot phase a register of robots at a time: the
    scalar path of phys_robot_phase.c (phys_limiter_kernel, phys_drive_kernel,
    the integration and the turn) with one robot per lane, four lanes on
    AVX2, eight on AVX-512 (one body, phys_lanes_kernel.h, compiled for
    each). Where the scalar path branches, both sides are computed and the
    lane's side is selected, so every lane sees the scalar path's
    operations on its own values in the same order: the same bits.
*/
#include "phys_lanes.h"

#include <assert.h>
#include <stddef.h>

#include "phys_drive.h"
#include "common/base/sim_math.h"

#ifdef SIM_MATH_AVX2

#define S_OFF(field) offsetof (phys_robot_t, field)

/* The robots' fields come in rows: fields that follow each other in
   phys_robot_t are loaded per robot, two doubles at a time, and
   transposed into a register per field (cheaper than a gather per
   field); the stores transpose back. The rows: */
#define S_ROW(a, b, n) \
    _Static_assert(offsetof (phys_robot_t, b) == offsetof (phys_robot_t, a) + (n) * sizeof (double), \
                   #a " .. " #b " in a row")
S_ROW (specs.limits.acc_speedup_absolute_max, specs.limits.vel_angular_max, 5);
S_ROW (coast[0], coast[1], 1);
S_ROW (wheels.s, wheels.c, 4);
S_ROW (wheels.c, wheels.mount, 4);
S_ROW (wheels.mount, drive_k.Fl, 1);
S_ROW (drive_k.Fl, drive_k.kv, 3);
S_ROW (drive_k.kv, inv_inertia, 2);
S_ROW (x, st, 7);
S_ROW (st, sp, 1);

enum { S_X, S_Y, S_THETA, S_VX, S_VY, S_OMEGA, S_CT, S_ST };

/* The rows of phys_world_t.lane_consts: the fields of the robot rows above
   in their order (limits: speedup absolute, angular, brake absolute,
   angular, velocity absolute, angular; coast linear, angular; wheels s[4],
   c[4], mount; drive_k Fl, fmax, umax, kv; inv_mass, inv_inertia). */
enum {
    S_C_LIMITS = 0,
    S_C_COAST = 6,
    S_C_WS = 8,
    S_C_WC = 12,
    S_C_MOUNT = 16, /* mount, Fl */
    S_C_FMAX = 18,  /* fmax, umax */
    S_C_KV = 20,
    S_C_INV = 21, /* inv_mass, inv_inertia */
    S_C_COUNT = 23
};
_Static_assert(S_C_COUNT == PHYS_LANE_CONSTS, "the lane constants' rows");

/* w->lane_consts from its robots: column r robot r, or the last robot
   past it. */
static void
s_consts (phys_world_t *w)
{
    int n = w->robot_count < PHYS_LANE_ROBOTS ? w->robot_count : PHYS_LANE_ROBOTS;
    for (int r = 0; r < PHYS_LANE_ROBOTS && n > 0; r++) {
        const char *p = (const char *) &w->robots[r < n ? r : n - 1];
        const double *lim = (const double *) (p + S_OFF (specs.limits.acc_speedup_absolute_max));
        const double *coast = (const double *) (p + S_OFF (coast[0]));
        const double *wheels = (const double *) (p + S_OFF (wheels.s));
        for (int f = 0; f < 6; f++)
            w->lane_consts[S_C_LIMITS + f][r] = lim[f];
        for (int f = 0; f < 2; f++)
            w->lane_consts[S_C_COAST + f][r] = coast[f];
        for (int f = 0; f < S_C_COUNT - S_C_WS; f++)
            w->lane_consts[S_C_WS + f][r] = wheels[f];
    }
    w->lane_consts_valid = true;
}

/* the most lanes a register phys_lanes_set_width allows, 0 for no limit */
static int s_width;

bool
phys_lanes_supported (void)
{
    return sim_math_have_avx2 ();
}

/* ---- four lanes: AVX2 ------------------------------------------------- */

#define S_T              SIM_MATH_AVX2_TARGET
#define S_W              4
#define V                __m256d
#define M                __m256d
#define S_NAME(f)        f##_4
#define S_ADD            _mm256_add_pd
#define S_SUB            _mm256_sub_pd
#define S_MUL            _mm256_mul_pd
#define S_DIV            _mm256_div_pd
#define S_SQRT           _mm256_sqrt_pd
#define S_MINV           _mm256_min_pd
#define S_MAXV           _mm256_max_pd
#define S_XOR            _mm256_xor_pd
#define S_ANDNOT         _mm256_andnot_pd /* ~a & b */
#define S_SET1           _mm256_set1_pd
#define S_ZERO           _mm256_setzero_pd
#define S_LOADU          _mm256_loadu_pd
#define S_STOREU         _mm256_storeu_pd
#define S_GT(a, b)       _mm256_cmp_pd (a, b, _CMP_GT_OQ)
#define S_LE(a, b)       _mm256_cmp_pd (a, b, _CMP_LE_OQ)
#define S_NEQ(a, b)      _mm256_cmp_pd (a, b, _CMP_NEQ_UQ)
#define S_MAND           _mm256_and_pd
#define S_MANDNOT        _mm256_andnot_pd
#define S_ANY(m)         (_mm256_movemask_pd (m) != 0)
#define S_ALL(m)         (_mm256_movemask_pd (m) == 0xf)
#define S_MASK64(p)      _mm256_castsi256_pd (_mm256_loadu_si256 ((const __m256i *) (p)))
#define S_BLEND(m, a, b) _mm256_blendv_pd (b, a, m)
#define S_SINCOS         sim_sincos4
#define S_LOAD2          s_load2_4
#define S_LOAD1          s_load1_4
#define S_STORE2         s_store2_4
#define S_STORE1         s_store1_4

/* Two doubles of robot p from field on. */
S_T static inline __m128d
s_pair (const char *p, size_t field)
{
    return _mm_loadu_pd ((const double *) (p + field));
}

/* The two fields from field on of the robots p[]: v[0], v[1]. */
S_T static inline void
s_load2_4 (char *const p[4], size_t field, __m256d v[2])
{
    sim_load_pairs4 ((const double *) (p[0] + field), (const double *) (p[1] + field),
                     (const double *) (p[2] + field), (const double *) (p[3] + field), &v[0], &v[1]);
}

/* The field at field of the robots p[]. */
S_T static inline __m256d
s_load1_4 (char *const p[4], size_t field)
{
    __m128d lo =
        _mm_loadh_pd (_mm_load_sd ((const double *) (p[0] + field)), (const double *) (p[1] + field));
    __m128d hi =
        _mm_loadh_pd (_mm_load_sd ((const double *) (p[2] + field)), (const double *) (p[3] + field));
    return _mm256_insertf128_pd (_mm256_castpd128_pd256 (lo), hi, 1);
}

/* Stores v[0], v[1] at field and the next of the robots p[]. */
S_T static inline void
s_store2_4 (char *const p[4], size_t field, const __m256d v[2])
{
    __m256d a = _mm256_unpacklo_pd (v[0], v[1]), b = _mm256_unpackhi_pd (v[0], v[1]);
    _mm_storeu_pd ((double *) (p[0] + field), _mm256_castpd256_pd128 (a));
    _mm_storeu_pd ((double *) (p[1] + field), _mm256_castpd256_pd128 (b));
    _mm_storeu_pd ((double *) (p[2] + field), _mm256_extractf128_pd (a, 1));
    _mm_storeu_pd ((double *) (p[3] + field), _mm256_extractf128_pd (b, 1));
}

/* Stores lane i of v at field of robot p[i]. */
S_T static inline void
s_store1_4 (char *const p[4], size_t field, __m256d v)
{
    __m128d lo = _mm256_castpd256_pd128 (v), hi = _mm256_extractf128_pd (v, 1);
    _mm_storel_pd ((double *) (p[0] + field), lo);
    _mm_storeh_pd ((double *) (p[1] + field), lo);
    _mm_storel_pd ((double *) (p[2] + field), hi);
    _mm_storeh_pd ((double *) (p[3] + field), hi);
}

#include "phys_lanes_kernel.h"

#undef S_T
#undef S_W
#undef V
#undef M
#undef S_NAME
#undef S_ADD
#undef S_SUB
#undef S_MUL
#undef S_DIV
#undef S_SQRT
#undef S_MINV
#undef S_MAXV
#undef S_XOR
#undef S_ANDNOT
#undef S_SET1
#undef S_ZERO
#undef S_LOADU
#undef S_STOREU
#undef S_GT
#undef S_LE
#undef S_NEQ
#undef S_MAND
#undef S_MANDNOT
#undef S_ANY
#undef S_ALL
#undef S_MASK64
#undef S_BLEND
#undef S_SINCOS
#undef S_LOAD2
#undef S_LOAD1
#undef S_STORE2
#undef S_STORE1

/* ---- eight lanes: AVX-512 F and DQ ------------------------------------ */

#define S_T              SIM_MATH_AVX512_TARGET
#define S_W              8
#define V                __m512d
#define M                __mmask8
#define S_NAME(f)        f##_8
#define S_ADD            _mm512_add_pd
#define S_SUB            _mm512_sub_pd
#define S_MUL            _mm512_mul_pd
#define S_DIV            _mm512_div_pd
#define S_SQRT           _mm512_sqrt_pd
#define S_MINV           _mm512_min_pd
#define S_MAXV           _mm512_max_pd
#define S_XOR            _mm512_xor_pd
#define S_ANDNOT         _mm512_andnot_pd /* ~a & b */
#define S_SET1           _mm512_set1_pd
#define S_ZERO           _mm512_setzero_pd
#define S_LOADU          _mm512_loadu_pd
#define S_STOREU         _mm512_storeu_pd
#define S_GT(a, b)       _mm512_cmp_pd_mask (a, b, _CMP_GT_OQ)
#define S_LE(a, b)       _mm512_cmp_pd_mask (a, b, _CMP_LE_OQ)
#define S_NEQ(a, b)      _mm512_cmp_pd_mask (a, b, _CMP_NEQ_UQ)
#define S_MAND(a, b)     ((__mmask8) ((a) & (b)))
#define S_MANDNOT(a, b)  ((__mmask8) (~(a) & (b)))
#define S_ANY(m)         ((m) != 0)
#define S_ALL(m)         ((m) == 0xff)
#define S_MASK64(p)      _mm512_movepi64_mask (_mm512_loadu_si512 ((const void *) (p)))
#define S_BLEND(m, a, b) _mm512_mask_blend_pd (m, b, a)
#define S_SINCOS         sim_sincos8
#define S_LOAD2          s_load2_8
#define S_LOAD1          s_load1_8
#define S_STORE2         s_store2_8
#define S_STORE1         s_store1_8

/* The pairs at field of robots p[i], p[i + 2], p[i + 4], p[i + 6] in the
   four 128-bit lanes of a register. */
S_T static inline __m512d
s_pairs_8 (char *const p[8], int i, size_t field)
{
    __m256d lo =
        _mm256_insertf128_pd (_mm256_castpd128_pd256 (s_pair (p[i], field)), s_pair (p[i + 2], field), 1);
    __m256d hi =
        _mm256_insertf128_pd (_mm256_castpd128_pd256 (s_pair (p[i + 4], field)), s_pair (p[i + 6], field), 1);
    return _mm512_insertf64x4 (_mm512_castpd256_pd512 (lo), hi, 1);
}

S_T static inline void
s_load2_8 (char *const p[8], size_t field, __m512d v[2])
{
    __m512d a = s_pairs_8 (p, 0, field), b = s_pairs_8 (p, 1, field);
    v[0] = _mm512_unpacklo_pd (a, b);
    v[1] = _mm512_unpackhi_pd (a, b);
}

S_T static inline __m512d
s_load1_8 (char *const p[8], size_t field)
{
    return _mm512_insertf64x4 (_mm512_castpd256_pd512 (s_load1_4 (p, field)), s_load1_4 (p + 4, field), 1);
}

S_T static inline void
s_store2_8 (char *const p[8], size_t field, const __m512d v[2])
{
    __m512d a = _mm512_unpacklo_pd (v[0], v[1]), b = _mm512_unpackhi_pd (v[0], v[1]);
    _mm_storeu_pd ((double *) (p[0] + field), _mm512_castpd512_pd128 (a));
    _mm_storeu_pd ((double *) (p[1] + field), _mm512_castpd512_pd128 (b));
    _mm_storeu_pd ((double *) (p[2] + field), _mm512_extractf64x2_pd (a, 1));
    _mm_storeu_pd ((double *) (p[3] + field), _mm512_extractf64x2_pd (b, 1));
    _mm_storeu_pd ((double *) (p[4] + field), _mm512_extractf64x2_pd (a, 2));
    _mm_storeu_pd ((double *) (p[5] + field), _mm512_extractf64x2_pd (b, 2));
    _mm_storeu_pd ((double *) (p[6] + field), _mm512_extractf64x2_pd (a, 3));
    _mm_storeu_pd ((double *) (p[7] + field), _mm512_extractf64x2_pd (b, 3));
}

S_T static inline void
s_store1_8 (char *const p[8], size_t field, __m512d v)
{
    s_store1_4 (p, field, _mm512_castpd512_pd256 (v));
    s_store1_4 (p + 4, field, _mm512_extractf64x4_pd (v, 1));
}

#include "phys_lanes_kernel.h"

void
phys_lanes_set_width (int width)
{
    assert (width == 0 || width == 4 || width == 8);
    s_width = width;
}

int
phys_lanes_width (void)
{
    int best = sim_math_have_avx512 () ? 8 : sim_math_have_avx2 () ? 4 : 0;
    return s_width && s_width < best ? s_width : best;
}

void
phys_lanes_run (phys_world_t *w, phys_lanes_t *batch, double dt)
{
    assert (batch->n >= 1 && batch->n <= PHYS_LANES);
    if (!w->lane_consts_valid)
        s_consts (w);
    int width = phys_lanes_width ();
    assert (width == 4 || width == 8);
    /* a short register repeats the batch's last robot: the same inputs,
       the same results, stored twice */
    int n = (batch->n + width - 1) / width * width;
    /* the lane constants serve the batch when its robots are columns
       k0 .. k0 + n - 1: consecutive (the phase appends them in increasing
       order, so first and last tell) and the padding (which repeats the
       batch's last robot) past the world's last robot, whose copy the
       columns past it hold */
    int k0 = batch->k[0], kl = batch->k[batch->n - 1];
    bool cols =
        kl - k0 == batch->n - 1 && k0 + n <= PHYS_LANE_ROBOTS && (n == batch->n || kl == w->robot_count - 1);
    for (int i = batch->n; i < n; i++) {
        int j = batch->n - 1;
        batch->k[i] = batch->k[j];
        batch->has[i] = batch->has[j];
        batch->ideal[i] = batch->ideal[j];
        batch->tx[i] = batch->tx[j];
        batch->ty[i] = batch->ty[j];
        batch->tw[i] = batch->tw[j];
    }
    if (width == 8)
        s_run_8 (cols, w, batch, n, dt);
    else
        s_run_4 (cols, w, batch, n, dt);
}

#else

bool
phys_lanes_supported (void)
{
    return false;
}

void
phys_lanes_set_width (int width)
{
    (void) width;
}

int
phys_lanes_width (void)
{
    return 0;
}

void
phys_lanes_run (phys_world_t *w, phys_lanes_t *batch, double dt)
{
    (void) w;
    (void) batch;
    (void) dt;
    assert (!"phys_lanes_run without phys_lanes_supported");
}

#endif
