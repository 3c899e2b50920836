/*  logtools.h - `ssl-sim record` and `ssl-sim play` (docs/logs.md):
    league log files from and to the network (`replay`: replaytool.h). */
#ifndef LAUNCH_LOGTOOLS_H_INCLUDED
#define LAUNCH_LOGTOOLS_H_INCLUDED

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/config/sim_config.h"

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

/* Catch SIGINT and SIGTERM for a command of this family (record, play,
   replay): the flag they set, 0 until one came. */
const volatile sig_atomic_t *launch_logtools_catch_stop (void);

/* ---- --record FILE.gz: written plain, compressed at the end (docs/logs.md) */

/* A run or replay with --record writes a new log. For FILE.gz: check
   the names, lock FILE.gz.part (created; refused when another run holds
   it), empty it (a killed run's, a warning says so), remove FILE.gz,
   copy FILE.gz into `final` and put the part's name in cfg->run.record,
   which vision then writes; *lock: the locked fd, to hand to
   launch_record_finish. A plain FILE is locked (refused when another run
   holds it) and emptied in place; *lock is its fd, to close after the
   run. Nothing is removed when the run is refused. `keep` (NULL or ""
   for none) is a file the records must not replace, the journal the run
   writes or the replay reads, `keep_is` what it is for the refusal
   ("this run's --journal"): refused when FILE or its part is that file.
   Returns 1 (swapped), 0 (not compressed: unchanged), -1 (said on
   stderr; *lock -1). */
int launch_record_begin (sim_config_t *cfg, const char *keep, const char *keep_is, char *final, size_t size,
                         int *lock);

/* After the run: compress the plain `part` into `final` and remove it
   (logged, with the time it took), when `part` is still the file `lock`
   holds; SIGINT/SIGTERM meanwhile stops it with the part kept. Closes
   `lock`. Returns 0, or -1 when it could not (logged; `part` is kept). */
int launch_record_finish (const char *part, const char *final, int lock);

/* When `path` (a .gz log) cannot be read or ends in damage and its plain
   part exists beside it, tell the user on stderr what it is and what to
   do with it. */
void launch_record_hint (const char *path);

#endif
