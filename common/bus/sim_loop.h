/*  sim_loop.h - a service's poll loop as a list of named handlers and
    timers with absolute deadlines.

    A service adds each input (a ZeroMQ socket or a file descriptor) with
    the handler that reads it, and per turn the loop waits once for input
    and then calls the handler of every input that is ready, in the order
    they were added. After the inputs come the ticks and the timers, in
    one list in the order they were added: a tick runs every turn (for
    input that a poll cannot see, such as the rest of a datagram already
    read), a timer when its deadline has come.

    Timers work as czmq's zloop timers do, but with absolute deadlines
    (zclock_usecs, us): the callback returns the next deadline, usually
    the last one plus the period (sim_loop_period: no drift), or
    SIM_LOOP_NEVER to stop; any handler may re-arm or stop a timer
    (sim_loop_timer_set). The wait lasts until the nearest deadline, of the
    timers and of the wake-ups owners compute from their state (the link's
    queues, physics' clock); with none, until input: a service with
    nothing due sleeps without a timer, since on a virtual machine an
    armed timer costs about as much as a wake-up.

    Physics runs the substeps owed up to the wake-up before it applies the
    command that woke it: a `first` handler runs after each wait, before
    the inputs, while the wait's ready marks are still set. And in sync
    mode it watches for the next request without sleeping (sim_loop_set_spin).
*/
#ifndef SIM_LOOP_H_INCLUDED
#define SIM_LOOP_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>
#include <stdint.h>

/* A deadline that never comes: a stopped timer, no wake-up. */
#define SIM_LOOP_NEVER INT64_MAX

/* While a spin keeps finding input, every input is still polled this
   often (us). */
#define SIM_LOOP_SPIN_POLL_US 1000

typedef struct sim_loop_t sim_loop_t;

typedef void (sim_loop_fn) (void *arg);

/* A timer whose deadline has come (now >= deadline): returns its next
   deadline, SIM_LOOP_NEVER to stop it. */
typedef int64_t (sim_loop_timer_fn) (void *arg, int64_t deadline, int64_t now);

/* The instant (us) its owner next needs a turn, SIM_LOOP_NEVER for none. */
typedef int64_t (sim_loop_wake_fn) (void *arg, int64_t now);

/* Watch for input without sleeping; true when some is waiting. */
typedef bool (sim_loop_spin_fn) (void *arg);

/* An empty loop; NULL when out of memory. */
sim_loop_t *sim_loop_new (void);

/* Free the loop (not the sockets); nulls *self_p. Safe on NULL and twice. */
void sim_loop_destroy (sim_loop_t **self_p);

/* Call fn (arg) when `sock` (borrowed) has a message. `name` (a literal)
   names the handler in logs and tests. Returns 0, or -1 when full. */
int sim_loop_add_sock (sim_loop_t *self, const char *name, zsock_t *sock, sim_loop_fn *fn, void *arg);

/* Same for a file descriptor readable without blocking. */
int sim_loop_add_fd (sim_loop_t *self, const char *name, int fd, sim_loop_fn *fn, void *arg);

/* Quiet (true): the input named `name` no longer ends a wait nor runs its
   handler; what comes on it waits in its queue until its owner reads it
   (a service that will wake soon anyway and reads it then, saving a
   wake-up), or until it is loud again (false, the state of a new input).
   Unknown names are ignored. */
void sim_loop_set_quiet (sim_loop_t *self, const char *name, bool quiet);

/* Call fn (arg) in every turn, after the handlers of ready inputs, in
   order with the timers. Returns 0, or -1 when full. */
int sim_loop_add_tick (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg);

/* Call fn (arg, deadline, now) once `deadline` (us, zclock_usecs) has
   come, after the inputs, in order with the ticks; SIM_LOOP_NEVER: not
   armed yet. Returns the timer's id (>= 0), or -1 when full. */
int sim_loop_add_timer (sim_loop_t *self, const char *name, int64_t deadline, sim_loop_timer_fn *fn,
                        void *arg);

/* Arm timer `id` for `deadline` (SIM_LOOP_NEVER: stop it; 0: at once,
   in this turn when its place in the list is still to come), from any
   handler; inside the timer's own callback its return value wins. */
void sim_loop_timer_set (sim_loop_t *self, int id, int64_t deadline);

/* Timer `id`'s deadline, SIM_LOOP_NEVER when stopped. */
int64_t sim_loop_timer_deadline (const sim_loop_t *self, int id);

/* The next deadline of a periodic timer: deadline + period, or now +
   period when the loop fell a whole period behind (a stalled host does
   not get a burst of turns to catch up). */
int64_t sim_loop_period (int64_t deadline, int64_t period, int64_t now);

/* Call fn (arg) in every turn after the wait, before any input's
   handler. Returns 0, or -1 when full. */
int sim_loop_add_first (sim_loop_t *self, const char *name, sim_loop_fn *fn, void *arg);

/* Before each wait, ask fn (arg, now) when its owner next needs a turn:
   for state that many calls change, where re-arming a timer at each
   would be easy to forget. Returns 0, or -1 when full. */
int sim_loop_add_wake (sim_loop_t *self, const char *name, sim_loop_wake_fn *fn, void *arg);

/* Before a wait that would sleep, call spin (arg). When it finds input,
   read (arg) reads it in place of the inputs' handlers, without a poll,
   unless every input was last polled SIM_LOOP_SPIN_POLL_US ago or more;
   then they are polled without waiting. The first handlers, ticks and
   timers run either way. One spin per loop; NULL spin: none. */
void sim_loop_set_spin (sim_loop_t *self, sim_loop_spin_fn *spin, sim_loop_fn *read, void *arg);

/* The nearest deadline of the armed timers and the wake-ups at `now`
   (us), SIM_LOOP_NEVER for none. */
int64_t sim_loop_next (sim_loop_t *self, int64_t now);

/* Poll timeout in ms from now (us) to the absolute deadline `until`
   (us), rounded up: -1 (wait for input only) for SIM_LOOP_NEVER, 0 when
   it has passed. */
int sim_loop_timeout_ms (int64_t now, int64_t until);

/* Wait up to timeout_ms (-1: until input) for input. Returns the number
   of ready inputs, 0 on timeout or interruption, -1 when the loop cannot
   poll any more (the context is gone). */
int sim_loop_wait (sim_loop_t *self, int timeout_ms);

/* Call the first handlers, then the handlers of the inputs the last
   wait found ready, then the ticks and the timers that are due; clears
   the ready marks. */
void sim_loop_dispatch (sim_loop_t *self);

/* One turn: wait until input or the nearest deadline (spinning first
   where set), then dispatch. Returns what the wait did (see
   sim_loop_wait; 1 for a turn that only spun). */
int sim_loop_turn (sim_loop_t *self);

/* Turn until sim_loop_stop. Returns 0, or -1 when the loop could not poll. */
int sim_loop_run (sim_loop_t *self);

/* End sim_loop_run after the current turn (the rest of the turn runs);
   true once stopped. */
void sim_loop_stop (sim_loop_t *self);
bool sim_loop_stopped (const sim_loop_t *self);

/* True when the last wait found the input named `name` ready. */
bool sim_loop_ready (const sim_loop_t *self, const char *name);

#endif
