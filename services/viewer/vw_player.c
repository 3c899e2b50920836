/*  vw_player.c - `ssl-sim play FILE` in the page (vw_player.h). */
#include "vw_player.h"

#include <stdlib.h>

#include "common/base/sim_log.h"
#include "common/logs/sim_player.h"
#include "vw_json_game.h"
#include "vw_pages.h"
#include "vw_stats.h"

#define VW_PLAYER_BATCH 256 /* records sent per turn of the loop at most */

typedef struct vw_player_t {
    sim_player_t *log;
    int timer;
    bool loop;
    bool damage_said;
    bool fed;         /* the stores hold the log's state: a page watches */
    bool ran;         /* the loop played it: a viewer that did not start sums up nothing */
    int64_t alone_us; /* paused with no page since (vw_pages_alone), 0 */
    bool paged;       /* a page came (vw_pages_alone) */
} vw_player_t;

static int64_t
s_now_ns (void)
{
    return zclock_usecs () * 1000;
}

/* A record played (or primed at a seek): into the page's stores. */
static void
s_on_record (void *arg, const sim_logfile_msg_t *msg, bool primed)
{
    vw_service_t *self = arg;
    (void) primed;
    if (!self->player->fed)
        return; /* no page: nothing kept or decoded; a page's first look primes */
    if (msg->type == SIM_LOGFILE_VISION) {
        vw_frames_keep (self->frames, msg->data, msg->len);
        self->player_t = sim_player_time (self->player->log);
        self->serial++; /* a new world for the pages */
    } else if (msg->type == SIM_LOGFILE_REFEREE) {
        sim_referee_t r;
        if (sim_referee_decode (msg->data, msg->len, &r) == 0) {
            self->referee = r;
            self->referee_us = zclock_usecs ();
        } else
            self->referee_bad++;
    }
}

/* The timer's next deadline (us) from the player's, or the end of a
   pause with no page. */
static int64_t
s_deadline (const vw_player_t *p)
{
    int64_t due = sim_player_due (p->log);
    int64_t at = due == INT64_MAX ? SIM_LOOP_NEVER : (due + 999) / 1000;
    int64_t alone = p->alone_us ? p->alone_us + VW_ALONE_US : SIM_LOOP_NEVER;
    return alone < at ? alone : at;
}

/* A pause a page left behind: played on after a while with no page. */
static void
s_alone (vw_service_t *self, bool pages)
{
    sim_player_t *log = self->player->log;
    bool paused = sim_player_paused (log) && !sim_player_ended (log);
    if (vw_pages_alone (&self->player->alone_us, &self->player->paged, pages, paused, zclock_usecs ())) {
        sim_info ("play: paused with no page for %d s: playing on, as without a page", VW_ALONE_US / 1000000);
        sim_player_pause (log, false, s_now_ns ());
    }
}

/* The status and the worlds after the timeline moved. */
static void
s_publish (vw_service_t *self)
{
    pthread_mutex_lock (&self->hub->lock);
    vw_player_status (self);
    pthread_mutex_unlock (&self->hub->lock);
    vw_pages_serve (self, NULL);
}

/* After a page's op moved the timeline: the status at once, so the game
   state of the new time reaches the pages before its frames, not up to
   half a second later with the next periodic status. */
static void
s_publish_now (vw_service_t *self)
{
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    vw_stats_refresh (self);
    char *text = vw_json_status (&hub->status);
    pthread_mutex_unlock (&hub->lock);
    vw_pages_serve (self, text);
    free (text);
}

/* The stores forget what the page was shown: the timeline moved. */
static void
s_forget (vw_service_t *self)
{
    vw_frames_forget (self->frames);
    self->referee_us = 0;
}

/* To timeline time t: the stores hold what was shown at t, nothing of
   the time left. */
static void
s_seek (vw_service_t *self, double t)
{
    s_forget (self);
    self->player_t = t;
    if (sim_player_seek (self->player->log, t, s_now_ns (), s_on_record, self))
        sim_warn ("play: %s", sim_player_damage (self->player->log) ? sim_player_damage (self->player->log)
                                                                    : "cannot read the log there");
    self->player_t = sim_player_time (self->player->log);
    self->serial++;
}

/* The end of the log: again (--loop), paused (a page watches), or the
   end of the loop. */
static void
s_at_end (vw_service_t *self, bool pages)
{
    vw_player_t *p = self->player;
    const char *damage = sim_player_damage (p->log);
    if (damage && !p->damage_said) {
        sim_error ("play: %s; played what came before it", damage);
        p->damage_said = true;
    }
    if (p->loop && sim_player_records (p->log)) {
        /* the player's own rule for the next pass (paused as before, at
           least a frame after the last began); nothing to prime at 0 */
        s_forget (self);
        sim_player_rewind (p->log, s_now_ns ());
        self->player_t = 0;
        self->serial++;
    } else if (!pages)
        sim_loop_stop (self->loop);
    else if (!sim_player_paused (p->log))
        sim_player_pause (p->log, true, s_now_ns ());
}

static bool
s_pages (vw_service_t *self)
{
    pthread_mutex_lock (&self->hub->lock);
    bool pages = self->hub->client_count > 0;
    pthread_mutex_unlock (&self->hub->lock);
    return pages;
}

