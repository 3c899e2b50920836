/*  test_fair_sync.c - one client looping long sync steps does not starve
    the others (issue 24; docs/protocol.md, "Fair sync").

    `ssl-sim run` with the defaults (realtime; a sync request takes the
    clock over). A child process steps from S_LOOPERS sockets, each
    sending a 10 s step (the longest there is) as soon as its previous
    one is answered, the way issue 24's battery did with 60 s steps
    (then the longest). Meanwhile the test's
    control client sends SimulatorCommands one at a time (an empty one is
    a valid command, answered by physics; commands on the control port
    are never subject to the configured loss), and every one must be
    answered within [bus] sync_timeout (0.5 s by default): sync steps go
    to physics one at a time, so a command waits behind at most one. The
    steppers must keep going too (their steps are answered).
*/
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define S_LOOPERS     4
#define S_STEP_S      10.0f /* the longest sync step (docs/protocol.md) */
#define S_RUN_MS      6000  /* how long the control client measures */
#define S_TIMEOUT_MS  500   /* [bus] sync_timeout's default */
#define S_STEP_MAX_MS 5000  /* a stepper's answer: a turn behind the others, on a loaded machine */

/* The child: S_LOOPERS sockets stepping until SIGTERM; writes one byte to
   `ready` when the first step was answered and, at the end, how many were
   (an int). */
static void
s_steppers (int port, int ready)
{
    int fds[S_LOOPERS];
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = S_STEP_S;
    struct pollfd polls[S_LOOPERS];
    for (int i = 0; i < S_LOOPERS; i++) {
        fds[i] = sim_test_udp (0);
        if (fds[i] < 0 || sim_test_send (fds[i], port, &req.base))
            _exit (2);
        polls[i] = (struct pollfd) { fds[i], POLLIN, 0 };
    }
    int answered = 0;
    sigset_t term;
    sigemptyset (&term);
    sigaddset (&term, SIGTERM);
    for (;;) {
        struct timespec zero = { 0, 0 };
        if (sigtimedwait (&term, NULL, &zero) == SIGTERM)
            break;
        if (poll (polls, S_LOOPERS, 100) < 0)
            continue;
        for (int i = 0; i < S_LOOPERS; i++)
            if (polls[i].revents & POLLIN) {
                uint8_t buf[65536];
                if (sim_test_recv (fds[i], buf, sizeof buf, 0) >= 0 && answered++ == 0)
                    (void) !write (ready, "r", 1);
                sim_test_send (fds[i], port, &req.base);
            }
    }
    (void) !write (ready, &answered, sizeof answered);
    _exit (0);
}

Test (fair_sync, commands_are_answered_while_another_client_loops_long_steps, .timeout = 60)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_GATEWAY), 0, "ssl-sim did not come up");
    int pipefd[2];
    cr_assert_eq (pipe (pipefd), 0);
    /* SIGTERM stays blocked in the child until it asks for it */
    sigset_t term, old;
    sigemptyset (&term);
    sigaddset (&term, SIGTERM);
    sigprocmask (SIG_BLOCK, &term, &old);
    pid_t child = fork ();
    if (child == 0) {
        close (pipefd[0]);
        s_steppers (f.proc.control_port, pipefd[1]);
    }
    sigprocmask (SIG_SETMASK, &old, NULL);
    close (pipefd[1]);
    cr_assert_gt (child, 0);
    struct pollfd ready = { pipefd[0], POLLIN, 0 };
    char byte;
    cr_assert (poll (&ready, 1, S_STEP_MAX_MS) == 1 && read (pipefd[0], &byte, 1) == 1,
               "no long step was answered");

    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    int sent = 0, late = 0, unanswered = 0;
    char lates[256] = ""; /* the first late ones: which, when, how long */
    int64_t start = sim_test_now_ms (), worst = 0, end = start + S_RUN_MS;
    uint8_t buf[65536];
    while (sim_test_now_ms () < end) {
        int64_t t0 = sim_test_now_ms ();
        cr_assert_eq (sim_test_send (f.fd, f.proc.control_port, &empty.base), 0);
        sent++;
        ssize_t n = sim_test_recv (f.fd, buf, sizeof buf, 4 * S_TIMEOUT_MS);
        int64_t took = sim_test_now_ms () - t0;
        unanswered += n < 0;
        worst = took > worst ? took : worst;
        if (took > S_TIMEOUT_MS && late++ < 4) {
            size_t used = strlen (lates);
            snprintf (lates + used, sizeof lates - used, " #%d at %.2f s: %lld ms%s;", sent,
                      (double) (t0 - start) / 1000.0, (long long) took, n < 0 ? " (no answer)" : "");
        }
    }
    kill (child, SIGTERM);
    int steps = 0;
    ready.revents = 0;
    bool counted =
        poll (&ready, 1, 5000) == 1 && read (pipefd[0], &steps, sizeof steps) == (ssize_t) sizeof steps;
    int status = 0;
    waitpid (child, &status, 0);
    close (pipefd[0]);
    cr_log_info ("%d commands, the slowest answered in %lld ms; %d long steps answered", sent,
                 (long long) worst, steps);
    if (late) /* what the services said (the step-size warnings left out), for a failure to be read */
        sim_lab_sh ("grep -a -v ' info: \\|does not fit' '%s' | tail -12 >&2", f.proc.log);
    cr_expect_eq (unanswered, 0, "%d of %d commands were not answered within %d ms", unanswered, sent,
                  4 * S_TIMEOUT_MS);
    cr_expect_eq (late, 0, "%d of %d commands waited longer than %d ms (the slowest %lld ms):%s", late, sent,
                  S_TIMEOUT_MS, (long long) worst, lates);
    cr_expect (counted && steps > S_LOOPERS, "the steppers were starved: %d steps answered", steps);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
