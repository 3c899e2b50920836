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

Test (bench_args, every_benchmark_answers_help_and_refuses_an_unknown_option)
{
    /* the benchmarks sit beside bin/ in the tree that built ssl-sim */
    char bin[PATH_MAX], bench[PATH_MAX + 8];
    snprintf (bin, sizeof bin, "%s", sim_lab_exe ());
    snprintf (bench, sizeof bench, "%s/bench", dirname (dirname (bin)));
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
