/*  test_log.c - the time of day on log lines, left out only when stderr
    is the journal systemd named in JOURNAL_STREAM. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/base/sim_log.h"

Test (log, the_time_of_day_unless_stderr_is_the_journal)
{
    char buf[32];
    unsetenv ("JOURNAL_STREAM");
    cr_expect_not (sim_log_to_journal ());
    const char *stamp = sim_log_time_prefix (buf, sizeof buf);
    cr_assert_eq (strlen (stamp), 13, "'%s' is not HH:MM:SS.mmm and a space", stamp);
    cr_expect (isdigit ((unsigned char) stamp[0]) && stamp[2] == ':' && stamp[5] == ':' && stamp[8] == '.'
                   && stamp[12] == ' ',
               "'%s'", stamp);

    struct stat st;
    cr_assert_eq (fstat (2, &st), 0);
    char stream[64];
    snprintf (stream, sizeof stream, "%llu:%llu", (unsigned long long) st.st_dev,
              (unsigned long long) st.st_ino);
    setenv ("JOURNAL_STREAM", stream, 1);
    cr_expect (sim_log_to_journal (), "stderr is the stream JOURNAL_STREAM names");
    cr_expect_str_eq (sim_log_time_prefix (buf, sizeof buf), "", "the journal stamps lines itself");

    /* inherited by a process whose stderr went elsewhere: not the journal */
    snprintf (stream, sizeof stream, "%llu:%llu", (unsigned long long) st.st_dev,
              (unsigned long long) st.st_ino + 1);
    setenv ("JOURNAL_STREAM", stream, 1);
    cr_expect_not (sim_log_to_journal ());
    setenv ("JOURNAL_STREAM", "garbage", 1);
    cr_expect_not (sim_log_to_journal ());
    unsetenv ("JOURNAL_STREAM");
}
