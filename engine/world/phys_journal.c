/*  phys_journal.c - the physics input journal: applying an input, and
    writing the file (reading it is phys_journal_read.c). The layout is in
    docs/journal.md; every integer is little-endian whatever the host, so
    tools on another machine can read a journal (the checkpoint it follows
    is the build's own image, but an input is a portable protobuf message).

        header  "SSLSIMJL"  u32 version  u32 key length
                u64 base seq  u64 base frame  u64 base time ns
                u64 substep ns  key bytes  u64 FNV-1a of the above
        record  u32 length (all of it)  u16 kind  u16 0
                u64 seq  u64 frame  u64 time ns  i64 wall us
                payload  u64 FNV-1a of the above
*/
#include "common/base/sim_hash.h"
#include "phys_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "phys_checkpoint.h"
#include "phys_journal_internal.h"
#include "common/base/sim_log.h"
#include "common/base/sim_team.h"

/* ---- applying --------------------------------------------------------- */

void
phys_journal_apply (phys_world_t *world, sim_config_t *cfg, const Simbus__Request *req,
                    phys_journal_result_t *out)
{
    sim_errors_init (&out->errors);
    sim_errors_init (&out->robot_errors);
    out->feedback.count = 0;
    out->changes = (phys_changes_t) { false, false };
    if (req->simulator_command)
        phys_apply_command (world, cfg, req->simulator_command, &out->errors, &out->changes);
    if (req->team_control && req->team_control->control) {
        sim_team_t team = sim_team_from_number (req->team_control->team);
        phys_apply_robot_control (world, team, req->team_control->control, &out->robot_errors,
                                  &out->feedback);
    }
}

/* ---- little-endian fields --------------------------------------------- */

void
phys_journal_epoch_encode (int64_t epoch_us, uint8_t out[PHYS_JOURNAL_EPOCH_BYTES])
{
    jl_put (out, (uint64_t) epoch_us, PHYS_JOURNAL_EPOCH_BYTES);
}

int64_t
phys_journal_epoch_decode (const uint8_t in[PHYS_JOURNAL_EPOCH_BYTES])
{
    return (int64_t) jl_get (in, PHYS_JOURNAL_EPOCH_BYTES);
}

/* ---- writing ---------------------------------------------------------- */

struct phys_journal_t {
    char *path, *key;
    int fd;            /* -1 until started */
    off_t size;        /* the end of the last whole record */
    uint64_t seq;      /* the next input's number */
    uint64_t promised; /* nothing after this substep was published */
    uint8_t *buf;
    size_t cap;
    uint64_t failures;
    bool failing;
    bool in_place; /* start writes the file at path, no temporary one */
};

phys_journal_t *
phys_journal_new (const char *path, const char *key, uint64_t seq)
{
    phys_journal_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->fd = -1;
    self->seq = seq;
    self->path = strdup (path);
    self->key = strdup (key);
    self->cap = 4096;
    self->buf = malloc (self->cap);
    if (!self->path || !self->key || !self->buf || strlen (key) > JL_KEY_MAX)
        phys_journal_destroy (&self);
    return self;
}

void
phys_journal_destroy (phys_journal_t **self_p)
{
    phys_journal_t *self = *self_p;
    if (!self)
        return;
    if (self->fd >= 0)
        close (self->fd);
    free (self->path);
    free (self->key);
    free (self->buf);
    free (self);
    *self_p = NULL;
}

void
phys_journal_in_place (phys_journal_t *self)
{
    self->in_place = true;
}

uint64_t
phys_journal_seq (const phys_journal_t *self)
{
    return self->seq;
}

uint64_t
phys_journal_failures (const phys_journal_t *self)
{
    return self->failures;
}

static int
s_reserve (phys_journal_t *self, size_t len)
{
    if (len <= self->cap)
        return 0;
    size_t cap = self->cap;
    while (cap < len)
        cap *= 2;
    uint8_t *buf = realloc (self->buf, cap);
    if (!buf)
        return -1;
    self->buf = buf;
    self->cap = cap;
    return 0;
}

static int64_t
s_wall_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The fixed part of a record at p; the payload follows it. Returns the
   record's whole length. */
static size_t
s_record (uint8_t *p, phys_journal_kind_t kind, uint64_t seq, uint64_t frame, uint64_t time_ns,
          size_t payload)
{
    size_t len = JL_RECORD + payload + JL_SUM;
    jl_put (p, len, 4);
    jl_put (p + 4, (uint64_t) kind, 2);
    jl_put (p + 6, 0, 2);
    jl_put (p + 8, seq, 8);
    jl_put (p + 16, frame, 8);
    jl_put (p + 24, time_ns, 8);
    jl_put (p + 32, (uint64_t) s_wall_us (), 8);
    jl_seal (p, JL_RECORD + payload);
    return len;
}

