/*  test_viewer_door.c - the viewer's door from outside (docs/viewer.md,
    "The door" and "Under load"), on a real `ssl-sim run` with the
    defaults: a WebSocket handshake from another site's page (Origin:
    http://evil.example) is refused with 403 and the teleport sent behind
    it never applies; a request naming another host (Host:
    attacker.example, as after a DNS rebinding) gets 403 on /metrics and
    reads nothing; the page and the viewer's own page's WebSocket still
    work; idle pages and stalled half-open requests do not keep /healthz
    from answering within its documented second; and a viewer listening
    beyond loopback (0.0.0.0, inside a network namespace of the test's
    own whose only interface is lo, so nothing leaves the machine) asks
    for the token it keeps in the runtime directory (mode 0600) before any
    action, and `ssl-sim status` shows the address with it; from one
    address beyond loopback (a second address on that lo) it takes 8
    pages, and the ninth is told why.

    Requests with chosen headers are written by hand on a TCP socket to
    127.0.0.1: a browser's headers are what is checked.
*/
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_ws.h"

#define WAIT_MS    15000
#define HEALTHZ_MS 1000 /* docs/viewer.md "Under load": /healthz answers within a second */
#define IDLE_PAGES 24   /* of the 32 pages the viewer takes at once */
#define HALF_OPEN  246  /* the stalled requests that made /healthz time out before */

static const char *const s_args[] = { NULL };

static void
s_start (sim_fixture_t *f)
{
    cr_assert_eq (sim_fixture_start (f, s_args, NULL, SIM_FIXTURE_GATEWAY), 0, "ssl-sim did not come up");
    cr_assert (sim_fixture_wait_service (f, "viewer", 0, WAIT_MS), "the viewer did not start");
}

/* A TCP connection to addr:port (dotted quad), or -1. */
static int
s_dial_to (const char *addr, int port)
{
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    if (inet_pton (AF_INET, addr, &to.sin_addr) != 1 || fd < 0
        || connect (fd, (const struct sockaddr *) &to, sizeof to) != 0) {
        if (fd >= 0)
            close (fd);
        fd = -1;
    }
    return fd;
}

static int
s_dial (int port)
{
    return s_dial_to ("127.0.0.1", port);
}

/* Send `req` (len bytes) and read the answer until the server closes or
   ms pass; the status code of its first line (-1: none), the whole answer
   in out[cap]. */
static int
s_exchange (int port, const char *req, size_t len, char *out, size_t cap, int ms)
{
    out[0] = '\0';
    int fd = s_dial (port);
    if (fd < 0 || send (fd, req, len, MSG_NOSIGNAL) != (ssize_t) len) {
        if (fd >= 0)
            close (fd);
        return -1;
    }
    size_t used = 0;
    int64_t end = sim_test_now_ms () + ms;
    for (;;) {
        int64_t left = end - sim_test_now_ms ();
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0 || poll (&p, 1, (int) left) <= 0)
            break;
        ssize_t n = recv (fd, out + used, cap - used - 1, 0);
        if (n <= 0)
            break;
        used += (size_t) n;
        out[used] = '\0';
        if (used + 1 >= cap)
            break;
    }
    close (fd);
    int status = -1;
    return sscanf (out, "HTTP/1.%*d %d", &status) == 1 ? status : -1;
}

/* GET path with this Host header; the status, the answer in out. */
static int
s_get (int port, const char *path, const char *host, char *out, size_t cap)
{
    char req[512];
    int n =
        snprintf (req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host);
    return s_exchange (port, req, (size_t) n, out, cap, WAIT_MS);
}

/* A WebSocket handshake for /ws as a page from `origin` (NULL: none)
   loaded from http://NAME:PORT/ sends it, with one masked text frame
   carrying `frame` right behind it, as a page that sends at once would. */
