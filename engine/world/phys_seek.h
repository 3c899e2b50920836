/*  phys_seek.h - a journal's world at any substep, fast (docs/journal.md
    "Seeking in a --journal file"): the replay script (phys_replay) run once with a
    copy of the world kept in memory every `every` substeps; the world at
    substep F is then the newest copy at or before F, run forward by the
    script to F, so a jump anywhere in a 30-minute journal runs at most
    `every` substeps instead of all of them.

    Inputs are applied as the physics service's replay applies them: at
    the substep they applied at, by phys_journal_apply, a sync input's
    substeps run after it. The world "at substep F" has every input before
    F applied and none pinned to F (those are the next to apply). Pure: no
    clock, no socket, no log.
*/
#ifndef PHYS_SEEK_H_INCLUDED
#define PHYS_SEEK_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "engine/physics/phys_world.h"
#include "phys_replay.h"

typedef struct phys_seek_t phys_seek_t;

/* Seeking in `script` (borrowed: it must outlive this) from `start`, the
   world at the journal's first substep, and its configuration `cfg` (both
   copied), a checkpoint every `every` substeps (> 0). NULL when out of
   memory. */
phys_seek_t *phys_seek_new (const phys_replay_t *script, const phys_world_t *start, const sim_config_t *cfg,
                            uint64_t every);

void phys_seek_destroy (phys_seek_t **self_p);

/* Run on from the newest checkpoint to `frame` (at most the script's
   end), keeping a checkpoint each `every` substeps: what a later seek
   before `frame` then costs at most. Returns 0, or -1 when out of memory
   or an input of the script is pinned to a substep already past (the
   checkpoints up to it stay). */
int phys_seek_build (phys_seek_t *self, uint64_t frame);

/* The world at substep `frame` (at most the script's end): a copy of the
   newest checkpoint at or before it run forward by the script (building
   the checkpoints up to `frame` first when they are not there). Yours to
   destroy; *cfg is its configuration and *next the first input not
   applied yet (for the caller to go on from). NULL when out of memory or
   the script cannot be run there. */
phys_world_t *phys_seek_world (phys_seek_t *self, uint64_t frame, sim_config_t *cfg, size_t *next);

/* Checkpoints kept, and the furthest substep they cover. */
size_t phys_seek_checkpoints (const phys_seek_t *self);
uint64_t phys_seek_built (const phys_seek_t *self);

#endif
