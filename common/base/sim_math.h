/*  sim_math.h - small math kernels shared by physics and vision.

    sim_sincos is an own polynomial kernel (the classic minimax
    coefficients for |x| <= π/4 after a two-constant reduction by π/2),
    about four times cheaper than libm's sincos and the same bits on every
    platform and libm version, which keeps state hashes and vision bytes
    portable. Accurate to about 1 ulp for |x| <= 4π; the reduction stays
    exact (absolute error ~1e-15) for |x| up to about 1e6. Physics turns
    every robot's orientation with it every substep, vision evaluates its
    calibration warp with it for every detection.
*/
#ifndef SIM_MATH_H_INCLUDED
#define SIM_MATH_H_INCLUDED

/* The kernels' arithmetic, written once with operators for a double and
   for GCC's vector types alike (__m128d, __m256d, __m512d: an operator
   between a vector and a scalar applies to every lane), so every width
   evaluates the same IEEE operations in the same order and gives the
   scalar kernel's bits. y: the reduced argument; z = y * y. */
/* clang-format off */
#define SIM_PIO2_1  1.57079632673412561417e+00 /* the first 33 bits of π/2 */
#define SIM_PIO2_1T 6.07710050650619224932e-11 /* π/2 - SIM_PIO2_1 */
#define SIM_SINCOS_REDUCE(x, fn) (((x) - (fn) * SIM_PIO2_1) - (fn) * SIM_PIO2_1T)
#define SIM_SIN_POLY(y, z)                                                           \
    ((y) + (z) * (y) * (-1.66666666666666324348e-01 + (z) * (8.33333333332248946124e-03 \
        + (z) * (-1.98412698298579493134e-04 + (z) * (2.75573137070700676789e-06     \
        + (z) * (-2.50507602534068634195e-08 + (z) * 1.58969099521155010221e-10))))))
#define SIM_COS_POLY(z)                                                              \
    ((1.0 - 0.5 * (z)) + (((1.0 - (1.0 - 0.5 * (z))) - 0.5 * (z))                    \
        + (z) * ((z) * (4.16666666666666019037e-02 + (z) * (-1.38888888888741095749e-03 \
        + (z) * (2.48015872894767294178e-05 + (z) * (-2.75573143513906633035e-07     \
        + (z) * (2.08757232129817482790e-09 + (z) * -1.13596475577881948265e-11))))))))
/* clang-format on */

static inline double
sim_sin_kernel (double x)
{
    double z = x * x;
    return SIM_SIN_POLY (x, z);
}

static inline double
sim_cos_kernel (double x)
{
    double z = x * x;
    return SIM_COS_POLY (z);
}

/* sin and cos of x (|x| <= 4π for full accuracy). */
static inline void
sim_sincos (double x, double *s, double *c)
{
    double t = x * 6.36619772367581382433e-01; /* 2/π */
    long n = (long) (t >= 0 ? t + 0.5 : t - 0.5);
    double fn = (double) n;
    double y = SIM_SINCOS_REDUCE (x, fn);
    double sy = sim_sin_kernel (y), cy = sim_cos_kernel (y);
    /* clang-format off */
    switch (n & 3) {
    case 0: *s = sy; *c = cy; break;
    case 1: *s = cy; *c = -sy; break;
    case 2: *s = -sy; *c = -cy; break;
    default: *s = -cy; *c = sy; break;
    }
    /* clang-format on */
}

#ifdef __SSE2__
#include <emmintrin.h>

/* sim_sincos of each lane of x: the same IEEE operations in the same
   order per lane, so the same bits as two calls, for |x| < 2^31 π/2 and
   NaN (the quadrant is converted to 32 bits here, to 64 there). */
