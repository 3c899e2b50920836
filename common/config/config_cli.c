/*  config_cli.c - the command line: argv to configuration with the
    precedence of spec/config.md §2 and §3.7, from the flag table of
    config_flags.c (the `ssl-sim --help` text of the same table is
    config_help.c's).
*/
#include "config_parts.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/base/sim_rng.h"
#include "common/base/sim_team.h"

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const sim_cfg_flag_t *flag;
    const char *value;
} s_option_t;

/* Apply one flag other than --config; 0 or -1 with err. */
static int
s_apply_flag (sim_config_t *cfg, const s_option_t *opt, char *err, size_t errlen)
{
    const sim_cfg_flag_t *flag = opt->flag;
    const char *value = flag->arg ? opt->value : flag->fixed;
    char why[400];
    switch (flag->kind) {
    case SIM_CFG_FLAG_KEY: {
        const sim_cfg_key_t *key =
            sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, flag->section, flag->key, NULL);
        /* the flag says "> 0"; only the file keeps 0 = forever */
        if (flag->flags & SIM_CFG_POSITIVE) {
            double seconds;
            if (!sim_cfg_parse_double (value, &seconds) || !(seconds > 0)) {
                sim_cfg_err (err, errlen, "%s: '%s' must be a number of seconds > 0", flag->name, value);
                return -1;
            }
        }
        if (sim_cfg_key_parse (key, cfg, value, why, sizeof why) != 0) {
            sim_cfg_err (err, errlen, "%s: %s", flag->name, why);
            return -1;
        }
        return 0;
    }
    case SIM_CFG_FLAG_STEP_MS:
        return sim_cfg_step_ms (cfg, flag, value, err, errlen);
    case SIM_CFG_FLAG_CAMERAS: {
        long count;
        if (!sim_cfg_parse_long (value, &count) || (count != 1 && count != 2 && count != 4)) {
            sim_cfg_err (err, errlen, "--cameras: '%s' must be 1, 2 or 4", value);
            return -1;
        }
        cfg->vision.default_camera_count = (int) count;
        cfg->vision.camera_count = 0;
        memset (cfg->vision.cameras, 0, sizeof cfg->vision.cameras);
        return 0;
    }
    case SIM_CFG_FLAG_SEED: {
        if (strcasecmp (value, "random") == 0) {
            /* physics.md §11.2: wall-clock nanoseconds through the avalanche */
            struct timespec now;
            clock_gettime (CLOCK_REALTIME, &now);
            uint64_t ns = (uint64_t) now.tv_sec * 1000000000u + (uint64_t) now.tv_nsec;
            cfg->sim.seed = sim_rng_avalanche (ns);
            return 0;
        }
        uint64_t seed;
        if (!sim_cfg_parse_u64 (value, &seed)) {
            sim_cfg_err (err, errlen,
                         "--seed: '%s' must be an integer within "
                         "0..18446744073709551615 or 'random'",
                         value);
            return -1;
        }
        cfg->sim.seed = seed;
        return 0;
    }
    case SIM_CFG_FLAG_CONFIG:
    case SIM_CFG_FLAG_LAUNCHER:
        break;
    }
    return 0;
}

/* A realism file named in [run] of a config file is looked up next to
   that file when it is not found from the current directory. */
static void
s_resolve_realism_path (sim_config_t *cfg, const char *config_path)
{
    const char *name = cfg->run.realism;
    sim_realism_t preset;
    if (name[0] == '\0' || name[0] == '/' || sim_config_realism_preset (name, &preset) == 0
        || access (name, R_OK) == 0)
        return;
    const char *slash = strrchr (config_path, '/');
    if (!slash)
        return;
    char joined[sizeof cfg->run.realism];
    int n = snprintf (joined, sizeof joined, "%.*s/%s", (int) (slash - config_path), config_path, name);
    if (n > 0 && (size_t) n < sizeof joined && access (joined, R_OK) == 0)
        sim_cfg_copy_string (cfg->run.realism, sizeof cfg->run.realism, joined);
}

/* The preset keys of [run]; each replaces whole tables when applied. */
static const char *const s_preset_keys[] = { "realism", "ball_preset", "robot_limits", "blue_robot_limits",
                                             "yellow_robot_limits" };
#define S_PRESETS 5

/* Row index in the main table of [run] s_preset_keys[which]. */
static size_t
s_preset_index (int which)
{
    size_t index = 0;
    const sim_cfg_key_t *key =
        sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, "run", s_preset_keys[which], &index);
    assert (key);
    return index;
}

