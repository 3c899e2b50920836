/*  grs_service.c - the legacy-grsim service actor (protocol.md §9).

    grSim_Packet datagrams on the legacy port become bus requests (commands
    first, then replacements). Robots_Status goes to each team's legacy peer
    after every simulator instant that released vision frames, or once per
    sync step (state at the end of the step, protocol.md §8.5). Frames and
    snapshots arrive on different sockets, so a status waits until the
    snapshot of its instant is here: infrared is then the state of that
    instant, not an older one.
*/
#include "grs_service.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "common/base/sim_team.h"
#include "common/logs/sim_stats.h"
#include "common/bus/sim_udp.h"
#include "grSim_Packet.pb-c.h"
#include "grSim_Robotstatus.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"

#define GRS_KICK_FRAMES  10 /* protocol.md §9.5 */
#define GRS_MAX_COMMANDS 256

typedef struct {
    bool present;
    bool infrared;
    bool kicked, chip;
    uint64_t kick_counter;
    bool sent; /* last sent state is valid */
    bool sent_infrared, sent_flat, sent_chip;
} grs_robot_t;

typedef struct {
    sim_config_t own, cfg;
    uint64_t config_serial; /* of cfg, from physics; 0: none yet */
    char source[64];        /* --journal: the sender of the datagram being handled */
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    int fd;
    uint8_t *buf;
    uint64_t next_id;
    uint64_t frame_counter; /* released frames of any camera */
    uint64_t snapshot_ns;   /* time of the newest snapshot */
    bool have_snapshot;
    bool status_due; /* a Robots_Status is owed for status_due_ns */
    uint64_t status_due_ns;
    uint64_t step_frames; /* frames of the sync step in progress */
    bool have_peer[2];
    bool following; /* subscribed to snapshots, events, frames */
    struct sockaddr_in peer[2];
    grs_robot_t robots[2][SIM_MAX_ROBOT_ID + 1];
    uint64_t dropped; /* undecodable datagrams */
    uint64_t received, last_received;
    int64_t started_us, last_stats_us;
} grs_service_t;

/* Stats (sim_stats.h): the grSim port's datagrams and its peers. */
static void
s_publish_stats (grs_service_t *self)
{
    int64_t now = zclock_usecs ();
    Simbus__Stats st;
    sim_stats_begin (&st, "legacy-grsim", self->started_us);
    Simbus__PortStats port = SIMBUS__PORT_STATS__INIT, *ports[] = { &port };
    char text[2][48], *sources[2];
    port.name = (char *) "grsim";
    port.port = (uint32_t) (self->fd >= 0 ? sim_udp_local_port (self->fd) : 0);
    port.received = self->received;
    port.refused = self->dropped;
    port.has_rate = true;
    port.rate = now > self->last_stats_us ? (double) (self->received - self->last_received) * 1e6
                                                / (double) (now - self->last_stats_us)
                                          : 0;
    port.sources = sources;
    for (int team = 0; team < 2; team++)
        if (self->have_peer[team]) {
            sim_udp_addr_str (&self->peer[team], text[port.n_sources], sizeof text[0]);
            sources[port.n_sources] = text[port.n_sources];
            port.n_sources++;
        }
    st.n_ports = 1;
    st.ports = ports;
    self->last_received = self->received;
    self->last_stats_us = now;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STATS, &st);
    sim_link_send (self->link, &env);
}

static void
s_send_request (grs_service_t *self, Simbus__Request *req)
{
    req->id = self->next_id++;
    if (self->own.run.journal[0]) /* docs/logs.md: the journal names the sender */
        req->source = self->source;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, req);
    sim_link_send (self->link, &env);
}

/* Snapshots, events and frames matter only to a legacy peer's status;
   until the first grSim client speaks, not receiving them saves the cost
   of unpacking every snapshot and frame of a run that has no such client. */
static void
s_follow_world (grs_service_t *self)
{
    if (self->following)
        return;
    if (sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_EVENTS)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES_DONE))
        sim_error ("cannot follow the world; Robots_Status will not be sent");
    self->following = true;
}

