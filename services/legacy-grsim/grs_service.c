/*  grs_service.c - the legacy-grsim service actor (protocol.md §9): the
    loop, the handler table and life.

    grSim_Packet datagrams on the legacy port, read as grSim reads them
    (grs_wire), become bus requests, commands first, then replacements
    (grs_translate), each only from the addresses
    tournament mode allows it (grs_gate); the sender of a team's
    commands becomes that team's peer for Robots_Status, which follows the
    world on the bus, within 3x the commands' bytes for a peer that is not
    trusted (grs_status, sim_trust); Stats go out with each configuration
    physics publishes (grs_stats).
*/
#include "grs_service.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grs_gate.h"
#include "grs_service_internal.h"
#include "grs_stats.h"
#include "grs_status.h"
#include "grs_translate.h"
#include "grs_wire.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_udp.h"
#include "common/config/config.h"
#include "grSim_Packet.pb-c.h"

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

/* A team's commands: their sender is the team's peer, and physics gets
   them as the team's RobotControl (in tournament mode, only from the
   team's addresses). */
static void
s_commands (grs_service_t *self, const GrSimCommands *cmds, const struct sockaddr_in *from, size_t len)
{
    sim_team_t team = grs_translate_team (cmds);
    if (grs_gate_refuses (self, team == SIM_TEAM_YELLOW ? SIM_ROLE_YELLOW : SIM_ROLE_BLUE, from))
        return;
    grs_status_peer (self, team, from, len);
    grs_translate_commands (&self->commands, cmds, &self->cfg);
    s_send_request (self, &self->commands.req);
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
        GrSimPacket *packet = n <= SIM_UDP_MAX ? grs_wire_unpack (self->buf, (size_t) n) : NULL;
        if (!packet) {
            self->dropped++;
            sim_debug ("undecodable grSim packet dropped (%llu so far)", (unsigned long long) self->dropped);
            continue;
        }
        if (packet->commands)
            s_commands (self, packet->commands, &from, (size_t) n);
        if (packet->replacement && !grs_gate_refuses (self, SIM_ROLE_CONTROL, &from)) {
            grs_translate_replacement (&self->replacement, packet->replacement);
            s_send_request (self, &self->replacement.req);
        }
        gr_sim__packet__free_unpacked (packet, NULL);
    }
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    grs_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT:
        grs_status_on_snapshot (self, env->snapshot);
        break;
    case SIMBUS__ENVELOPE__BODY_EVENTS:
        grs_status_on_events (self, env->events);
        break;
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        sim_bus_config_decode (env->config, &self->own, &self->cfg, &self->config_serial);
        grs_stats_publish (self); /* physics re-publishes it each second: no timer of our own */
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES:
        grs_status_on_frames (self, env->frames);
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        grs_status_on_frames_done (self, env->frames_done);
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
    grs_status_flush (arg);
}

/* sim_service_def_t's stop, and the undoing of a failed s_new. */
static void
s_destroy (void *arg)
{
    grs_service_t *self = arg;
    if (!self)
        return;
    sim_link_destroy (&self->link);
    sim_tournament_destroy (&self->tournament);
    sim_trust_destroy (&self->trust);
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
    self->tournament = grs_gate_new (cfg);
    char refusal[256] = "";
    self->trust = sim_trust_new (cfg, refusal, sizeof refusal);
    if (!self->trust)
        sim_error ("%s", refusal);
    if (!self->buf || !self->link || !self->tournament || !self->trust
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
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
