/*  vis_vproc.h - the artefacts of TIGERs' vision-processor that the
    `vp26` realism preset turns on (docs/vision.md, "vision-processor"):
    each camera's own clock, robots in close contact losing one detection,
    robots that briefly change team or id, and ghost balls at the field's
    line crossings. vis_capture calls them where its frame is built, each
    only when its [realism] key is above 0, so SSL-Vision's presets draw
    nothing more. Pure: given the random stream to draw from.
*/
#ifndef VIS_VPROC_H_INCLUDED
#define VIS_VPROC_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_field.h"
#include "common/base/sim_params.h"
#include "common/base/sim_rng.h"

#define VIS_VPROC_MAX_CROSSINGS 23

/* t_capture_camera of camera `index` for the capture at instant_ns: the
   true instant on a clock that started r->camera_clock_offset before sim
   time 0, the cameras powered up apart. False (and 0) when the preset
   sends no camera clock. */
bool vis_vproc_camera_clock (const sim_realism_t *r, uint64_t instant_ns, int index, double *t);

/* Of two seen robots whose centres are closer than `d`, the detection of
   one (a coin of rng) is dropped; seen[], rx[], ry[] and twice[] are
   compacted in place. Returns the new count. */
int vis_vproc_close_robot_loss (double d, sim_rng_t *rng, int *seen, double *rx, double *ry, bool *twice,
                                int m);

/* With chance p a detection shows the other team's colour (half the
   swaps) or another id of 0..15 (the other half). */
void vis_vproc_identity_swap (double p, sim_rng_t *rng, int *team, int *id);

/* The crossings of the field's lines (outline, halfway and goal-to-goal
   lines, penalty areas, centre circle) into pts (2 per point). Returns
   how many (VIS_VPROC_MAX_CROSSINGS). */
int vis_vproc_line_crossings (const sim_field_t *field, double *pts);

#endif
