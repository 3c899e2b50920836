/*  sim_logfile.h - the league's log file format (the files of its recorder
    and players, docs/logs.md): the 12 bytes "SSL_LOG_FILE", a 32-bit
    version (1), then records of (64-bit receive time in ns, 32-bit message
    type, 32-bit size, the message bytes), every integer big-endian. A name
    ending in ".gz" is a gzip stream of the same bytes (zlib).

    The writer appends (a file that already holds a log gets no second
    header, so a restarted writer goes on where the last one stopped; a
    plain log torn by a crash is cut back to its last whole record first,
    one ending with the league's index has the index cut off first,
    a compressed one torn by a crash is renamed FILE.gz.torn-<unix
    seconds> and a new one started, one damaged otherwise is refused); the
    reader checks the header and returns records one by one, and says
    clearly where and why it stopped when the file is damaged: a record cut
    short, or a size field no message can have. It never trusts a field
    it read.
*/
#ifndef SIM_LOGFILE_H_INCLUDED
#define SIM_LOGFILE_H_INCLUDED

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_LOGFILE_MAGIC   "SSL_LOG_FILE"
#define SIM_LOGFILE_VERSION 1
#define SIM_LOGFILE_HEADER  16 /* magic and version */
#define SIM_LOGFILE_RECORD  16 /* a record's time, type and size */

/* The largest message a record may hold. A vision or referee message
   travels in one UDP datagram (< 64 KiB); an index holds 8 bytes per
   record, so this also takes the index of a day-long log. A larger size
   field is damage. */
#define SIM_LOGFILE_MESSAGE_MAX (64u * 1024 * 1024)

/* The most records one index lists: its message (8 bytes each, then the
   15-byte trailer) is a record like any other, no larger than
   SIM_LOGFILE_MESSAGE_MAX, or readers refuse it. About 8.4 million: some
   seven hours of a realtime run's vision, under a minute of a fast run's
   (which records some 190 000 a wall second). A writer with more ends
   the log without an index, with a warning. */
#define SIM_LOGFILE_INDEX_MAX ((SIM_LOGFILE_MESSAGE_MAX - 8 - 7) / 8)

/* The longest message a reader's error (sim_logfile_error) has. */
#define SIM_LOGFILE_ERROR_MAX 512

/* The message types the league's tools know. */
typedef enum {
    SIM_LOGFILE_BLANK = 0,       /* to be ignored */
    SIM_LOGFILE_UNKNOWN = 1,     /* the reader guesses from the bytes */
    SIM_LOGFILE_VISION_2010 = 2, /* SSL_WrapperPacket of the 2010 protocol */
    SIM_LOGFILE_REFEREE = 3,     /* Referee (game controller) */
    SIM_LOGFILE_VISION = 4,      /* SSL_WrapperPacket */
    SIM_LOGFILE_TRACKER = 5,     /* TrackerWrapperPacket */
    SIM_LOGFILE_INDEX = 6,       /* the offsets of every record, last in a file */
} sim_logfile_type_t;

/* The index record's trailer: the record's own length (8 bytes) and this
   marker end an indexed file. */
#define SIM_LOGFILE_INDEXED "INDEXED"

/* The name of a type, for messages ("vision", "type 17"); buf is used for
   numbers without a name. */
const char *sim_logfile_type_name (int32_t type, char *buf, size_t size);

/* Current CLOCK_REALTIME in ns: what the league's recorder stamps. */
int64_t sim_logfile_now_ns (void);

/* ---- writing ---------------------------------------------------------- */

typedef struct sim_logfile_writer_t sim_logfile_writer_t;

/* A writer appending to `path` (".gz": compressed), with the header first
   when the file is new or empty. `index`: remember each record's offset
   and end a plain file with an index record when destroyed (ignored for
   ".gz", which has no random access). Appending to a plain log, it learns
   the offsets of the records already there, so the index covers them
   too; a plain log that ends with an index (an earlier writer's clean
   stop) has it cut off, the new records go in its place, and the file
   ends with an index again whatever `index` says. NULL when the file
   cannot be opened or holds something else (err says which). */
sim_logfile_writer_t *sim_logfile_writer_new (const char *path, bool index, char *err, size_t errlen);

/* Append one record. Returns 0, or -1 (the first failure is logged; the
   writer keeps trying). */
int sim_logfile_write (sim_logfile_writer_t *self, int64_t time_ns, int32_t type, const void *data,
                       size_t len);

/* Push buffered records to the file (compressed ones as a sync point a
   reader can decode up to). Returns 0 or -1. */
int sim_logfile_flush (sim_logfile_writer_t *self);

