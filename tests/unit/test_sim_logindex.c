/*  test_sim_logindex.c - common/logs/sim_logindex.c: the league's index
    record at the end of a plain log, found from the file's last bytes,
    walked record by record, and every way it can be wrong (a length past
    the file, the wrong type, offsets past the end, off by one, out of
    order, a file cut short or appended to, random bytes) refused with a
    sentence instead of trusted. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/logs/sim_logfile.h"
#include "common/logs/sim_logindex.h"
#include "tests/support/sim_logtest.h"

#define RECORDS 40
#define BIG     (100 * 1024) /* one record larger than the index reader's window */

typedef struct {
    char path[64];
} s_file_t;

/* RECORDS records of varied types and sizes (one empty, one BIG), the
   index at the end when `index`. */
static void
s_make (s_file_t *f, bool index)
{
    snprintf (f->path, sizeof f->path, "/tmp/ssl-sim-logindex-XXXXXX");
    int fd = mkstemp (f->path);
    cr_assert_geq (fd, 0);
    close (fd);
    unlink (f->path);
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (f->path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    static uint8_t data[BIG];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t) (i * 7);
    for (int i = 0; i < RECORDS; i++) {
        int32_t type = i % 5 == 0 ? SIM_LOGFILE_REFEREE : i == 7 ? SIM_LOGFILE_BLANK : SIM_LOGFILE_VISION;
        size_t len = i == 7 ? 0 : i == 20 ? BIG : (size_t) (30 + 17 * i);
        cr_assert_eq (sim_logfile_write (w, 1000000000LL * (100 + i), type, data, len), 0);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

static uint64_t
s_size (const s_file_t *f)
{
    struct stat st;
    cr_assert_eq (stat (f->path, &st), 0);
    return (uint64_t) st.st_size;
}

static void
s_poke (const s_file_t *f, uint64_t at, const void *bytes, size_t n)
{
    int fd = open (f->path, O_WRONLY);
    cr_assert_geq (fd, 0);
    cr_assert_eq (pwrite (fd, bytes, n, (off_t) at), (ssize_t) n);
    close (fd);
}

static void
s_poke_be (const s_file_t *f, uint64_t at, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t) (v >> (8 * (bytes - 1 - i)));
    s_poke (f, at, b, (size_t) bytes);
}

/* Where the index record starts (from the trailer the writer wrote). */
static uint64_t
s_index_at (const s_file_t *f)
{
    uint64_t at = sim_logtest_index_at (f->path);
    cr_assert_gt (at, 0);
    return at;
}

static bool
s_referee_only (int32_t type)
{
    return type == SIM_LOGFILE_REFEREE;
}

/* Walk the whole index: the records it gave (or -1 when it stopped at a
   disagreement, its sentence in why). */
static int
s_walk (const s_file_t *f, char *why, size_t whylen)
{
    sim_logindex_t *idx = NULL;
    int rc = sim_logindex_open (f->path, &idx, why, whylen);
    if (rc <= 0)
        return rc < 0 ? -1 : -2;
    sim_logfile_msg_t m;
    int n = 0, got;
    while ((got = sim_logindex_next (idx, &m, s_referee_only)) > 0)
        n++;
    if (got < 0)
        snprintf (why, whylen, "%s", sim_logindex_error (idx));
    sim_logindex_destroy (&idx);
    return got < 0 ? -1 : n;
}

Test (sim_logindex, walks_the_same_records_as_the_reader_reading_only_the_referee_messages)
{
    s_file_t f;
    s_make (&f, true);
    char err[256] = "";
    sim_logindex_t *idx = NULL;
    cr_assert_eq (sim_logindex_open (f.path, &idx, err, sizeof err), 1, "%s", err);
    cr_expect_eq (sim_logindex_count (idx), RECORDS);
    sim_logfile_reader_t *r = sim_logfile_reader_new (f.path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t a, b;
    for (int i = 0; i < RECORDS; i++) {
        cr_assert_eq (sim_logindex_next (idx, &a, s_referee_only), 1, "%s", sim_logindex_error (idx));
        cr_assert_eq (sim_logfile_next (r, &b), 1);
        cr_expect_eq (a.offset, b.offset);
        cr_expect_eq (a.time_ns, b.time_ns);
        cr_expect_eq (a.type, b.type);
        cr_expect_eq (a.len, b.len);
        if (a.type == SIM_LOGFILE_REFEREE)
            cr_expect (a.data && memcmp (a.data, b.data, a.len) == 0, "record %d's bytes", i);
        else
            cr_expect_null (a.data, "record %d's bytes were not asked for", i);
    }
    cr_expect_eq (sim_logindex_next (idx, &a, s_referee_only), 0, "%s", sim_logindex_error (idx));
    cr_expect_eq (sim_logfile_next (r, &b), 1, "the reader then meets the index record itself");
    cr_expect_eq (b.type, SIM_LOGFILE_INDEX);
    sim_logfile_reader_destroy (&r);
    sim_logindex_destroy (&idx);
    unlink (f.path);
}

Test (sim_logindex, reads_a_record_larger_than_its_window)
{
    s_file_t f;
    s_make (&f, true);
    char err[256] = "";
    sim_logindex_t *idx = NULL;
    cr_assert_eq (sim_logindex_open (f.path, &idx, err, sizeof err), 1, "%s", err);
    sim_logfile_msg_t m;
    for (int i = 0; i <= 20; i++)
        cr_assert_eq (sim_logindex_next (idx, &m, NULL), 1);
    cr_expect_eq (m.len, BIG);
    sim_logindex_destroy (&idx);
    unlink (f.path);
}

Test (sim_logindex, a_log_without_an_index_has_none)
{
    s_file_t f;
    s_make (&f, false);
    char err[256] = "";
    cr_expect_eq (s_walk (&f, err, sizeof err), -2);
    cr_expect_eq (err[0], '\0', "no index is not an error");
    unlink (f.path);
}

Test (sim_logindex, a_compressed_log_has_none)
{
    char path[] = "/tmp/ssl-sim-logindex-XXXXXX.gz";
    int fd = mkstemps (path, 3);
    cr_assert_geq (fd, 0);
    close (fd);
    unlink (path);
    char err[256] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, true, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    sim_logfile_write (w, 1, SIM_LOGFILE_VISION, "abc", 3);
    sim_logfile_writer_destroy (&w);
    sim_logindex_t *idx = NULL;
    cr_expect_eq (sim_logindex_open (path, &idx, err, sizeof err), 0);
    cr_expect_null (idx);
    unlink (path);
}

Test (sim_logindex, a_length_past_the_start_of_the_file_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    s_poke_be (&f, s_size (&f) - 15, s_size (&f) + 100, 8);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "does not fit the file"), "%s", why);
    s_poke_be (&f, s_size (&f) - 15, 0xffffffffffffffffULL, 8);
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "a length that wraps around");
    s_poke_be (&f, s_size (&f) - 15, 3, 8);
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "a length shorter than its own trailer");
    unlink (f.path);
}

