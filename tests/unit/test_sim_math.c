/*  test_sim_math.c - the sine/cosine kernels of sim_math.h:
    accuracy against libm, and the two-lane kernel giving the very bits of
    the scalar one (state hashes depend on it).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/base/sim_math.h"

static uint64_t
s_bits (double v)
{
    uint64_t b;
    memcpy (&b, &v, sizeof b);
    return b;
}

/* The orientations the robot phase feeds the kernels: every wrapped
   angle, quadrant boundaries and their neighbours, signed zeros, tiny and
   the ends of (-π, π], plus a wider range and NaN. */
static int
s_inputs (double *x, int cap)
{
    int n = 0;
    const double edge[] = { 0.0,           -0.0,     1e-300,    -1e-300,  5e-324,    M_PI,
                            -M_PI,         M_PI / 2, -M_PI / 2, M_PI / 4, -M_PI / 4, 3 * M_PI / 4,
                            -3 * M_PI / 4, 4 * M_PI, -4 * M_PI, NAN };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        x[n++] = edge[i];
        x[n++] = nextafter (edge[i], INFINITY);
        x[n++] = nextafter (edge[i], -INFINITY);
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    while (n < cap) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double u = (double) (s >> 11) / 9007199254740992.0;
        x[n] = (n % 4 ? -M_PI + 2 * M_PI * u : -4 * M_PI + 8 * M_PI * u);
        n++;
    }
    return n;
}

Test (sim_math, sincos_matches_libm)
{
    static double x[20000];
    int n = s_inputs (x, 20000);
    for (int i = 0; i < n; i++) {
        if (isnan (x[i]))
            continue;
        double s, c;
        sim_sincos (x[i], &s, &c);
        /* the kernel's documented accuracy, about 1 ulp on |x| <= 4π */
        cr_assert (fabs (s - sin (x[i])) <= 4e-16, "sin %.17g: %.17g vs %.17g", x[i], s, sin (x[i]));
        cr_assert (fabs (c - cos (x[i])) <= 4e-16, "cos %.17g: %.17g vs %.17g", x[i], c, cos (x[i]));
    }
}

/* vision's calibration warp feeds it phases of tens of radians (and far
   more for a short warp length): the reduction by π/2 must stay exact */
Test (sim_math, sincos_is_accurate_over_wide_phases)
{
    uint64_t st = 0x2545f4914f6cdd1dull;
    const double range[] = { 30, 1e3, 1e6 };
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 100000; i++) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            double x = range[r] * (2.0 * (double) (st >> 11) / 9007199254740992.0 - 1.0);
            double s, c;
            sim_sincos (x, &s, &c);
            cr_assert (fabs (s - sin (x)) <= 2.3e-16, "sin %.17g: %.17g vs %.17g", x, s, sin (x));
            cr_assert (fabs (c - cos (x)) <= 2.3e-16, "cos %.17g: %.17g vs %.17g", x, c, cos (x));
        }
}

#ifdef __SSE2__
/* A kernel of `width` lanes on width consecutive inputs, stored lane by
   lane. */
typedef void (*s_lanes_fn) (const double *x, double *s, double *c);

/* Every window of `width` consecutive inputs of x[n] through the kernel:
   each lane the bits of sim_sincos. */
static void
s_expect_scalar_bits (const double *x, int n, int width, s_lanes_fn kernel)
{
    for (int i = 0; i + width <= n; i++) {
        double sl[8], cl[8];
        kernel (x + i, sl, cl);
        for (int lane = 0; lane < width; lane++) {
            double s, c;
            sim_sincos (x[i + lane], &s, &c);
            cr_assert_eq (s_bits (sl[lane]), s_bits (s), "%d lanes: sin %.17g lane %d", width, x[i + lane],
                          lane);
            cr_assert_eq (s_bits (cl[lane]), s_bits (c), "%d lanes: cos %.17g lane %d", width, x[i + lane],
                          lane);
        }
    }
}

#endif

#ifdef SIM_MATH_AVX2
/* s_inputs, then the wide phases of vision's calibration warp, up to
   1e6; returns the count (40000). */
static int
s_wide_inputs (double *x)
{
    int n = s_inputs (x, 20000);
    for (int i = 0; i < 20000; i++)
        x[n++] = x[i] * (i % 2 ? 1e5 / M_PI : 30 / M_PI);
    return n;
}
#endif

#ifdef __SSE2__
static void
s_two (const double *x, double *s, double *c)
{
    __m128d s2, c2;
    sim_sincos2 (_mm_loadu_pd (x), &s2, &c2);
    _mm_storeu_pd (s, s2);
    _mm_storeu_pd (c, c2);
}

Test (sim_math, two_lanes_give_the_scalar_bits)
{
    static double x[20000];
    s_expect_scalar_bits (x, s_inputs (x, 20000), 2, s_two);
}
#endif

#ifdef SIM_MATH_AVX2
SIM_MATH_AVX2_TARGET static void
s_four (const double *x, double *s, double *c)
{
    __m256d s4, c4;
    sim_sincos4 (_mm256_loadu_pd (x), &s4, &c4);
    _mm256_storeu_pd (s, s4);
    _mm256_storeu_pd (c, c4);
}

Test (sim_math, four_lanes_give_the_scalar_bits)
{
    /* without AVX2 nothing calls the kernel; the build still compiles it */
    if (!sim_math_have_avx2 ())
        return;
    static double x[40000];
    s_expect_scalar_bits (x, s_wide_inputs (x), 4, s_four);
}
#endif

#ifdef SIM_MATH_AVX512
SIM_MATH_AVX512_TARGET static void
s_eight (const double *x, double *s, double *c)
{
    __m512d s8, c8;
    sim_sincos8 (_mm512_loadu_pd (x), &s8, &c8);
    _mm512_storeu_pd (s, s8);
    _mm512_storeu_pd (c, c8);
}

Test (sim_math, eight_lanes_give_the_scalar_bits)
{
    /* without AVX-512 (or under valgrind) nothing calls the kernel */
    if (!sim_math_have_avx512 ())
        return;
    static double x[40000];
    s_expect_scalar_bits (x, s_wide_inputs (x), 8, s_eight);
}
#endif
