/*  sim_fixture.c - the system tests' shared fixture. */
#include "sim_fixture.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_lab.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "common/config/config.h"
#include "ssl_vision_wrapper.pb-c.h"

/* The services `ssl-sim run ARGS --config DIR/test.ini` starts, read from
   that same configuration the way the launcher reads it and chosen by
   the launcher's rule (sim_service_wanted). Writes up to
   SIM_SERVICE_COUNT names into out; returns how many, or -1 when the
   configuration does not load. */
static int
s_wanted_services (const sim_fixture_t *self, const char *out[SIM_SERVICE_COUNT])
{
    char path[320], err[512];
    snprintf (path, sizeof path, "%s/test.ini", self->proc.dir);
    char *argv[64];
    int argc = 0;
    for (int i = 0; self->args && self->args[i] && argc < 60; i++)
        if (strcmp (self->args[i], "--single-process") != 0) /* run's own flag; it starts the same set */
            argv[argc++] = (char *) self->args[i];
    argv[argc++] = "--config";
    argv[argc++] = path;
    static sim_config_t cfg; /* large; the fixture runs on one thread */
    sim_config_defaults (&cfg);
    sim_log_level_t level = SIM_LOG_ERROR;
    while (level < SIM_LOG_DEBUG && sim_log_enabled (level + 1))
        level++;
    sim_log_set_level (SIM_LOG_ERROR); /* ssl-sim itself already said what it had to */
    int rc = sim_config_from_args (&cfg, argc, argv, err, sizeof err);
    sim_log_set_level (level);
    if (rc)
        return -1;
    int n = 0;
    for (int id = 0; id < SIM_SERVICE_COUNT; id++)
        if (sim_service_wanted ((sim_service_id_t) id, &cfg))
            out[n++] = sim_service_names[id];
    return n;
}

/* Read vision until a packet with a detection frame comes (at most ms). */
static bool
s_wait_detection (int fd, int ms)
{
    uint8_t buf[65536];
    int64_t end = sim_test_now_ms () + ms;
    int64_t left;
    while ((left = end - sim_test_now_ms ()) > 0) {
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, (int) left);
        if (n < 0)
            return false;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        bool detection = w && w->detection;
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        if (detection)
            return true;
    }
    return false;
}

static int
s_fail (sim_fixture_t *self, const char *what)
{
    fprintf (stderr, "sim_fixture: %s\n", what);
    sim_proc_dump_log (&self->proc);
    return -1;
}

int
sim_fixture_start (sim_fixture_t *self, const char *const *args, const char *extra_ini, unsigned wait)
{
    memset (self, 0, sizeof *self);
    self->fd = self->vision = -1;
    self->args = args;
    if (sim_proc_start (&self->proc, args, extra_ini))
        return s_fail (self, "ssl-sim could not be started");
    self->fd = sim_fixture_socket (self, 0);
    if (self->fd < 0)
        return s_fail (self, "no client socket");
    /* bound before the other waits, so vision is read from its first packets */
    if (wait & SIM_FIXTURE_VISION) {
        self->vision = sim_fixture_socket (self, self->proc.vision_port);
        if (self->vision < 0)
            return s_fail (self, "the vision port is taken");
    }
    /* the probes have a socket of their own, open until the stop: an
       answer to an early probe may come late, and must not be read on fd
       as the answer to the test's first request */
    if (wait & (SIM_FIXTURE_GATEWAY | SIM_FIXTURE_FRAMES)) {
        int probe = sim_fixture_socket (self, 0);
        if (probe < 0)
            return s_fail (self, "no socket for the gateway's probes");
        if (sim_test_wait_ready (probe, self->proc.control_port, SIM_FIXTURE_START_MS))
            return s_fail (self, "the gateway did not answer on the control port");
    }
    if ((wait & SIM_FIXTURE_FRAMES)
        && sim_test_sync_warm_up (self->fd, self->proc.control_port, SIM_FIXTURE_START_MS) < 0)
        return s_fail (self, "no detection frames in sync steps");
    if ((wait & SIM_FIXTURE_VISION) && !s_wait_detection (self->vision, SIM_FIXTURE_START_MS))
        return s_fail (self, "no vision packet with a detection frame");
    if (wait & SIM_FIXTURE_SERVICES) {
        const char *names[SIM_SERVICE_COUNT];
        int n = s_wanted_services (self, names);
        if (n < 0)
            return s_fail (self, "the test's configuration does not load");
        for (int i = 0; i < n; i++)
            if (!sim_fixture_wait_service (self, names[i], 0, SIM_FIXTURE_START_MS))
                return s_fail (self, "a service wrote no pid file");
    }
    return 0;
}

int
sim_fixture_socket (sim_fixture_t *self, int port)
{
    if (self->socket_count == SIM_FIXTURE_SOCKETS)
        return -1;
    int fd = sim_test_udp (port);
    if (fd >= 0)
        self->sockets[self->socket_count++] = fd;
    return fd;
}

int
sim_fixture_stop (sim_fixture_t *self)
{
    for (int i = 0; i < self->socket_count; i++)
        close (self->sockets[i]);
    self->socket_count = 0;
    self->fd = self->vision = -1;
    int code = sim_proc_stop (&self->proc);
    if (code != 0 || getenv ("SIM_TEST_LOG"))
        sim_proc_dump_log (&self->proc);
    sim_proc_cleanup (&self->proc);
    return code;
}

int
sim_fixture_service_pid (const sim_fixture_t *self, const char *name)
{
    return sim_lab_service_pid (self->proc.dir, 0, name);
}

int
sim_fixture_wait_service (const sim_fixture_t *self, const char *name, int not_pid, int ms)
{
    return sim_lab_wait_service (self->proc.dir, 0, name, not_pid, ms);
}

int
sim_fixture_signal (const sim_fixture_t *self, const char *name, int sig)
{
    int pid = sim_fixture_service_pid (self, name);
    if (pid <= 0 || kill (pid, sig))
        return 0;
    if (sig == SIGKILL && sim_lab_wait_exit (pid, 5000))
        return 0;
    return pid;
}
