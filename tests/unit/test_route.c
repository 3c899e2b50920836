/*  test_route.c - common/bus/sim_route: where vision, truth and the
    referee go and are heard, by the rules of docs/league-tools.md
    ("Everything on one machine") and docs/operations.md (the port
    offset). Addresses are IP literals: no name is resolved. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/bus/sim_route.h"
#include "common/config/config.h"

static void
s_expect (const sim_route_t *r, const char *ip, int port, sim_route_way_t way, const char *iface)
{
    char a[INET_ADDRSTRLEN];
    inet_ntop (AF_INET, &r->addr.sin_addr, a, sizeof a);
    cr_expect_str_eq (a, ip);
    cr_expect_eq (ntohs (r->addr.sin_port), port, "%s: port %d, not %d", ip, ntohs (r->addr.sin_port), port);
    cr_expect_eq (r->way, way, "%s:%d: way %d, not %d", ip, port, r->way, way);
    cr_expect_str_eq (r->iface, iface);
}

Test (route, the_defaults_send_to_the_groups_on_the_system_interface)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    sim_route_t v, t, ref;
    cr_assert_eq (sim_route_vision (&cfg, &v, &t), 0);
    cr_assert_eq (sim_route_referee (&cfg, &ref), 0);
    s_expect (&v, "224.5.23.2", 10020, SIM_ROUTE_NETWORK, "");
    s_expect (&t, "224.5.23.2", 10010, SIM_ROUTE_NETWORK, "");
    s_expect (&ref, "224.5.23.1", 10003, SIM_ROUTE_NETWORK, "");
}

Test (route, localhost_sends_vision_and_truth_by_unicast_to_127_0_0_1)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.localhost = true;
    sim_route_t v, t, ref;
    cr_assert_eq (sim_route_vision (&cfg, &v, &t), 0);
    cr_assert_eq (sim_route_referee (&cfg, &ref), 0);
    s_expect (&v, "127.0.0.1", 10020, SIM_ROUTE_LOCAL_UNICAST, "127.0.0.1");
    s_expect (&t, "127.0.0.1", 10010, SIM_ROUTE_LOCAL_UNICAST, "127.0.0.1");
    /* the game controller's group is heard on lo only */
    s_expect (&ref, "224.5.23.1", 10003, SIM_ROUTE_LOCAL_GROUP, "127.0.0.1");
    char who[512];
    cr_expect (
        strstr (sim_route_receivers (&v, who, sizeof who), "bound to 127.0.0.1:10020 or 0.0.0.0:10020"), "%s",
        who);
}

Test (route, local_multicast_keeps_the_group_on_the_loopback_interface)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.localhost = true;
    cfg.network.local_vision = SIM_LOCAL_MULTICAST;
    sim_route_t v, t;
    cr_assert_eq (sim_route_vision (&cfg, &v, &t), 0);
    s_expect (&v, "224.5.23.2", 10020, SIM_ROUTE_LOCAL_GROUP, "127.0.0.1");
    s_expect (&t, "224.5.23.2", 10010, SIM_ROUTE_LOCAL_GROUP, "127.0.0.1");
    char who[512];
    cr_expect (strstr (sim_route_receivers (&v, who, sizeof who), "one bound to 127.0.0.1:10020 does not"),
               "%s", who);
    /* a unicast vision_addr stays on this machine too */
    snprintf (cfg.run.vision_addr, sizeof cfg.run.vision_addr, "10.1.2.3:10006");
    cr_assert_eq (sim_route_vision (&cfg, &v, &t), 0);
    s_expect (&v, "127.0.0.1", 10006, SIM_ROUTE_LOCAL_UNICAST, "127.0.0.1");
}

Test (route, the_offset_moves_every_port_given_or_default)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.network.port_offset = 1000;
    snprintf (cfg.run.vision_addr, sizeof cfg.run.vision_addr, "224.5.23.2:10006");
    snprintf (cfg.network.multicast_interface, sizeof cfg.network.multicast_interface, "10.0.0.7");
    sim_route_t v, t, ref, listen;
    cr_assert_eq (sim_route_vision (&cfg, &v, &t), 0);
    cr_assert_eq (sim_route_referee (&cfg, &ref), 0);
    cr_assert_eq (sim_route_addr (&cfg, "224.5.23.2:10020", &listen), 0);
    s_expect (&v, "224.5.23.2", 11006, SIM_ROUTE_NETWORK, "10.0.0.7");
    s_expect (&t, "224.5.23.2", 11010, SIM_ROUTE_NETWORK, "10.0.0.7");
    s_expect (&ref, "224.5.23.1", 11003, SIM_ROUTE_NETWORK, "10.0.0.7");
    s_expect (&listen, "224.5.23.2", 11020, SIM_ROUTE_NETWORK, "10.0.0.7");
    cr_expect_eq (sim_config_port (&cfg, 8082), 9082);
}

Test (route, a_bad_address_is_refused)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    sim_route_t r;
    cr_expect_eq (sim_route_addr (&cfg, "224.5.23.2", &r), -1);
    cr_expect_eq (sim_route_addr (&cfg, ":10020", &r), -1);
    cr_expect_eq (sim_route_addr (&cfg, "224.5.23.2:99999", &r), -1);
}

Test (route, an_offset_that_moves_a_given_port_past_65535_is_refused)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256] = "";
    cr_assert_eq (sim_config_load_string (&cfg,
                                          "[network]\nreferee_addr = 224.5.23.1:65000\nport_offset = 600\n",
                                          "t.ini", err, sizeof err),
                  0, "%s", err);
    cr_assert_eq (sim_config_validate (&cfg, err, sizeof err), -1);
    cr_expect (strstr (err, "port_offset 600 moves port 65000 of [network] referee_addr"), "%s", err);
}

/* A --localhost listener of the referee's group hears only what its own
   membership, on the loopback interface, brings: not another program's
   join of the group on another interface (Linux's IP_MULTICAST_ALL). */
Test (route, a_localhost_group_listener_hears_its_own_membership_only)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.localhost = true;
    snprintf (cfg.network.referee_addr, sizeof cfg.network.referee_addr, "224.5.23.1:%d",
              20000 + getpid () % 9000);
    sim_route_t ref;
    cr_assert_eq (sim_route_referee (&cfg, &ref), 0);
    cr_assert_str_eq (ref.iface, "127.0.0.1");
    int fd = sim_route_listen (&ref);
    cr_assert_geq (fd, 0, "cannot listen to the referee's group on loopback");
    int all = -1;
    socklen_t len = sizeof all;
    cr_assert_eq (getsockopt (fd, IPPROTO_IP, IP_MULTICAST_ALL, &all, &len), 0);
    cr_expect_eq (all, 0, "IP_MULTICAST_ALL is on: other programs' joins reach the listener");
    close (fd);
}
