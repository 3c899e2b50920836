/*  sim_player.c - a league log as a timeline (sim_player.h): playing it,
    paused, stepped, sought, on the wire; the timeline itself is built at
    open by sim_player_timeline.c. */
#include "sim_player.h"
#include "sim_player_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"

#define S_PRIME_NS 100000000 /* the vision before a seek's target handed over: every camera's newest */

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
    if (sim_player_timeline_build (self, path, err, errlen)) {
        sim_player_destroy (&self);
        return NULL;
    }
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
    int k = sim_player_slot (m.type);
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
    int k = sim_player_slot (type);
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