/* Records written, and writes that failed. */
uint64_t sim_logfile_written (const sim_logfile_writer_t *self);
uint64_t sim_logfile_failures (const sim_logfile_writer_t *self);

/* Write the index (when asked for), flush and close; nulls *self_p.
   Returns 0, or -1 when the last bytes could not be written. Safe on NULL
   and twice. */
int sim_logfile_writer_destroy (sim_logfile_writer_t **self_p);

/* ---- reading ---------------------------------------------------------- */

typedef struct sim_logfile_reader_t sim_logfile_reader_t;

/* One record; data is borrowed until the next call. */
typedef struct {
    int64_t time_ns;
    int32_t type;
    const uint8_t *data;
    size_t len;
    uint64_t offset; /* of the record in the (uncompressed) stream */
} sim_logfile_msg_t;

/* A reader of `path`, plain or gzip (told apart by its bytes, not its
   name), with its header checked. NULL when it cannot be opened, or is
   not a log file of version 1 (err says which). */
sim_logfile_reader_t *sim_logfile_reader_new (const char *path, char *err, size_t errlen);

/* The same reader over `size` bytes at `data` (borrowed: they must stay
   until the reader is destroyed), named `name` in its messages (NULL: "the
   log"). The file reader is this one fed from the file. */
sim_logfile_reader_t *sim_logfile_reader_mem (const void *data, size_t size, const char *name, char *err,
                                              size_t errlen);

void sim_logfile_reader_destroy (sim_logfile_reader_t **self_p);

/* The next record into *msg. Returns 1, 0 at the clean end of the file,
   or -1 at damage: sim_logfile_error says what and at which byte, and
   every later call returns -1 too. */
int sim_logfile_next (sim_logfile_reader_t *self, sim_logfile_msg_t *msg);

/* Why the reader stopped at damage, or "". Borrowed; at most
   SIM_LOGFILE_ERROR_MAX bytes with its NUL. */
const char *sim_logfile_error (const sim_logfile_reader_t *self);

/* True when the reader stopped at damage that is the file's end: a record
   cut short, or a gzip stream without its end (what a writer killed
   mid-run leaves), rather than bytes that make no sense. */
bool sim_logfile_reader_torn (const sim_logfile_reader_t *self);

/* Go back to the first record (for a player's --loop). Returns 0 or -1. */
int sim_logfile_rewind (sim_logfile_reader_t *self);

/* Go to the record at `offset` of the (uncompressed) stream, one an
   earlier sim_logfile_next gave in msg->offset: a plain file or memory
   jumps there; a gzip stream has no random access, so it reads on to it
   (from the start when it lies behind). Returns 0, or -1 (damage or an
   offset past the end: sim_logfile_error says which). */
int sim_logfile_seek (sim_logfile_reader_t *self, uint64_t offset);

/* Bytes of the (compressed) file read so far, and its size: a progress
   measure that works for both kinds. */
uint64_t sim_logfile_position (const sim_logfile_reader_t *self);
uint64_t sim_logfile_file_size (const sim_logfile_reader_t *self);

/* ---- a compressed log written plain first ---------------------------- */

/* Compressing costs the process that writes a fast run's records about a
   quarter of its speed, so `ssl-sim run --record FILE.gz` has vision
   write FILE.gz.part, a plain log, and the launcher compresses it into
   FILE.gz when the run ends (docs/logs.md). */
#define SIM_LOGFILE_PART ".part"

/* The plain part a compressed log `path` is written through: `path` and
   ".part" into buf. Returns 1 (buf filled), 0 when `path` is not a
   compressed name (it is written as it is; buf untouched), -1 when buf is
   too small. */
int sim_logfile_part_path (const char *path, char *buf, size_t size);

/* Compress the plain log `part` into a gzip log at `path`, record by
   record (the part's index record left out: a gzip log has no random
   access, and `ssl-sim record FILE.gz` writes none either): written to a
   temporary name beside `path` (path.XXXXXX), synced,
   renamed over `path` and the directory synced, and only then `part`
   removed, so a kill at any moment leaves `path` absent or whole and the
   records in `part`. `stop` (NULL: none), when it becomes non-zero (a
   signal handler's flag), ends the copy early. *records: how many were
   copied. Returns 0; 1 when `part` was torn at its end (a crash cut its
   last record): what came before it is in `path`, err says where it
   stopped, and `part` is removed all the same; -1 when `part` cannot be
   read, is damaged before its end (err names the byte), `path` cannot be
   written, or `stop` was raised (err: "interrupted: the records stay in
   PART"): `part` is kept and `path` is not touched. */
int sim_logfile_compress (const char *part, const char *path, const volatile sig_atomic_t *stop,
                          uint64_t *records, char *err, size_t errlen);

#endif
