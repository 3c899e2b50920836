/*  test_tournament.c - tournament mode and trusted sources across hosts
    (issues 11 and 24).

    Four network namespaces made by the test: the simulator's host, and
    three client hosts joined to it by a veth pair each, at blue's,
    yellow's and an outsider's address. In the first test a whole `ssl-sim
    run` on the simulator's host has [tournament] on, with control =
    127.0.0.1 (the operator on the simulator's own host). Each client
    sends to all three ports and gets only what its role allows;
    everything else is answered FORBIDDEN, to the outsider (no address of
    the match) within three times its request's bytes.

    The second test runs the defaults plus [network] trusted_sources =
    blue's host: loopback and the trusted host get a sync step's frames,
    the outsider at most three times its request's bytes, with an
    UNTRUSTED error that names the setting when its request leaves room
    for one (docs/protocol.md, "Amplification"). The third, with the same
    settings, sends grSim commands from the trusted host and then from
    the outsider (what a forged source looks like to the simulator): the
    trusted host hears a full Robots_Status, the outsider never more
    than three times the bytes of its commands (docs/protocol.md,
    "Robots_Status and forged sources").

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
#include "grSim_Packet.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_error.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define CONTROL_PORT 10300
#define BLUE_PORT    10301
#define YELLOW_PORT  10302
#define VISION_PORT  10020
#define LEGACY_PORT  20011
#define STATUS_BLUE  30011 /* [network] legacy_status_port_blue */
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
    int rc = 0; /* its lo is up: sim_lab_netns_add_first */
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

/* Send len bytes to ip:port and wait up to ms for the answer; its size,
   or -1. */
static ssize_t
s_call_raw (int fd, const char *ip, int port, const uint8_t *out, size_t len, uint8_t *buf, size_t cap,
            int ms)
{
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, ip, &to.sin_addr);
    if (sendto (fd, out, len, 0, (struct sockaddr *) &to, sizeof to) != (ssize_t) len)
        return -1;
    return sim_test_recv (fd, buf, cap, ms);
}

/* Send msg to ip:port and wait for the answer; its size, or -1. */
static ssize_t
s_call (int fd, const char *ip, int port, const ProtobufCMessage *msg, uint8_t *buf, size_t cap)
{
    size_t len = protobuf_c_message_get_packed_size (msg);
    uint8_t out[1024];
    if (len > sizeof out)
        return -1;
    protobuf_c_message_pack (msg, out);
    return s_call_raw (fd, ip, port, out, len, buf, cap, WAIT_MS);
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

/* Send `packet` from fd to ip's grSim port; its size. */
static size_t
s_grsim_send (int fd, const char *ip, const GrSimPacket *packet)
{
    uint8_t out[1024];
    size_t len = gr_sim__packet__get_packed_size (packet);
    cr_assert_leq (len, sizeof out);
    gr_sim__packet__pack (packet, out);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons (LEGACY_PORT) };
    inet_pton (AF_INET, ip, &to.sin_addr);
    cr_expect_eq (sendto (fd, out, len, 0, (struct sockaddr *) &to, sizeof to), (ssize_t) len);
    return len;
}

/* A grSim packet from `fd` to ip's grSim port that commands blue robot 0
   and puts it at (x, y): what yellow's address did in issue 24. */
static void
s_grsim_blue0 (int fd, const char *ip, double x, double y)
{
    GrSimRobotReplacement rr = GR_SIM__ROBOT_REPLACEMENT__INIT;
    rr.x = x;
    rr.y = y;
    GrSimRobotReplacement *rrs[] = { &rr };
    GrSimReplacement rep = GR_SIM__REPLACEMENT__INIT;
    rep.n_robots = 1;
    rep.robots = rrs;
    GrSimRobotCommand rc = GR_SIM__ROBOT__COMMAND__INIT;
    rc.veltangent = 1.0f;
    GrSimRobotCommand *rcs[] = { &rc };
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.n_robot_commands = 1;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    packet.replacement = &rep;
    s_grsim_send (fd, ip, &packet);
}

#define S_PADDED 40 /* bytes of the outsider's pings: room for FORBIDDEN and its message */

/* The port's normal message, S_PADDED bytes long (an unknown field the
   gateway drops), and what came back: as s_verdict, -2 for an answer
   larger than 3x the request. */
