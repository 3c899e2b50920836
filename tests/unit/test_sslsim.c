/*  test_sslsim.c - libsslsim's own promises (embed/sslsim.h): same seed
    and inputs give the same bytes, a batch's world k does not depend on the
    batch size or its threads, reset and save/load give back the states
    they promise, and bad input is refused with a code and a reason.
    (Sameness with `ssl-sim run --mode sync`: tests/system/test_embed_sync.c.)
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embed/sslsim.h"
#include "ssl_simulation_config.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "common/base/sim_hash.h"
#include "common/config/config.h"
#include "engine/world/phys_checkpoint.h"
#include "engine/world/phys_def.h"
#include "tests/support/sim_msg.h"

#define TS_STEPS 150

/* The commands of step `step` for world `k`: every robot of both teams. */
static int
s_commands (sslsim_robot_command_t *c, int step, int k)
{
    int n = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < 11; id++)
            c[n++] = (sslsim_robot_command_t) {
                .team = team,
                .id = id,
                .forward = 1.5 * sin (step * 0.04 + id + k),
                .left = 0.3 * cos (step * 0.02 + id),
                .angular = 1.0 * sin (step * 0.05 - id),
                .kick_speed = step % 25 == id ? 5.0 : 0.0,
                .dribbler_speed = id == 3 ? 500.0 : 0.0,
            };
    return n;
}

/* Hash of the vision bytes and truth of one world's step. */
static uint64_t
s_step_hash (uint64_t h, const sslsim_world_t *w)
{
    for (int i = 0; i < sslsim_world_vision_count (w); i++) {
        const uint8_t *bytes;
        size_t len;
        cr_assert_eq (sslsim_world_vision (w, i, &bytes, &len), SSLSIM_OK);
        h = sim_fnv1a (h, bytes, len);
    }
    sslsim_truth_t t;
    sslsim_world_truth (w, &t);
    return sim_fnv1a (h, &t, sizeof t);
}

static sslsim_world_t *
s_world (uint64_t seed)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.has_seed = 1;
    config.seed = seed;
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    return w;
}

/* Hash of TS_STEPS driven steps of a fresh world; frames counts the
   vision packets. */
static uint64_t
s_run (sslsim_world_t *w, int k, int *frames)
{
    uint64_t h = 0xcbf29ce484222325ull;
    sslsim_robot_command_t c[22];
    *frames = 0;
    for (int step = 0; step < TS_STEPS; step++) {
        int n = s_commands (c, step, k);
        cr_assert_geq (sslsim_world_robot_commands (w, c, n), 0, "%s", sslsim_world_last_error (w));
        cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
        *frames += sslsim_world_vision_count (w);
        h = s_step_hash (h, w);
    }
    return h;
}

Test (sslsim, same_seed_same_bytes_other_seed_other_bytes)
{
    sslsim_world_t *a = s_world (7), *b = s_world (7), *c = s_world (8);
    int fa, fb, fc;
    uint64_t ha = s_run (a, 0, &fa), hb = s_run (b, 0, &fb), hc = s_run (c, 0, &fc);
    cr_assert_eq (ha, hb, "two worlds of seed 7 differ");
    cr_assert_neq (ha, hc, "seeds 7 and 8 gave the same bytes");
    /* two cameras, 16 ms steps: about 2.4 frames a step once the delay passed */
    cr_assert_gt (fa, TS_STEPS * 2, "only %d frames in %d steps", fa, TS_STEPS);
    sslsim_world_free (a);
    sslsim_world_free (b);
    sslsim_world_free (c);
}

/* The vision bytes of `bench/embed --dump 120 9` (its script is
   s_commands of world 0): the golden hash python/tests/test_sslsim.py
   holds libsslsim.so to. This program links the objects' machine code
   (Makefile: LTO_OFF) and the shared object is linked with LTO, so the
   two tests together say the link-time optimizer left the bytes alone. A
   change of the model changes it here and there alike. */
#define TS_EMBED_DUMP_9_120 0x0f52197e868e2e63ull

