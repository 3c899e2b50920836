/*  test_launcher.c - the launcher and the operator's commands (issue 6):
    `--duration` ends a run by itself and the run's checkpoint goes with
    it; service output is prefixed with the service name; `ssl-sim status`
    says when nothing runs; `ssl-sim restart` refuses a service nobody
    would start again; the systemd units pass `systemd-analyze verify`
    (the man page they name included); a
    service that cannot start (its port taken) ends the run at once with
    the reason (issue 11); `--single-process` holds the same runtime
    directory lock and shows in `status` (issue 13); its log says what the
    four-process log says: each service started, the stop and its reason,
    each service stopped, all stopped (issue 23); a service under a
    Type=notify unit tells systemd it is up only once its port is bound.
*/
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"

/* A configuration with free loopback ports at `path`; the ports go to
   *ports when it is not NULL. */
static void
s_write_ini_ports (const char *path, sim_proc_t *ports)
{
    sim_proc_t own;
    if (!ports)
        ports = &own;
    cr_assert_eq (sim_proc_pick_ports (ports), 0);
    cr_assert_eq (sim_proc_write_ini (ports, path, NULL), 0);
}

static void
s_write_ini (const char *path)
{
    s_write_ini_ports (path, NULL);
}

/* One test's runtime directory, fresh under /tmp, with the paths of its
   configuration file (not written yet) and of the run's log. */
typedef struct {
    char dir[32];
    char ini[128], log[128];
} s_dir_t;

static void
s_dir (s_dir_t *d)
{
    snprintf (d->dir, sizeof d->dir, "/tmp/ssl-sim-test-XXXXXX");
    cr_assert_not_null (mkdtemp (d->dir));
    snprintf (d->ini, sizeof d->ini, "%s/t.ini", d->dir);
    snprintf (d->log, sizeof d->log, "%s/log.txt", d->dir);
}

