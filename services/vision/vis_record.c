/*  vis_record.c - --record in the vision actor: the log file and the
    referee multicast (vis_record.h). */
#include "vis_record.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_udp.h"

/* The packets' [vision] timestamp_epoch_offset, ns. */
static int64_t
s_offset_ns (const vis_service_t *self)
{
    return (int64_t) llround (self->cfg.vision.timestamp_epoch_offset * 1e9);
}

/* The log time of sim instant `time_ns` (vis_record.h). */
static int64_t
s_log_time (vis_service_t *self, uint64_t time_ns)
{
    if (self->epoch_us)
        return self->epoch_us * 1000 + (int64_t) time_ns + s_offset_ns (self);
    if (!self->log_origin_set) {
        self->log_origin_ns = sim_logfile_now_ns () - (int64_t) time_ns;
        self->log_origin_set = true;
    }
    return self->log_origin_ns + (int64_t) time_ns;
}

void
vis_record_write (vis_service_t *self, uint64_t time_ns, int32_t type, const uint8_t *buf, size_t len)
{
    if (self->log)
        sim_logfile_write (self->log, s_log_time (self, time_ns), type, buf, len);
}

void
vis_record_write_now (vis_service_t *self, int32_t type, const uint8_t *buf, size_t len)
{
    if (!self->log)
        return;
    int64_t t =
        self->epoch_us ? sim_logfile_now_ns () + s_offset_ns (self) : s_log_time (self, self->last_time_ns);
    sim_logfile_write (self->log, t, type, buf, len);
}

static void
s_on_referee (void *arg)
{
    vis_service_t *self = arg;
    struct sockaddr_in from;
    ssize_t n;
    while ((n = sim_udp_recv (self->referee, self->referee_buf, SIM_UDP_MAX, &from)) >= 0)
        vis_record_write_now (self, SIM_LOGFILE_REFEREE, self->referee_buf, (size_t) n);
}

/* --record: the log file (the launcher made it empty; for FILE.gz it
   hands over FILE.gz.part, written plain and compressed after the run,
   docs/logs.md; a restarted vision appends behind the last whole record,
   and a clean close ends the file with the league's index of every
   record in it, those of earlier visions too) and the referee multicast.
   A referee that cannot be heard (the port taken by a game controller on
   this host is shared, so this is rare) is logged and not recorded. */
int
vis_record_open (vis_service_t *self)
{
    char err[SIM_STRING_MAX + 128];
    self->log = sim_logfile_writer_new (self->own.run.record, true, err, sizeof err);
    if (!self->log) {
        sim_error ("--record: %s", err);
        return -1;
    }
    sim_route_t ref; /* with --localhost joined on the loopback interface only */
    self->referee_buf = malloc (SIM_UDP_MAX);
    if (!self->referee_buf)
        return -1;
    if (sim_route_referee (&self->own, &ref) == 0 && (self->referee = sim_route_listen (&ref)) >= 0)
        return sim_loop_add_fd (self->loop, "referee", self->referee, s_on_referee, self);
    sim_warn ("--record: cannot listen to the referee at %s; recording vision only",
              self->own.network.referee_addr);
    return 0;
}

int
vis_record_status (vis_service_t *self)
{
    if (!self->log)
        return 0;
    sim_logfile_flush (self->log);
    return sim_logfile_failures (self->log) ? SIM_SERVICE_EXIT_LOST : 0;
}

void
vis_record_close (vis_service_t *self)
{
    if (self->referee >= 0)
        close (self->referee);
    self->referee = -1;
    if (self->log) {
        uint64_t written = sim_logfile_written (self->log);
        if (sim_logfile_writer_destroy (&self->log) == 0)
            sim_info ("recorded %llu messages to %s", (unsigned long long) written, self->own.run.record);
    }
    free (self->referee_buf);
    self->referee_buf = NULL;
}
