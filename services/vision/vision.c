/*  vision.c - the vision service actor. */
#include "vision.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/logs/sim_logfile.h"
#include "common/bus/sim_service.h"
#include "common/logs/sim_stats.h"
#include "common/base/sim_snapshot.h"
#include "common/bus/sim_udp.h"
#include "engine/world/vis_codec.h"
#include "engine/world/vis_def.h"
#include "engine/vision/vis_model.h"

#define VIS_MAX_RELEASED 32           /* frames released at one instant */
#define VIS_PACKET_MAX   16384        /* one encoded capture, geometry included */
#define VIS_TURN_MAX     256          /* world messages handled per loop turn */
#define VIS_STEP_FRAMES  256          /* packets of one sync step kept for the gateway (the newest) */
#define VIS_STEP_BYTES   (192 * 1024) /* ... and at most this many bytes (< SIM_LINK_MESSAGE_MAX) */
#define VIS_FLUSH_US     10000        /* a sync step's UDP packets go out at most this late */
#define VIS_PAUSED_US    1000000      /* while paused, geometry this often */
#define VIS_LOG_FLUSH_US 1000000      /* --record: the log file is pushed to disk this often */
#define VIS_STATS_US     1000000      /* Stats to the bus this often */
#define VIS_SENDQ_MAX    64           /* UDP packets handed to the kernel in one sendmmsg */
#define VIS_SENDQ_BYTES  (512 * 1024) /* ... holding at most this many bytes */

/* The UDP packets of one loop turn, sent together with sendmmsg(2) at its
   end (or when full): in fast mode one lane datagram brings vision dozens
   of snapshots, and a sendto per packet was most of the system calls of
   the whole simulator. The packets keep their order and bytes; only the
   number of kernel entries changes. */
typedef struct {
    size_t count, used;
    struct mmsghdr msg[VIS_SENDQ_MAX];
    struct iovec iov[VIS_SENDQ_MAX];
    struct sockaddr_in to[VIS_SENDQ_MAX];
    bool counted[VIS_SENDQ_MAX]; /* a vision packet (sent/send_failures), not truth */
    uint8_t *bytes;              /* VIS_SENDQ_BYTES */
} vis_sendq_t;

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
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    vis_step_t step;
    int flush_timer;            /* the kept packets' UDP sends are due */
    int udp;                    /* multicast by [network] multicast_interface, or unicast */
    int local_udp;              /* --localhost multicast through the loopback interface; -1 = none yet */
    struct in_addr local_group; /* the group local_udp joined on the loopback interface */
    int out;                    /* the socket in use: udp or local_udp */
    struct sockaddr_in dest, truth_dest;
    char truth_uuid[64];
    int64_t epoch_us;      /* the Unix base physics sends with the snapshots */
    bool paused;           /* speed 0 outside sync: geometry once a second */
    int geometry_timer;    /* while paused */
    bool advanced;         /* the model has seen a snapshot */
    uint64_t last_time_ns; /* of the last snapshot fed to the model */
    uint8_t *packets;      /* VIS_MAX_RELEASED * VIS_PACKET_MAX */
    uint64_t sent, send_failures;
    vis_sendq_t sendq; /* this turn's UDP packets, for self->out */

    /* --record FILE (docs/logs.md): every packet as it is released, here
       where it is made, so nothing between release and file can lose one
       (fast mode included); the referee multicast is recorded beside it.
       Times are sim time from a wall-clock origin taken at the first
       record, so a log plays at the simulation's pace. */
    sim_logfile_writer_t *log;
    int referee; /* the referee multicast, -1 when not recording */
    bool log_origin_set;
    int64_t log_origin_ns;
    bool replaying; /* `ssl-sim replay`: end with the replay */
    uint8_t *referee_buf;
    /* Stats (sim_stats.h): detection packets made per camera id since start */
    uint64_t camera_packets[SIM_MAX_CAMERAS], camera_last[SIM_MAX_CAMERAS];
    bool camera_seen[SIM_MAX_CAMERAS];
    int64_t started_us, last_stats_us;
    sim_latency_t latency; /* command->vision, for Stats only: never on the wire */
} vis_service_t;

/* Send every queued packet, in order, on self->out. A packet the kernel
   refuses (a full buffer) is dropped and counted, as a lone sendto's
   would be, and the ones after it still go. */
static void
s_sendq_flush (vis_service_t *self)
{
    vis_sendq_t *q = &self->sendq;
    size_t done = 0;
    while (done < q->count) {
        int n = sendmmsg (self->out, q->msg + done, (unsigned) (q->count - done), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            char a[64];
            sim_debug ("send to %s failed: %s", sim_udp_addr_str (&q->to[done], a, sizeof a),
                       strerror (errno));
            if (q->counted[done])
                self->send_failures++;
            done++;
            continue;
        }
        for (size_t i = done; i < done + (size_t) n; i++)
            if (q->counted[i])
                self->sent++;
        done += (size_t) n;
    }
    q->count = q->used = 0;
}

