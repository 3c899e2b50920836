/*  test_phys_journal.c - the physics input journal (services/physics/
    phys_journal.c, docs/journal.md): a run with inputs at several
    substeps, checkpointed midway and journaled, replayed from the
    checkpoint into a second world ends with the same world bytes, state
    hash and configuration; a crash between a checkpoint and its new
    journal, a torn or damaged tail, another run's journal and a journal
    that does not follow the checkpoint are each handled without harm; a
    replay never ends before a substep that was promised.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "engine/world/phys_checkpoint.h"
#include "engine/world/phys_journal.h"
#include "tests/support/sim_from_config.h"
#include "tests/support/sim_msg.h"

#define S_KEY        "run-journal-test"
#define S_SUBSTEPS   3000 /* substeps of a run */
#define S_CHECKPOINT 1500 /* the midway checkpoint */

typedef struct {
    char dir[64];
    char ck[128];
    char journal[128];
} jl_dir_t;

static void
s_dir (jl_dir_t *d)
{
    snprintf (d->dir, sizeof d->dir, "/tmp/ssl-sim-jl-XXXXXX");
    cr_assert_not_null (mkdtemp (d->dir));
    snprintf (d->ck, sizeof d->ck, "%s/physics.checkpoint", d->dir);
    snprintf (d->journal, sizeof d->journal, "%s/physics.journal", d->dir);
}

static void
s_dir_remove (jl_dir_t *d)
{
    char tmp[160];
    unlink (d->ck);
    unlink (d->journal);
    snprintf (tmp, sizeof tmp, "%s.tmp", d->journal);
    unlink (tmp);
    rmdir (d->dir);
}

/* A run as the physics service makes it: a world, its configuration and
   the journal beside the checkpoint. */
typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    phys_journal_t *journal;
    phys_journal_result_t result;
    int inputs; /* applied */
} run_t;

static run_t *
s_run_new (const jl_dir_t *d)
{
    run_t *r = calloc (1, sizeof *r);
    cr_assert_not_null (r);
    sim_config_defaults (&r->cfg);
    r->cfg.sim.seed = 11;
    r->world = sim_fc_world_new (&r->cfg);
    cr_assert_not_null (r->world);
    r->journal = phys_journal_new (d->journal, S_KEY, 0);
    cr_assert_not_null (r->journal);
    return r;
}

static void
s_run_destroy (run_t **r)
{
    phys_world_destroy (&(*r)->world);
    phys_journal_destroy (&(*r)->journal);
    free (*r);
    *r = NULL;
}

/* One substep, as s_substep does it: the mark before anything is seen. */
static void
s_step (run_t *r)
{
    phys_world_step (r->world);
    cr_assert_eq (phys_journal_reached (r->journal, r->world), 0);
}

/* A checkpoint and, unless `crash`, the new journal after it. */
static void
s_checkpoint (run_t *r, const jl_dir_t *d, bool crash)
{
    phys_checkpoint_meta_t meta = { .serial = 1, .journal_seq = phys_journal_seq (r->journal) };
    cr_assert_eq (phys_checkpoint_write (d->ck, S_KEY, r->world, &r->cfg, &meta), 0);
    if (!crash)
        cr_assert_eq (phys_journal_start (r->journal, meta.journal_seq, r->world), 0);
}

/* Journal and apply one Request, then run its substeps. */
static void
s_input (run_t *r, Simbus__Request *req)
{
    cr_assert_eq (phys_journal_input (r->journal, r->world, req), 0);
    phys_journal_apply (r->world, &r->cfg, req, &r->result);
    for (uint64_t i = 0; req->has_substeps && i < req->substeps; i++)
        s_step (r);
    r->inputs++;
}

/* The scenario: inputs at these substeps (two at 10; one right before
   and one right after the checkpoint, at the same substep), in order. */
#define S_CK -1
static const int s_at[] = { 10, 10, 400, 900, 1499, 1500, S_CK, 1500, 2000, 2400, 2999 };
#define S_STEPS_AT (sizeof s_at / sizeof s_at[0])