static void
s_commands (grs_service_t *self, const GrSimCommands *cmds, const struct sockaddr_in *from)
{
    sim_team_t team = cmds->isteamyellow ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE;
    if (self->have_peer[team] && (self->peer[team].sin_addr.s_addr != from->sin_addr.s_addr))
        /* a new peer starts with a full status, like the first one did */
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++)
            self->robots[team][id].sent = false;
    self->peer[team] = *from;
    self->have_peer[team] = true;
    s_follow_world (self);
    const sim_robot_specs_t *spec = &self->cfg.team[team];
    size_t n = cmds->n_robot_commands < GRS_MAX_COMMANDS ? cmds->n_robot_commands : GRS_MAX_COMMANDS;
    RobotCommand items[GRS_MAX_COMMANDS];
    RobotCommand *ptrs[GRS_MAX_COMMANDS];
    RobotMoveCommand moves[GRS_MAX_COMMANDS];
    MoveLocalVelocity locals[GRS_MAX_COMMANDS];
    MoveWheelVelocity wheels[GRS_MAX_COMMANDS];
    for (size_t i = 0; i < n; i++) {
        const GrSimRobotCommand *g = cmds->robot_commands[i];
        RobotCommand *c = &items[i];
        robot_command__init (c);
        c->id = g->id > SIM_MAX_ROBOT_ID ? SIM_MAX_ROBOT_ID : g->id;
        robot_move_command__init (&moves[i]);
        if (g->wheelsspeed) {
            /* grSim's wheel1..4 run front-left, back-left, back-right,
               front-right; rad/s times the wheel radius gives m/s */
            double r = spec->drive.wheel_radius;
            move_wheel_velocity__init (&wheels[i]);
            wheels[i].front_right = (float) ((g->has_wheel4 ? g->wheel4 : 0) * r);
            wheels[i].back_right = (float) ((g->has_wheel3 ? g->wheel3 : 0) * r);
            wheels[i].back_left = (float) ((g->has_wheel2 ? g->wheel2 : 0) * r);
            wheels[i].front_left = (float) ((g->has_wheel1 ? g->wheel1 : 0) * r);
            moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_WHEEL_VELOCITY;
            moves[i].wheel_velocity = &wheels[i];
        } else {
            move_local_velocity__init (&locals[i]);
            locals[i].forward = g->veltangent;
            locals[i].left = g->velnormal;
            locals[i].angular = g->velangular;
            moves[i].command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
            moves[i].local_velocity = &locals[i];
        }
        c->move_command = &moves[i];
        double speed = hypot (g->kickspeedx, g->kickspeedz);
        if (speed > 1e-6 && isfinite (speed)) {
            c->has_kick_speed = c->has_kick_angle = true;
            c->kick_speed = (float) speed;
            c->kick_angle = (float) (atan2 (g->kickspeedz, g->kickspeedx) * 180.0 / M_PI);
        }
        if (g->spinner) {
            c->has_dribbler_speed = true;
            c->dribbler_speed = (float) spec->dribbler.max_speed_rpm;
        }
        ptrs[i] = c;
    }
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = n;
    rc.robot_commands = ptrs;
    Simbus__TeamControl tc = SIMBUS__TEAM_CONTROL__INIT;
    tc.team = (uint32_t) team;
    tc.control = &rc;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.team_control = &tc;
    s_send_request (self, &req);
}

static void
s_replacement (grs_service_t *self, const GrSimReplacement *rep)
{
    TeleportBall ball = TELEPORT_BALL__INIT;
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    if (rep->ball) {
        const GrSimBallReplacement *b = rep->ball;
        if (b->has_x && b->has_y) {
            ball.has_x = ball.has_y = true;
            ball.x = (float) b->x;
            ball.y = (float) b->y;
        }
        if (b->has_vx || b->has_vy) {
            ball.has_vx = ball.has_vy = true;
            ball.vx = (float) (b->has_vx ? b->vx : 0);
            ball.vy = (float) (b->has_vy ? b->vy : 0);
        }
        control.teleport_ball = &ball;
    }
    size_t n = rep->n_robots < GRS_MAX_COMMANDS ? rep->n_robots : GRS_MAX_COMMANDS;
    TeleportRobot items[GRS_MAX_COMMANDS];
    TeleportRobot *ptrs[GRS_MAX_COMMANDS];
    RobotId ids[GRS_MAX_COMMANDS];
    for (size_t i = 0; i < n; i++) {
        const GrSimRobotReplacement *r = rep->robots[i];
        robot_id__init (&ids[i]);
        ids[i].has_id = ids[i].has_team = true;
        ids[i].id = r->id > SIM_MAX_ROBOT_ID ? SIM_MAX_ROBOT_ID : r->id;
        ids[i].team = sim_team_league (sim_team_from_yellow (r->yellowteam));
        TeleportRobot *t = &items[i];
        teleport_robot__init (t);
        t->id = &ids[i];
        t->has_x = t->has_y = t->has_orientation = true;
        t->x = (float) r->x;
        t->y = (float) r->y;
        t->orientation = (float) (r->dir * M_PI / 180.0);
        t->has_v_x = t->has_v_y = t->has_v_angular = true;
        t->v_x = t->v_y = t->v_angular = 0;
        t->has_present = true;
        t->present = r->has_turnon ? r->turnon : true;
        ptrs[i] = t;
    }
    control.n_teleport_robot = n;
    control.teleport_robot = ptrs;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.simulator_command = &cmd;
    s_send_request (self, &req);
}

