/*  supervisor.c - child processes, log prefixing, restarts, clean stop. */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "services.h"
#include "common/bus/sim_bus.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"

#define LAUNCH_RESTART_MS       100 /* a crashed service starts again this soon, every time */
#define LAUNCH_RESTART_CLEAN_MS 20  /* after a requested stop (clean exit) */
#define LAUNCH_RESPAWN_MS       500 /* fork failed: try again (the system is short of something) */
#define LAUNCH_STOP_GRACE_MS    5000
#define LAUNCH_CLEAN_MIN_UP_MS  500  /* a clean exit sooner than this is a fault */
#define LAUNCH_POLL_MS          100  /* the longest wait without pidfds (a kernel before 5.3) */
#define LAUNCH_IDLE_MS          1000 /* with them: a death, output and signals wake us at once */
#define LAUNCH_READY_MS         5000 /* the longest wait for a service to serve before the next starts */
#define LAUNCH_READY_ENV        "SSL_SIM_READY_FD"

typedef struct {
    const launch_service_t *service;
    pid_t pid;
    int out;    /* read end of the child's stdout+stderr */
    int exited; /* a pidfd: readable once the child has exited; -1 without */
    char line[4096];
    size_t used;
    int64_t started_ms, restart_at_ms;
    unsigned spawns; /* started so far: the child's SSL_SIM_RESTARTS is this before its start */
    bool lost;       /* one of its processes exited with SIM_SERVICE_EXIT_LOST */
} launch_child_t;

/* The only state a signal handler may touch. */
static volatile sig_atomic_t s_stop_signal;

static void
s_on_signal (int sig)
{
    s_stop_signal = sig;
}

static int64_t
s_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
s_flush_line (launch_child_t *c)
{
    char prefix[64];
    fprintf (stderr, "%s%.*s\n", sim_log_line_prefix (prefix, sizeof prefix, c->service->name), (int) c->used,
             c->line);
    c->used = 0;
}

static void
s_read_output (launch_child_t *c)
{
    char buf[4096];
    ssize_t n = read (c->out, buf, sizeof buf);
    if (n <= 0) {
        if (c->used)
            s_flush_line (c);
        close (c->out);
        c->out = -1;
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n' || c->used == sizeof c->line)
            s_flush_line (c);
        if (buf[i] != '\n')
            c->line[c->used++] = buf[i];
    }
}

/* `ready`: NULL, or where to put the read end of a pipe the child writes
   to once it serves (launch_supervised_ready). */
static int
s_spawn (launch_child_t *c, const char *exe, int optc, char **optv, int *ready)
{
    int fds[2], rfds[2] = { -1, -1 };
    if (pipe2 (fds, O_CLOEXEC))
        return -1;
    if (ready && pipe2 (rfds, O_CLOEXEC)) {
        close (fds[0]);
        close (fds[1]);
        return -1;
    }
    /* a stop signal sent between the fork and the exec would reach our
       handler, inherited by the fork, and be lost with it: the service
       would then run on. Held back until the child has the default. */
    sigset_t stop, old;
    sigemptyset (&stop);
    sigaddset (&stop, SIGTERM);
    sigaddset (&stop, SIGINT);
    sigprocmask (SIG_BLOCK, &stop, &old);
    pid_t pid = fork ();
    if (pid == 0) {
        signal (SIGTERM, SIG_DFL);
        signal (SIGINT, SIG_DFL);
    }
    sigprocmask (SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        close (fds[0]);
        close (fds[1]);
        if (ready) {
            close (rfds[0]);
            close (rfds[1]);
        }
        return -1;
    }
    if (pid == 0) {
        if (ready) {
            /* dup: a copy without close-on-exec, for the service to write */
            char fd[16];
            snprintf (fd, sizeof fd, "%d", dup (rfds[1]));
            setenv (LAUNCH_READY_ENV, fd, 1);
        }
        /* a launcher killed with -9 must not leave orphans serving ports */
        prctl (PR_SET_PDEATHSIG, SIGTERM);
        dup2 (fds[1], STDOUT_FILENO);
        dup2 (fds[1], STDERR_FILENO);
        setenv ("SSL_SIM_SUPERVISED", "1", 1);
        char restarts[16];
        snprintf (restarts, sizeof restarts, "%u", c->spawns);
        setenv ("SSL_SIM_RESTARTS", restarts, 1); /* its Stats report it (sim_stats.h) */
        char **argv = calloc ((size_t) optc + 4, sizeof *argv);
        if (!argv)
            _exit (127);
        argv[0] = (char *) exe;
        argv[1] = (char *) "service";
        argv[2] = (char *) c->service->name;
        for (int i = 0; i < optc; i++)
            argv[3 + i] = optv[i];
        execv (exe, argv);
        fprintf (stderr, "cannot execute %s: %s\n", exe, strerror (errno));
        _exit (127);
    }
    close (fds[1]);
    if (ready) {
        close (rfds[1]);
        *ready = rfds[0];
    }
    c->spawns++;
    c->pid = pid;
    c->out = fds[0];
    /* its pipe closes a moment before it can be reaped, so the pipe alone
       would leave its death to the next poll period; a kernel without
       pidfds gets just that */
    c->exited = (int) syscall (SYS_pidfd_open, pid, 0);
    c->used = 0;
    c->started_ms = s_now_ms ();
    c->restart_at_ms = 0;
    sim_info ("started %s (pid %d)", c->service->name, (int) pid);
    return 0;
}

