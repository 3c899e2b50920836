/*  gateway.c - the gateway service actor (protocol.md §1-§7).

    Every datagram on the control, blue and yellow ports becomes one bus
    request to physics (gw_translate), remembered in the pending table
    (gw_pending) with the datagram's source address, and the reply goes
    back to that address from the same socket (gw_answers). A sync step's
    reply comes with vision's end of the step, which carries the step's
    frames (sim_link.h), and the answer is assembled from both (gw_sync);
    without vision, physics answers itself and the gateway answers without
    frames after [bus] sync_timeout. Choices where the spec is open:
    docs/protocol.md.

    Every datagram gets exactly one answer (or, for a RobotControl, the
    configured loss, gw_loss): what physics does not answer in time is
    answered with an error, and a late reply then finds nothing. What the
    gateway forwards is what it decoded (gw_strip), each port and source
    may hold only its share of the pending table (gw_fairness), sync
    steps go to physics one at a time, the waiting ones in turn by source
    (gw_pace), and a source that is not trusted (not on loopback, in
    [tournament] or in [network] trusted_sources) gets answers of at most
    three times its request's bytes (sim_trust, gw_answers). In tournament
    mode (gw_gate) a port answers only its own addresses, and everyone
    else hears FORBIDDEN. In realtime the replies to RobotControls may
    wait for the next turn instead of waking the gateway (gw_defer). The log's lines
    about clients: gw_clientlog; Stats: gw_stats.

    This file is the actor: the handlers of the ports and the bus, the
    loop's timers, and its life (sim_service_run owns the pipe); its state
    is in gateway_internal.h.
*/
#include "gateway.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "gateway_internal.h"
#include "gw_answers.h"
#include "gw_clientlog.h"
#include "gw_defer.h"
#include "gw_fairness.h"
#include "gw_gate.h"
#include "gw_sync.h"
#include "gw_translate.h"
#include "common/bus/sim_bus_codec.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "common/logs/sim_stats.h"
#include "common/bus/sim_udp.h"

#define GW_SYNC_WAIT_US   2000000 /* sync: longest wait for physics to read its requests */
#define GW_SUBSTEP_TTL_US 20      /* extra wait for physics per requested substep */
#define GW_BURST          64      /* datagrams read per port per loop turn */
#define GW_RECHECK_US     10000   /* look again whether physics read its requests */

static void
s_send_request (gw_service_t *self, Simbus__Request *req)
{
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, req);
    sim_link_send (self->link, &env);
}

/* ---- datagrams -------------------------------------------------------- */

static void
s_start_sync (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
              SimulationSyncRequest *sync)
{
    if (gw_gate_refuses (self, port, from, true))
        return;
    gw_clientlog_changes (self, port, from, sync->simulator_command);
    if (!self->cfg.network.sync_takeover && self->cfg.run.mode != SIM_MODE_SYNC) {
        gw_answer_refused (self, port, from);
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
        gw_fairness_answer_busy (self, port, from, true);
        return;
    }
    p->give_up_us = now + step_us + GW_SYNC_WAIT_US;
    p->answer_cap = self->rx_cap;
    self->sync_running = p->id;
    gw_bus_request_t out;
    p->team_robot_control = gw_translate_sync (&out, p->id, port, sync, n, step_why, p->early);
    char source[64];
    gw_clientlog_source (self, &out.req, port, from, source, sizeof source);
    s_send_request (self, &out.req);
}

/* Whether the sync step last sent to physics still waits for its answer. */
static bool
s_sync_running (gw_service_t *self)
{
    return self->sync_running && gw_pending_find (self->pending, self->sync_running);
}

/* When no sync step runs, the next waiting one goes (gw_pace): decoded
   again from its copy, answered within its source's cap. */