/* Queue one datagram to `to` (copied); a full queue is sent first. */
static void
s_sendq_add (vis_service_t *self, const uint8_t *buf, size_t len, const struct sockaddr_in *to, bool counted)
{
    vis_sendq_t *q = &self->sendq;
    if (len > VIS_SENDQ_BYTES)
        return; /* cannot happen: a packet is at most VIS_PACKET_MAX */
    if (q->count == VIS_SENDQ_MAX || q->used + len > VIS_SENDQ_BYTES)
        s_sendq_flush (self);
    size_t i = q->count++;
    memcpy (q->bytes + q->used, buf, len);
    q->iov[i] = (struct iovec) { q->bytes + q->used, len };
    q->to[i] = *to;
    q->counted[i] = counted;
    q->msg[i] = (struct mmsghdr) { .msg_hdr = { .msg_name = &q->to[i],
                                                .msg_namelen = sizeof q->to[i],
                                                .msg_iov = &q->iov[i],
                                                .msg_iovlen = 1 } };
    q->used += len;
}

/* The loopback multicast sender for `group`, made or re-joined on demand.
   Returns 0, or -1 (logged) when the loopback interface cannot carry it. */
static int
s_local_sender (vis_service_t *self, struct in_addr group)
{
    if (self->local_udp >= 0 && self->local_group.s_addr == group.s_addr)
        return 0;
    if (self->local_udp >= 0)
        close (self->local_udp);
    self->local_udp = sim_udp_local_sender (group);
    self->local_group = group;
    return self->local_udp >= 0 ? 0 : -1;
}

/* Destination from the effective config: vision_addr, the port shifted by
   the port offset; truth on the same host at truth_port. With --localhost
   a multicast group is kept but sent through the loopback interface (every
   local listener of the port gets a copy, nothing leaves the machine), or
   with local_vision = unicast (or a unicast vision_addr) 127.0.0.1. */
static void
s_update_destination (vis_service_t *self)
{
    struct sockaddr_in addr;
    if (sim_udp_parse_addr (self->cfg.run.vision_addr, &addr)) {
        sim_warn ("vision_addr '%s' is not HOST:PORT; keeping the previous destination",
                  self->cfg.run.vision_addr);
        return;
    }
    const char *how = "";
    int out = self->udp;
    if (self->cfg.run.localhost) {
        bool group = IN_MULTICAST (ntohl (addr.sin_addr.s_addr));
        if (group && self->own.network.local_vision == SIM_LOCAL_MULTICAST
            && s_local_sender (self, addr.sin_addr) == 0) {
            out = self->local_udp;
            how = " through the loopback interface (local mode: every local listener of the port and "
                  "every member of the group gets a copy)";
        } else {
            if (group && self->own.network.local_vision == SIM_LOCAL_MULTICAST)
                sim_warn ("multicast through the loopback interface is not possible here; "
                          "falling back to unicast to 127.0.0.1 (one local listener)");
            addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
            how = " (local mode: unicast, one local listener)";
        }
    }
    addr.sin_port = htons ((uint16_t) sim_config_port (&self->cfg, ntohs (addr.sin_port)));
    char a[64], b[64];
    if (memcmp (&addr, &self->dest, sizeof addr) != 0 || out != self->out) {
        self->truth_dest = addr;
        self->truth_dest.sin_port =
            htons ((uint16_t) sim_config_port (&self->cfg, self->cfg.network.truth_port));
        sim_info ("vision to %s%s%s", sim_udp_addr_str (&addr, a, sizeof a), how,
                  self->cfg.run.truth ? "" : " (no truth)");
        if (self->cfg.run.truth)
            sim_info ("truth to %s, uuid %s", sim_udp_addr_str (&self->truth_dest, b, sizeof b),
                      self->truth_uuid);
    }
    self->dest = addr;
    self->out = out;
}

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
    s_sendq_flush (self); /* on the socket and to the addresses they were made for */
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
    s_update_destination (self);
}

/* The log time of sim instant `time_ns`. */
static int64_t
s_log_time (vis_service_t *self, uint64_t time_ns)
{
    if (!self->log_origin_set) {
        self->log_origin_ns = sim_logfile_now_ns () - (int64_t) time_ns;
        self->log_origin_set = true;
    }
    return self->log_origin_ns + (int64_t) time_ns;
}

static void
s_log (vis_service_t *self, uint64_t time_ns, int32_t type, const uint8_t *buf, size_t len)
{
    if (self->log)
        sim_logfile_write (self->log, s_log_time (self, time_ns), type, buf, len);
}