static int
s_padded_ping (int fd, const char *ip, int port)
{
    uint8_t out[S_PADDED], buf[65536];
    /* field 15, length-delimited: 0x7a, its length, then filler */
    out[0] = 0x7a;
    out[1] = S_PADDED - 2;
    memset (out + 2, 'x', S_PADDED - 2);
    ssize_t n = s_call_raw (fd, ip, port, out, sizeof out, buf, sizeof buf, WAIT_MS);
    if (n > 3 * S_PADDED)
        return -2;
    return s_verdict (port, buf, n);
}

/* A lab with `ssl-sim run --config INI` on the simulator's host, INI
   holding `ini_text`, and one client socket per host (fds[CLIENTS]: the
   simulator's own). */
typedef struct {
    lab_t lab;
    char log[128];
    pid_t pid;
    int fds[CLIENTS + 1];
} run_t;

/* Build the lab and start the run; false (the test skipped) when the
   namespaces cannot be made. The calling thread ends in the simulator's
   namespace. */
static bool
s_run_start (run_t *run, const char *ini_text)
{
    char why[200];
    if (s_lab_create (&run->lab, why, sizeof why)) {
        cr_skip_test ("skipped: %s", why);
        return false;
    }
    snprintf (run->lab.dir, sizeof run->lab.dir, "/tmp/ssl-sim-test-XXXXXX");
    cr_expect_not_null (mkdtemp (run->lab.dir));
    char ini[128];
    snprintf (ini, sizeof ini, "%s/sim.ini", run->lab.dir);
    snprintf (run->log, sizeof run->log, "%s/sim.log", run->lab.dir);
    FILE *f = fopen (ini, "w");
    cr_expect_not_null (f);
    if (f) {
        fputs (ini_text, f);
        fclose (f);
    }
    const char *args[] = { "run", "--config", ini, NULL };
    run->pid = sim_lab_spawn (args, run->lab.dir, run->log, run->lab.ns_sim);
    cr_expect_gt (run->pid, 0);
    /* one socket per host: a socket stays in the namespace it was made in */
    for (int c = 0; c <= CLIENTS; c++) {
        const char *ns = c < CLIENTS ? run->lab.ns[c] : run->lab.ns_sim;
        run->fds[c] = sim_lab_enter_netns (ns) == 0 ? s_udp () : -1;
        cr_expect_geq (run->fds[c], 0, "no socket in %s", ns);
    }
    return true;
}

/* Close the sockets, stop the run (its log printed when it failed or
   `dump`), delete the lab. */
static void
s_run_stop (run_t *run, bool dump)
{
    for (int c = 0; c <= CLIENTS; c++)
        if (run->fds[c] >= 0)
            close (run->fds[c]);
    int code = run->pid > 0 ? sim_lab_stop (run->pid) : -1;
    cr_expect_eq (code, 0, "ssl-sim exited with %d", code);
    if (dump || code != 0)
        sim_lab_dump (run->log);
    s_lab_delete (&run->lab);
    sim_lab_sh ("rm -rf '%s'", run->lab.dir);
}

