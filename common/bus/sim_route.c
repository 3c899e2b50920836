/*  sim_route.c - where the UDP streams go and are heard (sim_route.h). */
#include "sim_route.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "sim_udp.h"
#include "common/config/config.h"

/* `hostport` by the rule; `local_group`: how --localhost carries a group
   (SIM_ROUTE_LOCAL_GROUP, or SIM_ROUTE_LOCAL_UNICAST for unicast to
   127.0.0.1). */
static int
s_route (const sim_config_t *cfg, const char *hostport, sim_route_way_t local_group, sim_route_t *out)
{
    memset (out, 0, sizeof *out);
    if (sim_udp_parse_addr (hostport, &out->addr))
        return -1;
    out->addr.sin_port = htons ((uint16_t) sim_config_port (cfg, ntohs (out->addr.sin_port)));
    bool group = IN_MULTICAST (ntohl (out->addr.sin_addr.s_addr));
    if (group)
        out->group = out->addr.sin_addr;
    out->way = SIM_ROUTE_NETWORK;
    out->iface = cfg->network.multicast_interface;
    if (cfg->run.localhost) {
        out->way = group ? local_group : SIM_ROUTE_LOCAL_UNICAST;
        out->iface = "127.0.0.1";
        if (out->way == SIM_ROUTE_LOCAL_UNICAST)
            out->addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    }
    return 0;
}

/* How --localhost carries vision's group: [network] local_vision. */
static sim_route_way_t
s_local_vision (const sim_config_t *cfg)
{
    return cfg->network.local_vision == SIM_LOCAL_MULTICAST ? SIM_ROUTE_LOCAL_GROUP : SIM_ROUTE_LOCAL_UNICAST;
}

int
sim_route_vision (const sim_config_t *cfg, sim_route_t *vision, sim_route_t *truth)
{
    if (s_route (cfg, cfg->run.vision_addr, s_local_vision (cfg), vision))
        return -1;
    *truth = *vision;
    truth->addr.sin_port = htons ((uint16_t) sim_config_port (cfg, cfg->network.truth_port));
    return 0;
}

int
sim_route_referee (const sim_config_t *cfg, sim_route_t *out)
{
    return s_route (cfg, cfg->network.referee_addr, SIM_ROUTE_LOCAL_GROUP, out);
}

int
sim_route_addr (const sim_config_t *cfg, const char *hostport, sim_route_t *out)
{
    return s_route (cfg, hostport, s_local_vision (cfg), out);
}

bool
sim_route_unrouted_to_lo (sim_route_t *route)
{
    if (route->way != SIM_ROUTE_NETWORK || !route->group.s_addr || route->iface[0]
        || sim_udp_routable (&route->addr))
        return false;
    route->way = SIM_ROUTE_LOCAL_GROUP;
    route->iface = "127.0.0.1";
    return true;
}

int
sim_route_listen (const sim_route_t *route)
{
    return sim_udp_listen (&route->addr, route->iface);
}

const char *
sim_route_receivers (const sim_route_t *route, char *buf, size_t len)
{
    char g[INET_ADDRSTRLEN] = "", a[INET_ADDRSTRLEN] = "";
    inet_ntop (AF_INET, &route->group, g, sizeof g);
    inet_ntop (AF_INET, &route->addr.sin_addr, a, sizeof a);
    unsigned port = ntohs (route->addr.sin_port);
    switch (route->way) {
    case SIM_ROUTE_LOCAL_UNICAST:
        if (route->group.s_addr)
            snprintf (buf, len,
                      "one program on this machine bound to 127.0.0.1:%u or 0.0.0.0:%u receives it, one "
                      "bound to %s:%u or joined to %s does not; for several local listeners and group "
                      "members: --local-multicast ([network] local_vision = multicast)",
                      port, port, g, port, g);
        else
            snprintf (buf, len, "one program on this machine bound to 127.0.0.1:%u or 0.0.0.0:%u receives it",
                      port, port);
        break;
    case SIM_ROUTE_LOCAL_GROUP:
        snprintf (buf, len,
                  "every program on this machine bound to 0.0.0.0:%u or %s:%u receives it, joined to %s or "
                  "not; one bound to 127.0.0.1:%u does not (for it: --localhost without "
                  "--local-multicast)",
                  port, g, port, g, port);
        break;
    case SIM_ROUTE_NETWORK:
        if (route->group.s_addr)
            snprintf (buf, len,
                      "programs on the network (this machine included) that join %s and bind port %u "
                      "receive it; for this machine only: --localhost",
                      g, port);
        else
            snprintf (buf, len, "the program bound to port %u at %s receives it", port, a);
        break;
    }
    return buf;
}
