/*  test_local.c - everything on one machine (issue 23), as a user meets it.

    `ssl-sim run --localhost` with nothing else set sends vision and truth
    by unicast to 127.0.0.1, so a team client bound to 127.0.0.1:10020 (the
    reference simulator's habit) receives it; `--local-multicast` sends to
    the group through the loopback interface for several listeners, and the
    log says who receives. Every listener of ssl-sim (`record`, `stats
    --listen`, vision's --record referee listener, the viewer) works on a
    host with only lo, and with --localhost nothing is sent or joined on
    any other interface.

    The default ports (10020, 10300, 8082...) are the point of the first
    tests, so each test runs the simulator in a network namespace of its
    own: nothing else on the machine owns those ports there. Needs root and
    `ip netns`; skips with a message where they are not allowed. The
    namespaces are deleted at the end.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/bus/sim_udp.h"
#include "common/logs/sim_logfile.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

#define S_GROUP   "224.5.23.2"
#define S_REFEREE "224.5.23.1"

typedef struct {
    char ns[32];
    char dir[64];
    char path[4][128]; /* logs and recordings of the test */
} s_host_t;

/* A namespace with only lo (up), or with `dummy` also an interface d0
   that holds the default route (one end of a veth pair whose other end
   d1 stays in the namespace: a "network" where nothing answers and every
   datagram sent there is counted). Returns 0, or -1 with why. */
static int
s_host (s_host_t *h, const char *tag, bool dummy, char *why, size_t len)
{
    memset (h, 0, sizeof *h);
    snprintf (h->ns, sizeof h->ns, "sslsim-%s-%d", tag, (int) getpid ());
    if (sim_lab_netns_add_first (h->ns, why, len))
        return -1;
    int rc = 0; /* lo is up: sim_lab_netns_add_first */
    /* IPv6 off, so the kernel's own neighbour and router messages do not
       count as datagrams sent on d0 */
    if (dummy)
        rc |= sim_lab_sh ("ip netns exec %s sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && "
                          "echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6'",
                          h->ns);
    if (dummy)
        rc |= sim_lab_sh ("ip -n %s link add d0 type veth peer name d1 && ip -n %s addr add 10.231.11.1/24 "
                          "dev d0 && ip -n %s link set d0 up && ip -n %s link set d1 up"
                          " && ip -n %s route add default dev d0",
                          h->ns, h->ns, h->ns, h->ns, h->ns);
    snprintf (h->dir, sizeof h->dir, "/tmp/ssl-sim-test-XXXXXX");
    if (rc || !mkdtemp (h->dir)) {
        sim_lab_sh ("ip netns del %s 2>/dev/null", h->ns);
        snprintf (why, len, "could not set up the namespace's interfaces");
        return -1;
    }
    for (int i = 0; i < 4; i++)
        snprintf (h->path[i], sizeof h->path[i], "%s/f%d", h->dir, i);
    return 0;
}

static void
s_host_delete (const s_host_t *h)
{
    sim_lab_sh ("ip netns del %s 2>/dev/null; rm -rf '%s'", h->ns, h->dir);
}

/* Make the test's host (s_host), start `ssl-sim ARGS...` in it (its log:
   path[0]) and enter it with this thread. Returns the pid, or 0 after
   skipping the test where namespaces are not allowed. */
static pid_t
s_start (s_host_t *h, const char *tag, bool dummy, const char *const *args)
{
    char why[200];
    if (s_host (h, tag, dummy, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return 0;
    }
    pid_t pid = sim_lab_spawn (args, h->dir, h->path[0], h->ns);
    cr_assert_gt (pid, 0);
    cr_assert_eq (sim_lab_enter_netns (h->ns), 0);
    return pid;
}

/* Stop the simulator (exit 0 expected; its log shown when not, or when
   the test saw a failure) and delete the host. */
static void
s_finish (s_host_t *h, pid_t pid, bool ok)
{
    int code = sim_lab_stop (pid);
    cr_expect_eq (code, 0, "ssl-sim run exited with %d", code);
    if (code || !ok)
        sim_lab_dump (h->path[0]);
    s_host_delete (h);
}

/* A UDP socket as a client program makes it: SO_REUSEADDR, bound to
   host:port, a member of `group` on `iface` when group is not NULL. */
static int
s_client (const char *host, int port, const char *group, const char *iface)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, host, &addr.sin_addr);
    struct ip_mreq mreq;
    if (group) {
        inet_pton (AF_INET, group, &mreq.imr_multiaddr);
        inet_pton (AF_INET, iface, &mreq.imr_interface);
    }
    if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one)
        || bind (fd, (struct sockaddr *) &addr, sizeof addr)
        || (group && setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq))) {
        close (fd);
        return -1;
    }
    return fd;
}

