/*  sim_log.c - per-thread level and name, one formatted line per call. */
#include "sim_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

static _Thread_local const char *s_service = "ssl-sim";
static _Thread_local sim_log_level_t s_level = SIM_LOG_INFO;

static const char *const s_names[] = { "error", "warn", "info", "debug", "trace" };

void
sim_log_set_service (const char *name)
{
    s_service = name ? name : "ssl-sim";
}

void
sim_log_set_level (sim_log_level_t level)
{
    s_level = level;
}

int
sim_log_level_parse (const char *text)
{
    if (!text)
        return -1;
    for (int i = 0; i < 5; i++)
        if (strcasecmp (text, s_names[i]) == 0)
            return i;
    if (strcasecmp (text, "warning") == 0)
        return SIM_LOG_WARN;
    if (strcasecmp (text, "filter") == 0)
        return SIM_LOG_INFO;
    return -1;
}

sim_log_level_t
sim_log_level_from_env (sim_log_level_t fallback)
{
    int level = sim_log_level_parse (getenv ("SSL_SIM_LOG"));
    return level < 0 ? fallback : (sim_log_level_t) level;
}

bool
sim_log_enabled (sim_log_level_t level)
{
    return level <= s_level;
}

bool
sim_log_to_journal (void)
{
    const char *stream = getenv ("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    /* systemd sets it for a unit whose output goes to the journal; a child
       whose stderr was redirected elsewhere inherits it, hence the check */
    return stream && sscanf (stream, "%llu:%llu", &dev, &ino) == 2 && fstat (2, &st) == 0
        && (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

const char *
sim_log_time_prefix (char *buf, size_t len)
{
    buf[0] = '\0';
    if (sim_log_to_journal ())
        return buf;
    struct timeval tv;
    struct tm tm;
    gettimeofday (&tv, NULL);
    if (localtime_r (&tv.tv_sec, &tm))
        snprintf (buf, len, "%02d:%02d:%02d.%03d ", tm.tm_hour, tm.tm_min, tm.tm_sec,
                  (int) (tv.tv_usec / 1000));
    return buf;
}

const char *
sim_log_line_prefix (char *buf, size_t len, const char *service)
{
    char stamp[32];
    snprintf (buf, len, "%s%-12s | ", sim_log_time_prefix (stamp, sizeof stamp), service);
    return buf;
}

void
sim_log_write (sim_log_level_t level, const char *fmt, ...)
{
    char line[1024], prefix[64];
    /* under the launcher every line is already prefixed with the time and
       the service */
    int n = getenv ("SSL_SIM_SUPERVISED")
              ? snprintf (line, sizeof line, "%s: ", s_names[level])
              : snprintf (line, sizeof line, "%s%s: ", sim_log_line_prefix (prefix, sizeof prefix, s_service),
                          s_names[level]);
    va_list args;
    va_start (args, fmt);
    if (n >= 0 && (size_t) n < sizeof line)
        vsnprintf (line + n, sizeof line - (size_t) n, fmt, args);
    va_end (args);
    /* one fputs of a whole line keeps concurrent threads' lines intact */
    fprintf (stderr, "%s\n", line);
}
