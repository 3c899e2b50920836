/*  gw_pending.c - the gateway's pending requests (see gw_pending.h). */
#include "gw_pending.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim_log.h"

struct gw_pending_t {
    gw_request_t *slots;
    int capacity;
    int count;
    uint64_t next_id;
    uint64_t refused;
    bool warned_full;
};

gw_pending_t *
gw_pending_new (int capacity)
{
    assert (capacity > 0);
    gw_pending_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->slots = calloc ((size_t) capacity, sizeof *self->slots);
    if (!self->slots) {
        free (self);
        return NULL;
    }
    self->capacity = capacity;
    self->next_id = 1;
    return self;
}

void
gw_pending_destroy (gw_pending_t **self_p)
{
    gw_pending_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < self->capacity; i++)
        if (self->slots[i].used)
            gw_pending_release (self, &self->slots[i]);
    free (self->slots);
    free (self);
    *self_p = NULL;
}

gw_request_t *
gw_pending_add (gw_pending_t *self, gw_req_kind_t kind, gw_port_kind_t port, const struct sockaddr_in *from,
                int64_t deadline_us)
{
    for (int i = 0; i < self->capacity; i++) {
        uint64_t id = self->next_id + (uint64_t) i;
        gw_request_t *r = &self->slots[id % (uint64_t) self->capacity];
        if (r->used)
            continue;
        memset (r, 0, sizeof *r);
        if (kind == GW_REQ_SYNC) {
            r->early = malloc (sizeof *r->early);
            if (!r->early)
                return NULL;
            sim_errors_init (r->early);
        }
        r->used = true;
        r->id = id;
        r->kind = kind;
        r->port = port;
        r->from = *from;
        r->deadline_us = deadline_us;
        self->next_id = id + 1;
        self->count++;
        self->warned_full = false;
        return r;
    }
    self->refused++;
    if (!self->warned_full)
        sim_warn ("%d requests wait for physics; new ones are dropped until it answers", self->capacity);
    self->warned_full = true;
    return NULL;
}

gw_request_t *
gw_pending_find (gw_pending_t *self, uint64_t id)
{
    gw_request_t *r = &self->slots[id % (uint64_t) self->capacity];
    return r->used && r->id == id ? r : NULL;
}

void
gw_pending_release (gw_pending_t *self, gw_request_t *req)
{
    assert (req->used);
    if (req->reply_env)
        simbus__envelope__free_unpacked (req->reply_env, NULL);
    free (req->early);
    for (size_t i = 0; i < req->frame_count; i++)
        zchunk_destroy (&req->frames[i]);
    memset (req, 0, sizeof *req);
    self->count--;
}

void
gw_pending_set_reply (gw_request_t *req, Simbus__Envelope *env, const Simbus__Reply *reply)
{
    if (req->reply) {
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    req->reply_env = env;
    req->reply = reply;
}

size_t
gw_pending_keep_frames (gw_request_t *req, const ProtobufCBinaryData *wrappers, size_t n)
{
    size_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        if (req->frame_count == GW_SYNC_FRAMES) {
            /* more than a datagram can carry anyway: keep the newest */
            zchunk_destroy (&req->frames[0]);
            memmove (req->frames, req->frames + 1, sizeof req->frames[0] * (GW_SYNC_FRAMES - 1));
            req->frame_count--;
            dropped++;
        }
        req->frames[req->frame_count++] = zchunk_new (wrappers[i].data, wrappers[i].len);
    }
    return dropped;
}

int64_t
gw_pending_expire (gw_pending_t *self, int64_t now_us, gw_pending_fn *fn, void *arg)
{
    int64_t next = INT64_MAX;
    for (int i = 0; i < self->capacity && self->count > 0; i++) {
        gw_request_t *r = &self->slots[i];
        if (r->used && now_us >= r->deadline_us)
            fn (arg, r);
        if (r->used && r->deadline_us < next)
            next = r->deadline_us;
    }
    return next;
}

int
gw_pending_count (const gw_pending_t *self)
{
    return self->count;
}

uint64_t
gw_pending_refused (const gw_pending_t *self)
{
    return self->refused;
}
