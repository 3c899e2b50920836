/*  sim_service.c - the services' names and the actor skeleton (see sim_service.h). */
#include "sim_service.h"

#include <assert.h>
#include <string.h>

#include "common/base/sim_log.h"

const char sim_service_names[SIM_SERVICE_COUNT][SIM_SERVICE_NAME_MAX] = {
    [SIM_SERVICE_PHYSICS] = "physics",     [SIM_SERVICE_VISION] = "vision", [SIM_SERVICE_GATEWAY] = "gateway",
    [SIM_SERVICE_LEGACY] = "legacy-grsim", [SIM_SERVICE_VIEWER] = "viewer",
};

int
sim_service_find (const char *name)
{
    for (int i = 0; name && i < SIM_SERVICE_COUNT; i++)
        if (strcmp (sim_service_names[i], name) == 0)
            return i;
    return -1;
}

bool
sim_service_wanted (sim_service_id_t id, const sim_config_t *cfg)
{
    if (id == SIM_SERVICE_LEGACY)
        return cfg->run.legacy_grsim;
    if (id == SIM_SERVICE_VIEWER)
        return cfg->viewer.enabled;
    return true;
}

zactor_t *
sim_service_start (zactor_fn *fn, sim_service_args_t *args)
{
    args->status = -1;
    zactor_t *actor = zactor_new (fn, args);
    if (actor && args->status != 0)
        zactor_destroy (&actor);
    return actor;
}

/* An actor's pipe and loop, for its pipe handler. */
typedef struct {
    zsock_t *pipe;
    sim_loop_t *loop;
} s_actor_t;

/* Commands on the pipe: $TERM (or an interrupted pipe) ends the loop. */
static void
s_on_pipe (void *arg)
{
    s_actor_t *actor = arg;
    while (!sim_loop_stopped (actor->loop) && (zsock_events (actor->pipe) & ZMQ_POLLIN)) {
        char *command = zstr_recv (actor->pipe);
        if (!command || streq (command, "$TERM"))
            sim_loop_stop (actor->loop);
        zstr_free (&command);
    }
}

static void
s_log_setup (const char *name, const sim_config_t *cfg)
{
    sim_log_set_service (name);
    int level = sim_log_level_parse (cfg->run.log_level);
    sim_log_set_level (sim_log_level_from_env (level < 0 ? SIM_LOG_INFO : (sim_log_level_t) level));
}

void
sim_service_run_status (zsock_t *pipe, sim_service_args_t *args, const sim_service_def_t *def,
                        int (*status) (void *self))
{
    assert (def && def->id >= 0 && def->id < SIM_SERVICE_COUNT && def->start && def->stop);
    s_log_setup (sim_service_names[def->id], &args->cfg);
    s_actor_t actor = { pipe, sim_loop_new () };
    void *self = NULL;
    if (actor.loop && sim_loop_add_sock (actor.loop, "pipe", pipe, s_on_pipe, &actor) == 0)
        self = def->start (args, actor.loop);
    /* args->status is read by the starter once signalled */
    args->status = self ? 0 : -1;
    zsock_signal (pipe, 0);
    if (self) {
        sim_loop_run (actor.loop);
        int code = status ? status (self) : 0;
        if (code && !args->exit_code)
            args->exit_code = code;
        def->stop (self);
    }
    sim_loop_destroy (&actor.loop);
}

void
sim_service_run (zsock_t *pipe, sim_service_args_t *args, const sim_service_def_t *def)
{
    sim_service_run_status (pipe, args, def, NULL);
}
