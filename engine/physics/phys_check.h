/*  phys_check.h - range checks of the core's definition values that say
    which value they refuse, for phys_world_new, spec updates and checkpoint
    images. Internal to core/.

    A check keeps going after the first refusal (callers stay a flat list
    of checks) but only the first one is described.
*/
#ifndef PHYS_CHECK_H_INCLUDED
#define PHYS_CHECK_H_INCLUDED

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* Outside input beyond this magnitude (m, m/s, rad, degrees, rpm) is
   refused: it is no physical value, and its squares would overflow in the
   contact code. */
#define PHYS_INPUT_LIMIT 1e6

/* Is v an acceptable input value (a magnitude within PHYS_INPUT_LIMIT)?
   For commands, teleports and images. */
static inline bool
phys_sane (double v)
{
    return fabs (v) <= PHYS_INPUT_LIMIT; /* false for NaN and the infinities too */
}

typedef struct {
    char *err; /* where the first refusal goes; NULL = nowhere */
    size_t err_len;
    const char *prefix; /* put before each name, e.g. "blue." */
    bool ok;            /* no refusal yet */
} phys_check_t;

/* Start a check writing its first refusal into err (err_len bytes, may be
   NULL/0); names are written after `prefix` (NULL = ""). */
void phys_check_init (phys_check_t *c, char *err, size_t err_len, const char *prefix);

/* Refuse v unless it is finite, |v| <= PHYS_INPUT_LIMIT and lies between
   lo and hi (lo_open / hi_open exclude the bound). The message reads
   "<prefix><name> <v> out of range <interval> <unit>". Returns c->ok. */
bool phys_check_range (phys_check_t *c, const char *name, double v, double lo, bool lo_open, double hi,
                       bool hi_open, const char *unit);

/* Refuse with a message of its own ("<prefix><name> <v> <why>") when
   `valid` is false. Returns c->ok. */
bool phys_check_that (phys_check_t *c, bool valid, const char *name, double v, const char *why);

/* Common ranges: any magnitude up to the limit, > 0, >= 0, [0, 1]. */
#define PHYS_CHECK_ANY(c, name, v, unit) \
    phys_check_range (c, name, v, -PHYS_INPUT_LIMIT, false, PHYS_INPUT_LIMIT, false, unit)
#define PHYS_CHECK_POS(c, name, v, unit) phys_check_range (c, name, v, 0, true, PHYS_INPUT_LIMIT, false, unit)
#define PHYS_CHECK_NONNEG(c, name, v, unit) \
    phys_check_range (c, name, v, 0, false, PHYS_INPUT_LIMIT, false, unit)
#define PHYS_CHECK_UNIT(c, name, v) phys_check_range (c, name, v, 0, false, 1, false, "")

#endif
