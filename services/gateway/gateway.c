/*  gateway.c - the gateway service actor (protocol.md §1-§7).

    Every datagram on the control, blue and yellow ports becomes one bus
    request to physics, remembered in the pending table (gw_pending) with
    the datagram's source address, and the reply goes back to that address
    from the same socket. A sync step's reply comes with vision's end of
    the step, which carries the step's frames (sim_link.h), and the answer
    is assembled from both (gw_sync); without vision, physics answers
    itself and the gateway answers without frames after [bus]
    sync_timeout. Choices where the spec is open: docs/protocol.md.

    Every datagram gets exactly one answer (or, for a RobotControl, the
    configured loss): what physics does not answer in time is answered
    with an error, and a late reply then finds nothing. What the gateway
    forwards is what it decoded (gw_strip), each port and source may hold
    only its share of the pending table (gw_pending), and a source that
    has not shown it receives what it is sent gets small answers
    (gw_peers). In tournament mode (gw_tournament) a port answers only
    its own addresses, and everyone else hears FORBIDDEN.
*/
#include "gateway.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "gw_peers.h"
#include "gw_pending.h"
#include "gw_sources.h"
#include "gw_strip.h"
#include "gw_sync.h"
#include "gw_tournament.h"
#include "gw_wire.h"
#include "common/bus/sim_bus_codec.h"
#include "common/base/sim_errors.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/base/sim_rng.h"
#include "common/bus/sim_service.h"
#include "common/logs/sim_stats.h"
#include "common/bus/sim_udp.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define GW_PORT_SHARE   512                 /* pending requests one port may hold: its reserved third */
#define GW_PENDING_MAX  (3 * GW_PORT_SHARE) /* the whole table */
#define GW_SOURCE_SHARE 256                 /* pending requests one source address (ip:port) may hold */
/* a plain request physics did not answer this long is answered
   UNAVAILABLE: long enough for a crashed physics to be restarted and
   answer what waited for it (docs/protocol.md) */
#define GW_PLAIN_TTL_US    4000000
#define GW_SYNC_WAIT_US    2000000  /* sync: longest wait for physics to read its requests */
#define GW_SUBSTEP_TTL_US  20       /* extra wait for physics per requested substep */
#define GW_PEERS           256      /* source addresses remembered (gw_peers) */
#define GW_PEER_IDLE_US    30000000 /* a proven source idle this long proves itself again */
#define GW_SOURCES         64       /* client sources remembered per port, for the log (gw_sources) */
#define GW_REPEAT_US       5000000  /* the same change from the same source is logged once this long */
#define GW_NEWS_PER_WINDOW 16       /* new sources logged per window; a flood of forged ones is counted */
#define GW_NEWS_WINDOW_US  10000000
/* an unproven source's sync answer: at most this many bytes, or this many
   times its request's size if that is more (docs/protocol.md) */
#define GW_UNPROVEN_MIN   1200
#define GW_UNPROVEN_RATIO 3
#define GW_BURST          64       /* datagrams read per port per loop turn */
#define GW_RECHECK_US     10000    /* look again whether physics read its requests */
#define GW_STATS_US       1000000  /* Stats to the bus this often */
#define GW_STAT_SOURCES   8        /* source addresses listed per port in Stats */
#define GW_SOURCE_SEEN_US 10000000 /* a source heard this recently is listed */

/* A port's counters for Stats (docs/viewer.md). */
typedef struct {
    uint64_t received, refused, lost;
    uint64_t last_received; /* at the last Stats, for the rate */
} gw_port_stats_t;

typedef struct gw_service_t gw_service_t;

/* One UDP port: its handler's argument. */
typedef struct {
    gw_service_t *service;
    gw_port_kind_t kind;
} gw_port_t;

