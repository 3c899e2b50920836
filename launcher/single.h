/*  single.h - `ssl-sim run --single-process`: the services as threads of
    this process, on an inproc bus.

    Each service is an actor (sim_service.h) started in the order of
    launch_services and stopped in the reverse order, edges first and
    physics last, on SIGINT, SIGTERM or the end of --duration. The pid
    files of a multi-process run are written too, all naming this process
    with "single", so one simulator per runtime directory holds for both
    modes and `ssl-sim status` finds this one.

    `ssl-sim restart NAME` asks this process, by a real-time signal queued
    with the service's id (sigqueue: two requests at once are two
    signals, where a second SIGUSR1 would merge into the first), to
    restart that service's thread: the actor
    gets $TERM, then a new one starts, and the service's pid file is
    written again with the next generation ("PID single N"), which is what
    `restart` waits for. Only services that bind nothing other threads
    connect to restart this way (launch_service_thread_restart); physics
    and vision are refused by `restart` before any signal is sent.
*/
#ifndef LAUNCH_SINGLE_H_INCLUDED
#define LAUNCH_SINGLE_H_INCLUDED

#include <signal.h>

#include "common/config/sim_config.h"

/* The signal `restart` queues, with the service id as its value (the
   first real-time signal the C library leaves to programs). */
#define LAUNCH_SINGLE_RESTART_SIGNAL SIGRTMIN

/* Run until a stop signal, cfg->run.duration or an actor that ended on its
   own. Returns the exit code: 0 after a clean stop, 1 when a service did
   not start (at first or at a restart). */
int launch_single_run (const sim_config_t *cfg);

#endif
