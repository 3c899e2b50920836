/*  test_logfile.c - the league's log files (common/logs/sim_logfile.c): every
    message type written and read back, plain and gzip; the bytes of a
    plain file checked by hand against the format the league's tools read
    (header, big-endian fields, type numbers, the index trailer); a
    truncated file, a corrupt size field, a damaged gzip stream and a file
    of another kind each end reading with a clear error, never a crash.
    A run's plain part compresses into FILE.gz only when it reads to its
    end or to a torn last record, and a stop flag ends that with the part
    kept; a torn gzip log is set aside for a new one. A writer continuing
    a plain log indexes every record in it at its clean stop.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/logs/sim_logfile.h"
#include "common/logs/sim_logindex.h"

typedef struct {
    char dir[64];
    char path[128];
} s_tmp_t;

static void
s_tmp (s_tmp_t *t, const char *name)
{
    snprintf (t->dir, sizeof t->dir, "/tmp/ssl-sim-log-XXXXXX");
    cr_assert_not_null (mkdtemp (t->dir));
    snprintf (t->path, sizeof t->path, "%s/%s", t->dir, name);
}

static void
s_tmp_done (s_tmp_t *t)
{
    unlink (t->path);
    rmdir (t->dir);
}

/* The files in dir (not . and ..). */
static int
s_files (const char *dir)
{
    DIR *d = opendir (dir);
    cr_assert_not_null (d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir (d)))
        files += e->d_name[0] != '.';
    closedir (d);
    return files;
}

static size_t
s_slurp (const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen (path, "rb");
    cr_assert_not_null (f);
    size_t n = fread (buf, 1, cap, f);
    fclose (f);
    return n;
}

static void
s_spit (const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen (path, "wb");
    cr_assert_not_null (f);
    cr_assert_eq (fwrite (buf, 1, len, f), len);
    fclose (f);
}

/* One record of each type the league names, message i of i+1 bytes
   (0 for blank), times one ms apart. */
static void
s_write_all (const char *path, bool index)
{
    char err[256] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    uint8_t msg[16];
    for (int type = 0; type <= SIM_LOGFILE_TRACKER; type++) {
        for (int i = 0; i < type; i++)
            msg[i] = (uint8_t) (0xa0 + type * 16 + i);
        cr_assert_eq (sim_logfile_write (w, 1000000000000LL + type * 1000000, type, msg, (size_t) type), 0);
    }
    cr_assert_eq (sim_logfile_written (w), 6);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    cr_assert_null (w);
}

static void
s_read_all (const char *path, bool indexed)
{
    char err[256] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    uint64_t offset = SIM_LOGFILE_HEADER;
    for (int type = 0; type <= SIM_LOGFILE_TRACKER; type++) {
        cr_assert_eq (sim_logfile_next (r, &m), 1, "%s", sim_logfile_error (r));
        cr_expect_eq (m.type, type);
        cr_expect_eq (m.time_ns, 1000000000000LL + type * 1000000);
        cr_assert_eq (m.len, (size_t) type);
        cr_expect_eq (m.offset, offset);
        for (int i = 0; i < type; i++)
            cr_expect_eq (m.data[i], 0xa0 + type * 16 + i);
        offset += SIM_LOGFILE_RECORD + (uint64_t) type;
    }
    if (indexed) {
        cr_assert_eq (sim_logfile_next (r, &m), 1);
        cr_expect_eq (m.type, SIM_LOGFILE_INDEX);
        cr_expect_eq (m.len, 6 * 8 + 8 + 7);
    }
    cr_expect_eq (sim_logfile_next (r, &m), 0, "%s", sim_logfile_error (r));
    cr_expect_str_empty (sim_logfile_error (r));
    /* --loop reads it again from the start */
    cr_assert_eq (sim_logfile_rewind (r), 0);
    cr_assert_eq (sim_logfile_next (r, &m), 1);
    cr_expect_eq (m.type, SIM_LOGFILE_BLANK);
    sim_logfile_reader_destroy (&r);
    cr_assert_null (r);
    sim_logfile_reader_destroy (&r);
}

Test (logfile, round_trip_plain)
{
    s_tmp_t t;
    s_tmp (&t, "a.log");
    s_write_all (t.path, false);
    s_read_all (t.path, false);
    s_tmp_done (&t);
}

Test (logfile, round_trip_gzip)
{
    s_tmp_t t;
    s_tmp (&t, "a.log.gz");
    s_write_all (t.path, true); /* no index in a compressed file */
    uint8_t head[2];
    cr_assert_eq (s_slurp (t.path, head, 2), 2);
    cr_expect (head[0] == 0x1f && head[1] == 0x8b, "a .gz log is a gzip stream");
    gzFile gz = gzopen (t.path, "rb");
    uint8_t plain[16];
    cr_assert_eq (gzread (gz, plain, 16), 16);
    gzclose (gz);
    cr_expect_eq (memcmp (plain, "SSL_LOG_FILE\0\0\0\1", 16), 0);
    s_read_all (t.path, false);
    s_tmp_done (&t);
}

/* The bytes as the league's reader takes them, written out by hand:
   "SSL_LOG_FILE", version 1, then (time, type, size) big-endian. */
