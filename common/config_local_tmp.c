/* TEMPORARY until the config split lands: keys local to a process. */
#include <string.h>
#include "config.h"
void
sim_config_keep_local (sim_config_t *cfg, const sim_config_t *own)
{
    cfg->bus = own->bus;
    cfg->network = own->network;
    memcpy (cfg->run.log_level, own->run.log_level, sizeof cfg->run.log_level);
    cfg->run.duration = own->run.duration;
}