/* Apply the preset named by [run] s_preset_keys[which]; 0 or -1 with why. */
static int
s_apply_preset (sim_config_t *cfg, int which, char *why, size_t whylen)
{
    switch (which) {
    case 0:
        return sim_config_apply_realism (cfg, cfg->run.realism, why, whylen);
    case 1:
        return sim_config_apply_ball_preset (cfg, cfg->run.ball_preset, why, whylen);
    case 2:
        return sim_config_apply_robot_limits (cfg, cfg->run.robot_limits, why, whylen);
    default: /* a team's alone, after both teams' */
        return sim_config_apply_team_robot_limits (cfg, which - 3, cfg->run.team_robot_limits[which - 3], why,
                                                   whylen);
    }
}

/* Put back from `kept` every key `written` notes: values a file writes win
   over the presets the same file names. */
static void
s_restore_written (sim_config_t *cfg, const sim_config_t *kept, const sim_cfg_written_t *written)
{
    for (size_t i = 0; i < sim_cfg_keys_count; i++)
        if (written->main[i].line)
            sim_cfg_key_copy (&sim_cfg_keys[i], cfg, kept);
    for (int team = 0; team < 2; team++)
        for (size_t i = 0; i < sim_cfg_team_keys_count; i++)
            if (written->team[team][i].line)
                sim_cfg_key_copy (&sim_cfg_team_keys[i], &cfg->team[team], &kept->team[team]);
}

/* Load one --config file: its keys, then the presets it names, then its
   own keys again on top of those presets. The keys it wrote are merged
   into `all`. 0 or -1 with err. */
static int
s_load_config_file (sim_config_t *cfg, const char *path, sim_cfg_written_t *all, char *err, size_t errlen)
{
    sim_cfg_written_t *written = sim_cfg_written_new ();
    sim_config_t *kept = (sim_config_t *) malloc (sizeof (sim_config_t));
    int rc = -1;
    if (!written || !kept) {
        sim_cfg_err (err, errlen, "out of memory");
        goto done;
    }
    if (sim_cfg_load_file (cfg, path, false, written, err, errlen) != 0)
        goto done;
    if (written->main[s_preset_index (0)].line)
        s_resolve_realism_path (cfg, path);
    *kept = *cfg;
    bool named = false;
    for (int which = 0; which < S_PRESETS; which++) {
        const sim_cfg_where_t *at = &written->main[s_preset_index (which)];
        char why[1024];
        if (!at->line || !((const char *) cfg + sim_cfg_keys[s_preset_index (which)].offset)[0])
            continue;
        if (s_apply_preset (cfg, which, why, sizeof why) != 0) {
            sim_cfg_err (err, errlen, "%s:%d: [run] %s: %s", path, at->line, s_preset_keys[which], why);
            goto done;
        }
        named = true;
    }
    if (named)
        s_restore_written (cfg, kept, written);
    sim_cfg_written_merge (all, written);
    rc = 0;
done:
    free (kept);
    sim_cfg_written_destroy (&written);
    return rc;
}

/* Log each value a file wrote that applying a command-line preset changed
   (before: the configuration just before it was applied). */
static void
s_report_replaced (const sim_config_t *before, const sim_config_t *after, const sim_cfg_written_t *all,
                   const char *flag, const char *name)
{
    char was[256], now[256];
    for (size_t i = 0; i < sim_cfg_keys_count; i++) {
        const sim_cfg_key_t *key = &sim_cfg_keys[i];
        if (!all->main[i].line)
            continue;
        bool had = sim_cfg_key_format (key, before, was, sizeof was);
        bool has = sim_cfg_key_format (key, after, now, sizeof now);
        if (had != has || (had && strcmp (was, now) != 0))
            sim_info ("%s %s replaces [%s] %s = %s of %s:%d (now %s)", flag, name, key->section, key->key,
                      had ? was : "(unset)", all->main[i].file, all->main[i].line, has ? now : "(unset)");
    }
    for (int team = 0; team < 2; team++)
        for (size_t i = 0; i < sim_cfg_team_keys_count; i++) {
            const sim_cfg_key_t *key = &sim_cfg_team_keys[i];
            const sim_cfg_where_t *at = &all->team[team][i];
            if (!at->line)
                continue;
            bool had = sim_cfg_key_format (key, &before->team[team], was, sizeof was);
            bool has = sim_cfg_key_format (key, &after->team[team], now, sizeof now);
            if (had != has || (had && strcmp (was, now) != 0))
                sim_info ("%s %s replaces [%s%s%s] %s = %s of %s:%d (now %s)", flag, name,
                          sim_team_name ((sim_team_t) team), key->section[0] ? "." : "", key->section,
                          key->key, had ? was : "(unset)", at->file, at->line, has ? now : "(unset)");
        }
}