struct gw_service_t {
    sim_config_t own, cfg;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    int fds[3];
    gw_port_t ports[3];
    uint8_t *buf;
    gw_pending_t *pending;
    gw_peers_t *peers;
    gw_sources_t *sources;        /* clients each port has heard, for the log */
    char last_change[256];        /* the latest configuration change logged, */
    struct sockaddr_in last_from; /* its source */
    int64_t last_change_us;       /* and when */
    int64_t news_window_us;       /* start of the window of new-source lines */
    int news_logged;              /* new-source lines in that window */
    uint64_t news_unlogged;       /* new sources past the window's share */
    gw_tournament_t *tournament;  /* read at start: [tournament] */
    uint64_t sim_time_ns;         /* last time physics told us */
    uint64_t loss_time_ns;
    uint32_t loss_index[3];
    bool warned_no_vision;
    uint64_t unreadable, lost_commands, lost_responses, frames_dropped;
    uint64_t stripped;          /* unknown fields dropped before forwarding */
    uint64_t unavailable;       /* plain requests physics did not answer in time */
    uint64_t sync_refused;      /* sync requests refused ([network] sync_takeover) */
    uint64_t small_answers;     /* sync answers kept small for an unproven source */
    int64_t rx_us;              /* zclock_usecs when the datagram being handled was read */
    sim_errors_t answer_errors; /* a sync answer's errors, reused per answer */
    uint64_t config_serial;     /* of the configuration from physics; 0: none yet */
    gw_port_stats_t stats[3];
    uint64_t sync_answers;
    int64_t started_us, last_stats_us;
    int64_t expiry_us; /* the earliest deadline of a pending request, or SIM_LOOP_NEVER */
};

static const char *const s_port_names[] = { "control", "blue", "yellow" };

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

/* Every answer leaves here: `to` has now been answered (gw_peers). */
static void
s_send (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, size_t len)
{
    sim_udp_send (self->fds[port], self->buf, len, to);
    gw_peers_answered (self->peers, to, zclock_usecs ());
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
    s_send (self, port, to, len);
}

static void
s_send_request (gw_service_t *self, Simbus__Request *req)
{
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, req);
    sim_link_send (self->link, &env);
}

/* ---- datagrams -------------------------------------------------------- */

/* The gateway's own answer to a datagram, carrying `errors`: the port's
   response, or for a sync request a SimulationSyncResponse with them in
   its RobotControlResponse. */
static void
s_answer_errors (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, bool sync,
                 const sim_errors_t *errors)
{
    self->stats[port].refused++;
    RobotControlResponse rr = ROBOT_CONTROL_RESPONSE__INIT;
    rr.n_errors = errors->count;
    rr.errors = (SimulatorError **) errors->ptrs;
    if (sync) {
        SimulationSyncResponse r = SIMULATION_SYNC_RESPONSE__INIT;
        r.robot_control_response = &rr;
        s_send_packed (self, port, to, &r.base);
    } else if (port == GW_PORT_CONTROL) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = errors->count;
        r.errors = (SimulatorError **) errors->ptrs;
        s_send_packed (self, port, to, &r.base);
    } else
        s_send_packed (self, port, to, &rr.base);
}

static void
s_answer_unreadable (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    self->unreadable++;
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "UNREADABLE", "the datagram is neither a %s nor a SimulationSyncRequest",
                    port == GW_PORT_CONTROL ? "SimulatorCommand" : "RobotControl");
    s_answer_errors (self, port, from, false, &errors);
}

/* A datagram tournament mode refuses (gw_tournament): answered FORBIDDEN
   in the port's response (a sync request's in a SimulationSyncResponse),
   counted, and logged at most once a second. */
static void
s_answer_forbidden (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync,
                    gw_tournament_verdict_t verdict)
{
    char why[160];
    gw_tournament_explain (verdict, port, from, why, sizeof why);
    uint64_t report = gw_tournament_refused (self->tournament, port, zclock_usecs ());
    if (report > 1)
        sim_warn ("%s (%" PRIu64 " refused since the last such line, %" PRIu64 " on the %s port in all)", why,
                  report, gw_tournament_refused_count (self->tournament, port), s_port_names[port]);
    else if (report)
        sim_warn ("%s (%" PRIu64 " on the %s port in all)", why,
                  gw_tournament_refused_count (self->tournament, port), s_port_names[port]);
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "FORBIDDEN", "%s", why);
    s_answer_errors (self, port, from, sync, &errors);
}

