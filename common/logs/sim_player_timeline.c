/*  sim_player_timeline.c - the timeline sim_player plays (see
    sim_player_internal.h): one pass over the log at open, through the
    league's index where it holds, each record's place by the clock rule
    (sim_player_advance: a jump of the log's clock is not waited out), and
    the referee's marks. */
#include "sim_player_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_logindex.h"
#include "sim_referee.h"

static int
s_add_mark (sim_player_t *self, double t, sim_player_mark_kind_t kind, const sim_referee_t *r)
{
    if (self->n_marks == self->marks_cap) {
        size_t cap = self->marks_cap ? self->marks_cap * 2 : 64;
        sim_player_mark_t *grown = realloc (self->marks, cap * sizeof *grown);
        if (!grown)
            return -1;
        self->marks = grown;
        self->marks_cap = cap;
    }
    self->marks[self->n_marks++] = (sim_player_mark_t) {
        .t = t, .kind = kind, .command = r->command, .blue = r->team[0].score, .yellow = r->team[1].score
    };
    return 0;
}

int64_t
sim_player_advance (int64_t last_ns, int64_t time_ns, uint64_t *jump_ns)
{
    if (jump_ns)
        *jump_ns = 0;
    if (time_ns <= last_ns)
        return 0; /* two recordings joined: on from where it was */
    /* in unsigned: two times from the file may be any int64_t */
    uint64_t gap = (uint64_t) time_ns - (uint64_t) last_ns;
    if (gap <= (uint64_t) SIM_PLAYER_GAP_MAX_NS)
        return (int64_t) gap;
    if (jump_ns)
        *jump_ns = gap;
    return SIM_PLAYER_FRAME_NS;
}

int64_t
sim_player_clock_next (sim_player_clock_t *c, int64_t time_ns, uint64_t *jump_ns)
{
    if (c->started)
        c->tl_ns += sim_player_advance (c->last_ns, time_ns, jump_ns);
    else if (jump_ns)
        *jump_ns = 0;
    c->started = true;
    c->last_ns = time_ns;
    return c->tl_ns;
}

/* What the pass that indexes the log carries from one record to the next. */
typedef struct {
    sim_player_clock_t clock;
    uint64_t records; /* every record of the file so far, this one included */
    bool have_ref;
    sim_referee_t prev;
} s_pass_t;

/* A jump of the log's clock that the timeline does not wait out, noted
   for sim_player_say (the first one in full, the others counted). */
static void
s_note_jump (sim_player_t *self, const s_pass_t *p, const sim_logfile_msg_t *m, uint64_t jump_ns)
{
    if (self->jumps++ == 0) {
        self->jump_record = p->records;
        self->jump_offset = m->offset;
        self->jump_ns = jump_ns;
    }
}

/* One record of the pass: into the index when it is played, and the
   referee's marks from its referee records (m->data: NULL for others). */
static int
s_take (sim_player_t *self, s_pass_t *p, const sim_logfile_msg_t *m, char *err, size_t errlen)
{
    p->records++;
    if (sim_player_slot (m->type) < 0) {
        if (m->type != SIM_LOGFILE_INDEX) /* the log's own index is no message */
            self->skipped++;              /* blank, unknown, the 2010 protocol */
        return 0;
    }
    uint64_t jump_ns;
    int64_t tl = sim_player_clock_next (&p->clock, m->time_ns, &jump_ns);
    if (jump_ns)
        s_note_jump (self, p, m, jump_ns);
    if (self->n == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 4096;
        sim_player_entry_t *grown = realloc (self->entries, cap * sizeof *grown);
        if (!grown) {
            snprintf (err, errlen, "out of memory for the index of the log");
            return -1;
        }
        self->entries = grown;
        self->cap = cap;
    }
    self->entries[self->n++] = (sim_player_entry_t) { tl, m->offset, m->type };
    sim_referee_t r;
    if (m->type != SIM_LOGFILE_REFEREE || sim_referee_decode (m->data, m->len, &r))
        return 0;
    double t = (double) tl / 1e9;
    if ((!p->have_ref || r.command_counter != p->prev.command_counter)
        && s_add_mark (self, t, SIM_PLAYER_MARK_COMMAND, &r))
        return -1;
    if (p->have_ref && r.team[0].score + r.team[1].score > p->prev.team[0].score + p->prev.team[1].score
        && s_add_mark (self, t, SIM_PLAYER_MARK_GOAL, &r))
        return -1;
    p->prev = r;
    p->have_ref = true;
    return 0;
}

