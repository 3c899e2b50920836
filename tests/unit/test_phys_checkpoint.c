/*  test_phys_checkpoint.c - physics checkpoints: a saved world comes back
    bit for bit (state hash, clock, configuration, serial) and keeps
    stepping identically; another run's key, a torn or corrupted file and
    a missing file are refused without harm.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "engine/world/phys_checkpoint.h"
#include "tests/support/sim_from_config.h"

typedef struct {
    char dir[64];
    char path[128];
} ck_dir_t;

static void
s_dir (ck_dir_t *d)
{
    snprintf (d->dir, sizeof d->dir, "/tmp/ssl-sim-ck-XXXXXX");
    cr_assert_not_null (mkdtemp (d->dir));
    snprintf (d->path, sizeof d->path, "%s/physics.checkpoint", d->dir);
}

static void
s_dir_remove (ck_dir_t *d)
{
    unlink (d->path);
    rmdir (d->dir);
}

/* A world that has moved: a robot driven for a while, the clock advanced. */
static phys_world_t *
s_busy_world (sim_config_t *cfg)
{
    sim_config_defaults (cfg);
    cfg->sim.seed = 42;
    cfg->rig_generation = 3;
    phys_world_t *w = sim_fc_world_new (cfg);
    cr_assert_not_null (w);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 1.0, 0.2, 0.5, 0 } };
    cr_assert_eq (phys_world_command (w, SIM_TEAM_BLUE, 0, &c), PHYS_OK);
    for (int i = 0; i < 700; i++)
        phys_world_step (w);
    return w;
}

Test (phys_checkpoint, round_trip_is_exact_and_steps_the_same)
{
    ck_dir_t d;
    s_dir (&d);
    sim_config_t cfg;
    phys_world_t *w = s_busy_world (&cfg);
    cr_assert_eq (phys_checkpoint_save (d.path, "run-a", w, &cfg, 17), 0);

    sim_config_t back;
    uint64_t serial = 0;
    phys_world_t *r = phys_checkpoint_load (d.path, "run-a", &back, &serial);
    cr_assert_not_null (r);
    cr_expect_eq (serial, 17);
    cr_expect_eq (back.sim.seed, 42);
    cr_expect_eq (back.rig_generation, 3);
    cr_expect_eq (phys_world_time_ns (r), phys_world_time_ns (w));
    cr_expect_eq (phys_world_hash (r), phys_world_hash (w));
    /* random streams and pending commands came along: both go on alike */
    for (int i = 0; i < 500; i++) {
        phys_world_step (w);
        phys_world_step (r);
    }
    cr_expect_eq (phys_world_hash (r), phys_world_hash (w), "the resumed world diverged");
    phys_world_destroy (&r);
    phys_world_destroy (&w);
    s_dir_remove (&d);
}

/* The once-only request ids a physics applied come back from its
   checkpoint in order (a later physics answers a repeat of one without
   applying it); a reader that does not want them gets none. */
Test (phys_checkpoint, once_only_ids_come_back_in_order)
{
    ck_dir_t d;
    s_dir (&d);
    sim_config_t cfg, back;
    phys_world_t *w = s_busy_world (&cfg);
    static uint64_t ids[PHYS_CHECKPOINT_ONCE_MAX], got[PHYS_CHECKPOINT_ONCE_MAX];
    for (size_t i = 0; i < PHYS_CHECKPOINT_ONCE_MAX; i++)
        ids[i] = (1ull << 63) | (0x1234500000ull + 7 * i);
    phys_checkpoint_meta_t meta = { .serial = 5, .journal_seq = 9, .once_ids = ids, .once_count = 4096 };
    cr_assert_eq (phys_checkpoint_write (d.path, "run-a", w, &cfg, &meta), 0);
    phys_checkpoint_meta_t in = { .once_ids = got };
    phys_world_t *r = phys_checkpoint_read (d.path, "run-a", &back, &in);
    cr_assert_not_null (r);
    cr_expect_eq (in.journal_seq, 9);
    cr_expect_eq (in.once_count, PHYS_CHECKPOINT_ONCE_MAX);
    cr_expect_arr_eq (got, ids, sizeof ids, "the ids differ");
    cr_expect_eq (phys_world_hash (r), phys_world_hash (w));
    phys_world_destroy (&r);
    phys_checkpoint_meta_t none = { .once_ids = NULL };
    r = phys_checkpoint_read (d.path, "run-a", &back, &none);
    cr_assert_not_null (r);
    cr_expect_eq (none.once_count, 0);
    phys_world_destroy (&r);
    meta.once_count = PHYS_CHECKPOINT_ONCE_MAX + 1;
    cr_expect_eq (phys_checkpoint_write (d.path, "run-a", w, &cfg, &meta), -1, "more ids than a file keeps");
    phys_world_destroy (&w);
    s_dir_remove (&d);
}

Test (phys_checkpoint, other_run_missing_and_corrupt_files_are_refused)
{
    ck_dir_t d;
    s_dir (&d);
    sim_config_t cfg, back;
    uint64_t serial = 0;
    cr_expect_null (phys_checkpoint_load (d.path, "run-a", &back, &serial), "no file");

    phys_world_t *w = s_busy_world (&cfg);
    cr_assert_eq (phys_checkpoint_save (d.path, "run-a", w, &cfg, 1), 0);
    cr_expect_null (phys_checkpoint_load (d.path, "run-b", &back, &serial), "another run's key");

    /* flip one byte in the middle: the checksum catches it */
    FILE *f = fopen (d.path, "r+b");
    cr_assert_not_null (f);
    fseek (f, 0, SEEK_END);
    long size = ftell (f);
    fseek (f, size / 2, SEEK_SET);
    int c = fgetc (f);
    fseek (f, size / 2, SEEK_SET);
    fputc (c ^ 0x5a, f);
    fclose (f);
    cr_expect_null (phys_checkpoint_load (d.path, "run-a", &back, &serial), "a corrupted file");

    /* a torn file (cut short) */
    cr_assert_eq (phys_checkpoint_save (d.path, "run-a", w, &cfg, 1), 0);
    cr_assert_eq (truncate (d.path, size - 100), 0);
    cr_expect_null (phys_checkpoint_load (d.path, "run-a", &back, &serial), "a torn file");

    /* garbage of the right length */
    f = fopen (d.path, "wb");
    cr_assert_not_null (f);
    for (long i = 0; i < size; i++)
        fputc ((int) (i * 7), f);
    fclose (f);
    cr_expect_null (phys_checkpoint_load (d.path, "run-a", &back, &serial), "garbage");
    phys_world_destroy (&w);
    s_dir_remove (&d);
}

Test (phys_checkpoint, key_comes_from_the_run_id_or_the_options)
{
    sim_config_t a, b;
    sim_config_defaults (&a);
    sim_config_defaults (&b);
    b.sim.seed = 7;
    char ka[80], kb[80], kc[80];
    unsetenv ("SSL_SIM_RUN_ID");
    phys_checkpoint_key (&a, ka, sizeof ka);
    phys_checkpoint_key (&b, kb, sizeof kb);
    cr_expect_str_neq (ka, kb, "different options must give different keys");
    phys_checkpoint_key (&a, kc, sizeof kc);
    cr_expect_str_eq (ka, kc);
    setenv ("SSL_SIM_RUN_ID", "1234-5", 1);
    phys_checkpoint_key (&a, ka, sizeof ka);
    phys_checkpoint_key (&b, kb, sizeof kb);
    cr_expect_str_eq (ka, "run-1234-5");
    cr_expect_str_eq (kb, "run-1234-5");
}
