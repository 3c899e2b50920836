/*  vis_calib.c - draw and evaluate the static calibration error. */
#include "vis_calib.h"

#include <assert.h>
#include <math.h>

#include "common/base/sim_math.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define VIS_GAIN_GRID      24
#define VIS_SIN_KERNEL_MAX 1e6 /* rad: the kernel's reduction by pi/2 is exact well beyond */

/* The sines of a[0..n) into out: the project's own kernel
   (common/base/sim_math.h), two lanes at a time and without branches on the
   quadrant, the same bits as one at a time and whatever the libm version,
   so vision's bytes are as portable as physics' hashes. Accurate to
   ~1e-16 in absolute terms up to VIS_SIN_KERNEL_MAX; beyond it (a warp
   length of micrometres) and for NaN, libm. */
static void
s_sines (const double *a, int n, double *out)
{
    int i = 0;
#ifdef __SSE2__
    for (; i + 1 < n; i += 2) {
        if (!(fabs (a[i]) <= VIS_SIN_KERNEL_MAX && fabs (a[i + 1]) <= VIS_SIN_KERNEL_MAX))
            break;
        __m128d sv, cv;
        sim_sincos2 (_mm_loadu_pd (a + i), &sv, &cv);
        _mm_storeu_pd (out + i, sv);
    }
#endif
    for (; i < n; i++) {
        double c;
        if (fabs (a[i]) <= VIS_SIN_KERNEL_MAX)
            sim_sincos (a[i], &out[i], &c);
        else
            out[i] = sin (a[i]);
    }
}

/* Points one pass of s_raw evaluates at most: enough for the sines to
   fill their lanes across points, few enough for the stack. */
#define S_CHUNK 16

#ifdef SIM_MATH_AVX2
/* vis_calib_error_n's warped outputs on CPUs with AVX2, four points at a
   time: out[b][i] = offset[b] + scale[b] * raw_b (x[i], y[i]) for the nb
   bases, with the operations of s_raw and the combination lane by lane. */
SIM_MATH_AVX2_TARGET static void
s_error4 (const vis_warp_basis_t *const *basis, int nb, double k, const double *x, const double *y, int n,
          const double *scale, const double *offset, double *const *out)
{
    const __m256d kv = _mm256_set1_pd (k), norm = _mm256_set1_pd (sqrt (2.0 / VIS_WARP_WAVES));
    const __m256d max = _mm256_set1_pd (VIS_SIN_KERNEL_MAX), magnitude = _mm256_set1_pd (-0.0);
    const __m256i lane = _mm256_set_epi64x (3, 2, 1, 0);
    for (int p = 0; p < n; p += 4) {
        /* the last points through masked loads and stores: lanes past n
           read 0 and write nothing */
        __m256i live = _mm256_cmpgt_epi64 (_mm256_set1_epi64x (n - p), lane);
        __m256d xv = _mm256_maskload_pd (x + p, live), yv = _mm256_maskload_pd (y + p, live);
        for (int b = 0; b < nb; b++) {
            __m256d sum = _mm256_setzero_pd ();
            for (int i = 0; i < VIS_WARP_WAVES; i++) {
                const vis_wave_t *w = &basis[b]->wave[i];
                __m256d a = _mm256_add_pd (
                    _mm256_mul_pd (kv, _mm256_add_pd (_mm256_mul_pd (xv, _mm256_set1_pd (w->ux)),
                                                      _mm256_mul_pd (yv, _mm256_set1_pd (w->uy)))),
                    _mm256_set1_pd (w->phase));
                __m256d sv, cv;
                sim_sincos4 (a, &sv, &cv);
                /* as s_sines: libm beyond the kernel's range and for NaN */
                __m256d inside = _mm256_cmp_pd (_mm256_andnot_pd (magnitude, a), max, _CMP_LE_OQ);
                if (_mm256_movemask_pd (inside) != 0xF) {
                    double al[4], sl[4];
                    _mm256_storeu_pd (al, a);
                    _mm256_storeu_pd (sl, sv);
                    for (int l = 0; l < 4; l++)
                        if (!(fabs (al[l]) <= VIS_SIN_KERNEL_MAX))
                            sl[l] = sin (al[l]);
                    sv = _mm256_loadu_pd (sl);
                }
                sum = _mm256_add_pd (sum, sv);
            }
            __m256d v = _mm256_add_pd (_mm256_set1_pd (offset[b]),
                                       _mm256_mul_pd (_mm256_set1_pd (scale[b]), _mm256_mul_pd (norm, sum)));
            _mm256_maskstore_pd (out[b] + p, live, v);
        }
    }
}
#endif

