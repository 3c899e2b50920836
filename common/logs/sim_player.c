/*  sim_player.c - a league log as a timeline (sim_player.h). */
#include "sim_player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"
#include "sim_logindex.h"
#include "sim_referee.h"

#define S_PRIME_NS 100000000 /* the vision before a seek's target handed over: every camera's newest */

/* One playable record. */
typedef struct {
    int64_t tl_ns;   /* timeline ns since the first record */
    uint64_t offset; /* in the stream */
    int32_t type;
} s_entry_t;

struct sim_player_t {
    sim_logfile_reader_t *reader;
    s_entry_t *entries;
    size_t n, cap;
    sim_player_mark_t *marks;
    size_t n_marks, marks_cap;
    char *damage; /* NULL: the log ends cleanly */
    size_t next;  /* the next entry to play */
    int64_t pos_ns;
    bool paused;
    double speed;
    int64_t anchor_tl_ns, anchor_wall_ns;
    int fds[3]; /* vision, tracker, referee; -1: not on the wire */
    sim_route_t route[3];
    uint64_t sent[3];
    uint64_t skipped; /* records of other types */
    bool indexed;     /* the league's index served the pass */
    /* the clock's jumps forward not waited out (sim_player_advance): how
       many, and the first one's record (from 1), byte and length */
    uint64_t jumps, jump_record, jump_offset, jump_ns;
    char jump_note[SIM_STRING_MAX + 256]; /* said by sim_player_say, or "" */
    int64_t pass_wall_ns;                 /* when the first record of this pass was due */
    bool passed;                          /* a first record was played: pass_wall_ns holds */
    /* why it did not, or "" (sim_player_index_trouble) */
    char index_trouble[SIM_LOGFILE_ERROR_MAX + SIM_STRING_MAX + 64];
};

static int
s_slot (int32_t type)
{
    return type == SIM_LOGFILE_VISION  ? 0
         : type == SIM_LOGFILE_TRACKER ? 1
         : type == SIM_LOGFILE_REFEREE ? 2
                                       : -1;
}

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
    if (s_slot (m->type) < 0) {
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
        s_entry_t *grown = realloc (self->entries, cap * sizeof *grown);
        if (!grown) {
            snprintf (err, errlen, "out of memory for the index of the log");
            return -1;
        }
        self->entries = grown;
        self->cap = cap;
    }
    self->entries[self->n++] = (s_entry_t) { tl, m->offset, m->type };
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
    s_entry_t *room = count > self->cap ? realloc (self->entries, count * sizeof *room) : self->entries;
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

sim_player_t *
sim_player_new (const char *path, char *err, size_t errlen)
{
    sim_player_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, errlen, "out of memory");
        return NULL;
    }
    self->fds[0] = self->fds[1] = self->fds[2] = -1;
    self->paused = true;
    self->speed = 1.0;
    self->reader = sim_logfile_reader_new (path, err, errlen);
    if (!self->reader) {
        sim_player_destroy (&self);
        return NULL;
    }
    char why[SIM_LOGFILE_ERROR_MAX] = "";
    int by_index = s_index_by_league (self, path, why, sizeof why);
    if (by_index == 0 && why[0])
        snprintf (self->index_trouble, sizeof self->index_trouble, "%s: %s; reading the whole log instead",
                  path, why);
    self->indexed = by_index == 1;
    if (by_index < 0 || (!self->indexed && s_index (self, err, errlen))) {
        if (by_index < 0)
            snprintf (err, errlen, "%s", why);
        sim_player_destroy (&self);
        return NULL;
    }
    s_jump_note (self, path);
    return self;
}

void
sim_player_destroy (sim_player_t **self_p)
{
    sim_player_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < 3; i++)
        if (self->fds[i] >= 0)
            close (self->fds[i]);
    sim_logfile_reader_destroy (&self->reader);
    free (self->entries);
    free (self->marks);
    free (self->damage);
    free (self);
    *self_p = NULL;
}

/* A socket that sends by `route`: a group through the loopback interface
   only with --localhost (or where no interface routes it), else on
   [network] multicast_interface. -1 when none could be made. */