/* Whether a vision packet (an SSL_WrapperPacket) arrives on fd within ms. */
static bool
s_gets_vision (int fd, int ms)
{
    uint8_t buf[65536];
    int64_t end = sim_test_now_ms () + ms;
    int64_t left;
    while ((left = end - sim_test_now_ms ()) > 0) {
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, (int) left);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        bool ok = w && (w->detection || w->geometry);
        ssl__wrapper_packet__free_unpacked (w, NULL);
        if (ok)
            return true;
    }
    return false;
}

/* Datagrams that arrive on fd within ms. */
static int
s_count (int fd, int ms)
{
    uint8_t buf[65536];
    int n = 0;
    int64_t end = sim_test_now_ms () + ms;
    int64_t left;
    while ((left = end - sim_test_now_ms ()) > 0)
        if (sim_test_recv (fd, buf, sizeof buf, (int) left) > 0)
            n++;
    return n;
}

/* Messages of each type in a league log file (-1 each when unreadable). */
static void
s_log_counts (const char *path, int counts[8])
{
    char err[256];
    for (int i = 0; i < 8; i++)
        counts[i] = -1;
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    if (!r)
        return;
    for (int i = 0; i < 8; i++)
        counts[i] = 0;
    sim_logfile_msg_t m;
    while (sim_logfile_next (r, &m) == 1)
        if (m.type >= 0 && m.type < 8)
            counts[m.type]++;
    sim_logfile_reader_destroy (&r);
}

/* A game controller on this host: one datagram to the referee group,
   through the loopback interface (the recorders keep its bytes as they
   are, so any bytes stand for a Referee message here). */
static void
s_referee (int fd, uint32_t counter)
{
    uint8_t buf[8] = { 'r', 'e', 'f', 0 };
    memcpy (buf + 4, &counter, sizeof counter);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (10003) };
    inet_pton (AF_INET, S_REFEREE, &to.sin_addr);
    sim_udp_send (fd, buf, sizeof buf, &to);
}

/* ---- the defaults -------------------------------------------------------- */

Test (local, localhost_with_nothing_else_reaches_a_client_bound_to_127_0_0_1, .timeout = 60)
{
    s_host_t h;
    const char *args[] = { "run", "--localhost", NULL };
    pid_t pid = s_start (&h, "d", false, args);
    if (!pid)
        return;
    /* the team client of the reference simulator's README */
    int fd = s_client ("127.0.0.1", 10020, NULL, NULL);
    cr_assert_geq (fd, 0, "%s", strerror (errno));
    bool seen = s_gets_vision (fd, 15000);
    cr_expect (seen, "a client bound to 127.0.0.1:10020 got no vision");
    cr_expect_eq (sim_lab_wait_text (h.path[0], "vision to 127.0.0.1:10020 (local: unicast)", 5000), 0,
                  "the log does not say where vision goes");
    cr_expect_eq (
        sim_lab_wait_text (h.path[0], "bound to 127.0.0.1:10020 or 0.0.0.0:10020 receives it", 5000), 0,
        "the log does not say which clients receive");
    cr_expect_eq (sim_lab_wait_text (h.path[0], "--local-multicast", 5000), 0,
                  "the log does not say how to reach the others");
    close (fd);
    s_finish (&h, pid, seen);
}

Test (local, local_multicast_reaches_every_listener_and_group_member, .timeout = 60)
{
    s_host_t h;
    const char *args[] = { "run", "--localhost", "--local-multicast", "--truth", NULL };
    pid_t pid = s_start (&h, "m", false, args);
    if (!pid)
        return;
    /* a tool that joins the group (on lo, the only interface here), a
       second program bound to the group's port, and a truth member */
    int fds[3] = { s_client (S_GROUP, 10020, S_GROUP, "127.0.0.1"), s_client ("0.0.0.0", 10020, NULL, NULL),
                   s_client (S_GROUP, 10010, S_GROUP, "127.0.0.1") };
    for (int i = 0; i < 3; i++)
        cr_assert_geq (fds[i], 0, "socket %d: %s", i, strerror (errno));
    cr_expect (s_gets_vision (fds[0], 15000), "the group member got no vision");
    cr_expect (s_gets_vision (fds[1], 2000), "the program bound to 0.0.0.0:10020 got no vision");
    cr_expect_gt (s_count (fds[2], 1000), 10, "the truth member got too little in 1 s");
    cr_expect_eq (
        sim_lab_wait_text (h.path[0], "vision to 224.5.23.2:10020 (local: through the loopback", 5000), 0,
        "the log does not say where vision goes");
    cr_expect_eq (sim_lab_wait_text (h.path[0], "one bound to 127.0.0.1:10020 does not", 5000), 0,
                  "the log does not say who does not receive");
    for (int i = 0; i < 3; i++)
        close (fds[i]);
    s_finish (&h, pid, true);
}