/* A request the pending table refused (gw_pending_add returned NULL):
   answered at once, so a client that asks too much hears so. */
static void
s_answer_busy (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, bool sync)
{
    gw_admit_t why = gw_pending_admit (self->pending, port, from);
    sim_errors_t errors;
    sim_errors_init (&errors);
    if (why == GW_ADMIT_SOURCE)
        sim_errors_add (&errors, "BUSY", "%d requests from this address already wait for the simulator",
                        GW_SOURCE_SHARE);
    else if (why == GW_ADMIT_PORT)
        sim_errors_add (&errors, "BUSY", "%d requests on the %s port already wait for the simulator",
                        GW_PORT_SHARE, s_port_names[port]);
    else
        sim_errors_add (&errors, "BUSY", "the gateway cannot take the request now");
    s_answer_errors (self, port, from, sync, &errors);
}

/* Log what configuration a client's command asks to change, with its
   source: an operator sees who changed the field, the realism or the
   speed. Physics may still refuse it (the client gets the errors). The
   same request from the same source again within GW_REPEAT_US is not
   logged again (some clients repeat their setup with every packet). */
static void
s_log_changes (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
               const SimulatorCommand *cmd)
{
    if (!cmd)
        return;
    char what[256] = "";
    size_t n = 0;
    const SimulatorConfig *config = cmd->config;
    const SimulatorControl *control = cmd->control;
    /* clang-format off */
    if (config && config->geometry)
        n += (size_t) snprintf (what + n, sizeof what - n, ", geometry");
    if (config && config->realism_config && n < sizeof what)
        n += (size_t) snprintf (what + n, sizeof what - n, ", realism");
    if (config && config->n_robot_specs && n < sizeof what)
        n += (size_t) snprintf (what + n, sizeof what - n, ", robot specs (%zu)", config->n_robot_specs);
    if (config && config->has_vision_port && n < sizeof what)
        n += (size_t) snprintf (what + n, sizeof what - n, ", vision port %u", config->vision_port);
    if (control && control->has_simulation_speed && n < sizeof what)
        n += (size_t) snprintf (what + n, sizeof what - n, ", speed %g", (double) control->simulation_speed);
    /* clang-format on */
    if (n == 0)
        return;
    int64_t now = self->rx_us;
    if (strcmp (what, self->last_change) == 0 && from->sin_addr.s_addr == self->last_from.sin_addr.s_addr
        && from->sin_port == self->last_from.sin_port && now - self->last_change_us < GW_REPEAT_US)
        return;
    snprintf (self->last_change, sizeof self->last_change, "%s", what);
    self->last_from = *from;
    self->last_change_us = now;
    char a[64];
    sim_info ("%s on the %s port asks to change %s", sim_udp_addr_str (from, a, sizeof a), s_port_names[port],
              what + 2);
}

/* --journal FILE: the request names its sender, for the journal
   (docs/logs.md); nothing is added to a run without one. buf holds the
   text until the request is sent. */
static void
s_set_source (const gw_service_t *self, Simbus__Request *req, gw_port_kind_t port,
              const struct sockaddr_in *from, char *buf, size_t size)
{
    if (!self->own.run.journal[0])
        return;
    char addr[32];
    snprintf (buf, size, "%s port, %s", s_port_names[port], sim_udp_addr_str (from, addr, sizeof addr));
    req->source = buf;
}