Test (logfile, bytes_match_the_league_format)
{
    s_tmp_t t;
    s_tmp (&t, "b.log");
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, true, err, sizeof err);
    cr_assert_not_null (w);
    const uint8_t vision[3] = { 0x0a, 0x0b, 0x0c };
    const uint8_t referee[1] = { 0x42 };
    cr_assert_eq (sim_logfile_write (w, 0x0102030405060708LL, SIM_LOGFILE_VISION, vision, 3), 0);
    cr_assert_eq (sim_logfile_write (w, 0x1122334455667788LL, SIM_LOGFILE_REFEREE, referee, 1), 0);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    static const uint8_t expected[] = {
        /* header */
        0x53, 0x53, 0x4c, 0x5f, 0x4c, 0x4f, 0x47, 0x5f, 0x46, 0x49, 0x4c, 0x45, 0x00, 0x00, 0x00, 0x01,
        /* vision at offset 16 */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x0a,
        0x0b, 0x0c,
        /* referee at offset 35 */
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x42,
        /* index at offset 52: time 0, type 6, size 2*8 + 8 + 7 = 31 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x1f,
        /* the offsets of the two records */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23,
        /* the index record's own length, 16 + 31 = 47, then the marker */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2f, 'I', 'N', 'D', 'E', 'X', 'E', 'D'
    };
    uint8_t got[256];
    size_t n = s_slurp (t.path, got, sizeof got);
    cr_assert_eq (n, sizeof expected);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq (got[i], expected[i], "byte %zu: %02x, not %02x", i, got[i], expected[i]);
    s_tmp_done (&t);
}

Test (logfile, reads_a_hand_made_file)
{
    s_tmp_t t;
    s_tmp (&t, "c.log");
    static const uint8_t file[] = { 'S', 'S', 'L', '_', 'L', 'O', 'G', '_', 'F', 'I', 'L', 'E', 0, 0, 0, 1,
                                    /* tracker, time -1 (signed), 2 bytes */
                                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 5, 0, 0, 0, 2,
                                    0x12, 0x34 };
    s_spit (t.path, file, sizeof file);
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    cr_assert_eq (sim_logfile_next (r, &m), 1);
    cr_expect_eq (m.time_ns, -1);
    cr_expect_eq (m.type, SIM_LOGFILE_TRACKER);
    cr_assert_eq (m.len, 2);
    cr_expect (m.data[0] == 0x12 && m.data[1] == 0x34);
    cr_expect_eq (sim_logfile_next (r, &m), 0);
    sim_logfile_reader_destroy (&r);
    s_tmp_done (&t);
}

/* A writer started again on its own file goes on without a second header. */
Test (logfile, appends_to_an_existing_log)
{
    s_tmp_t t;
    s_tmp (&t, "d.log.gz");
    char err[256];
    for (int round = 0; round < 2; round++) {
        sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, false, err, sizeof err);
        cr_assert_not_null (w, "%s", err);
        uint8_t b = (uint8_t) round;
        cr_assert_eq (sim_logfile_write (w, round, SIM_LOGFILE_VISION, &b, 1), 0);
        sim_logfile_writer_destroy (&w);
    }
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    for (int round = 0; round < 2; round++) {
        cr_assert_eq (sim_logfile_next (r, &m), 1, "%s", sim_logfile_error (r));
        cr_expect_eq (m.time_ns, round);
        cr_expect_eq (m.data[0], round);
    }
    cr_expect_eq (sim_logfile_next (r, &m), 0);
    sim_logfile_reader_destroy (&r);
    s_tmp_done (&t);
}

Test (logfile, refuses_to_append_to_another_file)
{
    s_tmp_t t;
    s_tmp (&t, "e.log");
    s_spit (t.path, (const uint8_t *) "not a log at all", 16);
    char err[256] = "";
    cr_expect_null (sim_logfile_writer_new (t.path, false, err, sizeof err));
    cr_expect (strstr (err, "not an SSL log file"), "%s", err);
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    cr_expect_null (r);
    cr_expect (strstr (err, "not an SSL log file"), "%s", err);
    static const uint8_t v2[] = { 'S', 'S', 'L', '_', 'L', 'O', 'G', '_', 'F', 'I', 'L', 'E', 0, 0, 0, 2 };
    s_spit (t.path, v2, sizeof v2);
    cr_expect_null (sim_logfile_reader_new (t.path, err, sizeof err));
    cr_expect (strstr (err, "version 2"), "%s", err);
    unlink (t.path);
    cr_expect_null (sim_logfile_reader_new (t.path, err, sizeof err));
    cr_expect (strstr (err, "cannot read"), "%s", err);
    s_tmp_done (&t);
}

/* Cut a good file at every length: the reader returns the whole records
   before the cut, then -1 with "truncated", and never more. */
