/*  test_bench_args.c - every benchmark program under BUILD/bench, run as a
    developer would try one first: `--help` prints its usage and exits 0,
    a mistyped option names itself and exits 2, and neither starts a run
    nor writes a file (bench/bench_args.h). Before, `pipeline --help` ran
    the minute-long pipeline benchmark and left its results in a file
    named "--help".
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/sim_lab.h"

/* How many entries dir holds besides . and .. */
static int
s_entries (const char *dir)
{
    DIR *d = opendir (dir);
    cr_assert_not_null (d, "cannot list %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir (d));)
        n += strcmp (e->d_name, ".") && strcmp (e->d_name, "..");
    closedir (d);
    return n;
}

/* One program's two answers, run in the empty directory cwd. */
static void
s_check (const char *exe, const char *name, const char *cwd)
{
    char out[4096], want[300];
    snprintf (want, sizeof want, "usage: %s ", name);
    int rc = sim_lab_capture (out, sizeof out, "cd '%s' && '%s' --help 2>/dev/null", cwd, exe);
    cr_expect_eq (rc, 0, "%s --help exited %d", name, rc);
    cr_expect (strncmp (out, want, strlen (want)) == 0, "%s --help printed \"%s\"", name, out);
    rc = sim_lab_capture (out, sizeof out, "cd '%s' && '%s' --no-such-option 2>&1 >/dev/null", cwd, exe);
    cr_expect_eq (rc, 2, "%s --no-such-option exited %d", name, rc);
    cr_expect (strstr (out, "unknown option --no-such-option") && strstr (out, want),
               "%s --no-such-option printed \"%s\"", name, out);
    cr_expect_eq (s_entries (cwd), 0, "%s left a file behind", name);
    sim_lab_sh ("rm -rf '%s'/* '%s'/.[!.]*", cwd, cwd); /* the next program's count starts at 0 */
}

/* BUILD, the tree that built ssl-sim (BUILD/bin/ssl-sim). */
static void
s_build (char *out, size_t cap)
{
    char bin[PATH_MAX];
    snprintf (bin, sizeof bin, "%s", sim_lab_exe ());
    snprintf (out, cap, "%s", dirname (dirname (bin)));
}

/* BUILD/bench/NAME (NAME "" for the folder): the benchmarks sit beside
   bin/. */
static void
s_bench (char *out, size_t cap, const char *name)
{
    char build[PATH_MAX];
    s_build (build, sizeof build);
    snprintf (out, cap, "%s/bench/%s", build, name);
}

Test (bench_args, every_benchmark_answers_help_and_refuses_an_unknown_option)
{
    char bench[PATH_MAX + 8];
    s_bench (bench, sizeof bench, "");
    char cwd[] = "/tmp/ssl-sim-bench-args-XXXXXX";
    cr_assert_not_null (mkdtemp (cwd));
    DIR *d = opendir (bench);
    cr_assert_not_null (d, "no benchmarks in %s", bench);
    int programs = 0;
    for (struct dirent *e; (e = readdir (d));) {
        char exe[PATH_MAX + 300];
        struct stat st;
        snprintf (exe, sizeof exe, "%s/%s", bench, e->d_name);
        if (e->d_name[0] == '.' || strchr (e->d_name, '.') || stat (exe, &st) || !S_ISREG (st.st_mode)
            || !(st.st_mode & S_IXUSR))
            continue;
        s_check (exe, e->d_name, cwd);
        programs++;
    }
    closedir (d);
    rmdir (cwd);
    /* the ten programs of bench/: all of them built and checked */
    cr_expect_geq (programs, 10, "only %d benchmark programs in %s", programs, bench);
}

/* The whole of the file at path, NUL-terminated, or NULL. */
static char *
s_slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream (&text, &len);
    char buf[4096];
    for (size_t n; (n = fread (buf, 1, sizeof buf, f)) > 0;)
        fwrite (buf, 1, n, mem);
    fclose (f);
    fclose (mem);
    return text;
}

/* What `make bench` does to a results file (scripts/bench.sh runs each
   program with bench/results/NAME.txt): the new run replaces the old one
   and every line from the first "## " heading on stays
   (bench/bench_results.h). The vision program, whose run takes a moment,
   stands for them all; each calls the same bench_results_write. */