static void
s_start_sync (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
              SimulationSyncRequest *sync, size_t len, bool proven)
{
    gw_tournament_verdict_t verdict = gw_tournament_check (self->tournament, port, from, true);
    if (verdict != GW_TOURNAMENT_ALLOWED) {
        s_answer_forbidden (self, port, from, true, verdict);
        return;
    }
    s_log_changes (self, port, from, sync->simulator_command);
    if (!self->cfg.network.sync_takeover && self->cfg.run.mode != SIM_MODE_SYNC) {
        self->sync_refused++;
        sim_errors_t errors;
        sim_errors_init (&errors);
        sim_errors_add (&errors, "REFUSED",
                        "the simulator runs in %s mode and [network] sync_takeover is off: "
                        "no sync steps",
                        self->cfg.run.mode == SIM_MODE_FAST ? "fast" : "realtime");
        s_answer_errors (self, port, from, true, &errors);
        return;
    }
    char step_why[200] = "";
    int64_t n = gw_sync_substeps (sync, self->cfg.sim.substep, step_why, sizeof step_why);
    /* physics needs time for a long step: the deadlines grow with it. The
       reply comes with vision's end of the step, so the vision timeout
       counts from the request: a stopped vision answers in sync_timeout
       plus the step's time (without the reply: physics hands it straight
       to us only when vision is not running) */
    int64_t step_us = (n > 0 ? n : 0) * GW_SUBSTEP_TTL_US;
    int64_t now = self->rx_us;
    gw_request_t *p = gw_pending_add (self->pending, GW_REQ_SYNC, port, from,
                                      now + step_us + (int64_t) (self->cfg.bus.sync_timeout * 1e6));
    if (!p) {
        s_answer_busy (self, port, from, true);
        return;
    }
    p->give_up_us = now + step_us + GW_SYNC_WAIT_US;
    if (!proven)
        p->answer_cap = len * GW_UNPROVEN_RATIO > GW_UNPROVEN_MIN ? len * GW_UNPROVEN_RATIO : GW_UNPROVEN_MIN;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = p->id;
    req.has_sync = req.sync = true;
    req.has_step_id = true;
    req.step_id = p->id;
    req.simulator_command = sync->simulator_command;
    Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
    if (sync->robot_control) {
        if (port == GW_PORT_CONTROL)
            sim_errors_add (p->early, "UNSUPPORTED",
                            "robot_control in a sync request has no team; "
                            "send it to the blue or yellow port");
        else {
            team.team = port == GW_PORT_YELLOW ? 1 : 0;
            team.control = sync->robot_control;
            req.team_control = &team;
            p->team_robot_control = true;
        }
    }
    if (n < 0)
        sim_errors_add (p->early, "INVALID_STEP", "%s", step_why);
    else if (n > 0) {
        req.has_substeps = true;
        req.substeps = (uint64_t) n;
    }
    char source[64];
    s_set_source (self, &req, port, from, source, sizeof source);
    s_send_request (self, &req);
}

/* A plain request: a SimulatorCommand (control port) or a team's
   RobotControl. */
static void
s_start_plain (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from, SimulatorCommand *cmd,
               RobotControl *rc)
{
    gw_request_t *p = gw_pending_add (self->pending, cmd ? GW_REQ_COMMAND : GW_REQ_ROBOTS, port, from,
                                      self->rx_us + GW_PLAIN_TTL_US);
    if (!p) {
        s_answer_busy (self, port, from, false);
        return;
    }
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = p->id;
    req.simulator_command = cmd;
    Simbus__TeamControl team = SIMBUS__TEAM_CONTROL__INIT;
    if (rc) {
        team.team = port == GW_PORT_YELLOW ? 1 : 0;
        team.control = rc;
        req.team_control = &team;
        /* for the command->vision latency (sim_stats.h): the wall
           clock vision compares with (zclock_usecs is monotonic) */
        req.has_received_us = true;
        req.received_us = sim_stats_wall_us ();
    }
    char source[64];
    s_set_source (self, &req, port, from, source, sizeof source);
    s_send_request (self, &req);
}

/* Forward only what was decoded (gw_strip.h); msg came from unpack with
   the default allocator. */
