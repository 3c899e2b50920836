/*  test_netns.c - services on several hosts over tcp endpoints (issue 6).

    Two network namespaces made by the test stand for two lab hosts, joined
    by a veth pair: physics runs alone in "host A"; vision and gateway run
    in "host B", each as `ssl-sim service NAME` (what the systemd units
    run), with the [bus] section pointing at A's address. A client in B
    teleports a robot through the gateway and sees it in B's vision.

    Needs root and network namespaces (ip netns); skips with a message
    where they are not allowed. All addresses live inside the two
    namespaces the test created, and both are deleted at the end.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_lab.h"
#include "sim_test.h"

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
    if (geteuid () != 0) {
        snprintf (why, len, "needs root for ip netns");
        return -1;
    }
    if (sim_lab_sh ("command -v ip >/dev/null") != 0) {
        snprintf (why, len, "the ip command (iproute2) is not installed");
        return -1;
    }
    if (sim_lab_sh ("ip netns add %s", lab->ns_a) != 0) {
        snprintf (why, len, "network namespaces are not allowed here (ip netns add failed)");
        return -1;
    }
    int rc = sim_lab_sh ("ip netns add %s", lab->ns_b);
    rc |= sim_lab_sh ("ip link add %s type veth peer name %s", lab->veth_a, lab->veth_b);
    rc |= sim_lab_sh ("ip link set %s netns %s && ip link set %s netns %s", lab->veth_a, lab->ns_a,
                      lab->veth_b, lab->ns_b);
    rc |= sim_lab_sh ("ip -n %s addr add " HOST_A_ADDR "/24 dev %s && ip -n %s link set %s up"
                      " && ip -n %s link set lo up",
                      lab->ns_a, lab->veth_a, lab->ns_a, lab->veth_a, lab->ns_a);
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
