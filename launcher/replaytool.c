/*  replaytool.c - `ssl-sim replay JOURNAL` (docs/logs.md, "Replaying"):
    the journal's configuration read and checked, this command's local
    keys over it, then physics and vision (and the page) in this process
    (logview.c) until the journal ends or a signal comes. */
#include "replaytool.h"

#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_service.h"
#include "common/config/config.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_replay.h"
#include "logtools.h"
#include "logview.h"

/* The journal's configuration record (the first one a run writes), and
   no further: physics reads the inputs itself. */
typedef struct {
    char *config;
} s_journal_config_t;

static bool
s_on_journal_record (void *arg, const phys_journal_record_t *rec)
{
    s_journal_config_t *jc = arg;
    if (rec->kind != PHYS_JOURNAL_CONFIG)
        return true; /* not expected first, but a config later is still one */
    jc->config = strndup ((const char *) rec->payload, rec->payload_len);
    return false;
}

/* The keys of the world a replay takes from its own command line (where
   vision goes, and its pace); every other key of the world is the
   journal's. */
static const char *const s_taken[][2] = {
    { "run", "vision_addr" }, { "run", "localhost" }, { "run", "mode" }, { "run", "speed" }
};

/* The local keys a replay has no use for, and why. */
static const char *const s_unused_local[][3] = {
    { "run", "duration", "a replay ends with its journal (--until ends it sooner)" },
    { "run", "journal", "a replay writes no journal" },
};

void
launch_replay_warn_unused (int n, char **opts)
{
    for (int i = 0; i < n; i++) {
        const char *section, *key, *why = NULL;
        bool local;
        if (strncmp (opts[i], "--", 2) != 0 || !sim_config_flag_key (opts[i], &section, &key, &local))
            continue;
        if (!local) {
            why = "a replay is the journal's run, made with the run's configuration";
            for (size_t t = 0; t < sizeof s_taken / sizeof s_taken[0]; t++)
                if (strcmp (s_taken[t][0], section) == 0 && strcmp (s_taken[t][1], key) == 0)
                    why = NULL;
        }
        for (size_t u = 0; local && u < sizeof s_unused_local / sizeof s_unused_local[0]; u++)
            if (strcmp (s_unused_local[u][0], section) == 0 && strcmp (s_unused_local[u][1], key) == 0)
                why = s_unused_local[u][2];
        bool again = false; /* the same key given earlier */
        for (int j = 0; j < i && !again; j++) {
            const char *s2, *k2;
            bool l2;
            again = strncmp (opts[j], "--", 2) == 0 && sim_config_flag_key (opts[j], &s2, &k2, &l2)
                 && s2 == section && k2 == key;
        }
        if (why && !again)
            fprintf (stderr, "ssl-sim: replay: %.*s changes nothing: %s\n", (int) strcspn (opts[i], "="),
                     opts[i], why);
    }
}

int
launch_replay (const char *path, const sim_config_t *cli, double until_s)
{
    /* 0 starts paused (--help); only the page can resume a replay */
    if (!(cli->run.speed > 0) && !cli->viewer.enabled) {
        fprintf (stderr,
                 "ssl-sim: replay: --speed 0 starts paused, and with --no-viewer nothing could resume "
                 "it: --speed must be > 0\n");
        return 2;
    }
    char err[SIM_STRING_MAX + 256];
    phys_journal_header_t header = { 0 };
    s_journal_config_t jc = { 0 };
    if (phys_journal_read (path, PHYS_REPLAY_KEY, &header, s_on_journal_record, &jc) < 0) {
        if (header.version && header.version != PHYS_JOURNAL_VERSION) {
            fprintf (stderr,
                     "ssl-sim: replay: %s is a journal of version %u; this ssl-sim replays version %u\n",
                     path, header.version, PHYS_JOURNAL_VERSION);
            return 1;
        }
        fprintf (stderr,
                 "ssl-sim: replay: %s is not a journal written by `ssl-sim run --journal` (missing, or its "
                 "header is damaged)\n",
                 path);
        return 1;
    }
    if (!jc.config) {
        fprintf (stderr, "ssl-sim: replay: %s holds no configuration record: not a --journal file\n", path);
        return 1;
    }
    if (header.base_frame != 0 || header.base_seq != 0) {
        fprintf (stderr, "ssl-sim: replay: %s does not start at the first substep of a run\n", path);
        free (jc.config);
        return 1;
    }
    static sim_service_args_t args; /* outlives the actor threads */
    memset (&args, 0, sizeof args);
    sim_config_defaults (&args.cfg);
    int rc = sim_config_load_string (&args.cfg, jc.config, path, err, sizeof err);
    free (jc.config);
    if (rc) {
        fprintf (stderr, "ssl-sim: replay: the journal's configuration: %s\n", err);
        return 1;
    }
    /* this host's keys (bus, ports, log, --record) and where vision goes
       are this command's; the world's are the run's */
    sim_config_keep_local (&args.cfg, cli);
    snprintf (args.cfg.run.vision_addr, sizeof args.cfg.run.vision_addr, "%s", cli->run.vision_addr);
    args.cfg.run.localhost = cli->run.localhost;
    args.cfg.run.mode = cli->run.mode == SIM_MODE_REALTIME ? SIM_MODE_REALTIME : SIM_MODE_FAST;
    args.cfg.run.speed = cli->run.speed > 0 ? cli->run.speed : 1.0;
    args.cfg.run.journal[0] = '\0';
    args.replay = path;
    args.replay_until_s = until_s;
    args.replay_paused = !(cli->run.speed > 0); /* at 1x once resumed */
    /* --record OUT.gz as in a run: vision writes OUT.gz.part, compressed
       below once vision has stopped */
    char final[SIM_STRING_MAX];
    int lock = -1, part = launch_record_begin (&args.cfg, path, "the journal this replay reads", final,
                                               sizeof final, &lock);
    if (part < 0)
        return 1;
    char prefix[40];
    snprintf (prefix, sizeof prefix, "ssl-sim-replay-%d", (int) getpid ());
    if (sim_bus_resolve (&args.cfg, prefix)) {
        if (lock >= 0)
            close (lock);
        return 1;
    }
    zsys_handler_set (NULL);
    rc = launch_logview_replay (&args, launch_logtools_catch_stop ());
    if (args.exit_code == SIM_SERVICE_EXIT_LOST) {
        sim_error ("--record: vision lost records: %s is incomplete (its error above says why)",
                   args.cfg.run.record);
        rc = 1;
    }
    if (part > 0 && launch_record_finish (args.cfg.run.record, final, lock))
        rc = 1;
    else if (part == 0 && lock >= 0)
        close (lock); /* a plain log: held for the replay */
    if (rc == 0 && args.cfg.run.record[0])
        fprintf (stderr, "replayed %s; vision recorded to %s\n", path,
                 part > 0 ? final : args.cfg.run.record);
    return rc;
}
