/*  test_gw_pace.c - services/gateway/gw_pace.c: sync requests wait for
    their turn in a bounded table (in all, and per source), and the next
    to go is from the source whose last turn is the oldest, so a source
    that queues many steps gets one per turn like the others.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "services/gateway/gw_pace.h"

static struct sockaddr_in
s_from (int port)
{
    struct sockaddr_in a;
    memset (&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons ((uint16_t) port);
    a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    return a;
}

/* The next datagram's source port and first byte, or -1. */
static int
s_next (gw_pace_t *p, int *byte)
{
    gw_pace_item_t item;
    if (!gw_pace_next (p, &item))
        return -1;
    *byte = item.len ? item.data[0] : -1;
    free (item.data);
    return ntohs (item.from.sin_port);
}

Test (gw_pace, sources_take_turns_and_shares_are_bounded)
{
    gw_pace_t *p = gw_pace_new (8, 3);
    cr_assert_not_null (p);
    struct sockaddr_in a = s_from (1000), b = s_from (2000);
    /* a queues three steps before b queues one */
    for (uint8_t i = 0; i < 3; i++)
        cr_expect_eq (gw_pace_wait (p, GW_PORT_CONTROL, &a, &i, 1, 15, i), 0);
    uint8_t four = 4;
    cr_expect_eq (gw_pace_wait (p, GW_PORT_CONTROL, &a, &four, 1, 15, 3), -1, "a's share is 3");
    uint8_t bee = 9;
    cr_expect_eq (gw_pace_wait (p, GW_PORT_BLUE, &b, &bee, 1, 15, 4), 0);
    cr_expect_eq (gw_pace_count (p), 4);
    cr_expect_eq (gw_pace_source_count (p, &a), 3);
    int byte;
    cr_expect_eq (s_next (p, &byte), 1000, "never served, a came first");
    cr_expect_eq (byte, 0);
    cr_expect_eq (s_next (p, &byte), 2000, "b's turn before a's second step");
    cr_expect_eq (s_next (p, &byte), 1000);
    cr_expect_eq (byte, 1, "a's steps keep their order");
    cr_expect_eq (s_next (p, &byte), 1000);
    cr_expect_eq (byte, 2);
    cr_expect_eq (s_next (p, &byte), -1);
    cr_expect_eq (gw_pace_count (p), 0);
    /* the table's own bound */
    for (int i = 0; i < 8; i++) {
        struct sockaddr_in c = s_from (3000 + i);
        cr_expect_eq (gw_pace_wait (p, GW_PORT_CONTROL, &c, NULL, 0, 0, 10), 0);
    }
    struct sockaddr_in d = s_from (4000);
    cr_expect_eq (gw_pace_wait (p, GW_PORT_CONTROL, &d, NULL, 0, 0, 11), -1, "the table holds 8");
    gw_pace_destroy (&p);
    gw_pace_destroy (&p);
}
