/*  test_gw_peers.c - services/gateway/gw_peers.c: a source address is
    proven once it asks again after an answer, stays proven while it talks,
    proves itself again after being idle, and a full table gives up
    unproven addresses before proven ones.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "services/gateway/gw_peers.h"

static struct sockaddr_in
s_addr (uint32_t ip, int port)
{
    struct sockaddr_in a;
    memset (&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons ((uint16_t) port);
    a.sin_addr.s_addr = htonl (ip);
    return a;
}

Test (gw_peers, proven_after_an_answer_and_a_second_datagram)
{
    gw_peers_t *p = gw_peers_new (4, 1000);
    cr_assert_not_null (p);
    struct sockaddr_in a = s_addr (0x7f000001, 5000);
    cr_expect_not (gw_peers_arrived (p, &a, 10), "never answered: not proven");
    cr_expect_not (gw_peers_arrived (p, &a, 11), "asking twice proves nothing");
    gw_peers_answered (p, &a, 12);
    cr_expect (gw_peers_arrived (p, &a, 13), "it asked again after the answer");
    /* the same host from another port: addresses are IPs */
    struct sockaddr_in a2 = s_addr (0x7f000001, 5001);
    cr_expect (gw_peers_arrived (p, &a2, 14));
    /* it keeps talking: still proven */
    for (int64_t t = 100; t < 5000; t += 500)
        cr_expect (gw_peers_arrived (p, &a, t));
    /* idle for longer than 1000: again from the start */
    cr_expect_not (gw_peers_arrived (p, &a, 7000));
    gw_peers_answered (p, &a, 7001);
    cr_expect (gw_peers_arrived (p, &a, 7002));
    gw_peers_destroy (&p);
    cr_expect_null (p);
    gw_peers_destroy (&p);
}

Test (gw_peers, a_full_table_gives_up_the_unproven_first)
{
    gw_peers_t *p = gw_peers_new (3, 1000000);
    struct sockaddr_in client = s_addr (0x0a000001, 1);
    gw_peers_answered (p, &client, 1);
    cr_expect (gw_peers_arrived (p, &client, 2));
    /* forged sources, each answered once, never asking again */
    for (uint32_t i = 0; i < 50; i++) {
        struct sockaddr_in forged = s_addr (0xc0a80000 + i, 1);
        gw_peers_answered (p, &forged, 10 + i);
    }
    cr_expect_eq (gw_peers_count (p), 3);
    cr_expect (gw_peers_arrived (p, &client, 100), "the proven client was pushed out");
    gw_peers_destroy (&p);
}
