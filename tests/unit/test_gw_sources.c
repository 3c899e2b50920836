/*  test_gw_sources.c - a new client is news once per port; a full table
    forgets the source heard from least recently. */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "services/gateway/gw_sources.h"

static struct sockaddr_in
s_addr (const char *ip, int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, ip, &a.sin_addr);
    return a;
}

Test (gw_sources, a_source_is_new_once_per_port)
{
    gw_sources_t *s = gw_sources_new (3, 4);
    cr_assert_not_null (s);
    struct sockaddr_in a = s_addr ("127.0.0.1", 5000);
    struct sockaddr_in b = s_addr ("127.0.0.1", 5001); /* another port: another client */
    cr_expect (gw_sources_arrived (s, 0, &a, 1));
    cr_expect_not (gw_sources_arrived (s, 0, &a, 2));
    cr_expect (gw_sources_arrived (s, 1, &a, 3), "each gateway port has its own table");
    cr_expect (gw_sources_arrived (s, 0, &b, 4));
    cr_expect_not (gw_sources_arrived (s, 0, &b, 5));
    gw_sources_destroy (&s);
    gw_sources_destroy (&s);
    cr_expect_null (s);
}

Test (gw_sources, a_full_table_forgets_the_least_recent)
{
    gw_sources_t *s = gw_sources_new (1, 2);
    struct sockaddr_in a = s_addr ("10.0.0.1", 1), b = s_addr ("10.0.0.2", 1), c = s_addr ("10.0.0.3", 1);
    cr_expect (gw_sources_arrived (s, 0, &a, 1));
    cr_expect (gw_sources_arrived (s, 0, &b, 2));
    cr_expect_not (gw_sources_arrived (s, 0, &a, 3)); /* a is now the more recent */
    cr_expect (gw_sources_arrived (s, 0, &c, 4));     /* b makes room */
    cr_expect_not (gw_sources_arrived (s, 0, &a, 5));
    cr_expect (gw_sources_arrived (s, 0, &b, 6), "b was forgotten, so it is news again");
    gw_sources_destroy (&s);
}
