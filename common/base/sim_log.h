/*  sim_log.h - the one log module: levels checked before formatting, one
    line per event with the service name and level, to stderr (journald and
    the launcher's prefixer read it line by line).

    The level and service name are per thread, so the five actors of the
    single-process mode each log under their own name.
*/
#ifndef SIM_LOG_H_INCLUDED
#define SIM_LOG_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    SIM_LOG_ERROR = 0,
    SIM_LOG_WARN = 1,
    SIM_LOG_INFO = 2,
    SIM_LOG_DEBUG = 3,
    SIM_LOG_TRACE = 4
} sim_log_level_t;

/* Name this thread's log lines ("physics", "vision", ...); borrowed pointer. */
void sim_log_set_service (const char *name);
/* Set this thread's threshold. */
void sim_log_set_level (sim_log_level_t level);
/* Parse "error|warn|info|debug|trace" (case-insensitive); -1 if unknown.
   "filter" (a config value meaning "as the environment says") gives INFO. */
int sim_log_level_parse (const char *text);
/* Level from SSL_SIM_LOG when set and valid, else `fallback`. */
sim_log_level_t sim_log_level_from_env (sim_log_level_t fallback);
bool sim_log_enabled (sim_log_level_t level);

/* Whether stderr is the journal (JOURNAL_STREAM names its device and
   inode): the journal stamps every line itself. */
bool sim_log_to_journal (void);

/* "HH:MM:SS.mmm " of the local time into buf (at least 16 bytes), or ""
   when the lines go to the journal. Returns buf. */
const char *sim_log_time_prefix (char *buf, size_t len);

/* The start of every line: the time of day (sim_log_time_prefix) and
   `service` in a column of 12, then " | " ("12:00:01.250 physics      | "),
   into buf (at least 48 bytes). The launcher's prefixer and the
   single-process mode's lines use it alike. Returns buf. */
const char *sim_log_line_prefix (char *buf, size_t len, const char *service);

/* One line to stderr: the time of day (unless the journal or the
   launcher, which prefixes lines itself, reads them), the service name
   (unless under the launcher), the level and the message. */
void sim_log_write (sim_log_level_t level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* clang-format off */
#define sim_error(...) \
    do { if (sim_log_enabled (SIM_LOG_ERROR)) sim_log_write (SIM_LOG_ERROR, __VA_ARGS__); } while (0)
#define sim_warn(...) \
    do { if (sim_log_enabled (SIM_LOG_WARN)) sim_log_write (SIM_LOG_WARN, __VA_ARGS__); } while (0)
#define sim_info(...) \
    do { if (sim_log_enabled (SIM_LOG_INFO)) sim_log_write (SIM_LOG_INFO, __VA_ARGS__); } while (0)
#define sim_debug(...) \
    do { if (sim_log_enabled (SIM_LOG_DEBUG)) sim_log_write (SIM_LOG_DEBUG, __VA_ARGS__); } while (0)
#define sim_trace(...) \
    do { if (sim_log_enabled (SIM_LOG_TRACE)) sim_log_write (SIM_LOG_TRACE, __VA_ARGS__); } while (0)
/* clang-format on */

#endif
