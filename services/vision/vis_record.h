/*  vis_record.h - --record FILE (docs/logs.md) in the vision actor: every
    packet written to the league log file as it is released, the referee
    multicast beside it.

    Log times: when the timestamps follow the wall clock (a realtime run,
    or [vision] timestamp_base = unix), a packet's log time is its own
    time base: the Unix time the packets give its sim instant (the
    release, which is the model's t_sent), so a stall, a pause or a speed
    change moves the log's times exactly as it moves the packets'; what
    is not made at a sim instant (the referee, the geometry sent while
    paused) is logged at the wall clock. Otherwise the times are sim time
    from a wall-clock origin taken at the first record, so a fast or sync
    log plays at the simulation's pace.
*/
#ifndef VIS_RECORD_H_INCLUDED
#define VIS_RECORD_H_INCLUDED

#include "vision_internal.h"

/* Open self->own.run.record and listen to the referee multicast (its
   reader added to self->loop). Returns 0, or -1 (logged) when the file
   cannot be written; a referee that cannot be heard is only logged. */
int vis_record_open (vis_service_t *self);

/* Write one message of `type` (SIM_LOGFILE_*) made at sim instant
   `time_ns`; nothing when not recording. */
void vis_record_write (vis_service_t *self, uint64_t time_ns, int32_t type, const uint8_t *buf, size_t len);

/* Write one message of `type` received or made now, outside the
   simulation's instants (the referee, the geometry while paused). */
void vis_record_write_now (vis_service_t *self, int32_t type, const uint8_t *buf, size_t len);

/* SIM_SERVICE_EXIT_LOST when records could not be written (pushing what
   is buffered first, so a full disk shows here), else 0. */
int vis_record_status (vis_service_t *self);

/* Close the log file (logging what it holds) and the referee socket;
   safe twice and when not recording. */
void vis_record_close (vis_service_t *self);

#endif
