/*  sim_logfile_internal.h - what the writing (sim_logfile.c) and the
    reading (sim_logfile_read.c) halves of the league's log files share:
    error text, big-endian fields, the ".gz" name rule, and the gzip
    writer that compressing a part (sim_logfile_part.c) starts. Private to
    common/logs/.
*/
#ifndef SIM_LOGFILE_INTERNAL_H_INCLUDED
#define SIM_LOGFILE_INTERNAL_H_INCLUDED

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim_logfile.h"

#define LF_BUFFER (64 * 1024) /* zlib's buffer each way */

static inline void lf_err (char *err, size_t errlen, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static inline void
lf_err (char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (err, errlen, fmt, ap);
    va_end (ap);
}

static inline void
lf_put_be (uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t) (v >> (8 * (bytes - 1 - i)));
}

static inline uint64_t
lf_get_be (const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = (v << 8) | p[i];
    return v;
}

/* A gzip log writer on the open file fd (it takes fd), its header
   written; NULL with err filled otherwise (sim_logfile.c, for
   sim_logfile_part.c's compression). */
sim_logfile_writer_t *lf_writer_gz_fd (int fd, const char *name, char *err, size_t errlen);

static inline bool
lf_is_gz_name (const char *path)
{
    size_t n = strlen (path);
    return n >= 3 && strcmp (path + n - 3, ".gz") == 0;
}

#endif
