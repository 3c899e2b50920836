/*  phys_checkpoint.h - the physics service's checkpoint: the whole world,
    the effective configuration and its serial, written atomically to a
    file in the runtime directory, so a physics process killed with -9 (or
    restarted on purpose) resumes with the same robots, ball, clock and
    random stream (ARCHITECTURE.md §3, docs/operations.md).

    A checkpoint belongs to one run: it carries a key (the launcher's run
    id, or a hash of the service's own options when no launcher set one) and
    is resumed only by a process with the same key, so a new `ssl-sim run`
    never picks up a stale world. The world is stored as the core's own
    image, valid only for the same build (size and format checked); a file
    from another build is refused and physics starts fresh.

    A checkpoint also says how many inputs were journaled before it
    (phys_journal.h): the journal beside it replays the inputs from that
    number on. It also keeps the ids of the newest requests applied that
    asked to be applied at most once (SIM_BUS_ID_ONCE): the journal after
    it names only those applied since, and every later physics of the run
    must still know the earlier ones to answer a repeat without applying
    it.
*/
#ifndef PHYS_CHECKPOINT_H_INCLUDED
#define PHYS_CHECKPOINT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "engine/physics/phys_world.h"

/* The most once-only request ids a checkpoint holds. */
#define PHYS_CHECKPOINT_ONCE_MAX 4096u

/* What a checkpoint carries besides the world and the configuration. */
typedef struct {
    uint64_t serial;      /* of the effective configuration */
    uint64_t journal_seq; /* inputs journaled before it: the first one a replay applies */
    /* the once-only request ids applied so far, oldest first: written
       from once_ids[once_count] (borrowed; NULL with a count of 0: none);
       read into once_ids (room for PHYS_CHECKPOINT_ONCE_MAX, NULL: not
       wanted), once_count set */
    uint64_t *once_ids;
    size_t once_count;
    /* read: why the checkpoint was refused goes into why[why_len] when
       why is not NULL (a caller that answers with it: libsslsim's load),
       else to the log as a service starting fresh */
    char *why;
    size_t why_len;
} phys_checkpoint_meta_t;

/* Write `world` with its effective configuration `cfg` and `serial` to
   `path` atomically (a temporary file in the same directory, then rename).
   `key` tags the run. Returns 0, or -1 (logged) on an I/O failure; the old
   checkpoint then stays in place. */
int phys_checkpoint_save (const char *path, const char *key, const phys_world_t *world,
                          const sim_config_t *cfg, uint64_t serial);

/* phys_checkpoint_save with the whole *meta (save is this with a journal
   sequence of 0 and no ids). Returns 0, or -1 (logged; also for more than
   PHYS_CHECKPOINT_ONCE_MAX ids). */
int phys_checkpoint_write (const char *path, const char *key, const phys_world_t *world,
                           const sim_config_t *cfg, const phys_checkpoint_meta_t *meta);

/* Read the checkpoint at `path` if it exists and carries `key`. On success
   returns a new world (the caller owns it), fills *cfg with the effective
   configuration it was saved with (defaults overwritten; the caller puts
   back what is process-local: bus endpoints, log level) and *serial.
   Returns NULL when there is no such file, its key differs, or it is
   corrupt or from another build (the reason logged at INFO/WARN). */
phys_world_t *phys_checkpoint_load (const char *path, const char *key, sim_config_t *cfg, uint64_t *serial);

/* phys_checkpoint_load that fills the whole *meta (its once_ids and why
   as the caller set them, see phys_checkpoint_meta_t). */
phys_world_t *phys_checkpoint_read (const char *path, const char *key, sim_config_t *cfg,
                                    phys_checkpoint_meta_t *meta);

/* The run key of this process: $SSL_SIM_RUN_ID when set (the launcher sets
   a fresh one per `ssl-sim run`), else "cfg-" and a hash of the INI dump
   of `own` (the options the service was started with). Written into buf. */
void phys_checkpoint_key (const sim_config_t *own, char *buf, size_t len);

#endif
