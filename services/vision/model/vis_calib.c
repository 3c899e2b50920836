/*  vis_calib.c - draw and evaluate the static calibration error. */
#include "vis_calib.h"

#include <math.h>

#include "sim_math.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define VIS_GAIN_GRID      24
#define VIS_SIN_KERNEL_MAX 1e6 /* rad: the kernel's reduction by pi/2 is exact well beyond */

/* The sines of a[0..n) into out: the project's own kernel
   (common/sim_math.h), two lanes at a time and without branches on the
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

/* raw() of each of the n bases at (x, y) into out (length > 0): every
   wave's phase first, then their sines together. */
static void
s_warp_raw_n (const vis_warp_basis_t *const *basis, int n, double length, double x, double y, double *out)
{
    double k = 2 * M_PI / length;
    double a[3 * VIS_WARP_WAVES], sines[3 * VIS_WARP_WAVES];
    int m = 0;
    for (int b = 0; b < n; b++)
        for (int i = 0; i < VIS_WARP_WAVES; i++) {
            const vis_wave_t *w = &basis[b]->wave[i];
            a[m++] = k * (x * w->ux + y * w->uy) + w->phase;
        }
    s_sines (a, m, sines);
    for (int b = 0; b < n; b++) {
        double sum = 0;
        for (int i = 0; i < VIS_WARP_WAVES; i++)
            sum += sines[b * VIS_WARP_WAVES + i];
        out[b] = sqrt (2.0 / VIS_WARP_WAVES) * sum;
    }
}

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
    double v;
    s_warp_raw_n (&basis, 1, length, x, y, &v);
    return v;
}

static void
s_fit_gain (vis_warp_basis_t *basis, const sim_field_t *field, double length)
{
    basis->gain = 1;
    if (!(length > 0) || !(field->length > 0) || !(field->width > 0))
        return;
    double sum = 0, sum2 = 0;
    int n = VIS_GAIN_GRID * VIS_GAIN_GRID;
    for (int i = 0; i < VIS_GAIN_GRID; i++) {
        double x = -field->length / 2 + (i + 0.5) * field->length / VIS_GAIN_GRID;
        for (int j = 0; j < VIS_GAIN_GRID; j++) {
            double y = -field->width / 2 + (j + 0.5) * field->width / VIS_GAIN_GRID;
            double v = vis_warp_raw (basis, length, x, y);
            sum += v;
            sum2 += v * v;
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
vis_calib_error (const vis_calib_t *calib, const sim_realism_t *r, double x, double y, double *ex, double *ey,
                 double *ephi)
{
    double L = r->calibration_warp_length;
    /* the warps that show (x, y, orientation), evaluated together */
    const vis_warp_basis_t *all[3] = { &calib->bx, &calib->by, &calib->bphi };
    const double amp[3] = { r->calibration_warp_stddev, r->calibration_warp_stddev,
                            r->calibration_orientation_warp };
    const vis_warp_basis_t *basis[3] = { NULL, NULL, NULL };
    int which[3], n = 0;
    for (int b = 0; L > 0 && b < (ephi ? 3 : 2); b++)
        if (amp[b] != 0) {
            basis[n] = all[b];
            which[n++] = b;
        }
    double raw[3], warp[3] = { 0, 0, 0 };
    s_warp_raw_n (basis, n, L, x, y, raw);
    for (int j = 0; j < n; j++)
        warp[which[j]] = amp[which[j]] * all[which[j]]->gain * raw[j];
    *ex = r->object_position_offset * calib->ox + warp[0];
    *ey = r->object_position_offset * calib->oy + warp[1];
    if (ephi)
        *ephi = calib->sign * r->calibration_orientation_offset + warp[2];
}
