/*  sim_loop.c - named handlers and timers around one zmq_poll (see sim_loop.h). */
#include "sim_loop.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SIM_LOOP_MAX 16

typedef struct {
    const char *name;
    sim_loop_fn *fn;
    void *arg;
} s_handler_t;

/* After the inputs: a tick (fn) or a timer (timer, deadline). */
typedef struct {
    const char *name;
    sim_loop_fn *fn;
    sim_loop_timer_fn *timer;
    void *arg;
    int64_t deadline;
} s_after_t;

typedef struct {
    const char *name;
    sim_loop_wake_fn *fn;
    void *arg;
} s_wake_t;

struct sim_loop_t {
    zmq_pollitem_t items[SIM_LOOP_MAX];
    s_handler_t inputs[SIM_LOOP_MAX];
    int count;
    s_handler_t firsts[SIM_LOOP_MAX];
    int first_count;
    s_after_t after[SIM_LOOP_MAX]; /* ticks and timers; a timer's id is its index */
    int after_count;
    s_wake_t wakes[SIM_LOOP_MAX];
    int wake_count;
    sim_loop_spin_fn *spin;
    sim_loop_fn *spin_read;
    void *spin_arg;
    int64_t polled_us; /* the last poll of every input */
    bool stopped;
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

void
sim_loop_set_quiet (sim_loop_t *self, const char *name, bool quiet)
{
    assert (self && name);
    for (int i = 0; i < self->count; i++)
        if (strcmp (self->inputs[i].name, name) == 0) {
            self->items[i].events = quiet ? 0 : ZMQ_POLLIN;
            self->items[i].revents = 0;
        }
}

static int
s_add_after (sim_loop_t *self, s_after_t after)
{
    assert (self && after.name && (after.fn || after.timer));
    if (self->after_count == SIM_LOOP_MAX)
        return -1;
    self->after[self->after_count] = after;
    return self->after_count++;
}

int
sim_loop_add_tick (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg)
{
    return s_add_after (self, (s_after_t) { name, fn, NULL, arg, SIM_LOOP_NEVER }) < 0 ? -1 : 0;
}

int
sim_loop_add_timer (sim_loop_t *self, const char *name, int64_t deadline, sim_loop_timer_fn *fn, void *arg)
{
    return s_add_after (self, (s_after_t) { name, NULL, fn, arg, deadline });
}

void
sim_loop_timer_set (sim_loop_t *self, int id, int64_t deadline)
{
    assert (id >= 0 && id < self->after_count && self->after[id].timer);
    self->after[id].deadline = deadline;
}

int64_t
sim_loop_timer_deadline (const sim_loop_t *self, int id)
{
    assert (id >= 0 && id < self->after_count && self->after[id].timer);
    return self->after[id].deadline;
}

int64_t
sim_loop_period (int64_t deadline, int64_t period, int64_t now)
{
    int64_t next = deadline + period;
    return next <= now ? now + period : next;
}

int
sim_loop_add_first (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg)
{
    assert (self && name && fn);
    if (self->first_count == SIM_LOOP_MAX)
        return -1;
    self->firsts[self->first_count++] = (s_handler_t) { name, fn, arg };
    return 0;
}

int
sim_loop_add_wake (sim_loop_t *self, const char *name, sim_loop_wake_fn *fn, void *arg)
{
    assert (self && name && fn);
    if (self->wake_count == SIM_LOOP_MAX)
        return -1;
    self->wakes[self->wake_count++] = (s_wake_t) { name, fn, arg };
    return 0;
}

void
sim_loop_set_spin (sim_loop_t *self, sim_loop_spin_fn *spin, sim_loop_fn *read, void *arg)
{
    assert (self && (!spin || read));
    self->spin = spin;
    self->spin_read = read;
    self->spin_arg = arg;
}

int64_t
sim_loop_next (sim_loop_t *self, int64_t now)
{
    int64_t next = SIM_LOOP_NEVER;
    for (int i = 0; i < self->after_count; i++)
        if (self->after[i].timer && self->after[i].deadline < next)
            next = self->after[i].deadline;
    for (int i = 0; i < self->wake_count; i++) {
        int64_t at = self->wakes[i].fn (self->wakes[i].arg, now);
        if (at < next)
            next = at;
    }
    return next;
}

int
sim_loop_timeout_ms (int64_t now, int64_t until)
{
    if (until == SIM_LOOP_NEVER)
        return -1;
    if (until <= now)
        return 0;
    int64_t ms = (until - now + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int) ms;
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

/* A turn after its wait: the first handlers, the inputs (or only what a
   spin found), then the ticks and the timers that are due. */
static void
s_dispatch (sim_loop_t *self, bool spun)
{
    for (int i = 0; i < self->first_count; i++)
        self->firsts[i].fn (self->firsts[i].arg);
    if (spun)
        self->spin_read (self->spin_arg);
    /* each input's own events were read by the poll; one that comes later
       wakes the next one */
    for (int i = 0; i < self->count; i++)
        if (self->items[i].revents & ZMQ_POLLIN) {
            self->items[i].revents = 0;
            self->inputs[i].fn (self->inputs[i].arg);
        }
    int64_t now = zclock_usecs ();
    for (int i = 0; i < self->after_count; i++) {
        s_after_t *a = &self->after[i];
        if (a->fn)
            a->fn (a->arg);
        else if (now >= a->deadline)
            a->deadline = a->timer (a->arg, a->deadline, now);
    }
}

void
sim_loop_dispatch (sim_loop_t *self)
{
    s_dispatch (self, false);
}

int
sim_loop_turn (sim_loop_t *self)
{
    int64_t now = zclock_usecs ();
    int timeout = sim_loop_timeout_ms (now, sim_loop_next (self, now));
    bool spun = timeout != 0 && self->spin && self->spin (self->spin_arg);
    if (spun && zclock_usecs () - self->polled_us < SIM_LOOP_SPIN_POLL_US) {
        s_dispatch (self, true); /* the other inputs wait a little */
        return 1;
    }
    int ready = sim_loop_wait (self, spun ? 0 : timeout);
    if (ready < 0)
        return -1;
    self->polled_us = zclock_usecs ();
    s_dispatch (self, false);
    return ready;
}

int
sim_loop_run (sim_loop_t *self)
{
    while (!self->stopped)
        if (sim_loop_turn (self) < 0)
            return -1;
    return 0;
}

void
sim_loop_stop (sim_loop_t *self)
{
    self->stopped = true;
}

bool
sim_loop_stopped (const sim_loop_t *self)
{
    return self->stopped;
}

bool
sim_loop_ready (const sim_loop_t *self, const char *name)
{
    for (int i = 0; i < self->count; i++)
        if (strcmp (self->inputs[i].name, name) == 0)
            return (self->items[i].revents & ZMQ_POLLIN) != 0;
    return false;
}