static int
s_sender (const sim_config_t *cfg, sim_route_t *route)
{
    if (sim_route_unrouted_to_lo (route)) {
        char a[64];
        sim_warn ("no network interface routes %s: sending it through the loopback interface",
                  sim_udp_addr_str (&route->addr, a, sizeof a));
    }
    if (route->way == SIM_ROUTE_LOCAL_GROUP)
        return sim_udp_local_sender (route->group);
    int fd = sim_udp_sender (route->way == SIM_ROUTE_NETWORK ? cfg->network.multicast_interface : "",
                             cfg->network.multicast_ttl);
    if (fd >= 0 && cfg->run.localhost && sim_udp_keep_local (fd)) {
        close (fd);
        return -1;
    }
    return fd;
}

int
sim_player_wire (sim_player_t *self, const sim_config_t *cfg, char *err, size_t errlen)
{
    if (sim_route_vision (cfg, &self->route[0], &self->route[1])) {
        snprintf (err, errlen, "vision address '%s' is not HOST:PORT", cfg->run.vision_addr);
        return -1;
    }
    if (sim_route_referee (cfg, &self->route[2])) {
        snprintf (err, errlen, "referee address '%s' is not HOST:PORT", cfg->network.referee_addr);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if ((self->fds[i] = s_sender (cfg, &self->route[i])) < 0) {
            snprintf (err, errlen, "cannot open a UDP socket");
            return -1;
        }
    return 0;
}

const char *
sim_player_damage (const sim_player_t *self)
{
    return self->damage;
}

double
sim_player_duration (const sim_player_t *self)
{
    return self->n ? (double) self->entries[self->n - 1].tl_ns / 1e9 : 0;
}

double
sim_player_time (const sim_player_t *self)
{
    return (double) self->pos_ns / 1e9;
}

size_t
sim_player_records (const sim_player_t *self)
{
    return self->n;
}

bool
sim_player_paused (const sim_player_t *self)
{
    return self->paused;
}

double
sim_player_speed (const sim_player_t *self)
{
    return self->speed;
}

bool
sim_player_ended (const sim_player_t *self)
{
    return self->next >= self->n;
}

static void
s_anchor (sim_player_t *self, int64_t now_ns)
{
    self->anchor_tl_ns = self->pos_ns;
    self->anchor_wall_ns = now_ns;
}

void
sim_player_pause (sim_player_t *self, bool paused, int64_t now_ns)
{
    self->paused = paused;
    s_anchor (self, now_ns);
}

void
sim_player_set_speed (sim_player_t *self, double speed, int64_t now_ns)
{
    if (!(speed > 0) || speed > 1e6)
        return;
    self->speed = speed;
    s_anchor (self, now_ns);
}

int64_t
sim_player_due (const sim_player_t *self)
{
    if (self->paused || self->next >= self->n)
        return INT64_MAX;
    double late = (double) (self->entries[self->next].tl_ns - self->anchor_tl_ns) / self->speed;
    return self->anchor_wall_ns + (int64_t) late;
}

/* Read entry i (jumping there when the reader is elsewhere). 1, or -1. */
static int
s_read (sim_player_t *self, size_t i, sim_logfile_msg_t *m)
{
    if (sim_logfile_seek (self->reader, self->entries[i].offset))
        return -1;
    return sim_logfile_next (self->reader, m) > 0 ? 1 : -1;
}

/* Play entry self->next, at wall time at_ns: the wire, then fn. 0 or -1. */
static int
s_play_next (sim_player_t *self, int64_t at_ns, sim_player_fn *fn, void *arg)
{
    if (self->next == 0) {
        self->pass_wall_ns = at_ns;
        self->passed = true;
    }
    sim_logfile_msg_t m;
    if (s_read (self, self->next, &m) < 0)
        return -1;
    int k = s_slot (m.type);
    if (self->fds[k] >= 0) {
        sim_udp_send (self->fds[k], m.data, m.len, &self->route[k].addr);
        self->sent[k]++;
    }
    self->pos_ns = self->entries[self->next].tl_ns;
    self->next++;
    if (fn)
        fn (arg, &m, false);
    return 0;
}

int
sim_player_emit (sim_player_t *self, int64_t now_ns, int max, sim_player_fn *fn, void *arg)
{
    int n = 0;
    int64_t due;
    while (n < max && (due = sim_player_due (self)) <= now_ns) {
        if (s_play_next (self, due, fn, arg))
            return -1;
        n++;
    }
    return n;
}

int
sim_player_step (sim_player_t *self, int64_t now_ns, sim_player_fn *fn, void *arg)
{
    int n = 0;
    while (self->next < self->n) {
        bool vision = self->entries[self->next].type == SIM_LOGFILE_VISION;
        if (s_play_next (self, now_ns, fn, arg))
            return -1;
        n++;
        if (vision)
            break;
    }
    s_anchor (self, now_ns);
    return n;
}

void
sim_player_rewind (sim_player_t *self, int64_t now_ns)
{
    int64_t at = now_ns;
    if (self->passed) {
        /* in double: a slow speed makes the wait longer than int64_t holds */
        double wait = (double) SIM_PLAYER_FRAME_NS / self->speed;
        double earliest = (double) self->pass_wall_ns + wait;
        if (earliest > (double) at)
            at = earliest >= 9e18 ? INT64_MAX / 2 : self->pass_wall_ns + (int64_t) wait;
    }
    self->next = 0;
    self->pos_ns = 0;
    self->anchor_tl_ns = 0;
    self->anchor_wall_ns = at;
}

/* The first entry at or after timeline ns t. */
static size_t
s_find (const sim_player_t *self, int64_t t)
{
    size_t lo = 0, hi = self->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (self->entries[mid].tl_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int
sim_player_seek (sim_player_t *self, double t_s, int64_t now_ns, sim_player_fn *fn, void *arg)
{
    int64_t end = self->n ? self->entries[self->n - 1].tl_ns : 0;
    /* clamped before the conversion: far past the end would overflow */
    int64_t t = !(t_s > 0) ? 0 : t_s * 1e9 >= (double) end ? end : (int64_t) (t_s * 1e9);
    self->next = s_find (self, t);
    self->pos_ns = t;
    s_anchor (self, now_ns);
    return fn ? sim_player_prime (self, fn, arg) : 0;
}

int
sim_player_prime (sim_player_t *self, sim_player_fn *fn, void *arg)
{
    /* what a viewer shows at the position: the referee's last word
       before it, and every camera's newest frame */
    sim_logfile_msg_t m;
    for (size_t i = self->next; i-- > 0;)
        if (self->entries[i].type == SIM_LOGFILE_REFEREE) {
            if (s_read (self, i, &m) < 0)
                return -1;
            fn (arg, &m, true);
            break;
        }
    size_t first = s_find (self, self->pos_ns - S_PRIME_NS);
    for (size_t i = first; i < self->next; i++)
        if (self->entries[i].type == SIM_LOGFILE_VISION) {
            if (s_read (self, i, &m) < 0)
                return -1;
            fn (arg, &m, true);
        }
    return 0;
}

const sim_player_mark_t *
sim_player_marks (const sim_player_t *self, size_t *count)
{
    *count = self->n_marks;
    return self->marks;
}

double
sim_player_next_mark (const sim_player_t *self, sim_player_mark_kind_t kind)
{
    double now = sim_player_time (self) + 1e-6;
    for (size_t i = 0; i < self->n_marks; i++)
        if (self->marks[i].kind == kind && self->marks[i].t > now)
            return self->marks[i].t;
    return -1;
}

uint64_t
sim_player_sent (const sim_player_t *self, int32_t type)
{
    int k = s_slot (type);
    return k < 0 ? 0 : self->sent[k];
}

void
sim_player_report (const sim_player_t *self, bool stopped)
{
    fprintf (stderr, "played %llu vision, %llu tracker and %llu referee messages%s\n",
             (unsigned long long) self->sent[0], (unsigned long long) self->sent[1],
             (unsigned long long) self->sent[2], stopped ? " (stopped)" : "");
    if (self->skipped)
        fprintf (stderr, "skipped %llu message%s of other types (blank, unknown, vision 2010)\n",
                 (unsigned long long) self->skipped, self->skipped == 1 ? "" : "s");
}

bool
sim_player_indexed (const sim_player_t *self)
{
    return self->indexed;
}

const char *
sim_player_index_trouble (const sim_player_t *self)
{
    return self->index_trouble;
}

const char *
sim_player_jumps (const sim_player_t *self)
{
    return self->jump_note;
}

void
sim_player_say (const sim_player_t *self)
{
    if (self->index_trouble[0])
        sim_warn ("play: %s", self->index_trouble);
    if (self->jump_note[0])
        sim_warn ("play: %s", self->jump_note);
}