/* raw() of each of the nb bases at the np <= S_CHUNK points (x[i], y[i])
   into out[b * S_CHUNK + i] (length > 0): every wave's phase first, then
   all their sines together, then the sums in the order of one point at a
   time. GCC 12 at -O3 (the Makefile's HOT_OPT) takes s_sines' reads of
   a[0..m) for reads of a's unwritten tail and warns; they are not. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
static void
s_raw (const vis_warp_basis_t *const *basis, int nb, double length, const double *x, const double *y, int np,
       double *out)
{
    assert (nb <= 3 && np <= S_CHUNK);
    double k = 2 * M_PI / length;
    double a[3 * VIS_WARP_WAVES * S_CHUNK], sines[3 * VIS_WARP_WAVES * S_CHUNK];
    int m = 0;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < VIS_WARP_WAVES; i++) {
            const vis_wave_t *w = &basis[b]->wave[i];
            for (int p = 0; p < np; p++)
                a[m++] = k * (x[p] * w->ux + y[p] * w->uy) + w->phase;
        }
    s_sines (a, m, sines);
    for (int b = 0; b < nb; b++)
        for (int p = 0; p < np; p++) {
            double sum = 0;
            for (int i = 0; i < VIS_WARP_WAVES; i++)
                sum += sines[(b * VIS_WARP_WAVES + i) * np + p];
            out[b * S_CHUNK + p] = sqrt (2.0 / VIS_WARP_WAVES) * sum;
        }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void
s_draw_basis (sim_rng_t *rng, vis_warp_basis_t *basis)
{
    for (int k = 0; k < VIS_WARP_WAVES; k++) {
        double a = sim_rng_uniform (rng, 0, 2 * M_PI);
        basis->wave[k].ux = cos (a);
        basis->wave[k].uy = sin (a);
        basis->wave[k].phase = sim_rng_uniform (rng, 0, 2 * M_PI);
    }
    basis->gain = 1;
}

double
vis_warp_raw (const vis_warp_basis_t *basis, double length, double x, double y)
{
    if (!(length > 0))
        return 0;
    double v[S_CHUNK];
    s_raw (&basis, 1, length, &x, &y, 1, v);
    return v[0];
}

/* raw() of one basis at the n points (x[i], y[i]) into out: vis_warp_raw
   of each point, the same bits, but the points' sines share their lanes
   (s_error4 with a scale of 1 and an offset of -0, which leave every
   value as it is, where the CPU has AVX2; else s_raw a chunk at a time). */
static void
s_raw_points (const vis_warp_basis_t *basis, double length, const double *x, const double *y, int n,
              double *out)
{
#ifdef SIM_MATH_AVX2
    if (sim_math_have_avx2 ()) {
        const double one = 1.0, minus_zero = -0.0;
        s_error4 (&basis, 1, 2 * M_PI / length, x, y, n, &one, &minus_zero, &out);
        return;
    }
#endif
    for (int p0 = 0; p0 < n; p0 += S_CHUNK) {
        int np = n - p0 < S_CHUNK ? n - p0 : S_CHUNK;
        s_raw (&basis, 1, length, x + p0, y + p0, np, out + p0);
    }
}

/* The basis' gain: 1 / its standard deviation over a grid of the field,
   the points taken a column (fixed x) at a time, summed in the order of
   one point at a time. */
