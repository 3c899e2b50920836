/*  test_sim_trust.c - common/bus/sim_trust.c: which sources get full
    answers (loopback, [tournament] when it is on, [network]
    trusted_sources; nothing a source sends), the cap of the others (3x
    their request's bytes), and the budget of feedback that follows
    requests (the grSim port's Robots_Status): never more than 3x all the
    peer sent.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "common/bus/sim_trust.h"

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
s_full (const sim_trust_t *t, const char *ip)
{
    struct sockaddr_in a = s_addr (ip);
    return sim_trust_full (t, &a);
}

Test (sim_trust, loopback_and_the_configured_lists_get_full_answers)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char why[256] = "";
    sim_trust_t *t = sim_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    /* the defaults: loopback only */
    cr_expect (s_full (t, "127.0.0.1"));
    cr_expect (s_full (t, "127.0.0.2"), "all of 127.0.0.0/8 is loopback");
    cr_expect_not (s_full (t, "10.0.0.5"));
    cr_expect_not (s_full (t, "128.0.0.1"));
    cr_expect_not (s_full (t, "0.0.0.0"));
    struct sockaddr_in far = s_addr ("10.0.0.5"), near = s_addr ("127.0.0.1");
    cr_expect_eq (sim_trust_cap (t, &far, 5), 15, "3x the request");
    cr_expect_eq (sim_trust_cap (t, &far, 0), 0, "an empty request earns nothing");
    cr_expect_eq (sim_trust_cap (t, &near, 5), SIZE_MAX);
    sim_trust_destroy (&t);
    sim_trust_destroy (&t);

    snprintf (cfg.network.trusted_sources, sizeof cfg.network.trusted_sources, "10.0.0.5, 10.0.0.6");
    snprintf (cfg.tournament.blue, sizeof cfg.tournament.blue, "10.1.0.2");
    t = sim_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect (s_full (t, "10.0.0.5") && s_full (t, "10.0.0.6"));
    cr_expect_not (s_full (t, "10.1.0.2"), "tournament mode is off: its lists do not count");
    sim_trust_destroy (&t);

    cfg.tournament.enabled = true;
    snprintf (cfg.tournament.control, sizeof cfg.tournament.control, "10.3.0.2");
    t = sim_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    cr_expect (s_full (t, "10.1.0.2") && s_full (t, "10.3.0.2"), "the match's machines");
    cr_expect_not (s_full (t, "10.2.0.2"));
    sim_trust_destroy (&t);

    snprintf (cfg.network.trusted_sources, sizeof cfg.network.trusted_sources, "10.0.0.256");
    cr_expect_null (sim_trust_new (&cfg, why, sizeof why));
    cr_expect (strstr (why, "trusted_sources"), "the reason names the key: %s", why);
}

Test (sim_trust, the_key_takes_an_address_list_and_names_a_bad_one)
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

Test (sim_trust, feedback_to_an_untrusted_peer_stays_within_3x_what_it_sent)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char why[256] = "";
    sim_trust_t *t = sim_trust_new (&cfg, why, sizeof why);
    cr_assert_not_null (t, "%s", why);
    struct sockaddr_in far = s_addr ("10.0.0.5"), near = s_addr ("127.0.0.1");

    /* a forged source's one 13-byte commands packet: 39 bytes, and no more */
    sim_trust_budget_t b = { 0 };
    cr_expect_not (sim_trust_spend (&b, 1), "nothing before a request");
    sim_trust_earn (&b, t, &far, 13);
    cr_expect_not (sim_trust_spend (&b, 40), "a 40-byte status is over 3x 13");
    cr_expect (sim_trust_spend (&b, 30));
    cr_expect (sim_trust_spend (&b, 9));
    cr_expect_not (sim_trust_spend (&b, 1), "the 39 bytes are spent");
    /* a client that keeps sending keeps earning */
    size_t sent = 0, got = 0;
    for (int i = 0; i < 100; i++) {
        sim_trust_earn (&b, t, &far, 20);
        sent += 20;
        while (sim_trust_spend (&b, 25))
            got += 25;
    }
    cr_expect_leq (got, 3 * sent);
    cr_expect_geq (got, 3 * sent - 25, "all it earned but one message's worth");

    /* loopback: everything, however often */
    sim_trust_budget_t l = { 0 };
    sim_trust_earn (&l, t, &near, 1);
    for (int i = 0; i < 1000; i++)
        cr_assert (sim_trust_spend (&l, 65000));
    sim_trust_earn (&l, t, &near, 1);
    cr_expect_eq (l.credit, SIZE_MAX, "no overflow");
    sim_trust_destroy (&t);
}
