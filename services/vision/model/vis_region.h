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
#include "sim_schedule.h"

/* True when camera `index` of `rig` sees the point (x, y): fov_radius <= 0
   disables the disc test; overlap is camera_overlap (the band is twice it). */
static inline bool
vis_region_visible (const sim_rig_t *rig, int index, double x, double y, double overlap, double fov_radius)
{
    assert (rig && index >= 0 && index < rig->count);
    const sim_camera_cfg_t *c = &rig->cams[index];
    if (fov_radius > 0) {
        double dx = x - c->x, dy = y - c->y;
        if (dx * dx + dy * dy > fov_radius * fov_radius)
            return false;
    }
    double mine = fabs (c->x - x) + fabs (c->y - y);
    double best = mine;
    for (int j = 0; j < rig->count; j++) {
        double m = fabs (rig->cams[j].x - x) + fabs (rig->cams[j].y - y);
        if (m < best)
            best = m;
    }
    return mine <= best + 2 * overlap;
}

#endif
