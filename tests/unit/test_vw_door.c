/*  test_vw_door.c - services/viewer/vw_door.c's verdict on a request head
    (vw_door_admit): issue 24's attacks refused with their status, a page
    and its handshake let in, the token read from the handshake's query.
    The whole door through real HTTP: tests/system/test_viewer_door.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "services/viewer/vw_door.h"

static int
s_admit (const vw_door_t *door, const char *method, const char *path, const char *query, const char *host,
         const char *origin, const char *upgrade, vw_door_verdict_t *v)
{
    return vw_door_admit (door, method, path, query, host, origin, upgrade, v);
}

Test (vw_door, a_request_head_is_let_in_or_refused_with_its_status)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    vw_door_t *door = vw_door_new (&cfg, "127.0.0.1", 8080, NULL);
    cr_assert_not_null (door);
    vw_door_verdict_t v;
    cr_expect_eq (s_admit (door, "GET", "/", NULL, "127.0.0.1:8080", NULL, NULL, &v), 0);
    cr_expect_not (v.handshake, "a page's file holds no slot");
    cr_expect_eq (
        s_admit (door, "GET", "/ws", NULL, "localhost:8080", "http://localhost:8080", "websocket", &v), 0);
    cr_expect (v.handshake && v.has_token, "the own page's handshake, no token needed on loopback");
    /* issue 24: another site's page, a rebound name, a state change by POST */
    cr_expect_eq (
        s_admit (door, "GET", "/ws", NULL, "127.0.0.1:8080", "http://evil.example", "websocket", &v), 403);
    cr_expect_not_null (v.why);
    cr_expect_eq (s_admit (door, "GET", "/metrics", NULL, "attacker.example:8080", NULL, NULL, &v), 403);
    cr_expect_eq (s_admit (door, "GET", "/", NULL, NULL, NULL, NULL, &v), 403, "no Host");
    cr_expect_eq (s_admit (door, "POST", "/ws", NULL, "127.0.0.1:8080", NULL, NULL, &v), 405);
    cr_expect_eq (s_admit (door, NULL, NULL, NULL, "127.0.0.1:8080", NULL, NULL, &v), 405, "no method");
    vw_door_destroy (&door);

    char dir[] = "/tmp/test-vw-door-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    door = vw_door_new (&cfg, "0.0.0.0", 8080, dir);
    cr_assert_not_null (door);
    char query[128];
    snprintf (query, sizeof query, "v=1&token=%s", vw_door_token (door));
    cr_expect_eq (s_admit (door, "GET", "/ws", query, "10.0.0.5:8080", NULL, "websocket", &v), 0);
    cr_expect (v.handshake && v.has_token);
    cr_expect_eq (s_admit (door, "GET", "/ws", "token=00", "10.0.0.5:8080", NULL, "websocket", &v), 0);
    cr_expect (v.handshake && !v.has_token, "a wrong token watches, never acts");
    vw_door_destroy (&door);
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq (system (cmd), 0);
}
