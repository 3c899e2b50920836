/*  sim_utf8.c - well-formed UTF-8 (sim_utf8.h). */
#include "sim_utf8.h"

#include <stdint.h>
#include <string.h>

/* The length of the well-formed character at s (n bytes available), or 0
   when s starts none. The ranges of RFC 3629 §4. */
static size_t
s_char (const uint8_t *s, size_t n)
{
    uint8_t b = s[0];
    if (b < 0x80)
        return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0)
            lo = 0xA0; /* overlong below */
        else if (b == 0xED)
            hi = 0x9F; /* surrogates above */
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F; /* beyond U+10FFFF above */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

size_t
sim_utf8_copy (char *dst, size_t cap, const char *src)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const uint8_t *s = (const uint8_t *) src;
    size_t n = strlen (src), out = 0;
    for (size_t i = 0; i < n;) {
        size_t len = s_char (s + i, n - i);
        const char *from = len ? (const char *) s + i : replacement;
        size_t put = len ? len : sizeof replacement - 1;
        if (out + put + 1 > cap)
            break;
        memcpy (dst + out, from, put);
        out += put;
        i += len ? len : 1;
    }
    dst[out] = '\0';
    return out;
}

bool
sim_utf8_valid (const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t len = s_char ((const uint8_t *) s + i, n - i);
        if (!len)
            return false;
        i += len;
    }
    return true;
}
