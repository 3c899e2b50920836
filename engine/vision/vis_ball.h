/*  vis_ball.h - what a camera makes of the ball (spec/vision.md §5.2): how
    much of it robots hide, where its image lands on the floor when it flies,
    and how large its blob is.
*/
#ifndef VIS_BALL_H_INCLUDED
#define VIS_BALL_H_INCLUDED

#include <math.h>

#include "common/base/sim_params.h"
#include "common/base/sim_snapshot.h"

/* How far sqrt (dx dx + dy dy) may lie from hypot (dx, dy): both are
   within an ulp or two of the true length when the squares are finite,
   so a micrometre plus 1e-12 of |dx| + |dy| is a wide margin (and finite
   for finite dx, dy whatever the squares do). The model measures with
   hypot, but decides with the squares wherever they are this far from
   the threshold: the same answers for a fraction of the cost. */
static inline double
vis_ball_hypot_slack (double dx, double dy)
{
    return 1e-6 + 1e-12 * (fabs (dx) + fabs (dy));
}

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
