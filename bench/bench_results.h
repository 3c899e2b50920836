/*  bench_results.h - how a benchmark program writes its results file. A
    file in bench/results/ is the newest run, as the program printed it,
    then the notes developers keep under it: side-by-side comparisons,
    what was tried and lost, each under a heading line that starts with
    "## ". A new run replaces the run above the first such heading and
    keeps every line from it on. Before, `make bench` wrote each file anew,
    and embed.txt and vision.txt lost their history with it.
*/
#ifndef BENCH_RESULTS_H
#define BENCH_RESULTS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The heading that starts the kept notes. */
#define BENCH_RESULTS_NOTES "## "

/* Write text (the run) to path, then the notes of the file that was
   there (nothing when there was none), through path.new renamed over
   path, so a run that fails on the way leaves the old file whole. 0, or
   -1 with errno set. */
static inline int
bench_results_write (const char *path, const char *text)
{
    size_t n = strlen (path) + sizeof ".new";
    char *tmp = malloc (n);
    if (!tmp)
        return -1;
    snprintf (tmp, n, "%s.new", path);
    FILE *out = fopen (tmp, "w");
    if (!out) {
        free (tmp);
        return -1;
    }
    bool ok = fputs (text, out) >= 0;
    FILE *old = fopen (path, "r");
    if (!old && errno != ENOENT)
        ok = false;
    if (old) {
        char *line = NULL;
        size_t cap = 0, len = strlen (text);
        bool notes = false;
        while (ok && getline (&line, &cap, old) > 0) {
            if (!notes && !strncmp (line, BENCH_RESULTS_NOTES, strlen (BENCH_RESULTS_NOTES))) {
                notes = true;
                /* one blank line between the run and the first heading */
                if (len > 0 && text[len - 1] != '\n')
                    ok = fputs ("\n\n", out) >= 0;
                else if (len > 1 && text[len - 2] != '\n')
                    ok = fputs ("\n", out) >= 0;
            }
            if (notes && ok)
                ok = fputs (line, out) >= 0;
        }
        ok = ok && !ferror (old);
        free (line);
        fclose (old);
    }
    ok = fclose (out) == 0 && ok;
    if (ok && rename (tmp, path) == 0) {
        free (tmp);
        return 0;
    }
    int e = errno ? errno : EIO;
    unlink (tmp);
    free (tmp);
    errno = e;
    return -1;
}

#endif