static void
s_strip (gw_service_t *self, ProtobufCMessage *msg)
{
    size_t n = gw_strip_unknown (msg, NULL);
    if (n) {
        self->stripped += n;
        sim_debug ("%zu unknown fields dropped from a %s", n, msg->descriptor->short_name);
    }
}

/* A sync request, tried first where its tags say it may be one
   (protocol.md §3); the control port tries it last. */
static bool
s_try_sync (gw_service_t *self, gw_port_kind_t port, size_t len, const struct sockaddr_in *from, bool proven)
{
    SimulationSyncRequest *sync = simulation_sync_request__unpack (NULL, len, self->buf);
    if (!sync)
        return false;
    s_strip (self, &sync->base);
    s_start_sync (self, port, from, sync, len, proven);
    simulation_sync_request__free_unpacked (sync, NULL);
    return true;
}

static void
s_handle_datagram (gw_service_t *self, gw_port_kind_t port, size_t len, const struct sockaddr_in *from)
{
    bool proven = gw_peers_arrived (self->peers, from, self->rx_us);
    if (gw_wire_sync_candidate (self->buf, len, port) && s_try_sync (self, port, len, from, proven))
        return;
    if (port == GW_PORT_CONTROL) {
        SimulatorCommand *cmd = simulator_command__unpack (NULL, len, self->buf);
        if (!cmd) {
            if (!s_try_sync (self, port, len, from, proven))
                s_answer_unreadable (self, port, from);
            return;
        }
        s_strip (self, &cmd->base);
        s_log_changes (self, port, from, cmd);
        s_start_plain (self, port, from, cmd, NULL);
        simulator_command__free_unpacked (cmd, NULL);
        return;
    }
    RobotControl *rc = robot_control__unpack (NULL, len, self->buf);
    if (!rc) {
        s_answer_unreadable (self, port, from);
        return;
    }
    s_strip (self, &rc->base);
    if (s_lost (self, port, self->cfg.realism.robot_command_loss)) {
        self->lost_commands++;
        self->stats[port].lost++;
    } else
        s_start_plain (self, port, from, NULL, rc);
    robot_control__free_unpacked (rc, NULL);
}

/* "first datagram from A on the P port", at most GW_NEWS_PER_WINDOW
   lines per window: a flood of forged sources must not flood the log. */
static void
s_log_new_source (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    int64_t now = zclock_usecs ();
    if (now - self->news_window_us >= GW_NEWS_WINDOW_US) {
        if (self->news_unlogged)
            sim_info ("%" PRIu64 " more new sources in the last %d s were not logged one by one",
                      self->news_unlogged, GW_NEWS_WINDOW_US / 1000000);
        self->news_window_us = now;
        self->news_logged = 0;
        self->news_unlogged = 0;
    }
    if (self->news_logged >= GW_NEWS_PER_WINDOW) {
        self->news_unlogged++;
        return;
    }
    self->news_logged++;
    char a[64];
    sim_info ("first datagram from %s on the %s port", sim_udp_addr_str (from, a, sizeof a),
              s_port_names[port]);
}

static void
s_on_port (void *arg)
{
    gw_port_t *port = arg;
    gw_service_t *self = port->service;
    /* bounded, so one busy port cannot starve the others */
    for (int k = 0; k < GW_BURST; k++) {
        struct sockaddr_in from;
        ssize_t n = sim_udp_recv (self->fds[port->kind], self->buf, SIM_UDP_MAX, &from);
        if (n < 0)
            break;
        self->rx_us = zclock_usecs (); /* one clock read per datagram */
        if (gw_sources_arrived (self->sources, port->kind, &from, self->rx_us))
            s_log_new_source (self, port->kind, &from);
        self->stats[port->kind].received++;
        /* before anything is decoded: a refused datagram takes no pending
           slot and never reaches physics */
        gw_tournament_verdict_t verdict = gw_tournament_check (self->tournament, port->kind, &from, false);
        if (verdict != GW_TOURNAMENT_ALLOWED)
            s_answer_forbidden (self, port->kind, &from, false, verdict);
        else if (n > SIM_UDP_MAX)
            s_answer_unreadable (self, port->kind, &from); /* truncated */
        else
            s_handle_datagram (self, port->kind, (size_t) n, &from);
    }
}

