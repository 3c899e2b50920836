/*  test_phys_replay.c - a --journal file as a replay script (services/
    physics/phys_replay.c, the CONFIG and SOURCE notes and reopen of
    phys_journal.c): a run journaled from its first substep with its
    configuration, sources and inputs (a sync step among them) is read
    back as written; a world driven by the script (inputs applied at their
    substeps with phys_journal_apply, as physics does) ends in the same
    state as the run; the restart replay passes over the notes; a file
    continued after a restart reads as one; a journal without a
    configuration, or with a damaged tail, is refused or cut cleanly.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_replay.h"
#include "engine/world/phys_seek.h"
#include "tests/support/sim_from_config.h"
#include "tests/support/sim_msg.h"

#define S_END 1200 /* substeps of the run */

static const int s_at[] = { 0, 0, 150, 151, 600, 1000 };
#define S_INPUTS (sizeof s_at / sizeof s_at[0])

typedef struct {
    char dir[64], path[128];
} s_tmp_t;

static void
s_tmp (s_tmp_t *t)
{
    snprintf (t->dir, sizeof t->dir, "/tmp/ssl-sim-replay-XXXXXX");
    cr_assert_not_null (mkdtemp (t->dir));
    snprintf (t->path, sizeof t->path, "%s/run.journal", t->dir);
}

static void
s_tmp_done (s_tmp_t *t)
{
    char tmp[160];
    snprintf (tmp, sizeof tmp, "%s.tmp", t->path);
    unlink (tmp);
    unlink (t->path);
    rmdir (t->dir);
}

/* Input i: teleports, a robot command and a sync step. */
static void
s_make (int i, Simbus__Request *req, sim_msg_robot_tp_t *tp, sim_msg_robot_cmd_t *cmd,
        Simbus__TeamControl *tc)
{
    simbus__request__init (req);
    simbus__team_control__init (tc);
    req->id = (uint64_t) i + 1;
    if (i % 3 == 0) {
        req->simulator_command = sim_msg_robot_tp (tp, SIM_MSG_BLUE, 0);
        sim_msg_robot_xy (&tp->tr, -1.0 + 0.3 * i, 0.2);
    } else {
        tc->team = (uint32_t) (i % 2);
        tc->control = sim_msg_robot_cmd (cmd, 1);
        sim_msg_local (cmd, 0.8, -0.2, 1.5);
        req->team_control = tc;
    }
    if (i == 3) {
        req->has_substeps = true;
        req->substeps = 40;
        req->has_step_id = true;
        req->step_id = 7;
    }
}

/* What physics does for a --journal file continued at input `next` when
   the restart journal at `from` is at input `until`: each input the file
   lacks, with its source noted first, copied in order. */
typedef struct {
    phys_journal_t *to;
    const phys_world_t *world;
    uint64_t next, until;
} s_catch_up_t;

static bool
s_catch_up_one (void *arg, const phys_journal_record_t *rec)
{
    s_catch_up_t *c = arg;
    if (rec->kind != PHYS_JOURNAL_INPUT || rec->seq < c->next || rec->seq >= c->until)
        return true;
    cr_assert_eq (rec->seq, c->next);
    Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
    cr_assert_not_null (req);
    const char *source = req->simulator_command ? "control by lane" : "blue team by lane";
    simbus__request__free_unpacked (req, NULL);
    cr_assert_eq (phys_journal_note (c->to, c->world, PHYS_JOURNAL_SOURCE, source, strlen (source)), 0);
    cr_assert_eq (phys_journal_copy_input (c->to, rec), 0);
    c->next++;
    return true;
}

static void
s_catch_up (phys_journal_t *to, const phys_world_t *world, const char *from, uint64_t next, uint64_t until)
{
    s_catch_up_t c = { to, world, next, until };
    phys_journal_header_t header;
    cr_assert_geq (phys_journal_read (from, PHYS_REPLAY_KEY, &header, s_catch_up_one, &c), 0);
    cr_assert_eq (c.next, until, "the restart journal lacks inputs %llu to %llu", (unsigned long long) c.next,
                  (unsigned long long) until);
}

/* How the run's physics lives: one process; restarted at S_END / 2; or
   killed there between journaling its input of that substep in the restart
   journal and in the file, in the middle of a write to the file (a torn
   record at its end), and restarted. */
typedef enum { S_ONE_PROCESS, S_RESTART, S_KILLED_BETWEEN } s_life_t;

/* The run as physics journals it (in the file at path and, as the
   restart journal, beside it); returns the world's final hash. */
