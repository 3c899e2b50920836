/*  gw_pending.c - the gateway's pending requests (see gw_pending.h). */
#include "gw_pending.h"

#include <stdint.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_udp.h"

/* How many requests one source address holds: a chained hash table with
   at most one entry per slot (no more sources than requests). */
typedef struct {
    uint32_t addr; /* network order, as in sockaddr_in */
    uint16_t port;
    int count; /* 0: on the free list */
    int next;  /* the next entry of its bucket (or of the free list), -1 */
} s_source_t;

struct gw_pending_t {
    gw_request_t *slots;
    int capacity;
    int count;
    uint64_t next_id;
    int64_t earliest; /* no deadline comes before this (INT64_MAX: none) */
    uint64_t refused;
    uint64_t refused_for[GW_ADMIT_REASONS];
    bool warned[GW_ADMIT_REASONS];
    int64_t warned_us[GW_ADMIT_REASONS];       /* the last warning (monotonic), 0: none */
    uint64_t unreported_for[GW_ADMIT_REASONS]; /* refusals since that warning */
    int per_port, per_source;                  /* 0: no bound */
    int port_count[3];
    int kind_count[3];     /* per gw_req_kind_t */
    uint64_t oldest_id[3]; /* per kind: no smaller id of it is pending (gw_pending_oldest_of) */
    s_source_t *sources;   /* capacity of them */
    int *buckets;          /* bucket_mask + 1 heads */
    uint32_t bucket_mask;
    int free_source;
};

static uint32_t
s_source_bucket (const gw_pending_t *self, const struct sockaddr_in *from)
{
    uint32_t h = from->sin_addr.s_addr * 2654435761u;
    h ^= (uint32_t) from->sin_port * 40503u;
    h ^= h >> 15;
    return h & self->bucket_mask;
}

/* The entry of `from`, or -1. */
static int
s_source_find (const gw_pending_t *self, const struct sockaddr_in *from)
{
    for (int i = self->buckets[s_source_bucket (self, from)]; i >= 0; i = self->sources[i].next)
        if (self->sources[i].addr == from->sin_addr.s_addr && self->sources[i].port == from->sin_port)
            return i;
    return -1;
}

static void
s_source_take (gw_pending_t *self, const struct sockaddr_in *from)
{
    int i = s_source_find (self, from);
    if (i < 0) {
        /* a free entry always exists: at most one per pending request */
        i = self->free_source;
        assert (i >= 0);
        s_source_t *e = &self->sources[i];
        self->free_source = e->next;
        uint32_t b = s_source_bucket (self, from);
        *e = (s_source_t) { from->sin_addr.s_addr, from->sin_port, 0, self->buckets[b] };
        self->buckets[b] = i;
    }
    self->sources[i].count++;
}

static void
s_source_give (gw_pending_t *self, const struct sockaddr_in *from)
{
    int i = s_source_find (self, from);
    assert (i >= 0);
    if (--self->sources[i].count > 0)
        return;
    int *link = &self->buckets[s_source_bucket (self, from)];
    while (*link != i)
        link = &self->sources[*link].next;
    *link = self->sources[i].next;
    self->sources[i].next = self->free_source;
    self->free_source = i;
}

gw_pending_t *
gw_pending_new (int capacity)
{
    assert (capacity > 0);
    gw_pending_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    uint32_t buckets = 1;
    while (buckets < (uint32_t) capacity * 2)
        buckets <<= 1;
    self->slots = calloc ((size_t) capacity, sizeof *self->slots);
    self->sources = calloc ((size_t) capacity, sizeof *self->sources);
    self->buckets = malloc (buckets * sizeof *self->buckets);
    if (!self->slots || !self->sources || !self->buckets) {
        free (self->slots);
        free (self->sources);
        free (self->buckets);
        free (self);
        return NULL;
    }
    for (uint32_t b = 0; b < buckets; b++)
        self->buckets[b] = -1;
    for (int i = 0; i < capacity; i++)
        self->sources[i].next = i + 1 < capacity ? i + 1 : -1;
    self->bucket_mask = buckets - 1;
    self->capacity = capacity;
    /* from the wall clock (us, ~2^51 now), 256 ids a microsecond: a
       restarted gateway starts past every id its predecessor used */
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    uint64_t now_us = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
    self->next_id = SIM_BUS_ID_ONCE | ((now_us << 8) & ~SIM_BUS_ID_ONCE);
    /* no id below the first is pending: gw_pending_oldest_of starts there */
    for (size_t k = 0; k < sizeof self->oldest_id / sizeof self->oldest_id[0]; k++)
        self->oldest_id[k] = self->next_id;
    self->earliest = INT64_MAX;
    return self;
}

void
gw_pending_set_quota (gw_pending_t *self, int per_port, int per_source)
{
    assert (per_port >= 0 && per_source >= 0);
    assert (3 * (int64_t) per_port <= self->capacity);
    self->per_port = per_port;
    self->per_source = per_source;
}

gw_admit_t
gw_pending_admit (const gw_pending_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    assert ((unsigned) port < 3);
    if (self->count == self->capacity)
        return GW_ADMIT_FULL;
    if (self->per_port && self->port_count[port] >= self->per_port)
        return GW_ADMIT_PORT;
    if (self->per_source && gw_pending_source_count (self, from) >= self->per_source)
        return GW_ADMIT_SOURCE;
    return GW_ADMIT_OK;
}