/* ---- a host with only lo ------------------------------------------------- */

Test (local, every_listener_works_on_a_host_with_only_lo, .timeout = 90)
{
    s_host_t h;
    enum { RUN_LOG, RUN_REC, TOOL_LOG, TOOL_REC }; /* h.path: s_start fills them before the spawn */
    /* --local-multicast: a recorder and a client listen at once here */
    const char *run[] = { "run",           "--localhost", "--local-multicast", "--truth", "--record",
                          h.path[RUN_REC], NULL };
    pid_t pid = s_start (&h, "lo", false, run);
    if (!pid)
        return;
    int client = s_client ("0.0.0.0", 10020, NULL, NULL);
    int gc = sim_udp_local_sender ((struct in_addr) { inet_addr (S_REFEREE) });
    cr_assert (client >= 0 && gc >= 0);
    cr_assert (s_gets_vision (client, 15000), "no vision");

    /* the league's recorder and the statistics, as a user starts them
       (no --localhost: they join where the host routes the group) */
    const char *rec[] = { "record", h.path[TOOL_REC], "--duration", "3", NULL };
    pid_t rec_pid = sim_lab_spawn (rec, h.dir, h.path[TOOL_LOG], h.ns);
    cr_assert_eq (sim_lab_wait_text (h.path[TOOL_LOG], "recording", 5000), 0, "ssl-sim record did not start");
    char stats[8192];
    int stats_code = sim_lab_capture (
        stats, sizeof stats, "ip netns exec %s '%s' stats --listen " S_GROUP ":10020 --seconds 1 2>&1", h.ns,
        sim_lab_exe ());
    cr_expect_eq (stats_code, 0, "ssl-sim stats --listen: exit %d\n%s", stats_code, stats);
    cr_expect (strstr (stats, "detection frames"), "%s", stats);
    /* a game controller on this host, paced by the camera frames */
    uint32_t sent = 0, frames = 0;
    for (int64_t end = sim_test_now_ms () + 10000; sim_test_now_ms () < end;) {
        if (sim_lab_wait_exit (rec_pid, 0) == 0)
            break;
        uint8_t buf[65536];
        if (sim_test_recv (client, buf, sizeof buf, 100) > 0 && ++frames % 10 == 0)
            s_referee (gc, ++sent);
    }
    int rec_code = sim_lab_stop (rec_pid);
    cr_expect_eq (rec_code, 0, "ssl-sim record exited with %d", rec_code);
    int counts[8];
    s_log_counts (h.path[TOOL_REC], counts);
    cr_log_info ("record: vision %d, tracker %d, referee %d of %u sent", counts[SIM_LOGFILE_VISION],
                 counts[SIM_LOGFILE_TRACKER], counts[SIM_LOGFILE_REFEREE], sent);
    cr_expect_gt (counts[SIM_LOGFILE_VISION], 100, "ssl-sim record: %d vision", counts[SIM_LOGFILE_VISION]);
    cr_expect_gt (counts[SIM_LOGFILE_TRACKER], 50, "ssl-sim record: %d tracker", counts[SIM_LOGFILE_TRACKER]);
    cr_expect_gt (counts[SIM_LOGFILE_REFEREE], 0, "ssl-sim record: no referee of %u", sent);

    /* the viewer answers on its default address */
    char metrics[1 << 16];
    int curl = sim_lab_capture (metrics, sizeof metrics,
                                "ip netns exec %s python3 -c \"import urllib.request as u; "
                                "print(u.urlopen('http://127.0.0.1:8082/metrics', timeout=5).status)\" 2>&1",
                                h.ns);
    cr_expect (curl == 0 && strstr (metrics, "200"), "the viewer: %s", metrics);

    int code = sim_lab_stop (pid);
    cr_expect_eq (code, 0, "ssl-sim run exited with %d", code);
    s_log_counts (h.path[RUN_REC], counts);
    cr_expect_gt (counts[SIM_LOGFILE_REFEREE], 0, "run --record: no referee of %u", sent);
    cr_expect_gt (counts[SIM_LOGFILE_VISION], 100, "run --record: %d vision", counts[SIM_LOGFILE_VISION]);
    if (code || rec_code || counts[SIM_LOGFILE_REFEREE] <= 0) {
        sim_lab_dump (h.path[RUN_LOG]);
        sim_lab_dump (h.path[TOOL_LOG]);
    }
    close (client);
    close (gc);
    s_host_delete (&h);
}

