/*  phys_check.c - range checks that name the refused value. */
#include "phys_check.h"

#include <math.h>
#include <stdio.h>

void
phys_check_init (phys_check_t *c, char *err, size_t err_len, const char *prefix)
{
    *c = (phys_check_t) {
        .err = err, .err_len = err ? err_len : 0, .prefix = prefix ? prefix : "", .ok = true
    };
    if (c->err_len > 0)
        c->err[0] = '\0';
}

static void
s_refuse (phys_check_t *c, const char *name, double v, const char *why)
{
    if (c->ok && c->err_len > 0)
        snprintf (c->err, c->err_len, "%s%s %.9g %s", c->prefix, name, v, why);
    c->ok = false;
}

bool
phys_check_range (phys_check_t *c, const char *name, double v, double lo, bool lo_open, double hi,
                  bool hi_open, const char *unit)
{
    bool valid = isfinite (v) && fabs (v) <= PHYS_INPUT_LIMIT && (lo_open ? v > lo : v >= lo)
              && (hi_open ? v < hi : v <= hi);
    if (!valid && c->ok) {
        char why[96];
        snprintf (why, sizeof why, "out of range %c%.9g, %.9g%c%s%s", lo_open ? '(' : '[', lo, hi,
                  hi_open ? ')' : ']', unit && *unit ? " " : "", unit ? unit : "");
        s_refuse (c, name, v, why);
    }
    return c->ok;
}

bool
phys_check_that (phys_check_t *c, bool valid, const char *name, double v, const char *why)
{
    if (!valid)
        s_refuse (c, name, v, why);
    return c->ok;
}
