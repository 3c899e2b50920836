/*  phys_lanes.h - the robot phase across robots: the limiter
    (physics.md §6.6), the wheels or ideal drive (§6.7), integration and
    the turn of robots without a mover, one robot per lane of an AVX2
    (four lanes) or AVX-512 (eight) register, up to PHYS_LANES robots a
    call. Each lane does the scalar path's IEEE operations in the scalar
    path's order (branches become selects of both sides), so a robot's
    bits do not depend on the path, the width, the lane or its
    neighbours. Chosen at run time: the widest the CPU runs; CPUs without
    AVX2 take the scalar path in phys_robot_phase.c. Internal to the core.
*/
#ifndef PHYS_LANES_H_INCLUDED
#define PHYS_LANES_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "phys_internal.h"

#define PHYS_LANES 32 /* robots in a batch: eight registers of four, four of eight */

/* Up to PHYS_LANES robots of one robot phase with their targets (§6.4), filled
   by the phase and consumed by phys_lanes_run. */
typedef struct {
    int n;                     /* robots in the batch, 0..PHYS_LANES */
    int k[PHYS_LANES];         /* their indices in the world's robots[] */
    int64_t has[PHYS_LANES];   /* -1 where the robot has a target, 0 where it coasts */
    int64_t ideal[PHYS_LANES]; /* -1 where its drive is ideal, 0 where wheels */
    double tx[PHYS_LANES];     /* target twist, robot frame; 0 where none */
    double ty[PHYS_LANES];
    double tw[PHYS_LANES];
} phys_lanes_t;

/* Whether this CPU (and its OS) runs the lanes (AVX2). */
bool phys_lanes_supported (void);

/* Lanes a register phys_lanes_run uses: 8 where the CPU runs AVX-512 F
   and DQ, else 4 where AVX2, else 0; at most the width set below. */
int phys_lanes_width (void);

/* Tests and benchmarks: at most width lanes a register (4 or 8), or 0
   (the default) for the widest this CPU runs. Process-wide; every width
   gives the same bits. Not to be changed while a world steps. */
void phys_lanes_set_width (int width);

/* One robot phase substep of dt for the batch's robots of world w (none
   of them with a mover active, §6.9): the limiter toward each target, the
   drive of each robot's specs, x, y, theta and the velocities advanced,
   cos/sin of a turned robot refreshed. The same bits as the scalar path.
   A batch of robots that follow each other in w->robots[] (the usual
   case) takes its constants from w->lane_consts, a field at once,
   rebuilding them first where they are not valid; any other batch from
   the robots' own rows. Call only where phys_lanes_supported;
   batch->n must be 1..PHYS_LANES and batch->k increasing (the batch is
   padded in place). */
void phys_lanes_run (phys_world_t *w, phys_lanes_t *batch, double dt);

#endif
