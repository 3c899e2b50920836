/*  phys_journal.h - the physics service's input journal (docs/journal.md):
    every input physics applies (a bus Request, as its packed bytes) with
    the substep at which it applied, appended to a file beside the
    checkpoint before the input is answered, so a physics process killed
    with -9 comes back to exactly the state it had: load the checkpoint,
    replay the journal.

    Three parts, one format:
    - phys_journal_apply: how an input changes the world and the effective
      configuration. The service and the replay both call it, so a
      replayed input does exactly what it did the first time, errors
      included;
    - the writer (phys_journal_t): a new journal is started after each
      checkpoint (atomically: a temporary file renamed over the old one);
      inputs and time marks are appended with one write(2) each. A mark
      promises that nothing later than its substep was published before
      the next mark, so a replay that runs to the last mark never goes
      back in sim time, and frame numbers (vision derives them from sim
      time) never repeat;
    - the reader and phys_journal_replay, which takes a checkpoint's world
      to the end of the journal.

    kill -9 does not lose the page cache: write(2) without fdatasync is
    enough for a process crash (not for a power cut, which the checkpoint's
    fsync covers only up to the last checkpoint).
*/
#ifndef PHYS_JOURNAL_H_INCLUDED
#define PHYS_JOURNAL_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "phys_apply.h"
#include "common/config/sim_config.h"
#include "common/base/sim_errors.h"
#include "engine/physics/phys_world.h"
#include "bus/sim_bus.pb-c.h"

#define PHYS_JOURNAL_VERSION 1u

/* A mark promises this much sim time ahead of the substep that needed it:
   one write per 100 ms of free-running sim time. */
#define PHYS_JOURNAL_LEAD_NS 100000000ull

/* A record more than this many substeps after the one before it is taken
   for damage (the replay stops there). */
#define PHYS_JOURNAL_MAX_GAP (1ull << 24)

/* What applying one input produced. Large (the feedback): keep one. */
typedef struct {
    sim_errors_t errors;       /* from the simulator_command */
    sim_errors_t robot_errors; /* from the team_control */
    phys_feedback_t feedback;
    phys_changes_t changes;
} phys_journal_result_t;

/* Apply a Request's simulator_command and team_control (in that order,
   protocol.md §4.1) to world and cfg; *out is reset first. The Request's
   substeps are not run here: the caller runs them (and publishes what
   they produce). */
void phys_journal_apply (phys_world_t *world, sim_config_t *cfg, const Simbus__Request *req,
                         phys_journal_result_t *out);

/* Kinds 3 and up change nothing a replay does to the world (docs/
   journal.md "Versioning"): the restart replay skips them. */
typedef enum {
    PHYS_JOURNAL_INPUT = 1,
    PHYS_JOURNAL_MARK = 2,
    PHYS_JOURNAL_CONFIG = 3, /* the effective configuration as INI text (seed included) at the start */
    PHYS_JOURNAL_SOURCE = 4, /* where the next input came from, as text */
    PHYS_JOURNAL_EPOCH = 5,  /* the wire timestamps' base from this substep on (phys_journal_epoch) */
} phys_journal_kind_t;

/* An EPOCH record's payload: the Unix time (us) the wire timestamps count
   sim time from (0: from zero), as 8 bytes little-endian. */
#define PHYS_JOURNAL_EPOCH_BYTES 8
void phys_journal_epoch_encode (int64_t epoch_us, uint8_t out[PHYS_JOURNAL_EPOCH_BYTES]);
int64_t phys_journal_epoch_decode (const uint8_t in[PHYS_JOURNAL_EPOCH_BYTES]);

/* ---- writing ---------------------------------------------------------- */

typedef struct phys_journal_t phys_journal_t;

/* A writer for the journal at `path` (copied), tagged with the run key
   `key` (copied; the checkpoint's), whose first input will be number
   `seq` (what a replay returned, or 0). Nothing is written until
   phys_journal_start. Returns NULL when out of memory or for a key over
   4096 bytes. */
phys_journal_t *phys_journal_new (const char *path, const char *key, uint64_t seq);

/* Close the file; nulls *self_p. Safe on NULL and twice. */
void phys_journal_destroy (phys_journal_t **self_p);

