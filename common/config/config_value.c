/*  config_value.c - one key's value as text and back: parsing with range
    checks, the INI formatting that round-trips, defaults and copies, plus
    the small text helpers the other config_*.c files share (error text,
    growing output buffer). Everything here works on one table row and a
    base pointer; which table and which struct is the caller's business.
*/
#include "config_parts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- text helpers ------------------------------------------------------- */

void
sim_cfg_err (char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list args;
    va_start (args, fmt);
    vsnprintf (err, errlen, fmt, args);
    va_end (args);
}

/* Copy into a fixed buffer, zeroing the tail so memcmp stays meaningful. */
int
sim_cfg_copy_string (char *dest, size_t size, const char *src)
{
    size_t len = strlen (src);
    if (len >= size)
        return -1;
    memset (dest, 0, size);
    memcpy (dest, src, len);
    return 0;
}

/* The fewest of 15, 16, 17 significant digits that read back to the same
   double; a ".0" marks integral floats. */
void
sim_cfg_format_double (double value, char *buf, size_t size)
{
    /* 15 digits reads best for hand-written numbers; 16 matches how the
       spec prints angles such as 0.04363323129985824; 17 always works */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf (buf, size, "%.*g", digits, value);
        double back = strtod (buf, NULL);
        if (back == value && signbit (back) == signbit (value))
            break;
    }
    if (!strpbrk (buf, ".eEnNiI")) {
        size_t len = strlen (buf);
        if (len + 2 < size)
            memcpy (buf + len, ".0", 3);
    }
}

/* The number in `text` starts after leading blanks... */
static const char *
s_skip_blanks (const char *text)
{
    while (isspace ((unsigned char) *text))
        text++;
    return text;
}

/* ...and only blanks may follow it. */
static bool
s_only_blanks (const char *end)
{
    return *s_skip_blanks (end) == '\0';
}

bool
sim_cfg_parse_double (const char *text, double *out)
{
    char *end;
    text = s_skip_blanks (text);
    if (*text == '\0')
        return false;
    double value = strtod (text, &end);
    if (!s_only_blanks (end) || !isfinite (value))
        return false;
    *out = value;
    return true;
}

bool
sim_cfg_parse_long (const char *text, long *out)
{
    char *end;
    text = s_skip_blanks (text);
    if (*text == '\0')
        return false;
    errno = 0;
    long value = strtol (text, &end, 10);
    if (!s_only_blanks (end) || errno == ERANGE)
        return false;
    *out = value;
    return true;
}

bool
sim_cfg_parse_u64 (const char *text, uint64_t *out)
{
    char *end;
    text = s_skip_blanks (text);
    /* strtoull would accept "-1" as 2^64 - 1 */
    if (!isdigit ((unsigned char) *text))
        return false;
    errno = 0;
    unsigned long long value = strtoull (text, &end, 10);
    if (!s_only_blanks (end) || errno == ERANGE)
        return false;
    *out = (uint64_t) value;
    return true;
}

