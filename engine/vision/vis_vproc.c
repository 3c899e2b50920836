/*  vis_vproc.c - vision-processor's artefacts (see vis_vproc.h). */
#include "vis_vproc.h"

#include <string.h>

#include "common/base/sim_snapshot.h"
#include "common/base/sim_team.h"

/* Seconds between the power-ups of neighbouring cameras' clocks
   (t_capture_camera): distinct, and not a round number. */
#define S_CLOCK_SKEW 61.7

bool
vis_vproc_camera_clock (const sim_realism_t *r, uint64_t instant_ns, int index, double *t)
{
    /* counted from the camera's power-up: a clock that started
       camera_clock_offset before sim time 0, cameras S_CLOCK_SKEW apart */
    bool on = r->camera_clock_offset > 0;
    *t = on ? (double) instant_ns * 1e-9 + r->camera_clock_offset + S_CLOCK_SKEW * index : 0;
    return on;
}

/* vision-processor's loss of robots in close contact (docs/vision.md):
   of two seen robots whose centres are closer than `d`, the detection of
   one (a coin of rng_d) is dropped; seen[]/rx/ry/twice are compacted in
   place. Returns the new count. */
int
vis_vproc_close_robot_loss (double d, sim_rng_t *rng_d, int *seen, double *rx, double *ry, bool *twice, int m)
{
    bool lost[SIM_SNAPSHOT_MAX_ROBOTS] = { false };
    for (int j = 0; j < m; j++)
        for (int l = j + 1; l < m; l++) {
            if (lost[j] || lost[l])
                continue;
            double dx = rx[j] - rx[l], dy = ry[j] - ry[l];
            if (dx * dx + dy * dy < d * d)
                lost[sim_rng_chance (rng_d, 0.5) ? j : l] = true;
        }
    int kept = 0;
    for (int j = 0; j < m; j++) {
        if (lost[j])
            continue;
        seen[kept] = seen[j];
        rx[kept] = rx[j];
        ry[kept] = ry[j];
        twice[kept++] = twice[j];
    }
    return kept;
}

/* vision-processor's robots that briefly change team or id (its README:
   overexposed blobs): with chance `p` a detection shows the other team's
   colour (half the swaps) or another id of 0..15 (the other half). */
void
vis_vproc_identity_swap (double p, sim_rng_t *rng_d, int *team, int *id)
{
    if (!sim_rng_chance (rng_d, p))
        return;
    if (sim_rng_chance (rng_d, 0.5)) {
        *team = *team == SIM_TEAM_YELLOW ? SIM_TEAM_BLUE : SIM_TEAM_YELLOW;
        return;
    }
    int other = (int) sim_rng_uniform (rng_d, 0, 15);
    *id = other >= *id ? other + 1 : other;
}

/* The crossings of the field's lines (the markings vision-processor's
   geometry names: outline, halfway and goal-to-goal lines, penalty areas,
   centre circle), where its ball filter takes a line's tint for orange.
   Fills pts (2 per point) and returns the count. */
int
vis_vproc_line_crossings (const sim_field_t *fd, double *pts)
{
    double hl = fd->length / 2, hw = fd->width / 2, pd = fd->penalty_area_depth;
    double pw = fd->penalty_area_width / 2, rc = fd->center_circle_radius;
    const double xy[VIS_VPROC_MAX_CROSSINGS][2] = {
        { hl, hw },     { hl, -hw },     { -hl, hw },      { -hl, -hw },    { 0, hw },        { 0, -hw },
        { hl, 0 },      { -hl, 0 },      { 0, 0 },         { hl, pw },      { hl, -pw },      { -hl, pw },
        { -hl, -pw },   { hl - pd, pw }, { hl - pd, -pw }, { pd - hl, pw }, { pd - hl, -pw }, { hl - pd, 0 },
        { pd - hl, 0 }, { 0, rc },       { 0, -rc },       { rc, 0 },       { -rc, 0 },
    };
    memcpy (pts, xy, sizeof xy);
    return VIS_VPROC_MAX_CROSSINGS;
}
