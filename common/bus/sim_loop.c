/*  sim_loop.c - named handlers around one zmq_poll (see sim_loop.h). */
#include "sim_loop.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SIM_LOOP_MAX 16

typedef struct {
    const char *name;
    sim_loop_fn *fn;
    void *arg;
} s_handler_t;

struct sim_loop_t {
    zmq_pollitem_t items[SIM_LOOP_MAX];
    s_handler_t inputs[SIM_LOOP_MAX];
    int count;
    s_handler_t ticks[SIM_LOOP_MAX];
    int tick_count;
};

sim_loop_t *
sim_loop_new (void)
{
    return calloc (1, sizeof (sim_loop_t));
}

void
sim_loop_destroy (sim_loop_t **self_p)
{
    free (*self_p);
    *self_p = NULL;
}

static int
s_add (sim_loop_t *self, const char *name, void *socket, int fd, sim_loop_fn *fn, void *arg)
{
    assert (self && name && fn);
    if (self->count == SIM_LOOP_MAX)
        return -1;
    self->items[self->count] = (zmq_pollitem_t) { socket, fd, ZMQ_POLLIN, 0 };
    self->inputs[self->count] = (s_handler_t) { name, fn, arg };
    self->count++;
    return 0;
}

int
sim_loop_add_sock (sim_loop_t *self, const char *name, zsock_t *sock, sim_loop_fn *fn, void *arg)
{
    assert (sock);
    return s_add (self, name, zsock_resolve (sock), 0, fn, arg);
}

int
sim_loop_add_fd (sim_loop_t *self, const char *name, int fd, sim_loop_fn *fn, void *arg)
{
    assert (fd >= 0);
    return s_add (self, name, NULL, fd, fn, arg);
}

int
sim_loop_add_tick (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg)
{
    assert (self && name && fn);
    if (self->tick_count == SIM_LOOP_MAX)
        return -1;
    self->ticks[self->tick_count++] = (s_handler_t) { name, fn, arg };
    return 0;
}

int
sim_loop_wait (sim_loop_t *self, int timeout_ms)
{
    int n = zmq_poll (self->items, self->count, timeout_ms);
    if (n < 0) {
        for (int i = 0; i < self->count; i++)
            self->items[i].revents = 0;
        return zmq_errno () == EINTR ? 0 : -1;
    }
    return n;
}

void
sim_loop_dispatch (sim_loop_t *self)
{
    /* each input's own events were read by the poll; one that comes later
       wakes the next one */
    for (int i = 0; i < self->count; i++)
        if (self->items[i].revents & ZMQ_POLLIN) {
            self->items[i].revents = 0;
            self->inputs[i].fn (self->inputs[i].arg);
        }
    for (int i = 0; i < self->tick_count; i++)
        self->ticks[i].fn (self->ticks[i].arg);
}

bool
sim_loop_ready (const sim_loop_t *self, const char *name)
{
    for (int i = 0; i < self->count; i++)
        if (strcmp (self->inputs[i].name, name) == 0)
            return (self->items[i].revents & ZMQ_POLLIN) != 0;
    return false;
}
