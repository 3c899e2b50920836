/*  phys_recovery.c - checkpoints, the restart journal and its replay, the
    --journal file (see phys_recovery.h). */
#include "phys_recovery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus.h"
#include "common/config/config.h"
#include "engine/world/phys_checkpoint.h"
#include "engine/world/vis_def.h"
#include "phys_epoch.h"

static void
s_once_add (phys_service_t *self, uint64_t id)
{
    self->once_ids[self->once_next] = id;
    self->once_next = (self->once_next + 1) % PHYS_ONCE_KEEP;
}

/* The once-only ids remembered, oldest first, into out (room for
   PHYS_ONCE_KEEP); returns how many. */
static size_t
s_once_list (const phys_service_t *self, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < PHYS_ONCE_KEEP; i++) {
        uint64_t id = self->once_ids[(self->once_next + i) % PHYS_ONCE_KEEP];
        if (id)
            out[n++] = id;
    }
    return n;
}

/* A checkpoint, then a new journal after it. A crash between the two
   leaves the new checkpoint with the old journal, whose inputs all have
   numbers below the checkpoint's: a replay skips them. The checkpoint
   keeps the once-only ids applied so far: its new journal names only
   those applied after it, and a physics resumed from it, or from any
   later one, must still answer a repeat of an earlier one unapplied. */
void
phys_recovery_checkpoint (phys_service_t *self)
{
    if (!*self->checkpoint_path)
        return;
    uint64_t seq = self->journal ? phys_journal_seq (self->journal) : 0;
    phys_checkpoint_meta_t meta = { .serial = self->config_serial, .journal_seq = seq };
    meta.once_ids = self->once_scratch;
    meta.once_count = s_once_list (self, self->once_scratch);
    if (phys_checkpoint_write (self->checkpoint_path, self->run_key, self->world, &self->cfg, &meta) == 0
        && self->journal)
        phys_journal_start (self->journal, seq, self->world);
}

bool
phys_recovery_repeat (phys_service_t *self, const Simbus__Request *req)
{
    if (!(req->id & SIM_BUS_ID_ONCE))
        return false;
    for (size_t i = 0; i < PHYS_ONCE_KEEP; i++)
        if (self->once_ids[i] == req->id)
            return true;
    s_once_add (self, req->id);
    return false;
}

typedef struct {
    phys_service_t *self;
    uint64_t seq; /* inputs before it are in the checkpoint */
} s_once_read_t;

static bool
s_once_record (void *arg, const phys_journal_record_t *rec)
{
    s_once_read_t *r = arg;
    if (rec->kind != PHYS_JOURNAL_INPUT || rec->seq < r->seq)
        return true;
    Simbus__Request *req = simbus__request__unpack (NULL, rec->payload_len, rec->payload);
    if (req) {
        if (req->id & SIM_BUS_ID_ONCE)
            s_once_add (r->self, req->id);
        simbus__request__free_unpacked (req, NULL);
    }
    return true;
}

/* The ids the applied inputs asked to be applied once under, as the
   checkpoint's `meta` keeps them, then those of the journal's inputs after
   it: a request a predecessor applied but did not answer is then
   answered, not applied again, when its sender hands it over once more. */
static void
s_once_resume (phys_service_t *self, const char *path, const phys_checkpoint_meta_t *meta)
{
    for (size_t i = 0; i < meta->once_count; i++)
        s_once_add (self, meta->once_ids[i]);
    s_once_read_t r = { self, meta->journal_seq };
    phys_journal_header_t header;
    phys_journal_read (path, self->run_key, &header, s_once_record, &r);
}

/* The inputs the journal holds after the checkpoint, applied again as
   they were; the configuration serial counts the changes they made, as
   it did the first time. Returns the number of the next input. */
static uint64_t
s_replay (phys_service_t *self, const char *path, uint64_t seq)
{
    phys_journal_replay_t r;
    uint64_t from = phys_world_time_ns (self->world);
    phys_journal_replay (path, self->run_key, self->world, &self->cfg, seq, &self->applied, &r);
    self->config_serial += r.config_changes;
    if (r.inputs || r.substeps)
        sim_info ("replayed the journal: %llu inputs, sim %.3fs -> %.3fs%s", (unsigned long long) r.inputs,
                  (double) from / 1e9, (double) phys_world_time_ns (self->world) / 1e9,
                  r.complete ? "" : " (stopped early, see above)");
    return r.seq;
}

void
phys_recovery_resume (phys_service_t *self, const sim_config_t *own)
{
    self->config_serial = 1;
    if (strncmp (own->bus.cmd_bind, "inproc://", 9) == 0)
        return;
    char dir[SIM_STRING_MAX - 32];
    if (sim_bus_runtime_dir (own, dir, sizeof dir))
        return;
    snprintf (self->checkpoint_path, sizeof self->checkpoint_path, "%s/physics.checkpoint", dir);
    phys_checkpoint_key (own, self->run_key, sizeof self->run_key);
    char *journal = self->journal_path;
    snprintf (journal, sizeof self->journal_path, "%s/physics.journal", dir);
    sim_config_t saved;
    phys_checkpoint_meta_t meta = { .once_ids = self->once_scratch };
    phys_world_t *world = phys_checkpoint_read (self->checkpoint_path, self->run_key, &saved, &meta);
    if (!world) {
        self->journal = phys_journal_new (journal, self->run_key, 0);
        return;
    }
    sim_config_keep_local (&saved, own);
    self->cfg = saved;
    self->world = world;
    self->config_serial = meta.serial;
    sim_info ("resumed from checkpoint: sim %.3fs, %d robots, config serial %llu",
              (double) phys_world_time_ns (world) / 1e9, phys_world_robot_count (world),
              (unsigned long long) meta.serial);
    s_once_resume (self, journal, &meta);
    self->journal = phys_journal_new (journal, self->run_key, s_replay (self, journal, meta.journal_seq));
}