static int
s_parse_bool (const char *text, bool *out)
{
    static const char *const yes[] = { "true", "yes", "on", "1" };
    static const char *const no[] = { "false", "no", "off", "0" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp (text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp (text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

static const char *
s_enum_name (const sim_cfg_enum_name_t *names, int value)
{
    for (int i = 0; names[i].name; i++)
        if (names[i].value == value)
            return names[i].name;
    return "?";
}

/* "a | b" listing the canonical names (first per value). */
void
sim_cfg_enum_list (const sim_cfg_enum_name_t *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; names[i].name; i++) {
        bool first_of_value = true;
        for (int j = 0; j < i; j++)
            if (names[j].value == names[i].value)
                first_of_value = false;
        if (!first_of_value)
            continue;
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%s", len ? " | " : "", names[i].name);
    }
}

/* Human text for a range, e.g. "> 0", "within 0..1", "" for no limits. */
void
sim_cfg_range_text (const sim_cfg_key_t *key, char *buf, size_t size)
{
    const sim_cfg_range_t *r = &key->range;
    char lo[32], hi[32];
    bool integral = key->type == SIM_CFG_INT;
    if (integral) {
        snprintf (lo, sizeof lo, "%.0f", r->min);
        snprintf (hi, sizeof hi, "%.0f", r->max);
    } else {
        snprintf (lo, sizeof lo, "%.15g", r->min);
        snprintf (hi, sizeof hi, "%.15g", r->max);
    }
    bool has_min = isfinite (r->min), has_max = isfinite (r->max);
    const char *unset = (r->flags & SIM_CFG_ZERO_UNSET) ? " (or 0 = unset)" : "";
    if (has_min && has_max && !(r->flags & (SIM_CFG_MIN_EXCL | SIM_CFG_MAX_EXCL)))
        snprintf (buf, size, "within %s..%s%s", lo, hi, unset);
    else if (has_min && has_max)
        snprintf (buf, size, "%s %s and %s %s%s", (r->flags & SIM_CFG_MIN_EXCL) ? ">" : ">=", lo,
                  (r->flags & SIM_CFG_MAX_EXCL) ? "<" : "<=", hi, unset);
    else if (has_min)
        snprintf (buf, size, "%s %s%s", (r->flags & SIM_CFG_MIN_EXCL) ? ">" : ">=", lo, unset);
    else if (has_max)
        snprintf (buf, size, "%s %s%s", (r->flags & SIM_CFG_MAX_EXCL) ? "<" : "<=", hi, unset);
    else
        buf[0] = '\0';
}

static bool
s_in_range (const sim_cfg_range_t *r, double value)
{
    if ((r->flags & SIM_CFG_ZERO_UNSET) && value == 0)
        return true;
    if (r->flags & SIM_CFG_MIN_EXCL ? !(value > r->min) : !(value >= r->min))
        return false;
    if (r->flags & SIM_CFG_MAX_EXCL ? !(value < r->max) : !(value <= r->max))
        return false;
    return true;
}

/* ---- one key: default, parse, format ------------------------------------ */

void
sim_cfg_key_default (const sim_cfg_key_t *key, void *base)
{
    char *field = (char *) base + key->offset;
    switch (key->type) {
    case SIM_CFG_FLOAT:
        *(double *) field = key->def;
        break;
    case SIM_CFG_INT:
    case SIM_CFG_ENUM:
        /* every enum in sim_config.h is int-sized; checked at build time */
        *(int *) field = (int) key->def;
        break;
    case SIM_CFG_U64:
        *(uint64_t *) field = (uint64_t) key->def;
        break;
    case SIM_CFG_BOOL:
        *(bool *) field = key->def != 0;
        break;
    case SIM_CFG_STRING:
        sim_cfg_copy_string (field, key->size, key->def_text ? key->def_text : "");
        break;
    case SIM_CFG_LIST:
        memset (field, 0, key->size * sizeof (double));
        *(int *) ((char *) base + key->count_offset) = 0;
        break;
    }
}

_Static_assert(sizeof (sim_mode_t) == sizeof (int), "enums are stored as int");
_Static_assert(sizeof (sim_division_t) == sizeof (int), "enums are stored as int");
_Static_assert(sizeof (sim_camera_phase_t) == sizeof (int), "enums are stored as int");
_Static_assert(sizeof (sim_drive_model_t) == sizeof (int), "enums are stored as int");

/* Parse `text` into the key's field; 0, or -1 with a reason in why. */
int
sim_cfg_key_parse (const sim_cfg_key_t *key, void *base, const char *text, char *why, size_t whylen)
{
    char *field = (char *) base + key->offset;
    char range[96];
    switch (key->type) {
    case SIM_CFG_FLOAT: {
        double value;
        if (!sim_cfg_parse_double (text, &value)) {
            sim_cfg_err (why, whylen, "'%s' is not a finite number", text);
            return -1;
        }
        if (!s_in_range (&key->range, value)) {
            sim_cfg_range_text (key, range, sizeof range);
            sim_cfg_err (why, whylen, "%s is out of range (must be %s)", text, range);
            return -1;
        }
        *(double *) field = value;
        return 0;
    }
    case SIM_CFG_INT: {
        long value;
        if (!sim_cfg_parse_long (text, &value)) {
            sim_cfg_err (why, whylen, "'%s' is not an integer", text);
            return -1;
        }
        if (value < INT_MIN || value > INT_MAX || !s_in_range (&key->range, (double) value)) {
            sim_cfg_range_text (key, range, sizeof range);
            sim_cfg_err (why, whylen, "%s is out of range (must be %s)", text, range);
            return -1;
        }
        *(int *) field = (int) value;
        return 0;
    }
    case SIM_CFG_U64: {
        uint64_t value;
        if (!sim_cfg_parse_u64 (text, &value)) {
            if (strcasecmp (text, "random") == 0)
                sim_cfg_err (why, whylen,
                             "'random' is accepted only on the command line "
                             "(--seed random)");
            else
                sim_cfg_err (why, whylen, "'%s' is not an integer within 0..18446744073709551615", text);
            return -1;
        }
        *(uint64_t *) field = value;
        return 0;
    }
    case SIM_CFG_BOOL: {
        bool value;
        if (s_parse_bool (text, &value) != 0) {
            sim_cfg_err (why, whylen, "'%s' is not a boolean (true/false, yes/no, on/off, 1/0)", text);
            return -1;
        }
        *(bool *) field = value;
        return 0;
    }
    case SIM_CFG_ENUM:
        for (int i = 0; key->names[i].name; i++)
            if (strcasecmp (text, key->names[i].name) == 0) {
                *(int *) field = key->names[i].value;
                return 0;
            }
        sim_cfg_enum_list (key->names, range, sizeof range);
        sim_cfg_err (why, whylen, "'%s' is not one of %s", text, range);
        return -1;
    case SIM_CFG_STRING:
        if (strlen (text) >= key->size) {
            sim_cfg_err (why, whylen, "value is longer than %zu characters", key->size - 1);
            return -1;
        }
        if (key->check && key->check (text, why, whylen) != 0)
            return -1;
        sim_cfg_copy_string (field, key->size, text);
        return 0;
    case SIM_CFG_LIST: {
        double values[64];
        size_t count = 0;
        char item[64];
        const char *p = text;
        while (isspace ((unsigned char) *p))
            p++;
        while (*p) {
            const char *comma = strchr (p, ',');
            size_t len = comma ? (size_t) (comma - p) : strlen (p);
            if (count >= key->size) {
                sim_cfg_err (why, whylen, "more than %zu values", key->size);
                return -1;
            }
            if (len >= sizeof item) {
                sim_cfg_err (why, whylen, "list item too long");
                return -1;
            }
            memcpy (item, p, len);
            item[len] = '\0';
            if (!sim_cfg_parse_double (item, &values[count])) {
                sim_cfg_err (why, whylen, "'%s' is not a finite number", item);
                return -1;
            }
            count++;
            if (!comma)
                break;
            p = comma + 1;
            /* "1.0," would otherwise be accepted as a list of one */
            while (isspace ((unsigned char) *p))
                p++;
            if (*p == '\0') {
                sim_cfg_err (why, whylen, "empty list item");
                return -1;
            }
        }
        memset (field, 0, key->size * sizeof (double));
        memcpy (field, values, count * sizeof (double));
        *(int *) ((char *) base + key->count_offset) = (int) count;
        return 0;
    }
    }
    return -1;
}

/* The key's value as INI text; false when it is unset and not written. */
bool
sim_cfg_key_format (const sim_cfg_key_t *key, const void *base, char *buf, size_t size)
{
    const char *field = (const char *) base + key->offset;
    switch (key->type) {
    case SIM_CFG_FLOAT: {
        double value = *(const double *) field;
        if ((key->range.flags & SIM_CFG_ZERO_UNSET) && value == 0 && !signbit (value))
            return false;
        sim_cfg_format_double (value, buf, size);
        return true;
    }
    case SIM_CFG_INT:
        snprintf (buf, size, "%d", *(const int *) field);
        return true;
    case SIM_CFG_U64:
        snprintf (buf, size, "%" PRIu64, *(const uint64_t *) field);
        return true;
    case SIM_CFG_BOOL:
        snprintf (buf, size, "%s", *(const bool *) field ? "true" : "false");
        return true;
    case SIM_CFG_ENUM:
        snprintf (buf, size, "%s", s_enum_name (key->names, *(const int *) field));
        return true;
    case SIM_CFG_STRING:
        /* an empty string is the default "unset" of every string key that
           defaults to empty; others are written even when empty */
        if (field[0] == '\0' && (!key->def_text || key->def_text[0] == '\0'))
            return false;
        snprintf (buf, size, "%s", field);
        return true;
    case SIM_CFG_LIST: {
        int count = *(const int *) ((const char *) base + key->count_offset);
        if (count <= 0)
            return false;
        /* inih reads at most 199 characters a line: drop the spaces after
           the commas when a list of long numbers would not fit */
        for (int pass = 0; pass < 2; pass++) {
            buf[0] = '\0';
            for (int i = 0; i < count; i++) {
                char item[40];
                sim_cfg_format_double (((const double *) field)[i], item, sizeof item);
                size_t len = strlen (buf);
                snprintf (buf + len, size - len, "%s%s", i ? (pass ? "," : ", ") : "", item);
            }
            if (strlen (key->key) + 3 + strlen (buf) <= 199)
                break;
        }
        return true;
    }
    }
    return false;
}

size_t
sim_cfg_key_size (const sim_cfg_key_t *key)
{
    switch (key->type) {
    case SIM_CFG_FLOAT:
        return sizeof (double);
    case SIM_CFG_INT:
    case SIM_CFG_ENUM:
        return sizeof (int);
    case SIM_CFG_U64:
        return sizeof (uint64_t);
    case SIM_CFG_BOOL:
        return sizeof (bool);
    case SIM_CFG_STRING:
        return key->size;
    case SIM_CFG_LIST:
        return key->size * sizeof (double);
    }
    return 0;
}

/* The field of `key` in src copied into dst (both of the key's base struct
   type), so a string or list keeps its zero tail. */
void
sim_cfg_key_copy (const sim_cfg_key_t *key, void *dst, const void *src)
{
    if (key->type == SIM_CFG_LIST)
        memcpy ((char *) dst + key->count_offset, (const char *) src + key->count_offset, sizeof (int));
    memcpy ((char *) dst + key->offset, (const char *) src + key->offset, sim_cfg_key_size (key));
}
