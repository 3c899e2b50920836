/*  test_config_support.h - helpers shared by the configuration tests
    (test_config.c, test_config_flags.c, test_config_dump.c): a temporary
    directory, files written into it, flags and INI text parsed from the
    defaults, and the dump round trip.
*/
#ifndef TEST_CONFIG_SUPPORT_H_INCLUDED
#define TEST_CONFIG_SUPPORT_H_INCLUDED

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"

/* 2.5 degrees as vision.md §11 prints it */
#define KICK_DIR_2_5_DEG 0.04363323129985824

/* A fresh directory per test, named into the caller's buffer. It stays in
   /tmp after the test (a few bytes) so a failure can be inspected. */
#define CFG_TEST_TMPDIR(name_) \
    char name_[64]; \
    snprintf (name_, sizeof name_, "/tmp/test_config.XXXXXX"); \
    cr_assert_not_null (mkdtemp (name_))

/* Write `text` to DIR/NAME; returns a heap path the caller frees. */
static inline char *
cfg_test_write (const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    cr_assert (asprintf (&path, "%s/%s", dir, name) > 0);
    FILE *file = fopen (path, "w");
    cr_assert_not_null (file);
    fputs (text, file);
    fclose (file);
    return path;
}

static inline int
cfg_test_args (sim_config_t *cfg, char *err, size_t errlen, int argc, ...)
{
    char *argv[32];
    va_list args;
    va_start (args, argc);
    for (int i = 0; i < argc; i++)
        argv[i] = va_arg (args, char *);
    va_end (args);
    sim_config_defaults (cfg);
    return sim_config_from_args (cfg, argc, argv, err, errlen);
}

/* Strings are compared with memcmp too, so the tail must be zero. */
static inline void
cfg_test_set_string (char *dest, size_t size, const char *text)
{
    memset (dest, 0, size);
    strncpy (dest, text, size - 1);
}

static inline int
cfg_test_load (sim_config_t *cfg, const char *text, char *err, size_t errlen)
{
    sim_config_defaults (cfg);
    return sim_config_load_string (cfg, text, "test.ini", err, errlen);
}

/* The message of a failed string load. */
static inline void
cfg_test_expect_error (const char *text, const char *needle)
{
    sim_config_t cfg;
    char err[512] = "";
    cr_assert_eq (cfg_test_load (&cfg, text, err, sizeof err), -1, "accepted: %s", text);
    cr_assert_not_null (strstr (err, needle), "message '%s' lacks '%s'", err, needle);
}

static inline void
cfg_test_expect_round_trip (const sim_config_t *cfg)
{
    char *text = sim_config_dump (cfg, true);
    cr_assert_not_null (text);
    sim_config_t back;
    char err[512] = "";
    int rc = cfg_test_load (&back, text, err, sizeof err);
    cr_assert_eq (rc, 0, "dump does not load: %s\n%s", err, text);
    back.rig_generation = cfg->rig_generation;
    for (size_t i = 0; i < sizeof back; i++)
        if (((const unsigned char *) cfg)[i] != ((const unsigned char *) &back)[i]) {
            fprintf (stderr, "first difference at byte %zu\n", i);
            break;
        }
    cr_assert_eq (memcmp (cfg, &back, sizeof back), 0, "round trip differs:\n%s", text);
    free (text);
}

#endif