static void
s_refuse (gw_pending_t *self, gw_admit_t why, gw_port_kind_t port, const struct sockaddr_in *from)
{
    self->refused++;
    self->refused_for[why]++;
    self->unreported_for[why]++;
    if (self->warned[why])
        return;
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    int64_t now_us = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    if (self->warned_us[why] && now_us - self->warned_us[why] < GW_REFUSE_LOG_US)
        return;
    self->warned[why] = true;
    self->warned_us[why] = now_us;
    char since[64] = "";
    if (self->unreported_for[why] > 1)
        snprintf (since, sizeof since, " (%llu refused since the last such line)",
                  (unsigned long long) self->unreported_for[why]);
    self->unreported_for[why] = 0;
    if (why == GW_ADMIT_FULL)
        sim_warn ("%d requests wait for physics; new ones are refused until it answers%s", self->capacity,
                  since);
    else if (why == GW_ADMIT_PORT)
        sim_warn ("the %s port holds %d requests waiting for physics, its share; new ones are refused%s",
                  gw_port_name (port), self->per_port, since);
    else {
        char addr[32];
        sim_udp_addr_str (from, addr, sizeof addr);
        sim_warn ("%s holds %d requests waiting for physics; its new ones are refused%s", addr,
                  self->per_source, since);
    }
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
    free (self->sources);
    free (self->buckets);
    free (self);
    *self_p = NULL;
}

gw_request_t *
gw_pending_add (gw_pending_t *self, gw_req_kind_t kind, gw_port_kind_t port, const struct sockaddr_in *from,
                int64_t deadline_us)
{
    gw_admit_t why = gw_pending_admit (self, port, from);
    if (why != GW_ADMIT_OK) {
        s_refuse (self, why, port, from);
        return NULL;
    }
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
        r->answer_cap = SIZE_MAX;
        if (deadline_us < self->earliest)
            self->earliest = deadline_us;
        self->next_id = id + 1;
        self->count++;
        self->port_count[port]++;
        self->kind_count[kind]++;
        s_source_take (self, from);
        memset (self->warned, 0, sizeof self->warned);
        return r;
    }
    /* not reached: admit saw a free slot */
    s_refuse (self, GW_ADMIT_FULL, port, from);
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
    self->port_count[req->port]--;
    self->kind_count[req->kind]--;
    s_source_give (self, &req->from);
    if (req->reply_env)
        simbus__envelope__free_unpacked (req->reply_env, NULL);
    free (req->early);
    free (req->resend);
    for (size_t i = 0; i < req->frame_count; i++)
        zchunk_destroy (&req->frames[i]);
    memset (req, 0, sizeof *req);
    self->count--;
}

int
gw_pending_keep_request (gw_pending_t *self, gw_request_t *req, const Simbus__Request *bus, int64_t now_us,
                         int64_t final_us)
{
    req->final_us = final_us;
    req->kept_us = now_us;
    int64_t first = now_us + GW_RESEND_FIRST_US;
    gw_pending_set_deadline (self, req, first < final_us ? first : final_us);
    size_t len = simbus__request__get_packed_size (bus);
    req->resend = malloc (len ? len : 1);
    if (!req->resend)
        return -1;
    req->resend_len = simbus__request__pack (bus, req->resend);
    req->resend_gap_us = GW_RESEND_FIRST_US;
    return 0;
}

bool
gw_pending_resend_due (gw_request_t *req, int64_t now_us)
{
    if (!req->resend || now_us >= req->final_us)
        return false;
    req->resend_gap_us *= 2;
    int64_t next = now_us + req->resend_gap_us;
    req->deadline_us = next < req->final_us ? next : req->final_us;
    return true;
}

void
gw_pending_each_kept (gw_pending_t *self, int64_t before_us, gw_pending_fn *fn, void *arg)
{
    for (int i = 0, seen = 0; i < self->capacity && seen < self->count; i++) {
        gw_request_t *r = &self->slots[i];
        seen += r->used;
        if (r->used && r->resend && r->kept_us < before_us)
            fn (arg, r);
    }
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
    /* the gateway asks every loop turn: walk the table only when a
       deadline may have come */
    if (now_us < self->earliest)
        return self->earliest;
    int64_t next = INT64_MAX;
    for (int i = 0; i < self->capacity && self->count > 0; i++) {
        gw_request_t *r = &self->slots[i];
        if (r->used && now_us >= r->deadline_us)
            fn (arg, r);
        if (r->used && r->deadline_us < next)
            next = r->deadline_us;
    }
    self->earliest = next;
    return next;
}

void
gw_pending_set_deadline (gw_pending_t *self, gw_request_t *req, int64_t deadline_us)
{
    req->deadline_us = deadline_us;
    if (deadline_us < self->earliest)
        self->earliest = deadline_us;
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

int
gw_pending_kind_count (const gw_pending_t *self, gw_req_kind_t kind)
{
    return self->kind_count[kind];
}

const gw_request_t *
gw_pending_oldest_of (gw_pending_t *self, gw_req_kind_t kind)
{
    /* ids grow with time, so the oldest of a kind has its smallest
       pending id; the mark only moves forward, each id passed once */
    uint64_t *id = &self->oldest_id[kind];
    if (self->kind_count[kind] == 0)
        *id = self->next_id;
    for (; *id < self->next_id; (*id)++) {
        const gw_request_t *r = gw_pending_find (self, *id);
        if (r && r->kind == kind)
            return r;
    }
    return NULL;
}

int
gw_pending_port_count (const gw_pending_t *self, gw_port_kind_t port)
{
    assert ((unsigned) port < 3);
    return self->port_count[port];
}

int
gw_pending_source_count (const gw_pending_t *self, const struct sockaddr_in *from)
{
    int i = s_source_find (self, from);
    return i < 0 ? 0 : self->sources[i].count;
}

uint64_t
gw_pending_refused_for (const gw_pending_t *self, gw_admit_t reason)
{
    assert (reason > GW_ADMIT_OK && reason < GW_ADMIT_REASONS);
    return self->refused_for[reason];
}
