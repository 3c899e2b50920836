/*  vis_report.c - the vision actor's Stats (vis_report.h). */
#include "vis_report.h"

#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_service.h"

void
vis_report_packet (vis_service_t *self, const vis_frame_t *frame)
{
    if (frame->camera_id >= 0 && frame->camera_id < SIM_MAX_CAMERAS) {
        self->camera_packets[frame->camera_id]++;
        self->camera_seen[frame->camera_id] = true;
    }
    sim_latency_sent (&self->latency, frame->capture_ns);
}

void
vis_report_publish (vis_service_t *self)
{
    int64_t now = zclock_usecs ();
    Simbus__Stats st;
    sim_stats_begin (&st, sim_service_names[SIM_SERVICE_VISION], self->started_us);
    Simbus__CameraStats cams[SIM_MAX_CAMERAS], *ptrs[SIM_MAX_CAMERAS];
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        if (self->camera_seen[i]) {
            simbus__camera_stats__init (&cams[st.n_cameras]);
            cams[st.n_cameras].id = (uint32_t) i;
            cams[st.n_cameras].packets = self->camera_packets[i];
            cams[st.n_cameras].has_pps = true;
            cams[st.n_cameras].pps = now > self->last_stats_us
                                       ? (double) (self->camera_packets[i] - self->camera_last[i]) * 1e6
                                             / (double) (now - self->last_stats_us)
                                       : 0;
            self->camera_last[i] = self->camera_packets[i];
            ptrs[st.n_cameras] = &cams[st.n_cameras];
            st.n_cameras++;
        }
    st.cameras = ptrs;
    sim_latency_report (&self->latency, &st);
    self->last_stats_us = now;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}