static void
s_sync_turn (gw_service_t *self)
{
    gw_pace_item_t next;
    while (!s_sync_running (self) && gw_pace_next (self->pace, &next)) {
        gw_datagram_t d;
        if (gw_translate_decode (&d, next.port, next.data, next.len) == GW_DATAGRAM_SYNC) {
            self->rx_us = zclock_usecs ();
            self->rx_cap = next.cap;
            self->rx_first = false;
            s_start_sync (self, next.port, &next.from, d.sync);
        }
        gw_translate_release (&d);
        free (next.data);
    }
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
        gw_fairness_answer_busy (self, port, from, false);
        return;
    }
    p->answer_cap = self->rx_cap;
    p->first = self->rx_first;
    gw_bus_request_t out;
    gw_translate_plain (&out, p->id, port, cmd, rc);
    /* the wall clock vision compares with for the command->vision latency
       (sim_stats.h; zclock_usecs is monotonic), and the arrival at which
       physics applies a request it reads later (phys_defer.h) */
    out.req.has_received_us = true;
    out.req.received_us = sim_stats_wall_us ();
    char source[64];
    gw_clientlog_source (self, &out.req, port, from, source, sizeof source);
    /* a command is handed to physics again until answered (gw_pending.h);
       a RobotControl is not: the team's next one supersedes it, and an
       old one handed over late would undo it */
    if (cmd)
        gw_pending_keep_request (self->pending, p, &out.req, self->rx_us, self->rx_us + GW_PLAIN_TTL_US);
    s_send_request (self, &out.req);
}

/* A command still unanswered: to physics again (a killed physics' successor
   applies it unless its predecessor did, SIM_BUS_ID_ONCE). */
static void
s_resend (gw_service_t *self, const gw_request_t *p)
{
    Simbus__Request *req = simbus__request__unpack (NULL, p->resend_len, p->resend);
    if (!req)
        return;
    s_send_request (self, req);
    simbus__request__free_unpacked (req, NULL);
}

static void
s_resend_kept (void *arg, gw_request_t *p)
{
    s_resend (arg, p);
}

static void
s_handle_datagram (gw_service_t *self, gw_port_kind_t port, size_t len, const struct sockaddr_in *from)
{
    gw_datagram_t d;
    gw_translate_decode (&d, port, self->buf, len);
    if (d.stripped) {
        self->stripped += d.stripped;
        sim_debug ("%zu unknown fields dropped from a %s", d.stripped, d.msg->descriptor->short_name);
    }
    switch (d.kind) {
    case GW_DATAGRAM_SYNC:
        /* one sync step at physics at a time, the others in turn (gw_pace) */
        if (!s_sync_running (self) && gw_pace_count (self->pace) == 0)
            s_start_sync (self, port, from, d.sync);
        else if (gw_pace_wait (self->pace, port, from, self->buf, len, self->rx_cap, self->rx_us))
            gw_fairness_answer_busy (self, port, from, true);
        break;
    case GW_DATAGRAM_COMMAND:
        gw_clientlog_changes (self, port, from, d.command);
        s_start_plain (self, port, from, d.command, NULL);
        break;
    case GW_DATAGRAM_ROBOTS:
        /* a client's first command and its answer are never lost: the
           check a team makes at start meets a working link (docs/protocol.md) */
        if (!self->rx_first
            && gw_loss_draw (&self->loss, self->cfg.sim.seed, self->sim_time_ns, port,
                             self->cfg.realism.robot_command_loss)) {
            self->lost_commands++;
            self->stats[port].lost++;
        } else
            s_start_plain (self, port, from, NULL, d.robots);
        break;
    case GW_DATAGRAM_UNREADABLE:
        gw_answer_unreadable (self, port, from);
        break;
    }
    gw_translate_release (&d);
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
        self->rx_cap = sim_trust_cap (self->trust, &from, (size_t) n);
        self->rx_first = gw_sources_arrived (self->sources, port->kind, &from, self->rx_us);
        if (self->rx_first)
            gw_clientlog_new_source (self, port->kind, &from);
        self->stats[port->kind].received++;
        /* before anything is decoded: a refused datagram takes no pending
           slot and never reaches physics */
        if (gw_gate_refuses (self, port->kind, &from, false))
            continue;
        if (n > SIM_UDP_MAX)
            gw_answer_unreadable (self, port->kind, &from); /* truncated */
        else
            s_handle_datagram (self, port->kind, (size_t) n, &from);
    }
}

/* ---- the bus ---------------------------------------------------------- */

/* physics' reply, on its own or (a sync step) inside vision's end of the
   step `env`; takes env. */