static int
s_failed (phys_journal_t *self, const char *what)
{
    self->failures++;
    if (!self->failing)
        sim_warn ("journal %s: %s: %s (inputs from now on may be lost by a crash)", self->path, what,
                  self->fd < 0 ? "not started" : strerror (errno));
    self->failing = true;
    return -1;
}

/* One write(2) of len bytes at self->buf; a short write is cut off again,
   so the file always ends with a whole record. */
static int
s_append (phys_journal_t *self, size_t len, const char *what)
{
    if (self->fd < 0)
        return s_failed (self, what);
    ssize_t n;
    do
        n = write (self->fd, self->buf, len);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t) len) {
        if (n >= 0)
            errno = ENOSPC;
        int saved = errno;
        if (n > 0 && ftruncate (self->fd, self->size) != 0)
            sim_warn ("journal %s: cannot cut off a torn record: %s", self->path, strerror (errno));
        errno = saved;
        return s_failed (self, what);
    }
    self->size += (off_t) len;
    if (self->failing)
        sim_info ("journal %s: writing again", self->path);
    self->failing = false;
    return 0;
}

static uint64_t
s_lead_frames (const phys_world_t *world)
{
    uint64_t dt = phys_world_dt_ns (world);
    uint64_t n = dt ? PHYS_JOURNAL_LEAD_NS / dt : 1;
    return n ? n : 1;
}

/* A mark record for substep `frame` at self->buf + at; returns its length. */
static size_t
s_mark_at (phys_journal_t *self, size_t at, const phys_world_t *world, uint64_t frame)
{
    uint64_t now = phys_world_frame (world);
    uint64_t time_ns = phys_world_time_ns (world) + (frame - now) * phys_world_dt_ns (world);
    return s_record (self->buf + at, PHYS_JOURNAL_MARK, self->seq, frame, time_ns, 0);
}

int
phys_journal_start (phys_journal_t *self, uint64_t seq, const phys_world_t *world)
{
    size_t key_len = strlen (self->key);
    size_t head = JL_HEADER + key_len + JL_SUM;
    if (s_reserve (self, head + JL_RECORD + JL_SUM))
        return s_failed (self, "out of memory");
    uint8_t *p = self->buf;
    memcpy (p, JL_MAGIC, 8);
    jl_put (p + 8, PHYS_JOURNAL_VERSION, 4);
    jl_put (p + 12, key_len, 4);
    jl_put (p + 16, seq, 8);
    jl_put (p + 24, phys_world_frame (world), 8);
    jl_put (p + 32, phys_world_time_ns (world), 8);
    jl_put (p + 40, phys_world_dt_ns (world), 8);
    memcpy (p + JL_HEADER, self->key, key_len);
    jl_seal (p, JL_HEADER + key_len);
    self->seq = seq;
    if (self->promised < phys_world_frame (world))
        self->promised = phys_world_frame (world);
    size_t len = head + s_mark_at (self, head, world, self->promised);

    /* a temporary file renamed over the old journal, so the name holds a
       whole journal at any instant; in place, the file at the name,
       emptied: its inode, and the launcher's lock on it, stay */
    char tmp[SIM_STRING_MAX + 16];
    snprintf (tmp, sizeof tmp, "%s.tmp", self->path);
    const char *file = self->in_place ? self->path : tmp;
    int fd = open (file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        sim_warn ("journal: cannot write %s: %s", file, strerror (errno));
        return -1;
    }
    if (write (fd, p, len) != (ssize_t) len || (!self->in_place && rename (tmp, self->path) != 0)) {
        sim_warn ("journal: cannot write %s: %s", self->path, strerror (errno));
        close (fd);
        if (!self->in_place)
            unlink (tmp);
        return -1;
    }
    if (self->fd >= 0)
        close (self->fd);
    self->fd = fd;
    self->size = (off_t) len;
    self->failing = false;
    return 0;
}

/* Count req as the next input, at world's substep, and promise its
   substeps; then append its record when its `payload` bytes are at
   self->buf + JL_RECORD (`stored`), else count a failure. */
static int
s_input (phys_journal_t *self, const phys_world_t *world, const Simbus__Request *req, size_t payload,
         bool stored)
{
    uint64_t frame = phys_world_frame (world);
    uint64_t seq = self->seq++;
    uint64_t after = frame + (req->has_substeps ? req->substeps : 0);
    if (after > self->promised)
        self->promised = after;
    if (!stored) {
        errno = EMSGSIZE;
        return s_failed (self, "input too large");
    }
    size_t len = s_record (self->buf, PHYS_JOURNAL_INPUT, seq, frame, phys_world_time_ns (world), payload);
    return s_append (self, len, "cannot append an input");
}

