/*  stats.h - `ssl-sim stats` (docs/stats.md): the statistics of a vision
    stream from a league log or a live address, and with --fit the
    [realism] file that reproduces them. */
#ifndef LAUNCH_STATS_H_INCLUDED
#define LAUNCH_STATS_H_INCLUDED

#include "common/config/sim_config.h"

/* `ssl-sim stats FILE [--fit]` or `ssl-sim stats --listen ADDR --seconds N
   [--fit]`; optc/optv are those words (the configuration flags taken
   out into cfg, whose multicast interface a live stream is joined on).
   Prints the statistics
   (or, with --fit, a realism INI file) on stdout. Returns the exit code:
   0, 1 when the input could not be read or held no detection frame, 2 for
   bad arguments. */
int launch_stats (int optc, char **optv, const sim_config_t *cfg);

#endif