Test (sslsim, the_embed_dump_has_its_golden_hash)
{
    sslsim_world_t *w = s_world (9);
    uint64_t h = SIM_FNV1A_BASIS;
    int frames = 0;
    sslsim_robot_command_t c[22];
    for (int step = 0; step < 120; step++) {
        int n = s_commands (c, step, 0);
        cr_assert_geq (sslsim_world_robot_commands (w, c, n), 0, "%s", sslsim_world_last_error (w));
        cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
        for (int i = 0; i < sslsim_world_vision_count (w); i++, frames++) {
            const uint8_t *bytes;
            size_t len;
            cr_assert_eq (sslsim_world_vision (w, i, &bytes, &len), SSLSIM_OK);
            h = sim_fnv1a (h, bytes, len);
        }
    }
    cr_expect_eq (frames, 280);
    cr_expect_eq (h, TS_EMBED_DUMP_9_120, "hash %016llx", (unsigned long long) h);
    sslsim_world_free (w);
}

/* A world of `seed` started with `args` (NULL-terminated flags). */
static sslsim_world_t *
s_world_args (uint64_t seed, const char *const *args)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.has_seed = 1;
    config.seed = seed;
    config.args = args;
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    return w;
}

/* Switch w to the realism preset `name` with the SimulatorConfig the
   viewer's realism op sends (ssl-sim's RealismPreset). */
static void
s_switch_realism (sslsim_world_t *w, const char *name)
{
    sim_msg_preset_t m;
    SimulatorCommand *cmd = sim_msg_realism_preset (&m, name);
    uint8_t buf[256];
    cr_assert_leq (simulator_command__get_packed_size (cmd), sizeof buf);
    size_t len = simulator_command__pack (cmd, buf);
    cr_assert_eq (sslsim_world_command (w, SSLSIM_MSG_SIMULATOR_COMMAND, buf, len), 0, "%s",
                  sslsim_world_error (w, 0));
}

/* A preset switched to at time 0 gives the bytes a start with it gives:
   the switch sets every key of the preset, and every random draw is
   keyed or runs from the same start, so nothing else can differ. */
Test (sslsim, a_realism_switched_to_at_start_sends_the_bytes_of_a_start_with_it)
{
    static const char *const presets[] = {
        "none", "go26", "rc26", "vp26", "erforce_friendly", "erforce_realistic", "erforce_rc2021"
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const char *const args[] = { "--realism", presets[i], NULL };
        sslsim_world_t *started = s_world_args (5, args), *switched = s_world (5);
        s_switch_realism (switched, presets[i]);
        int fa, fb;
        uint64_t ha = s_run (started, 1, &fa), hb = s_run (switched, 1, &fb);
        cr_expect_eq (ha, hb, "%s: switched at 0 differs from started with it (%d, %d frames)", presets[i],
                      fa, fb);
        sslsim_world_free (started);
        sslsim_world_free (switched);
    }
    /* and back: a world started with none, switched to realistic */
    const char *const none[] = { "--realism", "none", NULL };
    sslsim_world_t *started = s_world (5), *switched = s_world_args (5, none);
    s_switch_realism (switched, "realistic");
    int fa, fb;
    cr_expect_eq (s_run (started, 1, &fa), s_run (switched, 1, &fb),
                  "none -> realistic differs from the default");
    sslsim_world_free (started);
    sslsim_world_free (switched);
}

Test (sslsim, reset_is_a_new_world_of_that_seed)
{
    sslsim_world_t *a = s_world (3), *b = s_world (11);
    int f;
    s_run (b, 0, &f);
    cr_assert_eq (sslsim_world_reset (b, 3), SSLSIM_OK);
    cr_assert_eq (sslsim_world_time_ns (b), 0);
    cr_assert_eq (s_run (a, 0, &f), s_run (b, 0, &f), "reset(3) differs from a new world of seed 3");
    sslsim_world_free (a);
    sslsim_world_free (b);
}

/* The limits are the configuration's: division A and the default
   [blue]/[yellow] sections of configs/ssl-sim.ini; flags change them. */
