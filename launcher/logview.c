/*  logview.c - the threads that show a log: play's viewer, replay's
    physics, vision and viewer (logview.h). */
#include "logview.h"

#include <czmq.h>

#include "common/base/sim_log.h"
#include "services.h"

/* Until one of the actors ends or *stop is raised (up to three actors; a
   NULL ends the list). */
static void
s_watch (zactor_t *a, zactor_t *b, zactor_t *c, const volatile sig_atomic_t *stop)
{
    zpoller_t *poller = zpoller_new (a, b, c, NULL);
    while (!*stop) {
        void *which = zpoller_wait (poller, 200);
        if (which || zpoller_terminated (poller))
            break;
    }
    zpoller_destroy (&poller);
}

int
launch_logview_play (sim_service_args_t *args, const volatile sig_atomic_t *stop)
{
    zactor_t *viewer = sim_service_start (launch_services[SIM_SERVICE_VIEWER].actor, args);
    if (!viewer)
        return -1;
    s_watch (viewer, NULL, NULL, stop);
    zactor_destroy (&viewer);
    return args->exit_code ? 1 : 0;
}

int
launch_logview_replay (sim_service_args_t *args, const volatile sig_atomic_t *stop)
{
    /* physics and vision, and the viewer for the page (docs/viewer.md
       "Replaying a journal"), whose timeline is the only thing besides
       the journal that moves the world; no gateway: nobody else may */
    zactor_t *viewer = NULL, *vision = NULL;
    if (args->cfg.viewer.enabled) {
        viewer = sim_service_start (launch_services[SIM_SERVICE_VIEWER].actor, args);
        if (!viewer)
            sim_warn ("replay: no page (the viewer did not start): replaying without it%s",
                      args->replay_paused ? ", at 1x: nothing could resume a paused one" : "");
    }
    args->replay_page = viewer != NULL;
    zactor_t *physics = sim_service_start (launch_services[SIM_SERVICE_PHYSICS].actor, args);
    if (physics)
        vision = sim_service_start (launch_services[SIM_SERVICE_VISION].actor, args);
    int rc = physics && vision ? 0 : 1;
    if (rc == 0) {
        s_watch (vision, physics, viewer, stop);
        if (*stop && !viewer)
            rc = 1; /* cut short; with the page, the user ends it when done watching */
    }
    zactor_destroy (&viewer); /* first: its pages see the end, not a silent bus */
    zactor_destroy (&vision);
    zactor_destroy (&physics);
    return rc;
}
