/*  test_tournament.c - tournament mode across hosts (issue 11).

    Four network namespaces made by the test: the simulator's host, and
    three client hosts joined to it by a veth pair each, at blue's,
    yellow's and an outsider's address. A whole `ssl-sim run` on the
    simulator's host has [tournament] on, with control = 127.0.0.1 (the
    operator on the simulator's own host). Each client sends to all three
    ports and gets only what its role allows; everything else is answered
    FORBIDDEN.

    Needs root and network namespaces (ip netns); skips with a message
    where they are not allowed. All addresses live inside the namespaces
    the test created, and all are deleted at the end.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_error.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define CONTROL_PORT 10300
#define BLUE_PORT    10301
#define YELLOW_PORT  10302
#define VISION_PORT  10020
#define WAIT_MS      3000

/* client hosts by role; the simulator's end of pair i is 10.231.2i.1 */
enum { BLUE, YELLOW, OUTSIDER, CLIENTS };
static const char *const s_roles[CLIENTS] = { "blue", "yellow", "outsider" };

typedef struct {
    char ns_sim[32], ns[CLIENTS][32];
    char dir[64];
} lab_t;

static void
s_sim_addr (int client, char *buf, size_t len)
{
    snprintf (buf, len, "10.231.%d.1", 21 + client);
}

static void
s_client_addr (int client, char *buf, size_t len)
{
    snprintf (buf, len, "10.231.%d.2", 21 + client);
}

static void
s_lab_delete (const lab_t *lab)
{
    /* deleting a namespace removes its ends of the veth pairs, and the pairs */
    sim_lab_sh ("ip netns del %s 2>/dev/null", lab->ns_sim);
    for (int c = 0; c < CLIENTS; c++)
        sim_lab_sh ("ip netns del %s 2>/dev/null", lab->ns[c]);
}

/* Build the four hosts; returns 0, or -1 with the reason in `why`. */
static int
s_lab_create (lab_t *lab, char *why, size_t len)
{
    int id = (int) getpid ();
    snprintf (lab->ns_sim, sizeof lab->ns_sim, "sslsim-t-%d", id);
    for (int c = 0; c < CLIENTS; c++)
        snprintf (lab->ns[c], sizeof lab->ns[c], "sslsim-t%d-%d", c, id);
    if (sim_lab_netns_add_first (lab->ns_sim, why, len))
        return -1;
    int rc = sim_lab_sh ("ip -n %s link set lo up", lab->ns_sim);
    for (int c = 0; c < CLIENTS; c++) {
        char sim[32], client[32], veth_s[32], veth_c[32];
        s_sim_addr (c, sim, sizeof sim);
        s_client_addr (c, client, sizeof client);
        snprintf (veth_s, sizeof veth_s, "sts%d%d", c, id % 100000);
        snprintf (veth_c, sizeof veth_c, "stc%d%d", c, id % 100000);
        rc |= sim_lab_sh ("ip netns add %s", lab->ns[c]);
        rc |= sim_lab_sh ("ip link add %s type veth peer name %s", veth_s, veth_c);
        rc |= sim_lab_sh ("ip link set %s netns %s && ip link set %s netns %s", veth_s, lab->ns_sim, veth_c,
                          lab->ns[c]);
        rc |= sim_lab_sh ("ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up", lab->ns_sim, sim,
                          veth_s, lab->ns_sim, veth_s);
        rc |= sim_lab_sh (
            "ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up && ip -n %s link set lo up",
            lab->ns[c], client, veth_c, lab->ns[c], veth_c, lab->ns[c]);
    }
    if (rc) {
        s_lab_delete (lab);
        snprintf (why, len, "could not set up the veth pairs between the namespaces");
        return -1;
    }
    return 0;
}

/* A UDP socket on any address of the current namespace, or -1. */
static int
s_udp (void)
{
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = { .sin_family = AF_INET };
    if (fd >= 0 && bind (fd, (struct sockaddr *) &any, sizeof any)) {
        close (fd);
        return -1;
    }
    return fd;
}

/* Send msg to ip:port and wait for the answer; its size, or -1. */
static ssize_t
s_call (int fd, const char *ip, int port, const ProtobufCMessage *msg, uint8_t *buf, size_t cap)
{
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, ip, &to.sin_addr);
    size_t len = protobuf_c_message_get_packed_size (msg);
    uint8_t out[256];
    if (len > sizeof out)
        return -1;
    protobuf_c_message_pack (msg, out);
    if (sendto (fd, out, len, 0, (struct sockaddr *) &to, sizeof to) != (ssize_t) len)
        return -1;
    return sim_test_recv (fd, buf, cap, WAIT_MS);
}

/* What the port answered: 1 a response without errors, 0 one with a
   FORBIDDEN error, -1 no answer or something else. */
static int
s_verdict (int port, const uint8_t *buf, ssize_t n)
{
    if (n < 0)
        return -1;
    SimulatorError **errors = NULL;
    size_t count = 0;
    SimulatorResponse *sr = NULL;
    RobotControlResponse *rr = NULL;
    if (port == CONTROL_PORT && (sr = simulator_response__unpack (NULL, (size_t) n, buf))) {
        errors = sr->errors;
        count = sr->n_errors;
    } else if (port != CONTROL_PORT && (rr = robot_control_response__unpack (NULL, (size_t) n, buf))) {
        errors = rr->errors;
        count = rr->n_errors;
    } else
        return -1;
    int verdict = count == 0 ? 1 : -1;
    for (size_t i = 0; i < count; i++)
        if (strcmp (errors[i]->code, "FORBIDDEN") == 0)
            verdict = 0;
    if (sr)
        simulator_response__free_unpacked (sr, NULL);
    if (rr)
        robot_control_response__free_unpacked (rr, NULL);
    return verdict;
}