Test (sslsim, limits_are_those_of_the_configuration_in_force)
{
    sslsim_world_t *w = s_world (1);
    sslsim_limits_t l;
    cr_assert_eq (sslsim_world_limits (w, &l), SSLSIM_OK);
    cr_assert_eq (l.field_length, 12.0);
    cr_assert_eq (l.field_width, 9.0);
    cr_assert_eq (l.boundary_width, 0.3);
    cr_assert_eq (l.boundary_width_goal_line, 0.6); /* the 2026 Division A margin */
    cr_assert_eq (l.goal_width, 1.8);
    for (int t = 0; t < 2; t++) {
        cr_assert_eq (l.robot_speed_max[t], 3.0);
        cr_assert_eq (l.robot_angular_max[t], 12.0);
        cr_assert_eq (l.kick_speed_max[t], 6.5);
        cr_assert_eq (l.chip_speed_max[t], 5.5);
        cr_assert_eq (l.dribbler_rpm_max[t], 10000.0);
    }
    cr_assert_eq (sslsim_world_limits (w, NULL), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_limits (NULL, &l), SSLSIM_EINVAL);
    sslsim_world_free (w);

    sslsim_config_t config;
    sslsim_config_init (&config);
    const char *args[] = { "--division", "b", NULL };
    config.args = args;
    char err[256];
    w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    cr_assert_eq (sslsim_world_limits (w, &l), SSLSIM_OK);
    cr_assert_eq (l.field_length, 9.0);
    cr_assert_eq (l.field_width, 6.0);
    sslsim_world_free (w);
}

/* Batch sizes and thread counts do not change world k. */
Test (sslsim, batch_world_k_does_not_depend_on_n_or_threads)
{
    enum { N = 5 };
    uint64_t alone[N];
    for (int k = 0; k < N; k++) {
        sslsim_world_t *w = s_world (100 + (uint64_t) k);
        uint64_t h = 0xcbf29ce484222325ull;
        sslsim_robot_command_t c[22];
        for (int step = 0; step < 60; step++) {
            int n = s_commands (c, step, k);
            cr_assert_geq (sslsim_world_robot_commands (w, c, n), 0);
            cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
            h = s_step_hash (h, w);
        }
        alone[k] = h;
        sslsim_world_free (w);
    }
    const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { N, 2 }, { N, 3 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s][0], threads = sizes[s][1];
        sslsim_config_t config;
        sslsim_config_init (&config);
        config.has_seed = 1;
        config.seed = 100;
        char err[256];
        sslsim_batch_t *b = sslsim_batch_new (n, &config, threads, NULL, err, sizeof err);
        cr_assert_not_null (b, "%s", err);
        cr_assert_eq (sslsim_batch_threads (b), threads);
        uint64_t h[N];
        sslsim_robot_command_t c[N * 22];
        for (int k = 0; k < n; k++)
            h[k] = 0xcbf29ce484222325ull;
        for (int step = 0; step < 60; step++) {
            for (int k = 0; k < n; k++)
                s_commands (c + k * 22, step, k);
            cr_assert_eq (sslsim_batch_robot_commands (b, c, 22), SSLSIM_OK);
            cr_assert_eq (sslsim_batch_step (b, 0.016), SSLSIM_OK, "%s", sslsim_batch_last_error (b));
            for (int k = 0; k < n; k++)
                h[k] = s_step_hash (h[k], sslsim_batch_world (b, k));
        }
        for (int k = 0; k < n; k++)
            cr_assert_eq (h[k], alone[k], "world %d of a batch of %d on %d threads differs from it alone", k,
                          n, threads);
        sslsim_batch_free (b);
    }
}

/* 60 driven steps of world `world` (script `script`) of a batch of n
   on `threads` threads with seeds[], vision on or off: each world's hash
   into h[0..n). */
static void
s_batch_hashes (int n, int threads, int vision, const uint64_t *seeds, const int *script, uint64_t *h)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.vision = vision;
    char err[256];
    sslsim_batch_t *b = sslsim_batch_new (n, &config, threads, seeds, err, sizeof err);
    cr_assert_not_null (b, "%s", err);
    sslsim_robot_command_t *c = malloc (sizeof *c * 22 * (size_t) n);
    cr_assert_not_null (c);
    for (int k = 0; k < n; k++)
        h[k] = 0xcbf29ce484222325ull;
    for (int step = 0; step < 60; step++) {
        for (int k = 0; k < n; k++)
            s_commands (c + k * 22, step, script[k]);
        cr_assert_eq (sslsim_batch_robot_commands (b, c, 22), SSLSIM_OK);
        cr_assert_eq (sslsim_batch_step (b, 0.016), SSLSIM_OK, "%s", sslsim_batch_last_error (b));
        for (int k = 0; k < n; k++)
            h[k] = s_step_hash (h[k], sslsim_batch_world (b, k));
    }
    free (c);
    sslsim_batch_free (b);
}

