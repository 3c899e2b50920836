/*  phys_replay.c - a --journal file read into a replay script. */
#include "phys_replay.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phys_journal.h"

typedef struct {
    Simbus__Request *req;
    uint64_t frame;
    char *source;
} s_input_t;

typedef struct {
    uint64_t frame;
    int64_t epoch_us;
} s_epoch_t;

struct phys_replay_t {
    char *config;
    phys_journal_header_t header;
    s_input_t *inputs;
    size_t count, cap;
    s_epoch_t *epochs;
    size_t epoch_count, epoch_cap;
    uint64_t end_frame;
    char *pending_source; /* the last SOURCE note: it holds for the inputs after it */
    bool bad;             /* an input did not decode: the script ends before it */
};

/* A base change; one that goes back in substeps ends the script (damage). */
static bool
s_add_epoch (phys_replay_t *self, const phys_journal_record_t *rec)
{
    if (self->epoch_count > 0 && rec->frame < self->epochs[self->epoch_count - 1].frame) {
        self->bad = true;
        return false;
    }
    if (self->epoch_count == self->epoch_cap) {
        size_t cap = self->epoch_cap ? self->epoch_cap * 2 : 16;
        s_epoch_t *grown = realloc (self->epochs, cap * sizeof *grown);
        if (!grown) {
            self->bad = true;
            return false;
        }
        self->epochs = grown;
        self->epoch_cap = cap;
    }
    self->epochs[self->epoch_count++] = (s_epoch_t) { rec->frame, phys_journal_epoch_decode (rec->payload) };
    return true;
}

static bool
s_on_record (void *arg, const phys_journal_record_t *rec)
{
    phys_replay_t *self = arg;
    switch (rec->kind) {
    case PHYS_JOURNAL_CONFIG:
        if (!self->config) {
            self->config = malloc (rec->payload_len + 1);
            if (!self->config)
                return false;
            memcpy (self->config, rec->payload, rec->payload_len);
            self->config[rec->payload_len] = '\0';
        }
        return true;
    case PHYS_JOURNAL_SOURCE:
        free (self->pending_source);
        self->pending_source = strndup ((const char *) rec->payload, rec->payload_len);
        return true;
    case PHYS_JOURNAL_EPOCH:
        return rec->payload_len == PHYS_JOURNAL_EPOCH_BYTES ? s_add_epoch (self, rec) : true;
    case PHYS_JOURNAL_MARK:
        if (rec->frame > self->end_frame)
            self->end_frame = rec->frame;
        return true;
    case PHYS_JOURNAL_INPUT:
        break;
    default:
        return true;
    }
    Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
    if (!req || (self->count > 0 && rec->frame < self->inputs[self->count - 1].frame)) {
        if (req)
            simbus__request__free_unpacked (req, NULL);
        self->bad = true;
        return false;
    }
    if (self->count == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 256;
        s_input_t *grown = realloc (self->inputs, cap * sizeof *grown);
        if (!grown) {
            simbus__request__free_unpacked (req, NULL);
            self->bad = true;
            return false;
        }
        self->inputs = grown;
        self->cap = cap;
    }
    char *source = self->pending_source ? strdup (self->pending_source) : NULL;
    self->inputs[self->count++] = (s_input_t) { req, rec->frame, source };
    uint64_t after = rec->frame + (req->has_substeps ? req->substeps : 0);
    if (after > self->end_frame)
        self->end_frame = after;
    return true;
}

static void s_err (char *err, size_t errlen, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
s_err (char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (err, errlen, fmt, ap);
    va_end (ap);
}

phys_replay_t *
phys_replay_load_stream (FILE *f, const char *name, char *err, size_t errlen)
{
    phys_replay_t *self = calloc (1, sizeof *self);
    if (!self) {
        s_err (err, errlen, "out of memory");
        return NULL;
    }
    int n = f ? phys_journal_read_stream (f, name, PHYS_REPLAY_KEY, &self->header, s_on_record, self) : -1;
    if (n < 0)
        s_err (err, errlen,
               "%s is not a journal written by `ssl-sim run --journal` (missing, or its header "
               "is damaged)",
               name);
    else if (!self->config)
        s_err (err, errlen, "%s holds no configuration record: not a --journal file", name);
    else if (self->header.base_frame != 0 || self->header.base_seq != 0)
        s_err (err, errlen, "%s does not start at the first substep of a run", name);
    else
        return self;
    phys_replay_destroy (&self);
    return NULL;
}

phys_replay_t *
phys_replay_load (const char *path, char *err, size_t errlen)
{
    FILE *f = fopen (path, "rb");
    phys_replay_t *self = phys_replay_load_stream (f, path, err, errlen);
    if (f)
        fclose (f);
    return self;
}

void
phys_replay_destroy (phys_replay_t **self_p)
{
    phys_replay_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->count; i++) {
        simbus__request__free_unpacked (self->inputs[i].req, NULL);
        free (self->inputs[i].source);
    }
    free (self->inputs);
    free (self->epochs);
    free (self->pending_source);
    free (self->config);
    free (self);
    *self_p = NULL;
}

const char *
phys_replay_config (const phys_replay_t *self)
{
    return self->config;
}

uint64_t
phys_replay_substep_ns (const phys_replay_t *self)
{
    return self->header.substep_ns;
}

size_t
phys_replay_count (const phys_replay_t *self)
{
    return self->count;
}

const Simbus__Request *
phys_replay_input (const phys_replay_t *self, size_t i, uint64_t *frame, const char **source)
{
    if (i >= self->count)
        return NULL;
    if (frame)
        *frame = self->inputs[i].frame;
    if (source)
        *source = self->inputs[i].source ? self->inputs[i].source : "";
    return self->inputs[i].req;
}

uint64_t
phys_replay_end_frame (const phys_replay_t *self)
{
    return self->end_frame;
}

size_t
phys_replay_epoch_count (const phys_replay_t *self)
{
    return self->epoch_count;
}

void
phys_replay_epoch (const phys_replay_t *self, size_t i, uint64_t *frame, int64_t *epoch_us)
{
    assert (i < self->epoch_count);
    *frame = self->epochs[i].frame;
    *epoch_us = self->epochs[i].epoch_us;
}

bool
phys_replay_torn (const phys_replay_t *self)
{
    return self->header.torn || self->bad;
}
