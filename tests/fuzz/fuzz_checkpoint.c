/*  fuzz_checkpoint.c - libFuzzer harness: a checkpoint file given to
    libsslsim (sslsim_world_load, Python's World.load), which a program
    can point at any file. The input edits a real checkpoint made at
    start (a world of the default configuration, its robots driven for a
    second), so the fuzzer reaches the world image behind the header
    instead of spending its tries on the magic and the sizes:

        byte 0      bit 0: cut the file to the length in bytes 1-3
                    (little endian, modulo the file's size); bit 1:
                    leave the checksum as the edits left it (else the
                    harness seals the file again, as a forged file would
                    be)
        then        edits of 4 + n bytes: offset (3 bytes: its low 17
                    bits, the header, configuration, the world's scalars
                    and first robots, when the top bit is clear, else
                    all 23 bits; modulo the size), n - 1 (1 byte, low 4
                    bits), n bytes to write there

    The file goes to a memfd and is loaded by path into a fresh world.
    Checks: the load answers SSLSIM_OK, or SSLSIM_ECONFIG with a reason;
    the world then steps (a refused load leaves the world it had), and
    its truth is finite where the image passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/base/sim_hash.h"
#include "embed/sslsim.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static uint8_t *s_base;
static size_t s_base_len;
static uint8_t *s_file;

static sslsim_world_t *
s_world (void)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    if (!w) {
        fprintf (stderr, "fuzz_checkpoint: %s\n", err);
        abort ();
    }
    return w;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    sslsim_world_t *w = s_world ();
    sslsim_robot_command_t c[22];
    for (int step = 0; step < 60; step++) {
        for (int k = 0; k < 22; k++)
            c[k] = (sslsim_robot_command_t) {
                .team = k / 11,
                .id = k % 11,
                .forward = 1.5 * sin (step * 0.04 + k),
                .left = 0.3 * cos (step * 0.02 + k),
                .angular = sin (step * 0.05 - k),
                .kick_speed = step % 25 == k % 11 ? 5.0 : 0.0,
                .dribbler_speed = k % 11 == 3 ? 500.0 : 0.0,
            };
        if (sslsim_world_robot_commands (w, c, 22) < 0 || sslsim_world_step (w, 0.016) != SSLSIM_OK)
            abort ();
    }
    char dir[] = "/tmp/fuzz_checkpoint.XXXXXX", path[64];
    if (!mkdtemp (dir))
        abort ();
    snprintf (path, sizeof path, "%s/base", dir);
    if (sslsim_world_save (w, path) != SSLSIM_OK)
        abort ();
    FILE *f = fopen (path, "rb");
    if (!f || fseek (f, 0, SEEK_END) || (s_base_len = (size_t) ftell (f)) < 16 || fseek (f, 0, SEEK_SET))
        abort ();
    s_base = malloc (s_base_len);
    s_file = malloc (s_base_len);
    if (!s_base || !s_file || fread (s_base, 1, s_base_len, f) != s_base_len)
        abort ();
    fclose (f);
    unlink (path);
    rmdir (dir);
    sslsim_world_free (w);
    return 0;
}

static size_t
s_u24 (const uint8_t *p)
{
    return (size_t) p[0] | (size_t) p[1] << 8 | (size_t) p[2] << 16;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    size_t len = s_base_len;
    memcpy (s_file, s_base, len);
    uint8_t flags = size > 0 ? data[0] : 0;
    size_t at = 1;
    if ((flags & 1) && size >= 4) {
        len = s_u24 (data + 1) % s_base_len;
        at = 4;
    }
    while (at + 4 <= size) {
        size_t off = s_u24 (data + at), n = (size_t) (data[at + 3] & 15) + 1;
        off &= off >> 23 ? 0x7fffff : 0x1ffff;
        at += 4;
        for (size_t i = 0; i < n && at < size; i++, at++)
            s_file[(off + i) % s_base_len] = data[at];
    }
    if (!(flags & 2) && len >= 8) {
        uint64_t seal = sim_fnv1a (SIM_FNV1A_BASIS, s_file, len - 8);
        memcpy (s_file + len - 8, &seal, 8); /* the host order the writer uses */
    }
    int fd = memfd_create ("checkpoint", MFD_CLOEXEC);
    if (fd < 0 || write (fd, s_file, len) != (ssize_t) len)
        abort ();
    char path[64];
    snprintf (path, sizeof path, "/proc/self/fd/%d", fd);

    sslsim_world_t *w = s_world ();
    sslsim_status_t rc = sslsim_world_load (w, path);
    close (fd);
    if (rc != SSLSIM_OK && (rc != SSLSIM_ECONFIG || !sslsim_world_last_error (w)[0]))
        abort ();
    for (int i = 0; i < 3; i++)
        if (sslsim_world_step (w, 0.016) != SSLSIM_OK)
            abort ();
    sslsim_truth_t t;
    sslsim_world_truth (w, &t);
    for (int i = 0; i < 6; i++)
        if (!isfinite (t.ball[i]))
            abort ();
    sslsim_world_free (w);
    return 0;
}
