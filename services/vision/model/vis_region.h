/*  vis_region.h - which camera sees a horizontal point (spec/vision.md §4):
    the field-of-view disc around the camera's nadir and the Manhattan-Voronoi
    split with a 2 * camera_overlap band.
*/
#ifndef VIS_REGION_H_INCLUDED
#define VIS_REGION_H_INCLUDED

#include <stdbool.h>
#include "sim_schedule.h"

/* True when camera `index` of `rig` sees the point (x, y): fov_radius <= 0
   disables the disc test; overlap is camera_overlap (the band is twice it). */
bool vis_region_visible (const sim_rig_t *rig, int index, double x, double y, double overlap,
                         double fov_radius);

#endif