static void
s_handle_reply (gw_service_t *self, Simbus__Envelope *env, const Simbus__Reply *reply)
{
    if (reply->time_ns > self->sim_time_ns)
        self->sim_time_ns = reply->time_ns;
    gw_request_t *p = gw_pending_find (self->pending, reply->id);
    if (p && p->kind != GW_REQ_SYNC) {
        gw_answer_plain (self, p, reply);
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
        gw_answer_sync (self, p);
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
            gw_answer_sync (self, p);
        return true;
    }
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        s_handle_frames_done (self, env);
        return true;
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
        /* physics speaks (a restarted one first of all): the commands a
           killed one left unanswered go to it now, not at the next
           hand-over, which may come after the last (gw_pending.h) */
        gw_pending_each_kept (self->pending, zclock_usecs () - GW_RESEND_FIRST_US, s_resend_kept, self);
        return false;
    default:
        return false;
    }
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
        if (gw_pending_resend_due (p, now)) {
            s_resend (self, p);
            return;
        }
        gw_answer_unavailable (self, p);
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
        sim_warn ("%s did not report a sync step within %.3f s; answering without frames",
                  sim_service_names[SIM_SERVICE_VISION], self->cfg.bus.sync_timeout);
        self->warned_no_vision = true;
    }
    gw_answer_sync (self, p);
}

/* Every turn, after the input (a request that came in it may be due
   already): the requests whose deadline came, and the next sync step
   when none runs. */
static void
s_on_turn (void *arg)
{
    gw_service_t *self = arg;
    /* a step answered (or expired) here lets the next waiting one go,
       whose deadline then counts too */
    for (;;) {
        self->expiry_us = gw_pending_expire (self->pending, zclock_usecs (), s_expired, self);
        if (s_sync_running (self) || gw_pace_count (self->pace) == 0)
            return;
        s_sync_turn (self);
    }
}

/* The next wait ends at the earliest deadline, or sooner for replies
   left on a quiet lane (gw_defer). */
static int64_t
s_expiry (void *arg, int64_t now)
{
    gw_service_t *self = arg;
    int64_t until = gw_defer_plan (self, now);
    return until < self->expiry_us ? until : self->expiry_us;
}

/* After each wait, before the ports: the replies a quiet lane kept. */
static void
s_on_wake (void *arg)
{
    gw_defer_catch_up (arg);
}

/* Stats for the bus (gw_stats). */
static int64_t
s_on_stats_due (void *arg, int64_t deadline, int64_t now)
{
    gw_stats_publish (arg, now);
    return sim_loop_period (deadline, GW_STATS_US, now);
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
    sim_trust_destroy (&self->trust);
    gw_pace_destroy (&self->pace);
    gw_sources_destroy (&self->sources);
    sim_tournament_destroy (&self->tournament);
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
            sim_error ("cannot bind the %s port %s:%d: %s%s", gw_port_name ((gw_port_kind_t) i), address,
                       port, strerror (why),
                       why == EADDRINUSE ? " (another simulator or program has it: stop that, or start this "
                                           "one with --port-offset N, which moves every port by N)"
                                         : "");
            return -1;
        }
        self->ports[i] = (gw_port_t) { self, (gw_port_kind_t) i };
        if (sim_loop_add_fd (self->loop, gw_port_name ((gw_port_kind_t) i), self->fds[i], s_on_port,
                             &self->ports[i]))
            return -1;
    }
    sim_info ("control %d, blue %d, yellow %d on %s", sim_udp_local_port (self->fds[0]),
              sim_udp_local_port (self->fds[1]), sim_udp_local_port (self->fds[2]), address);
    return 0;
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
    self->pending = gw_fairness_pending_new ();
    self->sources = gw_sources_new (3, GW_SOURCES);
    self->tournament = gw_gate_new (cfg);
    char why[256] = "";
    self->trust = sim_trust_new (cfg, why, sizeof why);
    if (!self->trust)
        sim_error ("trusted sources: %s", why);
    self->pace = gw_fairness_pace_new ();
    if (!self->buf || !self->pending || !self->trust || !self->pace || !self->sources || !self->tournament) {
        s_destroy (self);
        return NULL;
    }
    /* the sim time for the loss draws comes with every reply */
    self->link = sim_link_new (cfg, SIM_LINK_GATEWAY);
    if (!self->link || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES_DONE)
        || sim_loop_add_first (self->loop, "replies", s_on_wake, self)
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