/* The child was reaped: forget its pid and pidfd. */
static void
s_reaped (launch_child_t *c)
{
    c->pid = 0;
    if (c->exited >= 0) {
        close (c->exited);
        c->exited = -1;
    }
}

/* Whether an exit status says the service could not start at all: it
   reported a failed start (port taken, endpoint cannot bind, runtime
   directory refused), its options were refused, or it could not be
   executed. Starting it again would fail the same way. */
static bool
s_could_not_start (int status)
{
    if (!WIFEXITED (status))
        return false;
    int code = WEXITSTATUS (status);
    return code == SIM_SERVICE_EXIT_NO_START || code == 2 || code == 127;
}

/* A child ended; schedule its restart. Returns -1 when it could not start
   at all, which ends the run. */
static int
s_child_exited (launch_child_t *c, int status)
{
    int64_t now = s_now_ms ();
    int64_t up = now - c->started_ms;
    /* one that lost records (--record on a full disk) stopped as asked all
       the same: the run reports the loss when it ends */
    bool lost = WIFEXITED (status) && WEXITSTATUS (status) == SIM_SERVICE_EXIT_LOST;
    bool clean = WIFEXITED (status) && (WEXITSTATUS (status) == 0 || lost);
    c->lost |= lost;
    if (lost)
        sim_warn ("%s (pid %d) stopped after %.1f s and lost records it was to write (see its log)",
                  c->service->name, (int) c->pid, (double) up / 1000);
    else if (clean)
        sim_info ("%s (pid %d) stopped after %.1f s", c->service->name, (int) c->pid, (double) up / 1000);
    else if (WIFSIGNALED (status))
        sim_warn ("%s (pid %d) killed by signal %d after %.1f s", c->service->name, (int) c->pid,
                  WTERMSIG (status), (double) up / 1000);
    else if (!s_could_not_start (status))
        sim_warn ("%s (pid %d) exited with status %d after %.1f s", c->service->name, (int) c->pid,
                  WEXITSTATUS (status), (double) up / 1000);
    s_reaped (c);
    if (s_could_not_start (status)) {
        /* its own log lines above say why (the port, the endpoint) */
        sim_error ("%s could not start (exit status %d): stopping the run", c->service->name,
                   WEXITSTATUS (status));
        return -1;
    }
    /* a clean exit is a stop someone asked for (`ssl-sim restart`,
       SIGTERM): start it again at once. A crash, or a clean exit right
       after the start, comes back after the same short delay every time:
       clients retry through a restart, and a delay that grew would turn a
       service killed every few seconds into one that is mostly down. */
    c->restart_at_ms =
        now + (clean && up >= LAUNCH_CLEAN_MIN_UP_MS ? LAUNCH_RESTART_CLEAN_MS : LAUNCH_RESTART_MS);
    sim_info ("restarting %s in %d ms", c->service->name, (int) (c->restart_at_ms - now));
    return 0;
}

/* Milliseconds until the next due restart or the end of the run, at most
   LAUNCH_IDLE_MS (LAUNCH_POLL_MS while a child has no pidfd). */
static int
s_poll_timeout (const launch_child_t *children, int count, int64_t end_ms)
{
    int64_t now = s_now_ms ();
    /* each wake-up costs the run CPU (docs/operations.md): without a
       pidfd to tell us, a death is noticed by looking */
    int64_t next = now + LAUNCH_IDLE_MS;
    for (int i = 0; i < count; i++)
        if (children[i].pid > 0 && children[i].exited < 0)
            next = now + LAUNCH_POLL_MS;
    for (int i = 0; i < count; i++)
        if (children[i].pid == 0 && children[i].restart_at_ms && children[i].restart_at_ms < next)
            next = children[i].restart_at_ms;
    if (end_ms && end_ms < next)
        next = end_ms;
    return next > now ? (int) (next - now) : 0;
}

/* The line a child's end at the stop of the run gets (the single-process
   runner says the same of each thread). */
