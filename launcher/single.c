/*  single.c - `ssl-sim run --single-process` (see single.h). */
#include "single.h"

#include <czmq.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_service.h"
#include "control.h"
#include "services.h"

#define SINGLE_POLL_MS 500 /* the longest wait; signals and ended actors wake it at once */

typedef struct {
    sim_service_args_t args; /* outlives every actor thread */
    zactor_t *actors[LAUNCH_SERVICE_COUNT];
    int64_t started_ms[LAUNCH_SERVICE_COUNT];
    unsigned generation[LAUNCH_SERVICE_COUNT]; /* thread restarts, in the pid file */
    char pidfiles[LAUNCH_SERVICE_COUNT][SIM_STRING_MAX + 16];
    int signals; /* a signalfd for SIGINT, SIGTERM and restarts, or -1 */
} single_t;

/* Start service i's actor; 0, or -1 (logged). */
static int
s_start (single_t *self, int i)
{
    self->actors[i] = sim_service_start (launch_services[i].actor, &self->args);
    if (!self->actors[i]) {
        sim_error ("%s did not start", launch_services[i].name);
        return -1;
    }
    self->started_ms[i] = zclock_mono ();
    sim_info ("started %s (thread)", launch_services[i].name);
    return 0;
}

/* $TERM to service i's actor and wait for its thread; says so in the
   words the multi-process launcher uses for a child. */
static void
s_stop (single_t *self, int i)
{
    if (!self->actors[i])
        return;
    zactor_destroy (&self->actors[i]);
    sim_info ("%s (thread) stopped after %.1f s", launch_services[i].name,
              (double) (zclock_mono () - self->started_ms[i]) / 1000);
}

static void
s_pidfile (single_t *self, int i)
{
    char by[32];
    snprintf (by, sizeof by, "single %u", self->generation[i]);
    launch_pidfile_write (&self->args.cfg, launch_services[i].name, by, self->pidfiles[i],
                          sizeof self->pidfiles[i]);
}

/* `ssl-sim restart NAME` queued service `id`: a new thread for it.
   Returns 0, or -1 when the new one did not start (the run ends, as a
   multi-process run ends on a service that cannot start). */
static int
s_restart (single_t *self, int id, int from_pid)
{
    if (id < 0 || id >= LAUNCH_SERVICE_COUNT || !self->actors[id]) {
        sim_warn ("restart request (from pid %d) for service %d, which does not run here: ignored", from_pid,
                  id);
        return 0;
    }
    const launch_service_t *service = &launch_services[id];
    if (!launch_service_thread_restart (service)) {
        sim_warn ("%s cannot restart inside a single-process simulator (request from pid %d ignored)",
                  service->name, from_pid);
        return 0;
    }
    sim_info ("restarting %s (thread), asked by pid %d", service->name, from_pid);
    s_stop (self, id);
    if (s_start (self, id))
        return -1;
    self->generation[id]++;
    s_pidfile (self, id);
    return 0;
}

/* Why the wait ended. */
typedef enum { S_STOP_SIGNAL, S_STOP_DURATION, S_STOP_ACTOR, S_STOP_FAILED } s_end_t;

/* Wait for a stop signal, the duration or an actor ending on its own,
   restarting threads as `ssl-sim restart` asks meanwhile. */
