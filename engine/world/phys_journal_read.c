/*  phys_journal_read.c - reading the input journal (phys_journal.h): the
    header, then every sealed record in order, from a file or any stream,
    so a torn or damaged tail ends the reading there (docs/journal.md). */
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

/* ---- reading ---------------------------------------------------------- */

/* Read exactly len bytes; false at the end of the file or on an error. */
static bool
s_read (FILE *f, void *buf, size_t len)
{
    return fread (buf, 1, len, f) == len;
}

static int
s_read_header (FILE *f, const char *path, const char *key, phys_journal_header_t *header, uint8_t *buf)
{
    if (!s_read (f, buf, JL_HEADER) || memcmp (buf, JL_MAGIC, 8) != 0) {
        sim_info ("journal %s has no header; not replayed", path);
        return -1;
    }
    uint64_t version = jl_get (buf + 8, 4);
    size_t key_len = (size_t) jl_get (buf + 12, 4);
    header->version = (uint32_t) version;
    if (version != PHYS_JOURNAL_VERSION) {
        sim_info ("journal %s is of version %llu, not %u; not replayed", path, (unsigned long long) version,
                  PHYS_JOURNAL_VERSION);
        return -1;
    }
    /* the version is ours, so the key length is damage, not a newer layout */
    if (key_len > JL_KEY_MAX) {
        sim_info ("journal %s has a damaged header (key length %zu, beyond the limit of %u); not replayed",
                  path, key_len, (unsigned) JL_KEY_MAX);
        return -1;
    }
    if (!s_read (f, buf + JL_HEADER, key_len + JL_SUM) || !jl_sealed (buf, JL_HEADER + key_len)) {
        sim_info ("journal %s has a damaged header; not replayed", path);
        return -1;
    }
    if (key && (key_len != strlen (key) || memcmp (buf + JL_HEADER, key, key_len) != 0)) {
        sim_info ("journal %s belongs to another run; not replayed", path);
        return -1;
    }
    header->base_seq = jl_get (buf + 16, 8);
    header->base_frame = jl_get (buf + 24, 8);
    header->base_time_ns = jl_get (buf + 32, 8);
    header->substep_ns = jl_get (buf + 40, 8);
    header->torn = false;
    return 0;
}

/* The record buffer holds `need` bytes (grown to what a record's length
   asks, up to cap, only once that length was read). */
static bool
s_hold (uint8_t **buf, size_t *have, size_t need)
{
    if (need <= *have)
        return true;
    size_t size = *have ? *have : 4096;
    while (size < need)
        size *= 2;
    uint8_t *grown = realloc (*buf, size);
    if (!grown)
        return false;
    *buf = grown;
    *have = size;
    return true;
}

int
phys_journal_read_stream (FILE *f, const char *name, const char *key, phys_journal_header_t *header,
                          phys_journal_fn *fn, void *arg)
{
    size_t cap = JL_RECORD + JL_PAYLOAD_MAX + JL_SUM, have = 0;
    uint8_t *buf = NULL;
    int count = -1;
    if (!s_hold (&buf, &have, JL_HEADER + JL_KEY_MAX + JL_SUM) || s_read_header (f, name, key, header, buf))
        goto done;
    count = 0;
    for (;;) {
        size_t got = fread (buf, 1, 4, f);
        if (got == 0 && feof (f))
            break; /* the end, between records */
        size_t len = got == 4 ? (size_t) jl_get (buf, 4) : 0;
        if (len < JL_RECORD + JL_SUM || len > cap || !s_hold (&buf, &have, len)
            || !s_read (f, buf + 4, len - 4) || !jl_sealed (buf, len - JL_SUM)) {
            sim_warn ("journal %s: record %d is torn or damaged; read up to it", name, count + 1);
            header->torn = true;
            break;
        }
        phys_journal_record_t rec = { .kind = (phys_journal_kind_t) jl_get (buf + 4, 2),
                                      .seq = jl_get (buf + 8, 8),
                                      .frame = jl_get (buf + 16, 8),
                                      .time_ns = jl_get (buf + 24, 8),
                                      .wall_us = (int64_t) jl_get (buf + 32, 8),
                                      .payload = buf + JL_RECORD,
                                      .payload_len = len - JL_RECORD - JL_SUM };
        count++;
        if (!fn (arg, &rec))
            break;
    }
done:
    free (buf);
    return count;
}

