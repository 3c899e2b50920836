/*  main.c - the ssl-sim command: run, service, presets (ARCHITECTURE.md §3). */
#include <czmq.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "services.h"
#include "sim_bus.h"
#include "sim_curve.h"
#include "sim_log.h"
#include "sim_service.h"
#include "supervisor.h"

/* The title line, then the sub-commands and flags of config_flags.c with
   the defaults of the key table (sim_config_usage). */
static void
s_usage (FILE *out)
{
    fprintf (out, "ssl-sim %s - RoboCup SSL simulator\n\n", SSL_SIM_VERSION);
    char *text = sim_config_usage ();
    if (text)
        fputs (text, out);
    free (text);
}

/* Parse options into cfg; on error print it and return -1. */
static int
s_config (sim_config_t *cfg, int optc, char **optv)
{
    char err[512] = "";
    sim_config_defaults (cfg);
    if (sim_config_from_args (cfg, optc, optv, err, sizeof err)) {
        fprintf (stderr, "ssl-sim: %s\n", err);
        return -1;
    }
    int level = sim_log_level_parse (cfg->run.log_level);
    sim_log_set_level (sim_log_level_from_env (level < 0 ? SIM_LOG_INFO : (sim_log_level_t) level));
    return 0;
}

/* The single-process mode's stop signal (the only state a handler touches). */
static volatile sig_atomic_t s_single_stop;

static void
s_on_single_signal (int sig)
{
    s_single_stop = sig;
}

/* Wait until a stop signal, the duration, or an actor ending on its own. */
static void
s_wait (zactor_t **actors, int count, double duration)
{
    zpoller_t *poller = zpoller_new (NULL);
    for (int i = 0; i < count; i++)
        if (actors[i])
            zpoller_add (poller, actors[i]);
    int64_t end = duration > 0 ? zclock_mono () + (int64_t) (duration * 1000) : 0;
    while (!zsys_interrupted && !s_single_stop) {
        void *which = zpoller_wait (poller, 500);
        if (which || zpoller_terminated (poller))
            break;
        if (end && zclock_mono () >= end)
            break;
    }
    zpoller_destroy (&poller);
}

static int
s_run_service (const char *name, int optc, char **optv)
{
    const launch_service_t *service = launch_service_find (name);
    if (!service) {
        fprintf (stderr, "ssl-sim: unknown service '%s' (physics, vision, gateway, legacy-grsim, viewer)\n",
                 name);
        return 2;
    }
    static sim_service_args_t args; /* outlives the actor thread */
    if (s_config (&args.cfg, optc, optv))
        return 2;
    sim_log_set_service (name);
    if (sim_bus_resolve (&args.cfg, NULL))
        return SIM_SERVICE_EXIT_NO_START;
    const char *other = NULL;
    int pid = launch_running_elsewhere (&args.cfg, name, &other);
    if (pid) {
        sim_error ("%s already runs with this runtime directory (pid %d)", name, pid);
        return SIM_SERVICE_EXIT_NO_START;
    }
    zactor_t *actor = sim_service_start (service->actor, &args);
    if (!actor) {
        sim_error ("%s did not start", name);
        return SIM_SERVICE_EXIT_NO_START;
    }
    char pidfile[SIM_STRING_MAX + 16];
    launch_pidfile_write (&args.cfg, name, pidfile, sizeof pidfile);
    s_wait (&actor, 1, 0);
    zactor_destroy (&actor);
    launch_pidfile_remove (pidfile);
    return 0;
}

static int
s_run_single (const sim_config_t *parsed)
{
    static sim_service_args_t args;
    args.cfg = *parsed;
    char prefix[32];
    snprintf (prefix, sizeof prefix, "ssl-sim-%d", (int) getpid ());
    if (sim_bus_resolve (&args.cfg, prefix))
        return 1;
    /* The actors share one process: if CZMQ's handler raised
       zsys_interrupted, all four would leave at once, and an edge could
       block forever sending to a physics whose inproc socket is gone. Here
       the signal only tells us; the actors stop in order, edges first and
       physics last, each on $TERM. */
    zsys_handler_set (NULL);
    struct sigaction sa = { .sa_handler = s_on_single_signal };
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    zactor_t *actors[LAUNCH_SERVICE_COUNT] = { NULL };
    int code = 0;
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++) {
        if (!launch_service_wanted (&launch_services[i], &args.cfg))
            continue;
        actors[i] = sim_service_start (launch_services[i].actor, &args);
        if (!actors[i]) {
            sim_error ("%s did not start", launch_services[i].name);
            code = 1;
            break;
        }
    }
    if (code == 0) {
        sim_info ("running single-process");
        s_wait (actors, LAUNCH_SERVICE_COUNT, args.cfg.run.duration);
    }
    for (int i = LAUNCH_SERVICE_COUNT - 1; i >= 0; i--)
        zactor_destroy (&actors[i]);
    return code;
}