/* The port's normal message, empty: a ping. */
static int
s_ping (int fd, const char *ip, int port)
{
    uint8_t buf[65536];
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    RobotControl rc = ROBOT_CONTROL__INIT;
    const ProtobufCMessage *msg = port == CONTROL_PORT ? &cmd.base : &rc.base;
    return s_verdict (port, buf, s_call (fd, ip, port, msg, buf, sizeof buf));
}

Test (tournament, each_host_gets_only_what_its_role_allows, .timeout = 60)
{
    lab_t lab;
    char why[200];
    if (s_lab_create (&lab, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return;
    }
    snprintf (lab.dir, sizeof lab.dir, "/tmp/ssl-sim-test-XXXXXX");
    cr_expect_not_null (mkdtemp (lab.dir));
    char ini[128], log[128], blue[32], yellow[32];
    snprintf (ini, sizeof ini, "%s/match.ini", lab.dir);
    snprintf (log, sizeof log, "%s/sim.log", lab.dir);
    s_client_addr (BLUE, blue, sizeof blue);
    s_client_addr (YELLOW, yellow, sizeof yellow);
    FILE *f = fopen (ini, "w");
    cr_expect_not_null (f);
    if (f) {
        /* the protocol ports on every address of the simulator's host
           (no --localhost); vision stays on that host */
        fprintf (f,
                 "[run]\nvision_addr = 127.0.0.1:%d\nrealism = none\nlegacy_grsim = false\n"
                 "[tournament]\nenabled = true\nblue = %s\nyellow = %s\ncontrol = 127.0.0.1\n",
                 VISION_PORT, blue, yellow);
        fclose (f);
    }
    const char *args[] = { "run", "--config", ini, NULL };
    pid_t pid = sim_lab_spawn (args, lab.dir, log, lab.ns_sim);
    cr_expect_gt (pid, 0);

    /* one socket per host: a socket stays in the namespace it was made in */
    int fds[CLIENTS + 1];
    for (int c = 0; c <= CLIENTS; c++) {
        const char *ns = c < CLIENTS ? lab.ns[c] : lab.ns_sim;
        fds[c] = sim_lab_enter_netns (ns) == 0 ? s_udp () : -1;
        cr_expect_geq (fds[c], 0, "no socket in %s", ns);
    }
    int control = fds[CLIENTS];
    bool ready = false;
    int64_t end = sim_test_now_ms () + 20000;
    while (control >= 0 && !ready && sim_test_now_ms () < end)
        ready = s_ping (control, "127.0.0.1", CONTROL_PORT) == 1;
    cr_expect (ready, "the operator on the simulator's host got no answer on the control port");

    if (ready) {
        const int ports[3] = { CONTROL_PORT, BLUE_PORT, YELLOW_PORT };
        /* expected per (client, port): 1 answered, 0 FORBIDDEN */
        const int allowed[CLIENTS][3] = { { 0, 1, 0 }, { 0, 0, 1 }, { 0, 0, 0 } };
        for (int c = 0; c < CLIENTS; c++)
            for (int p = 0; p < 3; p++) {
                char sim[32];
                s_sim_addr (c, sim, sizeof sim);
                int got = fds[c] >= 0 ? s_ping (fds[c], sim, ports[p]) : -1;
                cr_expect_eq (got, allowed[c][p], "%s on port %d: %d (1 answered, 0 FORBIDDEN, -1 neither)",
                              s_roles[c], ports[p], got);
            }
        /* the operator's teleport is applied; blue may not step the simulator */
        cr_expect_eq (sim_test_teleport_blue0 (control, CONTROL_PORT, -1.0, 0.5, 5000), 1);
        SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
        sync.has_sim_step = true;
        sync.sim_step = 0.01f;
        uint8_t buf[65536];
        char sim_blue[32];
        s_sim_addr (BLUE, sim_blue, sizeof sim_blue);
        ssize_t n =
            fds[BLUE] >= 0 ? s_call (fds[BLUE], sim_blue, BLUE_PORT, &sync.base, buf, sizeof buf) : -1;
        SimulationSyncResponse *r = n >= 0 ? simulation_sync_response__unpack (NULL, (size_t) n, buf) : NULL;
        cr_expect (r && r->robot_control_response && r->robot_control_response->n_errors == 1
                       && strcmp (r->robot_control_response->errors[0]->code, "FORBIDDEN") == 0,
                   "blue's sync request was not refused");
        if (r)
            simulation_sync_response__free_unpacked (r, NULL);
    }
    for (int c = 0; c <= CLIENTS; c++)
        if (fds[c] >= 0)
            close (fds[c]);
    int code = pid > 0 ? sim_lab_stop (pid) : -1;
    cr_expect_eq (code, 0, "ssl-sim exited with %d", code);
    if (!ready || code != 0)
        sim_lab_dump (log);
    s_lab_delete (&lab);
    sim_lab_sh ("rm -rf '%s'", lab.dir);
}
