/*  test_team_client.c - a team's first steps, as docs/team-client.md
    walks them, against `ssl-sim run --localhost` with every default
    (issue 23).

    Both tests run the simulator in a network namespace the test makes,
    which has only `lo`: the defaults (ports 10020, 10300-10302) cannot
    meet another simulator on this machine there, and nothing the test
    sends can leave it. They need root and `ip netns`, and skip with a
    message where that is not allowed.

    - The page's Python client, taken from the page itself (the fenced
      block marked `python team-client`, and the `sh team-client-protos`
      block that generates its modules with protoc, and the `sh
      team-client-run` line that runs it), drives blue robot 0 and sees
      it move: page and program cannot drift apart.
    - The first command a client sends right after the first vision
      packet is answered, and a grSim client's first packet finds the
      grSim port served, in each of many starts: vision starts only once
      the gateway and legacy-grsim serve their ports
      (launcher/supervisor.c).
*/
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_msg.h"
#include "tests/support/sim_test.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"

#define VISION_GROUP "224.5.23.2"
#define VISION_PORT  10020 /* the defaults the page uses */
#define BLUE_PORT    10301
#define LEGACY_PORT  20011
#define START_MS     15000 /* a start on a loaded machine, to the first vision packet */
/* the gateway answers every datagram within 4 s, UNAVAILABLE at worst
   (docs/protocol.md, "Every datagram is answered, once") */
#define ANSWER_MS 4500

typedef struct {
    char ns[32];
    char dir[64]; /* runtime directory, log, the page's files */
} lab_t;

/* A namespace with only lo, up; false (with the reason) to skip. */
static bool
s_lab (lab_t *lab, const char *tag, char *why, size_t len)
{
    snprintf (lab->ns, sizeof lab->ns, "sslsim-%s-%d", tag, (int) getpid ());
    snprintf (lab->dir, sizeof lab->dir, "/tmp/ssl-sim-test-XXXXXX");
    if (!mkdtemp (lab->dir)) {
        snprintf (why, len, "mkdtemp: %s", strerror (errno));
        return false;
    }
    return sim_lab_netns_add_first (lab->ns, why, len) == 0; /* with lo up */
}

static void
s_lab_delete (const lab_t *lab)
{
    sim_lab_sh ("ip netns del %s 2>/dev/null; rm -rf '%s'", lab->ns, lab->dir);
}

/* The fenced block of docs/team-client.md whose info string is `info`,
   written to `path`. 0, or -1 when the page has no such block. */
static int
s_extract (const char *info, const char *path)
{
    char page[512];
    snprintf (page, sizeof page, "%s/docs/team-client.md", SSL_SIM_SRC);
    FILE *in = fopen (page, "r");
    if (!in)
        return -1;
    FILE *out = fopen (path, "w");
    if (!out) {
        fclose (in);
        return -1;
    }
    char fence[64], line[1024];
    snprintf (fence, sizeof fence, "```%s\n", info);
    int state = 0; /* 0 before, 1 inside, 2 after */
    while (state < 2 && fgets (line, sizeof line, in)) {
        if (state == 0 && strcmp (line, fence) == 0)
            state = 1;
        else if (state == 1 && strcmp (line, "```\n") == 0)
            state = 2;
        else if (state == 1)
            fputs (line, out);
    }
    fclose (in);
    fclose (out);
    return state == 2 ? 0 : -1;
}

/* `ssl-sim run --localhost ARGS` in the lab's namespace; the pid. */
static pid_t
s_start (const lab_t *lab, const char *extra)
{
    char log[128];
    snprintf (log, sizeof log, "%s/sim.log", lab->dir);
    const char *args[] = { "run", "--localhost", extra ? "--config" : NULL, extra, NULL };
    return sim_lab_spawn (args, lab->dir, log, lab->ns);
}

/* What the page's client binds: 0.0.0.0:10020, joined to the group on lo. */
static int
s_vision_socket (void)
{
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    int one = 1;
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons (VISION_PORT) };
    addr.sin_addr.s_addr = htonl (INADDR_ANY);
    if (fd < 0 || bind (fd, (struct sockaddr *) &addr, sizeof addr))
        return -1;
    struct ip_mreq m;
    inet_pton (AF_INET, VISION_GROUP, &m.imr_multiaddr);
    m.imr_interface.s_addr = htonl (INADDR_LOOPBACK);
    setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m);
    return fd;
}

Test (team_client, the_python_client_on_the_page_drives_blue_robot_0, .timeout = 90)
{
    lab_t lab;
    char why[200];
    if (!s_lab (&lab, "page", why, sizeof why))
        cr_skip_test ("%s", why);
    char path[160];
    snprintf (path, sizeof path, "%s/protos.sh", lab.dir);
    cr_assert_eq (s_extract ("sh team-client-protos", path), 0,
                  "no ```sh team-client-protos block on the page");
    snprintf (path, sizeof path, "%s/client.py", lab.dir);
    cr_assert_eq (s_extract ("python team-client", path), 0, "no ```python team-client block on the page");
    snprintf (path, sizeof path, "%s/run.sh", lab.dir);
    cr_assert_eq (s_extract ("sh team-client-run", path), 0, "no ```sh team-client-run block on the page");
    /* the page's commands run from the top of the checkout */
    cr_assert_eq (sim_lab_sh ("cd '%s' && ln -s '%s/proto' proto && sh protos.sh", lab.dir, SSL_SIM_SRC), 0,
                  "the page's protoc lines failed");

    pid_t sim = s_start (&lab, NULL);
    cr_assert_gt (sim, 0);
    /* a user starts the client once the simulator runs; so does the test:
       the page's client gives the first packet 2 s, a start on a loaded
       machine may take longer */
    cr_assert_gt (sim_lab_wait_service (lab.dir, 0, "vision", 0, START_MS), 0, "vision did not start");
    char out[4096];
    int code =
        sim_lab_capture (out, sizeof out, "cd '%s' && ip netns exec %s sh run.sh 2>&1", lab.dir, lab.ns);
    double moved = -1;
    int answered = -1;
    sscanf (out, "blue 0 moved %lf m; %d commands answered", &moved, &answered);
    if (code != 0 || moved < 0)
        sim_lab_sh ("cat '%s/sim.log' >&2", lab.dir);
    sim_lab_stop (sim);
    s_lab_delete (&lab);
    cr_assert_eq (code, 0, "the page's client failed:\n%s", out);
    /* 1 m/s for 3 s: well over a metre even with the robot's acceleration
       limits; half a metre says it was driven */
    cr_expect_gt (moved, 0.5, "blue robot 0 did not move: %s", out);
    cr_expect_gt (answered, 0, "no command answered: %s", out);
}