static void
s_stopped_line (const launch_child_t *c, int status)
{
    double up = (double) (s_now_ms () - c->started_ms) / 1000;
    if (WIFSIGNALED (status))
        sim_warn ("%s (pid %d) killed by signal %d after %.1f s", c->service->name, (int) c->pid,
                  WTERMSIG (status), up);
    else
        sim_info ("%s (pid %d) stopped after %.1f s", c->service->name, (int) c->pid, up);
}

static void
s_stop_all (launch_child_t *children, int count)
{
    for (int i = 0; i < count; i++)
        if (children[i].pid > 0)
            kill (children[i].pid, SIGTERM);
    int64_t deadline = s_now_ms () + LAUNCH_STOP_GRACE_MS;
    for (;;) {
        int alive = 0;
        for (int i = 0; i < count; i++) {
            launch_child_t *c = &children[i];
            int status;
            if (c->pid > 0 && waitpid (c->pid, &status, WNOHANG) == c->pid) {
                c->lost |= WIFEXITED (status) && WEXITSTATUS (status) == SIM_SERVICE_EXIT_LOST;
                s_stopped_line (c, status);
                s_reaped (c);
            }
            if (c->out >= 0)
                s_read_output (c);
            alive += c->pid > 0;
        }
        if (!alive)
            break;
        if (s_now_ms () > deadline) {
            for (int i = 0; i < count; i++)
                if (children[i].pid > 0) {
                    sim_warn ("%s did not stop in time; killing it", children[i].service->name);
                    kill (children[i].pid, SIGKILL);
                    waitpid (children[i].pid, NULL, 0);
                    s_reaped (&children[i]);
                }
            break;
        }
        poll (NULL, 0, 20);
    }
    for (int i = 0; i < count; i++)
        if (children[i].out >= 0) {
            close (children[i].out);
            children[i].out = -1;
        }
}

/* The run is over: its checkpoint can never be resumed (the next run has
   another id), so it goes. */
static void
s_remove_checkpoint (const sim_config_t *cfg)
{
    char dir[SIM_STRING_MAX], path[SIM_STRING_MAX + 32];
    if (sim_bus_runtime_dir (cfg, dir, sizeof dir) == 0) {
        snprintf (path, sizeof path, "%s/physics.checkpoint", dir);
        unlink (path);
        snprintf (path, sizeof path, "%s/physics.journal", dir);
        unlink (path);
    }
}

void
launch_supervised_ready (void)
{
    const char *fd = getenv (LAUNCH_READY_ENV);
    if (!fd)
        return;
    unsetenv (LAUNCH_READY_ENV);
    int n = atoi (fd);
    if (n > STDERR_FILENO) {
        if (write (n, "1", 1) != 1)
            sim_debug ("could not tell the supervisor this service is ready: %s", strerror (errno));
        close (n);
    }
}

/* Wait (at most LAUNCH_READY_MS) until child c says it serves, then close
   the pipe. A child that ends the pipe without a word has exited (or is
   exiting): it is reaped here, so a service that could not start ends
   the run before the others start (a service told to stop while it
   starts may miss it). Returns -1 then, else 0 (ready, late, or crashed
   and scheduled for a restart like any crash). Its output waits in its
   own pipe meanwhile. */
static int
s_wait_ready (launch_child_t *c, int ready)
{
    int64_t deadline = s_now_ms () + LAUNCH_READY_MS;
    bool said = false; /* a byte or EOF waits */
    while (!said && !s_stop_signal) {
        int64_t left = deadline - s_now_ms ();
        if (left <= 0) {
            sim_warn ("%s did not report ready within %d ms; starting the others anyway", c->service->name,
                      LAUNCH_READY_MS);
            break;
        }
        struct pollfd p = { ready, POLLIN, 0 };
        said = poll (&p, 1, (int) left) > 0 && p.revents;
    }
    char byte;
    bool gone = said && read (ready, &byte, 1) == 0;
    close (ready);
    if (!gone)
        return 0;
    /* the pipe closes a moment before the child can be reaped */
    struct pollfd p = { c->exited, POLLIN, 0 };
    if (c->exited >= 0)
        poll (&p, 1, LAUNCH_READY_MS);
    int status;
    if (waitpid (c->pid, &status, c->exited >= 0 ? WNOHANG : 0) != c->pid)
        return 0;
    if (c->out >= 0)
        s_read_output (c); /* its last words: why it could not start */
    return s_child_exited (c, status);
}

