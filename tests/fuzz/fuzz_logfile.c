/*  fuzz_logfile.c - libFuzzer harness: a file given to `ssl-sim play`,
    `ssl-sim replay` or a physics restart, read from memory by the same
    readers the files go through (no file per input):
    - the league log reader (sim_logfile_reader_mem: plain, or gzip
      through inflate, members one after another, the index record as a
      record) to its end or its damage, read a second time after a rewind
      (the same records and bytes must come), each vision record unpacked
      as play's receivers would;
    - a plain log that ends with "INDEXED" through the league's index too
      (sim_logindex, which `ssl-sim play` opens a log with first): it
      reads a file, so those inputs alone go to a memfd. An index it
      accepts must give what the reader gives, record for record (time,
      type, size, offset, bytes), and end where the index record starts;
      one it refuses must say why;
    - the same bytes as a journal (phys_journal_read_stream over fmemopen)
      of any run, and as a --journal script (phys_replay_load_stream), its
      inputs walked. In this build a journal seal of 0 passes
      (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, phys_journal.c), so the
      records behind the checksums are fuzzed too.
    Nothing may crash, leak or read out of bounds; damage must say what it
    is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "common/logs/sim_logfile.h"
#include "common/logs/sim_logindex.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_replay.h"
#include "ssl_vision_wrapper.pb-c.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Records read (and bytes), or -1 - records at damage. */
static long
s_read_all (sim_logfile_reader_t *r, uint64_t *bytes, size_t size)
{
    sim_logfile_msg_t m;
    long count = 0;
    int rc;
    *bytes = 0;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        count++;
        *bytes += m.len;
        if (sim_logfile_position (r) > size)
            abort (); /* progress past the end of what there is */
        if (m.type == SIM_LOGFILE_VISION) {
            SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, m.len, m.data);
            if (w)
                ssl__wrapper_packet__free_unpacked (w, NULL);
        }
    }
    if (rc < 0 && sim_logfile_error (r)[0] == '\0')
        abort (); /* damage must say what it is */
    return rc < 0 ? -1 - count : count;
}

static void
s_log (const uint8_t *data, size_t size)
{
    char err[SIM_LOGFILE_ERROR_MAX];
    err[0] = '\0';
    sim_logfile_reader_t *r = sim_logfile_reader_mem (data, size, "fuzz.log", err, sizeof err);
    if (!r) {
        if (err[0] == '\0')
            abort ();
        return;
    }
    uint64_t first_bytes, second_bytes;
    long first = s_read_all (r, &first_bytes, size);
    if (sim_logfile_rewind (r) == 0) {
        long second = s_read_all (r, &second_bytes, size);
        if (second != first || second_bytes != first_bytes)
            abort (); /* a file reads the same twice */
    }
    sim_logfile_reader_destroy (&r);
}

static bool
s_every_type (int32_t type)
{
    (void) type;
    return true;
}

/* The records sim_logindex walks, checked against the reader's. */
static void
s_walk_index (sim_logindex_t *idx, const uint8_t *data, size_t size)
{
    char err[SIM_LOGFILE_ERROR_MAX];
    sim_logfile_reader_t *r = sim_logfile_reader_mem (data, size, "fuzz.log", err, sizeof err);
    sim_logfile_msg_t m, rm;
    int got;
    while ((got = sim_logindex_next (idx, &m, s_every_type)) == 1) {
        if (!m.data && m.len)
            abort (); /* asked for every record's bytes */
        /* play's reader opened the file first (a version it refuses never
           gets here): it must read the same record at the same place */
        if (r
            && (sim_logfile_next (r, &rm) != 1 || rm.offset != m.offset || rm.time_ns != m.time_ns
                || rm.type != m.type || rm.len != m.len || (m.len && memcmp (rm.data, m.data, m.len) != 0)))
            abort ();
    }
    if (got < 0 && sim_logindex_error (idx)[0] == '\0')
        abort (); /* a refusal must say why */
    /* the index held: what follows the listed records is the index record,
       the file's last */
    if (got == 0 && r
        && (sim_logfile_next (r, &rm) != 1 || rm.type != SIM_LOGFILE_INDEX || sim_logfile_next (r, &rm) != 0))
        abort ();
    if (sim_logindex_next (idx, &m, NULL) != got)
        abort (); /* the walk's end stays its end */
    sim_logfile_reader_destroy (&r);
}

static void
s_index (const uint8_t *data, size_t size)
{
    if (size < 7 || memcmp (data + size - 7, SIM_LOGFILE_INDEXED, 7) != 0)
        return;
    int fd = memfd_create ("fuzz.log", MFD_CLOEXEC);
    if (fd < 0)
        return;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write (fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t) n;
    }
    char path[64], why[SIM_LOGFILE_ERROR_MAX];
    snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    why[0] = '\0';
    sim_logindex_t *idx = NULL;
    int rc = done == size ? sim_logindex_open (path, &idx, why, sizeof why) : 0;
    if (rc < 0 && why[0] == '\0')
        abort ();
    if (rc == 1)
        s_walk_index (idx, data, size);
    sim_logindex_destroy (&idx);
    close (fd);
}

static bool
s_count (void *arg, const phys_journal_record_t *rec)
{
    size_t *bytes = arg;
    *bytes += rec->payload_len;
    return true;
}

static void
s_journal (const uint8_t *data, size_t size)
{
    if (size == 0)
        return; /* fmemopen wants bytes */
    FILE *f = fmemopen ((void *) data, size, "rb");
    if (!f)
        return;
    phys_journal_header_t header;
    size_t bytes = 0;
    int n = phys_journal_read_stream (f, "fuzz.journal", NULL, &header, s_count, &bytes);
    if (n > 0 && bytes > size)
        abort ();
    rewind (f);
    char err[512];
    err[0] = '\0';
    phys_replay_t *script = phys_replay_load_stream (f, "fuzz.journal", err, sizeof err);
    if (script) {
        if (!phys_replay_config (script))
            abort ();
        for (size_t i = 0; i < phys_replay_count (script); i++) {
            uint64_t frame;
            const char *source;
            if (!phys_replay_input (script, i, &frame, &source) || !source)
                abort ();
        }
        phys_replay_destroy (&script);
    } else if (err[0] == '\0')
        abort ();
    fclose (f);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        ready = true;
    }
    s_log (data, size);
    s_index (data, size);
    s_journal (data, size);
    return 0;
}
