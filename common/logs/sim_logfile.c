/*  sim_logfile.c - the league's log files, plain and gzip: writing,
    through zlib's gz* functions (a plain file in their transparent mode,
    "T"), and a compressed log written plain first. Reading is
    sim_logfile_read.c. */
#include "sim_logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/base/sim_log.h"

#include "sim_logfile_internal.h"

const char *
sim_logfile_type_name (int32_t type, char *buf, size_t size)
{
    switch (type) {
    case SIM_LOGFILE_BLANK:
        return "blank";
    case SIM_LOGFILE_UNKNOWN:
        return "unknown";
    case SIM_LOGFILE_VISION_2010:
        return "vision 2010";
    case SIM_LOGFILE_REFEREE:
        return "referee";
    case SIM_LOGFILE_VISION:
        return "vision";
    case SIM_LOGFILE_TRACKER:
        return "tracker";
    case SIM_LOGFILE_INDEX:
        return "index";
    default:
        snprintf (buf, size, "type %d", (int) type);
        return buf;
    }
}

int64_t
sim_logfile_now_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- writing ---------------------------------------------------------- */

struct sim_logfile_writer_t {
    char *path;
    gzFile gz;
    bool compressed;
    bool index;
    uint64_t offset; /* of the next record in the uncompressed stream */
    uint64_t *offsets;
    size_t n_offsets, cap_offsets;
    bool index_full; /* more records than one index may list: none */
    uint64_t written, failures;
};

/* How an existing log ends (s_scan). */
typedef struct {
    uint64_t end;      /* of its last whole record, in the uncompressed stream */
    uint64_t last_at;  /* where that record starts */
    int32_t last_type; /* and its type (-1: no record) */
    bool damaged;      /* reading stopped before the end of the file */
    bool torn;         /* ... because the file ends inside a record or stream */
    char why[512];     /* the reader's words when damaged */
} s_scan_t;

static int s_remember_offset (sim_logfile_writer_t *self);

/* Read the log r to its end; each whole record's offset into `into`'s
   list when given (a plain log appended to: the index written at the end
   covers the records of earlier writers too). */
static void
s_scan (sim_logfile_reader_t *r, sim_logfile_writer_t *into, s_scan_t *out)
{
    sim_logfile_msg_t m;
    int rc;
    out->end = SIM_LOGFILE_HEADER;
    out->last_at = 0;
    out->last_type = -1;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        if (into && into->index) {
            into->offset = m.offset;
            s_remember_offset (into);
        }
        out->end = m.offset + SIM_LOGFILE_RECORD + m.len;
        out->last_at = m.offset;
        out->last_type = m.type;
    }
    out->damaged = rc < 0;
    out->torn = rc < 0 && sim_logfile_reader_torn (r);
    snprintf (out->why, sizeof out->why, "%s", sim_logfile_error (r));
}

/* A compressed log a crash tore (what a vision that systemd restarts
   finds) moved to path.torn-<unix seconds>, out of the way of a new one:
   refusing would keep the restarted writer down. Returns 0 (the new log
   starts empty) or -1 (err says why). */
static int
s_set_aside (const char *path, const char *why, char *err, size_t errlen)
{
    size_t len = strlen (path) + 40;
    char *aside = malloc (len);
    if (!aside) {
        lf_err (err, errlen, "out of memory");
        return -1;
    }
    long long now = (long long) time (NULL);
    struct stat st;
    /* a second crash within the same second gets its own name */
    for (int k = 0; k < 100; k++) {
        if (k == 0)
            snprintf (aside, len, "%s.torn-%lld", path, now);
        else
            snprintf (aside, len, "%s.torn-%lld-%d", path, now, k);
        if (lstat (aside, &st) != 0)
            break;
    }
    if (rename (path, aside) != 0) {
        lf_err (err, errlen, "%s does not end cleanly (%s) and cannot be moved aside to %s: %s", path, why,
                aside, strerror (errno));
        free (aside);
        return -1;
    }
    sim_warn ("log file %s did not end cleanly (%s): moved it to %s (`zcat %s` reads it up to the tear) and "
              "starting a new %s",
              path, why, aside, aside, path);
    free (aside);
    return 0;
}

/* What an existing file holds: 0 nothing (new or empty), 1 a log of
   version 1 that can be appended to (self->offset: the byte a plain one
   goes on at), -1 something else (err says what). A record appended
   behind damage would never be read, so: a plain log torn by a crash (it
   ends inside a record) is cut back to its last whole record, which is
   what a restarted writer needs; a compressed one torn the same way (its
   gzip stream cut short) is moved aside (s_set_aside), since the tear
   sits inside compressed data that cannot be cut back cheaply; one
   damaged elsewhere, plain or compressed, is refused. A plain log whose
   last whole record is the league's index (an earlier writer stopped
   cleanly) is cut back to where the index starts: records behind it
   would leave the file's end pointing at an index that misses them, so
   the new ones go in its place, and the writer ends the file with an
   index again (*had_index). The offsets of the records kept go into
   self's list (plain logs only). */
