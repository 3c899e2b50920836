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

#include "common/logs/sim_logfile.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"
#include "tests/support/sim_ws.h"

/* The test's runtime directory (made from the template in dir), its ports
   in base and n_extra more in extra[], and the offset that moves them
   (the test fails without). */
static int
s_lab (char *dir, sim_proc_t *base, int *extra, int n_extra)
{
    cr_assert_not_null (mkdtemp (dir));
    int offset = sim_proc_pick_moved_ports (base, extra, n_extra);
    cr_assert_gt (offset, 0, "no run of free ports for the simulator and its moved copy");
    return offset;
}

Test (port_offset, two_simulators_side_by_side, .timeout = 60)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    sim_proc_t base;
    int offset = s_lab (dir, &base, NULL, 0);
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
    bool seen0 = sim_test_sees_blue0 (v0, -1.0, 0.5, 5000), seen1 = sim_test_sees_blue0 (v1, 1.0, -0.5, 5000);
    bool leaked = sim_test_sees_blue0 (v0, 1.0, -0.5, 500);
    if (!seen0 || !seen1 || leaked) {
        /* what each simulator's services said (a CI run once missed the
           second one's vision with nothing else to go on) */
        sim_lab_dump (log0);
        sim_lab_dump (log1);
    }
    cr_expect (seen0, "no vision of the first simulator's teleport");
    cr_expect (seen1, "no vision of the second simulator's teleport");
    cr_expect (!leaked, "the second simulator's teleport leaked into the first");

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

Test (port_offset, moves_every_port_given_or_default_the_referee_and_the_viewer_too, .timeout = 60)
{
    /* the rule of docs/operations.md section 2: one file and one offset
       make a second complete setup, so a port given in the file or as a
       flag moves like a default one, and the referee (the second game
       controller's port) moves with the rest */
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    sim_proc_t base;
    int moved[2];
    int offset = s_lab (dir, &base, moved, 2);
    int referee = moved[0], viewer = moved[1];
    char ini[300], log[300], rec[300], extra[64], vision[64], off[16], viewer_addr[64];
    snprintf (ini, sizeof ini, "%s/lab.ini", dir);
    snprintf (log, sizeof log, "%s/sim.log", dir);
    snprintf (rec, sizeof rec, "%s/game.log", dir);
    snprintf (extra, sizeof extra, "referee_addr = 127.0.0.1:%d\n", referee);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", base.vision_port);
    snprintf (viewer_addr, sizeof viewer_addr, "127.0.0.1:%d", viewer);
    snprintf (off, sizeof off, "%d", offset);
    cr_assert_eq (sim_proc_write_ini (&base, ini, extra), 0);
    int v = sim_test_udp (base.vision_port + offset), fd = sim_test_udp (0);
    cr_assert (v >= 0 && fd >= 0);
    const char *args[] = {
        "run",  "--config",      ini,         "--realism",     "none", "--localhost", "--vision-addr",
        vision, "--viewer-addr", viewer_addr, "--port-offset", off,    "--record",    rec,
        NULL
    };
    pid_t pid = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (pid, 0);
    bool answered = sim_test_teleport_blue0 (fd, base.control_port + offset, -1.0, 0.5, 10000) >= 0;
    cr_expect (answered, "no answer on control port + offset");
    cr_expect (sim_test_sees_blue0 (v, -1.0, 0.5, 5000), "no vision on --vision-addr's port + offset");
    char said[128];
    snprintf (said, sizeof said, "viewer on http://127.0.0.1:%d/", viewer + offset);
    cr_expect_eq (sim_lab_wait_text (log, said, 5000), 0, "the log does not say: %s", said);
    char *body = NULL;
    int status = sim_http_get (viewer + offset, "/metrics", &body);
    cr_expect_eq (status, 200, "the viewer on --viewer-addr's port + offset: %d", status);
    free (body);
    /* a game controller publishing on the referee port + offset, paced by
       the camera frames; vision's recorder listens there */
    int sent = 0;
    uint8_t buf[65536];
    while (sent < 10 && sim_test_recv (v, buf, sizeof buf, 2000) > 0)
        if (sim_test_send_raw (fd, referee + offset, "referee", 7) == 0)
            sent++;
    int code = sim_lab_stop (pid);
    cr_expect_eq (code, 0, "exit code %d", code);
    char err[256];
    int got = 0;
    sim_logfile_reader_t *r = sim_logfile_reader_new (rec, err, sizeof err);
    cr_expect_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    while (r && sim_logfile_next (r, &m) == 1)
        got += m.type == SIM_LOGFILE_REFEREE;
    sim_logfile_reader_destroy (&r);
    /* the last ones may still be queued when vision stops */
    cr_expect (got > 0 && got <= sent,
               "recorded %d of the %d referee messages sent to the referee port + offset", got, sent);
    if (!answered || code || got == 0)
        sim_lab_dump (log);
    close (v);
    close (fd);
    sim_lab_sh ("rm -rf '%s'", dir);
}