/* The last of the `count` options that sets the global key [section]
   key (flags apply after the files, so it is the value in force); NULL
   for none. */
static const sim_cfg_flag_t *
s_flag_setting (const s_option_t *options, int count, const char *section, const char *key)
{
    for (int i = count - 1; i >= 0; i--) {
        const sim_cfg_flag_t *flag = options[i].flag;
        if (flag->kind != SIM_CFG_FLAG_CONFIG && flag->section && flag->key
            && strcmp (flag->section, section) == 0 && strcmp (flag->key, key) == 0)
            return flag;
    }
    return NULL;
}

/* A failed cross-key check names where the first of the keys it read
   that the user gave was given. A flag: the message's subject "[section]
   key" becomes the flag the user typed ("--port-offset 65000 moves
   ..."), or, when the message is about another key, the flag comes first
   ("--vision-addr: ..."). A file: "FILE:LINE: " before the message, and
   the key too when it is not the one the message is about. A check of
   values the user did not give (defaults) keeps its message. */
static void
s_blame_where (const sim_cfg_blame_t *blame, const sim_cfg_written_t *written, const s_option_t *options,
               int count, char *err, size_t errlen)
{
    for (int i = 0; i < blame->count; i++) {
        int team = blame->at[i].team;
        const char *key_section = blame->at[i].section, *key_name = blame->at[i].key;
        char what[1024];
        snprintf (what, sizeof what, "%s", err);
        const sim_cfg_flag_t *flag = team < 0 ? s_flag_setting (options, count, key_section, key_name) : NULL;
        if (flag) {
            char subject[128];
            int n = snprintf (subject, sizeof subject, "[%s] %s ", key_section, key_name);
            if (i == 0 && flag->kind == SIM_CFG_FLAG_KEY && flag->arg && n > 0 && (size_t) n < sizeof subject
                && strncmp (what, subject, (size_t) n) == 0)
                sim_cfg_err (err, errlen, "%s %s", flag->name, what + n);
            else
                sim_cfg_err (err, errlen, "%s: %s", flag->name, what);
            return;
        }
        const sim_cfg_key_t *keys = team < 0 ? sim_cfg_keys : sim_cfg_team_keys;
        size_t keys_count = team < 0 ? sim_cfg_keys_count : sim_cfg_team_keys_count;
        size_t index;
        if (!sim_cfg_find_key (keys, keys_count, key_section, key_name, &index))
            continue;
        const sim_cfg_where_t *at = team < 0 ? &written->main[index] : &written->team[team][index];
        if (!at->line)
            continue;
        char section[64];
        if (team < 0)
            snprintf (section, sizeof section, "%s", key_section);
        else
            snprintf (section, sizeof section, "%s%s%s", sim_team_name ((sim_team_t) team),
                      key_section[0] ? "." : "", key_section);
        if (i == 0)
            sim_cfg_err (err, errlen, "%s:%d: %s", at->file, at->line, what);
        else
            sim_cfg_err (err, errlen, "%s:%d: [%s] %s: %s", at->file, at->line, section, key_name, what);
        return;
    }
}

/* With [realism] vision_artefacts false (the none preset) the camera model
   reads neither [vision] duplicate_robot_rate nor confidence_stddev: a
   value a file wrote for one of them is said to be unused, with the way to
   have it (docs/config.md). */
static void
s_warn_unused_artefacts (const sim_config_t *cfg, const sim_cfg_written_t *written)
{
    static const char *const keys[] = { "duplicate_robot_rate", "confidence_stddev" };
    if (cfg->realism.vision_artefacts)
        return;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t index;
        if (!sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, "vision", keys[k], &index))
            continue;
        const sim_cfg_where_t *at = &written->main[index];
        if (at->line)
            sim_warn ("%s:%d: [vision] %s is unused: [realism] vision_artefacts is false (as in the "
                      "none preset); a file that names the preset can set it true",
                      at->file, at->line, keys[k]);
    }
}

/* The configuration flag (not the launcher's own) that `arg` names, as
   "--name" or "--name=value"; NULL for none. */
static const sim_cfg_flag_t *
s_flag_find (const char *arg)
{
    return sim_cfg_flag_named (arg, false);
}

