/*  sim_service.h - starting a service actor and learning whether it came up.

    zactor_new returns once the actor signals, but carries no status; every
    service actor therefore takes a sim_service_args_t, writes `status`
    (0 ready, -1 failed) before it signals, and returns at once on failure.
*/
#ifndef SIM_SERVICE_H_INCLUDED
#define SIM_SERVICE_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/config/sim_config.h"

/* The exit status of `ssl-sim service NAME` when the service could not
   start (its actor reported a failed start, its runtime directory was
   refused, or another copy runs): the supervisor ends the run on it
   instead of restarting, since another try would fail the same way.
   78 is sysexits.h's EX_CONFIG. */
#define SIM_SERVICE_EXIT_NO_START 78

typedef struct {
    sim_config_t cfg; /* resolved: bus endpoints filled */
    int status;       /* written by the actor before it signals */
    /* `ssl-sim replay` (docs/logs.md): physics takes its inputs from this
       journal instead of the bus, up to replay_until_s of sim time (< 0:
       to the end); vision ends when the replay did. NULL otherwise. */
    const char *replay;
    double replay_until_s;
} sim_service_args_t;

/* Start `fn` with `args` (borrowed; must outlive the call only). Returns
   the actor, or NULL when it reported a failure. */
zactor_t *sim_service_start (zactor_fn *fn, sim_service_args_t *args);

/* Called by an actor at start: log name and level from its config. */
void sim_service_log_setup (const char *name, const sim_config_t *cfg);

/* Report the actor's start-up (`ok`) to sim_service_start and signal the
   pipe; returns `ok` so the actor can `if (!sim_service_ready (...)) return`. */
bool sim_service_ready (zsock_t *pipe, sim_service_args_t *args, bool ok);

/* Read one command from the actor pipe; true when it asks the actor to
   end ($TERM, or the pipe was interrupted). */
bool sim_service_term_requested (zsock_t *pipe);

/* Poll timeout in ms from now (µs) to the absolute deadline `until`
   (µs), rounded up: -1 (wait for input only) for INT64_MAX, 0 when it
   has passed. A service with nothing due sleeps without a timer: on a
   virtual machine an armed timer costs about as much as a wake-up. */
int sim_service_timeout_ms (int64_t now, int64_t until);

#endif