/* ---- answers ---------------------------------------------------------- */

static void
s_answer_sync (gw_service_t *self, gw_request_t *p)
{
    size_t len = 0, left_out = 0;
    if (gw_sync_answer (p, &self->answer_errors, self->buf, SIM_UDP_MAX, &len, &left_out) == 0) {
        s_send (self, p->port, &p->from, len);
        self->sync_answers++;
    }
    self->frames_dropped += left_out;
    self->small_answers += p->answer_cap && left_out;
    gw_pending_release (self->pending, p);
}

/* physics' reply, on its own or (a sync step) inside vision's end of the
   step `env`; takes env. */
static void
s_handle_reply (gw_service_t *self, Simbus__Envelope *env, const Simbus__Reply *reply)
{
    if (reply->time_ns > self->sim_time_ns)
        self->sim_time_ns = reply->time_ns;
    gw_request_t *p = gw_pending_find (self->pending, reply->id);
    if (p && p->kind == GW_REQ_COMMAND) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = reply->n_errors;
        r.errors = reply->errors;
        s_send_packed (self, p->port, &p->from, &r.base);
        gw_pending_release (self->pending, p);
    } else if (p && p->kind == GW_REQ_ROBOTS) {
        if (s_lost (self, p->port, self->cfg.realism.robot_response_loss)) {
            self->lost_responses++;
            self->stats[p->port].lost++;
        } else {
            RobotControlResponse r = ROBOT_CONTROL_RESPONSE__INIT;
            r.n_errors = reply->n_robot_errors;
            r.errors = reply->robot_errors;
            r.n_feedback = reply->n_feedback;
            r.feedback = reply->feedback;
            s_send_packed (self, p->port, &p->from, &r.base);
        }
        gw_pending_release (self->pending, p);
    } else if (p) {
        /* physics answered itself (no vision took the step): vision gets
           sync_timeout to report after all */
        bool direct = !p->reply && env->body_case == SIMBUS__ENVELOPE__BODY_REPLY;
        gw_pending_set_reply (p, env, reply); /* takes env */
        if (direct)
            gw_pending_set_deadline (self->pending, p,
                                     zclock_usecs () + (int64_t) (self->cfg.bus.sync_timeout * 1e6));
        return;
    }
    simbus__envelope__free_unpacked (env, NULL);
}

/* Vision's end of a sync step, with its packets and physics' reply; takes
   env. */
static void
s_handle_frames_done (gw_service_t *self, Simbus__Envelope *env)
{
    const Simbus__FramesDone *done = env->frames_done;
    gw_request_t *p = gw_pending_find (self->pending, done->step_id);
    if (!p || p->kind != GW_REQ_SYNC) {
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    self->frames_dropped += gw_pending_keep_frames (p, done->wrapper, done->n_wrapper);
    p->frames_done = true;
    if (done->reply && done->reply->id == p->id)
        s_handle_reply (self, env, done->reply);
    else
        simbus__envelope__free_unpacked (env, NULL);
    if (p->used && p->reply)
        s_answer_sync (self, p);
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    gw_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_REPLY: {
        gw_request_t *p = gw_pending_find (self->pending, env->reply->id);
        s_handle_reply (self, env, env->reply);
        if (p && p->used && p->kind == GW_REQ_SYNC && p->frames_done && p->reply)
            s_answer_sync (self, p);
        return true;
    }
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        s_handle_frames_done (self, env);
        return true;
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
        return false;
    default:
        return false;
    }
}

/* A plain request physics did not answer in time: physics is down (a
   restart longer than the wait) or lost it. It may still be applied
   later; the client hears that it is not known to be. */