static uint64_t
s_record (const char *path, sim_config_t *cfg, s_life_t life)
{
    bool restart_midway = life != S_ONE_PROCESS;
    char restart_path[160];
    snprintf (restart_path, sizeof restart_path, "%s.restart", path);
    phys_journal_t *rj = phys_journal_new (restart_path, PHYS_REPLAY_KEY, 0);
    sim_config_defaults (cfg);
    cfg->sim.seed = 99;
    phys_world_t *world = sim_fc_world_new (cfg);
    cr_assert_not_null (world);
    phys_journal_t *j = phys_journal_new (path, PHYS_REPLAY_KEY, 0);
    cr_assert_eq (phys_journal_start (j, 0, world), 0);
    cr_assert_eq (phys_journal_start (rj, 0, world), 0);
    char *ini = sim_config_dump (cfg, false);
    cr_assert_eq (phys_journal_note (j, world, PHYS_JOURNAL_CONFIG, ini, strlen (ini)), 0);
    free (ini);
    phys_journal_result_t *result = malloc (sizeof *result);
    size_t next = 0;
    while (phys_world_frame (world) < S_END) {
        while (next < S_INPUTS && (uint64_t) s_at[next] == phys_world_frame (world)) {
            Simbus__Request req;
            sim_msg_robot_tp_t tp;
            sim_msg_robot_cmd_t cmd;
            Simbus__TeamControl tc;
            s_make ((int) next, &req, &tp, &cmd, &tc);
            const char *source = next % 3 == 0 ? "control by lane" : "blue team by lane";
            cr_assert_eq (phys_journal_input (rj, world, &req), 0);
            bool killed = life == S_KILLED_BETWEEN && phys_world_frame (world) == S_END / 2;
            if (killed) {
                /* the file gets only the start of the input's record */
                int fd = open (path, O_WRONLY | O_APPEND);
                cr_assert_eq (write (fd, "\x70\x00\x00\x00\x01\x00", 6), 6);
                close (fd);
            } else {
                cr_assert_eq (phys_journal_note (j, world, PHYS_JOURNAL_SOURCE, source, strlen (source)), 0);
                cr_assert_eq (phys_journal_input (j, world, &req), 0);
            }
            phys_journal_apply (world, cfg, &req, result);
            for (uint64_t k = 0; req.has_substeps && k < req.substeps; k++) {
                phys_world_step (world);
                phys_journal_reached (j, world);
            }
            next++;
        }
        if (restart_midway && phys_world_frame (world) == S_END / 2) {
            /* a restarted physics continues the same file, numbering
               its inputs after the restart journal's */
            uint64_t seq = phys_journal_seq (rj);
            phys_journal_destroy (&j);
            j = phys_journal_new (path, PHYS_REPLAY_KEY, seq);
            uint64_t file_next;
            cr_assert_eq (phys_journal_reopen (j, world, &file_next), 0);
            cr_expect_eq (file_next, life == S_KILLED_BETWEEN ? seq - 1 : seq, "the file's next input");
            s_catch_up (j, world, restart_path, file_next, seq);
        }
        phys_world_step (world);
        phys_journal_reached (j, world);
    }
    uint64_t hash = phys_world_hash (world);
    free (result);
    phys_journal_destroy (&j);
    phys_journal_destroy (&rj);
    unlink (restart_path);
    phys_world_destroy (&world);
    return hash;
}

/* A fresh world of the script's configuration, driven by the script to
   substep `end`, the inputs pinned to `end` left. */
static uint64_t
s_play_to (const phys_replay_t *script, uint64_t end)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    cr_assert_eq (sim_config_load_string (&cfg, phys_replay_config (script), "journal", err, sizeof err), 0,
                  "%s", err);
    cr_expect_eq (cfg.sim.seed, 99, "the seed comes with the configuration");
    phys_world_t *world = sim_fc_world_new (&cfg);
    phys_journal_result_t *result = malloc (sizeof *result);
    size_t next = 0;
    /* to S_END, where the run stopped (the script goes on to its last mark) */
    while (phys_world_frame (world) < end) {
        uint64_t at;
        const Simbus__Request *req;
        while ((req = phys_replay_input (script, next, &at, NULL)) && at == phys_world_frame (world)) {
            phys_journal_apply (world, &cfg, req, result);
            for (uint64_t k = 0; req->has_substeps && k < req->substeps; k++)
                phys_world_step (world);
            next++;
        }
        phys_world_step (world);
    }
    if (end == S_END)
        cr_expect_eq (next, S_INPUTS);
    uint64_t hash = phys_world_hash (world);
    free (result);
    phys_world_destroy (&world);
    return hash;
}

static uint64_t
s_play (const phys_replay_t *script)
{
    return s_play_to (script, S_END);
}

