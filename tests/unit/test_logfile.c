/*  test_logfile.c - the league's log files (common/sim_logfile.c): every
    message type written and read back, plain and gzip; the bytes of a
    plain file checked by hand against the format the league's tools read
    (header, big-endian fields, type numbers, the index trailer); a
    truncated file, a corrupt size field, a damaged gzip stream and a file
    of another kind each end reading with a clear error, never a crash.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sim_logfile.h"

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
