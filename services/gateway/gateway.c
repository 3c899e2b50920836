/*  gateway.c - the gateway service actor (protocol.md §1-§7).

    Every datagram on the control, blue and yellow ports becomes one bus
    request to physics, remembered in a bounded pending table with the
    datagram's source address, and the reply goes back to that address from
    the same socket. A sync request also waits for vision's FramesDone of
    its step id and answers with exactly the frames tagged with that id, or
    without frames after [bus] sync_timeout. Choices where the spec is open:
    docs/protocol.md.
*/
#include "gateway.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "gw_detect.h"
#include "sim_bus.h"
#include "sim_errors.h"
#include "sim_lane.h"
#include "sim_log.h"
#include "sim_rng.h"
#include "sim_service.h"
#include "sim_udp.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define GW_PENDING_MAX   1024
#define GW_PLAIN_TTL_US  2000000     /* a plain request unanswered this long is forgotten */
#define GW_SUBSTEP_TTL_US 20         /* extra wait for physics per requested substep */
#define GW_SYNC_FRAMES   256         /* frames kept per sync step (the newest) */
#define GW_MAX_STEP_S    60.0        /* longest sync step accepted (docs/protocol.md) */
#define GW_DATAGRAM_MAX  65507       /* largest IPv4 UDP payload */
#define GW_BURST         64          /* datagrams read per port per loop turn */
/* field numbers of ssl_vision_wrapper.proto and ssl_simulation_synchronous.proto */
#define GW_WRAPPER_DETECTION       1
#define GW_SYNC_RESPONSE_DETECTION 1
#define GW_SYNC_RESPONSE_RCR       2
#define GW_RECHECK_US    10000       /* lanes: look again whether physics read its requests */

typedef enum { GW_REQ_COMMAND, GW_REQ_ROBOTS, GW_REQ_SYNC } gw_req_kind_t;

typedef struct {
    bool used;
    uint64_t id;
    gw_req_kind_t kind;
    gw_port_kind_t port;
    struct sockaddr_in from;
    int64_t deadline_us;
    int64_t give_up_us;               /* lanes: waiting for physics to read ends here */
    /* sync only */
    bool have_reply, frames_done;
    bool team_robot_control;          /* robot_control on a team port: a response always exists */
    Simbus__Envelope *reply_env;      /* owned: physics' Reply or vision's FramesDone carrying it */
    const Simbus__Reply *reply;       /* inside reply_env */
    sim_errors_t *early;              /* errors found here (INVALID_STEP ...), owned */
    size_t frame_count;
    zchunk_t *frames[GW_SYNC_FRAMES]; /* SSL_WrapperPacket bytes, owned */
} gw_pending_t;

/* A request physics' lane had no room for yet, packed. */
typedef struct {
    uint8_t *data;
    size_t len;
} gw_queued_t;

typedef struct {
    sim_config_t own, cfg;
    zsock_t *pipe, *cmd, *world, *frames;
    sim_lane_t *lane;                 /* NULL: everything over ZeroMQ */
    gw_queued_t backlog[GW_PENDING_MAX]; /* FIFO ring: requests wait here, in order, never lost */
    int backlog_head, backlog_len;
    int fds[3];
    uint8_t *buf;
    gw_pending_t *pending;            /* GW_PENDING_MAX slots */
    uint64_t next_id;
    uint64_t sim_time_ns;             /* last time physics told us */
    uint64_t loss_time_ns;
    uint32_t loss_index[3];
    bool terminated, bus_warned, warned_no_vision, warned_full;
    uint64_t unreadable, lost_commands, lost_responses, table_full, frames_dropped;
    sim_errors_t answer_errors;       /* a sync answer's errors, reused per answer */
    uint64_t config_serial;           /* of the configuration from physics; 0: none yet (lanes:
                                         hello each second until it comes) */
    int64_t next_hello_us;
} gw_service_t;

static const char *const s_port_names[] = { "control", "blue", "yellow" };

/* A free slot for a new request. The request id is chosen so that
   id % GW_PENDING_MAX is the slot's index, which is how s_find looks it up. */