Test (launcher, duration_ends_the_run_and_its_checkpoint, .timeout = 30)
{
    s_dir_t d;
    s_dir (&d);
    const char *dir = d.dir, *ini = d.ini, *log = d.log;
    char vision[64], ck[160];
    snprintf (ck, sizeof ck, "%s/ssl-sim/physics.checkpoint", dir);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", sim_test_free_port ());
    s_write_ini (ini);
    const char *args[] = { "run",  "--config",   ini,   "--localhost", "--vision-addr",
                           vision, "--duration", "2.5", NULL };
    int64_t t0 = sim_test_now_ms ();
    pid_t pid = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (pid, 0);
    /* while it runs, physics checkpoints once a second */
    int64_t left = 2300 - (sim_test_now_ms () - t0);
    bool checkpointed = left > 0 && sim_lab_wait_file (ck, (int) left) == 0;
    int status = 0;
    pid_t r = 0;
    left = 15000 - (sim_test_now_ms () - t0);
    if (sim_lab_wait_exit (pid, left > 0 ? (int) left : 0) == 0)
        r = waitpid (pid, &status, 0);
    if (r != pid) {
        kill (pid, SIGKILL);
        waitpid (pid, &status, 0);
        r = 0;
    }
    int64_t took = sim_test_now_ms () - t0;
    cr_expect_neq (r, 0, "--duration 2.5 did not end the run");
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0, "exit status %d", status);
    cr_expect_geq (took, 2400, "stopped too early (%lld ms)", (long long) took);
    cr_expect (checkpointed, "no physics checkpoint appeared while running");
    cr_expect_neq (access (ck, F_OK), 0, "the checkpoint outlived its run");

    /* service lines carry the service name */
    char out[65536];
    sim_lab_capture (out, sizeof out, "cat '%s'", log);
    cr_expect (strstr (out, "physics      | "), "no prefixed physics line:\n%s", out);
    cr_expect (strstr (out, "gateway      | "), "no prefixed gateway line:\n%s", out);
    cr_expect (strstr (out, "all services stopped"), "no clean stop:\n%s", out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

Test (launcher, status_when_nothing_runs, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char out[4096];
    int code =
        sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status 2>&1", dir, sim_lab_exe ());
    cr_expect_eq (code, 3, "exit %d:\n%s", code, out);
    cr_expect (strstr (out, "no ssl-sim services running"), "%s", out);
    code = sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' restart vision 2>&1", dir,
                            sim_lab_exe ());
    cr_expect_eq (code, 1, "restart of a service that is not running: exit %d:\n%s", code, out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A query leaves no trace: `status` (and `restart`, which finds nothing
   to restart) with nothing running reads the runtime directory, the
   port offset's one below it and the systemd units' one without making
   any of them, and still says that nothing runs. */
Test (launcher, status_when_nothing_runs_creates_no_directory, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    const char *queries[] = { "status", "status --port-offset 4321", "restart vision --port-offset 4321" };
    const int exits[] = { 3, 3, 1 };
    const char *says[] = { "no ssl-sim services running", "no ssl-sim services running",
                           "vision is not running" };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        char out[4096], left[4096];
        int code = sim_lab_capture (out, sizeof out,
                                    "XDG_RUNTIME_DIR='%s' SSL_SIM_UNITS_RUNTIME='%s/units' '%s' %s 2>&1", dir,
                                    dir, sim_lab_exe (), queries[i]);
        cr_expect_eq (code, exits[i], "%s: exit %d:\n%s", queries[i], code, out);
        cr_expect (strstr (out, says[i]), "%s:\n%s", queries[i], out);
        sim_lab_capture (left, sizeof left, "find '%s' -mindepth 1", dir);
        cr_expect_str_empty (left, "%s left behind:\n%s", queries[i], left);
    }
    sim_lab_sh ("rm -rf '%s'", dir);
}

Test (launcher, restart_refuses_an_unsupervised_service, .timeout = 30)
{
    s_dir_t d;
    s_dir (&d);
    const char *dir = d.dir, *ini = d.ini, *log = d.log;
    s_write_ini (ini);
    /* started by hand: no launcher, no systemd would bring it back */
    unsetenv ("INVOCATION_ID");
    unsetenv ("SSL_SIM_SUPERVISED");
    const char *args[] = { "service", "gateway", "--config", ini, NULL };
    pid_t pid = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (pid, 0);
    int gw = sim_lab_wait_service (dir, 0, "gateway", 0, 5000);
    cr_expect_eq (gw, (int) pid, "pid file %d, process %d", gw, (int) pid);
    char out[4096];
    int code =
        sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' restart gateway --config '%s' 2>&1", dir,
                         sim_lab_exe (), ini);
    cr_expect_eq (code, 1, "exit %d:\n%s", code, out);
    cr_expect (strstr (out, "no supervisor"), "%s", out);
    cr_expect_eq (kill (pid, 0), 0, "the unsupervised gateway must keep running");
    cr_expect_eq (sim_lab_stop (pid), 0);
    char pidfile[160];
    snprintf (pidfile, sizeof pidfile, "%s/ssl-sim/gateway.pid", dir);
    cr_expect_neq (access (pidfile, F_OK), 0, "the pid file outlived its service");
    sim_lab_sh ("rm -rf '%s'", dir);
}

Test (launcher, systemd_units_verify, .timeout = 60)
{
    if (access ("scripts/systemd/ssl-sim.target", R_OK) != 0) {
        cr_skip_test ("skipped: run from the repository root to find scripts/systemd");
        return;
    }
    if (sim_lab_sh ("command -v systemd-analyze >/dev/null 2>&1") != 0) {
        cr_skip_test ("skipped: systemd-analyze is not installed");
        return;
    }
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    /* as make install does: the units point at the installed binary */
    cr_assert_eq (sim_lab_sh ("for u in scripts/systemd/*; do sed 's|/usr/local/bin/ssl-sim|%s|' \"$u\" "
                              "> '%s'/$(basename \"$u\"); done",
                              sim_lab_exe (), dir),
                  0);
    /* Documentation=man:ssl-sim(1) is checked against the page the build
       wrote (BUILD/share/man/man1, beside BUILD/bin) */
    char out[16384];
    int code = sim_lab_capture (out, sizeof out,
                                "cd '%s' && MANPATH=\"$(dirname '%s')/../share/man\" SYSTEMD_LOG_COLOR=0 "
                                "systemd-analyze verify ./ssl-sim.target ./ssl-sim-*.service 2>&1",
                                dir, sim_lab_exe ());
    cr_expect_eq (code, 0, "systemd-analyze verify failed:\n%s", out);
    cr_expect_eq (out[0], '\0', "systemd-analyze verify warns:\n%s", out);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* What systemd does for a unit of Type=notify: NOTIFY_SOCKET names a unix
   datagram socket, and the unit counts as started when READY=1 arrives
   there. By then legacy-grsim's grSim port must be bound (vision's unit
   starts after it, and a grSim client takes vision's first packet as the
   sign that it may send). */
