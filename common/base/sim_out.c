/*  sim_out.c - the growing text buffer (sim_out.h). */
#include "sim_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; false (and oom) when it cannot grow. */
static bool
s_out_room (sim_out_t *out, size_t n)
{
    if (out->len + n + 1 <= out->cap)
        return true;
    size_t cap = out->cap ? out->cap : 8192;
    while (out->len + n + 1 > cap)
        cap *= 2;
    char *grown = (char *) realloc (out->buf, cap);
    if (!grown) {
        out->oom = true;
        return false;
    }
    out->buf = grown;
    out->cap = cap;
    return true;
}

void
sim_out_len (sim_out_t *out, const char *s, size_t n)
{
    if (out->oom || !s_out_room (out, n))
        return;
    memcpy (out->buf + out->len, s, n);
    out->len += n;
    out->buf[out->len] = '\0';
}

void
sim_out (sim_out_t *out, const char *fmt, ...)
{
    if (out->oom)
        return;
    va_list args;
    va_start (args, fmt);
    int n = vsnprintf (NULL, 0, fmt, args);
    va_end (args);
    if (n < 0) {
        out->oom = true;
        return;
    }
    if (!s_out_room (out, (size_t) n))
        return;
    va_start (args, fmt);
    vsnprintf (out->buf + out->len, out->cap - out->len, fmt, args);
    va_end (args);
    out->len += (size_t) n;
}
