/*  restart.c - `ssl-sim restart NAME`: stop one service and wait for its
    supervisor's successor, or ask a single-process simulator for a new
    thread (control.h). */
#include "control.h"
#include "control_internal.h"

#include <czmq.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "services.h"
#include "single.h"

#define CTL_RESTART_MS 20000 /* how long to wait for the successor */

/* The generation of a single-process simulator's pid file for `name`
   ("PID single N": N threads restarted so far), or -1. */
static long
s_pidfile_generation (const sim_config_t *cfg, const char *name, int pid)
{
    char path[SIM_STRING_MAX + 16];
    if (ctl_pidfile_path (cfg, name, path, sizeof path))
        return -1;
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    int got = 0;
    unsigned generation = 0;
    int n = fscanf (f, "%d single %u", &got, &generation);
    fclose (f);
    return n == 2 && got == pid ? (long) generation : -1;
}

/* `restart NAME` of a single-process simulator (single.h): the services
   that only connect to the bus get a new thread; physics and vision are
   refused here, before anything is sent, since their restart would stop
   the others hearing the bus. */
static int
s_restart_thread (const sim_config_t *cfg, const launch_service_t *service, const ctl_proc_t *p)
{
    if (!launch_service_thread_restart (service)) {
        fprintf (
            stderr,
            "ssl-sim: %s runs inside a single-process simulator (pid %d), where it cannot restart alone: "
            "the other services' inproc connections to it would not come back. Nothing was stopped. "
            "Stop and start the whole simulator, or run it without --single-process to restart "
            "services one by one\n",
            service->name, p->pid);
        return 1;
    }
    long before = s_pidfile_generation (cfg, service->name, p->pid);
    if (before < 0) {
        fprintf (stderr,
                 "ssl-sim: %s runs inside a single-process simulator (pid %d) too old to restart one "
                 "service: nothing was sent\n",
                 service->name, p->pid);
        return 1;
    }
    union sigval value = { .sival_int = (int) (service - launch_services) };
    if (sigqueue (p->pid, LAUNCH_SINGLE_RESTART_SIGNAL, value)) {
        fprintf (stderr, "ssl-sim: cannot signal the simulator (pid %d): %s\n", p->pid, strerror (errno));
        return 1;
    }
    int64_t end = zclock_mono () + CTL_RESTART_MS;
    while (zclock_mono () < end && !zsys_interrupted) {
        long now = s_pidfile_generation (cfg, service->name, p->pid);
        if (now > before) {
            printf ("%s restarted: a new thread in pid %d\n", service->name, p->pid);
            return 0;
        }
        if (!ctl_is_service (p->pid, service->name)) {
            fprintf (stderr, "ssl-sim: the simulator (pid %d) ended while restarting %s; see its log\n",
                     p->pid, service->name);
            return 1;
        }
        zclock_sleep (50); /* a CLI waiting for another process; no loop to block */
    }
    fprintf (stderr, "ssl-sim: %s in pid %d did not come back within %d s; see the simulator's log\n",
             service->name, p->pid, CTL_RESTART_MS / 1000);
    return 1;
}

int
launch_restart (const sim_config_t *cfg, const char *name)
{
    if (!launch_service_find (name)) {
        fprintf (stderr, "ssl-sim: unknown service '%s' (physics, vision, gateway, legacy-grsim, viewer)\n",
                 name);
        return 2;
    }
    ctl_proc_t p;
    ctl_proc_find (cfg, name, &p);
    if (!p.alive) {
        bool started[LAUNCH_SERVICE_COUNT];
        launch_services_started (cfg, started);
        if (!started[launch_service_find (name) - launch_services])
            fprintf (stderr, "ssl-sim: %s is not running: this simulator was started without it\n", name);
        else
            fprintf (stderr, "ssl-sim: %s is not running\n", name);
        return 1;
    }
    if (strcmp (p.supervisor, "none") == 0) {
        fprintf (stderr,
                 "ssl-sim: %s (pid %d) has no supervisor to start it again; "
                 "restart it by hand\n",
                 name, p.pid);
        return 1;
    }
    if (strcmp (p.supervisor, "single") == 0)
        return s_restart_thread (cfg, launch_service_find (name), &p);
    if (kill (p.pid, SIGTERM)) {
        fprintf (stderr, "ssl-sim: cannot signal %s (pid %d): %s\n", name, p.pid, strerror (errno));
        return 1;
    }
    int64_t end = zclock_mono () + CTL_RESTART_MS;
    while (zclock_mono () < end && !zsys_interrupted) {
        ctl_proc_t now;
        ctl_proc_find (cfg, name, &now);
        if (now.alive && now.pid != p.pid) {
            printf ("%s restarted: pid %d -> %d\n", name, p.pid, now.pid);
            return 0;
        }
        zclock_sleep (50); /* a CLI waiting for another process; no loop to block */
    }
    fprintf (stderr, "ssl-sim: %s (pid %d) was stopped but no new one came up within %d s\n", name, p.pid,
             CTL_RESTART_MS / 1000);
    return 1;
}
