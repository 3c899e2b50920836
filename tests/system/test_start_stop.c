/*  test_start_stop.c - `ssl-sim run` stopped while it starts its services
    stops them all (issue 23).

    The launcher logs "started NAME" right after it forked NAME's process,
    which may not have run the service yet: a SIGTERM the launcher passes
    on then must still stop it. (It once reached the launcher's own
    handler, inherited by the fork, was lost, and the service ran on while
    the launcher waited for it.) Each start is stopped the moment a
    service's start is logged, for each service in turn.
*/
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

#define STOP_MS 8000 /* the launcher's own grace (5 s) and a margin */

Test (start_stop, a_run_stopped_while_it_starts_a_service_stops_every_service, .timeout = 240)
{
    static const char *const services[] = { "physics", "gateway", "vision", "legacy-grsim", "viewer" };
    sim_proc_t proc;
    cr_assert_eq (sim_proc_pick_ports (&proc), 0);
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[64], log[64];
    snprintf (ini, sizeof ini, "%s/test.ini", dir);
    snprintf (log, sizeof log, "%s/log.txt", dir);
    /* free ports (tests run in parallel); the services and their order
       are the defaults */
    cr_assert_eq (sim_proc_write_ini (&proc, ini, NULL), 0);
    int hung = 0;
    for (int round = 0; round < 4; round++)
        for (size_t s = 0; s < sizeof services / sizeof services[0]; s++) {
            unlink (log);
            const char *args[] = { "run", "--config", ini, "--localhost", NULL };
            pid_t pid = sim_lab_spawn (args, dir, log, NULL);
            cr_assert_gt (pid, 0);
            char text[64];
            snprintf (text, sizeof text, "started %s (pid", services[s]);
            if (sim_lab_wait_text (log, text, 15000) == 0)
                kill (pid, SIGTERM);
            if (sim_lab_wait_exit (pid, STOP_MS)) {
                hung++;
                sim_lab_dump (log);
            }
            /* kills what is left (and its services, by their parent-death
               signal), so the next start finds its ports free */
            sim_lab_stop (pid);
        }
    sim_lab_sh ("rm -rf '%s'", dir);
    cr_expect_eq (hung, 0, "%d of 20 runs did not stop within %d ms of a SIGTERM sent as a service started",
                  hung, STOP_MS);
}