/* The learner's sizes (issue 26): one world's bytes, with vision and with
   truth only, are the same alone, last of a batch of 3 and last of a
   batch of 64 (its position in the batch and its neighbours changed), on
   1 and 2 threads; and every world of the 64 is the same on 1 and 2
   threads. */
Test (sslsim, a_world_is_the_same_in_batches_of_1_3_and_64_on_1_and_2_threads)
{
    enum { N = 64, PROBE_SEED = 900, PROBE_SCRIPT = 7 };
    uint64_t seeds[N];
    int script[N];
    uint64_t h[N], h1[N];
    for (int vision = 0; vision < 2; vision++) {
        uint64_t alone;
        seeds[0] = PROBE_SEED;
        script[0] = PROBE_SCRIPT;
        s_batch_hashes (1, 1, vision, seeds, script, &alone);
        const int sizes[][2] = { { 3, 1 }, { 3, 2 }, { N, 1 }, { N, 2 } };
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int n = sizes[s][0], threads = sizes[s][1];
            for (int k = 0; k < n; k++) {
                seeds[k] = 500 + (uint64_t) k;
                script[k] = k;
            }
            seeds[n - 1] = PROBE_SEED;
            script[n - 1] = PROBE_SCRIPT;
            s_batch_hashes (n, threads, vision, seeds, script, h);
            cr_assert_eq (h[n - 1], alone,
                          "vision %d: the world at %d of a batch of %d on %d threads differs from it alone",
                          vision, n - 1, n, threads);
            if (n == N && threads == 1)
                memcpy (h1, h, sizeof h1);
            if (n == N && threads == 2)
                for (int k = 0; k < N; k++)
                    cr_assert_eq (h[k], h1[k], "vision %d: world %d of %d differs on 1 and 2 threads", vision,
                                  k, N);
        }
    }
}

Test (sslsim, given_seeds_are_used)
{
    uint64_t seeds[2] = { 42, 42 };
    sslsim_config_t config;
    sslsim_config_init (&config);
    sslsim_batch_t *b = sslsim_batch_new (2, &config, 2, seeds, NULL, 0);
    cr_assert_not_null (b);
    sslsim_world_t *ref = s_world (42);
    int f;
    uint64_t h0 = s_run (sslsim_batch_world (b, 0), 0, &f);
    cr_assert_eq (h0, s_run (sslsim_batch_world (b, 1), 0, &f));
    cr_assert_eq (h0, s_run (ref, 0, &f));
    sslsim_world_free (ref);
    sslsim_batch_free (b);
}

Test (sslsim, load_continues_physics_exactly)
{
    char path[] = "/tmp/test_sslsim_XXXXXX";
    int fd = mkstemp (path);
    cr_assert_geq (fd, 0);
    close (fd);
    sslsim_world_t *a = s_world (5), *b = s_world (99);
    int f;
    s_run (a, 0, &f);
    cr_assert_eq (sslsim_world_save (a, path), SSLSIM_OK, "%s", sslsim_world_last_error (a));
    cr_assert_eq (sslsim_world_load (b, path), SSLSIM_OK, "%s", sslsim_world_last_error (b));
    cr_assert_eq (sslsim_world_time_ns (b), sslsim_world_time_ns (a));
    sslsim_robot_command_t c[22];
    for (int step = 0; step < 50; step++) {
        int n = s_commands (c, step, 1);
        sslsim_world_robot_commands (a, c, n);
        sslsim_world_robot_commands (b, c, n);
        sslsim_world_step (a, 0.016);
        sslsim_world_step (b, 0.016);
        sslsim_truth_t ta, tb;
        sslsim_world_truth (a, &ta);
        sslsim_world_truth (b, &tb);
        cr_assert (memcmp (&ta, &tb, sizeof ta) == 0, "step %d after load: the truth differs", step);
    }
    /* a file that is not a checkpoint leaves the world as it was */
    FILE *fp = fopen (path, "w");
    fputs ("not a checkpoint", fp);
    fclose (fp);
    uint64_t t = sslsim_world_time_ns (b);
    cr_assert_eq (sslsim_world_load (b, path), SSLSIM_ECONFIG);
    cr_assert_eq (sslsim_world_time_ns (b), t);
    cr_assert_eq (sslsim_world_save (b, "/nonexistent-dir/x"), SSLSIM_EIO);
    unlink (path);
    /* a file that is not there: EIO, named with the reason */
    cr_assert_eq (sslsim_world_load (b, path), SSLSIM_EIO);
    cr_expect (strstr (sslsim_world_last_error (b), "No such file"), "%s", sslsim_world_last_error (b));
    cr_assert_eq (sslsim_world_time_ns (b), t);
    sslsim_world_free (a);
    sslsim_world_free (b);
}