static s_end_t
s_wait (single_t *self, double duration, int *signal_out)
{
    int64_t end = duration > 0 ? zclock_mono () + (int64_t) (duration * 1000) : 0;
    for (;;) {
        zmq_pollitem_t items[LAUNCH_SERVICE_COUNT + 1];
        int n = 0;
        if (self->signals >= 0)
            items[n++] = (zmq_pollitem_t) { .fd = self->signals, .events = ZMQ_POLLIN };
        for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
            if (self->actors[i])
                items[n++] =
                    (zmq_pollitem_t) { .socket = zactor_resolve (self->actors[i]), .events = ZMQ_POLLIN };
        long timeout = SINGLE_POLL_MS;
        if (end) {
            int64_t left = end - zclock_mono ();
            if (left <= 0)
                return S_STOP_DURATION;
            if (left < timeout)
                timeout = (long) left;
        }
        int rc = zmq_poll (items, n, timeout);
        if (rc < 0 && errno != EINTR)
            return S_STOP_ACTOR; /* the context is gone: nothing runs any more */
        for (int k = self->signals >= 0 ? 1 : 0; rc > 0 && k < n; k++)
            if (items[k].revents & ZMQ_POLLIN)
                return S_STOP_ACTOR;
        struct signalfd_siginfo si;
        while (self->signals >= 0 && read (self->signals, &si, sizeof si) == (ssize_t) sizeof si) {
            if ((int) si.ssi_signo != LAUNCH_SINGLE_RESTART_SIGNAL) {
                *signal_out = (int) si.ssi_signo;
                return S_STOP_SIGNAL;
            }
            if (si.ssi_code != SI_QUEUE)
                sim_warn (
                    "signal %d from pid %u without a service: ignored (`ssl-sim restart NAME` sends it)",
                    LAUNCH_SINGLE_RESTART_SIGNAL, si.ssi_pid);
            else if (s_restart (self, si.ssi_int, (int) si.ssi_pid))
                return S_STOP_FAILED;
        }
    }
}

int
launch_single_run (const sim_config_t *cfg)
{
    static single_t self; /* its args outlive the actor threads */
    memset (&self, 0, sizeof self);
    self.args.cfg = *cfg;
    char prefix[32];
    snprintf (prefix, sizeof prefix, "ssl-sim-%d", (int) getpid ());
    if (sim_bus_resolve (&self.args.cfg, prefix))
        return 1;
    /* The actors share one process: if CZMQ's handler raised
       zsys_interrupted, all of them would leave at once, and an edge could
       block forever sending to a physics whose inproc socket is gone. The
       stop signals and restart requests are blocked here, before any
       thread exists, so every thread inherits the mask and they all come
       to this thread's signalfd; the actors stop in order, edges first and
       physics last, each on $TERM. */
    zsys_handler_set (NULL);
    sigset_t set;
    sigemptyset (&set);
    sigaddset (&set, SIGINT);
    sigaddset (&set, SIGTERM);
    sigaddset (&set, LAUNCH_SINGLE_RESTART_SIGNAL);
    pthread_sigmask (SIG_BLOCK, &set, NULL);
    self.signals = signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (self.signals < 0) {
        sim_error ("cannot watch for signals: %s", strerror (errno));
        return 1;
    }
    int code = 0;
    for (int i = 0; i < LAUNCH_SERVICE_COUNT && code == 0; i++)
        if (launch_service_wanted (&launch_services[i], &self.args.cfg) && s_start (&self, i))
            code = 1;
    if (code == 0) {
        /* the pid files of a multi-process run, all naming this process:
           the same check keeps a second simulator of either kind out, and
           `ssl-sim status` and `restart` find this one */
        for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
            if (self.actors[i])
                s_pidfile (&self, i);
        sim_info ("running single-process (pid %d)", (int) getpid ());
        int sig = 0;
        switch (s_wait (&self, self.args.cfg.run.duration, &sig)) {
        case S_STOP_SIGNAL:
            sim_info ("stopping on signal %d", sig);
            break;
        case S_STOP_DURATION:
            sim_info ("--duration reached");
            break;
        case S_STOP_ACTOR:
            break; /* it said why (a replay that ended, a failure) */
        case S_STOP_FAILED:
            code = 1;
            break;
        }
    }
    for (int i = LAUNCH_SERVICE_COUNT - 1; i >= 0; i--)
        s_stop (&self, i);
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        launch_pidfile_remove (self.pidfiles[i]);
    close (self.signals);
    if (code == 0)
        sim_info ("all services stopped");
    if (self.args.exit_code == SIM_SERVICE_EXIT_LOST) {
        sim_error ("--record: vision lost records: %s is incomplete (its error above says why)",
                   self.args.cfg.run.record);
        code = 1;
    }
    return code;
}