int
launch_supervise (const char *exe, int optc, char **optv, const sim_config_t *cfg)
{
    struct sigaction sa = { .sa_handler = s_on_signal };
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    signal (SIGPIPE, SIG_IGN);

    /* The run id ties physics checkpoints to this run: a restarted physics
       resumes, a later `ssl-sim run` starts fresh. An operator who sets
       SSL_SIM_RUN_ID keeps it (and the checkpoint) across launcher runs. */
    bool own_run_id = !getenv ("SSL_SIM_RUN_ID");
    if (own_run_id) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        char id[64];
        snprintf (id, sizeof id, "%d-%lld%09ld", (int) getpid (), (long long) ts.tv_sec, ts.tv_nsec);
        setenv ("SSL_SIM_RUN_ID", id, 1);
    }

    /* Vision starts once the gateway and legacy-grsim serve their ports: a
       client takes the first vision packet as the sign that the simulator
       is up, and a command it sends then must find the port it goes to
       bound (started together, vision's first packet came up to 0.2 s
       before the gateway's ports on a busy machine, and a grSim client's
       first packet found no grSim port in 9 of 30 starts). They start once
       physics has bound the bus they connect to: a ZeroMQ connect that
       finds no endpoint tries again only after 100 ms, and the grSim
       commands legacy-grsim took meanwhile waited in its queue while sync
       steps ran without them (test_legacy's first replacement, 4 of 40
       runs on a busy machine). */
    static const sim_service_id_t order[LAUNCH_SERVICE_COUNT] = { SIM_SERVICE_PHYSICS, SIM_SERVICE_GATEWAY,
                                                                  SIM_SERVICE_LEGACY, SIM_SERVICE_VISION,
                                                                  SIM_SERVICE_VIEWER };
    launch_child_t children[LAUNCH_SERVICE_COUNT];
    int count = 0, code = 0;
    for (int k = 0; k < LAUNCH_SERVICE_COUNT; k++) {
        const launch_service_t *service = &launch_services[order[k]];
        if (!launch_service_wanted (service, cfg))
            continue;
        children[count] = (launch_child_t) { .service = service, .out = -1, .exited = -1 };
        int ready = -1;
        bool waited_for = order[k] != SIM_SERVICE_VISION && order[k] != SIM_SERVICE_VIEWER;
        if (s_spawn (&children[count], exe, optc, optv, waited_for ? &ready : NULL)) {
            sim_error ("cannot start %s: %s", service->name, strerror (errno));
            s_stop_all (children, count);
            return 1;
        }
        count++;
        if (ready >= 0 && s_wait_ready (&children[count - 1], ready)) {
            code = 1; /* the others are not started: stop what runs */
            break;
        }
    }
    int64_t end_ms = cfg->run.duration > 0 ? s_now_ms () + (int64_t) (cfg->run.duration * 1000) : 0;
    while (code == 0 && !s_stop_signal) {
        /* output and deaths wake us; a restart that is due sets the
           timeout, so it is not late by a poll period */
        struct pollfd fds[2 * LAUNCH_SERVICE_COUNT];
        int map[2 * LAUNCH_SERVICE_COUNT], n = 0;
        for (int i = 0; i < count; i++) {
            if (children[i].out >= 0) {
                fds[n] = (struct pollfd) { children[i].out, POLLIN, 0 };
                map[n++] = i;
            }
            if (children[i].exited >= 0) {
                fds[n] = (struct pollfd) { children[i].exited, POLLIN, 0 };
                map[n++] = -1; /* waitpid below looks at every child */
            }
        }
        poll (fds, (nfds_t) n, s_poll_timeout (children, count, end_ms));
        for (int k = 0; k < n; k++)
            if (map[k] >= 0 && fds[k].revents & (POLLIN | POLLHUP))
                s_read_output (&children[map[k]]);
        int64_t now = s_now_ms ();
        bool give_up = false;
        for (int i = 0; i < count; i++) {
            launch_child_t *c = &children[i];
            int status;
            if (c->pid > 0 && waitpid (c->pid, &status, WNOHANG) == c->pid) {
                if (c->out >= 0)
                    s_read_output (c); /* its last words before we say it died */
                if (s_child_exited (c, status))
                    give_up = true;
            }
            if (c->pid == 0 && c->restart_at_ms && now >= c->restart_at_ms && !give_up) {
                if (c->out >= 0) {
                    close (c->out);
                    c->out = -1;
                }
                if (s_spawn (c, exe, optc, optv, NULL)) {
                    sim_warn ("cannot start %s: %s", c->service->name, strerror (errno));
                    c->restart_at_ms = now + LAUNCH_RESPAWN_MS;
                }
            }
        }
        if (give_up) {
            code = 1;
            break;
        }
        if (end_ms && now >= end_ms) {
            sim_info ("--duration reached");
            break;
        }
    }
    if (s_stop_signal)
        sim_info ("stopping on signal %d", (int) s_stop_signal);
    s_stop_all (children, count);
    if (own_run_id)
        s_remove_checkpoint (cfg);
    sim_info ("all services stopped");
    for (int i = 0; i < count; i++)
        if (children[i].lost) {
            sim_error ("--record: %s lost records: %s is incomplete (its error above says why)",
                       children[i].service->name, cfg->run.record);
            code = 1;
        }
    return code;
}