Test (launcher, a_service_tells_systemd_it_is_up_once_its_port_is_bound, .timeout = 30)
{
    s_dir_t d;
    s_dir (&d);
    const char *dir = d.dir, *ini = d.ini, *log = d.log;
    sim_proc_t ports;
    s_write_ini_ports (ini, &ports);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf (addr.sun_path, sizeof addr.sun_path, "%s/notify", dir);
    int notify = socket (AF_UNIX, SOCK_DGRAM, 0);
    cr_assert_eq (bind (notify, (struct sockaddr *) &addr, sizeof addr), 0);
    setenv ("NOTIFY_SOCKET", addr.sun_path, 1);
    const char *args[] = { "service", "legacy-grsim", "--config", ini, NULL };
    pid_t pid = sim_lab_spawn (args, dir, log, NULL);
    unsetenv ("NOTIFY_SOCKET");
    cr_assert_gt (pid, 0);
    struct pollfd p = { notify, POLLIN, 0 };
    char got[64] = "";
    ssize_t n = poll (&p, 1, 10000) == 1 ? recv (notify, got, sizeof got - 1, 0) : -1;
    if (n < 0)
        sim_lab_dump (log);
    cr_assert_geq (n, 0, "no notification within 10 s");
    got[n] = '\0';
    cr_expect_str_eq (got, "READY=1");
    /* the port is taken at that moment: our own bind of it fails */
    int mine = sim_test_udp (ports.legacy_port);
    cr_expect_lt (mine, 0, "the grSim port %d was not bound when the service said it was up",
                  ports.legacy_port);
    if (mine >= 0)
        close (mine);
    cr_expect_eq (sim_lab_stop (pid), 0);
    close (notify);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A second simulator in the same runtime directory would take over the
   first one's sockets and lanes: it refuses to start, and says what to do. */
Test (launcher, a_second_run_in_the_same_directory_refuses, .timeout = 30)
{
    s_dir_t d;
    s_dir (&d);
    const char *dir = d.dir, *ini = d.ini, *log = d.log;
    char ini2[128];
    snprintf (ini2, sizeof ini2, "%s/t2.ini", dir);
    s_write_ini (ini);
    s_write_ini (ini2); /* other ports: only the directory is shared */
    const char *args[] = { "run", "--config", ini, "--localhost", NULL };
    pid_t first = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (first, 0);
    int physics = sim_lab_wait_service (dir, 0, "physics", 0, 5000);
    cr_assert_gt (physics, 0, "the first simulator did not come up");
    char out[4096];
    int code = sim_lab_capture (out, sizeof out,
                                "XDG_RUNTIME_DIR='%s' '%s' run --config '%s' --localhost --duration 1 2>&1",
                                dir, sim_lab_exe (), ini2);
    cr_expect_eq (code, 1, "exit %d:\n%s", code, out);
    cr_expect (strstr (out, "--port-offset"), "%s", out);
    cr_expect_eq (sim_lab_wait_service (dir, 0, "physics", 0, 1000), physics,
                  "the first physics was disturbed");
    cr_expect_eq (kill (first, 0), 0, "the first simulator must keep running");
    cr_expect_eq (sim_lab_stop (first), 0);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* `--single-process` holds the same lock: a second simulator of either
   kind on its runtime directory refuses, and `ssl-sim status` shows it. */
Test (launcher, a_single_process_run_holds_the_directory, .timeout = 40)
{
    s_dir_t d;
    s_dir (&d);
    const char *dir = d.dir, *ini = d.ini, *log = d.log;
    char ini2[128], vision[64];
    snprintf (ini2, sizeof ini2, "%s/t2.ini", dir);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    s_write_ini (ini);
    s_write_ini (ini2); /* other ports: only the directory is shared */
    const char *args[] = { "run",         "--single-process", "--config", ini,
                           "--localhost", "--vision-addr",    vision,     NULL };
    pid_t first = sim_lab_spawn (args, dir, log, NULL);
    cr_assert_gt (first, 0);
    cr_assert_eq (sim_lab_wait_service (dir, 0, "physics", 0, 5000), first,
                  "the single-process simulator wrote no pid file naming itself");
    cr_assert_eq (sim_lab_wait_service (dir, 0, "gateway", 0, 5000), first);
    /* status (below) exits 1 while a service the run starts is not up; the
       viewer starts last */
    cr_assert_eq (sim_lab_wait_service (dir, 0, "viewer", 0, 5000), first);

    char out[8192];
    const char *modes[] = { "run --single-process", "run" };
    for (int i = 0; i < 2; i++) {
        int code = sim_lab_capture (out, sizeof out,
                                    "XDG_RUNTIME_DIR='%s' timeout 20 '%s' %s --config '%s' --localhost "
                                    "--duration 1 2>&1",
                                    dir, sim_lab_exe (), modes[i], ini2);
        char pid[32];
        snprintf (pid, sizeof pid, "pid %d", (int) first);
        cr_expect_eq (code, 1, "%s: exit %d:\n%s", modes[i], code, out);
        cr_expect (strstr (out, "another simulator runs") && strstr (out, pid)
                       && strstr (out, "--port-offset"),
                   "%s: the refusal does not say who holds the directory and what to do:\n%s", modes[i], out);
        cr_expect_null (strstr (out, "started physics"), "%s: a service was started:\n%s", modes[i], out);
    }

    int code = sim_lab_capture (out, sizeof out, "XDG_RUNTIME_DIR='%s' '%s' status --config '%s' 2>&1", dir,
                                sim_lab_exe (), ini);
    cr_expect_eq (code, 0, "status: exit %d:\n%s", code, out);
    char row[64];
    snprintf (row, sizeof row, "%d", (int) first);
    cr_expect (strstr (out, "physics") && strstr (out, row) && strstr (out, "single"),
               "status does not show the single-process simulator:\n%s", out);
    cr_expect_eq (kill (first, 0), 0, "the first simulator must keep running");
    cr_expect_eq (sim_lab_stop (first), 0);
    cr_expect_eq (sim_lab_service_pid (dir, 0, "physics"), 0, "the pid files stay behind");
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A port taken by another socket is not a crash: restarting the gateway
   would fail the same way forever, so the run ends at once, says why,
   and exits non-zero. */
Test (launcher, a_taken_port_ends_the_run_at_once, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[128], vision[64];
    snprintf (ini, sizeof ini, "%s/t.ini", dir);
    sim_proc_t ports;
    s_write_ini_ports (ini, &ports);
    snprintf (vision, sizeof vision, "127.0.0.1:%d", sim_test_free_port ());
    int taken = sim_test_udp (ports.control_port);
    cr_assert_geq (taken, 0, "cannot take the control port %d", ports.control_port);
    char out[65536];
    int64_t t0 = sim_test_now_ms ();
    int code = sim_lab_capture (out, sizeof out,
                                "XDG_RUNTIME_DIR='%s' timeout 20 '%s' run --config '%s' --localhost "
                                "--vision-addr %s 2>&1",
                                dir, sim_lab_exe (), ini, vision);
    int64_t took = sim_test_now_ms () - t0;
    close (taken);
    cr_expect_eq (code, 1, "exit %d:\n%s", code, out);
    cr_expect_lt (took, 2000, "took %lld ms to give up:\n%s", (long long) took, out);
    char port[16];
    snprintf (port, sizeof port, ":%d", ports.control_port);
    cr_expect (strstr (out, "Address already in use") && strstr (out, port),
               "the reason is not in the log:\n%s", out);
    cr_expect (strstr (out, "gateway could not start"), "the launcher does not say what stopped it:\n%s",
               out);
    cr_expect (strstr (out, "start this one with --port-offset N"), "no hint at --port-offset:\n%s", out);
    cr_expect (strstr (out, "all services stopped"), "the others were not stopped:\n%s", out);
    cr_expect_null (strstr (out, "restarting gateway"), "a service that cannot start was restarted:\n%s",
                    out);
    fprintf (stderr, "launcher: a taken control port ended the run after %lld ms\n", (long long) took);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* A runtime directory another user could enter is refused before any
   service starts. */
Test (launcher, an_open_runtime_dir_is_refused, .timeout = 30)
{
    char dir[] = "/tmp/ssl-sim-test-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char ini[128], rundir[128];
    snprintf (ini, sizeof ini, "%s/t.ini", dir);
    snprintf (rundir, sizeof rundir, "%s/ssl-sim", dir);
    s_write_ini (ini);
    cr_assert_eq (mkdir (rundir, 0700), 0);
    cr_assert_eq (chmod (rundir, 0777), 0);
    char out[16384];
    const char *modes[] = { "run", "run --single-process" };
    for (int i = 0; i < 2; i++) {
        int code = sim_lab_capture (out, sizeof out,
                                    "XDG_RUNTIME_DIR='%s' timeout 20 '%s' %s --config '%s' --localhost "
                                    "--duration 5 2>&1",
                                    dir, sim_lab_exe (), modes[i], ini);
        cr_expect_eq (code, 1, "%s: exit %d:\n%s", modes[i], code, out);
        cr_expect (strstr (out, rundir) && strstr (out, "refusing"), "%s: no reason naming the path:\n%s",
                   modes[i], out);
        cr_expect_null (strstr (out, "started physics"), "%s: a service was started:\n%s", modes[i], out);
    }
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* The two layouts' logs tell the same story of a run stopped by SIGTERM,
   line for line in the launcher's words. A service writes its first own
   line when it has something to say, not when it is up (vision: once
   physics' configuration reaches it over the bus), so the run is stopped
   only once every service has written one; on a loaded machine that can
   come well after the pid files. */
Test (launcher, single_process_log_reads_like_the_multi_process_one, .timeout = 60)
{
    static const char *const names[] = { "physics", "vision", "gateway", "legacy-grsim", "viewer" };
    const char *modes[] = { "--single-process", NULL };
    for (int m = 0; m < 2; m++) {
        const char *args[] = { modes[m], NULL };
        sim_proc_t p;
        cr_assert_eq (sim_proc_start (&p, m == 0 ? args : args + 1, NULL), 0);
        for (int i = 0; i < 5; i++)
            cr_assert_gt (sim_lab_wait_service (p.dir, 0, names[i], 0, 15000), 0, "%s did not come up",
                          names[i]);
        for (int i = 0; i < 5; i++) {
            char own[64];
            snprintf (own, sizeof own, "%-12s | info: ", names[i]);
            cr_expect_eq (sim_lab_wait_text (p.log, own, 15000), 0, "no line of %s's own within 15 s",
                          names[i]);
        }
        cr_expect_eq (sim_proc_stop (&p), 0);
        char log[65536];
        FILE *f = fopen (p.log, "r");
        cr_assert_not_null (f);
        size_t n = fread (log, 1, sizeof log - 1, f);
        fclose (f);
        log[n] = '\0';
        const char *layout = m == 0 ? "single-process" : "multi-process";
        for (int i = 0; i < 5; i++) {
            char want[64];
            snprintf (want, sizeof want, "info: started %s (%s", names[i], m == 0 ? "thread)" : "pid ");
            cr_expect (strstr (log, want), "%s: no '%s' line:\n%s", layout, want, log);
            /* and every service's own lines carry its name */
            snprintf (want, sizeof want, "%-12s | info: ", names[i]);
            cr_expect (strstr (log, want), "%s: no line named %s:\n%s", layout, names[i], log);
        }
        cr_expect (strstr (log, "info: stopping on signal 15"), "%s: no stop line:\n%s", layout, log);
        cr_expect (strstr (log, "info: all services stopped"), "%s: no last line:\n%s", layout, log);
        /* after the stop line, each service's own stop */
        const char *at = strstr (log, "stopping on signal");
        for (int i = 0; at && i < 5; i++) {
            char want[64];
            snprintf (want, sizeof want, "info: %s (%s", names[i], m == 0 ? "thread) stopped after" : "pid ");
            const char *line = strstr (at, want);
            cr_expect (line && strstr (line, "stopped after"), "%s: no line for %s's stop:\n%s", layout,
                       names[i], log);
        }
        sim_proc_cleanup (&p);
    }
}
