/*  test_sim_tournament.c - common/bus/sim_tournament.c and the
    [tournament] keys: the address lists parse (and a bad one is refused
    with file, line and key), each port takes only its own addresses, a
    team's address never the other team's port, sync requests only from
    control, everything goes when the mode is off, and refusals are
    counted and reported at most once a second.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "common/bus/sim_tournament.h"

#define BLUE_IP    "10.1.0.2"
#define YELLOW_IP  "10.2.0.2"
#define CONTROL_IP "10.3.0.2"

static struct sockaddr_in
s_addr (const char *ip, int port)
{
    struct sockaddr_in a;
    memset (&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons ((uint16_t) port);
    cr_assert_eq (inet_pton (AF_INET, ip, &a.sin_addr), 1);
    return a;
}

static sim_tournament_cfg_t
s_cfg (bool enabled, const char *blue, const char *yellow, const char *control)
{
    sim_tournament_cfg_t cfg;
    memset (&cfg, 0, sizeof cfg);
    cfg.enabled = enabled;
    snprintf (cfg.blue, sizeof cfg.blue, "%s", blue);
    snprintf (cfg.yellow, sizeof cfg.yellow, "%s", yellow);
    snprintf (cfg.control, sizeof cfg.control, "%s", control);
    return cfg;
}

static sim_tournament_t *
s_rules (void)
{
    char why[256] = "";
    sim_tournament_cfg_t cfg = s_cfg (true, BLUE_IP ", 10.1.0.3", YELLOW_IP, CONTROL_IP);
    sim_tournament_t *t = sim_tournament_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    return t;
}

/* ---- the address lists -------------------------------------------------- */

Test (sim_tournament, address_lists_parse)
{
    uint32_t out[SIM_TOURNAMENT_ADDRS_MAX];
    char why[200] = "";
    cr_expect_eq (sim_config_addr_list ("", out, 8, why, sizeof why), 0, "empty: no address");
    cr_expect_eq (sim_config_addr_list ("  ", out, 8, why, sizeof why), 0);
    cr_assert_eq (sim_config_addr_list (" 10.0.0.1 ,10.0.0.2,\t192.168.1.200 ", out, 8, why, sizeof why), 3,
                  "%s", why);
    cr_expect_eq (out[0], htonl (0x0a000001));
    cr_expect_eq (out[1], htonl (0x0a000002));
    cr_expect_eq (out[2], htonl (0xc0a801c8));
    cr_expect_eq (sim_config_addr_list ("10.0.0.1", NULL, 8, why, sizeof why), 1, "a check needs no output");
}

