/*  logtools.h - `ssl-sim record`, `ssl-sim play` and `ssl-sim replay`
    (docs/logs.md): league log files from and to the network, and a run
    again from its input journal. */
#ifndef LAUNCH_LOGTOOLS_H_INCLUDED
#define LAUNCH_LOGTOOLS_H_INCLUDED

#include <stdbool.h>

#include "sim_config.h"

/* Record what arrives on cfg's vision, truth and referee addresses to
   `path` until SIGINT/SIGTERM or cfg->run.duration. Prints
   "recording PATH" on stdout once every socket is open. Returns the exit
   code (0, or 1 when nothing could be opened). */
int launch_record (const char *path, const sim_config_t *cfg);

/* Send the log at `path` to cfg's addresses at the recorded pace times
   cfg->run.speed, again from the start when `loop`. Returns the exit
   code: 0, 1 when the file ended in damage (said on stderr, after what
   came before it was played) or could not be read. */
int launch_play (const char *path, const sim_config_t *cfg, bool loop);

/* Re-run the world from the journal at `path`; `cli` holds the options
   given (mode, record, until_s < 0: to the end). Returns the exit code. */
int launch_replay (const char *path, const sim_config_t *cli, double until_s);

#endif
