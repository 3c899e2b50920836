/*  config_flag_rules.c - what the flag table (config_flags.c) cannot
    say by itself: which flag an argument names, the answer to one this
    command does not take, --step-ms in milliseconds, the rules between
    flags, and SSL_SIM_LOG. config_cli.c parses with them. */
#include "config_parts.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_log.h"

/* The length of the flag's name in arg ("--name" or "--name=value"). */
static size_t
s_name_len (const char *arg)
{
    const char *equals = strchr (arg, '=');
    return equals ? (size_t) (equals - arg) : strlen (arg);
}

const sim_cfg_flag_t *
sim_cfg_flag_named (const char *arg, bool launcher)
{
    size_t len = s_name_len (arg);
    for (size_t f = 0; f < sim_cfg_flags_count; f++)
        if ((sim_cfg_flags[f].kind == SIM_CFG_FLAG_LAUNCHER) == launcher
            && strlen (sim_cfg_flags[f].name) == len && strncmp (sim_cfg_flags[f].name, arg, len) == 0)
            return &sim_cfg_flags[f];
    return NULL;
}

bool
sim_config_flag_key (const char *arg, const char **section, const char **key, bool *local)
{
    const sim_cfg_flag_t *flag = sim_cfg_flag_named (arg, false);
    const sim_cfg_key_t *row =
        flag && flag->kind != SIM_CFG_FLAG_CONFIG && flag->section && flag->key
            ? sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, flag->section, flag->key, NULL)
            : NULL;
    if (!row)
        return false;
    *section = row->section;
    *key = row->key;
    *local = (row->flags & SIM_CFG_LOCAL) != 0;
    return true;
}

void
sim_cfg_unknown_flag (const char *arg, char *err, size_t errlen)
{
    int len = (int) s_name_len (arg);
    /* another command's own flag: its help names the commands that take it ("play: ...") */
    const sim_cfg_flag_t *other = sim_cfg_flag_named (arg, true);
    const char *colon = other ? strchr (other->help, ':') : NULL;
    if (colon)
        sim_cfg_err (err, errlen, "option '%.*s' is not one of this command's (%.*s takes it)", len, arg,
                     (int) (colon - other->help), other->help);
    else
        sim_cfg_err (err, errlen, "unknown option '%.*s'", len, arg);
}

int
sim_cfg_step_ms (sim_config_t *cfg, const sim_cfg_flag_t *flag, const char *value, char *err, size_t errlen)
{
    /* the [sim] substep key's own checks, said in the flag's
       milliseconds (its range scaled; the value scaled back) */
    sim_cfg_key_t ms = *sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, flag->section, flag->key, NULL);
    ms.range.min *= flag->scale;
    ms.range.max *= flag->scale;
    char why[400];
    if (sim_cfg_key_parse (&ms, cfg, value, why, sizeof why) != 0) {
        sim_cfg_err (err, errlen, "%s: %s", flag->name, why);
        return -1;
    }
    cfg->sim.substep /= flag->scale;
    if (!sim_config_substep_whole (cfg->sim.substep)) {
        sim_cfg_err (err, errlen, "%s: %s ms is not a whole number of nanoseconds", flag->name, value);
        return -1;
    }
    return 0;
}

int
sim_cfg_flags_agree (const sim_config_t *cfg, bool local_multicast, char *err, size_t errlen)
{
    /* --local-multicast alone would send vision and truth to the
       network's group, the opposite of what "local" promises: it only
       chooses how --localhost sends them, so it asks for it */
    if (local_multicast && !cfg->run.localhost) {
        sim_cfg_err (err, errlen,
                     "--local-multicast needs --localhost (or [run] localhost = true): it chooses how "
                     "vision stays on this machine, and without --localhost it goes to the network");
        return -1;
    }
    return 0;
}

static atomic_flag s_env_level_said = ATOMIC_FLAG_INIT; /* a bad SSL_SIM_LOG was warned of */

void
sim_cfg_env_log_level (sim_config_t *cfg)
{
    /* the environment wins over file and flag (config.md §4) */
    const char *env = getenv ("SSL_SIM_LOG");
    if (env && sim_log_level_parse (env) >= 0 && strlen (env) < sizeof cfg->run.log_level)
        sim_cfg_copy_string (cfg->run.log_level, sizeof cfg->run.log_level, env);
    else if (env && *env && !atomic_flag_test_and_set (&s_env_level_said)) /* once a process, not per world */
        sim_warn ("SSL_SIM_LOG=%.40s is not a log level (error, warn, info, debug, trace): ignored", env);
}
