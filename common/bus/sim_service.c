/*  sim_service.c - actor start with a status. */
#include "sim_service.h"

#include <limits.h>

#include "common/base/sim_log.h"

zactor_t *
sim_service_start (zactor_fn *fn, sim_service_args_t *args)
{
    args->status = -1;
    zactor_t *actor = zactor_new (fn, args);
    if (actor && args->status != 0)
        zactor_destroy (&actor);
    return actor;
}

bool
sim_service_ready (zsock_t *pipe, sim_service_args_t *args, bool ok)
{
    args->status = ok ? 0 : -1;
    zsock_signal (pipe, 0);
    return ok;
}

bool
sim_service_term_requested (zsock_t *pipe)
{
    char *command = zstr_recv (pipe);
    bool term = !command || streq (command, "$TERM");
    zstr_free (&command);
    return term;
}

void
sim_service_log_setup (const char *name, const sim_config_t *cfg)
{
    sim_log_set_service (name);
    int level = sim_log_level_parse (cfg->run.log_level);
    sim_log_set_level (sim_log_level_from_env (level < 0 ? SIM_LOG_INFO : (sim_log_level_t) level));
}

int
sim_service_timeout_ms (int64_t now, int64_t until)
{
    if (until == INT64_MAX)
        return -1;
    if (until <= now)
        return 0;
    int64_t ms = (until - now + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int) ms;
}