static void s_check_loaded (phys_replay_t *script);

static void
s_check_script (const char *path)
{
    char err[256];
    phys_replay_t *script = phys_replay_load (path, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    s_check_loaded (script);
}

/* What s_record wrote, as read back (the script destroyed). */
static void
s_check_loaded (phys_replay_t *script)
{
    cr_expect_not (phys_replay_torn (script));
    cr_assert_eq (phys_replay_count (script), S_INPUTS);
    for (size_t i = 0; i < S_INPUTS; i++) {
        uint64_t at;
        const char *source;
        const Simbus__Request *req = phys_replay_input (script, i, &at, &source);
        cr_assert_not_null (req);
        uint64_t expected = (uint64_t) s_at[i];
        if (i == 4) /* after the sync step of input 3 at 151, 40 substeps */
            expected = 600;
        cr_expect_eq (at, expected, "input %zu at %llu", i, (unsigned long long) at);
        cr_expect_eq (req->id, i + 1);
        cr_expect_str_eq (source, i % 3 == 0 ? "control by lane" : "blue team by lane");
    }
    cr_expect_null (phys_replay_input (script, S_INPUTS, NULL, NULL));
    /* the last mark promises up to 100 ms past the last substep */
    cr_expect_geq (phys_replay_end_frame (script), S_END);
    cr_expect_eq (phys_replay_substep_ns (script), 1000000);
    phys_replay_destroy (&script);
    cr_assert_null (script);
}

Test (phys_replay, a_journaled_run_reads_back_as_written)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    s_record (t.path, &cfg, S_ONE_PROCESS);
    s_check_script (t.path);
    s_tmp_done (&t);
}

Test (phys_replay, the_script_drives_a_world_to_the_same_state)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    uint64_t hash = s_record (t.path, &cfg, S_ONE_PROCESS);
    char err[256];
    phys_replay_t *script = phys_replay_load (t.path, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    cr_expect_eq (s_play (script), hash, "the replayed world differs from the run");
    phys_replay_destroy (&script);
    s_tmp_done (&t);
}

Test (phys_replay, a_restarted_writer_continues_the_file)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    uint64_t hash = s_record (t.path, &cfg, S_RESTART);
    s_check_script (t.path);
    char err[256];
    phys_replay_t *script = phys_replay_load (t.path, err, sizeof err);
    cr_assert_not_null (script);
    cr_expect_eq (s_play (script), hash);
    phys_replay_destroy (&script);
    s_tmp_done (&t);
}

/* A physics killed after journaling an input in the restart journal and
   in the middle of writing it to the file: the next one cuts the torn
   record off and takes the input from the restart journal, so the file
   still holds every input the run applied, at its substep. */
Test (phys_replay, a_file_continued_after_a_kill_between_the_journals_lacks_nothing)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    uint64_t hash = s_record (t.path, &cfg, S_KILLED_BETWEEN);
    s_check_script (t.path);
    char err[256];
    phys_replay_t *script = phys_replay_load (t.path, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    cr_expect_not (phys_replay_torn (script));
    cr_expect_eq (s_play (script), hash, "the replayed world differs from the run");
    phys_replay_destroy (&script);
    s_tmp_done (&t);
}

/* The restart replay (docs/journal.md) skips the kinds it does not know. */
Test (phys_replay, the_restart_replay_passes_over_the_notes)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    s_record (t.path, &cfg, S_ONE_PROCESS);
    sim_config_t fresh;
    sim_config_defaults (&fresh);
    fresh.sim.seed = 99;
    phys_world_t *world = sim_fc_world_new (&fresh);
    phys_journal_result_t *scratch = malloc (sizeof *scratch);
    phys_journal_replay_t out;
    cr_assert_eq (phys_journal_replay (t.path, PHYS_REPLAY_KEY, world, &fresh, 0, scratch, &out), 0);
    cr_expect (out.complete);
    cr_expect_eq (out.inputs, S_INPUTS);
    /* it runs on to the last mark, past S_END: compare a world run there */
    cr_expect_geq (phys_world_frame (world), S_END);
    free (scratch);
    phys_world_destroy (&world);
    s_tmp_done (&t);
}

Test (phys_replay, refuses_what_is_not_a_journal_of_a_run)
{
    s_tmp_t t;
    s_tmp (&t);
    char err[256] = "";
    cr_expect_null (phys_replay_load (t.path, err, sizeof err));
    cr_expect (strstr (err, "not a journal"), "%s", err);
    /* a journal without the configuration (a restart journal) */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *world = sim_fc_world_new (&cfg);
    phys_journal_t *j = phys_journal_new (t.path, PHYS_REPLAY_KEY, 0);
    cr_assert_eq (phys_journal_start (j, 0, world), 0);
    phys_journal_destroy (&j);
    cr_expect_null (phys_replay_load (t.path, err, sizeof err));
    cr_expect (strstr (err, "no configuration"), "%s", err);
    phys_world_destroy (&world);
    s_tmp_done (&t);
}

