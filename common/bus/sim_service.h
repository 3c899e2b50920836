/*  sim_service.h - the services' names, and the one actor skeleton every
    service runs in.

    zactor_new returns once the actor signals, but carries no status; every
    service actor therefore takes a sim_service_args_t, writes `status`
    (0 ready, -1 failed) before it signals, and returns at once on failure.
    sim_service_run does that for each service: it owns the pipe, $TERM,
    the ready signal and the loop; the service brings its handlers, ticks
    and timers (sim_loop.h) and its start and stop.
*/
#ifndef SIM_SERVICE_H_INCLUDED
#define SIM_SERVICE_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/config/sim_config.h"
#include "sim_loop.h"

/* The exit status of `ssl-sim service NAME` when the service could not
   start (its actor reported a failed start, its runtime directory was
   refused, or another copy runs): the supervisor ends the run on it
   instead of restarting, since another try would fail the same way.
   78 is sysexits.h's EX_CONFIG. */
#define SIM_SERVICE_EXIT_NO_START 78

/* The exit status of a service that ran but lost what it was asked to
   write (--record on a full disk): the run goes on, and reports it when it
   ends. 74 is sysexits.h's EX_IOERR. */
#define SIM_SERVICE_EXIT_LOST 74

/* The services, in start order (the binders come first). */
typedef enum {
    SIM_SERVICE_PHYSICS,
    SIM_SERVICE_VISION,
    SIM_SERVICE_GATEWAY,
    SIM_SERVICE_LEGACY,
    SIM_SERVICE_VIEWER,
    SIM_SERVICE_COUNT
} sim_service_id_t;

#define SIM_SERVICE_NAME_MAX 16

/* Each service's name: in logs, Stats, pid files, lane paths, the
   command line (`ssl-sim service NAME`) and the viewer's status. Arrays,
   so that sim_service_names[i] is a constant other tables may hold. */
extern const char sim_service_names[SIM_SERVICE_COUNT][SIM_SERVICE_NAME_MAX];

/* The service called `name`, or -1. */
int sim_service_find (const char *name);

/* Whether a simulator run with this configuration starts service `id`:
   legacy-grsim and the viewer can be switched off, the rest always run.
   The launcher starts what this says, and the system tests wait for it. */
bool sim_service_wanted (sim_service_id_t id, const sim_config_t *cfg);

typedef struct {
    sim_config_t cfg; /* resolved: bus endpoints filled */
    int status;       /* written by the actor before it signals */
    /* `ssl-sim replay` (docs/logs.md): physics takes its inputs from this
       journal instead of the bus, up to replay_until_s of sim time (< 0:
       to the end); vision ends when the replay did. NULL otherwise. */
    const char *replay;
    double replay_until_s;
    /* `ssl-sim replay` with its page (docs/viewer.md "Replaying a
       journal"): physics keeps checkpoints to seek in, obeys the
       viewer's timeline and pauses at the end instead of ending; the
       viewer ends the run when the replay is over and no page watches. */
    bool replay_page;
    /* with the page only: start paused (`--speed 0`) until the page resumes */
    bool replay_paused;
    /* `ssl-sim play` with its page (docs/viewer.md "Playing a log"): the
       viewer plays this league log itself (from the start again at its
       end when play_loop), and ends when the log did with no page open.
       NULL otherwise. */
    const char *play;
    bool play_loop;
    /* 0, or the first non-zero status a service gave as its actor ended
       (sim_service_run_status; SIM_SERVICE_EXIT_LOST): the exit status its
       process reports. Every runner keeps args until its actors are
       destroyed. */
    int exit_code;
} sim_service_args_t;

/* Start `fn` with `args` (borrowed; must outlive the actor). Returns
   the actor, or NULL when it reported a failure. */
zactor_t *sim_service_start (zactor_fn *fn, sim_service_args_t *args);

/* A service as sim_service_run runs it. */
typedef struct {
    sim_service_id_t id;
    /* Make the service: add its inputs, ticks and timers to `loop` (its
       pipe is in already) and return it, or NULL (logged). `args` is
       valid during the call only. */
    void *(*start) (const sim_service_args_t *args, sim_loop_t *loop);
    /* After the loop ended ($TERM, or it could not poll): the last work,
       then free what start made. */
    void (*stop) (void *self);
} sim_service_def_t;

/* The body of a service actor: log set-up, the loop with the pipe in it
   ($TERM stops it), def->start, the ready signal with its status, the
   loop's turns, def->stop. */
void sim_service_run (zsock_t *pipe, sim_service_args_t *args, const sim_service_def_t *def);

/* sim_service_run for a service that may ask its process to fail:
   `status`, after the loop ended and before def->stop, gives the exit
   status (0: nothing to report), kept in args->exit_code. */
void sim_service_run_status (zsock_t *pipe, sim_service_args_t *args, const sim_service_def_t *def,
                             int (*status) (void *self));

#endif