static gw_pending_t *
s_slot (gw_service_t *self)
{
    for (int i = 0; i < GW_PENDING_MAX; i++) {
        uint64_t id = self->next_id + (uint64_t) i;
        gw_pending_t *p = &self->pending[id % GW_PENDING_MAX];
        if (!p->used) {
            memset (p, 0, sizeof *p);
            p->used = true;
            p->id = id;
            self->next_id = id + 1;
            return p;
        }
    }
    self->table_full++;
    if (!self->warned_full)
        sim_warn ("%d requests wait for physics; new ones are dropped until it answers", GW_PENDING_MAX);
    self->warned_full = true;
    return NULL;
}

static void
s_release (gw_pending_t *p)
{
    if (p->reply_env)
        simbus__envelope__free_unpacked (p->reply_env, NULL);
    free (p->early);
    for (size_t i = 0; i < p->frame_count; i++)
        zchunk_destroy (&p->frames[i]);
    memset (p, 0, sizeof *p);
}

static gw_pending_t *
s_find (gw_service_t *self, uint64_t id)
{
    gw_pending_t *p = &self->pending[id % GW_PENDING_MAX];
    return p->used && p->id == id ? p : NULL;
}

/* Keyed packet-loss draw (ARCHITECTURE.md §4): (seed, port, sim time,
   index of the datagram within that substep). */
static bool
s_lost (gw_service_t *self, gw_port_kind_t port, double p)
{
    if (!(p > 0))
        return false;
    if (self->loss_time_ns != self->sim_time_ns) {
        self->loss_time_ns = self->sim_time_ns;
        memset (self->loss_index, 0, sizeof self->loss_index);
    }
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, self->cfg.sim.seed, SIM_STREAM_PACKET_LOSS,
                        ((uint64_t) port << 32) | self->loss_index[port]++, self->sim_time_ns);
    return sim_rng_chance (&rng, p);
}

static void
s_send_packed (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to,
               const ProtobufCMessage *msg)
{
    size_t len = protobuf_c_message_get_packed_size (msg);
    if (len > GW_DATAGRAM_MAX) {
        sim_warn ("%s reply of %zu bytes does not fit a datagram; dropped", s_port_names[port], len);
        return;
    }
    protobuf_c_message_pack (msg, self->buf);
    sim_udp_send (self->fds[port], self->buf, len, to);
}

/* Over ZeroMQ: queued there until physics is (back) up. `data` is a
   packed lane record. */
static void
s_send_zmq_packed (gw_service_t *self, const uint8_t *data, size_t len)
{
    size_t env_len;
    const void *env = sim_lane_envelope (data, len, &env_len);
    zframe_t *frame = zframe_new (env, env_len);
    if (frame && zframe_send (&frame, self->cmd, 0))
        zframe_destroy (&frame);
}

/* Send what waits in the backlog while physics' lane takes it. */
static void
s_flush_backlog (gw_service_t *self)
{
    while (self->backlog_len > 0) {
        gw_queued_t *q = &self->backlog[self->backlog_head];
        if (sim_lane_send_bytes (self->lane, SIM_LANE_PHYSICS, q->data, q->len, -1)) {
            if (errno == EAGAIN)
                return;
            s_send_zmq_packed (self, q->data, q->len);     /* physics is not running */
        }
        free (q->data);
        q->data = NULL;
        self->backlog_head = (self->backlog_head + 1) % GW_PENDING_MAX;
        self->backlog_len--;
    }
}

/* A request goes over physics' lane without waiting: the gateway never
   blocks (it is the one service every other one's messages end at, so it
   breaks any cycle of full queues). A full lane queues it here, in order;
   a physics that is not running gets it over ZeroMQ, which holds it until
   physics is back. Each request has a pending slot, so the backlog never
   holds more than GW_PENDING_MAX. */
