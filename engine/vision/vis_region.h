/*  vis_region.h - which camera sees a horizontal point (spec/vision.md §4):
    the field-of-view disc around the camera's nadir and the Manhattan-Voronoi
    split with a 2 * camera_overlap band. Inline: the model asks it for
    every robot, camera and capture, and a call cost more than the test.
*/
#ifndef VIS_REGION_H_INCLUDED
#define VIS_REGION_H_INCLUDED

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include "common/base/sim_schedule.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* vis_region_visible of the n points (x[i], y[i]) into seen[i], the same
   answers: the rig read once, two points at a time with SSE2 (minpd is
   exactly `m < best ? m : best`), and the camera's own distance not
   compared with itself. */
static inline void
vis_region_visible_n (const sim_rig_t *rig, int index, const double *x, const double *y, int n,
                      double overlap, double fov_radius, bool *seen)
{
    assert (rig && index >= 0 && index < rig->count && rig->count <= SIM_MAX_CAMERAS);
    int count = 0;
    double cx[SIM_MAX_CAMERAS], cy[SIM_MAX_CAMERAS];
    for (int j = 0; j < rig->count; j++)
        if (j != index) {
            cx[count] = rig->cams[j].x;
            cy[count++] = rig->cams[j].y;
        }
    double ox = rig->cams[index].x, oy = rig->cams[index].y, band = 2 * overlap,
           fov2 = fov_radius * fov_radius;
    int i = 0;
#ifdef __SSE2__
    const __m128d abs = _mm_castsi128_pd (_mm_set1_epi64x (0x7fffffffffffffffll));
    const __m128d oxv = _mm_set1_pd (ox), oyv = _mm_set1_pd (oy), bandv = _mm_set1_pd (band);
    for (; i + 1 < n; i += 2) {
        __m128d xv = _mm_loadu_pd (x + i), yv = _mm_loadu_pd (y + i);
        __m128d mine =
            _mm_add_pd (_mm_and_pd (abs, _mm_sub_pd (oxv, xv)), _mm_and_pd (abs, _mm_sub_pd (oyv, yv)));
        __m128d best = mine;
        for (int j = 0; j < count; j++) {
            __m128d m = _mm_add_pd (_mm_and_pd (abs, _mm_sub_pd (_mm_set1_pd (cx[j]), xv)),
                                    _mm_and_pd (abs, _mm_sub_pd (_mm_set1_pd (cy[j]), yv)));
            best = _mm_min_pd (m, best);
        }
        __m128d ok = _mm_cmple_pd (mine, _mm_add_pd (best, bandv));
        if (fov_radius > 0) {
            __m128d dx = _mm_sub_pd (xv, oxv), dy = _mm_sub_pd (yv, oyv);
            __m128d d2 = _mm_add_pd (_mm_mul_pd (dx, dx), _mm_mul_pd (dy, dy));
            ok = _mm_andnot_pd (_mm_cmpgt_pd (d2, _mm_set1_pd (fov2)), ok);
        }
        int bits = _mm_movemask_pd (ok);
        seen[i] = bits & 1;
        seen[i + 1] = (bits >> 1) & 1;
    }
#endif
    for (; i < n; i++) {
        if (fov_radius > 0) {
            double dx = x[i] - ox, dy = y[i] - oy;
            if (dx * dx + dy * dy > fov2) {
                seen[i] = false;
                continue;
            }
        }
        double mine = fabs (ox - x[i]) + fabs (oy - y[i]);
        double best = mine;
        for (int j = 0; j < count; j++) {
            double m = fabs (cx[j] - x[i]) + fabs (cy[j] - y[i]);
            if (m < best)
                best = m;
        }
        seen[i] = mine <= best + band;
    }
}

/* True when camera `index` of `rig` sees the point (x, y): fov_radius <= 0
   disables the disc test; overlap is camera_overlap (the band is twice it). */
static inline bool
vis_region_visible (const sim_rig_t *rig, int index, double x, double y, double overlap, double fov_radius)
{
    bool seen;
    vis_region_visible_n (rig, index, &x, &y, 1, overlap, fov_radius, &seen);
    return seen;
}

#endif
