/*  supervisor.h - `ssl-sim run`: the five services as child processes.

    Each child is this same executable run as `service NAME` with the
    launcher's options, started in the order physics, gateway,
    legacy-grsim, vision, viewer: vision only once the gateway and
    legacy-grsim said they serve their ports (launch_supervised_ready, at
    most 5 s each), so a client that saw vision finds them; its output
    lines are prefixed with the service name; a child that crashes
    (killed, or exits with an error after it started) is restarted after
    100 ms, every time; one that exits cleanly (it was asked to stop:
    `ssl-sim restart`) at once. A child that could not start
    at all (exit status SIM_SERVICE_EXIT_NO_START: port taken, endpoint
    cannot bind; or refused options) ends the run at once: starting it
    again would fail the same way. Every child gets SSL_SIM_RUN_ID, which
    ties physics checkpoints to this run; SIGINT or SIGTERM stops all of
    them cleanly (ARCHITECTURE.md §3).
*/
#ifndef LAUNCH_SUPERVISOR_H_INCLUDED
#define LAUNCH_SUPERVISOR_H_INCLUDED

#include "common/config/sim_config.h"

/* Run until a stop signal or cfg->run.duration elapses. `exe` is the path
   to re-execute; options are passed to every child unchanged. Returns the
   process exit code: 0 after a clean stop, 1 when a service could not
   start (the reason is in the log, from the service and the launcher). */
int launch_supervise (const char *exe, int optc, char **optv, const sim_config_t *cfg);

/* In a service started by launch_supervise: tell the supervisor that it
   serves (its actor started: ports bound), if it asked. Call once, after
   the start. */
void launch_supervised_ready (void);

#endif