static void
s_send_request (gw_service_t *self, Simbus__Request *req)
{
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_REQUEST;
    env.request = req;
    if (!self->lane) {
        sim_bus_send (self->cmd, NULL, &env);
        return;
    }
    if (self->backlog_len == 0) {
        if (sim_lane_send (self->lane, SIM_LANE_PHYSICS, "Q", &env, -1) == 0)
            return;
        if (errno != EAGAIN) {
            sim_bus_send (self->cmd, NULL, &env);
            return;
        }
    }
    size_t len = 0;
    uint8_t *data = sim_lane_pack ("Q", &env, &len);
    if (!data || self->backlog_len == GW_PENDING_MAX) {
        free (data);
        sim_bus_send (self->cmd, NULL, &env);
        return;
    }
    int tail = (self->backlog_head + self->backlog_len) % GW_PENDING_MAX;
    self->backlog[tail] = (gw_queued_t) { data, len };
    self->backlog_len++;
}

static void
s_answer_unreadable (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    self->unreadable++;
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "UNREADABLE", "the datagram is neither a %s nor a SimulationSyncRequest",
                    port == GW_PORT_CONTROL ? "SimulatorCommand" : "RobotControl");
    if (port == GW_PORT_CONTROL) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = errors.count;
        r.errors = errors.ptrs;
        s_send_packed (self, port, from, &r.base);
    } else {
        RobotControlResponse r = ROBOT_CONTROL_RESPONSE__INIT;
        r.n_errors = errors.count;
        r.errors = errors.ptrs;
        s_send_packed (self, port, from, &r.base);
    }
}

/* Number of substeps for sim_step (protocol.md §7 step 4); -1 = INVALID_STEP. */
static int64_t
s_substeps (const gw_service_t *self, const SimulationSyncRequest *req)
{
    if (!req->has_sim_step || req->sim_step == 0)
        return 0;
    if (!isfinite (req->sim_step) || req->sim_step < 0)
        return -1;
    double dt_ns = (double) llround (self->cfg.sim.substep * 1e9);
    double requested = (double) req->sim_step * 1e9;
    double n = round (requested / dt_ns);
    if (fabs (n * dt_ns - requested) > fmax (requested * 1e-6, 1000.0))
        return -1;
    /* bounded, so one absurd request cannot stall physics for hours */
    if (n * dt_ns > GW_MAX_STEP_S * 1e9)
        return -1;
    return (int64_t) n;
}

static void
s_start_sync (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
              SimulationSyncRequest *sync)
{
    gw_pending_t *p = s_slot (self);
    if (!p)
        return;
    p->kind = GW_REQ_SYNC;
    p->port = port;
    p->from = *from;
    p->early = malloc (sizeof *p->early);
    if (!p->early) {
        s_release (p);
        return;
    }
    sim_errors_init (p->early);
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = p->id;
    req.has_sync = req.sync = true;
    req.has_step_id = true;
    req.step_id = p->id;
    req.simulator_command = sync->simulator_command;
    Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
    if (sync->robot_control) {
        if (port == GW_PORT_CONTROL)
            sim_errors_add (p->early, "UNSUPPORTED", "robot_control in a sync request has no team; "
                                                     "send it to the blue or yellow port");
        else {
            team.team = port == GW_PORT_YELLOW ? 1 : 0;
            team.control = sync->robot_control;
            req.team_control = &team;
            p->team_robot_control = true;
        }
    }
    int64_t n = s_substeps (self, sync);
    if (n < 0)
        sim_errors_add (p->early, "INVALID_STEP",
                        "sim_step %g s is not a whole number of %g s substeps (at most %g s)",
                        (double) sync->sim_step, self->cfg.sim.substep, GW_MAX_STEP_S);
    else if (n > 0) {
        req.has_substeps = true;
        req.substeps = (uint64_t) n;
    }
    /* physics needs time for a long step: the deadline grows with it.
       Over lanes physics' reply comes with vision's end of the step, so
       the vision timeout counts from the request: a stopped vision answers
       in sync_timeout plus the step's time (without the reply: physics
       hands it straight to us only when vision is not running). */
    int64_t step_us = (n > 0 ? n : 0) * GW_SUBSTEP_TTL_US;
    int64_t now = zclock_usecs ();
    int64_t wait_us = self->lane ? (int64_t) (self->cfg.bus.sync_timeout * 1e6) : GW_PLAIN_TTL_US;
    p->deadline_us = now + step_us + wait_us;
    p->give_up_us = now + step_us + GW_PLAIN_TTL_US;
    s_send_request (self, &req);
}

