/*  phys_apply_internal.h - what the parts of the physics service's edge
    (phys_apply.c, phys_apply_realism.c) share; not for other files.
*/
#ifndef PHYS_APPLY_INTERNAL_H_INCLUDED
#define PHYS_APPLY_INTERNAL_H_INCLUDED

#include <stdbool.h>

/* Whether an Any's type URL names `type` (its last '/' segment, or that
   segment's last '.' part). */
bool phys_apply_any_is (const char *url, const char *type);

/* clang-format off */
#define SET_IF(has, dst, src) do { if (has) { (dst) = (src); } } while (0)
/* clang-format on */

#endif