Test (phys_replay, a_damaged_tail_ends_the_script)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    s_record (t.path, &cfg, S_ONE_PROCESS);
    /* flip a byte in the last record (a mark): the inputs before stay */
    int fd = open (t.path, O_RDWR);
    off_t end = lseek (fd, 0, SEEK_END);
    uint8_t b;
    cr_assert_eq (pread (fd, &b, 1, end - 12), 1);
    b ^= 0xff;
    cr_assert_eq (pwrite (fd, &b, 1, end - 12), 1);
    close (fd);
    char err[256];
    phys_replay_t *script = phys_replay_load (t.path, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    cr_expect (phys_replay_torn (script));
    cr_expect_eq (phys_replay_count (script), S_INPUTS);
    phys_replay_destroy (&script);
    s_tmp_done (&t);
}

/* The journal's bytes in memory (what the fuzzer hands it,
   tests/fuzz/fuzz_logfile.c) read through phys_replay_load_stream as the
   file reads; a seal of 0, which only the fuzzing build lets through, is
   damage here. */
Test (phys_replay, a_journal_in_memory_reads_as_the_file)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    s_record (t.path, &cfg, S_ONE_PROCESS);
    FILE *file = fopen (t.path, "rb");
    cr_assert_not_null (file);
    static uint8_t bytes[1 << 20];
    size_t len = fread (bytes, 1, sizeof bytes, file);
    fclose (file);
    cr_assert (len > 0 && len < sizeof bytes);
    FILE *f = fmemopen (bytes, len, "rb");
    cr_assert_not_null (f);
    char err[256] = "";
    phys_replay_t *script = phys_replay_load_stream (f, "memory", err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    s_check_loaded (script);
    fclose (f);
    /* the header's seal (after the 48 fixed bytes and the key) set to 0 */
    size_t key_len = strlen (PHYS_REPLAY_KEY);
    memset (bytes + 48 + key_len, 0, 8);
    f = fmemopen (bytes, len, "rb");
    cr_assert_not_null (f);
    cr_expect_null (phys_replay_load_stream (f, "memory", err, sizeof err));
    cr_expect (strstr (err, "memory is not a journal"), "%s", err);
    fclose (f);
    s_tmp_done (&t);
}

/* ---- seeking (engine/world/phys_seek: its fixture is this journal) ---- */

Test (phys_replay, a_seek_lands_on_the_world_a_straight_replay_reaches)
{
    s_tmp_t t;
    s_tmp (&t);
    sim_config_t cfg;
    s_record (t.path, &cfg, S_ONE_PROCESS);
    char err[256];
    phys_replay_t *script = phys_replay_load (t.path, err, sizeof err);
    cr_assert_not_null (script, "%s", err);
    sim_config_t start_cfg;
    sim_config_defaults (&start_cfg);
    cr_assert_eq (
        sim_config_load_string (&start_cfg, phys_replay_config (script), "journal", err, sizeof err), 0);
    phys_world_t *start = sim_fc_world_new (&start_cfg);
    phys_seek_t *seek = phys_seek_new (script, start, &start_cfg, 100);
    cr_assert_not_null (seek);
    /* forwards, backwards, onto inputs (the world before them), between */
    static const uint64_t at[] = { 1200, 0, 150, 777, 151, 600, 1000, 1, 999, 300 };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        sim_config_t got_cfg;
        size_t next = 99;
        phys_world_t *w = phys_seek_world (seek, at[i], &got_cfg, &next);
        cr_assert_not_null (w);
        cr_expect_eq (phys_world_frame (w), at[i]);
        cr_expect_eq (phys_world_hash (w), s_play_to (script, at[i]), "the world at substep %llu differs",
                      (unsigned long long) at[i]);
        size_t before = 0;
        for (uint64_t f; before < S_INPUTS && phys_replay_input (script, before, &f, NULL) && f < at[i];)
            before++;
        cr_expect_eq (next, before, "at %llu the next input is %zu", (unsigned long long) at[i], next);
        phys_world_destroy (&w);
    }
    cr_expect_geq (phys_seek_checkpoints (seek), 12, "a checkpoint every 100 substeps to 1200");
    phys_seek_destroy (&seek);
    phys_world_destroy (&start);
    phys_replay_destroy (&script);
    s_tmp_done (&t);
}
