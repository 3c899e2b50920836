/*  fuzz_logfile.c - libFuzzer harness: a file given to `ssl-sim play` or
    `ssl-sim replay`. The bytes, as a file, through the league log reader
    (sim_logfile) to its end or its damage, read a second time after a
    rewind (the same records must come), each vision record unpacked as
    play's receivers would; then the same file as a --journal script
    (phys_replay_load). Nothing may crash, leak or read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "common/logs/sim_logfile.h"
#include "engine/world/phys_replay.h"
#include "ssl_vision_wrapper.pb-c.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Records read (and bytes), or -1 at damage. */
static long
s_read_all (sim_logfile_reader_t *r, uint64_t *bytes)
{
    sim_logfile_msg_t m;
    long count = 0;
    int rc;
    *bytes = 0;
    while ((rc = sim_logfile_next (r, &m)) == 1) {
        count++;
        *bytes += m.len;
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

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        ready = true;
    }
    int fd = memfd_create ("fuzz_logfile", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write (fd, data, size) != (ssize_t) size) {
        close (fd);
        return 0;
    }
    char path[64];
    snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    char err[512];
    sim_logfile_reader_t *r = sim_logfile_reader_new (path, err, sizeof err);
    if (r) {
        uint64_t first_bytes, second_bytes;
        long first = s_read_all (r, &first_bytes);
        if (sim_logfile_rewind (r) == 0) {
            long second = s_read_all (r, &second_bytes);
            if (second != first || second_bytes != first_bytes)
                abort (); /* a file reads the same twice */
        }
        sim_logfile_reader_destroy (&r);
    } else if (err[0] == '\0')
        abort ();
    phys_replay_t *script = phys_replay_load (path, err, sizeof err);
    if (script) {
        for (size_t i = 0; i < phys_replay_count (script); i++) {
            uint64_t frame;
            const char *source;
            if (!phys_replay_input (script, i, &frame, &source) || !source)
                abort ();
        }
        phys_replay_destroy (&script);
    }
    close (fd);
    return 0;
}