/* A UDP socket connected to 127.0.0.1:port: a datagram to a port nobody
   serves is told (ECONNREFUSED on the next receive). */
static int
s_connected (int port)
{
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    to.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (fd >= 0 && connect (fd, (struct sockaddr *) &to, sizeof to)) {
        close (fd);
        return -1;
    }
    return fd;
}

/* One start: the first vision packet, then at once a grSim packet to the
   grSim port and one command to the blue port. Returns 0 when the command
   was answered and the grSim port was served, else -1 (with the reason in
   why). */
static int
s_first_command (const lab_t *lab, const char *ini, char *why, size_t len)
{
    int vision = s_vision_socket ();
    pid_t sim = s_start (lab, ini);
    char buf[65536];
    int rc = -1;
    if (vision < 0 || sim <= 0)
        snprintf (why, len, "cannot start");
    else if (sim_test_recv (vision, buf, sizeof buf, START_MS) < 0)
        snprintf (why, len, "no vision within %d ms", START_MS);
    else {
        /* a grSim client's first packet (an empty one changes nothing);
           grSim answers none, so only a refusal comes back */
        int legacy = s_connected (LEGACY_PORT);
        int fd = s_connected (BLUE_PORT);
        sim_msg_robot_cmd_t b;
        RobotControl *ctl = sim_msg_robot_cmd (&b, 0);
        sim_msg_local (&b, 0.5, 0, 0);
        uint8_t packed[256];
        size_t n = robot_control__pack (ctl, packed);
        errno = 0;
        if (legacy < 0 || fd < 0 || send (legacy, "", 0, 0) != 0 || send (fd, packed, n, 0) != (ssize_t) n)
            snprintf (why, len, "cannot send: %s", strerror (errno));
        else {
            ssize_t got = sim_test_recv (fd, buf, sizeof buf, ANSWER_MS);
            RobotControlResponse *r =
                got >= 0 ? robot_control_response__unpack (NULL, (size_t) got, (const uint8_t *) buf) : NULL;
            if (r && r->n_feedback == 1 && r->n_errors == 0)
                rc = 0;
            else if (got < 0 && errno == ECONNREFUSED)
                snprintf (why, len, "the blue port was not served yet when vision came");
            else
                snprintf (why, len, "no answer within %d ms (%zd bytes)", ANSWER_MS, got);
            if (r)
                robot_control_response__free_unpacked (r, NULL);
            /* the refusal, had there been one, came back long before the
               answer did (loopback's ICMP is not rate limited) */
            errno = 0;
            if (rc == 0 && sim_test_recv (legacy, buf, sizeof buf, 0) < 0 && errno == ECONNREFUSED) {
                snprintf (why, len, "the grSim port was not served yet when vision came");
                rc = -1;
            }
        }
        if (legacy >= 0)
            close (legacy);
        if (fd >= 0)
            close (fd);
    }
    if (vision >= 0)
        close (vision);
    if (sim > 0)
        sim_lab_stop (sim);
    return rc;
}

Test (team_client, the_first_command_after_the_first_vision_packet_is_answered, .timeout = 240)
{
    lab_t lab;
    char why[200];
    if (!s_lab (&lab, "first", why, sizeof why))
        cr_skip_test ("%s", why);
    cr_assert_eq (sim_lab_enter_netns (lab.ns), 0, "cannot enter the namespace");
    /* The one non-default: the realistic radio loses 1 % of commands and
       of answers by design ([realism] robot_command_loss,
       robot_response_loss), keyed by seed and sim time. A first command
       meets the same few sim times in every start, so with the default
       seed a start whose first answer comes at one of them loses it every
       time: that is the configured loss, not the race under test. */
    char ini[160];
    snprintf (ini, sizeof ini, "%s/no-radio-loss.ini", lab.dir);
    FILE *f = fopen (ini, "w");
    cr_assert_not_null (f);
    fputs ("[realism]\nrobot_command_loss = 0\nrobot_response_loss = 0\n", f);
    fclose (f);
    /* 30 starts, each to its first vision packet and one answer; the race
       this guards (vision before the gateway's ports) showed in about one
       start in 60 */
    int failed = 0;
    char first_why[256] = "";
    for (int i = 0; i < 30; i++) {
        char reason[160];
        if (s_first_command (&lab, ini, reason, sizeof reason)) {
            if (!failed++)
                snprintf (first_why, sizeof first_why, "start %d: %s", i, reason);
            sim_lab_sh ("tail -20 '%s/sim.log' >&2", lab.dir);
        }
        sim_lab_sh ("rm -f '%s/sim.log'", lab.dir);
    }
    s_lab_delete (&lab);
    cr_expect_eq (failed, 0, "%d of 30 first commands were not answered; %s", failed, first_why);
}