/* Input number i (one of five kinds). */
static void
s_input_number (run_t *r, int i)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = (uint64_t) i + 1;
    sim_msg_robot_tp_t tp;
    sim_msg_ball_tp_t ball;
    sim_msg_specs_t specs;
    sim_msg_robot_cmd_t cmd;
    Simbus__TeamControl tc = SIMBUS__TEAM_CONTROL__INIT;
    switch (i % 5) {
    case 0: /* a teleport */
        req.simulator_command = sim_msg_robot_tp (&tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&tp.tr, -1.0 + 0.1 * (double) i, 0.5);
        break;
    case 1: /* a drive with a kick, for the other team */
        tc.team = 1;
        tc.control = sim_msg_robot_cmd (&cmd, 2);
        sim_msg_global (&cmd, 1.2, -0.4, 2.0);
        cmd.cmd.has_kick_speed = true;
        cmd.cmd.kick_speed = 3.0f;
        req.team_control = &tc;
        break;
    case 2: /* a configuration change: blue 1's mass */
        req.simulator_command = sim_msg_specs (&specs, SIM_MSG_BLUE, 1);
        specs.spec.has_mass = true;
        specs.spec.mass = 2.5f + 0.1f * (float) i;
        break;
    case 3: /* a ball teleport with velocity, in a sync step */
        req.simulator_command = sim_msg_ball_tp (&ball);
        ball.tb.has_x = ball.tb.has_y = ball.tb.has_vx = true;
        ball.tb.x = 0.3f;
        ball.tb.y = -0.2f;
        ball.tb.vx = 2.0f;
        req.has_substeps = true;
        req.substeps = 16;
        break;
    default: /* an input with an error: an unknown robot */
        tc.team = 0;
        tc.control = sim_msg_robot_cmd (&cmd, 200);
        sim_msg_local (&cmd, 1.0, 0.0, 0.0);
        req.team_control = &tc;
        break;
    }
    s_input (r, &req);
}

/* The scenario up to substep `until`; with `crash`, a crash comes right
   after writing the checkpoint (nothing else happens). */
static void
s_scenario (run_t *r, const jl_dir_t *d, uint64_t until, bool crash)
{
    cr_assert_eq (phys_journal_start (r->journal, 0, r->world), 0);
    s_checkpoint (r, d, false);
    size_t next = 0;
    int ck_at = 0;
    while (phys_world_frame (r->world) < until) {
        uint64_t now = phys_world_frame (r->world);
        for (; next < S_STEPS_AT && (s_at[next] == S_CK ? ck_at : s_at[next]) <= (int) now; next++) {
            if (s_at[next] != S_CK) {
                s_input_number (r, r->inputs);
                ck_at = s_at[next];
                continue;
            }
            s_checkpoint (r, d, crash);
            if (crash)
                return;
        }
        s_step (r);
    }
}

/* A fresh directory with a run recorded in it up to `until`. */
static run_t *
s_recorded (jl_dir_t *d, uint64_t until, bool crash)
{
    s_dir (d);
    run_t *r = s_run_new (d);
    s_scenario (r, d, until, crash);
    return r;
}

/* The checkpoint loaded and the journal replayed into a new world. */
static phys_world_t *
s_restart (const jl_dir_t *d, sim_config_t *cfg, phys_journal_replay_t *rep, int *rc)
{
    phys_checkpoint_meta_t meta;
    phys_world_t *w = phys_checkpoint_read (d->ck, S_KEY, cfg, &meta);
    cr_assert_not_null (w);
    static phys_journal_result_t scratch;
    *rc = phys_journal_replay (d->journal, S_KEY, w, cfg, meta.journal_seq, &scratch, rep);
    return w;
}

/* Run `a` on without inputs to b's substep, then compare the two worlds
   byte for byte (the checkpoint image), by the golden state hash of
   test_phys_determinism.c, and their configurations. */
static void
s_expect_same (run_t *a, phys_world_t *b, const sim_config_t *bcfg)
{
    cr_assert_geq (phys_world_frame (b), phys_world_frame (a->world), "the replay ended before the run");
    while (phys_world_frame (a->world) < phys_world_frame (b))
        s_step (a);
    size_t len = phys_world_image_size ();
    unsigned char *ia = malloc (len), *ib = malloc (len);
    cr_assert (ia && ib);
    phys_world_save (a->world, ia);
    phys_world_save (b, ib);
    cr_expect_eq (memcmp (ia, ib, len), 0, "world bytes differ after the replay");
    cr_expect_eq (phys_world_hash (a->world), phys_world_hash (b));
    free (ia);
    free (ib);
    char *ca = sim_config_dump (&a->cfg, false), *cb = sim_config_dump (bcfg, false);
    cr_assert (ca && cb);
    cr_expect_str_eq (ca, cb, "the configuration differs after the replay");
    free (ca);
    free (cb);
}