/* A refused checkpoint's reason is in the answer (the world is unchanged,
   not "starting fresh" as the service's log would say). */
Test (sslsim, a_refused_checkpoint_says_why)
{
    char path[] = "/tmp/test_sslsim_XXXXXX";
    int fd = mkstemp (path);
    cr_assert_geq (fd, 0);
    cr_assert_eq (write (fd, "not a checkpoint", 16), 16);
    close (fd);
    sslsim_world_t *w = s_world (1);
    cr_assert_eq (sslsim_world_load (w, path), SSLSIM_ECONFIG);
    cr_expect (strstr (sslsim_world_last_error (w), "is refused: it is corrupt; the world is unchanged"),
               "%s", sslsim_world_last_error (w));
    /* a physics service's checkpoint: another run's key */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_def_t def;
    phys_world_def_from_config (&def, &cfg);
    char err[256];
    phys_world_t *phys = phys_world_new (&def, err, sizeof err);
    cr_assert_not_null (phys, "%s", err);
    cr_assert_eq (phys_checkpoint_save (path, "cfg-1234", phys, &cfg, 0), 0);
    phys_world_destroy (&phys);
    cr_assert_eq (sslsim_world_load (w, path), SSLSIM_ECONFIG);
    cr_expect (strstr (sslsim_world_last_error (w), "another run"), "%s", sslsim_world_last_error (w));
    cr_expect_eq (sslsim_world_time_ns (w), 0);
    unlink (path);
    sslsim_world_free (w);
}

Test (sslsim, bad_input_is_refused_with_a_reason)
{
    sslsim_world_t *w = s_world (1);
    cr_assert_eq (sslsim_world_step (w, 0.0105), SSLSIM_EINVAL);
    cr_assert (strstr (sslsim_world_last_error (w), "substeps") != NULL, "%s", sslsim_world_last_error (w));
    cr_assert_eq (sslsim_world_step (w, NAN), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_step (w, -0.016), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_step (w, 61.0), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_time_ns (w), 0, "a refused step moved time");
    /* the same rule asked without stepping */
    cr_expect_eq (sslsim_world_substeps (w, 0.016), 16);
    cr_expect_eq (sslsim_world_substeps (w, 0), 0);
    cr_expect_eq (sslsim_world_substeps (w, 0.0105), SSLSIM_EINVAL);
    cr_expect_eq (sslsim_world_substeps (NULL, 0.016), SSLSIM_EINVAL);

    sslsim_robot_command_t c = { .team = 0, .id = 1, .forward = NAN };
    cr_assert_eq (sslsim_world_robot_commands (w, &c, 1), SSLSIM_EINVAL);
    c.forward = INFINITY;
    cr_assert_eq (sslsim_world_robot_commands (w, &c, 1), SSLSIM_EINVAL);
    c = (sslsim_robot_command_t) { .team = 2, .id = 1 };
    cr_assert_eq (sslsim_world_robot_commands (w, &c, 1), SSLSIM_EINVAL);
    c = (sslsim_robot_command_t) { .team = 1, .id = 15, .forward = 1 };
    cr_assert_eq (sslsim_world_robot_commands (w, &c, 1), 1, "robot 15 is not on the field: one error");
    cr_assert (strstr (sslsim_world_error (w, 0), "UNKNOWN_ROBOT") != NULL, "%s", sslsim_world_error (w, 0));
    cr_assert_null (sslsim_world_error (w, 1));

    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
    for (int kind = 0; kind < 4; kind++)
        cr_assert_eq (sslsim_world_command (w, (sslsim_msg_t) kind, junk, sizeof junk), SSLSIM_EDECODE,
                      "kind %d took junk", kind);
    cr_assert_eq (sslsim_world_command (w, (sslsim_msg_t) 9, junk, 0), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_command (w, SSLSIM_MSG_SIMULATOR_COMMAND, NULL, 3), SSLSIM_EINVAL);
    cr_assert_eq (sslsim_world_command (w, SSLSIM_MSG_SIMULATOR_COMMAND, NULL, 0), 0, "an empty command");
    cr_assert_eq (sslsim_world_vision (w, 0, NULL, NULL), SSLSIM_EINVAL);

    char err[256] = "";
    const char *const bad[] = { "--realism", "no-such-preset", NULL };
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.args = bad;
    cr_assert_null (sslsim_world_new (&config, err, sizeof err));
    cr_assert_neq (err[0], '\0');
    config.args = NULL;
    config.ini = "[sim]\nsubstep = -1\n";
    cr_assert_null (sslsim_world_new (&config, err, sizeof err));
    cr_assert (strstr (err, "substep") != NULL, "%s", err);
    cr_assert_null (sslsim_batch_new (0, &config, 0, NULL, err, sizeof err));
    sslsim_world_free (w);
    sslsim_world_free (NULL);
    sslsim_batch_free (NULL);
}

