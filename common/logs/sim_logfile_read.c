/*  sim_logfile_read.c - reading the league's log files: one decoder over a
    file or a buffer in memory, plain or gzip (inflate, several members in
    a row as gzread reads them), with the index record read as a record. */
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

/* ---- reading ---------------------------------------------------------- */

/* The reader decodes gzip itself with zlib's inflate, over a window of
   source bytes that is either the caller's memory or a buffer refilled
   from a file descriptor: the file reader is the memory reader with a
   different source. It reads as zlib's gzread does: gzip when the data
   starts with the gzip magic (members one after another, bytes after the
   last member that are not a member ignored), the bytes as they are
   otherwise. */

typedef enum {
    S_UNDECIDED, /* nothing read since the start */
    S_PLAIN,     /* the bytes as they are */
    S_GZIP,      /* inside a gzip member */
    S_GZIP_END,  /* after a member: another may follow */
} s_mode_t;

struct sim_logfile_reader_t {
    char *path; /* the file's name, or the name a memory reader was given */
    int fd;     /* -1: memory */
    const uint8_t *mem;
    size_t mem_len;
    uint8_t *in; /* a file's window */
    const uint8_t *next;
    size_t avail;   /* source bytes in the window, from next */
    uint64_t taken; /* source bytes consumed before next */
    bool source_end;
    s_mode_t mode;
    z_stream z;
    bool z_ready;
    bool cut_short; /* the source ended inside a gzip member */
    uint8_t *buf;
    size_t cap;
    uint64_t offset; /* of the next record */
    uint64_t file_size;
    bool damaged;
    bool torn; /* the damage is the file's end: it was cut short */
    char error[SIM_LOGFILE_ERROR_MAX];
};

void
sim_logfile_reader_destroy (sim_logfile_reader_t **self_p)
{
    sim_logfile_reader_t *self = *self_p;
    if (!self)
        return;
    if (self->z_ready)
        inflateEnd (&self->z);
    if (self->fd >= 0)
        close (self->fd);
    free (self->in);
    free (self->buf);
    free (self->path);
    free (self);
    *self_p = NULL;
}

/* At least `need` (<= LF_BUFFER) source bytes in the window, unless the
   source ends first. 0, or -1 when the file cannot be read (self->error). */
static int
s_want (sim_logfile_reader_t *self, size_t need)
{
    if (self->fd < 0 || self->avail >= need || self->source_end)
        return 0;
    memmove (self->in, self->next, self->avail);
    self->next = self->in;
    while (self->avail < need) {
        ssize_t n = read (self->fd, self->in + self->avail, LF_BUFFER - self->avail);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf (self->error, sizeof self->error, "%s: cannot read after byte %llu: %s", self->path,
                      (unsigned long long) self->taken, strerror (errno));
            return -1;
        }
        if (n == 0) {
            self->source_end = true;
            break;
        }
        self->avail += (size_t) n;
    }
    return 0;
}

static void
s_take (sim_logfile_reader_t *self, size_t n)
{
    self->next += n;
    self->avail -= n;
    self->taken += n;
}

/* The source from its first byte again, decoding undecided. */
static int
s_restart (sim_logfile_reader_t *self)
{
    if (self->fd >= 0) {
        if (lseek (self->fd, 0, SEEK_SET) != 0)
            return -1;
        self->next = self->in;
        self->avail = 0;
        self->source_end = false;
    } else {
        self->next = self->mem;
        self->avail = self->mem_len;
        self->source_end = true;
    }
    self->taken = 0;
    self->mode = S_UNDECIDED;
    self->cut_short = false;
    return 0;
}

static bool
s_gzip_magic (const sim_logfile_reader_t *self)
{
    return self->avail >= 2 && self->next[0] == 0x1f && self->next[1] == 0x8b;
}

/* Start decoding a gzip member. 0, or -1 (self->error). */
static int
s_member (sim_logfile_reader_t *self)
{
    int rc = self->z_ready ? inflateReset (&self->z) : inflateInit2 (&self->z, 15 + 16);
    if (rc != Z_OK) {
        snprintf (self->error, sizeof self->error, "%s: cannot start decoding gzip: %s", self->path,
                  zError (rc));
        return -1;
    }
    self->z_ready = true;
    self->mode = S_GZIP;
    return 0;
}

/* Up to len decoded bytes into buf from a gzip source; how many (short at
   its end), or -1 at damage (self->error). */