static int
s_handshake (char *req, size_t cap, const char *name, int port, const char *origin, const char *frame)
{
    int n =
        snprintf (req, cap,
                  "GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                  name, port, origin ? "Origin: " : "", origin ? origin : "", origin ? "\r\n" : "");
    size_t len = strlen (frame);
    cr_assert_lt (len, 126);
    static const uint8_t mask[4] = { 0x12, 0x34, 0x56, 0x78 };
    uint8_t *out = (uint8_t *) req + n;
    cr_assert_lt ((size_t) n + 6 + len, cap);
    out[0] = 0x81; /* FIN, text */
    out[1] = (uint8_t) (0x80 | len);
    memcpy (out + 2, mask, 4);
    for (size_t i = 0; i < len; i++)
        out[6 + i] = (uint8_t) frame[i] ^ mask[i % 4];
    return n + 6 + (int) len;
}

static double
s_num (const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, key);
    cr_assert (cJSON_IsNumber (v), "\"%s\" is not a number", key);
    return v->valuedouble;
}

/* The ball of the next world a page gets. */
static void
s_ball (sim_ws_t *ws, double *x, double *y)
{
    sim_ws_clear (ws);
    cr_assert_eq (sim_ws_send (ws, "{\"op\":\"next\"}"), 0);
    cJSON *world = sim_ws_wait (ws, "world", WAIT_MS);
    cr_assert_not_null (world, "no world");
    const cJSON *ball = cJSON_GetObjectItemCaseSensitive (world, "ball");
    *x = s_num (ball, "x");
    *y = s_num (ball, "y");
    cJSON_Delete (world);
}

/* An op through a page; its result (yours to delete). */
static cJSON *
s_op (sim_ws_t *ws, int id, const char *body)
{
    cJSON *result = sim_ws_op (ws, id, body, WAIT_MS);
    cr_assert_not_null (result, "no result for %s", body);
    return result;
}

static const char *
s_code (const cJSON *result)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive (result, "code");
    return cJSON_IsString (c) ? c->valuestring : "";
}

