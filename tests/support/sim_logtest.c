/*  sim_logtest.c - helpers for tests of the league's log files (sim_logtest.h). */
#include "sim_logtest.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t
s_be (const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

uint64_t
sim_logtest_index_at (const char *path)
{
    struct stat st;
    uint8_t b[8];
    int fd = open (path, O_RDONLY);
    if (fd < 0)
        return 0;
    bool ok = fstat (fd, &st) == 0 && st.st_size > 15 && pread (fd, b, 8, st.st_size - 15) == 8;
    close (fd);
    uint64_t len = ok ? s_be (b) : 0;
    return ok && len <= (uint64_t) st.st_size ? (uint64_t) st.st_size - len : 0;
}

int
sim_logtest_nudge_offset (const char *path, size_t i)
{
    uint64_t at = sim_logtest_index_at (path);
    int fd = at ? open (path, O_RDWR) : -1;
    if (fd < 0)
        return -1;
    uint8_t b[8];
    off_t pos = (off_t) (at + 16 + 8 * i);
    int rc = -1;
    if (pread (fd, b, 8, pos) == 8) {
        uint64_t v = s_be (b) + 1;
        for (int k = 0; k < 8; k++)
            b[k] = (uint8_t) (v >> (8 * (7 - k)));
        rc = pwrite (fd, b, 8, pos) == 8 ? 0 : -1;
    }
    close (fd);
    return rc;
}
