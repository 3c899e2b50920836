/*  gw_pace.c - sync steps in turn (see gw_pace.h). */
#include "gw_pace.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool used;
    uint64_t seq; /* arrival order */
    gw_pace_item_t item;
} s_slot_t;

/* When a source last had its turn; as many as there are slots (a source
   with nothing waiting is forgotten when room is needed). */
typedef struct {
    bool used;
    struct sockaddr_in from;
    uint64_t turn;
} s_turn_t;

struct gw_pace_t {
    s_slot_t *slots;
    s_turn_t *turns;
    int capacity, per_source, count;
    uint64_t seq, turn;
};

static bool
s_same (const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

gw_pace_t *
gw_pace_new (int capacity, int per_source)
{
    assert (capacity > 0 && per_source > 0);
    gw_pace_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->slots = calloc ((size_t) capacity, sizeof *self->slots);
    self->turns = calloc ((size_t) capacity, sizeof *self->turns);
    self->capacity = capacity;
    self->per_source = per_source;
    if (!self->slots || !self->turns)
        gw_pace_destroy (&self);
    return self;
}

void
gw_pace_destroy (gw_pace_t **self_p)
{
    gw_pace_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; self->slots && i < self->capacity; i++)
        free (self->slots[i].item.data);
    free (self->slots);
    free (self->turns);
    free (self);
    *self_p = NULL;
}

int
gw_pace_count (const gw_pace_t *self)
{
    return self->count;
}

int
gw_pace_source_count (const gw_pace_t *self, const struct sockaddr_in *from)
{
    int n = 0;
    for (int i = 0; i < self->capacity; i++)
        n += self->slots[i].used && s_same (&self->slots[i].item.from, from);
    return n;
}

int
gw_pace_wait (gw_pace_t *self, gw_port_kind_t port, const struct sockaddr_in *from, const uint8_t *data,
              size_t len, size_t cap, int64_t now_us)
{
    if (self->count >= self->capacity || gw_pace_source_count (self, from) >= self->per_source)
        return -1;
    s_slot_t *slot = NULL;
    for (int i = 0; !slot && i < self->capacity; i++)
        if (!self->slots[i].used)
            slot = &self->slots[i];
    uint8_t *copy = malloc (len ? len : 1);
    if (!slot || !copy) {
        free (copy);
        return -1;
    }
    if (len)
        memcpy (copy, data, len);
    *slot = (s_slot_t) { true, self->seq++, { port, *from, copy, len, cap, now_us } };
    self->count++;
    return 0;
}

/* The turn entry of `from`, or NULL (never served, or forgotten). */
static s_turn_t *
s_turn_of (gw_pace_t *self, const struct sockaddr_in *from)
{
    for (int i = 0; i < self->capacity; i++)
        if (self->turns[i].used && s_same (&self->turns[i].from, from))
            return &self->turns[i];
    return NULL;
}

/* Remember that `from` had its turn now: its entry, a free one, or the
   one of the source served longest ago. */
static void
s_served (gw_pace_t *self, const struct sockaddr_in *from)
{
    s_turn_t *t = s_turn_of (self, from);
    for (int i = 0; !t && i < self->capacity; i++)
        if (!self->turns[i].used)
            t = &self->turns[i];
    if (!t) {
        t = &self->turns[0];
        for (int i = 1; i < self->capacity; i++)
            if (self->turns[i].turn < t->turn)
                t = &self->turns[i];
    }
    *t = (s_turn_t) { true, *from, ++self->turn };
}

bool
gw_pace_next (gw_pace_t *self, gw_pace_item_t *out)
{
    s_slot_t *best = NULL;
    uint64_t best_turn = 0;
    for (int i = 0; i < self->capacity; i++) {
        s_slot_t *s = &self->slots[i];
        if (!s->used)
            continue;
        const s_turn_t *t = s_turn_of (self, &s->item.from);
        uint64_t turn = t ? t->turn : 0;
        if (!best || turn < best_turn || (turn == best_turn && s->seq < best->seq)) {
            best = s;
            best_turn = turn;
        }
    }
    if (!best)
        return false;
    *out = best->item;
    memset (best, 0, sizeof *best);
    self->count--;
    s_served (self, &out->from);
    return true;
}