static void
s_on_udp (void *arg)
{
    grs_service_t *self = arg;
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in from;
        ssize_t n = sim_udp_recv (self->fd, self->buf, SIM_UDP_MAX, &from);
        if (n < 0)
            return;
        self->received++;
        if (self->own.run.journal[0]) {
            char addr[32];
            snprintf (self->source, sizeof self->source, "grSim port, %s",
                      sim_udp_addr_str (&from, addr, sizeof addr));
        }
        GrSimPacket *packet = n <= SIM_UDP_MAX ? gr_sim__packet__unpack (NULL, (size_t) n, self->buf) : NULL;
        if (!packet) {
            self->dropped++;
            sim_debug ("undecodable grSim packet dropped (%llu so far)", (unsigned long long) self->dropped);
            continue;
        }
        if (packet->commands)
            s_commands (self, packet->commands, &from);
        if (packet->replacement)
            s_replacement (self, packet->replacement);
        gr_sim__packet__free_unpacked (packet, NULL);
    }
}

/* Robots_Status for one team: the robots whose state changed since the
   last message to that team's peer (protocol.md §9.5). */
static void
s_send_status (grs_service_t *self, sim_team_t team)
{
    if (!self->have_peer[team])
        return;
    RobotStatus items[SIM_MAX_ROBOT_ID + 1];
    RobotStatus *ptrs[SIM_MAX_ROBOT_ID + 1];
    size_t n = 0;
    for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++) {
        grs_robot_t *r = &self->robots[team][id];
        if (!r->present)
            continue;
        bool kick = r->kicked && self->frame_counter - r->kick_counter < GRS_KICK_FRAMES;
        bool flat = kick && !r->chip, chip = kick && r->chip;
        if (r->sent && r->sent_infrared == r->infrared && r->sent_flat == flat && r->sent_chip == chip)
            continue;
        r->sent = true;
        r->sent_infrared = r->infrared;
        r->sent_flat = flat;
        r->sent_chip = chip;
        robot__status__init (&items[n]);
        items[n].robot_id = id;
        items[n].infrared = r->infrared;
        items[n].flat_kick = flat;
        items[n].chip_kick = chip;
        ptrs[n] = &items[n];
        n++;
    }
    if (n == 0)
        return;
    RobotsStatus status = ROBOTS__STATUS__INIT;
    status.n_robots_status = n;
    status.robots_status = ptrs;
    size_t len = robots__status__get_packed_size (&status);
    if (len > SIM_UDP_MAX)
        return;
    robots__status__pack (&status, self->buf);
    struct sockaddr_in to = self->peer[team];
    int base = team == SIM_TEAM_BLUE ? self->own.network.legacy_status_port_blue
                                     : self->own.network.legacy_status_port_yellow;
    to.sin_port = htons ((uint16_t) sim_config_port (&self->own, base));
    sim_udp_send (self->fd, self->buf, len, &to);
}

static void
s_on_snapshot (grs_service_t *self, const Simbus__Snapshot *msg)
{
    sim_snapshot_t snap;
    if (sim_bus_snapshot_decode (msg, &snap))
        return;
    if (!self->have_snapshot || snap.time_ns >= self->snapshot_ns)
        self->snapshot_ns = snap.time_ns;
    self->have_snapshot = true;
    for (int t = 0; t < 2; t++)
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++)
            self->robots[t][id].present = false;
    for (int i = 0; i < snap.robot_count; i++) {
        const sim_robot_state_t *r = &snap.robots[i];
        self->robots[r->team][r->id].present = true;
        self->robots[r->team][r->id].infrared = r->ball_contact;
    }
}

