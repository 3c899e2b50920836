/*  phys_def.c - the world's definition from the configuration. */
#include "phys_def.h"

#include <string.h>

#include "common/base/sim_field.h"

void
phys_world_def_from_config (phys_world_def_t *def, const sim_config_t *cfg)
{
    memset (def, 0, sizeof *def);
    def->substep = cfg->sim.substep;
    def->seed = cfg->sim.seed;
    def->command_timeout = cfg->sim.command_timeout;
    def->wall_height = cfg->sim.wall_height;
    def->robots_per_team = cfg->sim.initial_robots_per_team;
    sim_field_resolve (&cfg->field, cfg->run.division, &def->field);
    def->ball = cfg->ball;
    def->contact = cfg->contact;
    def->team[SIM_TEAM_BLUE] = cfg->team[SIM_TEAM_BLUE];
    def->team[SIM_TEAM_YELLOW] = cfg->team[SIM_TEAM_YELLOW];
    phys_realism_def_pick (&def->realism, &cfg->realism);
}