Test (phys_journal, replay_reaches_the_same_world_bytes)
{
    jl_dir_t d;
    run_t *a = s_recorded (&d, S_SUBSTEPS, false);
    uint64_t end = phys_world_frame (a->world);
    cr_assert_eq (end, S_SUBSTEPS);

    sim_config_t cfg;
    phys_journal_replay_t rep;
    int rc;
    phys_world_t *b = s_restart (&d, &cfg, &rep, &rc);
    cr_expect_eq (rc, 0);
    cr_expect (rep.complete);
    cr_expect_eq (rep.skipped, 0);
    cr_expect_eq (rep.inputs, 4, "the inputs after the checkpoint, the one at its substep included");
    cr_expect_eq (rep.seq, (uint64_t) a->inputs);
    cr_expect_eq (rep.config_changes, 1);
    /* the last mark: published sim time never goes back */
    cr_expect_geq (phys_world_frame (b), end);
    cr_expect_leq (phys_world_frame (b), end + PHYS_JOURNAL_LEAD_NS / phys_world_dt_ns (b));
    s_expect_same (a, b, &cfg);
    phys_world_destroy (&b);
    s_run_destroy (&a);
    s_dir_remove (&d);
}

/* Killed between writing a checkpoint and starting its journal: the old
   journal's inputs are all in the checkpoint and are skipped. */
Test (phys_journal, crash_between_checkpoint_and_new_journal)
{
    jl_dir_t d;
    run_t *a = s_recorded (&d, S_SUBSTEPS, true);
    sim_config_t cfg;
    phys_journal_replay_t rep;
    int rc;
    phys_world_t *b = s_restart (&d, &cfg, &rep, &rc);
    cr_expect_eq (rc, 0);
    cr_expect_eq (rep.inputs, 0);
    cr_expect_eq (rep.skipped, (uint64_t) a->inputs);
    s_expect_same (a, b, &cfg);
    phys_world_destroy (&b);
    s_run_destroy (&a);
    s_dir_remove (&d);
}

static long
s_file_size (const char *path)
{
    FILE *f = fopen (path, "rb");
    cr_assert_not_null (f);
    fseek (f, 0, SEEK_END);
    long n = ftell (f);
    fclose (f);
    return n;
}

/* The journal in d replayed: the last input lost, the rest as in `ref`
   (the same run without it). */
static void
s_expect_torn (const jl_dir_t *d, run_t *ref)
{
    sim_config_t cfg;
    phys_journal_replay_t rep;
    int rc;
    phys_world_t *b = s_restart (d, &cfg, &rep, &rc);
    cr_expect_eq (rc, 0);
    cr_expect_not (rep.complete);
    cr_expect_eq (rep.inputs, 3);
    s_expect_same (ref, b, &cfg);
    phys_world_destroy (&b);
}

/* A tail cut in the middle of the last record (a write that did not
   finish) loses that input only; garbage after the last record loses
   nothing; a flipped byte stops the replay before its record. None is
   an error: each is what a crash in a write could leave. */
Test (phys_journal, torn_or_damaged_tail)
{
    jl_dir_t d, d2;
    run_t *a = s_recorded (&d, 2999, false); /* up to the last input but one */
    run_t *ref = s_recorded (&d2, 2999, false);
    /* the last input, then cut */
    long before = s_file_size (d.journal);
    s_input_number (a, a->inputs);
    long after = s_file_size (d.journal);
    cr_assert_gt (after, before);
    cr_assert_eq (truncate (d.journal, after - 3), 0);

    s_expect_torn (&d, ref);

    /* garbage after whole records */
    cr_assert_eq (truncate (d.journal, before), 0);
    FILE *f = fopen (d.journal, "ab");
    cr_assert_not_null (f);
    fputs ("\x30 not a record at all, just bytes", f);
    fclose (f);
    s_expect_torn (&d, ref);

    /* the whole last input again, with a byte of its payload flipped */
    cr_assert_eq (truncate (d.journal, before), 0);
    s_run_destroy (&a);
    a = s_run_new (&d);
    s_scenario (a, &d, S_SUBSTEPS, false);
    f = fopen (d.journal, "r+b");
    cr_assert_not_null (f);
    fseek (f, before + 45, SEEK_SET);
    int c = fgetc (f);
    fseek (f, before + 45, SEEK_SET);
    fputc (c ^ 0x40, f);
    fclose (f);
    s_expect_torn (&d, ref);
    s_run_destroy (&ref);
    s_run_destroy (&a);
    s_dir_remove (&d2);
    s_dir_remove (&d);
}

