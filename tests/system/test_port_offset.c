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
#include <sys/wait.h>
#include <unistd.h>

#include "sim_lab.h"
#include "sim_test.h"

enum { P_CONTROL, P_BLUE, P_YELLOW, P_LEGACY, P_STATUS_B, P_STATUS_Y, P_TRUTH, P_VISION, P_COUNT };

/* Base ports free, and free again when shifted by the offset. */
static int
s_pick_ports (int base[P_COUNT])
{
    for (int attempt = 0; attempt < 50; attempt++) {
        int offset = 100 + rand () % 2000;
        bool ok = true;
        for (int i = 0; i < P_COUNT && ok; i++) {
            base[i] = sim_test_free_port ();
            int fd = base[i] > 0 && base[i] + offset < 65536 ? sim_test_udp (base[i] + offset) : -1;
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
    int base[P_COUNT];
    int offset = s_pick_ports (base);
    cr_assert_gt (offset, 0, "no free port pairs");
    char ini[300], log0[300], log1[300], vision[64], off[16];
    snprintf (ini, sizeof ini, "%s/lab.ini", dir);
    snprintf (log0, sizeof log0, "%s/sim0.log", dir);
    snprintf (log1, sizeof log1, "%s/sim1.log", dir);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", base[P_VISION]);
    snprintf (off, sizeof off, "%d", offset);
    FILE *f = fopen (ini, "w");
    cr_assert_not_null (f);
    fprintf (f, "[network]\nbind_address = 127.0.0.1\ncontrol_port = %d\nblue_port = %d\n"
                "yellow_port = %d\nlegacy_port = %d\nlegacy_status_port_blue = %d\n"
                "legacy_status_port_yellow = %d\ntruth_port = %d\n",
             base[P_CONTROL], base[P_BLUE], base[P_YELLOW], base[P_LEGACY], base[P_STATUS_B],
             base[P_STATUS_Y], base[P_TRUTH]);
    fclose (f);

    int v0 = sim_test_udp (base[P_VISION]), v1 = sim_test_udp (base[P_VISION] + offset);
    int fd = sim_test_udp (0);
    cr_assert (v0 >= 0 && v1 >= 0 && fd >= 0);
    const char *a0[] = { "run", "--config", ini, "--realism", "none", "--localhost", "--vision-addr",
                         vision, NULL };
    const char *a1[] = { "run", "--config", ini, "--realism", "none", "--localhost", "--vision-addr",
                         vision, "--port-offset", off, NULL };
    pid_t p0 = sim_lab_spawn (a0, dir, log0, NULL);
    pid_t p1 = sim_lab_spawn (a1, dir, log1, NULL);
    cr_assert (p0 > 0 && p1 > 0);

    /* each simulator is steered on its own control port and seen on its own
       vision port; the other one's robot stays where it was */
    bool ok0 = sim_test_teleport_blue0 (fd, base[P_CONTROL], -1.0, 0.5, 10000) >= 0;
    bool ok1 = sim_test_teleport_blue0 (fd, base[P_CONTROL] + offset, 1.0, -0.5, 10000) >= 0;
    if (!ok0 || !ok1) {
        sim_lab_dump (log0);
        sim_lab_dump (log1);
    }
    cr_expect (ok0, "the first simulator did not answer on its control port");
    cr_expect (ok1, "the second simulator did not answer on control port + offset");
    cr_expect (sim_test_sees_blue0 (v0, -1.0, 0.5, 5000), "no vision of the first simulator's teleport");
    cr_expect (sim_test_sees_blue0 (v1, 1.0, -0.5, 5000), "no vision of the second simulator's teleport");
    cr_expect (!sim_test_sees_blue0 (v0, 1.0, -0.5, 500), "the second simulator's teleport leaked into the first");

    /* four processes each, in separate runtime directories */
    const char *names[] = { "physics", "vision", "gateway", "legacy-grsim" };
    for (int i = 0; i < 4; i++) {
        int a = sim_lab_wait_service (dir, 0, names[i], 3000);
        int b = sim_lab_wait_service (dir, offset, names[i], 3000);
        cr_expect (a > 0 && b > 0 && a != b, "%s: pids %d and %d", names[i], a, b);
    }
    char cmd[1024], out[4096] = "";
    snprintf (cmd, sizeof cmd, "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' --port-offset %d 2>&1", dir,
              sim_lab_exe (), ini, offset);
    FILE *p = popen (cmd, "r");
    cr_assert_not_null (p);
    size_t n = fread (out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose (p);
    char want[64];
    snprintf (want, sizeof want, "/ssl-sim/%d", offset);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0 && strstr (out, want),
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
