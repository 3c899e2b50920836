/*  replaytool.h - `ssl-sim replay JOURNAL` (docs/logs.md, "Replaying"):
    a run again from its input journal. */
#ifndef LAUNCH_REPLAYTOOL_H_INCLUDED
#define LAUNCH_REPLAYTOOL_H_INCLUDED

#include "common/config/sim_config.h"

/* Re-run the world from the journal at `path`; `cli` holds the options
   given (mode, record, until_s < 0: to the end). Returns the exit code. */
int launch_replay (const char *path, const sim_config_t *cli, double until_s);

/* Warn, once each, of the options in opts[0..n) that change nothing in a
   replay: those of the world, which is the journal's (--seed, --realism,
   --robots, ...), and the local ones a replay has no use for (--duration,
   --journal). */
void launch_replay_warn_unused (int n, char **opts);

#endif