Test (logfile, truncated_file_reads_up_to_the_damage)
{
    s_tmp_t t;
    s_tmp (&t, "f.log");
    s_write_all (t.path, false);
    uint8_t whole[512];
    size_t len = s_slurp (t.path, whole, sizeof whole);
    for (size_t cut = SIM_LOGFILE_HEADER; cut < len; cut++) {
        s_spit (t.path, whole, cut);
        char err[256];
        sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
        cr_assert_not_null (r, "cut %zu: %s", cut, err);
        sim_logfile_msg_t m;
        int rc, records = 0;
        size_t end = SIM_LOGFILE_HEADER;
        while ((rc = sim_logfile_next (r, &m)) == 1) {
            records++;
            end = m.offset + SIM_LOGFILE_RECORD + m.len;
        }
        cr_assert_leq (end, cut);
        if (end == cut)
            cr_expect_eq (rc, 0, "cut %zu at a record boundary is a clean end", cut);
        else {
            cr_expect_eq (rc, -1, "cut %zu", cut);
            cr_expect (strstr (sim_logfile_error (r), "truncated record"), "%s", sim_logfile_error (r));
            cr_expect_eq (sim_logfile_next (r, &m), -1, "stays stopped");
        }
        sim_logfile_reader_destroy (&r);
    }
    s_tmp_done (&t);
}

Test (logfile, corrupt_size_field)
{
    s_tmp_t t;
    s_tmp (&t, "g.log");
    s_write_all (t.path, false);
    uint8_t whole[512];
    size_t len = s_slurp (t.path, whole, sizeof whole);
    /* the third record (type 2) starts at 16 + 16 + 0 + 16 + 1 = 49 */
    const size_t third = 49;
    for (int variant = 0; variant < 2; variant++) {
        uint8_t bad[512];
        memcpy (bad, whole, len);
        /* negative, then absurdly large */
        const uint8_t size[2][4] = { { 0xff, 0xff, 0xff, 0xf0 }, { 0x7f, 0x00, 0x00, 0x00 } };
        memcpy (bad + third + 12, size[variant], 4);
        s_spit (t.path, bad, len);
        char err[256];
        sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
        cr_assert_not_null (r);
        sim_logfile_msg_t m;
        cr_expect_eq (sim_logfile_next (r, &m), 1);
        cr_expect_eq (sim_logfile_next (r, &m), 1);
        cr_expect_eq (sim_logfile_next (r, &m), -1);
        cr_expect (strstr (sim_logfile_error (r), "corrupt record at byte 49"), "%s", sim_logfile_error (r));
        sim_logfile_reader_destroy (&r);
    }
    /* a size a little too big is a truncated record */
    uint8_t bad[512];
    memcpy (bad, whole, len);
    bad[third + 15] = 0x40;
    s_spit (t.path, bad, len);
    char err[256];
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    sim_logfile_msg_t m;
    while (sim_logfile_next (r, &m) == 1)
        ;
    cr_expect (strstr (sim_logfile_error (r), "truncated record at byte 49"), "%s", sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
    s_tmp_done (&t);
}

/* A gzip stream cut short or with damaged bytes: what decodes is read,
   then a clear error. */
Test (logfile, damaged_gzip)
{
    s_tmp_t t;
    s_tmp (&t, "h.log.gz");
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, false, err, sizeof err);
    cr_assert_not_null (w);
    uint8_t msg[1000];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t) (i * 7919u >> 3);
    for (int i = 0; i < 200; i++)
        sim_logfile_write (w, i, SIM_LOGFILE_VISION, msg, sizeof msg);
    sim_logfile_writer_destroy (&w);
    static uint8_t whole[1 << 20];
    size_t len = s_slurp (t.path, whole, sizeof whole);
    cr_assert_gt (len, 1000);
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 0)
            s_spit (t.path, whole, len / 2);
        else {
            static uint8_t bad[1 << 20];
            memcpy (bad, whole, len);
            for (size_t i = len / 3; i < len / 3 + 64; i++)
                bad[i] ^= 0x5a;
            s_spit (t.path, bad, len);
        }
        sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
        cr_assert_not_null (r, "%s", err);
        sim_logfile_msg_t m;
        int rc, records = 0;
        while ((rc = sim_logfile_next (r, &m)) == 1)
            records++;
        cr_expect_eq (rc, -1, "variant %d", variant);
        cr_expect_lt (records, 200);
        cr_expect_neq (sim_logfile_error (r)[0], '\0');
        sim_logfile_reader_destroy (&r);
    }
    s_tmp_done (&t);
}

/* n vision records of 300 bytes each, record i filled with i, from time
   t0 on (a writer appending to `path`). */
/* Records t0 .. t0+n-1 (record i: time i, 300 bytes of value i)
   appended to `path`, by a writer asked for an index when `index`. */
