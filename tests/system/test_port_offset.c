/*  test_port_offset.c - several simulators on one host (issue 6):
    `--port-offset N` shifts every UDP port and the runtime directory, so
    two four-process simulators started from the same configuration file
    and the same XDG_RUNTIME_DIR run side by side, each answering on its
    own ports and sending vision to its own port, and `ssl-sim status
    --port-offset N` finds the right one.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

/* Base ports free, and free again when shifted by the offset; returns the
   offset or -1. */
static int
s_pick_ports (sim_proc_t *base)
{
    for (int attempt = 0; attempt < 50; attempt++) {
        int offset = 100 + rand () % 2000;
        if (sim_proc_pick_ports (base))
            continue;
        const int ports[] = { base->control_port, base->blue_port,        base->yellow_port,
                              base->legacy_port,  base->status_blue_port, base->status_yellow_port,
                              base->truth_port,   base->vision_port };
        bool ok = true;
        for (size_t i = 0; i < sizeof ports / sizeof ports[0] && ok; i++) {
            int fd = ports[i] + offset < 65536 ? sim_test_udp (ports[i] + offset) : -1;
            ok = fd >= 0;
            if (fd >= 0)
                close (fd);
        }
        if (ok)
            return offset;
    }
    return -1;
}

Test (port_offset, two_simulators_side_by_side, .timeout = 60)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    srand ((unsigned) getpid ());
    sim_proc_t base;
    int offset = s_pick_ports (&base);
    cr_assert_gt (offset, 0, "no free port pairs");
    char ini[300], log0[300], log1[300], vision[64], off[16];
    snprintf (ini, sizeof ini, "%s/lab.ini", dir);
    snprintf (log0, sizeof log0, "%s/sim0.log", dir);
    snprintf (log1, sizeof log1, "%s/sim1.log", dir);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", base.vision_port);
    snprintf (off, sizeof off, "%d", offset);
    cr_assert_eq (sim_proc_write_ini (&base, ini, NULL), 0);

    int v0 = sim_test_udp (base.vision_port), v1 = sim_test_udp (base.vision_port + offset);
    int fd = sim_test_udp (0);
    cr_assert (v0 >= 0 && v1 >= 0 && fd >= 0);
    const char *a0[] = { "run",         "--config",      ini,    "--realism", "none",
                         "--localhost", "--vision-addr", vision, NULL };
    const char *a1[] = { "run",  "--config",      ini, "--realism", "none", "--localhost", "--vision-addr",
                         vision, "--port-offset", off, NULL };
    pid_t p0 = sim_lab_spawn (a0, dir, log0, NULL);
    pid_t p1 = sim_lab_spawn (a1, dir, log1, NULL);
    cr_assert (p0 > 0 && p1 > 0);

    /* each simulator is steered on its own control port and seen on its own
       vision port; the other one's robot stays where it was */
    bool ok0 = sim_test_teleport_blue0 (fd, base.control_port, -1.0, 0.5, 10000) >= 0;
    bool ok1 = sim_test_teleport_blue0 (fd, base.control_port + offset, 1.0, -0.5, 10000) >= 0;
    if (!ok0 || !ok1) {
        sim_lab_dump (log0);
        sim_lab_dump (log1);
    }
    cr_expect (ok0, "the first simulator did not answer on its control port");
    cr_expect (ok1, "the second simulator did not answer on control port + offset");
    cr_expect (sim_test_sees_blue0 (v0, -1.0, 0.5, 5000), "no vision of the first simulator's teleport");
    cr_expect (sim_test_sees_blue0 (v1, 1.0, -0.5, 5000), "no vision of the second simulator's teleport");
    cr_expect (!sim_test_sees_blue0 (v0, 1.0, -0.5, 500),
               "the second simulator's teleport leaked into the first");

    /* four processes each, in separate runtime directories */
    const char *names[] = { "physics", "vision", "gateway", "legacy-grsim" };
    for (int i = 0; i < 4; i++) {
        int a = sim_lab_wait_service (dir, 0, names[i], 0, 3000);
        int b = sim_lab_wait_service (dir, offset, names[i], 0, 3000);
        cr_expect (a > 0 && b > 0 && a != b, "%s: pids %d and %d", names[i], a, b);
    }
    char out[4096];
    int code = sim_lab_capture (out, sizeof out,
                                "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' --port-offset %d 2>&1", dir,
                                sim_lab_exe (), ini, offset);
    char want[64];
    snprintf (want, sizeof want, "/ssl-sim/%d", offset);
    cr_expect (code == 0 && strstr (out, want),
               "status --port-offset does not show the second simulator:\n%s", out);

    int c0 = sim_lab_stop (p0), c1 = sim_lab_stop (p1);
    if (c0 || c1) {
        sim_lab_dump (log0);
        sim_lab_dump (log1);
    }
    cr_expect (c0 == 0 && c1 == 0, "exit codes %d and %d", c0, c1);
    close (v0);
    close (v1);
    close (fd);
    sim_lab_sh ("rm -rf '%s'", dir);
}
