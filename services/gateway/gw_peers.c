/*  gw_peers.c - proven source addresses (see gw_peers.h). */
#include "gw_peers.h"

#include <assert.h>
#include <stdlib.h>

typedef struct {
    uint32_t addr; /* network order */
    bool used;
    bool answered; /* an answer went to it since it was last idle */
    bool proven;
    int64_t last_us; /* its last datagram or answer */
} s_peer_t;

struct gw_peers_t {
    s_peer_t *peers;
    int capacity;
    int count;
    int64_t idle_us;
};

gw_peers_t *
gw_peers_new (int capacity, int64_t idle_us)
{
    assert (capacity > 0 && idle_us > 0);
    gw_peers_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->peers = calloc ((size_t) capacity, sizeof *self->peers);
    if (!self->peers) {
        free (self);
        return NULL;
    }
    self->capacity = capacity;
    self->idle_us = idle_us;
    return self;
}

void
gw_peers_destroy (gw_peers_t **self_p)
{
    gw_peers_t *self = *self_p;
    if (!self)
        return;
    free (self->peers);
    free (self);
    *self_p = NULL;
}

/* The entry of addr, or NULL. A few hundred entries: a scan costs less
   than a datagram's decode. */
static s_peer_t *
s_find (gw_peers_t *self, uint32_t addr)
{
    for (int i = 0; i < self->capacity; i++)
        if (self->peers[i].used && self->peers[i].addr == addr)
            return &self->peers[i];
    return NULL;
}

/* A free entry, or the one to give up: the oldest unproven, else the
   oldest, so forged sources cannot push out the clients that proved
   themselves while there are other candidates. */
static s_peer_t *
s_room (gw_peers_t *self)
{
    s_peer_t *oldest = NULL, *oldest_unproven = NULL;
    for (int i = 0; i < self->capacity; i++) {
        s_peer_t *p = &self->peers[i];
        if (!p->used)
            return p;
        if (!oldest || p->last_us < oldest->last_us)
            oldest = p;
        if (!p->proven && (!oldest_unproven || p->last_us < oldest_unproven->last_us))
            oldest_unproven = p;
    }
    self->count--;
    return oldest_unproven ? oldest_unproven : oldest;
}

bool
gw_peers_arrived (gw_peers_t *self, const struct sockaddr_in *from, int64_t now_us)
{
    s_peer_t *p = s_find (self, from->sin_addr.s_addr);
    if (!p)
        return false;
    if (now_us - p->last_us > self->idle_us)
        p->answered = p->proven = false;
    p->proven = p->proven || p->answered;
    p->last_us = now_us;
    return p->proven;
}

void
gw_peers_answered (gw_peers_t *self, const struct sockaddr_in *to, int64_t now_us)
{
    s_peer_t *p = s_find (self, to->sin_addr.s_addr);
    if (!p) {
        p = s_room (self);
        *p = (s_peer_t) { .addr = to->sin_addr.s_addr, .used = true };
        self->count++;
    } else if (now_us - p->last_us > self->idle_us)
        p->proven = false;
    p->answered = true;
    p->last_us = now_us;
}

int
gw_peers_count (const gw_peers_t *self)
{
    return self->count;
}