Test (tournament, each_host_gets_only_what_its_role_allows, .timeout = 60)
{
    char blue[32], yellow[32], text[512];
    s_client_addr (BLUE, blue, sizeof blue);
    s_client_addr (YELLOW, yellow, sizeof yellow);
    /* the protocol ports on every address of the simulator's host (no
       --localhost); vision stays on that host */
    snprintf (text, sizeof text,
              "[run]\nvision_addr = 127.0.0.1:%d\nrealism = none\n"
              "[tournament]\nenabled = true\nblue = %s\nyellow = %s\ncontrol = 127.0.0.1\n",
              VISION_PORT, blue, yellow);
    run_t run;
    if (!s_run_start (&run, text))
        return;
    int *fds = run.fds;
    const char *log = run.log;
    int control = fds[CLIENTS];
    int vision = sim_test_udp (VISION_PORT); /* still in the simulator's namespace */
    bool ready = false;
    int64_t end = sim_test_now_ms () + 20000;
    while (control >= 0 && !ready && sim_test_now_ms () < end)
        ready = s_ping (control, "127.0.0.1", CONTROL_PORT) == 1;
    cr_expect (ready, "the operator on the simulator's host got no answer on the control port");

    if (ready) {
        const int ports[3] = { CONTROL_PORT, BLUE_PORT, YELLOW_PORT };
        /* expected per (client, port): 1 answered, 0 FORBIDDEN. The
           outsider is no address of the match: its empty ping earns no
           byte (docs/protocol.md, "Amplification"), so its pings are
           padded to S_PADDED bytes */
        const int allowed[CLIENTS][3] = { { 0, 1, 0 }, { 0, 0, 1 }, { 0, 0, 0 } };
        for (int c = 0; c < CLIENTS; c++)
            for (int p = 0; p < 3; p++) {
                char sim[32];
                s_sim_addr (c, sim, sizeof sim);
                int got = fds[c] < 0    ? -1
                        : c == OUTSIDER ? s_padded_ping (fds[c], sim, ports[p])
                                        : s_ping (fds[c], sim, ports[p]);
                cr_expect_eq (got, allowed[c][p], "%s on port %d: %d (1 answered, 0 FORBIDDEN, -1 neither)",
                              s_roles[c], ports[p], got);
            }
        /* and unpadded, nothing at all */
        char sim_out[32];
        s_sim_addr (OUTSIDER, sim_out, sizeof sim_out);
        uint8_t answer[65536];
        for (int p = 0; p < 3 && fds[OUTSIDER] >= 0; p++)
            cr_expect_lt (
                s_call_raw (fds[OUTSIDER], sim_out, ports[p], answer, 0, answer, sizeof answer, 500), 0,
                "an empty datagram from the outsider was answered on port %d", ports[p]);
        /* the operator's teleport is applied; blue may not step the simulator */
        cr_expect_eq (sim_test_teleport_blue0 (control, CONTROL_PORT, -1.0, 0.5, 5000), 1);
        /* the grSim port too (issue 24): yellow's packet that commands and
           places a blue robot is dropped (the log says so), the
           operator's placement after it is applied */
        char sim_yellow[32];
        s_sim_addr (YELLOW, sim_yellow, sizeof sim_yellow);
        if (fds[YELLOW] >= 0)
            s_grsim_blue0 (fds[YELLOW], sim_yellow, 2.0, 2.0);
        cr_expect_eq (sim_lab_wait_text (log, "grSim port: tournament mode", WAIT_MS), 0,
                      "yellow's grSim packet was not refused");
        s_grsim_blue0 (control, "127.0.0.1", 1.5, -1.0);
        cr_expect (vision >= 0 && sim_test_sees_blue0 (vision, 1.5, -1.0, WAIT_MS),
                   "the operator's grSim placement was not applied");
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
    if (vision >= 0)
        close (vision);
    s_run_stop (&run, !ready);
}

/* The codes of a SimulationSyncResponse's errors, and whether one of their
   messages holds `text`. */
static bool
s_sync_error (const SimulationSyncResponse *r, const char *code, const char *text)
{
    const RobotControlResponse *rr = r->robot_control_response;
    for (size_t i = 0; rr && i < rr->n_errors; i++)
        if (strcmp (rr->errors[i]->code, code) == 0
            && (!text || (rr->errors[i]->message && strstr (rr->errors[i]->message, text))))
            return true;
    return false;
}

/* s_run_start with the defaults (tournament mode off) but for the one key
   under test: [network] trusted_sources = blue's host; vision stays on
   the simulator's host. */
static bool
s_run_start_trusting_blue (run_t *run)
{
    char trusted[32], text[256];
    s_client_addr (BLUE, trusted, sizeof trusted);
    snprintf (text, sizeof text, "[run]\nvision_addr = 127.0.0.1:%d\n[network]\ntrusted_sources = %s\n",
              VISION_PORT, trusted);
    return s_run_start (run, text);
}

Test (tournament, only_trusted_hosts_get_a_sync_steps_frames, .timeout = 60)
{
    run_t run;
    if (!s_run_start_trusting_blue (&run))
        return;
    int *fds = run.fds;
    int local = fds[CLIENTS];
    /* loopback: the gateway answers (probed from a socket of its own in
       the simulator's namespace, sim_test.h), then frames once vision has
       its configuration */
    int probe = sim_lab_enter_netns (run.lab.ns_sim) == 0 ? s_udp () : -1;
    bool ready = local >= 0 && probe >= 0 && sim_test_wait_ready (probe, CONTROL_PORT, 20000) == 0
              && sim_test_sync_warm_up (local, CONTROL_PORT, 20000) > 0;
    cr_expect (ready, "loopback got no sync step with frames");
    if (ready) {
        SimulationSyncRequest sync = SIMULATION_SYNC_REQUEST__INIT;
        sync.has_sim_step = true;
        sync.sim_step = 0.5f; /* about 70 frames: tens of kB */
        uint8_t req[8], buf[65536];
        size_t len = simulation_sync_request__pack (&sync, req);
        cr_assert_eq (len, 5);
        /* vision may miss sync_timeout on a loaded machine (the answer then
           has no frames, and nothing to cut): each host asks until an
           answer shows what it gets, and no answer to the outsider is
           ever over its cap */
        for (int c = 0; c < CLIENTS; c += OUTSIDER - BLUE) {
            char sim[32];
            s_sim_addr (c, sim, sizeof sim);
            bool shown = false;
            int64_t end = sim_test_now_ms () + 15000;
            while (fds[c] >= 0 && !shown && sim_test_now_ms () < end) {
                ssize_t n = s_call_raw (fds[c], sim, CONTROL_PORT, req, len, buf, sizeof buf, WAIT_MS);
                SimulationSyncResponse *r =
                    n >= 0 ? simulation_sync_response__unpack (NULL, (size_t) n, buf) : NULL;
                if (c == OUTSIDER && n >= 0)
                    cr_expect_leq (n, 3 * (ssize_t) len, "%zd bytes for a %zu-byte request", n, len);
                shown = r && (c == BLUE ? r->n_detection > 10 : s_sync_error (r, "UNTRUSTED", NULL));
                if (r)
                    simulation_sync_response__free_unpacked (r, NULL);
            }
            cr_expect (shown, "%s",
                       c == BLUE ? "the trusted host never got the frames of a step"
                                 : "the outsider's answer was never cut with UNTRUSTED");
        }
        /* a longer request leaves room for the message, which names the key */
        sync.simulator_command = NULL;
        SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
        SimulatorControl control = SIMULATOR_CONTROL__INIT;
        TeleportRobot robots[3], *ptrs[3];
        RobotId ids[3];
        for (int i = 0; i < 3; i++) {
            robot_id__init (&ids[i]);
            ids[i].has_id = ids[i].has_team = true;
            ids[i].id = (uint32_t) i;
            ids[i].team = TEAM__BLUE;
            teleport_robot__init (&robots[i]);
            robots[i].id = &ids[i];
            robots[i].has_x = robots[i].has_y = robots[i].has_orientation = true;
            robots[i].x = -1.0f - (float) i;
            robots[i].y = 1.0f;
            robots[i].orientation = 0.5f;
            ptrs[i] = &robots[i];
        }
        control.n_teleport_robot = 3;
        control.teleport_robot = ptrs;
        cmd.control = &control;
        sync.simulator_command = &cmd;
        uint8_t big[256];
        len = simulation_sync_request__pack (&sync, big);
        char sim[32];
        s_sim_addr (OUTSIDER, sim, sizeof sim);
        bool named = false;
        int64_t end = sim_test_now_ms () + 15000;
        while (fds[OUTSIDER] >= 0 && !named && sim_test_now_ms () < end) {
            ssize_t n = s_call_raw (fds[OUTSIDER], sim, CONTROL_PORT, big, len, buf, sizeof buf, WAIT_MS);
            SimulationSyncResponse *r =
                n >= 0 ? simulation_sync_response__unpack (NULL, (size_t) n, buf) : NULL;
            if (n >= 0)
                cr_expect_leq (n, 3 * (ssize_t) len, "%zd bytes for a %zu-byte request", n, len);
            if (r) {
                cr_expect_eq (r->n_detection, 0, "an untrusted host got frames");
                named = s_sync_error (r, "UNTRUSTED", "[network] trusted_sources");
                simulation_sync_response__free_unpacked (r, NULL);
            }
        }
        cr_expect (named, "no cut answer named the setting");
    }
    if (probe >= 0)
        close (probe);
    s_run_stop (&run, !ready);
}

/* A UDP socket on `port` of any address of namespace `ns` (the calling
   thread is left there), or -1. */
static int
s_udp_in (const char *ns, int port)
{
    if (sim_lab_enter_netns (ns))
        return -1;
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    if (fd >= 0 && bind (fd, (struct sockaddr *) &any, sizeof any)) {
        close (fd);
        return -1;
    }
    return fd;
}

/* grSim commands for `robots` blue robots from fd to ip's grSim port;
   the datagram's size. */
static size_t
s_grsim_commands (int fd, const char *ip, int robots)
{
    GrSimRobotCommand rc[16], *rcs[16];
    for (int i = 0; i < robots && i < 16; i++) {
        gr_sim__robot__command__init (&rc[i]);
        rc[i].id = (uint32_t) i;
        rc[i].veltangent = 0.5f;
        rcs[i] = &rc[i];
    }
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.n_robot_commands = (size_t) robots;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    return s_grsim_send (fd, ip, &packet);
}

Test (tournament, a_grsim_peer_on_another_host_hears_at_most_3x_its_commands, .timeout = 90)
{
    run_t run;
    if (!s_run_start_trusting_blue (&run))
        return;
    int *fds = run.fds;
    int hear[CLIENTS] = { -1, -1, -1 };
    for (int c = BLUE; c < CLIENTS; c += OUTSIDER - BLUE) {
        hear[c] = s_udp_in (run.lab.ns[c], STATUS_BLUE);
        cr_expect_geq (hear[c], 0, "no socket on blue's status port in %s", run.lab.ns[c]);
    }
    char sim_blue[32], sim_out[32];
    s_sim_addr (BLUE, sim_blue, sizeof sim_blue);
    s_sim_addr (OUTSIDER, sim_out, sizeof sim_out);
    uint8_t buf[65536];

    /* the trusted host: its first status is the full one (every robot of
       the formation), far over 3x a commands packet that moves no robot */
    ssize_t full = -1;
    size_t len = 0;
    int64_t end = sim_test_now_ms () + 20000;
    while (fds[BLUE] >= 0 && hear[BLUE] >= 0 && full < 0 && sim_test_now_ms () < end) {
        len = s_grsim_commands (fds[BLUE], sim_blue, 0);
        full = sim_test_recv (hear[BLUE], buf, sizeof buf, 500);
    }
    cr_expect_gt (full, 3 * (ssize_t) len, "the trusted host's first status: %zd bytes for %zu", full, len);

    if (full > 0 && fds[OUTSIDER] >= 0 && hear[OUTSIDER] >= 0) {
        /* the outsider's same packet: blue's peer now, its status is owed
           and withheld (the log says so, naming the key); nothing over 3x */
        size_t sent = s_grsim_commands (fds[OUTSIDER], sim_out, 0);
        cr_expect_eq (sim_lab_wait_text (run.log, "withheld", WAIT_MS), 0, "no status was withheld");
        cr_expect_eq (sim_lab_wait_text (run.log, "[network] trusted_sources", WAIT_MS), 0);
        size_t got = 0;
        ssize_t n;
        while ((n = sim_test_recv (hear[OUTSIDER], buf, sizeof buf, 0)) >= 0)
            got += (size_t) n;
        cr_expect_leq (got, 3 * sent, "%zu bytes of status for %zu bytes of commands", got, sent);
        /* a client that keeps commanding its robots earns its status */
        bool heard = false;
        for (int i = 0; i < 40 && !heard; i++) {
            sent += s_grsim_commands (fds[OUTSIDER], sim_out, 6);
            while ((n = sim_test_recv (hear[OUTSIDER], buf, sizeof buf, heard ? 0 : 100)) >= 0) {
                got += (size_t) n;
                heard = true;
            }
        }
        cr_expect (heard, "an outsider that keeps sending commands never heard its status");
        cr_expect_leq (got, 3 * sent, "%zu bytes of status for %zu bytes of commands", got, sent);
    }
    for (int c = 0; c < CLIENTS; c++)
        if (hear[c] >= 0)
            close (hear[c]);
    s_run_stop (&run, full <= 0);
}