Test (sim_tournament, bad_address_lists_are_refused_with_a_reason)
{
    const char *bad[][2] = {
        { "10.0.0.256", "'10.0.0.256' is not an IPv4 address" },
        { "10.0.0.1,", "empty item" },
        { ",10.0.0.1", "empty item" },
        { "10.0.0.1,,10.0.0.2", "empty item" },
        { "robot.local", "'robot.local' is not an IPv4 address" },
        { "10.0.0.1 10.0.0.2", "'10.0.0.1 10.0.0.2' is not an IPv4 address" },
        { "10.0.0.1:10301", "not an IPv4 address" },
        { "::1", "not an IPv4 address" },
        { "1.2.3.4.5.6.7.8.9.10.11.12", "not an IPv4 address" },
        { "1.1.1.1,1.1.1.2,1.1.1.3,1.1.1.4,1.1.1.5,1.1.1.6,1.1.1.7,1.1.1.8,1.1.1.9", "more than 8" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[200] = "";
        cr_expect_eq (sim_config_addr_list (bad[i][0], NULL, SIM_TOURNAMENT_ADDRS_MAX, why, sizeof why), -1,
                      "'%s' was accepted", bad[i][0]);
        cr_expect_not_null (strstr (why, bad[i][1]), "'%s': %s", bad[i][0], why);
    }
}

Test (sim_tournament, a_bad_address_in_a_file_names_file_line_and_key)
{
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_expect_not (cfg.tournament.enabled, "off by default");
    cr_expect_str_eq (cfg.tournament.blue, "");
    const char *ini = "[tournament]\nenabled = true\nblue = 10.0.0.1\nyellow = 10.0.0.2, 10.0.0.300\n";
    cr_expect_eq (sim_config_load_string (&cfg, ini, "match.ini", err, sizeof err), -1);
    cr_expect_not_null (strstr (err, "match.ini:4: [tournament] yellow: '10.0.0.300' is not an IPv4 address"),
                        "%s", err);
    sim_config_defaults (&cfg);
    ini = "[tournament]\nenabled = true\nblue = 10.0.0.1\nyellow = 10.0.0.2\ncontrol = 10.0.0.3, 127.0.0.1\n";
    cr_assert_eq (sim_config_load_string (&cfg, ini, "match.ini", err, sizeof err), 0, "%s", err);
    cr_expect (cfg.tournament.enabled);
    cr_expect_str_eq (cfg.tournament.control, "10.0.0.3, 127.0.0.1");
    /* the effective configuration travels as its dump: the section is in it */
    char *dump = sim_config_dump (&cfg, false);
    cr_assert_not_null (dump);
    sim_config_t back;
    sim_config_defaults (&back);
    cr_expect_eq (sim_config_load_string (&back, dump, "dump", err, sizeof err), 0, "%s", err);
    cr_expect_eq (memcmp (&back.tournament, &cfg.tournament, sizeof cfg.tournament), 0);
    free (dump);
}

Test (sim_tournament, one_address_for_both_teams_is_refused)
{
    char why[256] = "";
    sim_tournament_cfg_t cfg = s_cfg (true, "10.0.0.1, 10.0.0.5", "10.0.0.5", "");
    cr_expect_null (sim_tournament_new (&cfg, why, sizeof why));
    cr_expect_not_null (strstr (why, "10.0.0.5 is blue's address too"), "%s", why);
    cfg = s_cfg (true, "10.0.0.1", "10.0.0.x", "");
    cr_expect_null (sim_tournament_new (&cfg, why, sizeof why));
    cr_expect_not_null (strstr (why, "[tournament] yellow: '10.0.0.x' is not an IPv4 address"), "%s", why);
    /* a team's host may also be control (a lab running the game controller) */
    cfg = s_cfg (true, "10.0.0.1", "10.0.0.2", "10.0.0.1");
    sim_tournament_t *t = sim_tournament_new (&cfg, why, sizeof why);
    cr_expect_not_null (t, "%s", why);
    sim_tournament_destroy (&t);
    sim_tournament_destroy (&t);
    cr_expect_null (t);
}

/* ---- the decisions ------------------------------------------------------ */

Test (sim_tournament, each_port_takes_only_its_addresses)
{
    sim_tournament_t *t = s_rules ();
    cr_expect (sim_tournament_enabled (t));
    struct sockaddr_in blue = s_addr (BLUE_IP, 4000), blue2 = s_addr ("10.1.0.3", 1);
    struct sockaddr_in yellow = s_addr (YELLOW_IP, 4000), control = s_addr (CONTROL_IP, 4000);
    struct sockaddr_in outsider = s_addr ("10.9.9.9", 4000);

    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue, false), SIM_TOURNAMENT_ALLOWED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue2, false), SIM_TOURNAMENT_ALLOWED, "a list");
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_YELLOW, &yellow, false), SIM_TOURNAMENT_ALLOWED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &control, false), SIM_TOURNAMENT_ALLOWED);

    /* a team's address on the other team's port */
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_YELLOW, &blue, false), SIM_TOURNAMENT_OTHER_TEAM);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &yellow, false), SIM_TOURNAMENT_OTHER_TEAM);
    /* the teams on the control port, control on the teams' ports */
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &blue, false), SIM_TOURNAMENT_NOT_LISTED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &yellow, false), SIM_TOURNAMENT_NOT_LISTED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &control, false), SIM_TOURNAMENT_NOT_LISTED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_YELLOW, &control, false), SIM_TOURNAMENT_NOT_LISTED);
    /* anyone else nowhere */
    for (int port = 0; port < 3; port++)
        cr_expect_eq (sim_tournament_check (t, (sim_role_t) port, &outsider, false),
                      SIM_TOURNAMENT_NOT_LISTED);

    cr_expect_eq (sim_tournament_roles (t, &blue), SIM_TOURNAMENT_ROLE (SIM_ROLE_BLUE));
    cr_expect_eq (sim_tournament_roles (t, &outsider), 0);
    sim_tournament_destroy (&t);
}