/* Start a new journal that follows a checkpoint of `world` holding the
   inputs before number `seq` (phys_journal_seq when it was written): written to a temporary file with its
   header and a mark of everything promised so far, renamed over the old
   journal, then appended to. Returns 0, or -1 (logged) when the file
   cannot be written: the writer then keeps appending to the journal it
   had, which still follows an older checkpoint. */
int phys_journal_start (phys_journal_t *self, uint64_t seq, const phys_world_t *world);

/* Have phys_journal_start write the journal at the writer's path in
   place (opened, emptied, written) instead of renaming a temporary file
   over it. For the --journal file, which the launcher locks for the whole
   run (docs/journal.md, "One run per journal"): a rename would put an
   unlocked file at the name, leave the lock on the old one and so let a
   second run take the name. Not for the restart journal, started again at
   every checkpoint, which needs the rename to be whole at any instant. */
void phys_journal_in_place (phys_journal_t *self);

/* Append `req`, about to be applied to `world` at its current substep,
   as input number phys_journal_seq (which then grows by one), and count
   its substeps as promised. The record holds req packed without what a
   replay must not see: received_us (wall time: a journal's inputs are the
   same bytes every run) and unknown fields (they change nothing physics
   does). Returns 0, or -1 when it could not be written (not started, or
   an I/O error: logged once per run of failures); the input still
   counts. */
int phys_journal_input (phys_journal_t *self, const phys_world_t *world, const Simbus__Request *req);

/* The same for a req that came packed: `wire` holds the bus Envelope it
   was decoded from, as received (sim_link_received), and the record is
   cut from those bytes instead of packing req again: its fields in their
   order, without received_us and unknown ones. A sender that packs with
   protobuf-c (every one of this project) gives the bytes
   phys_journal_input would; any other gives bytes that decode to the same
   message. When wire is NULL or does not hold one whole request, req is
   packed as phys_journal_input does. */
int phys_journal_input_wire (phys_journal_t *self, const phys_world_t *world, const Simbus__Request *req,
                             const void *wire, size_t wire_len);

/* Call after every substep, before anything about it is published: when
   `world` has passed the promised substep, append a mark
   PHYS_JOURNAL_LEAD_NS ahead. Returns 0, or -1 as phys_journal_input. */
int phys_journal_reached (phys_journal_t *self, const phys_world_t *world);

/* Append a mark promising exactly `substeps` past `world`'s current
   substep (0: that substep), when it is beyond what is promised: call it
   before anything about those substeps is published. A writer given
   these instead of phys_journal_reached promises no sim time that was not
   published: the restart journal, so a physics killed -9 resumes where
   its vision last saw it, not up to PHYS_JOURNAL_LEAD_NS ahead (a jump
   vision numbers as if no time had passed, and a --journal replay does
   not make). Returns 0, or -1 as phys_journal_input. */
int phys_journal_promise (phys_journal_t *self, const phys_world_t *world, uint64_t substeps);

/* Append a record of `kind` (PHYS_JOURNAL_CONFIG, _SOURCE or _EPOCH) holding
   `len` bytes of `payload` at `world`'s current substep. Returns 0, or -1
   as phys_journal_input. */
int phys_journal_note (phys_journal_t *self, const phys_world_t *world, phys_journal_kind_t kind,
                       const void *payload, size_t len);

/* Go on appending to the journal already at the writer's path (a
   restarted physics continuing a --journal file) instead of starting a
   new one; what `world` has reached counts as promised. A torn record at
   its end (a process killed in the middle of a write) is cut off. The
   number the file's next input takes (past its last one) goes to
   *next_seq (NULL: not wanted): below the writer's, the file lacks
   inputs the run applied (phys_journal_copy_input). Returns 0, or -1 when
   there is no such file or it cannot be written (then call
   phys_journal_start). */
int phys_journal_reopen (phys_journal_t *self, const phys_world_t *world, uint64_t *next_seq);

/* The number of the next input (inputs recorded so far, counting from
   the first journal of the run). */
uint64_t phys_journal_seq (const phys_journal_t *self);

/* Writes that failed since the writer was made. */
uint64_t phys_journal_failures (const phys_journal_t *self);