int
phys_journal_read (const char *path, const char *key, phys_journal_header_t *header, phys_journal_fn *fn,
                   void *arg)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return -1;
    int count = phys_journal_read_stream (f, path, key, header, fn, arg);
    fclose (f);
    return count;
}

/* ---- the end of a journal --------------------------------------------- */

typedef struct {
    uint64_t end, next_seq;
} jl_tail_t;

static void
s_tail_take (jl_tail_t *t, phys_journal_kind_t kind, uint64_t seq, size_t len)
{
    t->end += len;
    t->next_seq = kind == PHYS_JOURNAL_INPUT ? seq + 1 : seq;
}

static bool
s_tail_record (void *arg, const phys_journal_record_t *rec)
{
    s_tail_take (arg, rec->kind, rec->seq, JL_RECORD + rec->payload_len + JL_SUM);
    return true;
}

/* The last whole record of f (of `size` bytes), found from the end: the
   shortest sealed record that ends where the file does, within the
   largest a record can be. True when found (*t taken from it). */
static bool
s_tail_backward (FILE *f, uint64_t head, uint64_t size, jl_tail_t *t)
{
    uint64_t window = size - head;
    if (window > JL_RECORD + JL_PAYLOAD_MAX + JL_SUM)
        window = JL_RECORD + JL_PAYLOAD_MAX + JL_SUM;
    uint8_t *buf = malloc (window ? window : 1);
    bool found = false;
    if (!buf || fseeko (f, (off_t) (size - window), SEEK_SET) != 0 || !s_read (f, buf, window)) {
        free (buf);
        return false;
    }
    for (uint64_t len = JL_RECORD + JL_SUM; len <= window && !found; len++) {
        const uint8_t *p = buf + window - len;
        if (jl_get (p, 4) == len && jl_sealed (p, len - JL_SUM)) {
            t->end = size - len;
            s_tail_take (t, (phys_journal_kind_t) jl_get (p + 4, 2), jl_get (p + 8, 8), len);
            found = true;
        }
    }
    free (buf);
    return found;
}

int
phys_journal_tail (const char *path, const char *key, uint64_t *end, uint64_t *next_seq)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return -1;
    uint8_t *buf = malloc (JL_HEADER + JL_KEY_MAX + JL_SUM);
    phys_journal_header_t header;
    struct stat st;
    int rc = -1;
    if (!buf || fstat (fileno (f), &st) != 0 || s_read_header (f, path, key, &header, buf) != 0)
        goto done;
    uint64_t head = JL_HEADER + jl_get (buf + 12, 4) + JL_SUM, size = (uint64_t) st.st_size;
    jl_tail_t t = { head, header.base_seq };
    /* usually the file ends with a whole record, found in a few bytes; a
       torn end (a write cut short) is found reading it all from the front */
    if (size > head && !s_tail_backward (f, head, size, &t)) {
        t = (jl_tail_t) { head, header.base_seq };
        if (fseeko (f, 0, SEEK_SET) != 0
            || phys_journal_read_stream (f, path, key, &header, s_tail_record, &t) < 0)
            goto done;
    }
    *end = t.end;
    *next_seq = t.next_seq;
    rc = 0;
done:
    free (buf);
    fclose (f);
    return rc;
}

/* ---- replaying -------------------------------------------------------- */

typedef struct {
    const char *path;
    const phys_journal_header_t *header; /* filled before the first record */
    phys_world_t *world;
    sim_config_t *cfg;
    phys_journal_result_t *scratch;
    phys_journal_replay_t *out;
    uint64_t first;  /* the checkpoint holds the inputs before this one */
    uint64_t target; /* run at least up to this substep */
    bool failed;     /* an input did not fit: apply no more, honour marks */
    bool checked;    /* the header was compared with the checkpoint */
    bool foreign;    /* ... and does not follow it */
} jl_replay_t;

