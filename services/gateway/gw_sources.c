/*  gw_sources.c - sources heard per port (see gw_sources.h). */
#include "gw_sources.h"

#include <assert.h>
#include <stdlib.h>

typedef struct {
    uint32_t addr; /* network order */
    uint16_t port; /* network order */
    bool used;
    int64_t last_us; /* its latest datagram */
} s_source_t;

struct gw_sources_t {
    s_source_t *slots; /* ports * capacity */
    int ports, capacity;
};

gw_sources_t *
gw_sources_new (int ports, int capacity)
{
    assert (ports > 0 && capacity > 0);
    gw_sources_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->slots = calloc ((size_t) ports * (size_t) capacity, sizeof *self->slots);
    if (!self->slots) {
        free (self);
        return NULL;
    }
    self->ports = ports;
    self->capacity = capacity;
    return self;
}

void
gw_sources_destroy (gw_sources_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free ((*self_p)->slots);
    free (*self_p);
    *self_p = NULL;
}

bool
gw_sources_arrived (gw_sources_t *self, int port, const struct sockaddr_in *from, int64_t now_us)
{
    assert (port >= 0 && port < self->ports);
    s_source_t *row = self->slots + (size_t) port * (size_t) self->capacity;
    s_source_t *oldest = &row[0];
    for (int i = 0; i < self->capacity; i++) {
        s_source_t *s = &row[i];
        if (s->used && s->addr == from->sin_addr.s_addr && s->port == from->sin_port) {
            s->last_us = now_us;
            return false;
        }
        /* an empty slot is the first choice, then the least recent */
        if (!s->used ? oldest->used : (oldest->used && s->last_us < oldest->last_us))
            oldest = s;
    }
    *oldest = (s_source_t) { from->sin_addr.s_addr, from->sin_port, true, now_us };
    return true;
}

int
gw_sources_recent (const gw_sources_t *self, int port, int64_t since_us, struct sockaddr_in *out, int max)
{
    assert (port >= 0 && port < self->ports);
    const s_source_t *row = self->slots + (size_t) port * (size_t) self->capacity;
    int n = 0;
    for (int i = 0; i < self->capacity && n < max; i++)
        if (row[i].used && row[i].last_us >= since_us) {
            out[n] = (struct sockaddr_in) { .sin_family = AF_INET };
            out[n].sin_addr.s_addr = row[i].addr;
            out[n].sin_port = row[i].port;
            n++;
        }
    return n;
}