/* NULL where a handle or buffer belongs is refused or ignored, never
   followed (docs/embedding.md: nothing you pass makes the library crash);
   under the sanitizers a followed NULL fails the test too. */
Test (sslsim, null_pointers_are_refused_or_ignored_never_followed)
{
    sslsim_world_t *w = s_world (1);
    sslsim_config_init (NULL);
    sslsim_world_truth (w, NULL);
    sslsim_truth_t t;
    memset (&t, 0xff, sizeof t);
    sslsim_world_truth (NULL, &t);
    cr_expect (t.robot_count == 0 && t.time_ns == 0, "a NULL world's truth is not empty");
    cr_expect_eq (sslsim_world_save (w, NULL), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_world_last_error (w), "no path"), "%s", sslsim_world_last_error (w));
    cr_expect_eq (sslsim_world_load (w, NULL), SSLSIM_EINVAL);
    cr_expect (strstr (sslsim_world_last_error (w), "no path"), "%s", sslsim_world_last_error (w));

    sslsim_config_t config;
    sslsim_config_init (&config);
    char err[256];
    sslsim_batch_t *b = sslsim_batch_new (2, &config, 1, NULL, err, sizeof err);
    cr_assert_not_null (b, "%s", err);
    sslsim_batch_truth (b, NULL);

    sslsim_limits_t lim;
    cr_assert_eq (sslsim_world_limits (w, &lim), SSLSIM_OK);
    int team = 0, id = 0;
    sslsim_obs_t *obs = sslsim_obs_new (SSLSIM_OBS_TRUTH, &team, &id, 1, 1, &lim, err, sizeof err);
    cr_assert_not_null (obs, "%s", err);
    float low[13];
    sslsim_obs_bounds (obs, NULL, NULL);
    sslsim_obs_bounds (obs, low, NULL);
    sslsim_obs_bounds (NULL, low, low);

    sslsim_task_t *task = sslsim_task_new ("dribble", 0, 0, 1, err, sizeof err); /* 2 floats of its own */
    cr_assert_not_null (task, "%s", err);
    sslsim_task_obs_bounds (task, &lim, NULL, NULL);
    cr_assert_eq (sslsim_task_reset (task, 0, w, 3), SSLSIM_OK);
    cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
    sslsim_task_evaluate (task, 0, w, NULL, NULL);
    float reward = 7;
    sslsim_task_evaluate (NULL, 0, w, &reward, NULL);
    cr_expect_eq (reward, 0.0f);

    sslsim_task_free (task);
    sslsim_obs_free (obs);
    sslsim_batch_free (b);
    sslsim_world_free (w);
}

/* A finite value beyond the float range is a command too large like any
   other, not a refused call: the same answer (UNSUPPORTED, beyond 1e6) and
   the same world as 1e7 gives, where the conversion to the RobotCommand's
   floats made it an infinity. NaN and the infinities are still refused. */
