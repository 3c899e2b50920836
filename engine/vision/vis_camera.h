/*  vis_camera.h - the pinhole camera each rig camera advertises in the
    geometry packet (spec/vision.md §8), and the projection that fills the
    detections' pixel_x/pixel_y with it.

    The camera looks straight down (no tilt), has zero lens distortion and
    its principal point at the image centre. Its centre is the advertised
    one (true centre plus the camera_position_error of vision.md §8), so a
    client that un-projects a detection's pixels through the advertised
    calibration at the object's height gets the reported position back.
    Every number is held as the float the wire carries, so the round trip
    is exact to float rounding.
*/
#ifndef VIS_CAMERA_H_INCLUDED
#define VIS_CAMERA_H_INCLUDED

#include <stdint.h>
#include "common/base/sim_params.h"

typedef struct {
    float focal;      /* px */
    float ppx, ppy;   /* px, principal point */
    uint32_t width;   /* px */
    uint32_t height;  /* px */
    float cx, cy, cz; /* mm, advertised optical centre (world) */
} vis_camera_t;

/* The sensor and advertised pose of rig camera `index` (0-based; selects
   the sensor of the mix) with configuration `cam`: its own focal length
   and image size where set, else the row of `sensor_mix` (1 go26, 2 rc26)
   for that index, else default_focal and default_width x default_height;
   the centre shifted by position_error (m) along the fixed direction of
   vision.md §8. Writes *out. */
void vis_camera_resolve (const sim_camera_cfg_t *cam, int index, int sensor_mix, double default_focal,
                         int default_width, int default_height, double position_error, vis_camera_t *out);

/* Pixel coordinates of world point (x, y, z) in mm through `cam` into
   *u, *v. Returns 0, or -1 (pixels 0, 0) when the point is not below the
   camera's centre by at least 1 mm. Inline: the codec projects every
   detection. The camera frame is the world turned 180 degrees about x
   (it looks down): camera x = world x - cx, camera y = cy - world y,
   depth = cz - z. */
static inline int
vis_camera_project (const vis_camera_t *cam, double x, double y, double z, double *u, double *v)
{
    double depth = (double) cam->cz - z;
    if (!(depth >= 1.0)) {
        *u = *v = 0;
        return -1;
    }
    double k = (double) cam->focal / depth;
    *u = (double) cam->ppx + k * (x - (double) cam->cx);
    *v = (double) cam->ppy + k * ((double) cam->cy - y);
    return 0;
}

/* The inverse at a known height z (mm): world x, y (mm) of pixel (u, v).
   Returns 0, or -1 when z is not below the camera's centre. */
int vis_camera_unproject (const vis_camera_t *cam, double u, double v, double z, double *x, double *y);

#endif
