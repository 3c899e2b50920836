/*  gw_clientlog.c - the gateway's lines about its clients and the journal's
    sender names (see gw_clientlog.h). */
#include "gw_clientlog.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gateway_internal.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_udp.h"

void
gw_clientlog_new_source (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
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
              gw_port_name (port));
}

void
gw_clientlog_changes (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from,
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
    sim_info ("%s on the %s port asks to change %s", sim_udp_addr_str (from, a, sizeof a),
              gw_port_name (port), what + 2);
}

void
gw_clientlog_source (const gw_service_t *self, Simbus__Request *req, gw_port_kind_t port,
                     const struct sockaddr_in *from, char *buf, size_t size)
{
    if (!self->own.run.journal[0])
        return;
    char addr[32];
    snprintf (buf, size, "%s port, %s", gw_port_name (port), sim_udp_addr_str (from, addr, sizeof addr));
    req->source = buf;
}