Test (sim_logindex, a_length_that_is_not_whole_offsets_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    uint64_t len = s_size (&f) - s_index_at (&f);
    s_poke_be (&f, s_size (&f) - 15, len - 4, 8);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "whole number"), "%s", why);
    unlink (f.path);
}

Test (sim_logindex, a_trailer_pointing_at_another_type_of_record_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    s_poke_be (&f, s_index_at (&f) + 8, SIM_LOGFILE_VISION, 4);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "type 4"), "%s", why);
    unlink (f.path);
}

Test (sim_logindex, an_index_record_of_another_size_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    uint64_t at = s_index_at (&f);
    s_poke_be (&f, at + 12, s_size (&f) - at - 16 + 8, 4);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "%s", why);
    unlink (f.path);
}

Test (sim_logindex, an_offset_past_the_end_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    uint64_t at = s_index_at (&f);
    s_poke_be (&f, at + 16 + 8 * 5, s_size (&f) + 1000, 8);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "offset 5"), "%s", why);
    s_poke_be (&f, at + 16 + 8 * 5, 0xfffffffffffffff0ULL, 8);
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "an offset that wraps around");
    unlink (f.path);
}

Test (sim_logindex, an_offset_inside_a_record_is_refused)
{
    s_file_t f;
    s_make (&f, true);
    cr_assert_eq (sim_logtest_nudge_offset (f.path, 9), 0);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "offset 9") && strstr (why, "where the record before it ends"), "%s", why);
    unlink (f.path);
}

