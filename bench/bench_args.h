/*  bench_args.h - what every benchmark program does with an argument that
    none of its options took. A word is a path (the results file, or the
    input a program reads); a word that starts with '-' never is: `--help`
    (or `-h`) prints the usage to stdout and the program ends with 0, any
    other option prints the usage to stderr, after naming it, and the
    program ends with 2. So a mistyped flag neither starts a run of
    minutes nor leaves a results file named after itself.
*/
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether arg is an option (and so not a path); "-" alone is not one. */
static inline bool
bench_is_option (const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0';
}

/* The usage (printf format fmt, ending in a newline) for arg, the option
   none took, or for a bad value when arg is NULL; the status main returns. */
static inline int __attribute__ ((format (printf, 2, 3))) bench_usage (const char *arg, const char *fmt, ...)
{
    bool help = arg && (!strcmp (arg, "--help") || !strcmp (arg, "-h"));
    FILE *out = help ? stdout : stderr;
    if (arg && !help)
        fprintf (out, "unknown option %s\n", arg);
    va_list ap;
    va_start (ap, fmt);
    vfprintf (out, fmt, ap);
    va_end (ap);
    return help ? 0 : 2;
}

#endif