static int64_t
s_on_due (void *arg, int64_t deadline, int64_t now)
{
    vw_service_t *self = arg;
    (void) deadline;
    (void) now;
    vw_player_t *p = self->player;
    p->ran = true;
    if (sim_player_paused (p->log)) /* the hub's lock only then, not at every record */
        s_alone (self, s_pages (self));
    int n = sim_player_emit (p->log, s_now_ns (), VW_PLAYER_BATCH, s_on_record, self);
    if (n < 0)
        sim_warn ("play: %s",
                  sim_player_damage (p->log) ? sim_player_damage (p->log) : "cannot read the log");
    if (sim_player_ended (p->log) || n < 0)
        s_at_end (self, s_pages (self));
    if (n != 0)
        s_publish (self);
    return s_deadline (p);
}

int
vw_player_open (vw_service_t *self, const char *path, bool loop)
{
    char err[SIM_STRING_MAX + 256];
    vw_player_t *p = calloc (1, sizeof *p);
    if (!p)
        return -1;
    self->player = p;
    p->loop = loop;
    if (!(p->log = sim_player_new (path, err, sizeof err))
        || sim_player_wire (p->log, &self->own, err, sizeof err)) {
        sim_error ("play: %s", err);
        return -1;
    }
    sim_player_say (p->log);
    sim_player_set_speed (p->log, self->own.run.speed, s_now_ns ());
    sim_player_pause (p->log, false, s_now_ns ());
    p->timer = sim_loop_add_timer (self->loop, "player", 0, s_on_due, self);
    if (p->timer < 0)
        return -1;
    size_t marks;
    sim_player_marks (p->log, &marks);
    sim_info ("playing %s: %.1f s, %zu records, %zu referee marks, %s (docs/viewer.md \"Playing a log\")",
              path, sim_player_duration (p->log), sim_player_records (p->log), marks,
              sim_player_indexed (p->log) ? "through its index" : "read record by record");
    return 0;
}

void
vw_player_close (vw_service_t *self)
{
    vw_player_t *p = self->player;
    if (!p)
        return;
    if (p->log) {
        if (p->ran) /* else the launcher's player plays it, and sums it up */
            sim_player_report (p->log, !sim_player_ended (p->log));
        sim_player_destroy (&p->log);
    }
    free (p);
    self->player = NULL;
}

/* One op of the page, on the loop's thread. */
static void
s_apply (vw_service_t *self, const vw_op_t *op)
{
    sim_player_t *log = self->player->log;
    int64_t now = s_now_ns ();
    switch (op->kind) {
    case VW_OP_PAUSE:
        sim_player_pause (log, true, now);
        break;
    case VW_OP_RESUME:
        if (sim_player_ended (log))
            s_seek (self, 0); /* play again from the start */
        sim_player_pause (log, false, s_now_ns ());
        break;
    case VW_OP_SPEED:
        if (op->value > 0)
            sim_player_set_speed (log, op->value, now);
        else
            sim_player_pause (log, true, now);
        break;
    case VW_OP_STEP:
        sim_player_step (log, now, s_on_record, self);
        break;
    case VW_OP_SEEK:
        s_seek (self, op->value);
        break;
    case VW_OP_JUMP: {
        double t = sim_player_next_mark (log, op->to_goal ? SIM_PLAYER_MARK_GOAL : SIM_PLAYER_MARK_COMMAND);
        /* just after the mark: its referee packet is the one shown */
        if (t >= 0)
            s_seek (self, t + 1e-6);
        break;
    }
    default:
        break; /* the server refused the others */
    }
}

/* Whether the stores follow the log: only while a page watches (a page
   that comes is handed the state at the position, as by a seek). */
static void
s_feed (vw_service_t *self)
{
    vw_player_t *p = self->player;
    if (p->fed == self->watching)
        return;
    p->fed = self->watching;
    if (!p->fed)
        return;
    vw_frames_forget (self->frames);
    self->referee_us = 0;
    sim_player_prime (p->log, s_on_record, self);
    self->player_t = sim_player_time (p->log);
    self->serial++;
}

void
vw_player_wake (vw_service_t *self, bool pages)
{
    s_feed (self);
    vw_op_t ops[VW_PLAYER_OPS];
    int n = vw_hub_take_player_ops (self->hub, ops);
    for (int i = 0; i < n; i++)
        s_apply (self, &ops[i]);
    s_alone (self, pages);
    sim_loop_timer_set (self->loop, self->player->timer, s_deadline (self->player));
    if (n) {
        self->serial++; /* a world that says paused or not, even with no new frame */
        s_publish_now (self);
    }
    if (!pages && sim_player_ended (self->player->log) && !self->player->loop)
        sim_loop_stop (self->loop);
}

void
vw_player_status (vw_service_t *self)
{
    vw_status_t *st = &self->hub->status;
    const sim_player_t *log = self->player->log;
    st->has_player = true;
    st->player_t = sim_player_time (log);
    st->player_duration = sim_player_duration (log);
    st->player_speed = sim_player_speed (log);
    st->player_paused = st->paused = sim_player_paused (log);
    st->player_ended = sim_player_ended (log);
    st->player_next_command = sim_player_next_mark (log, SIM_PLAYER_MARK_COMMAND);
    st->player_next_goal = sim_player_next_mark (log, SIM_PLAYER_MARK_GOAL);
    st->t = st->player_t;
    st->speed = st->player_speed;
}

char *
vw_player_marks (const vw_service_t *self)
{
    size_t n;
    const sim_player_mark_t *marks = sim_player_marks (self->player->log, &n);
    return vw_json_marks (marks, n);
}

int
vw_player_exit_code (const vw_service_t *self)
{
    return self->player && self->player->log && sim_player_damage (self->player->log) ? 1 : 0;
}
