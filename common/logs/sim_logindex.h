/*  sim_logindex.h - the league's index record at the end of a plain log
    (docs/logs.md "The file format"), read and checked before it is used.

    The league's recorder and its indexer (ssl-go-tools) and `ssl-sim
    record` end a plain log with a record of type 6: every earlier
    record's offset (8 bytes each), the length of the index record itself
    (8 bytes), then "INDEXED". A reader finds it from the file's last 15
    bytes without reading the log.

    The index holds offsets only: a record's time and type are in its own
    header, so a player still reads one 16-byte header per record, but no
    message bytes unless it asks for them (the referee records, for the
    marks). Nothing the index says is trusted: the trailer must point at a
    record of type 6 whose size matches, its offsets must fit in the file
    before it, and each offset must be where the record before it ends
    (the first right after the file header, the last ending where the
    index starts), which also proves each one points at a record header.
    Whatever is off, the walk stops with a sentence that says what, and
    the caller reads the log record by record instead.
*/
#ifndef SIM_LOGINDEX_H_INCLUDED
#define SIM_LOGINDEX_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_logfile.h"

typedef struct sim_logindex_t sim_logindex_t;

/* The index of the log at `path`. Returns 1 and *out (yours to destroy)
   when the file ends with an index whose trailer and record header hold
   together; 0 when it has none (no "INDEXED" at its end, a compressed
   file, a file too short); -1 when it ends with "INDEXED" but the index
   is not valid, or cannot be read (why says what). */
int sim_logindex_open (const char *path, sim_logindex_t **out, char *why, size_t whylen);

void sim_logindex_destroy (sim_logindex_t **self_p);

/* Records the index lists. */
size_t sim_logindex_count (const sim_logindex_t *self);

/* The next listed record's header into *msg (time, type, offset; len its
   size), and its message bytes in msg->data when want(type) (NULL: never;
   else msg->data is NULL), borrowed until the next call. Checks that the
   record starts where the one before it ended and fits before the index.
   Returns 1, 0 after the last (which must end where the index starts), or
   -1 when the index and the records disagree or the file cannot be read
   (sim_logindex_error says what; every later call returns -1). */
int sim_logindex_next (sim_logindex_t *self, sim_logfile_msg_t *msg, bool (*want) (int32_t type));

/* Why the walk stopped, or "". Borrowed. */
const char *sim_logindex_error (const sim_logindex_t *self);

#endif