Test (bench_args, a_new_run_keeps_the_notes_under_the_results)
{
    char vision[PATH_MAX + 16];
    s_bench (vision, sizeof vision, "vision");
    char dir[] = "/tmp/ssl-sim-bench-notes-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    char path[sizeof dir + 32], out[4096];

    /* a run with notes under it, no blank line between them */
    snprintf (path, sizeof path, "%s/vision.txt", dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs ("the old run\n## 2026-01-01 a note\nkept line\n\n## another\nkept too\n", f);
    fclose (f);
    cr_assert_eq (sim_lab_capture (out, sizeof out, "'%s' '%s' --runs 1 2>&1", vision, path), 0, "%s", out);
    char *text = s_slurp (path);
    cr_assert_not_null (text);
    cr_expect (!strncmp (text, "vision model benchmark:", 23), "the new run is not on top:\n%s", text);
    cr_expect (!strstr (text, "the old run"), "the old run is still there:\n%s", text);
    const char *notes = strstr (text, "## 2026-01-01");
    cr_assert_not_null (notes, "the notes are gone:\n%s", text);
    cr_expect_str_eq (notes, "## 2026-01-01 a note\nkept line\n\n## another\nkept too\n");
    cr_expect (notes - text >= 2 && notes[-1] == '\n' && notes[-2] == '\n',
               "no blank line before the notes:\n%s", text);
    free (text);

    /* a second run: the same notes, once */
    char *first = s_slurp (path);
    cr_assert_eq (sim_lab_capture (out, sizeof out, "'%s' '%s' --runs 1 2>&1", vision, path), 0, "%s", out);
    text = s_slurp (path);
    cr_assert (first && text);
    const char *a = strstr (first, "## "), *b = strstr (text, "## ");
    cr_expect (a && b && !strcmp (a, b) && !strstr (b + 1, "## 2026-01-01"), "the notes changed:\n%s", text);
    free (first);
    free (text);

    /* a file without notes is the run alone; a missing one is made */
    for (int i = 0; i < 2; i++) {
        if (i == 0) {
            f = fopen (path, "w");
            cr_assert_not_null (f);
            fputs ("the old run\nand its second line\n", f);
            fclose (f);
        } else
            unlink (path);
        cr_assert_eq (sim_lab_capture (out, sizeof out, "'%s' '%s' --runs 1 2>&1", vision, path), 0, "%s",
                      out);
        text = s_slurp (path);
        cr_assert_not_null (text);
        cr_expect (!strncmp (text, "vision model benchmark:", 23) && !strstr (text, "old run")
                       && !strstr (text, "## "),
                   "%s", text);
        free (text);
    }

    /* the files in bench/results keep their notes, byte for byte */
    static const char *const kept[] = { "embed.txt", "vision.txt" };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char src[PATH_MAX];
        snprintf (src, sizeof src, "%s/bench/results/%s", SSL_SIM_SRC, kept[i]);
        char *was = s_slurp (src);
        cr_assert_not_null (was, "no %s", src);
        cr_assert_eq (sim_lab_sh ("cp '%s' '%s'", src, path), 0);
        cr_assert_eq (sim_lab_capture (out, sizeof out, "'%s' '%s' --runs 1 2>&1", vision, path), 0, "%s",
                      out);
        text = s_slurp (path);
        cr_assert_not_null (text);
        a = strstr (was, "## ");
        b = strstr (text, "## ");
        cr_expect (a && b && !strcmp (a, b), "%s lost its notes", kept[i]);
        free (was);
        free (text);
    }
    unlink (path);
    cr_expect_eq (rmdir (dir), 0, "%s holds more than the results file (a .new left behind?)", dir);
}

/* `make bench` runs every program with what it needs: replay_seek and
   player_open measure a journal and a league log, and record them first
   with the durations scripts/bench.sh gives them (bench/bench_input.h).
   Before, bench.sh handed them its results file as their input:
   player_open skipped, replay_seek failed and `make bench` ended in an
   error. Run here as `bench.sh BUILD NAME...` with BENCH_RESULTS, so the
   checkout's bench/results stays as it is; the rest of `make bench` (a
   ten-minute soak among it) is the same loop over the other programs. */
Test (bench_args, make_bench_records_what_replay_seek_and_player_open_measure, .timeout = 900)
{
    char build[PATH_MAX];
    s_build (build, sizeof build);
    char dir[] = "/tmp/ssl-sim-bench-run-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    static char out[65536];
    int rc = sim_lab_capture (out, sizeof out,
                              "BENCH_RESULTS='%s' '%s/scripts/bench.sh' '%s' replay_seek player_open 2>&1",
                              dir, SSL_SIM_SRC, build);
    cr_expect_eq (rc, 0, "bench.sh exited %d:\n%s", rc, out);
    char path[sizeof dir + 32];
    snprintf (path, sizeof path, "%s/replay_seek.txt", dir);
    char *text = s_slurp (path);
    cr_assert_not_null (text, "no %s:\n%s", path, out);
    cr_expect (strstr (text, "journal: a fast run recorded now") && strstr (text, "equals the cold run's"),
               "%s", text);
    free (text);
    snprintf (path, sizeof path, "%s/player_open.txt", dir);
    text = s_slurp (path);
    cr_assert_not_null (text, "no %s:\n%s", path, out);
    cr_expect (strstr (text, "log: ") && strstr (text, "open warm, through its index"), "%s", text);
    free (text);
    sim_lab_sh ("rm -rf '%s'", dir);
}

/* --record takes 0 < S <= 3600 seconds (bench/bench_input.h): anything
   else is a usage error that records nothing, and so is a second word. */
Test (bench_args, a_bad_record_is_a_usage_error)
{
    static const char *const names[] = { "replay_seek", "player_open" };
    static const char *const bad[] = { "--record 0", "--record 1e9", "--record x", "--record 1 a.txt b.txt" };
    char cwd[] = "/tmp/ssl-sim-bench-record-XXXXXX";
    cr_assert_not_null (mkdtemp (cwd));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            char exe[PATH_MAX + 16], out[4096];
            s_bench (exe, sizeof exe, names[i]);
            int rc = sim_lab_capture (out, sizeof out, "cd '%s' && '%s' %s 2>&1", cwd, exe, bad[k]);
            cr_expect_eq (rc, 2, "%s %s exited %d: %s", names[i], bad[k], rc, out);
            cr_expect (strstr (out, "usage: "), "%s %s printed \"%s\"", names[i], bad[k], out);
            cr_expect_eq (s_entries (cwd), 0, "%s %s left a file behind", names[i], bad[k]);
        }
    rmdir (cwd);
}
