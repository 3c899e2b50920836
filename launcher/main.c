/*  main.c - the ssl-sim command: run, service, presets (ARCHITECTURE.md §3). */
#include <czmq.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/config/config_table.h"
#include "control.h"
#include "logtools.h"
#include "replaytool.h"
#include "runfile.h"
#include "notify.h"
#include "stats.h"
#include "services.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_curve.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_service.h"
#include "single.h"
#include "supervisor.h"
#include "version.h"

/* The title line, then the sub-commands and flags of config_flags.c with
   the defaults of the key table (sim_config_usage). */
static void
s_usage (FILE *out)
{
    fprintf (out, "ssl-sim %s - RoboCup SSL simulator\n\n", SSL_SIM_VERSION_FULL);
    char *text = sim_config_usage ();
    if (text)
        fputs (text, out);
    free (text);
}

/* `ssl-sim --man` or `--bash-completion`: the manual page or the
   completion script, made from the flag table (the Makefile installs
   both from this output). */
static int
s_print_generated (bool manpage)
{
    const char *services[LAUNCH_SERVICE_COUNT + 1] = { NULL };
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        services[i] = launch_services[i].name;
    char *text = manpage ? sim_config_manpage (SSL_SIM_VERSION_FULL) : sim_config_bash_completion (services);
    if (!text)
        return 1;
    fputs (text, stdout);
    free (text);
    return 0;
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

/* Wait until a stop signal or the service's actor ending on its own. */
static void
s_wait (zactor_t *actor)
{
    zpoller_t *poller = zpoller_new (actor, NULL);
    while (poller && !zsys_interrupted) {
        void *which = zpoller_wait (poller, 500);
        if (which || zpoller_terminated (poller))
            break;
    }
    zpoller_destroy (&poller);
}

static int
s_run_service (const char *name, int optc, char **optv)
{
    const launch_service_t *service = launch_service_find (name);
    if (!service) {
        fprintf (stderr, "ssl-sim: unknown service '%s' (", name);
        for (int i = 0; i < SIM_SERVICE_COUNT; i++)
            fprintf (stderr, "%s%s", i ? ", " : "", sim_service_names[i]);
        fprintf (stderr, ")\n");
        return 2;
    }
    static sim_service_args_t args; /* outlives the actor thread */
    /* under the launcher, which parsed the same options first and said
       what it had to say about them (unknown keys, replaced values), each
       service keeps quiet unless they fail: one warning, not five */
    if (getenv ("SSL_SIM_SUPERVISED"))
        sim_log_set_level (SIM_LOG_ERROR);
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
    launch_pidfile_write (&args.cfg, name, NULL, pidfile, sizeof pidfile);
    launch_supervised_ready ();
    launch_notify_ready ();
    s_wait (actor);
    zactor_destroy (&actor);
    launch_pidfile_remove (pidfile);
    return args.exit_code; /* SIM_SERVICE_EXIT_LOST: vision lost records */
}

/* `ssl-sim record|play|replay FILE [OPTIONS]`: FILE first, the launcher's
   own flags (--loop, --until SECS) taken out, the rest configuration. */
static int
s_log_command (const char *command, int optc, char **optv)
{
    if (optc < 1 || optv[0][0] == '-') {
        fprintf (stderr, "ssl-sim: %s needs a FILE\n", command);
        return 2;
    }
    const char *path = optv[0];
    char **opts = calloc ((size_t) optc + 1, sizeof *opts);
    if (!opts)
        return 1;
    bool loop = false, mode_given = false;
    double until = -1;
    int n = 0, code = 2;
    for (int i = 1; i < optc; i++) {
        if (strcmp (command, "play") == 0 && strcmp (optv[i], "--loop") == 0)
            loop = true;
        else if (strcmp (command, "replay") == 0 && strncmp (optv[i], "--until", 7) == 0
                 && (optv[i][7] == '\0' || optv[i][7] == '=')) {
            const char *value = optv[i][7] == '=' ? optv[i] + 8 : i + 1 < optc ? optv[++i] : NULL;
            char *end = NULL;
            until = value ? strtod (value, &end) : -1;
            if (!value || end == value || *end || !(until >= 0) || !isfinite (until)) {
                fprintf (stderr, "ssl-sim: --until: '%s' must be a number of seconds >= 0\n",
                         value ? value : "");
                goto done;
            }
        } else {
            if (strncmp (optv[i], "--mode", 6) == 0)
                mode_given = true;
            opts[n++] = optv[i];
        }
    }
    sim_config_t cfg;
    if (s_config (&cfg, n, opts))
        goto done;
    if (strcmp (command, "record") == 0)
        code = launch_record (path, &cfg);
    else if (strcmp (command, "play") == 0)
        code = launch_play (path, &cfg, loop);
    else {
        if (mode_given && cfg.run.mode == SIM_MODE_SYNC) {
            fprintf (stderr, "ssl-sim: replay: --mode is fast or realtime\n");
            goto done;
        }
        /* with the page the replay is watched, at the run's pace;
           without it, it runs flat out to check a run quickly */
        if (!mode_given)
            cfg.run.mode = cfg.viewer.enabled ? SIM_MODE_REALTIME : SIM_MODE_FAST;
        launch_replay_warn_unused (n, opts);
        code = launch_replay (path, &cfg, until);
    }
done:
    free (opts);
    return code;
}

/* `ssl-sim stats`: its own words (FILE, --listen ADDR, --seconds N,
   --fit) to launch_stats, the rest configuration (the multicast interface
   a live stream is joined on, --localhost). */
static int
s_stats_command (int optc, char **optv)
{
    char **own = calloc ((size_t) optc + 1, sizeof *own), **rest = calloc ((size_t) optc + 1, sizeof *rest);
    int code = 1, nown = 0, nrest = 0;
    if (!own || !rest)
        goto done;
    for (int i = 0; i < optc; i++) {
        bool valued = strcmp (optv[i], "--listen") == 0 || strcmp (optv[i], "--seconds") == 0;
        if (valued || strcmp (optv[i], "--fit") == 0 || optv[i][0] != '-') {
            own[nown++] = optv[i];
            if (valued && i + 1 < optc)
                own[nown++] = optv[++i];
        } else {
            rest[nrest++] = optv[i];
            /* a configuration flag's value stays with it; a flag without
               one (--localhost) leaves the next word, the FILE perhaps */
            if (sim_config_flag_takes_value (optv[i]) && i + 1 < optc)
                rest[nrest++] = optv[++i];
        }
    }
    sim_config_t cfg;
    code = 2;
    if (s_config (&cfg, nrest, rest))
        goto done;
    code = launch_stats (nown, own, &cfg);
done:
    free (own);
    free (rest);
    return code;
}

static int
s_run (int optc, char **optv)
{
    bool single = false;
    char **opts = calloc ((size_t) optc + 2, sizeof *opts); /* room for --record=PART */
    char final[SIM_STRING_MAX], part_opt[SIM_STRING_MAX + 16];
    int part = 0;
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
        code = 1;
        /* both modes take the directory's lock, then look for services
           that systemd or a hand started there without a launcher */
        int lock = -1, pid = 0, record_lock = -1, journal_lock = -1;
        const char *other = NULL;
        struct stat st;
        bool journal_new = cfg.run.journal[0] && stat (cfg.run.journal, &st) != 0;
        if (sim_bus_runtime_dir (&cfg, dir, sizeof dir))
            ; /* refused, and said why: neither mode runs without it */
        else if ((lock = launch_lock_take (&cfg)) < 0
                 || (pid = launch_running_elsewhere (&cfg, NULL, &other))) {
            if (!pid)
                pid = launch_lock_holder (&cfg);
            sim_error ("another simulator runs with the runtime directory %s (%s, pid %d): stop it, or start "
                       "this one with --port-offset N",
                       dir, other ? other : "ssl-sim run", pid);
        }
        /* --journal FILE: locked for the whole run like --record's file
           (runfile.h), so a second run given it is refused instead of
           replacing the first one's journal (docs/journal.md); physics,
           restarted within the run, continues it in place. Before
           --record, which empties its file: a run refused here leaves
           both as they were */
        else if (cfg.run.journal[0]
                 && (journal_lock = launch_run_file_lock (cfg.run.journal, cfg.run.journal, "--journal",
                                                          "journals to", NULL))
                        < 0)
            ; /* said why */
        /* --record FILE.gz: vision writes the records plain beside it
           and they are compressed after the run (docs/logs.md); vision,
           restarted within the run, appends to the part. Only after the
           runtime lock, so a refused second simulator leaves the running
           one's log alone */
        else if ((part = launch_record_begin (&cfg, cfg.run.journal, "this run's --journal", final,
                                              sizeof final, &record_lock))
                 < 0) {
            if (journal_new)
                unlink (cfg.run.journal); /* made by the lock, for a run that did not start */
        } else if (single)
            code = launch_single_run (&cfg);
        else {
            char exe[PATH_MAX];
            ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 1);
            if (len <= 0)
                sim_error ("cannot find my own executable");
            else {
                exe[len] = '\0';
                /* children parse the same options; checking them here
                   first gives one clear error instead of five */
                if (part > 0) {
                    snprintf (part_opt, sizeof part_opt, "--record=%s", cfg.run.record);
                    opts[n++] = part_opt; /* the last --record wins */
                }
                code = launch_supervise (exe, n, opts, &cfg);
            }
        }
        if (part > 0 && launch_record_finish (cfg.run.record, final, record_lock) && code == 0)
            code = 1;
        else if (part == 0 && record_lock >= 0)
            close (record_lock); /* a plain log: held for the run */
        if (journal_lock >= 0)
            close (journal_lock);
        if (lock >= 0)
            close (lock);
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
        printf ("ssl-sim %s\n", SSL_SIM_VERSION_FULL);
        return 0;
    }
    if (strcmp (command, "--man") == 0 || strcmp (command, "--bash-completion") == 0)
        return s_print_generated (command[2] == 'm');
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
    if (strcmp (command, "record") == 0 || strcmp (command, "play") == 0 || strcmp (command, "replay") == 0)
        return s_log_command (command, argc - 2, argv + 2);
    if (strcmp (command, "stats") == 0)
        return s_stats_command (argc - 2, argv + 2);
    if (strcmp (command, "status") == 0 || strcmp (command, "restart") == 0) {
        bool restart = command[0] == 'r';
        if (restart && (argc < 3 || argv[2][0] == '-')) {
            fprintf (stderr,
                     "ssl-sim: restart needs a NAME (physics, vision, gateway, legacy-grsim, viewer)\n");
            return 2;
        }
        int skip = restart ? 3 : 2;
        sim_config_t cfg;
        if (s_config (&cfg, argc - skip, argv + skip))
            return 2;
        launch_find_runtime (&cfg);
        /* a query leaves no trace: without a runtime directory nothing
           runs, and none is made to find that out */
        char dir[SIM_STRING_MAX];
        int found = sim_bus_runtime_dir_find (&cfg, dir, sizeof dir);
        if (found < 0 || (found == 0 && sim_bus_resolve (&cfg, NULL)))
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
