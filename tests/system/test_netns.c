/*  test_netns.c - services on several hosts over tcp endpoints (issue 6).

    Two network namespaces made by the test stand for two lab hosts, joined
    by a veth pair: physics runs alone in "host A"; vision and gateway run
    in "host B", each as `ssl-sim service NAME` (what the systemd units
    run), with the [bus] section pointing at A's address. A client in B
    teleports a robot through the gateway and sees it in B's vision.

    The second test runs the same hosts with CURVE on (issue 11): physics
    admits host B's certificate; a peer on host B with no key and one with
    a key physics does not know get nothing, and physics logs each refusal.

    Needs root and network namespaces (ip netns); skips with a message
    where they are not allowed. All addresses live inside the two
    namespaces the test created, and both are deleted at the end.
*/
#include <criterion/criterion.h>
#include <czmq.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/bus/sim_curve.h"
#include "tests/support/sim_lab.h"
#include "common/bus/sim_service.h"
#include "tests/support/sim_test.h"

#define HOST_A_ADDR  "10.231.7.1"
#define HOST_B_ADDR  "10.231.7.2"
#define CONTROL_PORT 10300
#define VISION_PORT  10020

typedef struct {
    char ns_a[32], ns_b[32], veth_a[16], veth_b[16];
    char dir[64];
} lab_t;

static void
s_lab_delete (const lab_t *lab)
{
    /* deleting a namespace removes its end of the veth pair, and the pair */
    sim_lab_sh ("ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null", lab->ns_a, lab->ns_b);
}

/* Build the two "hosts"; returns 0, or -1 with the reason in `why`. */
static int
s_lab_create (lab_t *lab, char *why, size_t len)
{
    int id = (int) getpid ();
    snprintf (lab->ns_a, sizeof lab->ns_a, "sslsim-a-%d", id);
    snprintf (lab->ns_b, sizeof lab->ns_b, "sslsim-b-%d", id);
    snprintf (lab->veth_a, sizeof lab->veth_a, "ssa%d", id);
    snprintf (lab->veth_b, sizeof lab->veth_b, "ssb%d", id);
    if (sim_lab_netns_add_first (lab->ns_a, why, len))
        return -1;
    int rc = sim_lab_sh ("ip netns add %s", lab->ns_b);
    rc |= sim_lab_sh ("ip link add %s type veth peer name %s", lab->veth_a, lab->veth_b);
    rc |= sim_lab_sh ("ip link set %s netns %s && ip link set %s netns %s", lab->veth_a, lab->ns_a,
                      lab->veth_b, lab->ns_b);
    rc |= sim_lab_sh ("ip -n %s addr add " HOST_A_ADDR "/24 dev %s && ip -n %s link set %s up", lab->ns_a,
                      lab->veth_a, lab->ns_a, lab->veth_a);
    rc |= sim_lab_sh ("ip -n %s addr add " HOST_B_ADDR "/24 dev %s && ip -n %s link set %s up"
                      " && ip -n %s link set lo up",
                      lab->ns_b, lab->veth_b, lab->ns_b, lab->veth_b, lab->ns_b);
    if (rc) {
        s_lab_delete (lab);
        snprintf (why, len, "could not set up the veth pair between the namespaces");
        return -1;
    }
    return 0;
}

