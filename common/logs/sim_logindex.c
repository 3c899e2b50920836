/*  sim_logindex.c - the league's index record of a plain log (sim_logindex.h). */
#include "sim_logindex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_logfile_internal.h"

#define S_TRAILER (8 + 7) /* the index record's length, then "INDEXED" */
#ifndef S_WINDOW
#define S_WINDOW (64 * 1024)
#endif

struct sim_logindex_t {
    char *path;
    int fd;
    uint64_t size;  /* of the file */
    uint64_t start; /* of the index record: where the records listed end */
    uint64_t *offsets;
    size_t n, next;
    uint64_t expect; /* where the next record must start */
    uint8_t *win;    /* file bytes [win_at, win_at + win_len) */
    uint64_t win_at;
    size_t win_len;
    uint8_t *big; /* a message larger than the window */
    size_t big_cap;
    bool failed;
    char error[SIM_LOGFILE_ERROR_MAX];
};

/* len bytes at pos into buf; 0, or -1 when they are not all there. */
static int
s_pread (int fd, void *buf, size_t len, uint64_t pos)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread (fd, (uint8_t *) buf + got, len - got, (off_t) (pos + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t) n;
    }
    return 0;
}

void
sim_logindex_destroy (sim_logindex_t **self_p)
{
    sim_logindex_t *self = *self_p;
    if (!self)
        return;
    if (self->fd >= 0)
        close (self->fd);
    free (self->offsets);
    free (self->win);
    free (self->big);
    free (self->path);
    free (self);
    *self_p = NULL;
}

/* The trailer, the index record's header and its offsets: 1, 0 (none) or
   -1 (why). */
static int
s_load (sim_logindex_t *self, char *why, size_t whylen)
{
    uint8_t head[SIM_LOGFILE_HEADER], tail[S_TRAILER];
    if (self->size < SIM_LOGFILE_HEADER + SIM_LOGFILE_RECORD + S_TRAILER
        || s_pread (self->fd, head, sizeof head, 0) || memcmp (head, SIM_LOGFILE_MAGIC, 12) != 0)
        return 0; /* too short, or not a plain log (compressed, or not a log at all) */
    if (s_pread (self->fd, tail, sizeof tail, self->size - S_TRAILER)
        || memcmp (tail + 8, SIM_LOGFILE_INDEXED, 7) != 0)
        return 0;
    uint64_t len = lf_get_be (tail, 8);
    if (len < SIM_LOGFILE_RECORD + S_TRAILER || len > self->size - SIM_LOGFILE_HEADER
        || len - SIM_LOGFILE_RECORD > SIM_LOGFILE_MESSAGE_MAX) {
        lf_err (why, whylen, "its index's length (%llu bytes) does not fit the file (%llu bytes)",
                (unsigned long long) len, (unsigned long long) self->size);
        return -1;
    }
    if ((len - SIM_LOGFILE_RECORD - S_TRAILER) % 8 != 0) {
        lf_err (why, whylen, "its index's length (%llu bytes) is not a whole number of offsets",
                (unsigned long long) len);
        return -1;
    }
    self->start = self->size - len;
    uint8_t rec[SIM_LOGFILE_RECORD];
    if (s_pread (self->fd, rec, sizeof rec, self->start)) {
        lf_err (why, whylen, "cannot read its index at byte %llu", (unsigned long long) self->start);
        return -1;
    }
    int32_t type = (int32_t) lf_get_be (rec + 8, 4);
    uint64_t size = lf_get_be (rec + 12, 4);
    if (type != SIM_LOGFILE_INDEX || size != len - SIM_LOGFILE_RECORD) {
        lf_err (why, whylen,
                "the record its index trailer points at (byte %llu) is not an index of that length "
                "(type %d, %llu bytes)",
                (unsigned long long) self->start, (int) type, (unsigned long long) size);
        return -1;
    }
    self->n = (size_t) ((len - SIM_LOGFILE_RECORD - S_TRAILER) / 8);
    if (self->n && !(self->offsets = malloc (self->n * sizeof *self->offsets))) {
        lf_err (why, whylen, "out of memory for an index of %zu records", self->n);
        return -1;
    }
    uint8_t *raw = (uint8_t *) self->offsets; /* 8 bytes each, turned around in place */
    if (self->n && s_pread (self->fd, raw, self->n * 8, self->start + SIM_LOGFILE_RECORD)) {
        lf_err (why, whylen, "cannot read its index at byte %llu", (unsigned long long) self->start);
        return -1;
    }
    for (size_t i = 0; i < self->n; i++)
        self->offsets[i] = lf_get_be (raw + 8 * i, 8);
    return 1;
}

