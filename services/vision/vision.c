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
        sim_loop_timer_set (self->loop, self->geometry_timer, 0); /* at once */
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

/* Start the model again from the keyed state at the next snapshot's
   time, which repeats exactly what a vision that had only ever seen that
   timeline would send. 0, or -1 (no model: nothing is sent). */
static int
s_restart_model (vis_service_t *self)
{
    vis_model_destroy (&self->model);
    vis_model_def_t def;
    s_model_def (self, &def);
    self->model = vis_model_new (&def);
    self->advanced = false;
    if (!self->model) {
        self->have_config = false;
        return -1;
    }
    return 0;
}

static void
s_on_snapshot (vis_service_t *self, const Simbus__Snapshot *msg)
{
    sim_snapshot_t snap;
    if (!self->have_config || sim_bus_snapshot_decode (msg, &snap))
        return;
    if (self->advanced && snap.time_ns < self->last_time_ns) {
        /* physics went back to its checkpoint (it was killed) */
        sim_info ("simulation time went back from %.3fs to %.3fs (physics resumed); resuming",
                  (double) self->last_time_ns / 1e9, (double) snap.time_ns / 1e9);
        self->epoch_us = snap.epoch_us;
        if (s_restart_model (self))
            return;
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
    ProtobufCBinaryData wrappers[VIS_STEP_MAX_PACKETS];
    for (int i = 0; i < out.count; i++) {
        wrappers[i] = (ProtobufCBinaryData) { out.packet[i].len, self->packets + out.packet[i].off };
        if (out.packet[i].frame) /* not a geometry-only wrapper */
            vis_report_packet (self, out.packet[i].frame);
        vis_record_write (self, snap.time_ns, SIM_LOGFILE_VISION, wrappers[i].data, wrappers[i].len);
        if (msg->has_step_id)
            vis_sync_keep (self, msg->step_id, &wrappers[i]);
        else {
            vis_sync_flush (self); /* keep the UDP order */
            vis_send_packet (self, wrappers[i].data, wrappers[i].len);
        }
    }
    if (self->cfg.run.truth && vis_model_truth_due (self->model)) {
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
   before it starts must get it; once a wall-clock second (s_on_geometry_due). */
static void
s_send_paused_geometry (vis_service_t *self)
{
    uint8_t *buf = self->packets;
    size_t len = vis_codec_geometry (self->model, buf, VIS_STEP_PACKET_MAX);
    if (len) {
        vis_send_packet (self, buf, len);
        vis_record_write_now (self, SIM_LOGFILE_VISION, buf, len);
    }
}

/* The end of a sync step; in `ssl-sim replay`, the end of the replay or
   a jump of its page's timeline. */
static void
s_on_step_done (vis_service_t *self, const Simbus__StepDone *msg)
{
    if (self->replaying && msg->step_id == SIM_BUS_REPLAY_END_STEP) {
        sim_loop_stop (self->loop); /* every snapshot of the replay came before this */
        return;
    }
    if (self->replaying && msg->step_id == SIM_BUS_REPLAY_SEEK_STEP) {
        /* the page moved the replay (forward or back): the frames of the
           new time are those of a vision that joined there */
        vis_send_flush (self);
        if (self->have_config)
            s_restart_model (self);
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

/* ---- the loop's timers: what is due after the turn's input, in order --- */

/* A sync step's kept packets, VIS_FLUSH_US after its end. */
static int64_t
s_on_flush_due (void *arg, int64_t deadline, int64_t now)
{
    vis_service_t *self = arg;
    (void) deadline, (void) now;
    if (self->step.count > 0)
        vis_sync_flush (self);
    return SIM_LOOP_NEVER;
}

/* Paused: the geometry once a wall-clock second (deadline based, so a
   busy turn does not shift the rhythm). */
static int64_t
s_on_geometry_due (void *arg, int64_t deadline, int64_t now)
{
    vis_service_t *self = arg;
    if (!self->paused)
        return SIM_LOOP_NEVER;
    if (self->have_config)
        s_send_paused_geometry (self);
    return sim_loop_period (deadline, VIS_PAUSED_US, now);
}

/* The turn's packets, before anything slower (the log, Stats): their
   latency was taken as they were built. */
static void
s_on_turn (void *arg)
{
    vis_send_flush (arg);
}

static int64_t
s_on_log_flush_due (void *arg, int64_t deadline, int64_t now)
{
    vis_service_t *self = arg;
    if (!self->log)
        return SIM_LOOP_NEVER;
    sim_logfile_flush (self->log);
    return sim_loop_period (deadline, VIS_LOG_FLUSH_US, now);
}

static int64_t
s_on_stats_due (void *arg, int64_t deadline, int64_t now)
{
    vis_report_publish (arg);
    return sim_loop_period (deadline, VIS_STATS_US, now);
}

static int
s_add_to_loop (vis_service_t *self)
{
    sim_loop_t *loop = self->loop;
    int64_t log_flush = self->log ? zclock_usecs () + VIS_LOG_FLUSH_US : SIM_LOOP_NEVER;
    self->flush_timer = sim_loop_add_timer (loop, "step flush", SIM_LOOP_NEVER, s_on_flush_due, self);
    self->geometry_timer = sim_loop_add_timer (loop, "geometry", SIM_LOOP_NEVER, s_on_geometry_due, self);
    if (self->flush_timer < 0 || self->geometry_timer < 0 || sim_loop_add_tick (loop, "send", s_on_turn, self)
        || sim_loop_add_timer (loop, "log flush", log_flush, s_on_log_flush_due, self) < 0
        || sim_loop_add_timer (loop, "stats", self->started_us + VIS_STATS_US, s_on_stats_due, self) < 0)
        return -1;
    return 0;
}

static void
s_destroy (vis_service_t **self_p)
{
    vis_service_t *self = *self_p;
    if (!self)
        return;
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

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    vis_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->replaying = args->replay != NULL; /* `ssl-sim replay`: end with it */
    self->own = self->cfg = *cfg;
    self->referee = -1;
    self->started_us = self->last_stats_us = zclock_usecs ();
    self->udp = sim_udp_sender (cfg->network.multicast_interface, cfg->network.multicast_ttl);
    /* --localhost: the port vision sends from is open on 127.0.0.1 only */
    if (self->udp >= 0 && cfg->run.localhost && sim_udp_keep_local (self->udp)) {
        close (self->udp);
        self->udp = -1;
    }
    self->out = self->udp;
    self->local_udp = -1;
    self->packets = malloc (VIS_STEP_BYTES);
    self->step.bytes = malloc (VIS_HELD_BYTES);
    self->sendq.bytes = malloc (VIS_SENDQ_BYTES);
    if (self->udp < 0 || !self->packets || !self->step.bytes || !self->sendq.bytes) {
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
        || sim_link_attach (self->link, self->loop, VIS_TURN_MAX, s_on_bus, self)
        || (cfg->run.record[0] && vis_record_open (self)) || s_add_to_loop (self)) {
        s_destroy (&self);
        return NULL;
    }
    return self;
}

static void
s_stop (void *arg)
{
    vis_service_t *self = arg;
    vis_sync_flush (self);
    vis_send_flush (self);
    s_destroy (&self);
}

/* sim_service_def_t's status: a --record that lost records fails the run. */
static int
s_status (void *arg)
{
    return vis_record_status (arg);
}

void
vis_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_VISION, s_new, s_stop };
    sim_service_run_status (pipe, args, &def, s_status);
}