static int
s_existing (sim_logfile_writer_t *self, const char *path, bool *had_index, char *err, size_t errlen)
{
    struct stat st;
    *had_index = false;
    if (stat (path, &st) != 0 || st.st_size == 0)
        return 0;
    char why[SIM_LOGFILE_ERROR_MAX];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, why, sizeof why);
    if (!r) {
        lf_err (err, errlen, "%s exists and is not an SSL log file of version 1 (%s); not appending to it",
                path, why);
        return -1;
    }
    s_scan_t scan;
    s_scan (r, self->compressed ? NULL : self, &scan);
    sim_logfile_reader_destroy (&r);
    if (self->compressed && !scan.damaged) {
        self->offset = scan.end;
        return 1;
    }
    if (self->compressed && scan.torn)
        return s_set_aside (path, scan.why, err, errlen);
    if (self->compressed) {
        lf_err (err, errlen,
                "%s does not end cleanly (%s): records appended to it could never be read. Record to a new "
                "file; `zcat %s > FILE.log` saves what it holds",
                path, scan.why, path);
        return -1;
    }
    if (scan.damaged && !scan.torn) {
        lf_err (err, errlen, "%s is damaged (%s); not appending to it", path, scan.why);
        return -1;
    }
    uint64_t keep = scan.end;
    if (scan.last_type == SIM_LOGFILE_INDEX) {
        keep = scan.last_at; /* the index is no record of the log: not in the new one */
        if (self->n_offsets)
            self->n_offsets--;
        *had_index = true;
    }
    if (keep < (uint64_t) st.st_size && truncate (path, (off_t) keep) != 0) {
        lf_err (err, errlen, "%s cannot be cut back to its last whole record (byte %llu): %s", path,
                (unsigned long long) keep, strerror (errno));
        return -1;
    }
    if (scan.torn)
        sim_warn ("log file %s ended in a record torn by a crash; cut %llu bytes back to the last whole "
                  "record and appending there",
                  path, (unsigned long long) ((uint64_t) st.st_size - scan.end));
    self->offset = keep;
    return 1;
}

/* The file header (magic, version) at the start of a new log; 0, or -1
   when it could not be written. */
static int
s_write_header (sim_logfile_writer_t *self)
{
    uint8_t head[SIM_LOGFILE_HEADER];
    memcpy (head, SIM_LOGFILE_MAGIC, 12);
    lf_put_be (head + 12, SIM_LOGFILE_VERSION, 4);
    if (gzwrite (self->gz, head, sizeof head) != (int) sizeof head)
        return -1;
    self->offset = SIM_LOGFILE_HEADER;
    return 0;
}

sim_logfile_writer_t *
sim_logfile_writer_new (const char *path, bool index, char *err, size_t errlen)
{
    sim_logfile_writer_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (path))) {
        lf_err (err, errlen, "out of memory");
        free (self);
        return NULL;
    }
    self->compressed = lf_is_gz_name (path);
    /* the offsets of the records already there are learnt whatever
       `index` says: an indexed log stays indexed */
    self->index = !self->compressed;
    bool had_index = false;
    int existing = s_existing (self, path, &had_index, err, errlen);
    if (existing < 0) {
        sim_logfile_writer_destroy (&self);
        return NULL;
    }
    self->index_full = self->index_full && (index || had_index);
    if (!(self->index = self->index && (index || had_index))) {
        free (self->offsets);
        self->offsets = NULL;
        self->n_offsets = self->cap_offsets = 0;
    }
    /* level 1: a fast run releases a few MB of packets a second, and
       vision, which writes them, is part of the pipeline; level 6 would
       cost it about twice its own CPU for a third smaller file */
    self->gz = gzopen (path, self->compressed ? "ab1" : "abT");
    if (!self->gz) {
        lf_err (err, errlen, "cannot write %s: %s", path, errno ? strerror (errno) : "out of memory");
        sim_logfile_writer_destroy (&self);
        return NULL;
    }
    gzbuffer (self->gz, LF_BUFFER);
    if (existing == 0 && s_write_header (self) < 0) {
        lf_err (err, errlen, "cannot write %s", path);
        sim_logfile_writer_destroy (&self);
        return NULL;
    }
    return self;
}

/* `refused`: the record itself was refused (NULL: the file failed). zlib
   keeps the reason of a failed write() in its message ("No space left on
   device"); errno by now may say anything (a later poll's EAGAIN). */
static int
s_write_failed (sim_logfile_writer_t *self, const char *refused)
{
    if (self->failures++ == 0) {
        int code = 0;
        const char *why = refused ? refused : gzerror (self->gz, &code);
        size_t n = strlen (self->path);
        if (why && strncmp (why, self->path, n) == 0 && strncmp (why + n, ": ", 2) == 0)
            why += n + 2; /* zlib's "PATH: reason" */
        sim_error ("log file %s: cannot write (%s); records are being lost", self->path,
                   why && *why ? why : "unknown error");
    }
    return -1;
}

