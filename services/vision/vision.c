/*  vision.c - the vision service actor. */
#include "vision.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sim_bus.h"
#include "sim_lane.h"
#include "sim_log.h"
#include "sim_service.h"
#include "sim_snapshot.h"
#include "sim_udp.h"
#include "vis_codec.h"
#include "vis_def.h"
#include "vision/model/vis_model.h"

#define VIS_MAX_RELEASED 32         /* frames released at one instant */
#define VIS_PACKET_MAX   16384      /* one encoded capture, geometry included */
#define VIS_WORLD_HWM    1000       /* world messages queued before physics waits */
#define VIS_TURN_MAX     256        /* world messages handled per loop turn */
#define VIS_LANE_WAIT_MS 200        /* longest wait for room in the gateway's lane */
#define VIS_STEP_FRAMES  256        /* packets of one sync step kept for the gateway (the newest) */
#define VIS_STEP_BYTES   (192 * 1024) /* ... and at most this many bytes: a lane datagram */
#define VIS_FLUSH_US     10000      /* a sync step's UDP packets go out at most this late */

/* A sync step's packets, handed to the gateway in one lane message with
   the step's end, and sent by UDP after it (with the next step's first
   packets, or VIS_FLUSH_US later; a short poll timeout costs as much as
   the sends on a virtual machine): a loopback send costs ~10 us there,
   which the sync answer need not wait for.
   Only the newest are kept (an older one goes out by UDP when it leaves):
   the answer is one UDP datagram, which holds the newest ~90 frames, far
   below these bounds. */
typedef struct {
    uint64_t step_id;
    size_t count, used;
    size_t off[VIS_STEP_FRAMES], len[VIS_STEP_FRAMES];
    uint8_t *bytes;                 /* VIS_STEP_BYTES */
} vis_step_t;

