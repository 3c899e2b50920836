/*  supervisor.h - `ssl-sim run`: the four services as child processes.

    Each child is this same executable run as `service NAME` with the
    launcher's options; its output lines are prefixed with the service name;
    a child that crashes is restarted with exponential backoff, one that
    exits cleanly (it was asked to stop: `ssl-sim restart`) at once; every
    child gets SSL_SIM_RUN_ID, which ties physics checkpoints to this run;
    SIGINT or SIGTERM stops all of them cleanly (ARCHITECTURE.md §3).
*/
#ifndef LAUNCH_SUPERVISOR_H_INCLUDED
#define LAUNCH_SUPERVISOR_H_INCLUDED

#include "sim_config.h"

/* Run until a stop signal or cfg->run.duration elapses. `exe` is the path
   to re-execute; options are passed to every child unchanged. Returns the
   process exit code: 0 after a clean stop, 1 when a service keeps failing
   at start (port taken, bad endpoint). */
int launch_supervise (const char *exe, int optc, char **optv, const sim_config_t *cfg);

#endif
