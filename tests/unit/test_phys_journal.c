/*  test_phys_journal.c - the physics input journal (engine/world/
    phys_journal.c, docs/journal.md): a run with inputs at several
    substeps, checkpointed midway and journaled, replayed from the
    checkpoint into a second world ends with the same world bytes, state
    hash and configuration; a crash between a checkpoint and its new
    journal, a torn or damaged tail, another run's journal and a journal
    that does not follow the checkpoint are each handled without harm; a
    replay never ends before a substep that was promised; an input that
    came packed is journaled from its bytes, as packing it would.
*/
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
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

/* A request and the messages it points into. */
typedef struct {
    Simbus__Request req;
    sim_msg_robot_tp_t tp;
    sim_msg_ball_tp_t ball;
    sim_msg_specs_t specs;
    sim_msg_robot_cmd_t cmd;
    Simbus__TeamControl tc;
} s_req_t;

/* Request number i (one of five kinds), built in *m. */
static Simbus__Request *
s_request_number (s_req_t *m, int i)
{
    Simbus__Request *req = &m->req;
    *req = (Simbus__Request) SIMBUS__REQUEST__INIT;
    req->id = (uint64_t) i + 1;
    m->tc = (Simbus__TeamControl) SIMBUS__TEAM_CONTROL__INIT;
    switch (i % 5) {
    case 0: /* a teleport */
        req->simulator_command = sim_msg_robot_tp (&m->tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&m->tp.tr, -1.0 + 0.1 * (double) i, 0.5);
        break;
    case 1: /* a drive with a kick, for the other team */
        m->tc.team = 1;
        m->tc.control = sim_msg_robot_cmd (&m->cmd, 2);
        sim_msg_global (&m->cmd, 1.2, -0.4, 2.0);
        m->cmd.cmd.has_kick_speed = true;
        m->cmd.cmd.kick_speed = 3.0f;
        req->team_control = &m->tc;
        break;
    case 2: /* a configuration change: blue 1's mass */
        req->simulator_command = sim_msg_specs (&m->specs, SIM_MSG_BLUE, 1);
        m->specs.spec.has_mass = true;
        m->specs.spec.mass = 2.5f + 0.1f * (float) i;
        break;
    case 3: /* a ball teleport with velocity, in a sync step */
        req->simulator_command = sim_msg_ball_tp (&m->ball);
        m->ball.tb.has_x = m->ball.tb.has_y = m->ball.tb.has_vx = true;
        m->ball.tb.x = 0.3f;
        m->ball.tb.y = -0.2f;
        m->ball.tb.vx = 2.0f;
        req->has_substeps = true;
        req->substeps = 16;
        break;
    default: /* an input with an error: an unknown robot */
        m->tc.team = 0;
        m->tc.control = sim_msg_robot_cmd (&m->cmd, 200);
        sim_msg_local (&m->cmd, 1.0, 0.0, 0.0);
        req->team_control = &m->tc;
        break;
    }
    return req;
}

