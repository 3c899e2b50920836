/*  vision.c - the vision service actor. */
#include "vision.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sim_bus_codec.h"
#include "sim_link.h"
#include "sim_log.h"
#include "sim_service.h"
#include "sim_stats.h"
#include "sim_snapshot.h"
#include "sim_udp.h"
#include "vis_codec.h"
#include "vis_def.h"
#include "vision/model/vis_model.h"

#define VIS_MAX_RELEASED 32           /* frames released at one instant */
#define VIS_PACKET_MAX   16384        /* one encoded capture, geometry included */
#define VIS_TURN_MAX     256          /* world messages handled per loop turn */
#define VIS_STEP_FRAMES  256          /* packets of one sync step kept for the gateway (the newest) */
#define VIS_STEP_BYTES   (192 * 1024) /* ... and at most this many bytes (< SIM_LINK_MESSAGE_MAX) */
#define VIS_FLUSH_US     10000        /* a sync step's UDP packets go out at most this late */
#define VIS_STATS_US     1000000      /* Stats to the bus this often */

/* A sync step's packets, handed to the gateway in one message with the
   step's end, and sent by UDP after it (with the next step's first
   packets, or VIS_FLUSH_US later; a short poll timeout costs as much as
   the sends on a virtual machine): a loopback send costs ~10 us there,
   which the sync answer need not wait for.
   Only the newest are kept (an older one goes out by UDP when it leaves):
   the answer is one UDP datagram, which holds the newest ~90 frames, far
   below these bounds (and the bytes bound keeps the message within what
   every bus carrier takes). */
_Static_assert(VIS_STEP_BYTES + 4096 < SIM_LINK_MESSAGE_MAX, "a step's end must fit one bus message");

typedef struct {
    uint64_t step_id;
    size_t count, used;
    size_t off[VIS_STEP_FRAMES], len[VIS_STEP_FRAMES];
    uint8_t *bytes; /* VIS_STEP_BYTES */
} vis_step_t;

typedef struct {
    sim_config_t own; /* this process's parse: endpoints, ports */
    sim_config_t cfg; /* effective configuration from physics */
    bool have_config;
    uint64_t config_serial;
    vis_model_t *model;
    zsock_t *pipe;
    sim_link_t *link;
    sim_loop_t *loop;
    vis_step_t step;
    int64_t flush_due_us; /* the kept packets' UDP sends are due */
    int udp;
    struct sockaddr_in dest, truth_dest;
    bool terminated;
    bool advanced;         /* the model has seen a snapshot */
    uint64_t last_time_ns; /* of the last snapshot fed to the model */
    uint8_t *packets;      /* VIS_MAX_RELEASED * VIS_PACKET_MAX */
    uint64_t sent, send_failures;
    /* Stats (sim_stats.h): detection packets made per camera id since start */
    uint64_t camera_packets[SIM_MAX_CAMERAS], camera_last[SIM_MAX_CAMERAS];
    bool camera_seen[SIM_MAX_CAMERAS];
    int64_t started_us, next_stats_us, last_stats_us;
} vis_service_t;

/* Destination from the effective config: vision_addr (or 127.0.0.1 with
   --localhost), the port shifted by the port offset; truth on the same
   host at truth_port. */
static void
s_update_destination (vis_service_t *self)
{
    struct sockaddr_in addr;
    if (sim_udp_parse_addr (self->cfg.run.vision_addr, &addr)) {
        sim_warn ("vision_addr '%s' is not HOST:PORT; keeping the previous destination",
                  self->cfg.run.vision_addr);
        return;
    }
    if (self->cfg.run.localhost)
        addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    addr.sin_port = htons ((uint16_t) sim_config_port (&self->cfg, ntohs (addr.sin_port)));
    char a[64], b[64];
    if (memcmp (&addr, &self->dest, sizeof addr) != 0) {
        self->truth_dest = addr;
        self->truth_dest.sin_port =
            htons ((uint16_t) sim_config_port (&self->cfg, self->cfg.network.truth_port));
        sim_info ("vision to %s%s", sim_udp_addr_str (&addr, a, sizeof a),
                  self->cfg.run.truth ? "" : " (no truth)");
        if (self->cfg.run.truth)
            sim_info ("truth to %s", sim_udp_addr_str (&self->truth_dest, b, sizeof b));
    }
    self->dest = addr;
}

