/*  vw_replay.c - `ssl-sim replay` in the page (vw_replay.h). */
#include "vw_replay.h"

#include <stdlib.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_bus_codec.h"
#include "vw_pages.h"

typedef struct vw_replay_t {
    uint64_t next_id;
    bool have;  /* a state came */
    bool ended; /* at the end, paused */
    bool paused;
    double t, end, speed, built; /* s, s, x, s */
    int64_t alone_us;            /* paused with no page since (vw_pages_alone), 0 */
    bool paged;                  /* a page came (vw_pages_alone) */
} vw_replay_t;

int
vw_replay_open (vw_service_t *self)
{
    self->replay = calloc (1, sizeof *self->replay);
    if (!self->replay)
        return -1;
    self->replay->speed = self->own.run.speed > 0 ? self->own.run.speed : 1.0;
    pthread_mutex_lock (&self->hub->lock);
    self->hub->player = true; /* the timeline's ops come to this loop */
    pthread_mutex_unlock (&self->hub->lock);
    return 0;
}

void
vw_replay_close (vw_service_t *self)
{
    free (self->replay);
    self->replay = NULL;
}

/* One op of a page as a request to physics; false for none. */
static bool
s_control (const vw_op_t *op, Simbus__ReplayControl *c)
{
    simbus__replay_control__init (c);
    switch (op->kind) {
    case VW_OP_PAUSE:
        c->op = SIMBUS__REPLAY_CONTROL__OP__PAUSE;
        return true;
    case VW_OP_RESUME:
        c->op = SIMBUS__REPLAY_CONTROL__OP__RESUME;
        return true;
    case VW_OP_SPEED:
        c->op = op->value > 0 ? SIMBUS__REPLAY_CONTROL__OP__SPEED : SIMBUS__REPLAY_CONTROL__OP__PAUSE;
        break;
    case VW_OP_STEP:
        c->op = SIMBUS__REPLAY_CONTROL__OP__STEP;
        return true;
    case VW_OP_SEEK:
        c->op = SIMBUS__REPLAY_CONTROL__OP__SEEK;
        break;
    default:
        return false; /* a jump: the server answered NOT_FOUND (no referee in a journal) */
    }
    c->has_value = true;
    c->value = op->value;
    return true;
}

static void
s_send (vw_service_t *self, const Simbus__ReplayControl *c)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = ++self->replay->next_id;
    req.replay = (Simbus__ReplayControl *) c;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, &req);
    if (sim_link_send (self->link, &env) <= 0)
        sim_warn ("replay: the timeline action could not reach physics");
}

/* A pause a page left behind: played on after a while with no page
   (checked at each wake and each state physics sends, once a second). */
static void
s_alone (vw_service_t *self, bool pages)
{
    vw_replay_t *r = self->replay;
    if (r->have && vw_pages_alone (&r->alone_us, &r->paged, pages, r->paused && !r->ended, zclock_usecs ())) {
        sim_info ("replay: paused with no page for %d s: playing on, as without a page",
                  VW_ALONE_US / 1000000);
        Simbus__ReplayControl c;
        simbus__replay_control__init (&c);
        c.op = SIMBUS__REPLAY_CONTROL__OP__RESUME;
        s_send (self, &c);
    }
}

void
vw_replay_wake (vw_service_t *self, bool pages)
{
    vw_op_t ops[VW_PLAYER_OPS];
    int n = vw_hub_take_player_ops (self->hub, ops);
    for (int i = 0; i < n; i++) {
        Simbus__ReplayControl c;
        if (!s_control (&ops[i], &c))
            continue;
        if (c.op == SIMBUS__REPLAY_CONTROL__OP__SEEK)
            vw_frames_forget (self->frames); /* the cameras of the old time */
        s_send (self, &c);
    }
    s_alone (self, pages);
    if (!pages && self->replay->ended)
        sim_loop_stop (self->loop);
}

void
vw_replay_take (vw_service_t *self, const Simbus__ReplayState *state)
{
    vw_replay_t *r = self->replay;
    if (!r || !state)
        return;
    r->have = true;
    r->t = (double) state->time_ns / 1e9;
    r->end = (double) state->end_ns / 1e9;
    r->speed = state->speed;
    r->paused = state->paused;
    r->ended = state->ended;
    r->built = state->has_built_ns ? (double) state->built_ns / 1e9 : 0;
    pthread_mutex_lock (&self->hub->lock);
    bool pages = self->hub->client_count > 0;
    vw_replay_status (self);
    pthread_mutex_unlock (&self->hub->lock);
    self->serial++; /* a world that says paused or not, even with no new snapshot */
    vw_pages_serve (self, NULL);
    s_alone (self, pages);
    if (!pages && r->ended)
        sim_loop_stop (self->loop); /* over, and nobody watches: the run ends */
}

void
vw_replay_status (vw_service_t *self)
{
    vw_status_t *st = &self->hub->status;
    const vw_replay_t *r = self->replay;
    st->has_player = true;
    st->player_t = self->have_truth ? (double) self->truth.time_ns / 1e9 : r->t;
    st->player_duration = r->end;
    st->player_speed = r->speed;
    st->player_paused = st->paused = r->paused;
    st->player_ended = r->ended;
    st->player_next_command = st->player_next_goal = -1; /* a journal holds no referee */
    st->player_journal = true;
    st->player_built = r->built;
    st->t = st->player_t;
    st->speed = r->speed;
}
