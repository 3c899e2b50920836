/*  phys_seek.c - a journal's world at any substep (phys_seek.h). */
#include "phys_seek.h"

#include <stdlib.h>

#include "phys_journal.h"

/* The world at a substep, with what a replay needs to go on from it. */
typedef struct {
    phys_world_t *world;
    sim_config_t cfg;
    size_t next; /* the first input not applied */
} s_point_t;

struct phys_seek_t {
    const phys_replay_t *script;
    uint64_t every, end;
    s_point_t *points; /* in substep order, about `every` apart (a sync input may run past one) */
    size_t n, cap;
    s_point_t head; /* the furthest run: where building goes on from */
    phys_journal_result_t scratch;
};

static void
s_point_free (s_point_t *p)
{
    phys_world_destroy (&p->world);
}

/* p->world run by the script to substep `frame` (not past the end).
   0, or -1 when an input is pinned to a substep already past. */
static int
s_run (phys_seek_t *self, s_point_t *p, uint64_t frame)
{
    size_t count = phys_replay_count (self->script);
    if (frame > self->end)
        frame = self->end;
    for (;;) {
        uint64_t now = phys_world_frame (p->world), at = UINT64_MAX;
        const Simbus__Request *req = NULL;
        if (p->next < count)
            req = phys_replay_input (self->script, p->next, &at, NULL);
        if (req && at < now)
            return -1;
        if (now >= frame)
            return 0; /* the inputs pinned to `frame` are the caller's next */
        if (req && at == now) {
            phys_journal_apply (p->world, &p->cfg, req, &self->scratch);
            p->next++;
            for (uint64_t k = 0; req->has_substeps && k < req->substeps; k++)
                phys_world_step (p->world);
            continue;
        }
        uint64_t to = at < frame ? at : frame;
        while (phys_world_frame (p->world) < to)
            phys_world_step (p->world);
    }
}

static int
s_copy (s_point_t *to, const s_point_t *from)
{
    to->world = phys_world_dup (from->world);
    to->cfg = from->cfg;
    to->next = from->next;
    return to->world ? 0 : -1;
}

/* Keep the head as a checkpoint. */
static int
s_keep (phys_seek_t *self)
{
    if (self->n == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 64;
        s_point_t *grown = realloc (self->points, cap * sizeof *grown);
        if (!grown)
            return -1;
        self->points = grown;
        self->cap = cap;
    }
    if (s_copy (&self->points[self->n], &self->head))
        return -1;
    self->n++;
    return 0;
}

phys_seek_t *
phys_seek_new (const phys_replay_t *script, const phys_world_t *start, const sim_config_t *cfg,
               uint64_t every)
{
    phys_seek_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->script = script;
    self->every = every ? every : 1;
    self->end = phys_replay_end_frame (script);
    s_point_t first = { .world = (phys_world_t *) start, .cfg = *cfg, .next = 0 };
    if (s_copy (&self->head, &first) || s_keep (self))
        phys_seek_destroy (&self);
    return self;
}

void
phys_seek_destroy (phys_seek_t **self_p)
{
    phys_seek_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->n; i++)
        s_point_free (&self->points[i]);
    free (self->points);
    s_point_free (&self->head);
    free (self);
    *self_p = NULL;
}

int
phys_seek_build (phys_seek_t *self, uint64_t frame)
{
    if (frame > self->end)
        frame = self->end;
    while (phys_world_frame (self->head.world) < frame) {
        uint64_t last = phys_world_frame (self->points[self->n - 1].world);
        uint64_t next = (last / self->every + 1) * self->every;
        if (s_run (self, &self->head, next < frame ? next : frame))
            return -1;
        if (phys_world_frame (self->head.world) >= next && s_keep (self))
            return -1;
    }
    return 0;
}

phys_world_t *
phys_seek_world (phys_seek_t *self, uint64_t frame, sim_config_t *cfg, size_t *next)
{
    if (frame > self->end)
        frame = self->end;
    if (phys_seek_build (self, frame))
        return NULL;
    /* the newest checkpoint at or before frame (the first is at the start) */
    size_t lo = 0, hi = self->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (phys_world_frame (self->points[mid].world) <= frame)
            lo = mid;
        else
            hi = mid;
    }
    size_t i = lo;
    s_point_t p;
    if (s_copy (&p, &self->points[i]))
        return NULL;
    if (s_run (self, &p, frame)) {
        s_point_free (&p);
        return NULL;
    }
    *cfg = p.cfg;
    *next = p.next;
    return p.world;
}

size_t
phys_seek_checkpoints (const phys_seek_t *self)
{
    return self->n;
}

uint64_t
phys_seek_built (const phys_seek_t *self)
{
    return phys_world_frame (self->head.world);
}