static void
s_fit_gain (vis_warp_basis_t *basis, const sim_field_t *field, double length)
{
    basis->gain = 1;
    if (!(length > 0) || !(field->length > 0) || !(field->width > 0))
        return;
    double sum = 0, sum2 = 0;
    int n = VIS_GAIN_GRID * VIS_GAIN_GRID;
    double xs[VIS_GAIN_GRID], ys[VIS_GAIN_GRID], v[VIS_GAIN_GRID];
    for (int j = 0; j < VIS_GAIN_GRID; j++)
        ys[j] = -field->width / 2 + (j + 0.5) * field->width / VIS_GAIN_GRID;
    for (int i = 0; i < VIS_GAIN_GRID; i++) {
        double x = -field->length / 2 + (i + 0.5) * field->length / VIS_GAIN_GRID;
        for (int j = 0; j < VIS_GAIN_GRID; j++)
            xs[j] = x;
        s_raw_points (basis, length, xs, ys, VIS_GAIN_GRID, v);
        for (int j = 0; j < VIS_GAIN_GRID; j++) {
            sum += v[j];
            sum2 += v[j] * v[j];
        }
    }
    double mean = sum / n;
    double var = sum2 / n - mean * mean;
    basis->gain = var > 1e-18 ? 1 / sqrt (var) : 0;
}

void
vis_calib_draw (sim_rng_t *rng, const sim_field_t *field, double warp_length, vis_calib_t *out)
{
    out->free_fraction = sim_rng_uniform01 (rng);
    double a = sim_rng_uniform (rng, 0, 2 * M_PI);
    out->ox = cos (a);
    out->oy = sin (a);
    out->sign = sim_rng_uniform01 (rng) < 0.5 ? -1 : +1;
    s_draw_basis (rng, &out->bx);
    s_draw_basis (rng, &out->by);
    s_draw_basis (rng, &out->bphi);
    s_fit_gain (&out->bx, field, warp_length);
    s_fit_gain (&out->by, field, warp_length);
    s_fit_gain (&out->bphi, field, warp_length);
}

void
vis_calib_error_n (const vis_calib_t *calib, const sim_realism_t *r, const double *x, const double *y, int n,
                   double *ex, double *ey, double *ephi)
{
    double L = r->calibration_warp_length;
    /* the warps that show (x, y, orientation), evaluated together */
    const vis_warp_basis_t *all[3] = { &calib->bx, &calib->by, &calib->bphi };
    const double amp[3] = { r->calibration_warp_stddev, r->calibration_warp_stddev,
                            r->calibration_orientation_warp };
    const double offset[3] = { r->object_position_offset * calib->ox, r->object_position_offset * calib->oy,
                               calib->sign * r->calibration_orientation_offset };
    double *out[3] = { ex, ey, ephi };
    const vis_warp_basis_t *basis[3] = { NULL, NULL, NULL };
    int which[3] = { -1, -1, -1 }, nb = 0;
    for (int b = 0; L > 0 && b < (ephi ? 3 : 2); b++)
        if (amp[b] != 0) {
            which[b] = nb;
            basis[nb++] = all[b];
        }
#ifdef SIM_MATH_AVX2
    if (nb > 0 && sim_math_have_avx2 ()) {
        double scale[3], off[3], *dst[3];
        for (int b = 0; b < (ephi ? 3 : 2); b++) {
            if (which[b] < 0) {
                for (int p = 0; p < n; p++)
                    out[b][p] = offset[b] + 0.0; /* as with a warp of 0: -0 becomes +0 */
                continue;
            }
            scale[which[b]] = amp[b] * all[b]->gain;
            off[which[b]] = offset[b];
            dst[which[b]] = out[b];
        }
        s_error4 (basis, nb, 2 * M_PI / L, x, y, n, scale, off, dst);
        return;
    }
#endif
    for (int p0 = 0; p0 < n; p0 += S_CHUNK) {
        int np = n - p0 < S_CHUNK ? n - p0 : S_CHUNK;
        double raw[3 * S_CHUNK];
        if (nb > 0)
            s_raw (basis, nb, L, x + p0, y + p0, np, raw);
        for (int b = 0; b < (ephi ? 3 : 2); b++) {
            double *o = out[b] + p0;
            if (which[b] < 0) {
                for (int p = 0; p < np; p++)
                    o[p] = offset[b] + 0.0; /* as with a warp of 0: -0 becomes +0 */
                continue;
            }
            double scale = amp[b] * all[b]->gain;
            const double *w = raw + which[b] * S_CHUNK;
            for (int p = 0; p < np; p++)
                o[p] = offset[b] + scale * w[p];
        }
    }
}

void
vis_calib_error (const vis_calib_t *calib, const sim_realism_t *r, double x, double y, double *ex, double *ey,
                 double *ephi)
{
    vis_calib_error_n (calib, r, &x, &y, 1, ex, ey, ephi);
}