static void
s_answer_unavailable (gw_service_t *self, gw_request_t *p)
{
    self->unavailable++;
    if (self->unavailable == 1)
        sim_warn ("physics did not answer a request within %.1f s; answered UNAVAILABLE",
                  GW_PLAIN_TTL_US / 1e6);
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "UNAVAILABLE",
                    "the simulator did not answer within %.1f s; the request may or may not be applied",
                    GW_PLAIN_TTL_US / 1e6);
    s_answer_errors (self, p->port, &p->from, false, &errors);
}

/* A request whose deadline came: a sync step is answered (without frames
   if vision never reported), a plain one with UNAVAILABLE. Either way it
   is then released, so a late reply finds nothing: one answer each. */
static void
s_expired (void *arg, gw_request_t *p)
{
    gw_service_t *self = arg;
    int64_t now = zclock_usecs ();
    if (p->kind != GW_REQ_SYNC) {
        s_answer_unavailable (self, p);
        gw_pending_release (self->pending, p);
        return;
    }
    if (!p->reply && now < p->give_up_us && !sim_link_requests_read (self->link)) {
        /* physics may not even have read its requests (a starved
           machine): not vision's fault, so wait for physics */
        p->deadline_us = now + GW_RECHECK_US;
        return;
    }
    if (!self->warned_no_vision) {
        sim_warn ("vision did not report a sync step within %.3f s; answering without frames",
                  self->cfg.bus.sync_timeout);
        self->warned_no_vision = true;
    }
    s_answer_sync (self, p);
}

/* Every turn, after the input (a request that came in it may be due
   already): the requests whose deadline came. */
static void
s_on_turn (void *arg)
{
    gw_service_t *self = arg;
    self->expiry_us = gw_pending_expire (self->pending, zclock_usecs (), s_expired, self);
}

static int64_t
s_expiry (void *arg, int64_t now)
{
    gw_service_t *self = arg;
    (void) now;
    return self->expiry_us;
}

/* Stats for the bus (physics publishes them): every port's counters and
   its recent sources. */
static void
s_publish_stats (gw_service_t *self, int64_t now)
{
    Simbus__Stats st;
    sim_stats_begin (&st, "gateway", self->started_us);
    Simbus__PortStats ports[3], *port_ptrs[3];
    char text[3][GW_STAT_SOURCES][32];
    char *source_ptrs[3][GW_STAT_SOURCES];
    for (int i = 0; i < 3; i++) {
        gw_port_stats_t *s = &self->stats[i];
        simbus__port_stats__init (&ports[i]);
        ports[i].name = (char *) s_port_names[i];
        ports[i].port = (uint32_t) (self->fds[i] >= 0 ? sim_udp_local_port (self->fds[i]) : 0);
        ports[i].received = s->received;
        ports[i].refused = s->refused;
        ports[i].lost = s->lost;
        ports[i].has_rate = true;
        ports[i].rate = now > self->last_stats_us ? (double) (s->received - s->last_received) * 1e6
                                                        / (double) (now - self->last_stats_us)
                                                  : 0;
        s->last_received = s->received;
        ports[i].sources = source_ptrs[i];
        struct sockaddr_in recent[GW_STAT_SOURCES];
        int n = gw_sources_recent (self->sources, i, now - GW_SOURCE_SEEN_US, recent, GW_STAT_SOURCES);
        for (int k = 0; k < n; k++) {
            sim_udp_addr_str (&recent[k], text[i][k], sizeof text[i][k]);
            source_ptrs[i][k] = text[i][k];
        }
        ports[i].n_sources = (size_t) n;
        port_ptrs[i] = &ports[i];
    }
    self->last_stats_us = now;
    st.n_ports = 3;
    st.ports = port_ptrs;
    st.has_sync_round_trips = true;
    st.sync_round_trips = self->sync_answers;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}

/* ---- life ------------------------------------------------------------- */