int
phys_journal_input (phys_journal_t *self, const phys_world_t *world, const Simbus__Request *req)
{
    /* unknown fields change nothing physics does; left out, the bytes
       are those of the message physics understood */
    Simbus__Request copy = *req;
    copy.base.n_unknown_fields = 0;
    copy.base.unknown_fields = NULL;
    copy.has_received_us = false;
    copy.received_us = 0;
    size_t payload = simbus__request__get_packed_size (&copy);
    bool fits = payload <= JL_PAYLOAD_MAX && s_reserve (self, JL_RECORD + payload + JL_SUM) == 0;
    if (fits)
        simbus__request__pack (&copy, self->buf + JL_RECORD);
    return s_input (self, world, req, payload, fits);
}

/* ---- an input from the bytes it came in --------------------------------- */

int
phys_journal_input_wire (phys_journal_t *self, const phys_world_t *world, const Simbus__Request *req,
                         const void *wire, size_t wire_len)
{
    size_t len = 0, payload;
    const uint8_t *bytes = wire ? phys_journal_request_of (wire, wire_len, &len) : NULL;
    if (bytes && len <= JL_PAYLOAD_MAX && s_reserve (self, JL_RECORD + len + JL_SUM) == 0
        && phys_journal_kept_fields (bytes, len, self->buf + JL_RECORD, &payload) == 0)
        return s_input (self, world, req, payload, true);
    return phys_journal_input (self, world, req); /* packed again, as a message without bytes */
}

int
phys_journal_note (phys_journal_t *self, const phys_world_t *world, phys_journal_kind_t kind,
                   const void *payload, size_t len)
{
    if (len > JL_PAYLOAD_MAX || s_reserve (self, JL_RECORD + len + JL_SUM)) {
        errno = EMSGSIZE;
        return s_failed (self, "note too large");
    }
    if (len)
        memcpy (self->buf + JL_RECORD, payload, len);
    size_t rec =
        s_record (self->buf, kind, self->seq, phys_world_frame (world), phys_world_time_ns (world), len);
    return s_append (self, rec, "cannot append a note");
}

int
phys_journal_reopen (phys_journal_t *self, const phys_world_t *world, uint64_t *next_seq)
{
    uint64_t end, next;
    if (phys_journal_tail (self->path, NULL, &end, &next) != 0)
        return -1;
    int fd = open (self->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat (fd, &st) != 0 || (uint64_t) st.st_size < end
        || ((uint64_t) st.st_size > end && ftruncate (fd, (off_t) end) != 0)) {
        close (fd);
        return -1;
    }
    if ((uint64_t) st.st_size > end)
        sim_warn ("journal %s: cut off a torn record at its end (%llu bytes)", self->path,
                  (unsigned long long) ((uint64_t) st.st_size - end));
    if (self->fd >= 0)
        close (self->fd);
    self->fd = fd;
    self->size = (off_t) end;
    if (self->promised < phys_world_frame (world))
        self->promised = phys_world_frame (world);
    self->failing = false;
    if (next_seq)
        *next_seq = next;
    return 0;
}

int
phys_journal_copy_input (phys_journal_t *self, const phys_journal_record_t *rec)
{
    if (rec->kind != PHYS_JOURNAL_INPUT || rec->payload_len > JL_PAYLOAD_MAX
        || s_reserve (self, JL_RECORD + rec->payload_len + JL_SUM)) {
        errno = EMSGSIZE;
        return s_failed (self, "cannot copy an input");
    }
    memcpy (self->buf + JL_RECORD, rec->payload, rec->payload_len);
    size_t len =
        s_record (self->buf, PHYS_JOURNAL_INPUT, rec->seq, rec->frame, rec->time_ns, rec->payload_len);
    jl_put (self->buf + 32, (uint64_t) rec->wall_us, 8); /* when it was written first */
    jl_seal (self->buf, len - JL_SUM);
    return s_append (self, len, "cannot copy an input");
}

int
phys_journal_reached (phys_journal_t *self, const phys_world_t *world)
{
    uint64_t frame = phys_world_frame (world);
    if (frame <= self->promised)
        return 0;
    self->promised = frame + s_lead_frames (world);
    return s_append (self, s_mark_at (self, 0, world, self->promised), "cannot append a mark");
}

int
phys_journal_promise (phys_journal_t *self, const phys_world_t *world, uint64_t substeps)
{
    uint64_t end = phys_world_frame (world) + substeps;
    if (end <= self->promised)
        return 0;
    self->promised = end;
    return s_append (self, s_mark_at (self, 0, world, end), "cannot append a mark");
}