static int
s_run (int optc, char **optv)
{
    bool single = false;
    char **opts = calloc ((size_t) optc + 1, sizeof *opts);
    if (!opts)
        return 1;
    int n = 0;
    for (int i = 0; i < optc; i++) {
        if (strcmp (optv[i], "--single-process") == 0)
            single = true;
        else
            opts[n++] = optv[i];
    }
    sim_config_t cfg;
    int code = 2;
    char dir[SIM_STRING_MAX];
    if (s_config (&cfg, n, opts) == 0) {
        if (sim_bus_runtime_dir (&cfg, dir, sizeof dir))
            code = 1; /* refused, and said why: neither mode runs without it */
        else if (single)
            code = s_run_single (&cfg);
        else {
            char exe[PATH_MAX];
            ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 1);
            if (len <= 0) {
                sim_error ("cannot find my own executable");
                code = 1;
            } else {
                exe[len] = '\0';
                const char *other = NULL;
                int pid = launch_running_elsewhere (&cfg, NULL, &other);
                if (pid) {
                    sim_error ("another simulator runs with this runtime directory (%s, pid %d): stop it, "
                               "or start this one with --port-offset N",
                               other, pid);
                    code = 1;
                } else
                    /* children parse the same options; checking them here
                       first gives one clear error instead of four */
                    code = launch_supervise (exe, n, opts, &cfg);
            }
        }
    }
    free (opts);
    return code;
}

/* `ssl-sim keygen FILE`: a certificate pair for [bus] curve_cert, and
   FILE to copy into the peers' curve_allow or curve_server. */
static int
s_keygen (int optc, char **optv)
{
    if (optc != 1 || optv[0][0] == '-') {
        fprintf (stderr, "ssl-sim: keygen needs one FILE (it writes FILE and FILE_secret)\n");
        return 2;
    }
    char err[PATH_MAX + 128];
    if (sim_curve_keygen (optv[0], err, sizeof err)) {
        fprintf (stderr, "ssl-sim: keygen: %s\n", err);
        return 1;
    }
    printf ("wrote %s (public: for the peers' curve_allow or curve_server) and %s_secret (private: "
            "this host's curve_cert)\n",
            optv[0], optv[0]);
    return 0;
}

static int
s_presets (int optc, char **optv)
{
    sim_config_t cfg;
    if (s_config (&cfg, optc, optv))
        return 2;
    char *text = sim_config_dump (&cfg, true);
    if (!text)
        return 1;
    fputs (text, stdout);
    free (text);
    return 0;
}

int
main (int argc, char **argv)
{
    sim_log_set_service ("ssl-sim");
    /* everything this program creates is runtime state of one user:
       sockets (libzmq's ipc ones too), lanes, pid files and checkpoints
       0600; sim_bus_runtime_dir sets its directories to 0700. Set once
       here, before any thread, since umask is per process. */
    umask (0177);
    if (argc < 2) {
        s_usage (stderr);
        return 2;
    }
    const char *command = argv[1];
    if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0 || strcmp (command, "help") == 0) {
        s_usage (stdout);
        return 0;
    }
    if (strcmp (command, "--version") == 0 || strcmp (command, "version") == 0) {
        printf ("ssl-sim %s\n", SSL_SIM_VERSION);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0) {
            s_usage (stdout);
            return 0;
        }
    if (strcmp (command, "run") == 0)
        return s_run (argc - 2, argv + 2);
    if (strcmp (command, "presets") == 0)
        return s_presets (argc - 2, argv + 2);
    if (strcmp (command, "keygen") == 0)
        return s_keygen (argc - 2, argv + 2);
    if (strcmp (command, "status") == 0 || strcmp (command, "restart") == 0) {
        bool restart = command[0] == 'r';
        if (restart && (argc < 3 || argv[2][0] == '-')) {
            fprintf (stderr,
                     "ssl-sim: restart needs a NAME (physics, vision, gateway, legacy-grsim, viewer)\n");
            return 2;
        }
        int skip = restart ? 3 : 2;
        sim_config_t cfg;
        if (s_config (&cfg, argc - skip, argv + skip) || sim_bus_resolve (&cfg, NULL))
            return 2;
        return restart ? launch_restart (&cfg, argv[2]) : launch_status (&cfg);
    }
    if (strcmp (command, "service") == 0) {
        if (argc < 3) {
            fprintf (stderr,
                     "ssl-sim: service needs a NAME (physics, vision, gateway, legacy-grsim, viewer)\n");
            return 2;
        }
        return s_run_service (argv[2], argc - 3, argv + 3);
    }
    fprintf (stderr, "ssl-sim: unknown command '%s'\n\n", command);
    s_usage (stderr);
    return 2;
}
