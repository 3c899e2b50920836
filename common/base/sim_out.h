/*  sim_out.h - a growing text buffer: the configuration's dumps, manual
    and documentation are written into one, and so are the viewer's JSON
    messages and /metrics page. Appending never fails loudly: a growth that
    cannot be had sets oom, and nothing more is appended after it.
*/
#ifndef SIM_OUT_H_INCLUDED
#define SIM_OUT_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *buf; /* heap, NUL-terminated; the caller frees */
    size_t len, cap;
    bool oom; /* a growth failed: buf is incomplete */
} sim_out_t;

/* Append printf output; after a failed growth nothing more is appended. */
void sim_out (sim_out_t *out, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Append the n bytes at s (no format: for text built at a high rate). */
void sim_out_len (sim_out_t *out, const char *s, size_t n);

#endif