static void
s_on_config (vis_service_t *self, const Simbus__Config *msg)
{
    int rc = sim_bus_config_decode (msg, &self->own, &self->cfg, &self->config_serial);
    if (rc < 0 || (rc == 1 && self->have_config))
        return;
    vis_model_def_t def;
    vis_model_def_from_config (&def, &self->cfg);
    if (!self->model)
        self->model = vis_model_new (&def);
    else
        vis_model_set_def (self->model, &def);
    if (!self->model)
        sim_error ("the camera model rejected the configuration");
    self->have_config = self->model != NULL;
    s_update_destination (self);
}

static void
s_send_packet (vis_service_t *self, const uint8_t *buf, size_t len)
{
    if (sim_udp_send (self->udp, buf, len, &self->dest))
        self->send_failures++;
    else
        self->sent++;
}

/* Send the oldest kept packet by UDP and forget it. */
static void
s_step_drop_oldest (vis_service_t *self)
{
    vis_step_t *step = &self->step;
    s_send_packet (self, step->bytes, step->len[0]);
    size_t cut = step->len[0];
    memmove (step->bytes, step->bytes + cut, step->used - cut);
    step->used -= cut;
    step->count--;
    for (size_t i = 0; i < step->count; i++) {
        step->off[i] = step->off[i + 1] - cut;
        step->len[i] = step->len[i + 1];
    }
}

/* UDP-send every kept packet, oldest first, and forget them. */
static void
s_step_flush (vis_service_t *self)
{
    vis_step_t *step = &self->step;
    for (size_t i = 0; i < step->count; i++)
        s_send_packet (self, step->bytes + step->off[i], step->len[i]);
    step->count = step->used = 0;
}

/* Keep a packet of sync step `step_id` for the gateway. */
static void
s_step_keep (vis_service_t *self, uint64_t step_id, const ProtobufCBinaryData *w)
{
    vis_step_t *step = &self->step;
    if (step->step_id != step_id) {
        s_step_flush (self); /* the last step's, or one whose end never came */
        step->step_id = step_id;
        self->flush_due_us = INT64_MAX; /* kept for the gateway until its end */
    }
    if (w->len > VIS_STEP_BYTES) {
        s_send_packet (self, w->data, w->len);
        return;
    }
    while (step->count == VIS_STEP_FRAMES || step->used + w->len > VIS_STEP_BYTES)
        s_step_drop_oldest (self);
    memcpy (step->bytes + step->used, w->data, w->len);
    step->off[step->count] = step->used;
    step->len[step->count++] = w->len;
    step->used += w->len;
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
        vis_model_def_t def;
        vis_model_def_from_config (&def, &self->cfg);
        self->model = vis_model_new (&def);
        self->advanced = false;
        if (!self->model) {
            self->have_config = false;
            return;
        }
    }
    /* joining a running simulation (this process restarted, or physics
       resumed): the model's first advance continues frame numbers from the
       sim time and sends geometry with its first capture */
    self->advanced = true;
    self->last_time_ns = snap.time_ns;
    int released = vis_model_advance (self->model, &snap);
    if (released <= 0)
        return;
    if (released > VIS_MAX_RELEASED)
        released = VIS_MAX_RELEASED;
    ProtobufCBinaryData wrappers[VIS_MAX_RELEASED];
    size_t count = 0;
    for (int i = 0; i < released; i++) {
        uint8_t *buf = self->packets + (size_t) i * VIS_PACKET_MAX;
        const vis_frame_t *frame = vis_model_released (self->model, i);
        size_t len = vis_codec_wrapper (self->model, frame, buf, VIS_PACKET_MAX);
        if (len == 0)
            continue;
        if (frame->camera_id >= 0 && frame->camera_id < SIM_MAX_CAMERAS) {
            self->camera_packets[frame->camera_id]++;
            self->camera_seen[frame->camera_id] = true;
        }
        wrappers[count] = (ProtobufCBinaryData) { len, buf };
        if (msg->has_step_id)
            s_step_keep (self, msg->step_id, &wrappers[count]);
        else {
            s_step_flush (self); /* keep the UDP order */
            s_send_packet (self, buf, len);
        }
        count++;
    }
    if (self->cfg.run.truth) {
        uint8_t truth[VIS_PACKET_MAX];
        size_t len = vis_codec_truth (self->model, &snap, truth, sizeof truth);
        if (len)
            sim_udp_send (self->udp, truth, len, &self->truth_dest);
    }
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = snap.time_ns;
    frames.has_step_id = msg->has_step_id;
    frames.step_id = msg->step_id;
    frames.n_wrapper = count;
    frames.wrapper = wrappers;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES, &frames);
    sim_link_send (self->link, &env);
}