static void
s_handle_datagram (gw_service_t *self, gw_port_kind_t port, size_t len, const struct sockaddr_in *from)
{
    const uint8_t *data = self->buf;
    bool candidate = gw_detect_sync_candidate (data, len, port);
    SimulationSyncRequest *sync = NULL;
    if (candidate)
        sync = simulation_sync_request__unpack (NULL, len, data);
    if (sync) {
        s_start_sync (self, port, from, sync);
        simulation_sync_request__free_unpacked (sync, NULL);
        return;
    }
    if (port == GW_PORT_CONTROL) {
        SimulatorCommand *cmd = simulator_command__unpack (NULL, len, data);
        if (!cmd) {
            /* protocol.md §3: the control port tries the sync request last */
            sync = simulation_sync_request__unpack (NULL, len, data);
            if (sync) {
                s_start_sync (self, port, from, sync);
                simulation_sync_request__free_unpacked (sync, NULL);
            } else
                s_answer_unreadable (self, port, from);
            return;
        }
        gw_pending_t *p = s_slot (self);
        if (p) {
            p->kind = GW_REQ_COMMAND;
            p->port = port;
            p->from = *from;
            p->deadline_us = zclock_usecs () + GW_PLAIN_TTL_US;
            Simbus__Request req = SIMBUS__REQUEST__INIT;
            req.id = p->id;
            req.simulator_command = cmd;
            s_send_request (self, &req);
        }
        simulator_command__free_unpacked (cmd, NULL);
        return;
    }
    RobotControl *rc = robot_control__unpack (NULL, len, data);
    if (!rc) {
        s_answer_unreadable (self, port, from);
        return;
    }
    if (s_lost (self, port, self->cfg.realism.robot_command_loss))
        self->lost_commands++;
    else {
        gw_pending_t *p = s_slot (self);
        if (p) {
            p->kind = GW_REQ_ROBOTS;
            p->port = port;
            p->from = *from;
            p->deadline_us = zclock_usecs () + GW_PLAIN_TTL_US;
            Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
            team.team = port == GW_PORT_YELLOW ? 1 : 0;
            team.control = rc;
            Simbus__Request req = SIMBUS__REQUEST__INIT;
            req.id = p->id;
            req.team_control = &team;
            s_send_request (self, &req);
        }
    }
    robot_control__free_unpacked (rc, NULL);
}

/* The SimulationSyncResponse of a finished (or timed-out) sync step
   (protocol.md §7 step 6): the step's detection frames in release order,
   and a RobotControlResponse when robot_control came on a team port or
   when there is an error to carry. Errors: the team's own (robot_control),
   then the simulator_command's, then the gateway's (UNSUPPORTED for
   robot_control on the control port, INVALID_STEP), i.e. processing order. */
