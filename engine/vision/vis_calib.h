/*  vis_calib.h - static per-camera calibration error (spec/vision.md §3):
    a constant position offset along a drawn direction, an orientation offset
    with a drawn sign, and smooth plane-wave warp fields for x, y and the
    orientation. Drawn once per camera from the keyed `calibration`
    generator, then evaluated for every detection.
*/
#ifndef VIS_CALIB_H_INCLUDED
#define VIS_CALIB_H_INCLUDED

#include "common/base/sim_params.h"
#include "common/base/sim_rng.h"

#define VIS_WARP_WAVES 3

typedef struct {
    double ux, uy; /* unit direction of the wave */
    double phase;  /* rad */
} vis_wave_t;

typedef struct {
    vis_wave_t wave[VIS_WARP_WAVES];
    double gain; /* normalises raw() to unit std over the field */
} vis_warp_basis_t;

typedef struct {
    double free_fraction; /* free-running phase, [0, 1) */
    double ox, oy;        /* constant offset direction (unit) */
    double sign;          /* orientation offset sign, -1 or +1 */
    vis_warp_basis_t bx, by, bphi;
} vis_calib_t;

/* Draw one camera's state from rng in the order of vision.md §3.1 (exactly
   SIM_CALIB_UNIFORMS_PER_CAMERA uniforms); the gains are fitted on the
   24 x 24 grid over `field` with wavelength warp_length. */
void vis_calib_draw (sim_rng_t *rng, const sim_field_t *field, double warp_length, vis_calib_t *out);

/* raw(p) = sqrt(2/K) * sum_k sin(2 pi (p.u_k) / L + phi_k), 0 when L <= 0. */
double vis_warp_raw (const vis_warp_basis_t *basis, double length, double x, double y);

/* The error of this camera at horizontal point (x, y) with the amplitudes
   and wavelength of `realism` read live (vision.md §3.3): position error
   into *ex, *ey (m) and orientation error into *ephi (rad); ephi may be
   NULL (a ball has no orientation), which saves evaluating its warp. */
void vis_calib_error (const vis_calib_t *calib, const sim_realism_t *realism, double x, double y, double *ex,
                      double *ey, double *ephi);

/* vis_calib_error at the n points (x[i], y[i]) into ex[i], ey[i] and
   ephi[i] (ephi may be NULL), the same bits as n calls: a frame's robots
   evaluated together let the sine kernel fill its lanes across them. */
void vis_calib_error_n (const vis_calib_t *calib, const sim_realism_t *realism, const double *x,
                        const double *y, int n, double *ex, double *ey, double *ephi);

#endif