static long
s_inflate (sim_logfile_reader_t *self, uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        if (self->mode == S_GZIP_END) {
            if (s_want (self, 2))
                return -1;
            if (!s_gzip_magic (self))
                break; /* the end; what follows is not a member (as gzread) */
            if (s_member (self))
                return -1;
        }
        if (self->avail == 0 && s_want (self, 1))
            return -1;
        if (self->avail == 0) {
            self->cut_short = true;
            break;
        }
        size_t room = len - got < UINT_MAX ? len - got : UINT_MAX;
        self->z.next_in = (Bytef *) (uintptr_t) self->next;
        self->z.avail_in = (uInt) (self->avail < UINT_MAX ? self->avail : UINT_MAX);
        self->z.next_out = buf + got;
        self->z.avail_out = (uInt) room;
        uInt in_before = self->z.avail_in;
        int rc = inflate (&self->z, Z_NO_FLUSH);
        size_t used = in_before - self->z.avail_in, made = room - self->z.avail_out;
        s_take (self, used);
        got += made;
        if (rc == Z_STREAM_END)
            self->mode = S_GZIP_END;
        else if (rc != Z_OK && !(rc == Z_BUF_ERROR && (used || made))) {
            snprintf (self->error, sizeof self->error,
                      "%s: the compressed data is damaged after byte %llu (%s)", self->path,
                      (unsigned long long) (self->offset + got), self->z.msg ? self->z.msg : zError (rc));
            return -1;
        }
    }
    return (long) got;
}

/* Up to len bytes; how many came (short only at the end of the data), or
   -1 at damage (self->error). */
static long
s_read (sim_logfile_reader_t *self, void *buf, size_t len)
{
    if (self->mode == S_UNDECIDED) {
        if (s_want (self, 2))
            return -1;
        if (s_gzip_magic (self))
            return s_member (self) ? -1 : s_inflate (self, buf, len);
        self->mode = S_PLAIN;
    }
    if (self->mode != S_PLAIN)
        return s_inflate (self, buf, len);
    size_t got = 0;
    while (got < len) {
        if (self->avail == 0 && s_want (self, 1))
            return -1;
        if (self->avail == 0)
            break;
        size_t n = len - got < self->avail ? len - got : self->avail;
        memcpy ((uint8_t *) buf + got, self->next, n);
        s_take (self, n);
        got += n;
    }
    return (long) got;
}

static int
s_read_header (sim_logfile_reader_t *self)
{
    uint8_t head[SIM_LOGFILE_HEADER];
    long n = s_read (self, head, sizeof head);
    if (n < 0)
        return -1;
    if (n < 12 || memcmp (head, SIM_LOGFILE_MAGIC, 12) != 0) {
        snprintf (self->error, sizeof self->error, "%s is not an SSL log file (it does not start with %s)",
                  self->path, SIM_LOGFILE_MAGIC);
        return -1;
    }
    if (n < (long) sizeof head) {
        snprintf (self->error, sizeof self->error, "%s ends inside its header", self->path);
        return -1;
    }
    uint64_t version = lf_get_be (head + 12, 4);
    if (version != SIM_LOGFILE_VERSION) {
        snprintf (self->error, sizeof self->error,
                  "%s is an SSL log file of version %llu; only version %d is known", self->path,
                  (unsigned long long) version, SIM_LOGFILE_VERSION);
        return -1;
    }
    self->offset = SIM_LOGFILE_HEADER;
    return 0;
}

/* A reader named `name`, its source not yet set. */
static sim_logfile_reader_t *
s_reader (const char *name, char *err, size_t errlen)
{
    sim_logfile_reader_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (name))) {
        lf_err (err, errlen, "out of memory");
        free (self);
        return NULL;
    }
    self->fd = -1;
    return self;
}

/* The header read from the source set in self; self, or NULL (destroyed,
   err says why). */
static sim_logfile_reader_t *
s_reader_start (sim_logfile_reader_t *self, char *err, size_t errlen)
{
    if (s_restart (self) || s_read_header (self)) {
        lf_err (err, errlen, "%s", self->error[0] ? self->error : "cannot read");
        sim_logfile_reader_destroy (&self);
        return NULL;
    }
    return self;
}

sim_logfile_reader_t *
sim_logfile_reader_mem (const void *data, size_t size, const char *name, char *err, size_t errlen)
{
    sim_logfile_reader_t *self = s_reader (name ? name : "the log", err, errlen);
    if (!self)
        return NULL;
    self->mem = size ? data : (const uint8_t *) "";
    self->mem_len = size;
    self->file_size = size;
    return s_reader_start (self, err, errlen);
}

sim_logfile_reader_t *
sim_logfile_reader_new (const char *path, char *err, size_t errlen)
{
    sim_logfile_reader_t *self = s_reader (path, err, errlen);
    if (!self)
        return NULL;
    struct stat st;
    errno = 0;
    if (stat (path, &st) != 0 || !S_ISREG (st.st_mode) || (self->fd = open (path, O_RDONLY | O_CLOEXEC)) < 0
        || !(self->in = malloc (LF_BUFFER))) {
        lf_err (err, errlen, "cannot read %s: %s", path, errno ? strerror (errno) : "not a regular file");
        sim_logfile_reader_destroy (&self);
        return NULL;
    }
    self->file_size = (uint64_t) st.st_size;
    return s_reader_start (self, err, errlen);
}

static int
s_damaged (sim_logfile_reader_t *self)
{
    self->damaged = true;
    return -1;
}

/* A record's `size` message bytes into self->buf, the buffer grown as
   they arrive (a size field is not trusted with memory before its bytes
   are there). How many came, or -1 at damage. */