bool
sim_config_flag_takes_value (const char *arg)
{
    const sim_cfg_flag_t *flag = s_flag_find (arg);
    return flag && flag->arg && !strchr (arg, '=');
}

int
sim_config_from_args (sim_config_t *cfg, int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 0 || (argc > 0 && !argv)) {
        sim_cfg_err (err, errlen, "no arguments");
        return -1;
    }
    s_option_t *options = (s_option_t *) calloc ((size_t) argc + 1, sizeof (s_option_t));
    if (!options) {
        sim_cfg_err (err, errlen, "out of memory");
        return -1;
    }
    int count = 0;
    int rc = -1;
    sim_cfg_written_t *written = NULL;
    sim_config_t *before = NULL;

    /* pass 1: recognise every option before acting on any */
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!arg || strncmp (arg, "--", 2) != 0) {
            sim_cfg_err (err, errlen, "unexpected argument '%s' (options start with --)",
                         arg ? arg : "(null)");
            goto done;
        }
        const char *equals = strchr (arg, '=');
        const sim_cfg_flag_t *flag = s_flag_find (arg);
        if (!flag) {
            sim_cfg_unknown_flag (arg, err, errlen);
            goto done;
        }
        const char *value = NULL;
        if (flag->arg) {
            if (equals)
                value = equals + 1;
            else if (i + 1 < argc && argv[i + 1] && strncmp (argv[i + 1], "--", 2) != 0)
                value = argv[++i];
            else {
                sim_cfg_err (err, errlen, "option %s needs a value", flag->name);
                goto done;
            }
        } else if (equals) {
            sim_cfg_err (err, errlen, "option %s takes no value", flag->name);
            goto done;
        }
        options[count].flag = flag;
        options[count].value = value;
        count++;
    }

    /* pass 2: files first, whatever their position among the flags; each
       applies the presets it names under its own values */
    written = sim_cfg_written_new ();
    before = (sim_config_t *) malloc (sizeof (sim_config_t));
    if (!written || !before) {
        sim_cfg_err (err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < count; i++)
        if (options[i].flag->kind == SIM_CFG_FLAG_CONFIG
            && s_load_config_file (cfg, options[i].value, written, err, errlen) != 0)
            goto done;

    /* pass 3: the flags in order (a later repeat wins) */
    const char *cli_preset[S_PRESETS] = { NULL };
    for (int i = 0; i < count; i++) {
        const sim_cfg_flag_t *flag = options[i].flag;
        if (flag->kind == SIM_CFG_FLAG_CONFIG)
            continue;
        if (s_apply_flag (cfg, &options[i], err, errlen) != 0)
            goto done;
        for (int which = 0; which < S_PRESETS; which++)
            if (flag->kind == SIM_CFG_FLAG_KEY && strcmp (flag->section, "run") == 0
                && strcmp (flag->key, s_preset_keys[which]) == 0)
                cli_preset[which] = flag->name;
    }

    bool local_multicast = false;
    for (int i = 0; i < count; i++)
        local_multicast |= strcmp (options[i].flag->name, "--local-multicast") == 0;
    if (sim_cfg_flags_agree (cfg, local_multicast, err, errlen) != 0)
        goto done;
    sim_cfg_env_log_level (cfg);

    /* a preset given on the command line wins over the files: it replaces
       its whole table last, and says which written values it replaced */
    for (int which = 0; which < S_PRESETS; which++) {
        const char *name = (const char *) cfg + sim_cfg_keys[s_preset_index (which)].offset;
        char why[1024];
        if (!cli_preset[which] || !name[0])
            continue;
        *before = *cfg;
        if (s_apply_preset (cfg, which, why, sizeof why) != 0) {
            sim_cfg_err (err, errlen, "%s: %s", cli_preset[which], why);
            goto done;
        }
        s_report_replaced (before, cfg, written, cli_preset[which], name);
    }
    /* physics.md §9.8: the glue flag follows realism, at startup too */
    for (int team = 0; team < 2; team++)
        cfg->team[team].dribbler.glue = !cfg->realism.simulate_dribbling;
    sim_cfg_blame_t blame;
    if (sim_cfg_validate_blame (cfg, &blame, err, errlen) != 0) {
        s_blame_where (&blame, written, options, count, err, errlen);
        goto done;
    }
    s_warn_unused_artefacts (cfg, written);
    rc = 0;
done:
    free (before);
    sim_cfg_written_destroy (&written);
    free (options);
    return rc;
}
