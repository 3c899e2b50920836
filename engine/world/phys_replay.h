/*  phys_replay.h - a --journal file as a replay script (docs/logs.md):
    the configuration the run started with and every input with the
    substep it applied at, read with phys_journal_read into memory, so
    `ssl-sim replay` (the launcher, for the configuration) and physics (for
    the inputs) read one description of the run. */
#ifndef PHYS_REPLAY_H_INCLUDED
#define PHYS_REPLAY_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bus/sim_bus.pb-c.h"

/* The run key of every --journal file: a replay takes the journal of any
   run, whose configuration comes with it. */
#define PHYS_REPLAY_KEY "ssl-sim journal"

typedef struct phys_replay_t phys_replay_t;

/* Read the journal at `path`. NULL when it cannot be read, has no
   configuration record (not a --journal file) or does not start at the
   first substep of a run (err says why). A torn or damaged tail ends the
   script there (phys_replay_torn). */
phys_replay_t *phys_replay_load (const char *path, char *err, size_t errlen);

/* The same from an open stream `f` (not closed), `name` in the messages:
   what phys_replay_load does once the file is open, and what reads a
   journal held in memory (fmemopen). */
phys_replay_t *phys_replay_load_stream (FILE *f, const char *name, char *err, size_t errlen);

void phys_replay_destroy (phys_replay_t **self_p);

/* The configuration the run started with, as INI text. Borrowed. */
const char *phys_replay_config (const phys_replay_t *self);

/* The substep length the journal was written with, ns. */
uint64_t phys_replay_substep_ns (const phys_replay_t *self);

/* Inputs, in order. */
size_t phys_replay_count (const phys_replay_t *self);

/* Input i (< count): the decoded Request (borrowed), *frame the substep
   count it applied at, *source the last SOURCE note before it (its kind,
   "" when none; earlier builds added the carrier); the sender's address,
   when the edge named it, is the Request's `source`. */
const Simbus__Request *phys_replay_input (const phys_replay_t *self, size_t i, uint64_t *frame,
                                          const char **source);

/* The furthest substep the run reached (its last mark, or the end of its
   last input's substeps). */
uint64_t phys_replay_end_frame (const phys_replay_t *self);

/* The wire timestamps' bases the run used (EPOCH records): how many
   (0 for a journal written before they were recorded: the replay then
   decides the base as a run would), and change i (< count): from substep
   *frame on, Unix time *epoch_us at sim time 0 (0: from zero). In order. */
size_t phys_replay_epoch_count (const phys_replay_t *self);
void phys_replay_epoch (const phys_replay_t *self, size_t i, uint64_t *frame, int64_t *epoch_us);

/* True when the file ended in a torn or damaged record. */
bool phys_replay_torn (const phys_replay_t *self);

#endif