static void
s_run_to (jl_replay_t *r, uint64_t frame)
{
    while (phys_world_frame (r->world) < frame) {
        phys_world_step (r->world);
        r->out->substeps++;
    }
}

/* A record's substep that a replay can reach from where it is. */
static bool
s_reachable (const jl_replay_t *r, uint64_t frame)
{
    uint64_t now = phys_world_frame (r->world);
    return frame >= now && frame - now <= PHYS_JOURNAL_MAX_GAP;
}

static bool
s_stop (jl_replay_t *r, const phys_journal_record_t *rec, const char *why)
{
    sim_warn ("journal %s: input %llu at substep %llu %s; replayed up to it", r->path,
              (unsigned long long) rec->seq, (unsigned long long) rec->frame, why);
    r->failed = true;
    return true; /* read on for the marks */
}

static bool
s_replay_input (jl_replay_t *r, const phys_journal_record_t *rec)
{
    if (rec->seq < r->first) {
        r->out->skipped++; /* a crash came between a checkpoint and its new journal */
        return true;
    }
    if (rec->seq != r->out->seq)
        return s_stop (r, rec, "is not the next one");
    if (!s_reachable (r, rec->frame))
        return s_stop (r, rec, "is out of order");
    s_run_to (r, rec->frame);
    if (phys_world_time_ns (r->world) != rec->time_ns)
        return s_stop (r, rec, "comes at another sim time");
    Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
    if (!req)
        return s_stop (r, rec, "does not decode");
    if (req->has_substeps && req->substeps > PHYS_JOURNAL_MAX_GAP) {
        simbus__request__free_unpacked (req, NULL);
        return s_stop (r, rec, "asks for too many substeps");
    }
    phys_journal_apply (r->world, r->cfg, req, r->scratch);
    r->out->config_changes += r->scratch->changes.config;
    r->out->rig |= r->scratch->changes.rig;
    if (req->has_substeps)
        s_run_to (r, rec->frame + req->substeps);
    simbus__request__free_unpacked (req, NULL);
    r->out->seq++;
    r->out->inputs++;
    return true;
}

/* True when the journal follows the checkpoint: it starts at or before
   the checkpoint's input (a crash between writing a checkpoint and
   starting its journal leaves the journal before), with its substep. */
static bool
s_follows (jl_replay_t *r)
{
    if (!r->checked) {
        r->checked = true;
        r->foreign = r->header->base_seq > r->first || r->header->substep_ns != phys_world_dt_ns (r->world);
        if (r->foreign)
            sim_warn ("journal %s follows another checkpoint (input %llu, substep %llu ns); not replayed",
                      r->path, (unsigned long long) r->header->base_seq,
                      (unsigned long long) r->header->substep_ns);
    }
    return !r->foreign;
}

static bool
s_replay_record (void *arg, const phys_journal_record_t *rec)
{
    jl_replay_t *r = arg;
    if (!s_follows (r))
        return false;
    if (rec->kind == PHYS_JOURNAL_INPUT && !r->failed)
        return s_replay_input (r, rec);
    /* a mark from before the checkpoint still holds: nothing was applied
       between the checkpoint and the crash that came before the new
       journal */
    if (rec->kind == PHYS_JOURNAL_MARK && rec->frame > r->target && s_reachable (r, rec->frame))
        r->target = rec->frame;
    return true; /* kinds this version does not know change nothing */
}

int
phys_journal_replay (const char *path, const char *key, phys_world_t *world, sim_config_t *cfg, uint64_t seq,
                     phys_journal_result_t *scratch, phys_journal_replay_t *out)
{
    *out = (phys_journal_replay_t) { .seq = seq, .complete = true };
    phys_journal_header_t header = { 0 };
    jl_replay_t r = { .path = path,
                      .header = &header,
                      .world = world,
                      .cfg = cfg,
                      .scratch = scratch,
                      .out = out,
                      .first = seq,
                      .target = phys_world_frame (world) };
    if (phys_journal_read (path, key, &header, s_replay_record, &r) < 0)
        return 0; /* none, or not ours: nothing to replay */
    s_run_to (&r, r.target);
    out->complete = !header.torn && !r.failed && !r.foreign;
    return r.failed ? -1 : 0;
}