/* ---- reading ---------------------------------------------------------- */

/* The header of a journal file. */
typedef struct {
    uint64_t base_seq;   /* the first input it may hold */
    uint64_t base_frame; /* substep count of the checkpoint it follows */
    uint64_t base_time_ns;
    uint64_t substep_ns;
    bool torn; /* reading stopped at a torn or damaged record */
    /* the file's version once its magic was read, also when it is not
       PHYS_JOURNAL_VERSION and the read fails (the caller's value stays
       when there is no header): a caller can say why it was refused */
    uint32_t version;
} phys_journal_header_t;

/* One record; payload borrowed, valid during the callback only. */
typedef struct {
    phys_journal_kind_t kind;
    uint64_t seq;     /* input: its number; mark: inputs before it */
    uint64_t frame;   /* input: the substep count it applied at; mark: promised */
    uint64_t time_ns; /* sim time at `frame` */
    int64_t wall_us;  /* CLOCK_REALTIME when written (for tools only) */
    const uint8_t *payload;
    size_t payload_len; /* input: a packed Simbus.Request */
} phys_journal_record_t;

/* Return false to stop reading. */
typedef bool (phys_journal_fn) (void *arg, const phys_journal_record_t *rec);

/* Read the journal at `path` (key NULL: of any run): fill *header, then call fn (arg, record)
   for each whole record in order, stopping at the first torn or damaged
   one (what a crash in the middle of a write leaves; logged). Returns the
   number of records passed to fn, or -1 when there is no file, or its
   header is damaged, of another version or of another run than `key`
   (logged at INFO, except for no file). */
int phys_journal_read (const char *path, const char *key, phys_journal_header_t *header, phys_journal_fn *fn,
                       void *arg);

/* The same from an open stream `f` (read from where it stands; not
   closed), `name` in the log lines: what phys_journal_read does once the
   file is open, and what reads a journal held in memory (fmemopen). */
int phys_journal_read_stream (FILE *f, const char *name, const char *key, phys_journal_header_t *header,
                              phys_journal_fn *fn, void *arg);

/* Append the input record `rec`, read from another journal of the run
   (the restart journal), as it is there: its number, substep, sim and
   wall time and bytes. What a continued --journal file lacks of what the
   restart journal holds (a physics killed between the two writes of an
   input), taken in order before anything else is appended. Returns 0, or
   -1 as phys_journal_input (also for a record that is not an input). */
int phys_journal_copy_input (phys_journal_t *self, const phys_journal_record_t *rec);

/* The end of the last whole record of the journal at `path` (key NULL:
   of any run) into *end, and the number its next input takes into
   *next_seq (past its last input, or the header's base when it holds
   none). Cheap for a file of any length that ends with a whole record
   (read from the end); a torn end is read from the front. Returns 0, or
   -1 as phys_journal_read. */
int phys_journal_tail (const char *path, const char *key, uint64_t *end, uint64_t *next_seq);

/* What a replay did. */
typedef struct {
    uint64_t seq;            /* the next input's number */
    uint64_t inputs;         /* applied */
    uint64_t skipped;        /* already in the checkpoint */
    uint64_t config_changes; /* inputs that changed the configuration */
    uint64_t substeps;       /* run */
    bool rig;                /* an input replaced the camera rig */
    bool complete;           /* the whole journal applied: none damaged or foreign */
} phys_journal_replay_t;

/* Take `world` and `cfg`, as loaded from a checkpoint that holds the
   inputs before number `seq`, to the end of the journal at `path`: run
   the substeps up to each input's, apply it with phys_journal_apply
   (`scratch` holds what it produced), run its substeps; finally run up to
   the last mark. A journal of another run, or one that does not follow
   the checkpoint (it starts after `seq`, or another substep length),
   changes nothing. Returns 0 (*out filled; a missing journal is an empty
   one), or -1 when the replay had to stop at a record that does not fit
   (logged; the world is as far as it got and *out says how far). */
int phys_journal_replay (const char *path, const char *key, phys_world_t *world, sim_config_t *cfg,
                         uint64_t seq, phys_journal_result_t *scratch, phys_journal_replay_t *out);

#endif