Test (local, a_run_without_localhost_on_a_host_with_only_lo_reaches_local_listeners, .timeout = 60)
{
    /* a container without network: the group is routed nowhere, so
       vision goes through lo, and the recorder joins there */
    s_host_t h;
    const char *args[] = { "run", NULL };
    pid_t pid = s_start (&h, "n", false, args);
    if (!pid)
        return;
    int fd = s_client (S_GROUP, 10020, S_GROUP, "127.0.0.1");
    cr_assert_geq (fd, 0, "%s", strerror (errno));
    bool seen = s_gets_vision (fd, 15000);
    cr_expect (seen, "a group member on this host got no vision");
    cr_expect_eq (sim_lab_wait_text (h.path[0], "no network interface routes 224.5.23.2:10020", 5000), 0,
                  "the log does not say why vision goes through lo");
    close (fd);
    s_finish (&h, pid, seen);
}

/* The datagrams interface d0 of the namespace sent, and whether it holds
   a membership of one of the league's groups. */
static void
s_d0 (const s_host_t *h, long *tx, bool *joined)
{
    char out[4096];
    *tx = -1;
    if (sim_lab_capture (out, sizeof out, "ip netns exec %s cat /sys/class/net/d0/statistics/tx_packets",
                         h->ns)
        == 0)
        *tx = atol (out);
    sim_lab_capture (out, sizeof out, "ip -n %s maddr show dev d0", h->ns);
    *joined = strstr (out, "224.5.23.") != NULL;
}

Test (local, localhost_sends_and_joins_nothing_on_another_interface, .timeout = 90)
{
    s_host_t h;
    enum { RUN_LOG, RUN_REC, TOOL_LOG, TOOL_REC }; /* h.path: s_start fills them before the spawn */
    /* everything a local user starts: the simulator recording (the
       referee listener), the recorder, the statistics, a played log */
    const char *run[] = { "run", "--localhost", "--truth", "--record", h.path[RUN_REC], NULL };
    pid_t pid = s_start (&h, "x", true, run);
    if (!pid)
        return;
    int client = s_client ("127.0.0.1", 10020, NULL, NULL);
    cr_assert_geq (client, 0);
    cr_assert (s_gets_vision (client, 15000), "no vision");
    const char *rec[] = { "record", h.path[TOOL_REC], "--localhost", "--duration", "1", NULL };
    pid_t rec_pid = sim_lab_spawn (rec, h.dir, h.path[TOOL_LOG], h.ns);
    cr_expect_eq (sim_lab_wait_text (h.path[TOOL_LOG], "recording", 5000), 0, "ssl-sim record did not start");
    /* memberships live as long as their sockets: look while all listen */
    long tx;
    bool joined;
    s_d0 (&h, &tx, &joined);
    cr_expect (!joined, "a league group was joined on d0 by run --record or record");
    char out[8192];
    sim_lab_capture (out, sizeof out,
                     "ip netns exec %s '%s' stats --localhost --local-multicast --listen " S_GROUP
                     ":10020 --seconds 1 2>&1",
                     h.ns, sim_lab_exe ());
    cr_expect_eq (sim_lab_wait_exit (rec_pid, 10000), 0, "ssl-sim record did not end");
    sim_lab_stop (rec_pid);
    int code = sim_lab_stop (pid);
    cr_expect_eq (code, 0, "ssl-sim run exited with %d", code);
    /* play what the simulator recorded, by both local ways */
    int play =
        sim_lab_capture (out, sizeof out, "ip netns exec %s '%s' play '%s' --localhost --speed 20 2>&1", h.ns,
                         sim_lab_exe (), h.path[RUN_REC]);
    cr_expect_eq (play, 0, "ssl-sim play --localhost: %s", out);
    play = sim_lab_capture (out, sizeof out,
                            "ip netns exec %s '%s' play '%s' --localhost --local-multicast --speed 20 2>&1",
                            h.ns, sim_lab_exe (), h.path[RUN_REC]);
    cr_expect_eq (play, 0, "ssl-sim play --localhost --local-multicast: %s", out);
    s_d0 (&h, &tx, &joined);
    /* a fresh interface with IPv6 off sends nothing of its own */
    cr_expect_eq (tx, 0, "%ld datagrams left by d0", tx);
    if (tx != 0 || joined) {
        sim_lab_dump (h.path[RUN_LOG]);
        sim_lab_dump (h.path[TOOL_LOG]);
    }
    close (client);
    s_host_delete (&h);
}
