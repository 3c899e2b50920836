/*  vis_ball.h - what a camera makes of the ball (spec/vision.md §5.2): how
    much of it robots hide, where its image lands on the floor when it flies,
    and how large its blob is.
*/
#ifndef VIS_BALL_H_INCLUDED
#define VIS_BALL_H_INCLUDED

#include "sim_params.h"
#include "sim_snapshot.h"

/* Samples of the flat disc (15 x 15 grid strictly inside the radius). */
#define VIS_BALL_SAMPLES 145

/* Fraction of the ball disc (radius r, centre bx, by, bz), turned to face
   the camera at `cam`, whose line of sight to the camera misses every
   robot cylinder of `snap`; the centroid of the visible samples (unrotated,
   so it keeps the ball's height) goes to *cx, *cy, *cz (the centre when
   nothing is visible). */
double vis_ball_visibility (const sim_snapshot_t *snap, double bx, double by, double bz, double r,
                            const sim_camera_cfg_t *cam, double *cx, double *cy, double *cz);

/* Floor projection of centroid (cx, cy, cz) of a ball of radius r through
   the camera: reported horizontal position into *px, *py and the clamped
   bottom height z' into *zp. Identity for a ball on the floor; nothing
   moves when the camera is not above the floor. */
void vis_ball_project (double cx, double cy, double cz, double r, const sim_camera_cfg_t *cam, double *px,
                       double *py, double *zp);

/* The height term of the area model: (f(Cz) / f(Cz - z'))^2 with
   f(d) = 1000 d / focal - 1, or 1 when either f is <= 1e-9. */
double vis_ball_area_term (double cam_z, double zp, double focal_length_px);

#endif