Test (netns, physics_on_one_host_vision_and_gateway_on_another, .timeout = 60)
{
    lab_t lab;
    char why[200];
    if (s_lab_create (&lab, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return;
    }
    snprintf (lab.dir, sizeof lab.dir, "/tmp/ssl-sim-test-XXXXXX");
    cr_expect_not_null (mkdtemp (lab.dir));
    char ini[128], log_a[128], log_b[128], vision[64];
    snprintf (ini, sizeof ini, "%s/lab.ini", lab.dir);
    snprintf (log_a, sizeof log_a, "%s/host-a.log", lab.dir);
    snprintf (log_b, sizeof log_b, "%s/host-b.log", lab.dir);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", VISION_PORT);
    /* the shape of configs/lab/: physics binds on its host's address,
       everyone connects there; vision binds frames on its own host */
    FILE *f = fopen (ini, "w");
    cr_expect_not_null (f);
    if (f) {
        /* every host reads the same file: vision follows physics's
           effective configuration, so [run] says where vision goes */
        fprintf (f,
                 "[run]\nlocalhost = true\nvision_addr = %s\nrealism = none\n"
                 "[network]\nbind_address = 127.0.0.1\ncontrol_port = %d\n"
                 "[bus]\n"
                 "cmd_bind = tcp://" HOST_A_ADDR ":7301\ncmd_connect = tcp://" HOST_A_ADDR ":7301\n"
                 "world_bind = tcp://" HOST_A_ADDR ":7302\nworld_connect = tcp://" HOST_A_ADDR ":7302\n"
                 "frames_bind = tcp://" HOST_B_ADDR ":7303\nframes_connect = tcp://" HOST_B_ADDR ":7303\n",
                 vision, CONTROL_PORT);
        fclose (f);
    }
    const char *phys[] = { "service", "physics", "--config", ini, NULL };
    const char *vis[] = { "service", "vision", "--config", ini, NULL };
    const char *gw[] = { "service", "gateway", "--config", ini, NULL };
    char dir_a[160], dir_b[160];
    snprintf (dir_a, sizeof dir_a, "%s/a", lab.dir);
    snprintf (dir_b, sizeof dir_b, "%s/b", lab.dir);
    sim_lab_sh ("mkdir -p '%s' '%s'", dir_a, dir_b);
    pid_t p_phys = sim_lab_spawn (phys, dir_a, log_a, lab.ns_a);
    pid_t p_vis = sim_lab_spawn (vis, dir_b, log_b, lab.ns_b);
    pid_t p_gw = sim_lab_spawn (gw, dir_b, log_b, lab.ns_b);

    /* the client is a team's computer on host B */
    bool entered = sim_lab_enter_netns (lab.ns_b) == 0;
    cr_expect (entered, "cannot enter %s", lab.ns_b);
    int vfd = entered ? sim_test_udp (VISION_PORT) : -1;
    int fd = entered ? sim_test_udp (0) : -1;
    cr_expect (vfd >= 0 && fd >= 0);
    if (vfd >= 0 && fd >= 0) {
        bool answered = sim_test_teleport_blue0 (fd, CONTROL_PORT, -1.0, 0.5, 10000) == 1;
        cr_expect (answered, "the gateway on host B got no answer from physics on host A");
        bool seen = sim_test_sees_blue0 (vfd, -1.0, 0.5, 5000);
        cr_expect (seen, "vision on host B does not show the teleport");
        if (!answered || !seen) {
            sim_lab_dump (log_a);
            sim_lab_dump (log_b);
        }
    }
    if (vfd >= 0)
        close (vfd);
    if (fd >= 0)
        close (fd);
    int codes[3] = { sim_lab_stop (p_gw), sim_lab_stop (p_vis), sim_lab_stop (p_phys) };
    cr_expect (codes[0] == 0 && codes[1] == 0 && codes[2] == 0,
               "exit codes gateway %d, vision %d, physics %d", codes[0], codes[1], codes[2]);
    s_lab_delete (&lab);
    sim_lab_sh ("rm -rf '%s'", lab.dir);
}

/* ---- CURVE (issue 11) ---------------------------------------------------- */

/* True once the file at `path` holds `text`, waiting up to ms for it to
   grow (woken by inotify, not by a timer). */
static bool
s_log_has (const char *path, const char *text, int ms)
{
    int in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
    if (in >= 0)
        inotify_add_watch (in, path, IN_MODIFY);
    int64_t end = sim_test_now_ms () + ms;
    bool found = false;
    while (true) {
        char buf[1 << 16];
        FILE *f = fopen (path, "r");
        size_t n = f ? fread (buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose (f);
        buf[n] = '\0';
        found = strstr (buf, text) != NULL;
        int64_t left = end - sim_test_now_ms ();
        if (found || left <= 0 || in < 0)
            break;
        struct pollfd p = { in, POLLIN, 0 };
        if (poll (&p, 1, (int) left) == 1)
            while (read (in, buf, sizeof buf) > 0)
                ;
    }
    if (in >= 0)
        close (in);
    return found;
}

/* A peer made by the test on host B: a SUB to world or a DEALER to cmd,
   with a certificate (cert NULL: none) and physics' key. Its handshake's
   outcome comes from its monitor: returns the first event's name. */
static char *
s_intruder (const char *endpoint, int type, const char *cert_path, const char *server_path, zsock_t **sock)
{
    *sock = zsock_new (type);
    cr_assert_not_null (*sock);
    zactor_t *monitor = zactor_new (zmonitor, *sock);
    zstr_sendx (monitor, "LISTEN", "HANDSHAKE_SUCCEEDED", "HANDSHAKE_FAILED_PROTOCOL",
                "HANDSHAKE_FAILED_AUTH", NULL);
    zstr_sendx (monitor, "START", NULL);
    zsock_wait (monitor);
    if (cert_path) {
        zcert_t *cert = zcert_load (cert_path);
        zcert_t *server = zcert_load (server_path);
        cr_assert (cert && server);
        zcert_apply (cert, *sock);
        zsock_set_curve_serverkey (*sock, zcert_public_txt (server));
        zcert_destroy (&cert);
        zcert_destroy (&server);
    }
    if (type == ZMQ_SUB)
        zsock_set_subscribe (*sock, "");
    cr_expect_eq (zsock_connect (*sock, "%s", endpoint), 0);
    zsock_set_rcvtimeo (monitor, 10000);
    zmsg_t *msg = zmsg_recv (monitor);
    char *event = msg ? zmsg_popstr (msg) : NULL;
    zmsg_destroy (&msg);
    zactor_destroy (&monitor);
    return event;
}

static void
s_write (const char *path, const char *text)
{
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs (text, f);
    fclose (f);
}

Test (netns, curve_admits_the_lab_and_refuses_a_peer_without_a_key_or_with_a_wrong_one, .timeout = 90)
{
    lab_t lab;
    char why[200];
    if (s_lab_create (&lab, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return;
    }
    snprintf (lab.dir, sizeof lab.dir, "/tmp/ssl-sim-test-XXXXXX");
    cr_assert_not_null (mkdtemp (lab.dir));
    char path[16][192], err[256];
    enum { INI_A, INI_B, LOG_A, LOG_B, CERT_A, CERT_B, STRANGER, ALLOW_A, ALLOW_B, DIR_A, DIR_B };
    const char *names[] = {
        "a.ini",   "b.ini",   "host-a.log", "host-b.log", "host-a.cert", "host-b.cert", "stranger.cert",
        "allow-a", "allow-b", "a",          "b"
    };
    for (int i = 0; i <= DIR_B; i++)
        snprintf (path[i], sizeof path[i], "%s/%s", lab.dir, names[i]);
    sim_lab_sh ("mkdir -p '%s' '%s' '%s' '%s'", path[ALLOW_A], path[ALLOW_B], path[DIR_A], path[DIR_B]);
    cr_assert_eq (sim_curve_keygen (path[CERT_A], err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (path[CERT_B], err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (path[STRANGER], err, sizeof err), 0, "%s", err);
    /* physics admits host B; vision on B admits B's gateway (the same
       certificate): only the public halves are copied */
    sim_lab_sh ("cp '%s' '%s/' && cp '%s' '%s/'", path[CERT_B], path[ALLOW_A], path[CERT_B], path[ALLOW_B]);

    char common[1024], text[2048];
    snprintf (common, sizeof common,
              "[run]\nlocalhost = true\nvision_addr = 224.5.23.2:%d\nrealism = none\n"
              "[network]\nbind_address = 127.0.0.1\ncontrol_port = %d\n"
              "[bus]\n"
              "cmd_bind = tcp://" HOST_A_ADDR ":7301\ncmd_connect = tcp://" HOST_A_ADDR ":7301\n"
              "world_bind = tcp://" HOST_A_ADDR ":7302\nworld_connect = tcp://" HOST_A_ADDR ":7302\n"
              "frames_bind = tcp://" HOST_B_ADDR ":7303\nframes_connect = tcp://" HOST_B_ADDR ":7303\n"
              "curve = true\n",
              VISION_PORT, CONTROL_PORT);
    snprintf (text, sizeof text, "%scurve_cert = %s\ncurve_allow = %s\n", common, path[CERT_A],
              path[ALLOW_A]);
    s_write (path[INI_A], text);
    snprintf (text, sizeof text,
              "%scurve_cert = %s\ncurve_allow = %s\ncurve_server = %s\ncurve_frames_server = %s\n", common,
              path[CERT_B], path[ALLOW_B], path[CERT_A], path[CERT_B]);
    s_write (path[INI_B], text);

    const char *phys[] = { "service", "physics", "--config", path[INI_A], NULL };
    const char *vis[] = { "service", "vision", "--config", path[INI_B], NULL };
    const char *gw[] = { "service", "gateway", "--config", path[INI_B], NULL };
    pid_t p_phys = sim_lab_spawn (phys, path[DIR_A], path[LOG_A], lab.ns_a);
    pid_t p_vis = sim_lab_spawn (vis, path[DIR_B], path[LOG_B], lab.ns_b);
    pid_t p_gw = sim_lab_spawn (gw, path[DIR_B], path[LOG_B], lab.ns_b);

    /* everything below runs on host B: enter it before the first ZeroMQ
       socket, whose I/O threads make the connections */
    bool entered = sim_lab_enter_netns (lab.ns_b) == 0;
    cr_assert (entered, "cannot enter %s", lab.ns_b);
    int vfd = sim_test_udp (VISION_PORT);
    int fd = sim_test_udp (0);
    cr_expect (vfd >= 0 && fd >= 0);
    bool answered = sim_test_teleport_blue0 (fd, CONTROL_PORT, -1.0, 0.5, 10000) == 1;
    cr_expect (answered, "the gateway on host B got no answer from physics over CURVE");
    bool seen = answered && sim_test_sees_blue0 (vfd, -1.0, 0.5, 5000);
    cr_expect (seen, "vision on host B does not show the teleport over CURVE");

    /* a subscriber without a key and a requester with a key physics does
       not know: refused at the handshake, so nothing reaches them and
       none of theirs reaches physics (which side sees the mechanism
       mismatch first is a race, so physics' reason for the first may be
       either "does not use CURVE" or "broke off") */
    zsock_t *bare = NULL, *stranger = NULL;
    char *bare_event = s_intruder ("tcp://" HOST_A_ADDR ":7302", ZMQ_SUB, NULL, NULL, &bare);
    /* the client may see the mismatch (HANDSHAKE_FAILED_PROTOCOL) or only
       a dropped connection, whichever side notices first: what matters is
       that it never completes a handshake (and reads nothing, below) */
    cr_expect (!bare_event || strcmp (bare_event, "HANDSHAKE_SUCCEEDED") != 0,
               "a subscriber without a key completed a handshake");
    char *stranger_event =
        s_intruder ("tcp://" HOST_A_ADDR ":7301", ZMQ_DEALER, path[STRANGER], path[CERT_A], &stranger);
    cr_expect_str_eq (stranger_event ? stranger_event : "(none)", "HANDSHAKE_FAILED_AUTH");
    zstr_free (&bare_event);
    zstr_free (&stranger_event);
    zsock_set_rcvtimeo (bare, 0);
    char *got = zstr_recv (bare);
    cr_expect_null (got, "a subscriber without a key read the world");
    zstr_free (&got);
    bool logged_bare = s_log_has (path[LOG_A], "bus world tcp://" HOST_A_ADDR ":7302: refused a peer", 5000);
    cr_expect (logged_bare, "physics did not log the peer without a key");
    bool logged_stranger = s_log_has (path[LOG_A],
                                      "bus cmd tcp://" HOST_A_ADDR ":7301: refused a peer: its "
                                      "certificate is not allowed",
                                      5000);
    cr_expect (logged_stranger, "physics did not log the peer with a wrong key");
    zsock_destroy (&bare);
    zsock_destroy (&stranger);
    if (!answered || !seen || !logged_bare || !logged_stranger) {
        sim_lab_dump (path[LOG_A]);
        sim_lab_dump (path[LOG_B]);
    }
    if (vfd >= 0)
        close (vfd);
    if (fd >= 0)
        close (fd);
    int codes[3] = { sim_lab_stop (p_gw), sim_lab_stop (p_vis), sim_lab_stop (p_phys) };
    cr_expect (codes[0] == 0 && codes[1] == 0 && codes[2] == 0,
               "exit codes gateway %d, vision %d, physics %d", codes[0], codes[1], codes[2]);
    s_lab_delete (&lab);
    sim_lab_sh ("rm -rf '%s'", lab.dir);
}

Test (netns, curve_with_a_missing_key_file_does_not_start)
{
    /* no namespace needed: the file is checked before any socket */
    char dir[64] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[128], log[128];
    snprintf (ini, sizeof ini, "%s/a.ini", dir);
    snprintf (log, sizeof log, "%s/a.log", dir);
    char text[512];
    snprintf (text, sizeof text,
              "[bus]\ncmd_bind = tcp://127.0.0.1:0\nworld_bind = tcp://127.0.0.1:0\ncurve = true\n"
              "curve_cert = %s/none.cert\ncurve_allow = %s\n",
              dir, dir);
    s_write (ini, text);
    const char *phys[] = { "service", "physics", "--config", ini, NULL };
    pid_t pid = sim_lab_spawn (phys, dir, log, NULL);
    cr_assert_gt (pid, 0);
    cr_expect_eq (sim_lab_wait_exit (pid, 10000), 0, "physics did not stop");
    int code = sim_lab_stop (pid);
    cr_expect_eq (code, SIM_SERVICE_EXIT_NO_START, "physics exited with %d, not \"could not start\"", code);
    char needle[160];
    snprintf (needle, sizeof needle, "[bus] curve_cert: cannot read the secret key %s/none.cert_secret", dir);
    bool named = s_log_has (log, needle, 1000);
    cr_expect (named, "the log does not name the key and the file");
    if (!named || code != SIM_SERVICE_EXIT_NO_START)
        sim_lab_dump (log);
    sim_lab_sh ("rm -rf '%s'", dir);
}
