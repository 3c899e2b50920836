/*  sim_utf8.h - text from outside made safe to show: a copy that keeps
    only whole, well-formed UTF-8 characters. A WebSocket text frame must
    be valid UTF-8 (RFC 6455 §8.1): a browser closes the connection on one
    bad byte, so a team name cut in the middle of a character, or a forged
    referee packet, would take every open page down with it.
*/
#ifndef SIM_UTF8_H_INCLUDED
#define SIM_UTF8_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

/* Copy the NUL-terminated `src` into `dst` (cap > 0 bytes, always
   NUL-terminated): each well-formed character as it is, each byte that
   starts no well-formed character as U+FFFD; a character that does not
   fit whole ends the copy. Returns the bytes written, without the NUL. */
size_t sim_utf8_copy (char *dst, size_t cap, const char *src);

/* Whether the n bytes at s are well-formed UTF-8 (RFC 3629: no overlong
   forms, no surrogates, nothing above U+10FFFF). */
bool sim_utf8_valid (const char *s, size_t n);

#endif
