/*  replaytool.h - `ssl-sim replay JOURNAL` (docs/logs.md, "Replaying"):
    a run again from its input journal. */
#ifndef LAUNCH_REPLAYTOOL_H_INCLUDED
#define LAUNCH_REPLAYTOOL_H_INCLUDED

#include "common/config/sim_config.h"

/* Re-run the world from the journal at `path`; `cli` holds the options
   given (mode, record, until_s < 0: to the end). Returns the exit code. */
int launch_replay (const char *path, const sim_config_t *cli, double until_s);

#endif