static void
s_write_n_as (const char *path, bool index, int t0, int n)
{
    char err[512] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    uint8_t msg[300];
    for (int i = t0; i < t0 + n; i++) {
        memset (msg, i, sizeof msg);
        cr_assert_eq (sim_logfile_write (w, i, SIM_LOGFILE_VISION, msg, sizeof msg), 0);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

static void
s_write_n (const char *path, int t0, int n)
{
    s_write_n_as (path, false, t0, n);
}

/* Records 0.. of `path` read back in order: returns how many, *rc the
   reader's last answer. */
static int
s_read_n (const char *path, int *rc)
{
    char err[512] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    int n = 0;
    while ((*rc = sim_logfile_next (r, &m)) == 1) {
        cr_expect_eq (m.time_ns, n, "record %d", n);
        cr_expect (m.len == 300 && m.data[0] == (uint8_t) n && m.data[299] == (uint8_t) n, "record %d", n);
        n++;
    }
    sim_logfile_reader_destroy (&r);
    return n;
}

static void
s_cut (const char *path, size_t drop)
{
    static uint8_t whole[1 << 20];
    size_t len = s_slurp (path, whole, sizeof whole);
    cr_assert_gt (len, drop);
    s_spit (path, whole, len - drop);
}

/* A writer killed mid-record leaves a torn plain log; the writer started
   again (a restarted vision) cuts the torn record off and appends, so the
   file reads to its end with every whole record. */
Test (logfile, append_cuts_a_torn_plain_tail)
{
    s_tmp_t t;
    s_tmp (&t, "f.log.gz.part");
    s_write_n (t.path, 0, 10);
    s_cut (t.path, 100); /* record 9 loses 100 of its 316 bytes */
    int rc;
    cr_expect_eq (s_read_n (t.path, &rc), 9);
    cr_expect_eq (rc, -1);
    s_write_n (t.path, 9, 5);
    cr_expect_eq (s_read_n (t.path, &rc), 14);
    cr_expect_eq (rc, 0, "the appended records follow the whole ones");
    s_tmp_done (&t);
}

/* A gzip log whose writer was killed after a flush point: every record
   up to it decodes, but the stream has no end. The reader says so, and a
   writer refuses to append behind it (a new gzip member behind an
   unfinished one would never be read), with a message that says what to
   do. */
Test (logfile, torn_gzip_is_reported_and_set_aside)
{
    s_tmp_t t;
    s_tmp (&t, "g.log.gz");
    char err[512] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, false, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    uint8_t msg[300];
    for (int i = 0; i < 10; i++) {
        memset (msg, i, sizeof msg);
        cr_assert_eq (sim_logfile_write (w, i, SIM_LOGFILE_VISION, msg, sizeof msg), 0);
    }
    cr_assert_eq (sim_logfile_flush (w), 0);
    /* what a kill -9 now would leave on disk */
    static uint8_t flushed[1 << 16];
    size_t len = s_slurp (t.path, flushed, sizeof flushed);
    sim_logfile_writer_destroy (&w);
    s_spit (t.path, flushed, len);
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    int n = 0, rc;
    while ((rc = sim_logfile_next (r, &m)) == 1)
        n++;
    cr_expect_eq (n, 10);
    cr_expect_eq (rc, -1);
    cr_expect (sim_logfile_reader_torn (r));
    cr_expect (strstr (sim_logfile_error (r), "without its gzip trailer"), "%s", sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
    /* a restarted writer (vision under systemd) moves it aside, whole,
       and starts a new log instead of staying down */
    w = sim_logfile_writer_new (t.path, false, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    memset (msg, 0, sizeof msg);
    cr_expect_eq (sim_logfile_write (w, 0, SIM_LOGFILE_VISION, msg, sizeof msg), 0);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    cr_expect_eq (s_read_n (t.path, &rc), 1);
    cr_expect_eq (rc, 0, "the new log is whole");
    char pattern[200], aside[512] = "";
    snprintf (pattern, sizeof pattern, "%s.torn-", t.path);
    DIR *d = opendir (t.dir);
    cr_assert_not_null (d);
    struct dirent *e;
    int asides = 0;
    while ((e = readdir (d))) {
        char full[512];
        snprintf (full, sizeof full, "%s/%s", t.dir, e->d_name);
        if (strncmp (full, pattern, strlen (pattern)) == 0) {
            snprintf (aside, sizeof aside, "%s", full);
            asides++;
        }
    }
    closedir (d);
    cr_assert_eq (asides, 1, "one file set aside");
    static uint8_t after[1 << 16];
    cr_expect_eq (s_slurp (aside, after, sizeof after), len, "set aside as it was");
    cr_expect (memcmp (after, flushed, len) == 0);
    unlink (aside);
    unlink (t.path);
    /* damage that is no tear (a flipped byte in the compressed data) is
       still refused: records behind it could never be read */
    s_write_n (t.path, 0, 10);
    size_t glen = s_slurp (t.path, after, sizeof after);
    after[glen / 2] ^= 0xff;
    after[glen / 2 + 1] ^= 0xff;
    s_spit (t.path, after, glen);
    cr_expect_null (sim_logfile_writer_new (t.path, false, err, sizeof err));
    /* the reader decodes up to the damage (zlib's gzread stopped at the
       header, having decoded ahead), so the writer names it */
    cr_expect (strstr (err, "damaged after byte") && strstr (err, "could never be read"), "%s", err);
    s_tmp_done (&t);
}

/* A record the writer refuses leaves no offset in the index: every
   offset in it names a record that is there, each once. */
Test (logfile, index_holds_only_written_records)
{
    s_tmp_t t;
    s_tmp (&t, "i.log");
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, true, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    uint8_t msg[8] = { 0 };
    cr_assert_eq (sim_logfile_write (w, 1, SIM_LOGFILE_VISION, msg, sizeof msg), 0);
    cr_expect_eq (sim_logfile_write (w, 2, SIM_LOGFILE_VISION, msg, SIM_LOGFILE_MESSAGE_MAX + 1u), -1);
    cr_expect_eq (sim_logfile_write (w, 2, SIM_LOGFILE_VISION, NULL, 4), -1);
    cr_assert_eq (sim_logfile_write (w, 3, SIM_LOGFILE_VISION, msg, sizeof msg), 0);
    cr_expect_eq (sim_logfile_failures (w), 2);
    sim_logfile_writer_destroy (&w);
    sim_logfile_reader_t *r = sim_logfile_reader_new (t.path, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    uint64_t offsets[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (sim_logfile_next (r, &m), 1);
        offsets[i] = m.offset;
    }
    cr_assert_eq (sim_logfile_next (r, &m), 1);
    cr_assert_eq (m.type, SIM_LOGFILE_INDEX);
    cr_assert_eq (m.len, 2 * 8 + 8 + 7, "an offset for each of the 2 records, no more");
    for (int i = 0; i < 2; i++) {
        uint64_t v = 0;
        for (int b = 0; b < 8; b++)
            v = (v << 8) | m.data[8 * i + b];
        cr_expect_eq (v, offsets[i], "index entry %d", i);
    }
    sim_logfile_reader_destroy (&r);
    s_tmp_done (&t);
}

/* A compressed run's plain part into FILE.gz: the same records, the part
   removed; a part a crash tore keeps its whole records and says where it
   stopped; a missing part is an error that touches nothing. */
Test (logfile, compress_a_part)
{
    s_tmp_t t;
    s_tmp (&t, "j.log.gz");
    char part[160], err[1024] = "";
    cr_assert_eq (sim_logfile_part_path (t.path, part, sizeof part), 1);
    cr_expect (strcmp (part + strlen (part) - 13, "j.log.gz.part") == 0, "%s", part);
    char small[8];
    cr_expect_eq (sim_logfile_part_path (t.path, small, sizeof small), -1);
    cr_expect_eq (sim_logfile_part_path ("plain.log", small, sizeof small), 0);
    for (int round = 0; round < 2; round++) {
        s_write_n (part, 0, 50);
        if (round == 1)
            s_cut (part, 7);
        uint64_t records = 0;
        int rc = sim_logfile_compress (part, t.path, NULL, &records, err, sizeof err);
        cr_expect_eq (rc, round, "%s", err);
        cr_expect_eq (records, 50 - (uint64_t) round);
        if (round == 1)
            cr_expect (strstr (err, "truncated record"), "%s", err);
        cr_expect_neq (access (part, F_OK), 0, "the part is removed");
        uint8_t head[2];
        cr_assert_eq (s_slurp (t.path, head, 2), 2);
        cr_expect (head[0] == 0x1f && head[1] == 0x8b, "a gzip stream");
        int last;
        cr_expect_eq (s_read_n (t.path, &last), 50 - round);
        cr_expect_eq (last, 0);
    }
    uint64_t records = 7;
    cr_expect_eq (sim_logfile_compress (part, t.path, NULL, &records, err, sizeof err), -1);
    cr_expect (strstr (err, "cannot read"), "%s", err);
    cr_expect_eq (records, 0);
    cr_expect_eq (access (t.path, F_OK), 0, "FILE.gz stays when there is no part");
    s_tmp_done (&t);
}

/* A part damaged before its end (a size field no record has, in the
   middle) is kept whole and nothing replaces FILE.gz: the records after
   the damage are only in the part. The error names the byte. */
Test (logfile, compress_keeps_a_part_damaged_in_the_middle)
{
    s_tmp_t t;
    s_tmp (&t, "m.log.gz");
    char part[160], err[1024] = "";
    cr_assert_eq (sim_logfile_part_path (t.path, part, sizeof part), 1);
    s_write_n (part, 0, 50);
    static uint8_t bytes[1 << 16];
    size_t len = s_slurp (part, bytes, sizeof bytes);
    size_t at = SIM_LOGFILE_HEADER + 20 * (SIM_LOGFILE_RECORD + 300); /* record 20 */
    memset (bytes + at + 12, 0xff, 4);
    s_spit (part, bytes, len);
    uint64_t records = 0;
    cr_expect_eq (sim_logfile_compress (part, t.path, NULL, &records, err, sizeof err), -1);
    char where[64];
    snprintf (where, sizeof where, "byte %zu", at);
    cr_expect (strstr (err, "corrupt record") && strstr (err, where) && strstr (err, "kept"), "%s", err);
    static uint8_t after[1 << 16];
    cr_expect_eq (s_slurp (part, after, sizeof after), len, "the part is kept whole");
    cr_expect_neq (access (t.path, F_OK), 0, "no FILE.gz with a hole in it");
    /* nothing else left in the directory (no temporary file) */
    int files = s_files (t.dir);
    cr_expect_eq (files, 1);
    unlink (part);
    s_tmp_done (&t);
}

/* A stop (the launcher's signal flag) ends compression cleanly: the
   temporary file removed, the part kept, an existing FILE.gz untouched. */
Test (logfile, compress_stops_on_the_flag)
{
    s_tmp_t t;
    s_tmp (&t, "s.log.gz");
    char part[160], err[1024] = "";
    cr_assert_eq (sim_logfile_part_path (t.path, part, sizeof part), 1);
    s_write_n (t.path, 0, 3);
    s_write_n (part, 0, 50);
    volatile sig_atomic_t stop = 1;
    uint64_t records = 0;
    cr_expect_eq (sim_logfile_compress (part, t.path, &stop, &records, err, sizeof err), -1);
    cr_expect (strstr (err, "interrupted: the records stay in") && strstr (err, part), "%s", err);
    int rc;
    cr_expect_eq (s_read_n (part, &rc), 50);
    cr_expect_eq (s_read_n (t.path, &rc), 3, "FILE.gz as it was");
    int files = s_files (t.dir);
    cr_expect_eq (files, 2, "FILE.gz and the part, no temporary file");
    stop = 0;
    cr_expect_eq (sim_logfile_compress (part, t.path, &stop, &records, err, sizeof err), 0, "%s", err);
    cr_expect_eq (s_read_n (t.path, &rc), 50);
    s_tmp_done (&t);
}

/* The longest name whose part fits a directory entry (250 bytes, the
   part 255) compresses too: the temporary name is cut to fit. */
Test (logfile, compress_a_part_of_the_longest_name)
{
    s_tmp_t t;
    s_tmp (&t, "unused");
    char path[512], part[512], err[1024] = "";
    int n = snprintf (path, sizeof path, "%s/", t.dir);
    memset (path + n, 'y', 247);
    snprintf (path + n + 247, sizeof path - (size_t) (n + 247), ".gz");
    cr_assert_eq (strlen (path + n), 250);
    cr_assert_eq (sim_logfile_part_path (path, part, sizeof part), 1);
    s_write_n (part, 0, 5);
    uint64_t records = 0;
    cr_expect_eq (sim_logfile_compress (part, path, NULL, &records, err, sizeof err), 0, "%s", err);
    int rc;
    cr_expect_eq (s_read_n (path, &rc), 5);
    cr_expect_neq (access (part, F_OK), 0, "the part is removed");
    unlink (path);
    s_tmp_done (&t);
}

/* A device that takes no byte (/dev/full): the writes go to zlib's buffer,
   the flush that pushes them fails, and that counts as a failed write, so
   a caller that flushes before it reports sees it (issue 23). */
Test (logfile, failed_flush_counts_as_a_failure)
{
    if (access ("/dev/full", W_OK) != 0) {
        cr_skip_test ("skipped: no /dev/full");
        return;
    }
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new ("/dev/full", true, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    cr_expect_eq (sim_logfile_write (w, 1, SIM_LOGFILE_VISION, "abc", 3), 0, "buffered");
    cr_expect_eq (sim_logfile_failures (w), 0);
    cr_expect_eq (sim_logfile_flush (w), -1);
    cr_expect_eq (sim_logfile_failures (w), 1);
    cr_expect_eq (sim_logfile_write (w, 2, SIM_LOGFILE_VISION, "abc", 3), -1, "the stream stays failed");
    cr_expect_eq (sim_logfile_writer_destroy (&w), -1);
}

/* Every record and the last answer of `r`, as one text to compare. */
static void
s_transcript (sim_logfile_reader_t *r, char *out, size_t cap)
{
    size_t at = 0;
    sim_logfile_msg_t m;
    int rc;
    out[0] = '\0';
    while ((rc = sim_logfile_next (r, &m)) == 1 && at < cap) {
        uLong crc = crc32 (0, m.data, (uInt) m.len);
        at += (size_t) snprintf (out + at, cap - at, "%lld %d %zu %llu %lx\n", (long long) m.time_ns, m.type,
                                 m.len, (unsigned long long) m.offset, crc);
    }
    if (at < cap)
        snprintf (out + at, cap - at, "end %d torn %d: %s", rc, sim_logfile_reader_torn (r),
                  sim_logfile_error (r));
}

/* The bytes of `path` cut at `len` (and, with `flip`, one byte changed
   in the middle) read from the file and from memory: the same records,
   the same end and the same words (the memory reader named like the
   file). */
static void
s_same_from_memory (const char *path, const uint8_t *bytes, size_t len, bool flip)
{
    static uint8_t copy[1 << 20];
    memcpy (copy, bytes, len);
    if (flip && len > 40)
        copy[len / 2] ^= 0x20;
    s_spit (path, copy, len);
    static char from_file[1 << 16], from_memory[1 << 16];
    char err_file[SIM_LOGFILE_ERROR_MAX] = "", err_mem[SIM_LOGFILE_ERROR_MAX] = "";
    sim_logfile_reader_t *f = sim_logfile_reader_new (path, err_file, sizeof err_file);
    sim_logfile_reader_t *m = sim_logfile_reader_mem (copy, len, path, err_mem, sizeof err_mem);
    cr_assert_eq (f != NULL, m != NULL, "cut at %zu: %s / %s", len, err_file, err_mem);
    cr_expect_str_eq (err_file, err_mem, "cut at %zu", len);
    if (!f)
        return;
    cr_expect_eq (sim_logfile_file_size (m), len);
    s_transcript (f, from_file, sizeof from_file);
    s_transcript (m, from_memory, sizeof from_memory);
    cr_expect_str_eq (from_file, from_memory, "cut at %zu", len);
    cr_expect_eq (sim_logfile_position (f), sim_logfile_position (m), "cut at %zu", len);
    cr_expect_leq (sim_logfile_position (m), len);
    /* and again after a rewind (--loop) */
    cr_assert_eq (sim_logfile_rewind (m), 0);
    s_transcript (m, from_file, sizeof from_file);
    cr_expect_str_eq (from_file, from_memory, "cut at %zu, rewound", len);
    sim_logfile_reader_destroy (&f);
    sim_logfile_reader_destroy (&m);
}

/* The file reader is the memory reader fed from the file (the entry
   point the fuzzer drives, tests/fuzz/fuzz_logfile.c): for a plain
   indexed log, a gzip one, and one of two gzip members (a writer that
   appended) with bytes after them, whole, cut at every length and with
   a byte changed, both give the same records, errors and progress. */
Test (logfile, memory_reads_as_the_file_does, .timeout = 60)
{
    s_tmp_t t;
    s_tmp (&t, "m.log");
    static uint8_t plain[1 << 16], gz[1 << 16], both[1 << 17];
    s_write_all (t.path, true);
    size_t plain_len = s_slurp (t.path, plain, sizeof plain);
    unlink (t.path);
    s_tmp_done (&t);
    s_tmp (&t, "m.log.gz");
    s_write_all (t.path, false);
    size_t gz_len = s_slurp (t.path, gz, sizeof gz);
    char err[256] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, false, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    cr_assert_eq (sim_logfile_write (w, 7, SIM_LOGFILE_REFEREE, "x", 1), 0);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    size_t both_len = s_slurp (t.path, both, sizeof both);
    cr_assert_gt (both_len, gz_len, "a second member");
    memcpy (both + both_len, "tail", 4);
    both_len += 4;
    const struct {
        const uint8_t *bytes;
        size_t len;
    } cases[] = { { plain, plain_len }, { gz, gz_len }, { both, both_len } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t len = 0; len <= cases[c].len; len++) {
            s_same_from_memory (t.path, cases[c].bytes, len, false);
            s_same_from_memory (t.path, cases[c].bytes, len, true);
        }
    /* the whole appended file ends cleanly with the record after the first member */
    s_spit (t.path, both, both_len);
    sim_logfile_reader_t *r = sim_logfile_reader_mem (both, both_len, NULL, err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    int n = 0, rc;
    while ((rc = sim_logfile_next (r, &m)) == 1)
        n++;
    cr_expect_eq (rc, 0, "%s", sim_logfile_error (r));
    cr_expect_eq (n, 7);
    cr_expect_eq (m.type, SIM_LOGFILE_REFEREE);
    sim_logfile_reader_destroy (&r);
    s_tmp_done (&t);
}

/* A size field is not trusted with memory: a record that claims 64 MiB
   in a few bytes of input ends as a torn record without the reader
   taking more than the bytes that are there (what made the fuzzer slow). */
Test (logfile, a_large_size_field_takes_no_memory_before_its_bytes)
{
    uint8_t bytes[SIM_LOGFILE_HEADER + SIM_LOGFILE_RECORD + 3];
    memcpy (bytes, SIM_LOGFILE_MAGIC, 12);
    memcpy (bytes + 12, "\0\0\0\1", 4);
    memset (bytes + 16, 0, 12);
    memcpy (bytes + 28, "\x04\x00\x00\x00", 4); /* 64 MiB, the largest a record may hold */
    memcpy (bytes + 32, "abc", 3);
    char err[256] = "";
    sim_logfile_reader_t *r = sim_logfile_reader_mem (bytes, sizeof bytes, "big.log", err, sizeof err);
    cr_assert_not_null (r, "%s", err);
    sim_logfile_msg_t m;
    cr_expect_eq (sim_logfile_next (r, &m), -1);
    cr_expect (sim_logfile_reader_torn (r));
    cr_expect (strstr (sim_logfile_error (r), "big.log: truncated record at byte 16: 3 of its 67108864"),
               "%s", sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
}

/* ---- the league's index across appends ---------------------------------- */

/* What a vision restarted during `ssl-sim run --record` does to a plain
   log: the index covers the records of earlier writers; an index an
   earlier writer ended the file with is cut off and the new records go
   in its place; a torn record is cut before the index is learnt; a log
   that was indexed stays indexed; a gzip log gets none, and compressing
   a plain part leaves the part's index out. Every index is checked by
   sim_logindex (the strict reader `ssl-sim play` uses) and against a
   record-by-record scan. */

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
s_scan_indexed (const char *path, bool indexed, uint64_t *offsets, size_t cap)
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
        cr_expect (m.len == 300 && m.data[0] == (uint8_t) n, "record %zu", n);
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
    cr_assert_eq (s_scan_indexed (path, true, offsets, 256), n);
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

Test (logfile, an_append_indexes_the_records_already_there)
{
    s_tmp_t t;
    s_tmp (&t, "a.log");
    s_write_n_as (t.path, false, 0, 10); /* a writer killed: no index */
    uint64_t offsets[16];
    cr_assert_eq (s_scan_indexed (t.path, false, offsets, 16), 10);
    s_write_n_as (t.path, true, 10, 5);
    s_expect_indexed (t.path, 15);
    s_tmp_done (&t);
}

Test (logfile, an_append_to_an_indexed_log_goes_where_its_index_was)
{
    s_tmp_t t;
    s_tmp (&t, "b.log");
    s_write_n_as (t.path, true, 0, 10);
    s_expect_indexed (t.path, 10);
    uint64_t offsets[16];
    s_scan_indexed (t.path, true, offsets, 16);
    uint64_t index_at = offsets[9] + SIM_LOGFILE_RECORD + 300;
    s_write_n_as (t.path, true, 10, 5);
    uint64_t after[16];
    cr_assert_eq (s_scan_indexed (t.path, true, after, 16), 15);
    cr_expect_eq (after[10], index_at, "the first new record starts where the old index did");
    s_expect_indexed (t.path, 15);
    /* and once more: each clean stop leaves one index, at the end */
    s_write_n_as (t.path, true, 15, 3);
    s_expect_indexed (t.path, 18);
    s_tmp_done (&t);
}

Test (logfile, an_indexed_log_stays_indexed)
{
    s_tmp_t t;
    s_tmp (&t, "c.log");
    s_write_n_as (t.path, true, 0, 10);
    s_write_n_as (t.path, false, 10, 5); /* a writer not asked for an index */
    s_expect_indexed (t.path, 15);
    s_tmp_done (&t);
}

Test (logfile, a_writer_that_writes_nothing_leaves_the_same_bytes)
{
    s_tmp_t t;
    s_tmp (&t, "d.log");
    s_write_n_as (t.path, true, 0, 10);
    static uint8_t before[8192], after[8192];
    FILE *f = fopen (t.path, "rb");
    size_t n = fread (before, 1, sizeof before, f);
    fclose (f);
    s_write_n_as (t.path, true, 10, 0);
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
Test (logfile, a_torn_tail_is_cut_and_every_whole_record_indexed)
{
    s_tmp_t t;
    s_tmp (&t, "e.log");
    s_write_n_as (t.path, true, 0, 10);
    s_write_n_as (t.path, true, 10, 5);
    /* what a kill mid-write leaves: the index gone (cut by that writer)
       and its last record torn */
    uint64_t offsets[16];
    s_scan_indexed (t.path, true, offsets, 16);
    uint64_t torn_at = offsets[14] + 100; /* record 14 cut inside */
    cr_assert_eq (truncate (t.path, (off_t) torn_at), 0);
    s_write_n_as (t.path, true, 14, 4);
    s_expect_indexed (t.path, 18);
    s_tmp_done (&t);
}

Test (logfile, a_gzip_log_has_none)
{
    s_tmp_t t;
    s_tmp (&t, "f.log.gz");
    s_write_n_as (t.path, true, 0, 10);
    s_write_n_as (t.path, true, 10, 5);
    uint64_t offsets[16];
    cr_expect_eq (s_scan_indexed (t.path, false, offsets, 16), 15);
    char why[256] = "";
    sim_logindex_t *idx = NULL;
    cr_expect_eq (sim_logindex_open (t.path, &idx, why, sizeof why), 0, "%s", why);
    s_tmp_done (&t);
}

/* `ssl-sim run --record FILE.gz`: vision indexes the plain part at its
   clean stop; the gzip log the launcher makes of it has no index, as
   `ssl-sim record FILE.gz` writes none. */
Test (logfile, compressing_a_part_leaves_its_index_out)
{
    s_tmp_t t;
    s_tmp (&t, "g.log.gz");
    char part[160], err[1024] = "";
    cr_assert_eq (sim_logfile_part_path (t.path, part, sizeof part), 1);
    s_write_n_as (part, true, 0, 10);
    s_expect_indexed (part, 10);
    uint64_t records = 0;
    cr_assert_eq (sim_logfile_compress (part, t.path, NULL, &records, err, sizeof err), 0, "%s", err);
    cr_expect_eq (records, 10, "the records, not the index");
    uint64_t offsets[16];
    cr_expect_eq (s_scan_indexed (t.path, false, offsets, 16), 10);
    s_tmp_done (&t);
}

/* One record more than an index may list (empty ones: a 134 MB file for
   half a second): the log ends without an index rather than with one
   readers refuse, and reads to its end. */
Test (logfile, a_log_with_more_records_than_an_index_lists_ends_without_one, .timeout = 60)
{
    s_tmp_t t;
    s_tmp (&t, "h.log");
    char err[256] = "";
    sim_logfile_writer_t *w = sim_logfile_writer_new (t.path, true, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    for (size_t i = 0; i <= SIM_LOGFILE_INDEX_MAX; i++)
        cr_assert_eq (sim_logfile_write (w, (int64_t) i, SIM_LOGFILE_VISION, NULL, 0), 0);
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
    cr_expect_eq (s_size (t.path), SIM_LOGFILE_HEADER + (SIM_LOGFILE_INDEX_MAX + 1) * SIM_LOGFILE_RECORD,
                  "the records and nothing after them");
    sim_logindex_t *idx = NULL;
    cr_expect_eq (sim_logindex_open (t.path, &idx, err, sizeof err), 0, "%s", err);
    s_tmp_done (&t);
}