static void
s_answer_sync (gw_service_t *self, gw_pending_t *p)
{
    const Simbus__Reply *reply = p->reply;
    /* each packet's detection frame, spliced as it is (gw_detect.h):
       unpacking and packing them again was a good part of the answer's
       time */
    const uint8_t *detections[GW_SYNC_FRAMES];
    size_t lens[GW_SYNC_FRAMES];
    size_t n = 0;
    for (size_t i = 0; i < p->frame_count; i++)
        if (gw_wire_bytes_field (zchunk_data (p->frames[i]), zchunk_size (p->frames[i]),
                                 GW_WRAPPER_DETECTION, &detections[n], &lens[n]))
            n++;
    sim_errors_t *errors = &self->answer_errors;
    sim_errors_init (errors);
    if (reply) {
        sim_errors_add_wire (errors, reply->robot_errors, reply->n_robot_errors);
        sim_errors_add_wire (errors, reply->errors, reply->n_errors);
    }
    sim_errors_add_wire (errors, p->early->ptrs, p->early->count);
    RobotControlResponse rcr = ROBOT_CONTROL_RESPONSE__INIT;
    bool with_rcr = errors->count > 0 || p->team_robot_control;
    size_t rcr_len = 0;
    if (with_rcr) {
        rcr.n_errors = errors->count;
        rcr.errors = errors->ptrs;
        if (reply) {
            rcr.n_feedback = reply->n_feedback;
            rcr.feedback = reply->feedback;
        }
        rcr_len = robot_control_response__get_packed_size (&rcr);
    }
    /* A datagram holds about 90 frames of a full field: a longer step
       keeps its newest frames (docs/protocol.md). */
    size_t total = with_rcr ? gw_wire_bytes_size (GW_SYNC_RESPONSE_RCR, rcr_len) : 0;
    size_t first = n;
    while (first > 0 && total + gw_wire_bytes_size (GW_SYNC_RESPONSE_DETECTION, lens[first - 1])
                            <= GW_DATAGRAM_MAX) {
        first--;
        total += gw_wire_bytes_size (GW_SYNC_RESPONSE_DETECTION, lens[first]);
    }
    if (first > 0) {
        self->frames_dropped += first;
        sim_warn ("sync step of %zu frames does not fit a datagram; the oldest %zu left out", n, first);
    }
    if (total > GW_DATAGRAM_MAX) {
        sim_warn ("sync answer of %zu bytes does not fit a datagram; dropped", total);
        s_release (p);
        return;
    }
    /* fields in number order, as protobuf-c packs them */
    size_t len = 0;
    for (size_t i = first; i < n; i++)
        len += gw_wire_put_bytes (self->buf + len, GW_SYNC_RESPONSE_DETECTION, detections[i], lens[i]);
    if (with_rcr) {
        uint8_t *packed = self->buf + len + gw_wire_bytes_size (GW_SYNC_RESPONSE_RCR, rcr_len) - rcr_len;
        robot_control_response__pack (&rcr, packed);
        len += gw_wire_put_bytes (self->buf + len, GW_SYNC_RESPONSE_RCR, packed, rcr_len);
    }
    sim_udp_send (self->fds[p->port], self->buf, len, &p->from);
    s_release (p);
}

static void
s_handle_reply (gw_service_t *self, Simbus__Envelope *env)
{
    const Simbus__Reply *reply = env->reply;
    if (reply->time_ns > self->sim_time_ns)
        self->sim_time_ns = reply->time_ns;
    gw_pending_t *p = s_find (self, reply->id);
    if (!p) {
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    if (p->kind == GW_REQ_COMMAND) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = reply->n_errors;
        r.errors = reply->errors;
        s_send_packed (self, p->port, &p->from, &r.base);
        s_release (p);
    } else if (p->kind == GW_REQ_ROBOTS) {
        if (s_lost (self, p->port, self->cfg.realism.robot_response_loss))
            self->lost_responses++;
        else {
            RobotControlResponse r = ROBOT_CONTROL_RESPONSE__INIT;
            r.n_errors = reply->n_robot_errors;
            r.errors = reply->robot_errors;
            r.n_feedback = reply->n_feedback;
            r.feedback = reply->feedback;
            s_send_packed (self, p->port, &p->from, &r.base);
        }
        s_release (p);
    } else {
        p->have_reply = true;
        p->reply_env = env;
        p->reply = env->reply;
        p->deadline_us = zclock_usecs () + (int64_t) (self->cfg.bus.sync_timeout * 1e6);
        if (p->frames_done)
            s_answer_sync (self, p);
        return;     /* env now owned by p */
    }
    simbus__envelope__free_unpacked (env, NULL);
}

static void
s_handle_cmd (gw_service_t *self)
{
    zframe_t *frame = zframe_recv (self->cmd);
    if (!frame)
        return;
    Simbus__Envelope *env = sim_bus_decode (zframe_data (frame), zframe_size (frame), &self->bus_warned);
    zframe_destroy (&frame);
    if (env && env->body_case == SIMBUS__ENVELOPE__BODY_REPLY)
        s_handle_reply (self, env);
    else if (env)
        simbus__envelope__free_unpacked (env, NULL);
}

