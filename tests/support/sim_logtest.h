/*  sim_logtest.h - helpers for tests of the league's log files: damage
    made on purpose, the same way in unit and system tests.
*/
#ifndef SIM_LOGTEST_H_INCLUDED
#define SIM_LOGTEST_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* Where the index record of the plain log at `path` starts (from the
   length in its trailer), or 0 when it cannot be read. */
uint64_t sim_logtest_index_at (const char *path);

/* Add one to the i-th offset of the log's index (an offset one byte off,
   no longer at a record's header). Returns 0, or -1. */
int sim_logtest_nudge_offset (const char *path, size_t i);

#endif