int
sim_logindex_open (const char *path, sim_logindex_t **out, char *why, size_t whylen)
{
    *out = NULL;
    sim_logindex_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (path)) || !(self->win = malloc (S_WINDOW))) {
        lf_err (why, whylen, "out of memory");
        if (self)
            free (self->path);
        free (self);
        return -1;
    }
    struct stat st;
    self->fd = open (path, O_RDONLY | O_CLOEXEC);
    if (self->fd < 0 || fstat (self->fd, &st) != 0 || !S_ISREG (st.st_mode)) {
        lf_err (why, whylen, "cannot read %s: %s", path, errno ? strerror (errno) : "not a regular file");
        sim_logindex_destroy (&self);
        return -1;
    }
    self->size = (uint64_t) st.st_size;
    self->expect = SIM_LOGFILE_HEADER;
    int rc = s_load (self, why, whylen);
    if (rc == 1)
        *out = self;
    else
        sim_logindex_destroy (&self);
    return rc;
}

size_t
sim_logindex_count (const sim_logindex_t *self)
{
    return self->n;
}

const char *
sim_logindex_error (const sim_logindex_t *self)
{
    return self->error;
}

static int s_fail (sim_logindex_t *self, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static int
s_fail (sim_logindex_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->error, sizeof self->error, fmt, ap);
    va_end (ap);
    self->failed = true;
    return -1;
}

/* len file bytes at pos (checked to lie before the index), borrowed until
   the next call; NULL when they cannot be read. */
static const uint8_t *
s_bytes (sim_logindex_t *self, uint64_t pos, size_t len)
{
    if (pos >= self->win_at && pos + len <= self->win_at + self->win_len)
        return self->win + (pos - self->win_at);
    if (len <= S_WINDOW) {
        /* the records follow each other: one read serves the next few */
        uint64_t left = self->start - pos;
        size_t take = left < S_WINDOW ? (size_t) left : S_WINDOW;
        self->win_len = 0;
        if (s_pread (self->fd, self->win, take, pos))
            return NULL;
        self->win_at = pos;
        self->win_len = take;
        return self->win;
    }
    if (len > self->big_cap) {
        uint8_t *grown = realloc (self->big, len);
        if (!grown)
            return NULL;
        self->big = grown;
        self->big_cap = len;
    }
    return s_pread (self->fd, self->big, len, pos) ? NULL : self->big;
}

int
sim_logindex_next (sim_logindex_t *self, sim_logfile_msg_t *msg, bool (*want) (int32_t type))
{
    if (self->failed)
        return -1;
    if (self->next == self->n) {
        if (self->expect != self->start)
            return s_fail (self,
                           "its index lists %zu records, but they end at byte %llu and the index "
                           "starts at byte %llu",
                           self->n, (unsigned long long) self->expect, (unsigned long long) self->start);
        return 0;
    }
    uint64_t at = self->offsets[self->next];
    if (at != self->expect)
        return s_fail (
            self, "its index's offset %zu (byte %llu) is not where the record before it ends (byte %llu)",
            self->next, (unsigned long long) at, (unsigned long long) self->expect);
    if (self->start - at < SIM_LOGFILE_RECORD)
        return s_fail (self,
                       "its index's offset %zu (byte %llu) leaves no room for a record before the index",
                       self->next, (unsigned long long) at);
    const uint8_t *head = s_bytes (self, at, SIM_LOGFILE_RECORD);
    if (!head)
        return s_fail (self, "cannot read the record at byte %llu", (unsigned long long) at);
    int64_t time_ns = (int64_t) lf_get_be (head, 8);
    int32_t type = (int32_t) lf_get_be (head + 8, 4);
    uint64_t len = lf_get_be (head + 12, 4);
    if (len > SIM_LOGFILE_MESSAGE_MAX || len > self->start - at - SIM_LOGFILE_RECORD)
        return s_fail (self,
                       "the record at byte %llu (index entry %zu) has a size of %llu bytes, past the index",
                       (unsigned long long) at, self->next, (unsigned long long) len);
    *msg = (sim_logfile_msg_t) { .time_ns = time_ns, .type = type, .len = (size_t) len, .offset = at };
    if (want && want (type) && !(msg->data = s_bytes (self, at + SIM_LOGFILE_RECORD, (size_t) len)))
        return s_fail (self, "cannot read the record at byte %llu", (unsigned long long) at);
    self->expect = at + SIM_LOGFILE_RECORD + len;
    self->next++;
    return 1;
}
