/*  test_gw_trust.c - services/gateway/gw_trust.c and gw_cap.c: which
    sources get full answers (loopback, [tournament] when it is on,
    [network] trusted_sources; nothing a source sends), the cap of the
    others (3x their request's bytes), and an errors-only answer cut to a
    cap: messages first, then errors from the last, nothing when not even
    a code fits.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "services/gateway/gw_cap.h"
#include "services/gateway/gw_trust.h"

static struct sockaddr_in
s_addr (const char *ip)
{
    struct sockaddr_in a;
    memset (&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons (40000);
    cr_assert_eq (inet_pton (AF_INET, ip, &a.sin_addr), 1);
    return a;
}

static bool
s_full (const gw_trust_t *t, const char *ip)
{
    struct sockaddr_in a = s_addr (ip);
    return gw_trust_full (t, &a);
}

Test (gw_trust, loopback_and_the_configured_lists_get_full_answers)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char why[256] = "";
    gw_trust_t *t = gw_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    /* the defaults: loopback only */
    cr_expect (s_full (t, "127.0.0.1"));
    cr_expect (s_full (t, "127.0.0.2"), "all of 127.0.0.0/8 is loopback");
    cr_expect_not (s_full (t, "10.0.0.5"));
    cr_expect_not (s_full (t, "128.0.0.1"));
    cr_expect_not (s_full (t, "0.0.0.0"));
    struct sockaddr_in far = s_addr ("10.0.0.5"), near = s_addr ("127.0.0.1");
    cr_expect_eq (gw_trust_cap (t, &far, 5), 15, "3x the request");
    cr_expect_eq (gw_trust_cap (t, &far, 0), 0, "an empty request earns nothing");
    cr_expect_eq (gw_trust_cap (t, &near, 5), SIZE_MAX);
    gw_trust_destroy (&t);
    gw_trust_destroy (&t);

    snprintf (cfg.network.trusted_sources, sizeof cfg.network.trusted_sources, "10.0.0.5, 10.0.0.6");
    snprintf (cfg.tournament.blue, sizeof cfg.tournament.blue, "10.1.0.2");
    t = gw_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect (s_full (t, "10.0.0.5") && s_full (t, "10.0.0.6"));
    cr_expect_not (s_full (t, "10.1.0.2"), "tournament mode is off: its lists do not count");
    gw_trust_destroy (&t);

    cfg.tournament.enabled = true;
    snprintf (cfg.tournament.control, sizeof cfg.tournament.control, "10.3.0.2");
    t = gw_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect (s_full (t, "10.1.0.2") && s_full (t, "10.3.0.2"), "the match's machines");
    cr_expect_not (s_full (t, "10.2.0.2"));
    gw_trust_destroy (&t);

    snprintf (cfg.network.trusted_sources, sizeof cfg.network.trusted_sources, "10.0.0.256");
    cr_expect_null (gw_trust_new (&cfg, why, sizeof why));
    cr_expect (strstr (why, "trusted_sources"), "the reason names the key: %s", why);
}

Test (gw_trust, the_key_takes_an_address_list_and_names_a_bad_one)
{
    sim_config_t cfg;
    char err[512] = "";
    sim_config_defaults (&cfg);
    cr_expect_eq (sim_config_load_string (&cfg, "[network]\ntrusted_sources = 192.168.1.20, 192.168.1.21\n",
                                          "lab.ini", err, sizeof err),
                  0, "%s", err);
    cr_expect_str_eq (cfg.network.trusted_sources, "192.168.1.20, 192.168.1.21");
    cr_expect_neq (
        sim_config_load_string (&cfg, "[network]\ntrusted_sources = lab-pc\n", "lab.ini", err, sizeof err),
        0);
    cr_expect (strstr (err, "trusted_sources") && strstr (err, "lab.ini:2"), "%s", err);
}

Test (gw_cap, an_answer_is_cut_messages_first_then_errors_then_nothing)
{
    sim_errors_t e;
    sim_errors_init (&e);
    sim_errors_add (&e, "FORBIDDEN", "tournament mode: 10.0.0.9 is not in [tournament] control");
    sim_errors_add (&e, "UNTRUSTED", "a 120-byte answer cut");
    size_t full = gw_cap_errors_size (&e, GW_PORT_CONTROL, false);
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_CONTROL, false, full), (ssize_t) full, "fits: untouched");
    cr_expect_eq (e.count, 2);
    /* 40 bytes: the last message goes first */
    ssize_t n = gw_cap_errors (&e, GW_PORT_CONTROL, false, 40);
    cr_expect (n > 0 && n <= 40, "%zd", n);
    cr_expect_str_eq (e.ptrs[0]->code, "FORBIDDEN");
    cr_expect_null (e.ptrs[1]->message);
    /* 15 bytes: one code alone (2 + 2 + 9 = 13 bytes) */
    n = gw_cap_errors (&e, GW_PORT_CONTROL, false, 15);
    cr_expect (n > 0 && n <= 15, "%zd", n);
    cr_expect_eq (e.count, 1);
    cr_expect_str_eq (e.ptrs[0]->code, "FORBIDDEN", "the first error is the one kept");
    /* 12 bytes: nothing is sent */
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_CONTROL, false, 12), -1);
    /* a sync answer wraps them in its RobotControlResponse */
    sim_errors_init (&e);
    sim_errors_add (&e, "UNTRUSTED", "a 65000-byte answer cut to 15");
    n = gw_cap_errors (&e, GW_PORT_BLUE, true, 15);
    cr_expect (n > 0 && n <= 15, "%zd", n);
    sim_errors_init (&e);
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_BLUE, false, 1000), -1, "no error: nothing to send");
}
