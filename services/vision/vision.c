/*  vision.c - the vision service actor: the loop, the handlers of the
    world's messages (configuration, snapshots, a sync step's end) and
    life. Each feature's glue has its own file: vis_send (UDP), vis_sync (a
    sync step's packets and answer), vis_record (--record), vis_report
    (Stats); vision's part of a step is engine/world/vis_step, the function
    libsslsim calls too.
*/
#include "vision.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/base/sim_snapshot.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_udp.h"
#include "engine/world/vis_codec.h"
#include "engine/world/vis_def.h"
#include "engine/world/vis_step.h"
#include "vis_record.h"
#include "vis_report.h"
#include "vis_send.h"
#include "vis_sync.h"
#include "vision_internal.h"

/* The model's definition: the configuration, with the Unix base physics
   sends added to the timestamp offset. */
static void
s_model_def (const vis_service_t *self, vis_model_def_t *def)
{
    vis_model_def_from_config (def, &self->cfg);
    def->timestamp_epoch_offset += (double) self->epoch_us * 1e-6;
}

static void
s_on_config (vis_service_t *self, const Simbus__Config *msg)
{
    vis_send_flush (self); /* on the socket and to the addresses they were made for */
    int rc = sim_bus_config_decode (msg, &self->own, &self->cfg, &self->config_serial);
    if (rc < 0 || (rc == 1 && self->have_config))
        return;
    char host[256] = "";
    if (gethostname (host, sizeof host - 1))
        host[0] = '\0';
    vis_truth_uuid (&self->cfg, host, self->truth_uuid, sizeof self->truth_uuid);
    bool paused = self->cfg.run.mode != SIM_MODE_SYNC && self->cfg.run.speed <= 0;
    if (paused != self->paused) {
        sim_info (paused ? "paused: geometry once a second" : "running: geometry with the frames");
        self->next_geometry_us = zclock_usecs ();
    }
    self->paused = paused;
    vis_model_def_t def;
    s_model_def (self, &def);
    if (!self->model)
        self->model = vis_model_new (&def);
    else
        vis_model_set_def (self->model, &def);
    if (!self->model)
        sim_error ("the camera model rejected the configuration");
    self->have_config = self->model != NULL;
    vis_send_update_destination (self);
}

static void
s_on_snapshot (vis_service_t *self, const Simbus__Snapshot *msg)
{
    sim_snapshot_t snap;
    if (!self->have_config || sim_bus_snapshot_decode (msg, &snap))
        return;
    if (self->advanced && snap.time_ns < self->last_time_ns) {
        /* physics went back to its checkpoint (it was killed): start the
           model again from the keyed state, which repeats exactly what a
           vision that had only ever seen this timeline would send */
        sim_info ("simulation time went back from %.3fs to %.3fs (physics resumed); resuming",
                  (double) self->last_time_ns / 1e9, (double) snap.time_ns / 1e9);
        vis_model_destroy (&self->model);
        self->epoch_us = snap.epoch_us;
        vis_model_def_t def;
        s_model_def (self, &def);
        self->model = vis_model_new (&def);
        self->advanced = false;
        if (!self->model) {
            self->have_config = false;
            return;
        }
    }
    if (snap.epoch_us != self->epoch_us) {
        /* physics re-based the timestamps (start, a stall, a pause, a mode
           change): captures from this instant on carry the new base */
        self->epoch_us = snap.epoch_us;
        vis_model_def_t def;
        s_model_def (self, &def);
        vis_model_set_def (self->model, &def);
        sim_latency_forget (&self->latency);
    }
    /* joining a running simulation (this process restarted, or physics
       resumed): the model's first advance continues frame numbers from the
       sim time and sends geometry with its first capture */
    self->advanced = true;
    self->last_time_ns = snap.time_ns;
    sim_latency_snapshot (&self->latency, snap.time_ns, snap.command_us);
    vis_step_out_t out;
    if (vis_step_encode (self->model, &snap, self->packets, VIS_STEP_BYTES, &out) <= 0)
        return;
    ProtobufCBinaryData wrappers[VIS_STEP_MAX_RELEASED];
    for (int i = 0; i < out.count; i++) {
        wrappers[i] = (ProtobufCBinaryData) { out.packet[i].len, self->packets + out.packet[i].off };
        vis_report_packet (self, out.packet[i].frame);
        vis_record_write (self, snap.time_ns, SIM_LOGFILE_VISION, wrappers[i].data, wrappers[i].len);
        if (msg->has_step_id)
            vis_sync_keep (self, msg->step_id, &wrappers[i]);
        else {
            vis_sync_flush (self); /* keep the UDP order */
            vis_send_packet (self, wrappers[i].data, wrappers[i].len);
        }
    }
    if (self->cfg.run.truth) {
        uint8_t truth[VIS_STEP_PACKET_MAX];
        size_t len = vis_codec_truth (self->model, &snap, self->truth_uuid, truth, sizeof truth);
        if (len) {
            vis_send_add (self, truth, len, &self->truth_dest, false);
            vis_record_write (self, snap.time_ns, SIM_LOGFILE_TRACKER, truth, len);
        }
    }
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = snap.time_ns;
    frames.has_step_id = msg->has_step_id;
    frames.step_id = msg->step_id;
    frames.n_wrapper = (size_t) out.count;
    frames.wrapper = wrappers;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES, &frames);
    sim_link_send (self->link, &env);
}