Test (sim_tournament, sync_requests_only_from_control)
{
    sim_tournament_t *t = s_rules ();
    struct sockaddr_in blue = s_addr (BLUE_IP, 4000), control = s_addr (CONTROL_IP, 4000);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &control, true), SIM_TOURNAMENT_ALLOWED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue, true), SIM_TOURNAMENT_NO_SYNC,
                  "blue may control its robots, not step the simulator");
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue, false), SIM_TOURNAMENT_ALLOWED);
    sim_tournament_destroy (&t);

    /* a team's host that is also control may step through its own port */
    char why[256] = "";
    sim_tournament_cfg_t cfg = s_cfg (true, BLUE_IP, YELLOW_IP, BLUE_IP);
    t = sim_tournament_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue, true), SIM_TOURNAMENT_ALLOWED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &blue, true), SIM_TOURNAMENT_ALLOWED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_YELLOW, &blue, true), SIM_TOURNAMENT_OTHER_TEAM);
    sim_tournament_destroy (&t);
}

Test (sim_tournament, off_allows_everyone_and_an_empty_list_no_one)
{
    char why[256] = "";
    sim_tournament_cfg_t cfg = s_cfg (false, BLUE_IP, YELLOW_IP, CONTROL_IP);
    sim_tournament_t *t = sim_tournament_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect_not (sim_tournament_enabled (t));
    struct sockaddr_in blue = s_addr (BLUE_IP, 1), outsider = s_addr ("10.9.9.9", 1);
    for (int port = 0; port < 3; port++)
        for (int sync = 0; sync < 2; sync++) {
            cr_expect_eq (sim_tournament_check (t, (sim_role_t) port, &blue, sync), SIM_TOURNAMENT_ALLOWED);
            cr_expect_eq (sim_tournament_check (t, (sim_role_t) port, &outsider, sync),
                          SIM_TOURNAMENT_ALLOWED);
        }
    sim_tournament_destroy (&t);

    /* on, with no control list: no one controls the simulator */
    cfg = s_cfg (true, BLUE_IP, YELLOW_IP, "");
    t = sim_tournament_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_CONTROL, &blue, false), SIM_TOURNAMENT_NOT_LISTED);
    cr_expect_eq (sim_tournament_check (t, SIM_ROLE_BLUE, &blue, true), SIM_TOURNAMENT_NO_SYNC);
    sim_tournament_destroy (&t);
}

Test (sim_tournament, explanations_name_the_address_and_the_port)
{
    struct sockaddr_in a = s_addr ("10.1.0.2", 1);
    char buf[160];
    cr_expect_str_eq (
        sim_tournament_explain (SIM_TOURNAMENT_OTHER_TEAM, SIM_ROLE_YELLOW, &a, buf, sizeof buf),
        "tournament mode: 10.1.0.2 is blue's address and may not use the yellow port");
    cr_expect_str_eq (
        sim_tournament_explain (SIM_TOURNAMENT_NOT_LISTED, SIM_ROLE_CONTROL, &a, buf, sizeof buf),
        "tournament mode: 10.1.0.2 is not in [tournament] control; the control port refuses it");
    cr_expect_str_eq (sim_tournament_explain (SIM_TOURNAMENT_NO_SYNC, SIM_ROLE_BLUE, &a, buf, sizeof buf),
                      "tournament mode: sync requests only from [tournament] control, not from 10.1.0.2");
    char tiny[8];
    sim_tournament_explain (SIM_TOURNAMENT_NOT_LISTED, SIM_ROLE_BLUE, &a, tiny, sizeof tiny);
    cr_expect_eq (strlen (tiny), sizeof tiny - 1, "cut, terminated");
}

Test (sim_tournament, refusals_are_counted_and_reported_once_a_second)
{
    sim_tournament_t *t = s_rules ();
    const int64_t s = SIM_TOURNAMENT_LOG_US;
    cr_expect_eq (sim_tournament_refused (t, SIM_ROLE_BLUE, 1000), 1, "the first is reported at once");
    for (int i = 0; i < 99; i++)
        cr_expect_eq (sim_tournament_refused (t, SIM_ROLE_BLUE, 1000 + i), 0, "then quiet");
    cr_expect_eq (sim_tournament_refused (t, SIM_ROLE_CONTROL, 1000 + s - 1), 0);
    cr_expect_eq (sim_tournament_refused (t, SIM_ROLE_YELLOW, 1000 + s), 101,
                  "a second later: this one and the hundred since");
    cr_expect_eq (sim_tournament_refused (t, SIM_ROLE_YELLOW, 1000 + 5 * s), 1);
    cr_expect_eq (sim_tournament_refused_count (t, SIM_ROLE_BLUE), 100);
    cr_expect_eq (sim_tournament_refused_count (t, SIM_ROLE_CONTROL), 1);
    cr_expect_eq (sim_tournament_refused_count (t, SIM_ROLE_YELLOW), 2);
    sim_tournament_destroy (&t);
}
