/*  vis_camera.c - the advertised pinhole camera and its projection. */
#include "vis_camera.h"

#include <math.h>

/* One sensor of a mix: focal length and image size. */
typedef struct {
    double focal;
    int width, height;
} s_sensor_t;

/* Chosen, not measured: the issue gives only the focal range of the
   venues' mixed rigs (721-1478 px). A 1920 x 1200 sensor (5.86 um pixels)
   behind a ~4.2 mm lens gives ~721 px; a 2448 x 2048 sensor (3.45 um)
   behind a ~5.1 mm lens ~1478 px. The rows cycle over the rig's cameras;
   the first two, which the default two-camera division A rig uses, see
   their whole half field from 6.4 m, the last two a quarter (four-camera
   rig). */
static const s_sensor_t s_go26[] = {
    { 721.0, 1920, 1200 },
    { 1100.0, 2448, 2048 },
    { 1478.0, 2448, 2048 },
    { 930.0, 1920, 1200 },
};
static const s_sensor_t s_rc26[] = {
    { 1250.0, 2448, 2048 },
    { 721.0, 1920, 1200 },
    { 1478.0, 2448, 2048 },
    { 1050.0, 1920, 1200 },
};
#define S_ROWS 4

void
vis_camera_resolve (const sim_camera_cfg_t *cam, int index, int sensor_mix, double default_focal,
                    int default_width, int default_height, double position_error, vis_camera_t *out)
{
    s_sensor_t s = { default_focal, default_width, default_height };
    int row = index >= 0 ? index % S_ROWS : 0;
    if (sensor_mix == 1)
        s = s_go26[row];
    else if (sensor_mix == 2)
        s = s_rc26[row];
    if (cam->focal_length_px > 0)
        s.focal = cam->focal_length_px;
    if (cam->image_width > 0)
        s.width = cam->image_width;
    if (cam->image_height > 0)
        s.height = cam->image_height;
    out->focal = (float) (s.focal > 0 ? s.focal : 1);
    out->width = s.width > 0 ? (uint32_t) s.width : 1;
    out->height = s.height > 0 ? (uint32_t) s.height : 1;
    out->ppx = (float) (out->width / 2.0);
    out->ppy = (float) (out->height / 2.0);

    /* The advertised position error lies along one fixed direction for
       every camera (vision.md §8); the true position stays in the model. */
    double ux = 0.3, uy = 0.7, uz = 0.05;
    double un = sqrt (ux * ux + uy * uy + uz * uz);
    double e = position_error / un;
    out->cx = (float) ((cam->x + e * ux) * 1000.0);
    out->cy = (float) ((cam->y + e * uy) * 1000.0);
    out->cz = (float) ((cam->z + e * uz) * 1000.0);
}

int
vis_camera_unproject (const vis_camera_t *cam, double u, double v, double z, double *x, double *y)
{
    double depth = (double) cam->cz - z;
    if (!(depth > 0) || !(cam->focal > 0))
        return -1;
    double k = depth / (double) cam->focal;
    *x = (double) cam->cx + k * (u - (double) cam->ppx);
    *y = (double) cam->cy - k * (v - (double) cam->ppy);
    return 0;
}