/* sim_service_def_t's stop, and the undoing of a failed s_new. */
static void
s_destroy (void *arg)
{
    gw_service_t *self = arg;
    if (!self)
        return;
    gw_pending_destroy (&self->pending);
    gw_peers_destroy (&self->peers);
    gw_sources_destroy (&self->sources);
    gw_tournament_destroy (&self->tournament);
    sim_link_destroy (&self->link);
    for (int i = 0; i < 3; i++)
        if (self->fds[i] >= 0)
            close (self->fds[i]);
    free (self->buf);
    free (self);
}

static int
s_bind_ports (gw_service_t *self, const sim_config_t *cfg)
{
    const int bases[3] = { cfg->network.control_port, cfg->network.blue_port, cfg->network.yellow_port };
    /* --localhost keeps the protocol ports on this host too */
    const char *address = cfg->run.localhost ? "127.0.0.1" : cfg->network.bind_address;
    for (int i = 0; i < 3; i++) {
        int port = sim_config_port (cfg, bases[i]);
        self->fds[i] = sim_udp_bind (address, port);
        if (self->fds[i] < 0) {
            int why = errno;
            sim_error ("cannot bind the %s port %s:%d: %s%s", s_port_names[i], address, port, strerror (why),
                       why == EADDRINUSE ? " (another simulator or program has it: stop that, or start this "
                                           "one with --port-offset N, which moves every port by N)"
                                         : "");
            return -1;
        }
        self->ports[i] = (gw_port_t) { self, (gw_port_kind_t) i };
        if (sim_loop_add_fd (self->loop, s_port_names[i], self->fds[i], s_on_port, &self->ports[i]))
            return -1;
    }
    sim_info ("control %d, blue %d, yellow %d on %s", sim_udp_local_port (self->fds[0]),
              sim_udp_local_port (self->fds[1]), sim_udp_local_port (self->fds[2]), address);
    return 0;
}

static int64_t
s_on_stats_due (void *arg, int64_t deadline, int64_t now)
{
    s_publish_stats (arg, now);
    return sim_loop_period (deadline, GW_STATS_US, now);
}

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    gw_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->own = self->cfg = *cfg;
    self->fds[0] = self->fds[1] = self->fds[2] = -1;
    self->started_us = self->last_stats_us = zclock_usecs ();
    self->expiry_us = SIM_LOOP_NEVER;
    self->buf = malloc (SIM_UDP_MAX);
    self->pending = gw_pending_new (GW_PENDING_MAX);
    if (self->pending)
        gw_pending_set_quota (self->pending, GW_PORT_SHARE, GW_SOURCE_SHARE);
    self->peers = gw_peers_new (GW_PEERS, GW_PEER_IDLE_US);
    self->sources = gw_sources_new (3, GW_SOURCES);
    char why[256] = "";
    self->tournament = gw_tournament_new (&cfg->tournament, why, sizeof why);
    if (!self->tournament)
        sim_error ("tournament mode: %s", why);
    else if (gw_tournament_enabled (self->tournament)) {
        sim_info ("tournament mode: blue %s; yellow %s; control %s", cfg->tournament.blue,
                  cfg->tournament.yellow, cfg->tournament.control);
        if (cfg->run.legacy_grsim)
            sim_warn ("tournament mode does not cover the grSim port; set [run] legacy_grsim = false");
    }
    if (!self->buf || !self->pending || !self->peers || !self->sources || !self->tournament) {
        s_destroy (self);
        return NULL;
    }
    /* the sim time for the loss draws comes with every reply */
    self->link = sim_link_new (cfg, SIM_LINK_GATEWAY);
    if (!self->link || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES_DONE)
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self) || s_bind_ports (self, cfg)
        || sim_loop_add_tick (self->loop, "expiry", s_on_turn, self)
        || sim_loop_add_wake (self->loop, "expiry", s_expiry, self)
        || sim_loop_add_timer (self->loop, "stats", self->started_us + GW_STATS_US, s_on_stats_due, self)
               < 0) {
        s_destroy (self);
        return NULL;
    }
    return self;
}

void
gw_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_GATEWAY, s_new, s_destroy };
    sim_service_run (pipe, args, &def);
}