/* The configuration a replay starts from: the run's, with the truth
   stream's uuid written out. It is derived from this instance's host and
   control port (vis_truth_uuid), which a replay does not share, and a
   replay's truth packets are the run's byte for byte. Yours to free. */
static char *
s_replay_config (const phys_service_t *self)
{
    sim_config_t *cfg = malloc (sizeof *cfg);
    if (!cfg)
        return NULL;
    *cfg = self->cfg;
    if (!*cfg->vision.truth_uuid) {
        char host[256] = "";
        if (gethostname (host, sizeof host - 1))
            host[0] = '\0';
        vis_truth_uuid (&self->cfg, host, cfg->vision.truth_uuid, sizeof cfg->vision.truth_uuid);
    }
    char *ini = sim_config_dump (cfg, false);
    free (cfg);
    return ini;
}

static void s_note_source (phys_service_t *self, const Simbus__Request *req);

/* Catching a continued --journal file up with the restart journal: its
   inputs from `next` up to (not including) `until`, each with its source
   noted first, as physics journaled them. */
typedef struct {
    phys_service_t *self;
    uint64_t next, until;
} s_catch_up_t;

static bool
s_catch_up_input (void *arg, const phys_journal_record_t *rec)
{
    s_catch_up_t *c = arg;
    if (rec->kind != PHYS_JOURNAL_INPUT || rec->seq < c->next || rec->seq >= c->until)
        return true;
    Simbus__Request *req =
        rec->seq == c->next ? simbus__request__unpack (NULL, rec->payload_len, rec->payload) : NULL;
    if (!req)
        return false; /* a gap, or bytes that do not decode: what is missing is not there */
    s_note_source (c->self, req);
    simbus__request__free_unpacked (req, NULL);
    if (phys_journal_copy_input (c->self->user_journal, rec))
        return false;
    c->next++;
    return true;
}

/* A physics killed after journaling an input in the restart journal and
   before the --journal file took it leaves the file without an input the
   run applied (its successor knows its id and answers a copy of it
   without applying it again): the file takes it, and any other it lacks,
   from the restart journal, which holds every input since the last
   checkpoint. */
static void
s_catch_up (phys_service_t *self, uint64_t next, uint64_t until)
{
    s_catch_up_t c = { self, next, until };
    phys_journal_header_t header;
    phys_journal_read (self->journal_path, self->run_key, &header, s_catch_up_input, &c);
    if (c.next == until)
        sim_info ("journal %s: took inputs %llu to %llu from the restart journal (journaled there before a "
                  "crash)",
                  self->cfg.run.journal, (unsigned long long) next, (unsigned long long) (until - 1));
    else
        sim_warn ("journal %s: lacks inputs %llu to %llu, applied by the run (not in the restart journal)",
                  self->cfg.run.journal, (unsigned long long) c.next, (unsigned long long) (until - 1));
}

int
phys_recovery_open_journal (phys_service_t *self, bool resumed)
{
    uint64_t seq = self->journal ? phys_journal_seq (self->journal) : 0;
    self->user_journal = phys_journal_new (self->cfg.run.journal, PHYS_REPLAY_KEY, resumed ? seq : 0);
    if (!self->user_journal)
        return -1;
    if (resumed) {
        uint64_t next;
        if (phys_journal_reopen (self->user_journal, self->world, &next) == 0) {
            if (next < seq && self->journal)
                s_catch_up (self, next, seq);
            return 0;
        }
        sim_warn ("journal %s: cannot continue it after a restart; not journaling", self->cfg.run.journal);
        phys_journal_destroy (&self->user_journal);
        return 0;
    }
    /* in place: the launcher locks this file for the run (a rename would
       leave its lock on a file no longer at the name) */
    phys_journal_in_place (self->user_journal);
    char *ini = s_replay_config (self);
    int rc =
        ini && phys_journal_start (self->user_journal, 0, self->world) == 0
                && phys_journal_note (self->user_journal, self->world, PHYS_JOURNAL_CONFIG, ini, strlen (ini))
                       == 0
            ? 0
            : -1;
    free (ini);
    if (rc == 0)
        phys_epoch_journal (self); /* every base from here on is journaled: a replay takes them all */
    if (rc)
        sim_error ("cannot write the journal %s", self->cfg.run.journal);
    else
        sim_info ("journaling every input to %s", self->cfg.run.journal);
    return rc;
}

/* Which part of the protocol an input is, as a note written only when
   it changes (a client that keeps sending the same kind costs nothing
   more); the sender's address is in the Request itself (Request.source:
   the edges fill it in when the run journals). How it reached physics is
   the bus's business, not the run's: no carrier is named. */
static void
s_note_source (phys_service_t *self, const Simbus__Request *req)
{
    const char *source = req->has_step_id       ? "sync step"
                       : req->team_control      ? (req->team_control->team == 1 ? "yellow team" : "blue team")
                       : req->simulator_command ? "control"
                                                : "request";
    if (strcmp (source, self->last_source) != 0) {
        phys_journal_note (self->user_journal, self->world, PHYS_JOURNAL_SOURCE, source, strlen (source));
        snprintf (self->last_source, sizeof self->last_source, "%s", source);
    }
}

void
phys_recovery_journal (phys_service_t *self, const Simbus__Request *req, const void *wire, size_t wire_len)
{
    if (self->journal)
        phys_journal_input_wire (self->journal, self->world, req, wire, wire_len);
    if (self->user_journal) {
        s_note_source (self, req);
        phys_journal_input_wire (self->user_journal, self->world, req, wire, wire_len);
    }
}