static int
s_remember_offset (sim_logfile_writer_t *self)
{
    if (self->n_offsets == SIM_LOGFILE_INDEX_MAX) {
        /* said when the writer closes; the memory goes now */
        self->index = false;
        self->index_full = true;
        free (self->offsets);
        self->offsets = NULL;
        self->n_offsets = self->cap_offsets = 0;
        return -1;
    }
    if (self->n_offsets == self->cap_offsets) {
        size_t cap = self->cap_offsets ? self->cap_offsets * 2 : 1024;
        if (cap > SIM_LOGFILE_INDEX_MAX)
            cap = SIM_LOGFILE_INDEX_MAX;
        uint64_t *grown = realloc (self->offsets, cap * sizeof *grown);
        if (!grown) {
            self->index = false; /* an index with holes would mislead */
            return -1;
        }
        self->offsets = grown;
        self->cap_offsets = cap;
    }
    self->offsets[self->n_offsets++] = self->offset;
    return 0;
}

int
sim_logfile_write (sim_logfile_writer_t *self, int64_t time_ns, int32_t type, const void *data, size_t len)
{
    if (len > SIM_LOGFILE_MESSAGE_MAX || (len > 0 && !data))
        return s_write_failed (self, "a record larger than a log may hold, or without its bytes");
    uint8_t head[SIM_LOGFILE_RECORD];
    lf_put_be (head, (uint64_t) time_ns, 8);
    lf_put_be (head + 8, (uint32_t) type, 4);
    lf_put_be (head + 12, (uint32_t) len, 4);
    if (gzwrite (self->gz, head, sizeof head) != (int) sizeof head
        || (len > 0 && gzwrite (self->gz, data, (unsigned) len) != (int) len)) {
        /* part of the record may be in the stream: the offsets after it
           are unknown, and an index with a wrong one misleads */
        self->index = false;
        return s_write_failed (self, NULL);
    }
    /* remembered once written, so a failed write leaves no offset behind */
    if (self->index)
        s_remember_offset (self);
    self->offset += sizeof head + len;
    self->written++;
    return 0;
}

int
sim_logfile_flush (sim_logfile_writer_t *self)
{
    if (gzflush (self->gz, self->compressed ? Z_SYNC_FLUSH : Z_NO_FLUSH) == Z_OK)
        return 0;
    /* records the buffer held are lost: as for a failed write, the
       offsets after them are unknown */
    self->index = false;
    return s_write_failed (self, NULL);
}

uint64_t
sim_logfile_written (const sim_logfile_writer_t *self)
{
    return self->written;
}

uint64_t
sim_logfile_failures (const sim_logfile_writer_t *self)
{
    return self->failures;
}

/* The league's index: a record of type 6 at time 0 whose message is every
   record's offset (8 bytes each), then the length of this whole record
   (so a reader finds its start from the end of the file), then
   "INDEXED". */
static int
s_write_index (sim_logfile_writer_t *self)
{
    size_t trailer = 8 + strlen (SIM_LOGFILE_INDEXED);
    size_t len = self->n_offsets * 8 + trailer;
    if (len > SIM_LOGFILE_MESSAGE_MAX)
        return -1;
    uint8_t *msg = malloc (len);
    if (!msg)
        return -1;
    for (size_t i = 0; i < self->n_offsets; i++)
        lf_put_be (msg + 8 * i, self->offsets[i], 8);
    lf_put_be (msg + 8 * self->n_offsets, SIM_LOGFILE_RECORD + len, 8);
    memcpy (msg + 8 * self->n_offsets + 8, SIM_LOGFILE_INDEXED, strlen (SIM_LOGFILE_INDEXED));
    self->index = false; /* the index record is in no index */
    int rc = sim_logfile_write (self, 0, SIM_LOGFILE_INDEX, msg, len);
    free (msg);
    return rc;
}

int
sim_logfile_writer_destroy (sim_logfile_writer_t **self_p)
{
    sim_logfile_writer_t *self = *self_p;
    if (!self)
        return 0;
    int rc = 0;
    if (self->gz) {
        if (self->index && s_write_index (self))
            rc = -1;
        if (self->index_full)
            sim_warn ("log file %s: more records than one index may list (%zu): it ends without one, and "
                      "readers read it record by record",
                      self->path, (size_t) SIM_LOGFILE_INDEX_MAX);
        if (gzclose (self->gz) != Z_OK) {
            sim_warn ("log file %s: the last records could not be written", self->path);
            rc = -1;
        }
    }
    free (self->offsets);
    free (self->path);
    free (self);
    *self_p = NULL;
    return rc;
}

/* sim_logfile_internal.h */
sim_logfile_writer_t *
lf_writer_gz_fd (int fd, const char *name, char *err, size_t errlen)
{
    sim_logfile_writer_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (name)) || !(self->gz = gzdopen (fd, "wb1"))) {
        lf_err (err, errlen, "cannot write %s: out of memory", name);
        if (!self || !self->gz)
            close (fd);
        sim_logfile_writer_destroy (&self);
        return NULL;
    }
    self->compressed = true;
    gzbuffer (self->gz, LF_BUFFER);
    if (s_write_header (self) < 0) {
        lf_err (err, errlen, "cannot write %s", name);
        sim_logfile_writer_destroy (&self);
        return NULL;
    }
    return self;
}
