/*  sim_route.h - where ssl-sim's UDP streams (vision, truth, the referee)
    go and are heard under a configuration: the one rule the vision
    service sends by and `ssl-sim record`, `play`, `stats --listen` and
    vision's --record listen or send by, so a recorder hears exactly what
    the simulator sends.

    The rule (docs/league-tools.md "Everything on one machine", the port
    offset in docs/operations.md section 2):
    - every port is moved by [network] port_offset (sim_config_port);
    - without --localhost an address is used as configured: a group is
      joined and sent to on [network] multicast_interface;
    - with --localhost nothing goes by or is joined on any interface but
      the loopback one: vision and truth go as unicast to 127.0.0.1
      ([network] local_vision = unicast, the default: what a client bound
      to 127.0.0.1 or 0.0.0.0 receives, one program) or to their group
      through the loopback interface (local_vision = multicast: every
      program bound to the port on 0.0.0.0 or the group, joined or not);
      the referee, a game controller's multicast, keeps its group on the
      loopback interface; a unicast address becomes 127.0.0.1.
*/
#ifndef SIM_ROUTE_H_INCLUDED
#define SIM_ROUTE_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>

#include "common/config/sim_config.h"

typedef enum {
    SIM_ROUTE_NETWORK,       /* as configured: a group on multicast_interface, or a unicast host */
    SIM_ROUTE_LOCAL_UNICAST, /* --localhost: unicast to 127.0.0.1 */
    SIM_ROUTE_LOCAL_GROUP,   /* --localhost: the group through the loopback interface only */
} sim_route_way_t;

typedef struct {
    struct sockaddr_in addr; /* the port moved by the offset */
    sim_route_way_t way;
    struct in_addr group; /* the configured group (a multicast address), or 0 */
    /* the interface a group is joined on or sent by: "127.0.0.1" in local
       mode, else [network] multicast_interface ("" = the system's choice);
       borrowed from the configuration or static */
    const char *iface;
} sim_route_t;

/* Vision at [run] vision_addr and truth on the same host at [network]
   truth_port. Returns 0, or -1 when vision_addr is not HOST:PORT. */
int sim_route_vision (const sim_config_t *cfg, sim_route_t *vision, sim_route_t *truth);

/* The referee at [network] referee_addr. 0, or -1 (not HOST:PORT). */
int sim_route_referee (const sim_config_t *cfg, sim_route_t *out);

/* Another vision stream's address a command is given (`stats
   --listen`), by vision's rule: 0, or -1 (not HOST:PORT). */
int sim_route_addr (const sim_config_t *cfg, const char *hostport, sim_route_t *out);

/* For a sender: a group on the network that no interface routes (a host
   or container with only lo, and no multicast_interface) is sent through
   the loopback interface instead, where every listener on this machine
   hears it (sim_udp_listen joins there too). Returns true when the route
   changed (for the caller to say so). */
bool sim_route_unrouted_to_lo (sim_route_t *route);

/* A non-blocking listener of the route (sim_udp_listen on its address and
   interface). Returns the fd, or -1 with errno set. */
int sim_route_listen (const sim_route_t *route);

/* Which local programs receive what is sent by `route`, and how to reach
   the others: one sentence for the log, into buf. */
const char *sim_route_receivers (const sim_route_t *route, char *buf, size_t len);

#endif