static void
s_keep_frames (gw_service_t *self, gw_pending_t *p, const ProtobufCBinaryData *wrappers, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p->frame_count == GW_SYNC_FRAMES) {
            /* more than a datagram can carry anyway: keep the newest */
            zchunk_destroy (&p->frames[0]);
            memmove (p->frames, p->frames + 1, sizeof p->frames[0] * (GW_SYNC_FRAMES - 1));
            p->frame_count--;
            self->frames_dropped++;
        }
        p->frames[p->frame_count++] = zchunk_new (wrappers[i].data, wrappers[i].len);
    }
}

/* Frames of a sync step and vision's done mark (takes env). */
static void
s_on_frames (gw_service_t *self, Simbus__Envelope *env)
{
    if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES && env->frames->has_step_id) {
        gw_pending_t *p = s_find (self, env->frames->step_id);
        if (p && p->kind == GW_REQ_SYNC)
            s_keep_frames (self, p, env->frames->wrapper, env->frames->n_wrapper);
    } else if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES_DONE) {
        const Simbus__FramesDone *done = env->frames_done;
        gw_pending_t *p = s_find (self, done->step_id);
        if (p && p->kind == GW_REQ_SYNC) {
            /* over a lane the mark carries the step's packets and reply */
            s_keep_frames (self, p, done->wrapper, done->n_wrapper);
            if (done->reply && !p->have_reply) {
                p->have_reply = true;
                p->reply_env = env;
                p->reply = done->reply;
                env = NULL;
            }
            p->frames_done = true;
            if (p->have_reply)
                s_answer_sync (self, p);
        }
    }
    if (env)
        simbus__envelope__free_unpacked (env, NULL);
}

static void
s_handle_frames (gw_service_t *self)
{
    char topic;
    Simbus__Envelope *env = sim_bus_recv_sub (self->frames, &topic, &self->bus_warned);
    if (env)
        s_on_frames (self, env);
}

/* The lane: physics' replies and vision's sync-step frames. */
static void
s_handle_lane (gw_service_t *self)
{
    Simbus__Envelope *env;
    char topic[4];
    while (sim_lane_recv (self->lane, &env, topic, sizeof topic, NULL, &self->bus_warned)) {
        if (!env)
            continue;
        if (env->body_case == SIMBUS__ENVELOPE__BODY_REPLY)
            s_handle_reply (self, env);
        else if (env->body_case == SIMBUS__ENVELOPE__BODY_CONFIG) {
            sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
            simbus__envelope__free_unpacked (env, NULL);
        } else
            s_on_frames (self, env);
    }
}

static void
s_handle_world (gw_service_t *self)
{
    char topic;
    Simbus__Envelope *env = sim_bus_recv_sub (self->world, &topic, &self->bus_warned);
    if (!env)
        return;
    if (env->body_case == SIMBUS__ENVELOPE__BODY_CONFIG)
        sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
    else if (env->body_case == SIMBUS__ENVELOPE__BODY_CLOCK) {
        if (env->clock->time_ns > self->sim_time_ns)
            self->sim_time_ns = env->clock->time_ns;
    }
    simbus__envelope__free_unpacked (env, NULL);
}

/* Answer or forget what is past its deadline; returns the earliest
   deadline still pending, or INT64_MAX. */
static int64_t
s_expire (gw_service_t *self, int64_t now)
{
    int64_t next = INT64_MAX;
    for (int i = 0; i < GW_PENDING_MAX; i++) {
        gw_pending_t *p = &self->pending[i];
        if (!p->used)
            continue;
        if (now < p->deadline_us) {
            if (p->deadline_us < next)
                next = p->deadline_us;
            continue;
        }
        if (p->kind == GW_REQ_SYNC && !p->have_reply && self->lane && now < p->give_up_us
            && sim_lane_unread (self->lane) > 0) {
            /* physics has not even read its requests (a starved machine):
               not vision's fault, so wait for physics, as without lanes */
            p->deadline_us = now + GW_RECHECK_US;
            if (p->deadline_us < next)
                next = p->deadline_us;
            continue;
        }
        if (p->kind == GW_REQ_SYNC) {
            if (!self->warned_no_vision) {
                sim_warn ("vision did not report a sync step within %.3f s; answering without frames",
                          self->cfg.bus.sync_timeout);
                self->warned_no_vision = true;
            }
            s_answer_sync (self, p);
        } else
            s_release (p);
    }
    return next;
}

