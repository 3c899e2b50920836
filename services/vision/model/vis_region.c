/*  vis_region.c - the region rule. */
#include "vis_region.h"

#include <assert.h>
#include <math.h>

bool
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