Test (viewer_door, another_sites_page_is_refused_and_its_teleport_never_applies, .timeout = 90)
{
    sim_fixture_t f;
    s_start (&f);
    int port = f.proc.viewer_port;
    char req[1024], out[4096];

    int len = s_handshake (req, sizeof req, "127.0.0.1", port, "http://evil.example",
                           "{\"op\":\"teleport_ball\",\"id\":1,\"x\":2.0,\"y\":-1.5}");
    cr_expect_eq (s_exchange (port, req, (size_t) len, out, sizeof out, WAIT_MS), 403, "answered: %s", out);
    cr_expect_null (strstr (out, "\"result\""), "the refused page got an answer to its op: %s", out);

    /* the viewer's own page, as a browser sends it */
    char own[64];
    snprintf (own, sizeof own, "http://127.0.0.1:%d", port);
    len = s_handshake (req, sizeof req, "127.0.0.1", port, own, "{\"op\":\"next\"}");
    cr_expect_eq (s_exchange (port, req, (size_t) len, out, sizeof out, 2000), 101, "answered: %s", out);
    snprintf (own, sizeof own, "http://localhost:%d", port);
    len = s_handshake (req, sizeof req, "localhost", port, own, "{\"op\":\"next\"}");
    cr_expect_eq (s_exchange (port, req, (size_t) len, out, sizeof out, 2000), 101,
                  "the page opened as localhost was refused: %s", out);

    /* an honest page's op is answered after the refused one would have
       been: the ball never went to (2, -1.5) */
    sim_ws_t *ws = sim_ws_connect (port, "/ws");
    cr_assert_not_null (ws);
    cJSON *r =
        s_op (ws, 7, "\"op\":\"teleport_robot\",\"team\":\"blue\",\"robot\":0,\"x\":-1,\"y\":-1,\"o\":0");
    cr_expect (sim_ws_ok (r), "an honest page's op was refused: %s", s_code (r));
    cJSON_Delete (r);
    double x, y;
    s_ball (ws, &x, &y);
    cr_expect_gt (hypot (x - 2.0, y + 1.5), 0.5, "the refused page's teleport applied: ball at (%g, %g)", x,
                  y);
    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (viewer_door, a_rebound_host_name_reads_nothing, .timeout = 90)
{
    sim_fixture_t f;
    s_start (&f);
    int port = f.proc.viewer_port;
    char out[1 << 16], host[64];

    snprintf (host, sizeof host, "attacker.example:%d", port);
    cr_expect_eq (s_get (port, "/metrics", host, out, sizeof out), 403, "answered: %.200s", out);
    cr_expect_null (strstr (out, "ssl_sim_"), "the metrics leaked: %.200s", out);
    cr_expect_eq (s_get (port, "/metrics", "attacker.example", out, sizeof out), 403);
    cr_expect_eq (s_get (port, "/", host, out, sizeof out), 403);
    cr_expect_eq (s_get (port, "/healthz", host, out, sizeof out), 403);

    /* the names the viewer serves still read */
    snprintf (host, sizeof host, "127.0.0.1:%d", port);
    cr_expect_eq (s_get (port, "/metrics", host, out, sizeof out), 200);
    cr_expect_neq (strstr (out, "ssl_sim_up"), NULL);
    cr_expect_eq (s_get (port, "/", host, out, sizeof out), 200);
    cr_expect_neq (strstr (out, "<canvas"), NULL, "not the page: %.200s", out);
    snprintf (host, sizeof host, "localhost:%d", port);
    cr_expect_eq (s_get (port, "/", host, out, sizeof out), 200);

    /* nothing changes state over plain HTTP */
    char req[256];
    int n = snprintf (req, sizeof req, "POST /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 0\r\n\r\n",
                      port);
    cr_expect_eq (s_exchange (port, req, (size_t) n, out, sizeof out, WAIT_MS), 405);

    /* the refusals are in the log, at most a line a second: a flood of
       them does not fill it */
    cr_expect_eq (sim_lab_wait_text (f.proc.log, "refused GET /metrics from 127.0.0.1", WAIT_MS), 0);
    snprintf (host, sizeof host, "attacker.example:%d", port);
    int64_t t0 = sim_test_now_ms ();
    for (int i = 0; i < 100; i++)
        cr_assert_eq (s_get (port, "/metrics", host, out, sizeof out), 403);
    int64_t seconds = (sim_test_now_ms () - t0) / 1000;
    cr_expect_eq (sim_lab_wait_text (f.proc.log, "refusals since the last such line", WAIT_MS), 0);
    char count[64];
    sim_lab_capture (count, sizeof count, "grep -c 'refused GET' '%s'", f.proc.log);
    cr_expect_leq (atoi (count), seconds + 3, "%d lines for 100 refusals in %lld s", atoi (count),
                   (long long) seconds);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* Time a /healthz, ms; its status in *status. */
static int64_t
s_timed_healthz (int port, int *status)
{
    int64_t t0 = sim_test_now_ms ();
    char *body = NULL;
    *status = sim_http_get (port, "/healthz", &body);
    free (body);
    return sim_test_now_ms () - t0;
}

Test (viewer_door, idle_pages_and_stalled_requests_leave_healthz_and_ops_answering, .timeout = 120)
{
    sim_fixture_t f;
    s_start (&f);
    int port = f.proc.viewer_port;
    int status;
    /* before the load, once physics and vision are up */
    int64_t end = sim_test_now_ms () + WAIT_MS;
    while (s_timed_healthz (port, &status) >= 0 && status != 200 && sim_test_now_ms () < end) {
        sim_ws_t *w = sim_ws_connect (port, "/ws"); /* paced by a page's status, not a sleep */
        cJSON_Delete (w ? sim_ws_wait (w, "status", 1000) : NULL);
        sim_ws_destroy (&w);
    }
    cr_assert_eq (status, 200, "/healthz never said 200");

    sim_ws_t *pages[IDLE_PAGES] = { 0 };
    for (int i = 0; i < IDLE_PAGES; i++) {
        pages[i] = sim_ws_connect (port, "/ws");
        cr_assert_not_null (pages[i], "page %d of %d was refused", i + 1, IDLE_PAGES);
    }
    /* requests that never end: a header cut short */
    int stalled[HALF_OPEN];
    char partial[128];
    int plen = snprintf (partial, sizeof partial, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n", port);
    for (int i = 0; i < HALF_OPEN; i++) {
        stalled[i] = s_dial (port);
        cr_assert_geq (stalled[i], 0, "connection %d: %s", i, strerror (errno));
        cr_assert_eq (send (stalled[i], partial, (size_t) plen, MSG_NOSIGNAL), plen);
    }

    int64_t ms = s_timed_healthz (port, &status);
    cr_expect_eq (status, 200);
    cr_expect_leq (ms, HEALTHZ_MS, "/healthz took %lld ms under load", (long long) ms);
    char *body = NULL;
    cr_expect_eq (sim_http_get (port, "/metrics", &body), 200);
    free (body);

    /* a page opened now still acts */
    sim_ws_t *ws = sim_ws_connect (port, "/ws");
    cr_assert_not_null (ws, "a page was refused with %d pages open", IDLE_PAGES);
    cJSON *r = s_op (ws, 1, "\"op\":\"teleport_ball\",\"x\":0.5,\"y\":0.5");
    cr_expect (sim_ws_ok (r), "the op was refused under load: %s", s_code (r));
    cJSON_Delete (r);

    /* past the pages' limit the page is told, not left with nothing */
    sim_ws_t *more[32] = { 0 };
    int opened = 0;
    for (int i = 0; i < 32 && (more[i] = sim_ws_connect (port, "/ws")) != NULL; i++)
        opened++;
    cr_expect_eq (IDLE_PAGES + 1 + opened, 32, "%d pages at once", IDLE_PAGES + 1 + opened);
    char req[1024], out[2048];
    int len = s_handshake (req, sizeof req, "127.0.0.1", port, NULL, "{\"op\":\"next\"}");
    cr_expect_eq (s_exchange (port, req, (size_t) len, out, sizeof out, WAIT_MS), 503, "answered: %s", out);
    cr_expect_neq (strstr (out, "too many pages"), NULL, "answered: %s", out);
    ms = s_timed_healthz (port, &status);
    cr_expect_eq (status, 200);
    cr_expect_leq (ms, HEALTHZ_MS, "/healthz took %lld ms with every page taken", (long long) ms);

    for (int i = 0; i < 32; i++)
        sim_ws_destroy (&more[i]);
    for (int i = 0; i < HALF_OPEN; i++)
        close (stalled[i]);
    for (int i = 0; i < IDLE_PAGES; i++)
        sim_ws_destroy (&pages[i]);
    sim_ws_destroy (&ws);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* ---- beyond loopback: a namespace whose only interface is lo ---------- */

Test (viewer_door, beyond_loopback_actions_need_the_token, .timeout = 90)
{
    char ns[32], why[200], dir[64], log[96], rt[96];
    snprintf (ns, sizeof ns, "sslsim-door-%d", (int) getpid ());
    if (sim_lab_netns_add_first (ns, why, sizeof why))
        cr_skip_test ("%s", why); /* otherwise with its lo up */
    snprintf (dir, sizeof dir, "/tmp/sslsim-door-%d", (int) getpid ());
    cr_assert_eq (sim_lab_sh ("rm -rf %s && mkdir -m 700 %s", dir, dir), 0);
    snprintf (log, sizeof log, "%s/log", dir);
    snprintf (rt, sizeof rt, "%s/ssl-sim", dir);
    /* the defaults but the viewer's address: the namespace is a machine of
       its own, so the default ports are free in it */
    static const char *const args[] = { "run", "--viewer-addr", "0.0.0.0:8082", NULL };
    pid_t pid = sim_lab_spawn (args, dir, log, ns);
    cr_assert_gt (pid, 0);
    bool up = sim_lab_wait_service (dir, 0, "viewer", 0, WAIT_MS) > 0;
    if (!up)
        sim_lab_dump (log);
    cr_assert (up, "the viewer did not start");
    cr_assert_eq (sim_lab_enter_netns (ns), 0);

    /* the token: in the runtime directory, this user's alone */
    char path[128], token[80] = "";
    snprintf (path, sizeof path, "%s/viewer.token", rt);
    struct stat st;
    cr_assert_eq (stat (path, &st), 0, "no %s", path);
    cr_expect_eq (st.st_mode & 0777, 0600, "mode %o", (unsigned) (st.st_mode & 0777));
    FILE *fp = fopen (path, "r");
    cr_assert_not_null (fp);
    cr_assert_eq (fscanf (fp, "%79s", token), 1);
    fclose (fp);
    cr_expect_eq (strlen (token), 64);
    /* printed at start, with the page's address */
    char line[128];
    snprintf (line, sizeof line, ":8082/#token=%s", token);
    cr_expect_eq (sim_lab_wait_text (log, line, WAIT_MS), 0, "the start did not print the token");
    /* and in `ssl-sim status` */
    char status[8192];
    sim_lab_capture (status, sizeof status, "XDG_RUNTIME_DIR=%s ip netns exec %s %s status 2>&1", dir, ns,
                     sim_lab_exe ());
    cr_expect_neq (strstr (status, line), NULL, "status did not show the token:\n%s", status);

    /* reading stays open; acting needs the token */
    sim_ws_t *watcher = sim_ws_connect (8082, "/ws");
    cr_assert_not_null (watcher);
    cJSON *hello = sim_ws_wait (watcher, "hello", WAIT_MS);
    cr_expect_not_null (hello, "a page without the token cannot watch");
    cJSON_Delete (hello);
    cJSON *r = s_op (watcher, 1, "\"op\":\"teleport_ball\",\"x\":2.0,\"y\":-1.5");
    cr_expect_not (sim_ws_ok (r), "an op without the token was taken");
    cr_expect_str_eq (s_code (r), "FORBIDDEN");
    cJSON_Delete (r);
    char wrong[128];
    snprintf (wrong, sizeof wrong, "/ws?token=%064d", 0);
    sim_ws_t *guesser = sim_ws_connect (8082, wrong);
    cr_assert_not_null (guesser);
    r = s_op (guesser, 2, "\"op\":\"teleport_ball\",\"x\":2.0,\"y\":-1.5");
    cr_expect_str_eq (s_code (r), "FORBIDDEN", "a wrong token was taken");
    cJSON_Delete (r);

    char with[128];
    snprintf (with, sizeof with, "/ws?token=%s", token);
    sim_ws_t *owner = sim_ws_connect (8082, with);
    cr_assert_not_null (owner);
    r = s_op (owner, 3, "\"op\":\"teleport_ball\",\"x\":1.0,\"y\":1.0");
    cr_expect (sim_ws_ok (r), "the token's op was refused: %s", s_code (r));
    cJSON_Delete (r);
    double x, y;
    s_ball (owner, &x, &y);
    cr_expect_gt (hypot (x - 2.0, y + 1.5), 0.5, "an op without the token applied");

    /* pages from one address beyond loopback: 8 at once. A second address
       on the namespace's lo stands for another machine (the viewer counts
       every address outside 127.0.0.0/8 as one). */
    cr_assert_eq (sim_lab_sh ("ip -n %s addr add 10.231.9.1/32 dev lo", ns), 0);
    int held[9];
    char req[512], answer[512];
    for (int i = 0; i < 9; i++) {
        held[i] = s_dial_to ("10.231.9.1", 8082);
        cr_assert_geq (held[i], 0);
        int n = snprintf (req, sizeof req,
                          "GET /ws HTTP/1.1\r\nHost: 10.231.9.1:8082\r\nUpgrade: websocket\r\n"
                          "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\nOrigin: http://10.231.9.1:8082\r\n\r\n");
        cr_assert_eq (send (held[i], req, (size_t) n, MSG_NOSIGNAL), n);
        struct pollfd p = { held[i], POLLIN, 0 };
        cr_assert_eq (poll (&p, 1, WAIT_MS), 1, "page %d got no answer", i + 1);
        ssize_t got = recv (held[i], answer, sizeof answer - 1, 0);
        answer[got > 0 ? got : 0] = '\0';
        int code = -1;
        sscanf (answer, "HTTP/1.%*d %d", &code);
        if (i < 8)
            cr_expect_eq (code, 101, "page %d from 10.231.9.1: %s", i + 1, answer);
        else {
            cr_expect_eq (code, 503, "the 9th page from one address: %s", answer);
            cr_expect_neq (strstr (answer, "from this address"), NULL, "%s", answer);
        }
    }
    sim_ws_t *local = sim_ws_connect (8082, "/ws");
    cr_expect_not_null (local, "a page on loopback was refused for another address's pages");
    sim_ws_destroy (&local);
    for (int i = 0; i < 9; i++)
        close (held[i]);

    sim_ws_destroy (&owner);
    sim_ws_destroy (&guesser);
    sim_ws_destroy (&watcher);
    cr_expect_eq (sim_lab_stop (pid), 0);
    sim_lab_sh ("ip netns del %s; rm -rf %s", ns, dir);
}
