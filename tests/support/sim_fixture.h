/*  sim_fixture.h - the one fixture of the system tests: a real `ssl-sim
    run` (sim_test.h's sim_proc_t) with a client socket, brought up as far
    as the test needs (gateway answering, sync frames flowing, vision
    arriving, every service's pid file written) and torn down with every
    socket it opened. Every wait is bounded and watches something the test
    can observe (a socket, a pid file, a process's exit); none sleeps.

    The functions return codes and print the simulator's log on failure;
    the tests assert (this library is linked into the benchmarks too, which
    have no Criterion).
*/
#ifndef SIM_FIXTURE_H_INCLUDED
#define SIM_FIXTURE_H_INCLUDED

#include <stdbool.h>

#include "sim_test.h"

/* What sim_fixture_start waits for, in this order (flags combine). */
enum {
    SIM_FIXTURE_GATEWAY = 1 << 0,  /* the control port answers an empty SimulatorCommand */
    SIM_FIXTURE_FRAMES = 1 << 1,   /* sync steps carry detection frames (sync mode; implies GATEWAY) */
    SIM_FIXTURE_VISION = 1 << 2,   /* `vision` receives the vision port, and a detection arrived */
    SIM_FIXTURE_SERVICES = 1 << 3, /* every service the run starts (the viewer too) wrote its pid file */
};

/* How long sim_fixture_start waits for each step, ms. */
#define SIM_FIXTURE_START_MS 15000

#define SIM_FIXTURE_SOCKETS 8

typedef struct {
    sim_proc_t proc;
    int fd;                           /* the client: an ephemeral port on 127.0.0.1 */
    int vision;                       /* bound to proc.vision_port with SIM_FIXTURE_VISION, else -1 */
    const char *const *args;          /* the arguments it was started with (borrowed) */
    int sockets[SIM_FIXTURE_SOCKETS]; /* opened by sim_fixture_socket, closed by _stop */
    int socket_count;
} sim_fixture_t;

/* Start `ssl-sim run ARGS` (sim_proc_start: private runtime directory,
   free loopback ports, `extra_ini` appended to the configuration), open
   the client socket and wait as `wait` says. `args` must outlive the
   fixture. Returns 0, or -1 with the log printed (the fixture must still
   be stopped). */
int sim_fixture_start (sim_fixture_t *self, const char *const *args, const char *extra_ini, unsigned wait);

/* One more UDP socket on 127.0.0.1:port (0: ephemeral) that the fixture
   closes when it stops. Returns the fd or -1. */
int sim_fixture_socket (sim_fixture_t *self, int port);

/* Close the sockets, stop ssl-sim (SIGTERM; its log is printed unless it
   exited with 0, or always when SIM_TEST_LOG is set) and remove its
   runtime directory. Returns the exit status (-1 when it had to be
   killed). */
int sim_fixture_stop (sim_fixture_t *self);

/* The live pid of service `name` (physics, vision, gateway, legacy-grsim),
   0 if none. */
int sim_fixture_service_pid (const sim_fixture_t *self, const char *name);

/* Wait up to ms until service `name` runs as a process other than
   `not_pid` (0: any), as its pid file says. Returns the pid, or 0. */
int sim_fixture_wait_service (const sim_fixture_t *self, const char *name, int not_pid, int ms);

/* Send `sig` to service `name` and, for SIGKILL, wait until that process
   is gone (so nothing it sent is still on its way). Returns the pid
   signalled, or 0 when the service was not running or did not die. */
int sim_fixture_signal (const sim_fixture_t *self, const char *name, int sig);

#endif