/* One pass over the log, record by record: the index and the marks. */
static int
s_index (sim_player_t *self, char *err, size_t errlen)
{
    sim_logfile_msg_t m;
    s_pass_t pass = { 0 };
    int got;
    while ((got = sim_logfile_next (self->reader, &m)) > 0)
        if (s_take (self, &pass, &m, err, errlen))
            return -1;
    if (got < 0 && !(self->damage = strdup (sim_logfile_error (self->reader))))
        return -1;
    return 0;
}

static bool
s_is_referee (int32_t type)
{
    return type == SIM_LOGFILE_REFEREE;
}

/* The same pass through the league's index at the end of a plain log:
   each record's header at its offset, the message bytes of the referee
   records only. 1 when it served; 0 when the log has none or it does not
   hold (the index and marks found so far dropped, the reason in why);
   -1 when out of memory. */
static int
s_index_by_league (sim_player_t *self, const char *path, char *why, size_t whylen)
{
    sim_logindex_t *idx = NULL;
    int rc = sim_logindex_open (path, &idx, why, whylen);
    if (rc <= 0)
        return 0;
    /* the index says how many records there are: room for all at once
       (a count past what the file can hold was refused by the index) */
    size_t count = sim_logindex_count (idx);
    sim_player_entry_t *room =
        count > self->cap ? realloc (self->entries, count * sizeof *room) : self->entries;
    if (room && count > self->cap) {
        self->entries = room;
        self->cap = count;
    }
    sim_logfile_msg_t m;
    s_pass_t pass = { 0 };
    int got;
    while ((got = sim_logindex_next (idx, &m, s_is_referee)) > 0)
        if (s_take (self, &pass, &m, why, whylen)) {
            sim_logindex_destroy (&idx);
            return -1;
        }
    if (got < 0)
        snprintf (why, whylen, "%s", sim_logindex_error (idx));
    sim_logindex_destroy (&idx);
    if (got == 0)
        return 1;
    self->n = self->n_marks = 0;
    self->skipped = self->jumps = 0;
    return 0;
}

/* A length of log time for a person: seconds, hours or days. */
static void
s_span (uint64_t ns, char *out, size_t size)
{
    double s = (double) ns / 1e9;
    if (s < 120)
        snprintf (out, size, "%.1f s", s);
    else if (s < 2 * 3600)
        snprintf (out, size, "%.1f min", s / 60);
    else if (s < 2 * 86400)
        snprintf (out, size, "%.1f h", s / 3600);
    else
        snprintf (out, size, "%.0f days", s / 86400);
}

/* The sentence sim_player_say says about the jumps, from what the pass noted. */
static void
s_jump_note (sim_player_t *self, const char *path)
{
    if (!self->jumps)
        return;
    char span[64], more[64] = "";
    s_span (self->jump_ns, span, sizeof span);
    if (self->jumps > 1)
        snprintf (more, sizeof more, " (and %llu more jumps like it)", (unsigned long long) self->jumps - 1);
    snprintf (self->jump_note, sizeof self->jump_note,
              "%s: the log's clock jumps %s forward at record %llu (byte %llu)%s: not waited out, played on "
              "%.1f ms later (a jump over %lld s is a gap in the recording)",
              path, span, (unsigned long long) self->jump_record, (unsigned long long) self->jump_offset,
              more, SIM_PLAYER_FRAME_NS / 1e6, SIM_PLAYER_GAP_MAX_NS / 1000000000);
}

/* The timeline of the log at path: through the league's index where it
   holds, else record by record; then the note on the clock's jumps. */
int
sim_player_timeline_build (sim_player_t *self, const char *path, char *err, size_t errlen)
{
    char why[SIM_LOGFILE_ERROR_MAX] = "";
    int by_index = s_index_by_league (self, path, why, sizeof why);
    if (by_index == 0 && why[0])
        snprintf (self->index_trouble, sizeof self->index_trouble, "%s: %s; reading the whole log instead",
                  path, why);
    self->indexed = by_index == 1;
    if (by_index < 0 || (!self->indexed && s_index (self, err, errlen))) {
        if (by_index < 0)
            snprintf (err, errlen, "%s", why);
        return -1;
    }
    s_jump_note (self, path);
    return 0;
}