/* Paused: nothing is captured, but a program that waits for the geometry
   before it starts must get it; once a wall-clock second (deadline based,
   so a busy turn does not shift the rhythm). */
static void
s_send_paused_geometry (vis_service_t *self)
{
    uint8_t *buf = self->packets;
    size_t len = vis_codec_geometry (self->model, buf, VIS_STEP_PACKET_MAX);
    if (len)
        vis_send_packet (self, buf, len);
    int64_t now = zclock_usecs ();
    self->next_geometry_us += VIS_PAUSED_US;
    if (self->next_geometry_us <= now)
        self->next_geometry_us = now + VIS_PAUSED_US;
}

/* The end of a sync step; in `ssl-sim replay`, the end of the replay. */
static void
s_on_step_done (vis_service_t *self, const Simbus__StepDone *msg)
{
    if (self->replaying && msg->step_id == SIM_BUS_REPLAY_END_STEP) {
        self->terminated = true; /* every snapshot of the replay came before this */
        return;
    }
    vis_sync_answer (self, msg);
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    vis_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        s_on_config (self, env->config);
        break;
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT:
        s_on_snapshot (self, env->snapshot);
        break;
    case SIMBUS__ENVELOPE__BODY_STEP_DONE:
        s_on_step_done (self, env->step_done);
        break;
    default:
        break;
    }
    return false;
}

static void
s_on_pipe (void *arg)
{
    vis_service_t *self = arg;
    if (sim_service_term_requested (self->pipe))
        self->terminated = true;
}

static void
s_destroy (vis_service_t **self_p)
{
    vis_service_t *self = *self_p;
    if (!self)
        return;
    sim_loop_destroy (&self->loop);
    sim_link_destroy (&self->link);
    vis_model_destroy (&self->model);
    if (self->udp >= 0)
        close (self->udp);
    if (self->local_udp >= 0)
        close (self->local_udp);
    vis_record_close (self);
    free (self->packets);
    free (self->step.bytes);
    free (self->sendq.bytes);
    free (self);
    *self_p = NULL;
}

static vis_service_t *
s_new (zsock_t *pipe, const sim_config_t *cfg)
{
    vis_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->pipe = pipe;
    self->own = self->cfg = *cfg;
    self->referee = -1;
    self->started_us = self->last_stats_us = zclock_usecs ();
    self->next_stats_us = self->started_us + VIS_STATS_US;
    self->udp = sim_udp_sender (cfg->network.multicast_interface, cfg->network.multicast_ttl);
    self->out = self->udp;
    self->local_udp = -1;
    self->packets = malloc (VIS_STEP_BYTES);
    self->step.bytes = malloc (VIS_HELD_BYTES);
    self->sendq.bytes = malloc (VIS_SENDQ_BYTES);
    self->loop = sim_loop_new ();
    if (self->udp < 0 || !self->packets || !self->step.bytes || !self->sendq.bytes || !self->loop) {
        sim_error ("cannot create the vision sockets");
        s_destroy (&self);
        return NULL;
    }
    self->link = sim_link_new (cfg, SIM_LINK_VISION);
    /* at most VIS_TURN_MAX messages a turn, so $TERM is seen even while
       physics keeps us busy */
    if (!self->link || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_STEP_DONE)
        || sim_link_borrow (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT) /* s_on_bus keeps nothing */
        || sim_loop_add_sock (self->loop, "pipe", pipe, s_on_pipe, self)
        || sim_link_attach (self->link, self->loop, VIS_TURN_MAX, s_on_bus, self)
        || (cfg->run.record[0] && vis_record_open (self))) {
        s_destroy (&self);
        return NULL;
    }
    return self;
}

void
vis_service_actor (zsock_t *pipe, void *args)
{
    sim_service_args_t *sargs = args;
    sim_service_log_setup ("vision", &sargs->cfg);
    vis_service_t *self = s_new (pipe, &sargs->cfg);
    if (self)
        self->replaying = sargs->replay != NULL; /* sargs is gone once ready */
    if (!sim_service_ready (pipe, sargs, self != NULL))
        return;
    while (!self->terminated) {
        int64_t now = zclock_usecs ();
        int64_t wake = sim_link_next_us (self->link, now);
        if (self->step.count > 0 && self->flush_due_us < wake)
            wake = self->flush_due_us;
        if (self->paused && self->have_config && self->next_geometry_us < wake)
            wake = self->next_geometry_us;
        if (self->log && self->log_flush_us < wake)
            wake = self->log_flush_us;
        if (self->next_stats_us < wake)
            wake = self->next_stats_us;
        if (sim_loop_wait (self->loop, sim_service_timeout_ms (now, wake)) < 0)
            break;
        sim_loop_dispatch (self->loop);
        if (self->step.count > 0 && zclock_usecs () >= self->flush_due_us)
            vis_sync_flush (self);
        if (self->paused && self->have_config && zclock_usecs () >= self->next_geometry_us)
            s_send_paused_geometry (self);
        /* the turn's packets, before anything slower (the log, Stats):
           their latency was taken as they were built */
        vis_send_flush (self);
        if (self->log && zclock_usecs () >= self->log_flush_us) {
            sim_logfile_flush (self->log);
            self->log_flush_us = zclock_usecs () + VIS_LOG_FLUSH_US;
        }
        if (zclock_usecs () >= self->next_stats_us) {
            vis_report_publish (self);
            self->next_stats_us = zclock_usecs () + VIS_STATS_US;
        }
    }
    vis_sync_flush (self);
    vis_send_flush (self);
    s_destroy (&self);
}