/* Another run's journal, or one that starts after the checkpoint, leaves
   the checkpoint's world as it was. */
Test (phys_journal, foreign_journal_changes_nothing)
{
    jl_dir_t d;
    run_t *a = s_recorded (&d, S_SUBSTEPS, false);
    sim_config_t cfg;
    phys_checkpoint_meta_t meta;
    phys_world_t *w = phys_checkpoint_read (d.ck, S_KEY, &cfg, &meta);
    cr_assert_not_null (w);
    uint64_t hash = phys_world_hash (w);
    static phys_journal_result_t scratch;
    phys_journal_replay_t rep;
    cr_expect_eq (phys_journal_replay (d.journal, "run-other", w, &cfg, meta.journal_seq, &scratch, &rep), 0);
    cr_expect_eq (rep.inputs, 0);
    cr_expect_eq (phys_world_hash (w), hash);
    /* a checkpoint older than the journal's */
    cr_expect_eq (phys_journal_replay (d.journal, S_KEY, w, &cfg, meta.journal_seq - 1, &scratch, &rep), 0);
    cr_expect_eq (rep.inputs, 0);
    cr_expect_not (rep.complete);
    cr_expect_eq (phys_world_hash (w), hash);
    /* no journal at all */
    unlink (d.journal);
    cr_expect_eq (phys_journal_replay (d.journal, S_KEY, w, &cfg, meta.journal_seq, &scratch, &rep), 0);
    cr_expect (rep.complete);
    cr_expect_eq (phys_world_hash (w), hash);
    phys_world_destroy (&w);
    s_run_destroy (&a);
    s_dir_remove (&d);
}

/* The last input (its Request's id in wall_us, the payload being
   borrowed) and the furthest mark. */
static bool
s_collect (void *arg, const phys_journal_record_t *rec)
{
    phys_journal_record_t *last = arg;
    if (rec->kind == PHYS_JOURNAL_MARK && rec->frame > last[1].frame)
        last[1] = *rec;
    if (rec->kind == PHYS_JOURNAL_INPUT) {
        cr_expect_gt (rec->wall_us, 0);
        last[0] = *rec;
        Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
        cr_assert_not_null (req, "an input is a packed Simbus.Request");
        last[0].wall_us = (int64_t) req->id;
        last[0].payload = NULL;
        simbus__request__free_unpacked (req, NULL);
    }
    return true;
}

/* What tools read: a header after the checkpoint, inputs in order with
   their substeps and times, marks ahead of every substep run. */
Test (phys_journal, records_as_documented)
{
    jl_dir_t d;
    run_t *a = s_recorded (&d, S_SUBSTEPS, false);
    phys_journal_header_t h;
    phys_journal_record_t last[2];
    memset (last, 0, sizeof last);
    cr_expect_gt (phys_journal_read (d.journal, S_KEY, &h, s_collect, last), 5);
    cr_expect_eq (h.base_frame, S_CHECKPOINT);
    cr_expect_eq (h.base_seq, 6);
    cr_expect_eq (h.substep_ns, phys_world_dt_ns (a->world));
    cr_expect_not (h.torn);
    cr_expect_eq (last[0].seq, 9);
    cr_expect_eq (last[0].frame, 2999);
    cr_expect_eq (last[0].time_ns, 2999 * phys_world_dt_ns (a->world));
    cr_expect_eq (last[0].wall_us, 10, "the last input's request id");
    cr_expect_geq (last[1].frame, S_SUBSTEPS);
    cr_expect_eq (phys_journal_read (d.journal, "run-other", &h, s_collect, last), -1);
    s_run_destroy (&a);
    s_dir_remove (&d);
}