static inline void
sim_sincos2 (__m128d x, __m128d *s, __m128d *c)
{
    const __m128d zero = _mm_setzero_pd (), half = _mm_set1_pd (0.5);
    const __m128d sign = _mm_set1_pd (-0.0);
    __m128d t = _mm_mul_pd (x, _mm_set1_pd (6.36619772367581382433e-01));
    /* t >= 0 ? t + 0.5 : t - 0.5, truncated */
    __m128d pos = _mm_cmpge_pd (t, zero);
    __m128d tr =
        _mm_or_pd (_mm_and_pd (pos, _mm_add_pd (t, half)), _mm_andnot_pd (pos, _mm_sub_pd (t, half)));
    __m128i n = _mm_cvttpd_epi32 (tr);
    __m128d fn = _mm_cvtepi32_pd (n);
    __m128d y = SIM_SINCOS_REDUCE (x, fn), z = y * y;
    __m128d sy = SIM_SIN_POLY (y, z), cy = SIM_COS_POLY (z);
    /* the quadrant n & 3: odd swaps sin and cos; sin is negated in
       quadrants 2 and 3 (bit 1 of n), cos in 1 and 2 (bit 1 of n + 1) */
    __m128i nd = _mm_shuffle_epi32 (n, _MM_SHUFFLE (1, 1, 0, 0));
    const __m128i one32 = _mm_set1_epi32 (1);
    __m128d odd = _mm_castsi128_pd (_mm_cmpeq_epi32 (_mm_and_si128 (nd, one32), one32));
    __m128d sneg = _mm_and_pd (sign, _mm_castsi128_pd (_mm_slli_epi64 (nd, 62)));
    __m128d cneg = _mm_and_pd (sign, _mm_castsi128_pd (_mm_slli_epi64 (_mm_add_epi32 (nd, one32), 62)));
    *s = _mm_xor_pd (sneg, _mm_or_pd (_mm_and_pd (odd, cy), _mm_andnot_pd (odd, sy)));
    *c = _mm_xor_pd (cneg, _mm_or_pd (_mm_and_pd (odd, sy), _mm_andnot_pd (odd, cy)));
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* x86-64 CPUs with AVX2 run sim_sincos4, four lanes at a time: callers
   compile it into a function of their own marked SIM_MATH_AVX2_TARGET and
   call that only where sim_math_have_avx2 () is true (the rest of the
   build stays baseline x86-64). */
#define SIM_MATH_AVX2        1
#define SIM_MATH_AVX2_TARGET __attribute__ ((target ("avx2")))

/* True when this CPU runs AVX2 code (a cached CPUID bit, no syscall). */
static inline int
sim_math_have_avx2 (void)
{
    return __builtin_cpu_supports ("avx2");
}

/* Four pairs of doubles, (a_i, b_i) at p[i] and p[i] + 1, as the lanes of
   *a and *b: the transpose of four two-field rows (a robot's x and y, say)
   with two loads a row, instead of a gather per field. */
SIM_MATH_AVX2_TARGET static inline void
sim_load_pairs4 (const double *p0, const double *p1, const double *p2, const double *p3, __m256d *a,
                 __m256d *b)
{
    __m256d r02 = _mm256_insertf128_pd (_mm256_castpd128_pd256 (_mm_loadu_pd (p0)), _mm_loadu_pd (p2), 1);
    __m256d r13 = _mm256_insertf128_pd (_mm256_castpd128_pd256 (_mm_loadu_pd (p1)), _mm_loadu_pd (p3), 1);
    *a = _mm256_unpacklo_pd (r02, r13);
    *b = _mm256_unpackhi_pd (r02, r13);
}

/* sim_sincos of each of four lanes: sim_sincos2's operations in its order
   (no FMA: AVX2 does not bring it, and -ffp-contract=off forbids it), so
   the very bits of four scalar calls for |x| < 2^31 π/2 and NaN. */
SIM_MATH_AVX2_TARGET static inline void
sim_sincos4 (__m256d x, __m256d *s, __m256d *c)
{
    const __m256d zero = _mm256_setzero_pd (), half = _mm256_set1_pd (0.5);
    const __m256d sign = _mm256_set1_pd (-0.0);
    __m256d t = _mm256_mul_pd (x, _mm256_set1_pd (6.36619772367581382433e-01));
    /* t >= 0 ? t + 0.5 : t - 0.5, truncated */
    __m256d pos = _mm256_cmp_pd (t, zero, _CMP_GE_OQ);
    __m256d tr = _mm256_blendv_pd (_mm256_sub_pd (t, half), _mm256_add_pd (t, half), pos);
    __m128i n = _mm256_cvttpd_epi32 (tr);
    __m256d fn = _mm256_cvtepi32_pd (n);
    __m256d y = SIM_SINCOS_REDUCE (x, fn), z = y * y;
    __m256d sy = SIM_SIN_POLY (y, z), cy = SIM_COS_POLY (z);
    /* the quadrant as in sim_sincos2, on 64-bit lanes */
    __m256i n64 = _mm256_cvtepi32_epi64 (n);
    const __m256i one64 = _mm256_set1_epi64x (1);
    __m256d odd = _mm256_castsi256_pd (_mm256_cmpeq_epi64 (_mm256_and_si256 (n64, one64), one64));
    __m256d sneg = _mm256_and_pd (sign, _mm256_castsi256_pd (_mm256_slli_epi64 (n64, 62)));
    __m256d cneg =
        _mm256_and_pd (sign, _mm256_castsi256_pd (_mm256_slli_epi64 (_mm256_add_epi64 (n64, one64), 62)));
    *s = _mm256_xor_pd (sneg, _mm256_blendv_pd (sy, cy, odd));
    *c = _mm256_xor_pd (cneg, _mm256_blendv_pd (cy, sy, odd));
}
/* x86-64 CPUs with AVX-512 (F and DQ) run sim_sincos8, eight lanes at a
   time, on the same terms as sim_sincos4 (SIM_MATH_AVX512_TARGET,
   sim_math_have_avx512). */
#define SIM_MATH_AVX512        1
#define SIM_MATH_AVX512_TARGET __attribute__ ((target ("avx2,avx512f,avx512dq")))

/* True when this CPU runs AVX-512 F and DQ code (cached CPUID bits). */
static inline int
sim_math_have_avx512 (void)
{
    return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq");
}

/* sim_sincos4's operations on eight lanes (selects by mask registers
   instead of blends): the very bits of eight scalar calls for
   |x| < 2^31 π/2 and NaN. */
SIM_MATH_AVX512_TARGET static inline void
sim_sincos8 (__m512d x, __m512d *s, __m512d *c)
{
    const __m512d zero = _mm512_setzero_pd (), half = _mm512_set1_pd (0.5);
    const __m512i sign = _mm512_set1_epi64 ((long long) 0x8000000000000000ull);
    __m512d t = _mm512_mul_pd (x, _mm512_set1_pd (6.36619772367581382433e-01));
    /* t >= 0 ? t + 0.5 : t - 0.5, truncated */
    __mmask8 pos = _mm512_cmp_pd_mask (t, zero, _CMP_GE_OQ);
    __m512d tr = _mm512_mask_blend_pd (pos, _mm512_sub_pd (t, half), _mm512_add_pd (t, half));
    __m256i n = _mm512_cvttpd_epi32 (tr);
    __m512d fn = _mm512_cvtepi32_pd (n);
    __m512d y = SIM_SINCOS_REDUCE (x, fn), z = y * y;
    __m512d sy = SIM_SIN_POLY (y, z), cy = SIM_COS_POLY (z);
    /* the quadrant as in sim_sincos4 */
    __m512i n64 = _mm512_cvtepi32_epi64 (n);
    const __m512i one64 = _mm512_set1_epi64 (1);
    __mmask8 odd = _mm512_test_epi64_mask (n64, one64);
    __m512i sneg = _mm512_and_si512 (sign, _mm512_slli_epi64 (n64, 62));
    __m512i cneg = _mm512_and_si512 (sign, _mm512_slli_epi64 (_mm512_add_epi64 (n64, one64), 62));
    *s = _mm512_castsi512_pd (
        _mm512_xor_si512 (sneg, _mm512_castpd_si512 (_mm512_mask_blend_pd (odd, sy, cy))));
    *c = _mm512_castsi512_pd (
        _mm512_xor_si512 (cneg, _mm512_castpd_si512 (_mm512_mask_blend_pd (odd, cy, sy))));
}
#endif

#endif