static long
s_read_message (sim_logfile_reader_t *self, size_t size)
{
    size_t have = 0;
    while (have < size) {
        if (have == self->cap) {
            size_t cap = self->cap ? self->cap * 2 : 4096;
            uint8_t *grown = realloc (self->buf, cap);
            if (!grown) {
                snprintf (self->error, sizeof self->error, "%s: out of memory for a record of %zu bytes",
                          self->path, size);
                return -1;
            }
            self->buf = grown;
            self->cap = cap;
        }
        size_t room = (self->cap < size ? self->cap : size) - have;
        long n = s_read (self, self->buf + have, room);
        if (n < 0)
            return -1;
        have += (size_t) n;
        if ((size_t) n < room)
            break;
    }
    return (long) have;
}

int
sim_logfile_next (sim_logfile_reader_t *self, sim_logfile_msg_t *msg)
{
    if (self->damaged)
        return -1;
    uint8_t head[SIM_LOGFILE_RECORD];
    long n = s_read (self, head, sizeof head);
    if (n < 0)
        return s_damaged (self);
    if (n == 0 && self->cut_short) {
        /* every record whole, but the gzip stream has no end: a writer
           stopped by a crash or kill after a flush point */
        snprintf (self->error, sizeof self->error,
                  "%s: the compressed data ends without its gzip trailer after byte %llu (the recording was "
                  "cut short)",
                  self->path, (unsigned long long) self->offset);
        self->torn = true;
        return s_damaged (self);
    }
    if (n == 0)
        return 0;
    if (n < (long) sizeof head) {
        snprintf (self->error, sizeof self->error,
                  "%s: truncated record at byte %llu (the file ends %ld bytes into its 16-byte head)",
                  self->path, (unsigned long long) self->offset, n);
        self->torn = true;
        return s_damaged (self);
    }
    int64_t time_ns = (int64_t) lf_get_be (head, 8);
    int32_t type = (int32_t) (uint32_t) lf_get_be (head + 8, 4);
    int32_t size = (int32_t) (uint32_t) lf_get_be (head + 12, 4);
    if (size < 0 || (uint32_t) size > SIM_LOGFILE_MESSAGE_MAX) {
        snprintf (self->error, sizeof self->error,
                  "%s: corrupt record at byte %llu: its size field says %ld bytes (at most %u make sense)",
                  self->path, (unsigned long long) self->offset, (long) size, SIM_LOGFILE_MESSAGE_MAX);
        return s_damaged (self);
    }
    n = s_read_message (self, (size_t) size);
    if (n < 0)
        return s_damaged (self);
    if (n < size) {
        snprintf (self->error, sizeof self->error,
                  "%s: truncated record at byte %llu: %ld of its %ld message bytes are there", self->path,
                  (unsigned long long) self->offset, n, (long) size);
        self->torn = true;
        return s_damaged (self);
    }
    msg->time_ns = time_ns;
    msg->type = type;
    msg->data = self->buf;
    msg->len = (size_t) size;
    msg->offset = self->offset;
    self->offset += SIM_LOGFILE_RECORD + (uint64_t) size;
    return 1;
}

const char *
sim_logfile_error (const sim_logfile_reader_t *self)
{
    return self->error;
}

bool
sim_logfile_reader_torn (const sim_logfile_reader_t *self)
{
    return self->damaged && self->torn;
}

int
sim_logfile_rewind (sim_logfile_reader_t *self)
{
    if (s_restart (self))
        return -1;
    self->damaged = self->torn = false;
    self->error[0] = '\0';
    return s_read_header (self);
}

int
sim_logfile_seek (sim_logfile_reader_t *self, uint64_t offset)
{
    if (offset < SIM_LOGFILE_HEADER)
        offset = SIM_LOGFILE_HEADER;
    if (offset == self->offset && !self->damaged)
        return 0;
    if (self->mode == S_PLAIN) {
        /* the stream is the source: jump */
        if (self->fd >= 0) {
            if (lseek (self->fd, (off_t) offset, SEEK_SET) != (off_t) offset) {
                snprintf (self->error, sizeof self->error, "%s: cannot seek to byte %llu: %s", self->path,
                          (unsigned long long) offset, strerror (errno));
                return s_damaged (self);
            }
            self->next = self->in;
            self->avail = 0;
            self->source_end = false;
        } else {
            if (offset > self->mem_len)
                offset = self->mem_len;
            self->next = self->mem + offset;
            self->avail = self->mem_len - offset;
        }
        self->taken = offset;
        self->offset = offset;
        self->damaged = self->torn = false;
        self->error[0] = '\0';
        return 0;
    }
    if (offset < self->offset && sim_logfile_rewind (self))
        return -1;
    sim_logfile_msg_t m;
    while (self->offset < offset)
        if (sim_logfile_next (self, &m) <= 0) {
            if (!self->damaged)
                snprintf (self->error, sizeof self->error, "%s: no record at byte %llu", self->path,
                          (unsigned long long) offset);
            return s_damaged (self);
        }
    return 0;
}

uint64_t
sim_logfile_position (const sim_logfile_reader_t *self)
{
    return self->taken;
}

uint64_t
sim_logfile_file_size (const sim_logfile_reader_t *self)
{
    return self->file_size;
}
