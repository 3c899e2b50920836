/*  phys_scene.h - the canonical scripted scene shared by the determinism
    test (physics.md §12 "Determinism") and the benchmark: blue 0 dribbles
    and turns, chips at 4 m/s / 45° during substeps 4000-4099, every other
    robot wanders (odd numbers by wheel-speed commands, even ones by local
    velocity), commands refreshed every 20 substeps.
*/
#ifndef PHYS_SCENE_H_INCLUDED
#define PHYS_SCENE_H_INCLUDED

#include "phys_world.h"

#define PHYS_SCENE_SUBSTEPS 10000
#define PHYS_SCENE_SEED     7
#define PHYS_SCENE_ROBOTS   6

/* Set the scene's seed and robot count on a definition that already
   holds the defaults (phys_world_def_default). */
void phys_scene_configure (phys_world_def_t *def);

/* Place blue 0 in open space with the ball at its dribbler (call once at
   time 0, before the first step). */
void phys_scene_setup (phys_world_t *world);

/* Send the commands of substep k (call before the k-th phys_world_step). */
void phys_scene_drive (phys_world_t *world, int k);

#endif
