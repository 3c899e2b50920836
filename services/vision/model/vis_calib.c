/*  vis_calib.c - draw and evaluate the static calibration error. */
#include "vis_calib.h"

#include <math.h>

#define VIS_GAIN_GRID 24

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
    double k = 2 * M_PI / length;
    double sum = 0;
    for (int i = 0; i < VIS_WARP_WAVES; i++) {
        const vis_wave_t *w = &basis->wave[i];
        sum += sin (k * (x * w->ux + y * w->uy) + w->phase);
    }
    return sqrt (2.0 / VIS_WARP_WAVES) * sum;
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

static double
s_warp (const vis_warp_basis_t *basis, double amplitude, double length, double x, double y)
{
    if (amplitude == 0 || !(length > 0))
        return 0;
    return amplitude * basis->gain * vis_warp_raw (basis, length, x, y);
}

void
vis_calib_error (const vis_calib_t *calib, const sim_realism_t *r, double x, double y, double *ex, double *ey,
                 double *ephi)
{
    double L = r->calibration_warp_length;
    *ex = r->object_position_offset * calib->ox + s_warp (&calib->bx, r->calibration_warp_stddev, L, x, y);
    *ey = r->object_position_offset * calib->oy + s_warp (&calib->by, r->calibration_warp_stddev, L, x, y);
    if (ephi)
        *ephi = calib->sign * r->calibration_orientation_offset
              + s_warp (&calib->bphi, r->calibration_orientation_warp, L, x, y);
}
