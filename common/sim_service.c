/*  sim_service.c - actor start with a status. */
#include "sim_service.h"

#include "sim_log.h"

zactor_t *
sim_service_start (zactor_fn *fn, sim_service_args_t *args)
{
    args->status = -1;
    zactor_t *actor = zactor_new (fn, args);
    if (actor && args->status != 0)
        zactor_destroy (&actor);
    return actor;
}

void
sim_service_log_setup (const char *name, const sim_config_t *cfg)
{
    sim_log_set_service (name);
    int level = sim_log_level_parse (cfg->run.log_level);
    sim_log_set_level (sim_log_level_from_env (level < 0 ? SIM_LOG_INFO : (sim_log_level_t) level));
}