/* Journal, apply and run input number i. */
static void
s_input_number (run_t *r, int i)
{
    s_req_t m;
    s_input (r, s_request_number (&m, i));
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
    phys_checkpoint_meta_t meta = { .once_ids = NULL };
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
    phys_checkpoint_meta_t meta = { .once_ids = NULL };
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

/* A header of this version whose key length (bytes 12-15) is past the
   4096-byte limit is damage, and is said to be: the reader named it a
   journal "of version 1, not 1" (docs/journal.md, "File format"). */
Test (phys_journal, a_key_length_beyond_the_limit_is_a_damaged_header, .init = cr_redirect_stderr)
{
    jl_dir_t d;
    s_dir (&d);
    run_t *a = s_run_new (&d);
    cr_assert_eq (phys_journal_start (a->journal, 0, a->world), 0);
    FILE *f = fopen (d.journal, "r+b");
    cr_assert_not_null (f);
    cr_assert_eq (fseek (f, 12, SEEK_SET), 0);
    cr_assert_eq (fwrite ("\xff\xff\xff\xff", 1, 4, f), 4);
    fclose (f);
    sim_log_set_level (SIM_LOG_INFO);
    phys_journal_header_t h = { .version = 0 };
    cr_expect_eq (phys_journal_read (d.journal, NULL, &h, s_collect, NULL), -1);
    cr_expect_eq (h.version, PHYS_JOURNAL_VERSION, "the version read is given to the caller as it is");
    fflush (stderr);
    char text[2048];
    size_t len = fread (text, 1, sizeof text - 1, cr_get_redirected_stderr ());
    text[len] = '\0';
    cr_expect (strstr (text, "damaged header") && strstr (text, "key length 4294967295"), "%s", text);
    cr_expect_null (strstr (text, "version"), "%s", text);
    s_run_destroy (&a);
    s_dir_remove (&d);
}

/* Every input's payload, in order (copies). */
typedef struct {
    uint8_t *payload[16];
    size_t len[16];
    int count;
} s_payloads_t;

static bool
s_collect_payloads (void *arg, const phys_journal_record_t *rec)
{
    s_payloads_t *p = arg;
    if (rec->kind != PHYS_JOURNAL_INPUT)
        return true;
    cr_assert_lt (p->count, 16);
    p->payload[p->count] = malloc (rec->payload_len + 1);
    cr_assert_not_null (p->payload[p->count]);
    memcpy (p->payload[p->count], rec->payload, rec->payload_len);
    p->len[p->count++] = rec->payload_len;
    return true;
}

static void
s_payloads_read (const char *path, s_payloads_t *p)
{
    phys_journal_header_t h;
    memset (p, 0, sizeof *p);
    cr_assert_geq (phys_journal_read (path, S_KEY, &h, s_collect_payloads, p), 0);
}

/* A request that came packed (the link's bytes, sim_link_received) is
   journaled from those bytes, not packed again, and the record is the one
   packing the decoded request writes: without the wall-clock receive time
   and the fields physics does not know, the sender's address kept. Bytes
   that do not hold one request, or none, fall back to packing. */
Test (phys_journal, an_input_from_the_bytes_it_came_in_is_the_packed_record)
{
    jl_dir_t d;
    s_dir (&d);
    char packed_path[160];
    snprintf (packed_path, sizeof packed_path, "%s.packed", d.journal);
    run_t *r = s_run_new (&d);
    phys_journal_t *packed = phys_journal_new (packed_path, S_KEY, 0);
    cr_assert_not_null (packed);
    cr_assert_eq (phys_journal_start (r->journal, 0, r->world), 0);
    cr_assert_eq (phys_journal_start (packed, 0, r->world), 0);
    uint8_t unknown_value[] = { 0x2a };
    ProtobufCMessageUnknownField unknown = { 99, PROTOBUF_C_WIRE_TYPE_VARINT, 1, unknown_value };
    char source[] = "blue port, 127.0.0.1:40001";
    const int inputs = 12;
    for (int i = 0; i < inputs; i++) {
        s_req_t m;
        Simbus__Request *req = s_request_number (&m, i);
        req->has_received_us = i % 2 == 0;
        req->received_us = 1700000000000000 + i;
        req->source = i % 3 == 0 ? source : NULL;
        if (i % 4 == 1) {
            req->base.n_unknown_fields = 1;
            req->base.unknown_fields = &unknown;
        }
        Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
        env.version = 1;
        env.body_case = SIMBUS__ENVELOPE__BODY_REQUEST;
        env.request = req;
        size_t len = simbus__envelope__get_packed_size (&env);
        uint8_t *wire = malloc (len);
        cr_assert_not_null (wire);
        simbus__envelope__pack (&env, wire);
        Simbus__Envelope *got = simbus__envelope__unpack (NULL, len, wire);
        cr_assert (got && got->request);
        /* the last two: no bytes, and bytes cut short */
        size_t given = i == inputs - 1 ? len - 3 : len;
        cr_assert_eq (phys_journal_input_wire (r->journal, r->world, got->request,
                                               i == inputs - 2 ? NULL : wire, given),
                      0);
        cr_assert_eq (phys_journal_input (packed, r->world, got->request), 0);
        simbus__envelope__free_unpacked (got, NULL);
        free (wire);
    }
    s_payloads_t a, b;
    s_payloads_read (d.journal, &a);
    s_payloads_read (packed_path, &b);
    cr_assert_eq (a.count, inputs);
    cr_assert_eq (b.count, inputs);
    for (int i = 0; i < inputs; i++) {
        cr_expect (a.len[i] == b.len[i] && memcmp (a.payload[i], b.payload[i], a.len[i]) == 0,
                   "input %d: %zu bytes cut from the wire, %zu packed again", i, a.len[i], b.len[i]);
        Simbus__Request *req = simbus__request__unpack (NULL, a.len[i], a.payload[i]);
        cr_assert_not_null (req);
        cr_expect_eq (req->id, (uint64_t) i + 1);
        cr_expect_not (req->has_received_us, "input %d: no wall time on file", i);
        cr_expect_eq (req->base.n_unknown_fields, 0, "input %d: no unknown field on file", i);
        cr_expect_eq (req->source != NULL, i % 3 == 0, "input %d: the sender's address kept", i);
        simbus__request__free_unpacked (req, NULL);
        free (a.payload[i]);
        free (b.payload[i]);
    }
    phys_journal_destroy (&packed);
    unlink (packed_path);
    s_run_destroy (&r);
    s_dir_remove (&d);
}

/* The record is cut from the bytes, not packed again: a sender that
   orders its fields otherwise than protobuf-c keeps its order on file. */
Test (phys_journal, an_input_keeps_the_order_its_sender_packed)
{
    jl_dir_t d;
    s_dir (&d);
    run_t *r = s_run_new (&d);
    cr_assert_eq (phys_journal_start (r->journal, 0, r->world), 0);
    /* Request: source "x" (7), received_us 5 (40, zigzag), id 77 (1) */
    const uint8_t request[] = { 0x3a, 0x01, 'x', 0xc0, 0x02, 0x0a, 0x08, 0x4d };
    uint8_t wire[4 + sizeof request] = { 0x08, 0x01, 0x4a, (uint8_t) sizeof request };
    memcpy (wire + 4, request, sizeof request);
    Simbus__Envelope *got = simbus__envelope__unpack (NULL, sizeof wire, wire);
    cr_assert (got && got->request && got->request->id == 77 && got->request->received_us == 5);
    cr_assert_eq (phys_journal_input_wire (r->journal, r->world, got->request, wire, sizeof wire), 0);
    simbus__envelope__free_unpacked (got, NULL);
    s_payloads_t a;
    s_payloads_read (d.journal, &a);
    const uint8_t kept[] = { 0x3a, 0x01, 'x', 0x08, 0x4d };
    cr_assert_eq (a.count, 1);
    cr_expect (a.len[0] == sizeof kept && memcmp (a.payload[0], kept, sizeof kept) == 0,
               "the sender's order without received_us (%zu bytes)", a.len[0]);
    free (a.payload[0]);
    s_run_destroy (&r);
    s_dir_remove (&d);
}