static void
s_destroy (gw_service_t **self_p)
{
    gw_service_t *self = *self_p;
    if (!self)
        return;
    if (self->pending)
        for (int i = 0; i < GW_PENDING_MAX; i++)
            if (self->pending[i].used)
                s_release (&self->pending[i]);
    for (int i = 0; i < self->backlog_len; i++)
        free (self->backlog[(self->backlog_head + i) % GW_PENDING_MAX].data);
    sim_lane_destroy (&self->lane);
    zsock_destroy (&self->cmd);
    zsock_destroy (&self->world);
    zsock_destroy (&self->frames);
    for (int i = 0; i < 3; i++)
        if (self->fds[i] >= 0)
            close (self->fds[i]);
    free (self->pending);
    free (self->buf);
    free (self);
    *self_p = NULL;
}

/* Without lanes: the configuration and clock from physics, a sync step's
   frames from vision. The sim time for the loss draws comes with every
   reply; the clock heartbeat keeps it fresh while no request goes out
   (with lanes not: an idle gateway then stays asleep, and loss only
   applies to requests, whose replies carry the time). 0, or -1 (logged). */
static int
s_subscribe (gw_service_t *self, const sim_config_t *cfg)
{
    self->world = zsock_new (ZMQ_SUB);
    self->frames = zsock_new (ZMQ_SUB);
    if (!self->world || !self->frames)
        return -1;
    zsock_set_rcvhwm (self->frames, 100000);
    zsock_set_subscribe (self->world, SIM_TOPIC_CLOCK);
    zsock_set_subscribe (self->world, SIM_TOPIC_CONFIG);
    zsock_set_subscribe (self->frames, SIM_TOPIC_STEP_FRAMES);
    zsock_set_subscribe (self->frames, SIM_TOPIC_FRAMES_DONE);
    if (zsock_connect (self->world, "%s", cfg->bus.world_connect) < 0
        || zsock_connect (self->frames, "%s", cfg->bus.frames_connect) < 0) {
        sim_error ("cannot connect %s / %s", cfg->bus.world_connect, cfg->bus.frames_connect);
        return -1;
    }
    return 0;
}

static gw_service_t *
s_new (zsock_t *pipe, const sim_config_t *cfg)
{
    gw_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->pipe = pipe;
    self->own = self->cfg = *cfg;
    self->next_id = 1;
    self->fds[0] = self->fds[1] = self->fds[2] = -1;
    self->buf = malloc (SIM_UDP_MAX);
    self->pending = calloc (GW_PENDING_MAX, sizeof *self->pending);
    self->cmd = zsock_new (ZMQ_DEALER);
    if (!self->buf || !self->pending || !self->cmd) {
        s_destroy (&self);
        return NULL;
    }
    zsock_set_sndhwm (self->cmd, 100000);
    if (zsock_connect (self->cmd, "%s", cfg->bus.cmd_connect) < 0) {
        sim_error ("cannot connect %s", cfg->bus.cmd_connect);
        s_destroy (&self);
        return NULL;
    }
    /* with lanes, the configuration and a sync step's frames come over the
       gateway's lane: no subscriptions at all */
    if (sim_lane_enabled (cfg) ? !(self->lane = sim_lane_new (cfg, SIM_LANE_GATEWAY)) : s_subscribe (self, cfg)) {
        s_destroy (&self);
        return NULL;
    }
    const int bases[3] = { cfg->network.control_port, cfg->network.blue_port, cfg->network.yellow_port };
    for (int i = 0; i < 3; i++) {
        int port = sim_config_port (cfg, bases[i]);
        self->fds[i] = sim_udp_bind (cfg->network.bind_address, port);
        if (self->fds[i] < 0) {
            sim_error ("cannot bind the %s port %s:%d: %s", s_port_names[i], cfg->network.bind_address,
                       port, strerror (errno));
            s_destroy (&self);
            return NULL;
        }
    }
    sim_info ("control %d, blue %d, yellow %d on %s", sim_udp_local_port (self->fds[0]),
              sim_udp_local_port (self->fds[1]), sim_udp_local_port (self->fds[2]),
              cfg->network.bind_address);
    return self;
}