Test (sim_logindex, offsets_out_of_order_are_refused)
{
    s_file_t f;
    s_make (&f, true);
    uint64_t at = s_index_at (&f);
    int fd = open (f.path, O_RDWR);
    uint8_t a[8], b[8];
    cr_assert_eq (pread (fd, a, 8, (off_t) (at + 16 + 8 * 3)), 8);
    cr_assert_eq (pread (fd, b, 8, (off_t) (at + 16 + 8 * 4)), 8);
    cr_assert_eq (pwrite (fd, b, 8, (off_t) (at + 16 + 8 * 3)), 8);
    cr_assert_eq (pwrite (fd, a, 8, (off_t) (at + 16 + 8 * 4)), 8);
    close (fd);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "%s", why);
    unlink (f.path);
}

Test (sim_logindex, a_record_whose_size_was_damaged_is_caught_at_the_next_offset)
{
    s_file_t f;
    s_make (&f, true);
    /* the first record's size field: one byte more */
    s_poke_be (&f, SIM_LOGFILE_HEADER + 12, 31, 4);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1);
    cr_expect (strstr (why, "offset 1"), "%s", why);
    unlink (f.path);
}

Test (sim_logindex, a_file_cut_short_or_appended_to_has_none)
{
    s_file_t f;
    s_make (&f, true);
    char why[256] = "";
    uint64_t at = s_index_at (&f);
    cr_assert_eq (truncate (f.path, (off_t) (s_size (&f) - 1)), 0);
    cr_expect_eq (s_walk (&f, why, sizeof why), -2, "its marker is gone: %s", why);
    cr_assert_eq (truncate (f.path, (off_t) (at + 20)), 0);
    cr_expect_eq (s_walk (&f, why, sizeof why), -2, "%s", why);
    unlink (f.path);

    /* a record after the index (another program's writer that went on;
       ours cuts the index off first, test_logfile): the index is no
       longer at the end */
    s_make (&f, true);
    static const uint8_t behind[] = { 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 3, 'a', 'b', 'c' };
    FILE *out = fopen (f.path, "ab");
    cr_assert_not_null (out);
    cr_assert_eq (fwrite (behind, 1, sizeof behind, out), sizeof behind);
    cr_assert_eq (fclose (out), 0);
    cr_expect_eq (s_walk (&f, why, sizeof why), -2, "%s", why);
    unlink (f.path);
}

Test (sim_logindex, an_index_that_lists_fewer_records_than_there_are_is_refused)
{
    /* the writer's index of 40 records, then the trailer rewritten as if
       the index began one offset later: 39 offsets, the first one gone */
    s_file_t f;
    s_make (&f, true);
    uint64_t at = s_index_at (&f), size = s_size (&f);
    uint64_t len = size - at - 8;
    s_poke_be (&f, at + 8, 0, 8); /* a header at the new start: time 0 ... */
    s_poke_be (&f, at + 8 + 8, SIM_LOGFILE_INDEX, 4);
    s_poke_be (&f, at + 8 + 12, len - 16, 4);
    s_poke_be (&f, size - 15, len, 8);
    char why[256] = "";
    cr_expect_eq (s_walk (&f, why, sizeof why), -1, "%s", why);
    unlink (f.path);
}

Test (sim_logindex, random_damage_to_the_index_never_crashes_and_never_walks_past_a_lie)
{
    s_file_t f;
    s_make (&f, true);
    uint64_t at = s_index_at (&f), size = s_size (&f);
    uint8_t *orig = malloc (size);
    int fd = open (f.path, O_RDONLY);
    cr_assert_eq (pread (fd, orig, size, 0), (ssize_t) size);
    close (fd);
    uint32_t x = 12345; /* a fixed LCG: the same cases each run */
    for (int round = 0; round < 300; round++) {
        s_poke (&f, 0, orig, size);
        int flips = 1 + round % 4;
        for (int k = 0; k < flips; k++) {
            x = x * 1103515245u + 12345u;
            uint64_t pos = at + (x >> 8) % (size - at);
            x = x * 1103515245u + 12345u;
            uint8_t v = (uint8_t) (x >> 16);
            s_poke (&f, pos, &v, 1);
        }
        char why[256] = "";
        int n = s_walk (&f, why, sizeof why);
        /* either it still holds (a byte that changed nothing that matters,
           e.g. the index record's time) and gives every record, or it is
           refused or absent; never a partial walk that claims success */
        cr_expect (n == RECORDS || n == -1 || n == -2, "round %d: %d records (%s)", round, n, why);
    }
    free (orig);
    unlink (f.path);
}
