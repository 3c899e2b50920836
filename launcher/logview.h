/*  logview.h - the threads that show a log (docs/viewer.md "Playing a log",
    "Replaying a journal"): `ssl-sim play`'s viewer, which plays the log
    itself for its page, and `ssl-sim replay`'s physics, vision and viewer,
    started as actors of this process and watched until they end or the
    caller's stop flag is raised. The caller prepares the arguments
    (configuration resolved for the bus) and catches the stop signals
    first; logtools.c does both.
*/
#ifndef LAUNCH_LOGVIEW_H_INCLUDED
#define LAUNCH_LOGVIEW_H_INCLUDED

#include <signal.h>

#include "common/bus/sim_service.h"

/* Play args->play with the viewer and its page until the viewer ends or
   *stop is raised. `args` must outlive the viewer's thread (a static).
   Returns 0, 1 when the log ended in damage, -1 when the viewer could not
   start (said). */
int launch_logview_play (sim_service_args_t *args, const volatile sig_atomic_t *stop);

/* Re-run the journal args->replay: the viewer first when the
   configuration wants it (a warning when it cannot start; args->replay_page
   says whether it did), then physics and vision, until one of them ends
   or *stop is raised; the viewer is stopped first, so its pages see the
   end. `args` must outlive the threads (a static). Returns 0, or 1 when
   physics or vision could not start, or a stop cut a replay without a
   page short. args->exit_code holds what the services reported. */
int launch_logview_replay (sim_service_args_t *args, const volatile sig_atomic_t *stop);

#endif