void
gw_service_actor (zsock_t *pipe, void *args)
{
    sim_service_args_t *sargs = args;
    sim_service_log_setup ("gateway", &sargs->cfg);
    gw_service_t *self = s_new (pipe, &sargs->cfg);
    if (!sim_service_ready (pipe, sargs, self != NULL))
        return;
    /* ZeroMQ sockets, the three UDP ports and the lane in one poll */
    /* the UDP ports, then what the bus needs: with lanes the world and
       frames sockets carry nothing for us (each polled ZeroMQ socket costs
       system calls per wake-up) */
    zmq_pollitem_t all[8] = {
        { NULL, self->fds[0], ZMQ_POLLIN, 0 },
        { NULL, self->fds[1], ZMQ_POLLIN, 0 },
        { NULL, self->fds[2], ZMQ_POLLIN, 0 },
        { zsock_resolve (pipe), 0, ZMQ_POLLIN, 0 },
        { zsock_resolve (self->cmd), 0, ZMQ_POLLIN, 0 },
    };
    int count = 5, i_lane = -1, i_world = -1, i_frames = -1;
    if (self->lane)
        all[i_lane = count++] = (zmq_pollitem_t) { NULL, sim_lane_fd (self->lane), ZMQ_POLLIN, 0 };
    else {
        all[i_world = count++] = (zmq_pollitem_t) { zsock_resolve (self->world), 0, ZMQ_POLLIN, 0 };
        all[i_frames = count++] = (zmq_pollitem_t) { zsock_resolve (self->frames), 0, ZMQ_POLLIN, 0 };
    }
    int64_t next_deadline = INT64_MAX;
    while (!self->terminated) {
        /* wake for the next deadline; while requests wait for room in
           physics' lane, every millisecond to retry (a datagram socket
           cannot be polled for room in its peer's queue) */
        int64_t now = zclock_usecs ();
        int64_t until = next_deadline;
        if (self->lane && !self->config_serial) {
            int64_t hello = sim_lane_hello (self->lane, now, &self->next_hello_us);
            if (hello < until)
                until = hello;
        }
        int timeout = self->backlog_len > 0 ? 1 : sim_service_timeout_ms (now, until);
        if (zmq_poll (all, count, timeout) < 0 && zmq_errno () != EINTR)
            break;
        if ((all[3].revents & ZMQ_POLLIN) && sim_service_term_requested (pipe))
            self->terminated = true;
        /* world first: the newest configuration (loss, substep) applies */
        if (i_world >= 0 && (all[i_world].revents & ZMQ_POLLIN))
            while (zsock_events (self->world) & ZMQ_POLLIN)
                s_handle_world (self);
        if (i_frames >= 0 && (all[i_frames].revents & ZMQ_POLLIN))
            while (zsock_events (self->frames) & ZMQ_POLLIN)
                s_handle_frames (self);
        if (all[4].revents & ZMQ_POLLIN)
            while (zsock_events (self->cmd) & ZMQ_POLLIN)
                s_handle_cmd (self);
        if (i_lane >= 0) {
            if (all[i_lane].revents & ZMQ_POLLIN)
                s_handle_lane (self);
            s_flush_backlog (self);
        }
        for (int i = 0; i < 3; i++) {
            if (!(all[i].revents & ZMQ_POLLIN))
                continue;
            /* bounded, so one busy port cannot starve the others */
            for (int k = 0; k < GW_BURST; k++) {
                struct sockaddr_in from;
                ssize_t n = sim_udp_recv (self->fds[i], self->buf, SIM_UDP_MAX, &from);
                if (n < 0)
                    break;
                if (n > SIM_UDP_MAX) {
                    s_answer_unreadable (self, (gw_port_kind_t) i, &from);   /* truncated */
                    continue;
                }
                s_handle_datagram (self, (gw_port_kind_t) i, (size_t) n, &from);
            }
        }
        next_deadline = s_expire (self, zclock_usecs ());
    }
    s_destroy (&self);
}