/* The end of a sync step: the gateway's whole answer in one message, the
   step's packets and physics' reply (sim_bus.proto FramesDone). */
static void
s_on_step_done (vis_service_t *self, const Simbus__StepDone *msg)
{
    vis_step_t *step = &self->step;
    ProtobufCBinaryData wrappers[VIS_STEP_FRAMES];
    size_t n = step->step_id == msg->step_id ? step->count : 0;
    for (size_t i = 0; i < n; i++)
        wrappers[i] = (ProtobufCBinaryData) { step->len[i], step->bytes + step->off[i] };
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = msg->step_id;
    done.time_ns = msg->time_ns;
    done.n_wrapper = n;
    done.wrapper = wrappers;
    done.reply = msg->reply;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done);
    if (sim_link_send (self->link, &env) <= 0)
        sim_debug ("the end of sync step %llu reached nobody", (unsigned long long) msg->step_id);
    /* the UDP sends wait: the gateway is about to answer on this core
       (physics waits for the next step on the other one) and would wait
       for them; they go out with the next step's first packet */
    self->flush_due_us = zclock_usecs () + VIS_FLUSH_US;
}

/* Stats once a second: the packets of every camera that has sent one. */
static void
s_publish_stats (vis_service_t *self)
{
    int64_t now = zclock_usecs ();
    Simbus__Stats st;
    sim_stats_begin (&st, "vision", self->started_us);
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
    self->last_stats_us = now;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
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
    free (self->packets);
    free (self->step.bytes);
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
    self->started_us = self->last_stats_us = zclock_usecs ();
    self->next_stats_us = self->started_us + VIS_STATS_US;
    self->udp = sim_udp_sender (cfg->network.multicast_interface, cfg->network.multicast_ttl);
    self->packets = malloc ((size_t) VIS_MAX_RELEASED * VIS_PACKET_MAX);
    self->step.bytes = malloc (VIS_STEP_BYTES);
    self->loop = sim_loop_new ();
    if (self->udp < 0 || !self->packets || !self->step.bytes || !self->loop) {
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
        || sim_loop_add_sock (self->loop, "pipe", pipe, s_on_pipe, self)
        || sim_link_attach (self->link, self->loop, VIS_TURN_MAX, s_on_bus, self)) {
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
    if (!sim_service_ready (pipe, sargs, self != NULL))
        return;
    while (!self->terminated) {
        int64_t now = zclock_usecs ();
        int64_t wake = sim_link_next_us (self->link, now);
        if (self->step.count > 0 && self->flush_due_us < wake)
            wake = self->flush_due_us;
        if (self->next_stats_us < wake)
            wake = self->next_stats_us;
        if (sim_loop_wait (self->loop, sim_service_timeout_ms (now, wake)) < 0)
            break;
        sim_loop_dispatch (self->loop);
        if (self->step.count > 0 && zclock_usecs () >= self->flush_due_us)
            s_step_flush (self);
        if (zclock_usecs () >= self->next_stats_us) {
            s_publish_stats (self);
            self->next_stats_us = zclock_usecs () + VIS_STATS_US;
        }
    }
    s_step_flush (self);
    s_destroy (&self);
}