Test (sslsim, a_finite_command_beyond_the_float_range_is_too_large_not_refused)
{
    sslsim_world_t *w[2] = { s_world (1), s_world (1) };
    const double v[2] = { 1e300, 1e7 };
    uint64_t h[2];
    for (int i = 0; i < 2; i++) {
        sslsim_robot_command_t c = { .team = 0,
                                     .id = 0,
                                     .forward = v[i],
                                     .left = -v[i],
                                     .angular = v[i],
                                     .kick_speed = v[i],
                                     .kick_angle = -v[i],
                                     .dribbler_speed = v[i] };
        cr_assert_eq (sslsim_world_robot_commands (w[i], &c, 1), 1, "%s", sslsim_world_last_error (w[i]));
        cr_assert (strstr (sslsim_world_error (w[i], 0), "UNSUPPORTED") != NULL, "%s",
                   sslsim_world_error (w[i], 0));
        cr_assert_eq (sslsim_world_step (w[i], 0.016), SSLSIM_OK);
        h[i] = s_step_hash (0xcbf29ce484222325ull, w[i]);
    }
    cr_assert_eq (h[0], h[1], "1e300 and 1e7 gave different worlds");
    const double bad[3] = { NAN, INFINITY, -INFINITY };
    for (int i = 0; i < 3; i++) {
        sslsim_robot_command_t c = { .team = 0, .id = 0, .kick_angle = bad[i] };
        cr_assert_eq (sslsim_world_robot_commands (w[0], &c, 1), SSLSIM_EINVAL);
        cr_assert (strstr (sslsim_world_last_error (w[0]), "not finite") != NULL, "%s",
                   sslsim_world_last_error (w[0]));
    }
    sslsim_world_free (w[0]);
    sslsim_world_free (w[1]);
}

/* A SimulatorConfig applies through the service's code: realism "none"
   takes the noise out of the detections. */
Test (sslsim, simulator_config_changes_the_realism)
{
    sslsim_world_t *w = s_world (1);
    RealismConfig rc = REALISM_CONFIG__INIT;
    SimulatorConfig sc = SIMULATOR_CONFIG__INIT;
    sc.realism_config = &rc;
    uint8_t buf[256];
    size_t len = simulator_config__pack (&sc, buf);
    cr_assert_geq (sslsim_world_command (w, SSLSIM_MSG_SIMULATOR_CONFIG, buf, len), 0);
    cr_assert_eq (sslsim_world_step (w, 0.2), SSLSIM_OK);
    cr_assert_gt (sslsim_world_vision_count (w), 0);
    sslsim_detection_t d;
    cr_assert_eq (sslsim_world_detection (w, 0, &d), SSLSIM_OK);
    cr_assert_gt (d.robot_count, 0);
    cr_assert (d.camera_id == 0 || d.camera_id == 1);
    sslsim_world_free (w);
}

/* The truth record is the same whatever the caller's buffer held: the
   rows past the robot count and the padding read as zeros. */
Test (sslsim, truth_fills_the_whole_record)
{
    sslsim_world_t *w = s_world (2);
    cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
    sslsim_truth_t dirty, clean;
    memset (&dirty, 0xa5, sizeof dirty);
    memset (&clean, 0, sizeof clean);
    sslsim_world_truth (w, &dirty);
    sslsim_world_truth (w, &clean);
    cr_assert_eq (dirty.robot_count, 22);
    cr_assert (memcmp (&dirty, &clean, sizeof dirty) == 0);
    const sslsim_truth_robot_t zero = { 0 };
    cr_assert (memcmp (&dirty.robots[22], &zero, sizeof zero) == 0);
    cr_assert (memcmp (&dirty.robots[SSLSIM_MAX_ROBOTS - 1], &zero, sizeof zero) == 0);
    cr_assert_eq (dirty.pad_, 0);
    cr_assert_eq (dirty.robots[0].pad_, 0);
    sslsim_world_free (w);
}

/* Decoded detections are the truth within the realistic noise (vision.md:
   a few mm). */
Test (sslsim, detections_decode_what_the_bytes_say)
{
    sslsim_world_t *w = s_world (2);
    cr_assert_eq (sslsim_world_step (w, 0.5), SSLSIM_OK);
    sslsim_truth_t t;
    sslsim_world_truth (w, &t);
    int matched = 0;
    for (int i = 0; i < sslsim_world_vision_count (w); i++) {
        sslsim_detection_t d;
        cr_assert_eq (sslsim_world_detection (w, i, &d), SSLSIM_OK);
        for (int r = 0; r < d.robot_count; r++)
            for (int k = 0; k < t.robot_count; k++)
                if (t.robots[k].team == d.robots[r].team && t.robots[k].id == d.robots[r].id) {
                    /* at rest in formation: what was captured is where it is */
                    cr_assert_lt (fabs (t.robots[k].x - d.robots[r].x), 0.05, "robot %d", d.robots[r].id);
                    cr_assert_lt (fabs (t.robots[k].y - d.robots[r].y), 0.05);
                    matched++;
                }
    }
    cr_assert_gt (matched, 22);
    sslsim_world_free (w);
}