static void
s_on_referee (void *arg)
{
    vis_service_t *self = arg;
    struct sockaddr_in from;
    ssize_t n;
    while ((n = sim_udp_recv (self->referee, self->referee_buf, SIM_UDP_MAX, &from)) >= 0)
        s_log (self, self->last_time_ns, SIM_LOGFILE_REFEREE, self->referee_buf, (size_t) n);
}

static void
s_send_packet (vis_service_t *self, const uint8_t *buf, size_t len)
{
    s_sendq_add (self, buf, len, &self->dest, true);
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
        /* kept for the gateway until its end */
        sim_loop_timer_set (self->loop, self->flush_timer, SIM_LOOP_NEVER);
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
        sim_latency_sent (&self->latency, frame->capture_ns);
        wrappers[count] = (ProtobufCBinaryData) { len, buf };
        s_log (self, snap.time_ns, SIM_LOGFILE_VISION, buf, len);
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
        size_t len = vis_codec_truth (self->model, &snap, self->truth_uuid, truth, sizeof truth);
        if (len) {
            s_sendq_add (self, truth, len, &self->truth_dest, false);
            s_log (self, snap.time_ns, SIM_LOGFILE_TRACKER, truth, len);
        }
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
    if (self->replaying && msg->step_id == SIM_BUS_REPLAY_END_STEP) {
        sim_loop_stop (self->loop); /* every snapshot of the replay came before this */
        return;
    }
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
    sim_loop_timer_set (self->loop, self->flush_timer, zclock_usecs () + VIS_FLUSH_US);
}

/* Paused: nothing is captured, but a program that waits for the geometry
   before it starts must get it; once a wall-clock second (s_on_geometry_due). */
static void
s_send_paused_geometry (vis_service_t *self)
{
    uint8_t *buf = self->packets;
    size_t len = vis_codec_geometry (self->model, buf, VIS_PACKET_MAX);
    if (len)
        s_send_packet (self, buf, len);
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
    sim_latency_report (&self->latency, &st);
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

/* ---- the loop's timers: what is due after the turn's input, in order --- */

/* A sync step's kept packets, VIS_FLUSH_US after its end. */
static int64_t
s_on_flush_due (void *arg, int64_t deadline, int64_t now)
{
    vis_service_t *self = arg;
    (void) deadline, (void) now;
    if (self->step.count > 0)
        s_step_flush (self);
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
    s_sendq_flush (arg);
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
    s_publish_stats (arg);
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
    if (self->referee >= 0)
        close (self->referee);
    if (self->log) {
        uint64_t written = sim_logfile_written (self->log);
        if (sim_logfile_writer_destroy (&self->log) == 0)
            sim_info ("recorded %llu messages to %s", (unsigned long long) written, self->own.run.record);
    }
    free (self->referee_buf);
    free (self->packets);
    free (self->step.bytes);
    free (self->sendq.bytes);
    free (self);
    *self_p = NULL;
}

/* --record: the log file (the launcher made it empty; for FILE.gz it
   hands over FILE.gz.part, written plain and compressed after the run,
   docs/logs.md; a restarted vision appends behind the last whole record)
   and the referee multicast. A referee that cannot be heard
   (the port taken by a game controller on this host is shared, so this
   is rare) is logged and not recorded. */
static int
s_record_open (vis_service_t *self)
{
    char err[SIM_STRING_MAX + 128];
    self->log = sim_logfile_writer_new (self->own.run.record, false, err, sizeof err);
    if (!self->log) {
        sim_error ("--record: %s", err);
        return -1;
    }
    struct sockaddr_in ref;
    self->referee_buf = malloc (SIM_UDP_MAX);
    if (!self->referee_buf)
        return -1;
    if (sim_udp_parse_addr (self->own.network.referee_addr, &ref) == 0
        && (self->referee = sim_udp_listen (&ref, self->own.network.multicast_interface)) >= 0)
        return sim_loop_add_fd (self->loop, "referee", self->referee, s_on_referee, self);
    sim_warn ("--record: cannot listen to the referee at %s; recording vision only",
              self->own.network.referee_addr);
    return 0;
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
    self->out = self->udp;
    self->local_udp = -1;
    self->packets = malloc ((size_t) VIS_MAX_RELEASED * VIS_PACKET_MAX);
    self->step.bytes = malloc (VIS_STEP_BYTES);
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
        || (cfg->run.record[0] && s_record_open (self)) || s_add_to_loop (self)) {
        s_destroy (&self);
        return NULL;
    }
    return self;
}

static void
s_stop (void *arg)
{
    vis_service_t *self = arg;
    s_step_flush (self);
    s_sendq_flush (self);
    s_destroy (&self);
}

void
vis_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_VISION, s_new, s_stop };
    sim_service_run (pipe, args, &def);
}
