/*  sim_loop.h - a service's poll loop as a list of named handlers.

    A service adds each input (a ZeroMQ socket or a file descriptor) with
    the handler that reads it, and per turn waits once for input and then
    calls the handler of every input that is ready, in the order they were
    added; tick handlers run every turn after that, whether or not anything
    was ready (for input that a poll cannot see, such as the rest of a
    datagram already read). Waiting and dispatching are separate calls so a
    service can do its own work in between (physics runs the substeps owed
    up to the wake-up before it applies the command that woke it).
*/
#ifndef SIM_LOOP_H_INCLUDED
#define SIM_LOOP_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

typedef struct sim_loop_t sim_loop_t;

typedef void (sim_loop_fn) (void *arg);

/* An empty loop; NULL when out of memory. */
sim_loop_t *sim_loop_new (void);

/* Free the loop (not the sockets); nulls *self_p. Safe on NULL and twice. */
void sim_loop_destroy (sim_loop_t **self_p);

/* Call fn (arg) when `sock` (borrowed) has a message. `name` (a literal)
   names the handler in logs and tests. Returns 0, or -1 when full. */
int sim_loop_add_sock (sim_loop_t *self, const char *name, zsock_t *sock, sim_loop_fn *fn, void *arg);

/* Same for a file descriptor readable without blocking. */
int sim_loop_add_fd (sim_loop_t *self, const char *name, int fd, sim_loop_fn *fn, void *arg);

/* Call fn (arg) in every turn, after the handlers of ready inputs. */
int sim_loop_add_tick (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg);

/* Wait up to timeout_ms (-1: until input) for input. Returns the number
   of ready inputs, 0 on timeout or interruption, -1 when the loop cannot
   poll any more (the context is gone). */
int sim_loop_wait (sim_loop_t *self, int timeout_ms);

/* Call the handlers of the inputs the last wait found ready, then the
   tick handlers; clears the ready marks. */
void sim_loop_dispatch (sim_loop_t *self);

/* True when the last wait found the input named `name` ready. */
bool sim_loop_ready (const sim_loop_t *self, const char *name);

#endif
