/*  test_logfile_index.c - the league's index a writer of
    common/logs/sim_logfile.c ends a plain log with, across appends (what a
    vision restarted during `ssl-sim run --record` does): the index covers
    the records of earlier writers; an index an earlier writer ended the
    file with is cut off and the new records go in its place; a torn
    record is cut before the index is learnt; a log that was indexed stays
    indexed; a gzip log gets none, and compressing a plain part leaves
    the part's index out. Every index is checked by sim_logindex (the
    strict reader `ssl-sim play` uses) and against a record-by-record
    scan.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/logs/sim_logfile.h"
#include "common/logs/sim_logindex.h"

typedef struct {
    char dir[64];
    char path[128];
} s_tmp_t;

static void
s_tmp (s_tmp_t *t, const char *name)
{
    snprintf (t->dir, sizeof t->dir, "/tmp/ssl-sim-logidx-XXXXXX");
    cr_assert_not_null (mkdtemp (t->dir));
    snprintf (t->path, sizeof t->path, "%s/%s", t->dir, name);
}

static void
s_tmp_done (s_tmp_t *t)
{
    unlink (t->path);
    rmdir (t->dir);
}

/* Records t0 .. t0+n-1 appended to `path` (record i: time i, i+1 bytes of
   value i). */
static void
s_write_n (const char *path, bool index, int t0, int n)
{
    char err[512] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    uint8_t msg[64];
    for (int i = t0; i < t0 + n; i++) {
        memset (msg, i, sizeof msg);
        cr_assert_eq (sim_logfile_write (w, i, SIM_LOGFILE_VISION, msg, (size_t) (i % 60) + 1), 0);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

static uint64_t
s_size (const char *path)
{
    struct stat st;
    cr_assert_eq (stat (path, &st), 0);
    return (uint64_t) st.st_size;
}

/* Read `path` record by record: the records 0..n-1 in order, then, when
   `indexed`, one index record ending the file (and no other). The
   offsets of the records into offsets[]. Returns n. */
static size_t
s_scan (const char *path, bool indexed, uint64_t *offsets, size_t cap)
{
    char err[512] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    size_t n = 0;
    int rc;
    bool index_seen = false;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        cr_assert (!index_seen, "a record after the index (byte %llu)", (unsigned long long) m.offset);
        if (m.type == SIM_LOGFILE_INDEX) {
            index_seen = true;
            cr_expect_eq (m.offset + SIM_LOGFILE_RECORD + m.len, s_size (path), "the index ends the file");
            continue;
        }
        cr_assert_lt (n, cap);
        cr_expect_eq (m.time_ns, (int64_t) n, "record %zu", n);
        cr_expect (m.len == n % 60 + 1 && m.data[0] == (uint8_t) n, "record %zu", n);
        offsets[n++] = m.offset;
    }
    cr_expect_eq (rc, 0, "%s", sim_logfile_error (r));
    cr_expect_eq (index_seen, indexed);
    sim_logfile_reader_destroy (&r);
    return n;
}

/* `path` reads to its end with records 0..n-1, and ends with an index
   sim_logindex accepts, listing exactly their offsets. */
static void
s_expect_indexed (const char *path, size_t n)
{
    uint64_t offsets[256];
    cr_assert_eq (s_scan (path, true, offsets, 256), n);
    char why[512] = "";
    sim_logindex_t *idx = NULL;
    cr_assert_eq (sim_logindex_open (path, &idx, why, sizeof why), 1, "%s", why);
    cr_expect_eq (sim_logindex_count (idx), n);
    sim_logfile_msg_t m;
    size_t i = 0;
    int rc;
    while ((rc = sim_logindex_next (idx, &m, NULL)) == 1) {
        cr_assert_lt (i, n);
        cr_expect_eq (m.offset, offsets[i], "index entry %zu", i);
        i++;
    }
    cr_expect_eq (rc, 0, "%s", sim_logindex_error (idx));
    cr_expect_eq (i, n);
    sim_logindex_destroy (&idx);
}

Test (logfile_index, an_append_indexes_the_records_already_there)
{
    s_tmp_t t;
    s_tmp (&t, "a.log");
    s_write_n (t.path, false, 0, 10); /* a writer killed: no index */
    uint64_t offsets[16];
    cr_assert_eq (s_scan (t.path, false, offsets, 16), 10);
    s_write_n (t.path, true, 10, 5);
    s_expect_indexed (t.path, 15);
    s_tmp_done (&t);
}

Test (logfile_index, an_append_to_an_indexed_log_goes_where_its_index_was)
{
    s_tmp_t t;
    s_tmp (&t, "b.log");
    s_write_n (t.path, true, 0, 10);
    s_expect_indexed (t.path, 10);
    uint64_t offsets[16];
    s_scan (t.path, true, offsets, 16);
    uint64_t index_at = offsets[9] + SIM_LOGFILE_RECORD + 10;
    s_write_n (t.path, true, 10, 5);
    uint64_t after[16];
    cr_assert_eq (s_scan (t.path, true, after, 16), 15);
    cr_expect_eq (after[10], index_at, "the first new record starts where the old index did");
    s_expect_indexed (t.path, 15);
    /* and once more: each clean stop leaves one index, at the end */
    s_write_n (t.path, true, 15, 3);
    s_expect_indexed (t.path, 18);
    s_tmp_done (&t);
}

Test (logfile_index, an_indexed_log_stays_indexed)
{
    s_tmp_t t;
    s_tmp (&t, "c.log");
    s_write_n (t.path, true, 0, 10);
    s_write_n (t.path, false, 10, 5); /* a writer not asked for an index */
    s_expect_indexed (t.path, 15);
    s_tmp_done (&t);
}

Test (logfile_index, a_writer_that_writes_nothing_leaves_the_same_bytes)
{
    s_tmp_t t;
    s_tmp (&t, "d.log");
    s_write_n (t.path, true, 0, 10);
    static uint8_t before[4096], after[4096];
    FILE *f = fopen (t.path, "rb");
    size_t n = fread (before, 1, sizeof before, f);
    fclose (f);
    s_write_n (t.path, true, 10, 0);
    f = fopen (t.path, "rb");
    cr_assert_eq (fread (after, 1, sizeof after, f), n);
    fclose (f);
    cr_expect_eq (memcmp (before, after, n), 0);
    s_tmp_done (&t);
}

/* A writer killed mid-record after an earlier one stopped cleanly: it
   had cut the old index off, so the file holds records, then a torn one.
   The next writer cuts the torn record, and its clean stop indexes every
   whole record. */
Test (logfile_index, a_torn_tail_is_cut_and_every_whole_record_indexed)
{
    s_tmp_t t;
    s_tmp (&t, "e.log");
    s_write_n (t.path, true, 0, 10);
    s_write_n (t.path, true, 10, 5);
    /* what a kill mid-write leaves: the index gone (cut by that writer)
       and its last record torn */
    uint64_t offsets[16];
    s_scan (t.path, true, offsets, 16);
    uint64_t torn_at = offsets[14] + 5; /* record 14 (15 bytes) cut inside */
    cr_assert_eq (truncate (t.path, (off_t) torn_at), 0);
    s_write_n (t.path, true, 14, 4);
    s_expect_indexed (t.path, 18);
    s_tmp_done (&t);
}

Test (logfile_index, a_gzip_log_has_none)
{
    s_tmp_t t;
    s_tmp (&t, "f.log.gz");
    s_write_n (t.path, true, 0, 10);
    s_write_n (t.path, true, 10, 5);
    uint64_t offsets[16];
    cr_expect_eq (s_scan (t.path, false, offsets, 16), 15);
    char why[256] = "";
    sim_logindex_t *idx = NULL;
    cr_expect_eq (sim_logindex_open (t.path, &idx, why, sizeof why), 0, "%s", why);
    s_tmp_done (&t);
}

/* `ssl-sim run --record FILE.gz`: vision indexes the plain part at its
   clean stop; the gzip log the launcher makes of it has no index, as
   `ssl-sim record FILE.gz` writes none. */
Test (logfile_index, compressing_a_part_leaves_its_index_out)
{
    s_tmp_t t;
    s_tmp (&t, "g.log.gz");
    char part[160], err[1024] = "";
    cr_assert_eq (sim_logfile_part_path (t.path, part, sizeof part), 1);
    s_write_n (part, true, 0, 10);
    s_expect_indexed (part, 10);
    uint64_t records = 0;
    cr_assert_eq (sim_logfile_compress (part, t.path, NULL, &records, err, sizeof err), 0, "%s", err);
    cr_expect_eq (records, 10, "the records, not the index");
    uint64_t offsets[16];
    cr_expect_eq (s_scan (t.path, false, offsets, 16), 10);
    s_tmp_done (&t);
}