typedef struct {
    sim_config_t own;               /* this process's parse: endpoints, ports */
    sim_config_t cfg;               /* effective configuration from physics */
    bool have_config;
    uint64_t config_serial;
    vis_model_t *model;
    zsock_t *pipe, *world, *frames;
    sim_lane_t *lane;               /* NULL: the world comes over ZeroMQ */
    vis_step_t step;                /* with a lane */
    int64_t flush_due_us;           /* the kept packets' UDP sends are due */
    sim_bus_subs_t subs;            /* who subscribes on `frames` */
    int64_t next_hello_us;
    int udp;
    struct sockaddr_in dest, truth_dest;
    bool terminated;
    bool bus_warned;
    bool advanced;                  /* the model has seen a snapshot */
    uint64_t last_time_ns;          /* of the last snapshot fed to the model */
    uint8_t *packets;               /* VIS_MAX_RELEASED * VIS_PACKET_MAX */
    uint64_t sent, send_failures;
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
    if (self->have_config && msg->serial == self->config_serial
        && msg->rig_generation == self->cfg.rig_generation)
        return;
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    if (sim_config_load_string (&cfg, msg->ini, "effective configuration", err, sizeof err)) {
        sim_warn ("effective configuration rejected: %s", err);
        return;
    }
    cfg.rig_generation = msg->rig_generation;
    /* endpoints and the log level stay this process's own */
    cfg.bus = self->own.bus;
    memcpy (cfg.run.log_level, self->own.run.log_level, sizeof cfg.run.log_level);
    self->cfg = cfg;
    self->config_serial = msg->serial;
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
s_snapshot_from_bus (const Simbus__Snapshot *msg, sim_snapshot_t *snap)
{
    snap->time_ns = msg->time_ns;
    const Simbus__BallState *b = msg->ball;
    snap->ball = (sim_ball_state_t) { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->spin_x, b->spin_y };
    size_t n = msg->n_robots < SIM_SNAPSHOT_MAX_ROBOTS ? msg->n_robots : SIM_SNAPSHOT_MAX_ROBOTS;
    snap->robot_count = (int) n;
    for (size_t i = 0; i < n; i++) {
        const Simbus__RobotState *r = msg->robots[i];
        snap->robots[i] = (sim_robot_state_t) {
            .team = r->team == 1 ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE, .id = (int) r->id,
            .x = r->x, .y = r->y, .orientation = r->orientation,
            .vx = r->vx, .vy = r->vy, .omega = r->omega,
            .ball_contact = r->ball_contact, .radius = r->radius, .height = r->height,
        };
    }
}

static void
s_send_packet (vis_service_t *self, const uint8_t *buf, size_t len)
{
    if (sim_udp_send (self->udp, buf, len, &self->dest))
        self->send_failures++;
    else
        self->sent++;
}

/* On `frames` (an XPUB), packed only when a subscriber wants the topic:
   with lanes the gateway takes its frames from its lane, and
   legacy-grsim subscribes only once a grSim client appeared. */
static void
s_publish_frames (vis_service_t *self, const char *topic, Simbus__Envelope *env)
{
    sim_bus_subs_read (&self->subs, self->frames);
    if (sim_bus_subs_want (&self->subs, topic))
        sim_bus_send (self->frames, topic, env);
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

/* Keep a packet of sync step `step_id` for the gateway (lanes only). */
static void
s_step_keep (vis_service_t *self, uint64_t step_id, const ProtobufCBinaryData *w)
{
    vis_step_t *step = &self->step;
    if (step->step_id != step_id) {
        s_step_flush (self);        /* the last step's, or one whose end never came */
        step->step_id = step_id;
        self->flush_due_us = INT64_MAX;     /* kept for the gateway until its end */
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
    if (!self->have_config || !msg->ball)
        return;
    sim_snapshot_t snap;
    s_snapshot_from_bus (msg, &snap);
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
        size_t len = vis_codec_wrapper (self->model, vis_model_released (self->model, i), buf, VIS_PACKET_MAX);
        if (len == 0)
            continue;
        wrappers[count] = (ProtobufCBinaryData) { len, buf };
        if (self->lane && msg->has_step_id)
            s_step_keep (self, msg->step_id, &wrappers[count]);
        else {
            s_step_flush (self);    /* keep the UDP order */
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
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_FRAMES;
    env.frames = &frames;
    s_publish_frames (self, msg->has_step_id ? SIM_TOPIC_STEP_FRAMES : SIM_TOPIC_FRAMES, &env);
}

static void
s_on_step_done (vis_service_t *self, const Simbus__StepDone *msg)
{
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = msg->step_id;
    done.time_ns = msg->time_ns;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_FRAMES_DONE;
    env.frames_done = &done;
    s_publish_frames (self, SIM_TOPIC_FRAMES_DONE, &env);
    if (!self->lane)
        return;
    /* the gateway's whole answer in one message: the step's packets and
       physics' reply (sim_bus.proto FramesDone) */
    vis_step_t *step = &self->step;
    ProtobufCBinaryData wrappers[VIS_STEP_FRAMES];
    if (step->step_id == msg->step_id)
        for (size_t i = 0; i < step->count; i++)
            wrappers[i] = (ProtobufCBinaryData) { step->len[i], step->bytes + step->off[i] };
    done.n_wrapper = step->step_id == msg->step_id ? step->count : 0;
    done.wrapper = wrappers;
    done.reply = msg->reply;
    if (sim_lane_send (self->lane, SIM_LANE_GATEWAY, SIM_TOPIC_FRAMES_DONE, &env, VIS_LANE_WAIT_MS))
        sim_debug ("the end of sync step %llu did not reach the gateway: %s",
                   (unsigned long long) msg->step_id, strerror (errno));
    /* the UDP sends wait: the gateway is about to answer on this core
       (physics waits for the next step on the other one) and would wait
       for them; they go out with the next step's first packet */
    self->flush_due_us = zclock_usecs () + VIS_FLUSH_US;
}

static void
s_on_world (vis_service_t *self, Simbus__Envelope *env)
{
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_CONFIG: s_on_config (self, env->config); break;
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT: s_on_snapshot (self, env->snapshot); break;
    case SIMBUS__ENVELOPE__BODY_STEP_DONE: s_on_step_done (self, env->step_done); break;
    default: break;
    }
}

/* At most VIS_TURN_MAX messages, so $TERM is seen even while physics
   keeps us busy. */
static void
s_handle_world (vis_service_t *self)
{
    for (int i = 0; i < VIS_TURN_MAX; i++) {
        Simbus__Envelope *env = NULL;
        if (self->lane) {
            char topic[4];
            if (!sim_lane_recv (self->lane, &env, topic, sizeof topic, NULL, &self->bus_warned))
                return;
        } else {
            if (!(zsock_events (self->world) & ZMQ_POLLIN))
                return;
            char topic;
            env = sim_bus_recv_sub (self->world, &topic, &self->bus_warned);
        }
        if (env) {
            s_on_world (self, env);
            simbus__envelope__free_unpacked (env, NULL);
        }
    }
}


static void
s_destroy (vis_service_t **self_p)
{
    vis_service_t *self = *self_p;
    if (!self)
        return;
    sim_lane_destroy (&self->lane);
    zsock_destroy (&self->world);
    zsock_destroy (&self->frames);
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
    self->udp = sim_udp_sender (cfg->network.multicast_interface, cfg->network.multicast_ttl);
    self->packets = malloc ((size_t) VIS_MAX_RELEASED * VIS_PACKET_MAX);
    self->frames = zsock_new (ZMQ_XPUB);
    if (self->udp < 0 || !self->packets || !self->frames) {
        sim_error ("cannot create the vision sockets");
        s_destroy (&self);
        return NULL;
    }
    zsock_set_sndhwm (self->frames, 100000);
    if (zsock_bind (self->frames, "%s", cfg->bus.frames_bind) < 0) {
        sim_error ("cannot bind %s: %s", cfg->bus.frames_bind, zmq_strerror (zmq_errno ()));
        s_destroy (&self);
        return NULL;
    }
    if (sim_lane_enabled (cfg)) {
        /* the whole world stream comes over the lane; no subscription */
        self->step.bytes = malloc (VIS_STEP_BYTES);
        if (!self->step.bytes || !(self->lane = sim_lane_new (cfg, SIM_LANE_VISION))) {
            s_destroy (&self);
            return NULL;
        }
        return self;
    }
    self->world = zsock_new (ZMQ_SUB);
    if (!self->world) {
        s_destroy (&self);
        return NULL;
    }
    /* small: physics waits for us when we fall behind (fast mode), rather
       than queueing snapshots here without bound */
    zsock_set_rcvhwm (self->world, VIS_WORLD_HWM);
    zsock_set_subscribe (self->world, SIM_TOPIC_CONFIG);
    zsock_set_subscribe (self->world, SIM_TOPIC_SNAPSHOT);
    zsock_set_subscribe (self->world, SIM_TOPIC_STEP_DONE);
    if (zsock_connect (self->world, "%s", cfg->bus.world_connect) < 0) {
        sim_error ("cannot connect %s", cfg->bus.world_connect);
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
    zmq_pollitem_t items[2] = {
        { zsock_resolve (pipe), 0, ZMQ_POLLIN, 0 },
        { self->lane ? NULL : zsock_resolve (self->world), self->lane ? sim_lane_fd (self->lane) : 0,
          ZMQ_POLLIN, 0 },
    };
    while (!self->terminated) {
        int64_t now = zclock_usecs ();
        /* a (re)started vision asks for the configuration, to start at once */
        int64_t wake = self->lane && !self->have_config ? sim_lane_hello (self->lane, now, &self->next_hello_us)
                                                        : INT64_MAX;
        if (self->step.count > 0 && self->flush_due_us < wake)
            wake = self->flush_due_us;
        int timeout = sim_service_timeout_ms (now, wake);
        if (self->lane && sim_lane_buffered (self->lane))
            timeout = 0;        /* the turn's bound left records behind */
        if (zmq_poll (items, 2, timeout) < 0 && zmq_errno () != EINTR)
            break;
        if ((items[0].revents & ZMQ_POLLIN) && sim_service_term_requested (self->pipe))
            self->terminated = true;
        if ((items[1].revents & ZMQ_POLLIN) || (self->lane && sim_lane_buffered (self->lane)))
            s_handle_world (self);
        if (self->step.count > 0 && zclock_usecs () >= self->flush_due_us)
            s_step_flush (self);
    }
    s_step_flush (self);
    s_destroy (&self);
}
