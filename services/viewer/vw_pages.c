/*  vw_pages.c - the viewer's loop feeding the pages (vw_pages.h). */
#include "vw_pages.h"

#include <assert.h>
#include <stdlib.h>

#include "common/base/sim_log.h"

#define S_GOING_AWAY      1001   /* the close code of a stopping server (RFC 6455, 7.4.1) */
#define S_CLOSE_BUDGET_US 250000 /* vw_pages_close's time for telling the pages */

void
vw_pages_watch (vw_service_t *self, bool on)
{
    if (on == self->watching)
        return;
    static const Simbus__Envelope__BodyCase kinds[] = { SIMBUS__ENVELOPE__BODY_SNAPSHOT,
                                                        SIMBUS__ENVELOPE__BODY_EVENTS,
                                                        SIMBUS__ENVELOPE__BODY_FRAMES,
                                                        SIMBUS__ENVELOPE__BODY_COMMANDS };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (on)
            sim_link_subscribe (self->link, kinds[i]);
        else
            sim_link_unsubscribe (self->link, kinds[i]);
    self->watching = on;
    if (!on) {
        vw_frames_forget (self->frames);
        vw_commands_forget (&self->commands);
        self->have_truth = false;
    }
    sim_debug ("%s the world", on ? "watching" : "no page: not watching");
}

/* A "world" for client c, borrowed until the next; with the hub locked. */
static const char *
s_world_text (vw_service_t *self, vw_client_t *c)
{
    vw_kick_t kicks[VW_KICKS_MAX];
    int n = 0;
    uint64_t from = c->kick_seq;
    if (self->kick_seq - from > VW_KICKS_MAX)
        from = self->kick_seq - VW_KICKS_MAX;
    for (uint64_t k = from; k < self->kick_seq; k++)
        kicks[n++] = self->kicks[k % VW_KICKS];
    c->kick_seq = self->kick_seq;
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (self->frames, self->camera_count, frames);
    static_assert (VW_COMMAND_SLOTS <= 512, "the commands of a world live on the stack");
    const vw_command_t *commands[VW_COMMAND_SLOTS];
    int n_commands = vw_commands_since (&self->commands, c->command_seq, commands);
    c->command_seq = self->commands.seq;
    vw_world_t w = { .n_commands = n_commands,
                     .commands = commands,
                     .truth = self->have_truth ? &self->truth : NULL,
                     .t = self->player_t,
                     .paused = self->hub->status.paused,
                     .n_kicks = n,
                     .kicks = kicks,
                     .n_frames = SIM_MAX_CAMERAS,
                     .frames = frames };
    return vw_json_world_into (&w, &self->world_text);
}

/* Send `text` to page `c`. A send that fails (the page stopped reading
   and its buffer stayed full for the server's timeout, or it went away)
   marks it dead, so it costs the loop that one wait, never one per
   frame. With the hub locked. */
static void
s_send (vw_client_t *c, const char *text)
{
    if (c->dead || vw_http_send (c->conn, text) == 0)
        return;
    c->dead = true;
    c->want = false;
    sim_warn ("a page stopped reading; it is sent nothing more until it closes");
}

void
vw_pages_serve (vw_service_t *self, const char *status)
{
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    for (int i = 0; i < VW_CLIENTS_MAX; i++) {
        vw_client_t *c = &hub->clients[i];
        if (!c->conn || c->dead)
            continue;
        if (!c->greeted && hub->have_config) {
            s_send (c, hub->hello);
            s_send (c, hub->geometry);
            if (hub->marks)
                s_send (c, hub->marks); /* a log's ticks: once, they never change */
            char *text = vw_json_status (&hub->status);
            s_send (c, text);
            free (text);
            c->greeted = true;
            c->kick_seq = self->kick_seq;
            c->command_seq = 0; /* a new page gets every robot's last command */
        } else if (status && c->greeted && zclock_usecs () - c->asked_us < VW_PAGE_IDLE_US)
            s_send (c, status);                        /* a page that stopped asking is sent nothing more */
        bool world = self->have_truth || self->player; /* a log played: vision only */
        if (c->greeted && c->want && world && c->sent_serial != self->serial) {
            const char *text = s_world_text (self, c);
            c->want = false;
            c->sent_serial = self->serial;
            s_send (c, text);
        }
    }
    pthread_mutex_unlock (&hub->lock);
}

void
vw_pages_broadcast (vw_service_t *self, const char *text)
{
    vw_hub_t *hub = self->hub;
    for (int i = 0; i < VW_CLIENTS_MAX; i++)
        if (hub->clients[i].conn && hub->clients[i].greeted)
            s_send (&hub->clients[i], text);
}

void
vw_pages_close (vw_hub_t *hub)
{
    int64_t end = zclock_usecs () + S_CLOSE_BUDGET_US;
    pthread_mutex_lock (&hub->lock);
    for (int i = 0; i < VW_CLIENTS_MAX && zclock_usecs () < end; i++) {
        vw_client_t *c = &hub->clients[i];
        if (c->conn && !c->dead && !c->closed) {
            c->closed = true;
            vw_http_close (c->conn, S_GOING_AWAY);
        }
    }
    pthread_mutex_unlock (&hub->lock);
}

bool
vw_pages_alone (int64_t *since_us, bool *left, bool pages, bool paused, int64_t now_us)
{
    if (pages)
        *left = true; /* from now on, no page means the page left */
    if (pages || !paused || !*left) {
        *since_us = 0;
        return false;
    }
    if (*since_us == 0)
        *since_us = now_us;
    if (now_us - *since_us < VW_ALONE_US)
        return false;
    *since_us = 0;
    return true;
}