static void
s_on_events (grs_service_t *self, const Simbus__Events *msg)
{
    for (size_t i = 0; i < msg->n_events; i++) {
        sim_event_t e;
        if (sim_bus_event_decode (msg->events[i], &e) || e.kind != SIM_EVENT_KICK || e.team < 0 || e.id < 0)
            continue;
        grs_robot_t *r = &self->robots[e.team][e.id];
        r->kicked = true;
        r->chip = e.elevation_deg > 0.001;
        r->kick_counter = self->frame_counter;
    }
}

/* Send the owed Robots_Status once the world state of its instant is
   known. */
static void
s_flush_status (grs_service_t *self)
{
    if (!self->status_due || !self->have_snapshot || self->snapshot_ns < self->status_due_ns)
        return;
    self->status_due = false;
    s_send_status (self, SIM_TEAM_BLUE);
    s_send_status (self, SIM_TEAM_YELLOW);
}

static void
s_status_due (grs_service_t *self, uint64_t time_ns)
{
    if (!self->status_due || time_ns > self->status_due_ns)
        self->status_due_ns = time_ns;
    self->status_due = true;
}

static void
s_on_frames (grs_service_t *self, const Simbus__Frames *frames)
{
    if (frames->n_wrapper == 0)
        return;
    /* every released frame of every camera ticks the kick counter */
    self->frame_counter += frames->n_wrapper;
    if (frames->has_step_id)
        self->step_frames += frames->n_wrapper; /* status at the end of the step */
    else
        s_status_due (self, frames->time_ns);
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    grs_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT:
        s_on_snapshot (self, env->snapshot);
        break;
    case SIMBUS__ENVELOPE__BODY_EVENTS:
        s_on_events (self, env->events);
        break;
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
        s_publish_stats (self); /* physics re-publishes it each second: no timer of our own */
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES:
        s_on_frames (self, env->frames);
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        if (self->step_frames > 0)
            s_status_due (self, env->frames_done->time_ns);
        self->step_frames = 0;
        break;
    default:
        break; /* replies: no reply channel, errors are only counted by physics */
    }
    return false;
}

/* After the bus input of a turn: the owed status, once its snapshot is here. */
static void
s_on_turn (void *arg)
{
    s_flush_status (arg);
}

/* sim_service_def_t's stop, and the undoing of a failed s_new. */
static void
s_destroy (void *arg)
{
    grs_service_t *self = arg;
    if (!self)
        return;
    sim_link_destroy (&self->link);
    if (self->fd >= 0)
        close (self->fd);
    free (self->buf);
    free (self);
}

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    grs_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->own = self->cfg = *cfg;
    self->next_id = 1;
    self->fd = -1;
    self->started_us = self->last_stats_us = zclock_usecs ();
    self->buf = malloc (SIM_UDP_MAX);
    self->link = sim_link_new (cfg, SIM_LINK_LEGACY);
    if (!self->buf || !self->link || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)) {
        s_destroy (self);
        return NULL;
    }
    int port = sim_config_port (cfg, cfg->network.legacy_port);
    /* --localhost keeps the protocol ports on this host; an empty
       legacy_bind_address follows the gateway's ports */
    const char *address = cfg->run.localhost                  ? "127.0.0.1"
                        : cfg->network.legacy_bind_address[0] ? cfg->network.legacy_bind_address
                                                              : cfg->network.bind_address;
    self->fd = sim_udp_bind (address, port);
    if (self->fd < 0) {
        int why = errno;
        sim_error ("cannot bind the legacy port %s:%d: %s%s", address, port, strerror (why),
                   why == EADDRINUSE ? " (another simulator or grSim has it: stop that, start this one with "
                                       "--port-offset N, or without the grSim port: --no-legacy-grsim)"
                                     : "");
        s_destroy (self);
        return NULL;
    }
    if (sim_loop_add_fd (self->loop, "grSim", self->fd, s_on_udp, self)
        || sim_loop_add_tick (self->loop, "status", s_on_turn, self)) {
        s_destroy (self);
        return NULL;
    }
    sim_info ("grSim packets on %s:%d", address, sim_udp_local_port (self->fd));
    return self;
}

void
grs_service_actor (zsock_t *pipe, void *args)
{
    /* everything here follows input: no timer */
    static const sim_service_def_t def = { SIM_SERVICE_LEGACY, s_new, s_destroy };
    sim_service_run (pipe, args, &def);
}
