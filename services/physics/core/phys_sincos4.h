/*  phys_sincos4.h - sim_sincos (common/sim_math.h) on the four lanes of an
    AVX2 register: the same IEEE operations in the same order per lane, so
    the same bits as four calls, for |x| < 2^31 π/2 and NaN (the quadrant
    is converted to 32 bits here, to 64 there). Robot orientations are
    wrapped to (-π, π], far inside that. For code compiled for AVX2 (the
    target attribute, as in phys_lanes.c), on x86 only. Internal to the
    core.
*/
#ifndef PHYS_SINCOS4_H_INCLUDED
#define PHYS_SINCOS4_H_INCLUDED

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* s and c: sin and cos of each lane of x. */
__attribute__ ((target ("avx2"))) static inline void
phys_sincos4 (__m256d x, __m256d *s, __m256d *c)
{
    const __m256d zero = _mm256_setzero_pd (), half = _mm256_set1_pd (0.5), one = _mm256_set1_pd (1.0);
    const __m256d sign = _mm256_set1_pd (-0.0);
    __m256d t = _mm256_mul_pd (x, _mm256_set1_pd (6.36619772367581382433e-01));
    /* t >= 0 ? t + 0.5 : t - 0.5, truncated */
    __m256d pos = _mm256_cmp_pd (t, zero, _CMP_GE_OQ);
    __m256d tr = _mm256_blendv_pd (_mm256_sub_pd (t, half), _mm256_add_pd (t, half), pos);
    __m128i n = _mm256_cvttpd_epi32 (tr);
    __m256d fn = _mm256_cvtepi32_pd (n);
    __m256d y =
        _mm256_sub_pd (_mm256_sub_pd (x, _mm256_mul_pd (fn, _mm256_set1_pd (1.57079632673412561417e+00))),
                       _mm256_mul_pd (fn, _mm256_set1_pd (6.07710050650619224932e-11)));
    __m256d z = _mm256_mul_pd (y, y);
    /* sim_sin_kernel */
    __m256d r = _mm256_add_pd (_mm256_set1_pd (-2.50507602534068634195e-08),
                               _mm256_mul_pd (z, _mm256_set1_pd (1.58969099521155010221e-10)));
    r = _mm256_add_pd (_mm256_set1_pd (2.75573137070700676789e-06), _mm256_mul_pd (z, r));
    r = _mm256_add_pd (_mm256_set1_pd (-1.98412698298579493134e-04), _mm256_mul_pd (z, r));
    r = _mm256_add_pd (_mm256_set1_pd (8.33333333332248946124e-03), _mm256_mul_pd (z, r));
    __m256d sy = _mm256_add_pd (
        y, _mm256_mul_pd (_mm256_mul_pd (z, y), _mm256_add_pd (_mm256_set1_pd (-1.66666666666666324348e-01),
                                                               _mm256_mul_pd (z, r))));
    /* sim_cos_kernel */
    __m256d q = _mm256_add_pd (_mm256_set1_pd (2.08757232129817482790e-09),
                               _mm256_mul_pd (z, _mm256_set1_pd (-1.13596475577881948265e-11)));
    q = _mm256_add_pd (_mm256_set1_pd (-2.75573143513906633035e-07), _mm256_mul_pd (z, q));
    q = _mm256_add_pd (_mm256_set1_pd (2.48015872894767294178e-05), _mm256_mul_pd (z, q));
    q = _mm256_add_pd (_mm256_set1_pd (-1.38888888888741095749e-03), _mm256_mul_pd (z, q));
    q = _mm256_mul_pd (z, _mm256_add_pd (_mm256_set1_pd (4.16666666666666019037e-02), _mm256_mul_pd (z, q)));
    __m256d hz = _mm256_mul_pd (half, z), w = _mm256_sub_pd (one, hz);
    __m256d cy =
        _mm256_add_pd (w, _mm256_add_pd (_mm256_sub_pd (_mm256_sub_pd (one, w), hz), _mm256_mul_pd (z, q)));
    /* the quadrant n & 3: odd swaps sin and cos; sin is negated in
       quadrants 2 and 3 (bit 1 of n), cos in 1 and 2 (bit 1 of n + 1) */
    __m256i n64 = _mm256_cvtepi32_epi64 (n);
    const __m256i one64 = _mm256_set1_epi64x (1);
    __m256d odd = _mm256_castsi256_pd (_mm256_cmpeq_epi64 (_mm256_and_si256 (n64, one64), one64));
    __m256d sneg = _mm256_and_pd (sign, _mm256_castsi256_pd (_mm256_slli_epi64 (n64, 62)));
    __m256d cneg =
        _mm256_and_pd (sign, _mm256_castsi256_pd (_mm256_slli_epi64 (_mm256_add_epi64 (n64, one64), 62)));
    *s = _mm256_xor_pd (sneg, _mm256_blendv_pd (sy, cy, odd));
    *c = _mm256_xor_pd (cneg, _mm256_blendv_pd (cy, sy, odd));
}
#endif

#endif
