/*  vis_report.h - the vision actor's Stats (sim_stats.h, docs/stats.md):
    detection packets per camera and the command->vision latency, counted
    as packets are made and published on the bus once a second.
*/
#ifndef VIS_REPORT_H_INCLUDED
#define VIS_REPORT_H_INCLUDED

#include "vision_internal.h"

/* Count one packet made of released `frame` (borrowed). */
void vis_report_packet (vis_service_t *self, const vis_frame_t *frame);

/* Publish Stats: the packets of every camera that has sent one, their
   rates since the last Stats, the latency. */
void vis_report_publish (vis_service_t *self);

#endif
