/*  viewer.c - the viewer service actor (viewer.h): the bus side.

    One loop: the actor pipe, the bus, and the hub's wake pipe (pages
    joining, leaving, asking for the next "world"). Per snapshot it keeps
    the newest truth and hands a "world" to each page that asked; per
    frames message it keeps each camera's newest detection; on Stats and
    configuration it refreshes what the status bar and /metrics read.
    This file is the loop, the handler table and life; feeding the pages
    is vw_pages.c, the Stats glue vw_stats.c, the vision packets
    vw_frames.c (viewer_internal.h holds the state they share).
*/
#include "viewer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/config/sim_schedule_config.h"
#include "common/bus/sim_service.h"
#include "common/bus/sim_udp.h"
#include "viewer_internal.h"
#include "vw_pages.h"
#include "vw_player.h"
#include "vw_referee.h"
#include "vw_replay.h"
#include "vw_stats.h"

/* ---- the www directory --------------------------------------------------- */

static bool
s_has_index (const char *dir)
{
    char path[PATH_MAX + 16];
    struct stat st;
    snprintf (path, sizeof path, "%s/index.html", dir);
    return stat (path, &st) == 0 && S_ISREG (st.st_mode);
}

int
vw_www_dir (const sim_config_t *cfg, char *buf, size_t len)
{
    if (cfg->viewer.www_dir[0]) {
        snprintf (buf, len, "%s", cfg->viewer.www_dir);
        return s_has_index (buf) ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr (exe, '/');
        if (slash) {
            *slash = '\0'; /* PREFIX/bin */
            snprintf (buf, len, "%s/../share/ssl-sim/www", exe);
            if (s_has_index (buf))
                return 0;
        }
    }
    snprintf (buf, len, "%s", SSL_SIM_WWW);
    return s_has_index (buf) ? 0 : -1;
}

/* ---- pages ---------------------------------------------------------------- */

static void
s_on_wake (void *arg)
{
    vw_service_t *self = arg;
    char drain[64];
    while (read (self->hub->wake[0], drain, sizeof drain) > 0)
        ;
    pthread_mutex_lock (&self->hub->lock);
    bool pages = self->hub->client_count > 0;
    pthread_mutex_unlock (&self->hub->lock);
    vw_pages_watch (self, pages);
    if (self->player)
        vw_player_wake (self, pages);
    if (self->replay)
        vw_replay_wake (self, pages);
    if (pages && sim_loop_timer_deadline (self->loop, self->status_timer) == SIM_LOOP_NEVER)
        sim_loop_timer_set (self->loop, self->status_timer, zclock_usecs () + VW_STATUS_US);
    vw_pages_serve (self, NULL);
}

/* ---- the bus ---------------------------------------------------------------- */

static void
s_on_config (vw_service_t *self, const Simbus__Config *msg)
{
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    hub->heard_us[0] = zclock_usecs (); /* physics sends it */
    int rc = sim_bus_config_decode (msg, &self->own, &self->cfg, &self->config_serial);
    if (rc != 0) {
        pthread_mutex_unlock (&hub->lock);
        return;
    }
    hub->ctx.cfg = self->cfg;
    sim_rig_t rig;
    sim_rig_resolve (&self->cfg, &rig);
    self->camera_count = rig.count;
    if (self->cfg.run.speed > 0)
        hub->ctx.resume_speed = self->cfg.run.speed;
    char *hello = vw_json_hello (self->cfg.run.mode, self->cfg.sim.seed);
    char *geometry = vw_json_geometry (&self->cfg);
    bool changed = geometry && (!hub->geometry || strcmp (geometry, hub->geometry) != 0);
    if (hello) {
        free (hub->hello);
        hub->hello = hello;
    }
    if (geometry) {
        free (hub->geometry);
        hub->geometry = geometry;
    }
    hub->have_config = hub->hello && hub->geometry;
    vw_stats_refresh (self);
    if (changed)
        vw_pages_broadcast (self, hub->geometry);
    pthread_mutex_unlock (&hub->lock);
    vw_pages_serve (self, NULL); /* pages that came before the configuration */
}

static void
s_on_snapshot (vw_service_t *self, const Simbus__Snapshot *msg)
{
    if (!self->watching || sim_bus_snapshot_decode (msg, &self->truth))
        return;
    self->have_truth = true;
    self->serial++;
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    hub->ctx.robot_count = self->truth.robot_count;
    for (int i = 0; i < self->truth.robot_count; i++) {
        hub->ctx.robots[i].team = self->truth.robots[i].team;
        hub->ctx.robots[i].id = self->truth.robots[i].id;
    }
    pthread_mutex_unlock (&hub->lock);
    vw_pages_serve (self, NULL);
}

static void
s_on_events (vw_service_t *self, const Simbus__Events *msg)
{
    for (size_t i = 0; i < msg->n_events; i++) {
        sim_event_t e;
        if (sim_bus_event_decode (msg->events[i], &e) || e.kind != SIM_EVENT_KICK)
            continue;
        self->kicks[self->kick_seq % VW_KICKS] =
            (vw_kick_t) { e.team, e.id, e.speed, (double) e.time_ns / 1e9 };
        self->kick_seq++;
    }
}

static void
s_on_frames (vw_service_t *self, const Simbus__Frames *msg)
{
    if (!self->watching)
        return;
    for (size_t i = 0; i < msg->n_wrapper; i++)
        vw_frames_keep (self->frames, msg->wrapper[i].data, msg->wrapper[i].len);
    /* a page asking sees these frames now, not with the next snapshot:
       vision releases a capture after physics published it, and a paused
       world (a replay's seek or step) publishes nothing more after it */
    self->serial++;
    vw_pages_serve (self, NULL);
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    vw_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_STATS:
        if (self->replay && env->stats->replay)
            vw_replay_take (self, env->stats->replay); /* physics' own, once a second */
        vw_stats_keep (self, env);
        return true; /* kept (or freed) there */
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        s_on_config (self, env->config);
        break;
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT:
        s_on_snapshot (self, env->snapshot);
        break;
    case SIMBUS__ENVELOPE__BODY_EVENTS:
        s_on_events (self, env->events);
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES:
        s_on_frames (self, env->frames);
        break;
    case SIMBUS__ENVELOPE__BODY_REPLY: /* to a timeline op of the replay's page */
        if (env->reply->n_errors && env->reply->errors[0]->message)
            sim_warn ("replay: %s", env->reply->errors[0]->message);
        vw_replay_take (self, env->reply->replay);
        break;
    case SIMBUS__ENVELOPE__BODY_COMMANDS:
        if (self->watching)
            vw_commands_take (&self->commands, env->commands);
        break;
    default:
        break;
    }
    return false;
}

/* The status twice a second while pages are connected; then none. */
static int64_t
s_on_status_due (void *arg, int64_t deadline, int64_t now)
{
    vw_service_t *self = arg;
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    bool pages = hub->client_count > 0;
    vw_stats_refresh (self);
    char *text = pages ? vw_json_status (&hub->status) : NULL;
    pthread_mutex_unlock (&hub->lock);
    if (text)
        vw_pages_serve (self, text);
    free (text);
    return pages ? sim_loop_period (deadline, VW_STATUS_US, now) : SIM_LOOP_NEVER;
}

/* ---- life ------------------------------------------------------------------- */

/* sim_service_def_t's stop, and the undoing of a failed s_new. */
static void
s_destroy (void *arg)
{
    vw_service_t *self = arg;
    if (!self)
        return;
    /* the server first: its threads read the hub; its pages told first,
       so that their threads end at once */
    if (self->http)
        vw_pages_close (self->hub);
    vw_http_destroy (&self->http);
    vw_player_close (self);
    vw_replay_close (self);
    vw_door_destroy (&self->door);
    sim_link_destroy (&self->link);
    vw_frames_destroy (&self->frames);
    vw_referee_close (self);
    vw_text_free (&self->world_text);
    vw_stats_release (self);
    vw_hub_destroy (&self->hub);
    free (self);
}

/* [viewer] addr split into host and port, the port moved by the offset. */
static int
s_listen_addr (const sim_config_t *cfg, char *host, size_t len, int *port)
{
    const char *colon = strrchr (cfg->viewer.addr, ':');
    if (!colon || colon == cfg->viewer.addr || (size_t) (colon - cfg->viewer.addr) >= len)
        return -1;
    snprintf (host, len, "%.*s", (int) (colon - cfg->viewer.addr), cfg->viewer.addr);
    *port = sim_config_port (cfg, atoi (colon + 1));
    return *port > 0 && *port <= 65535 ? 0 : -1;
}

int
vw_viewer_url (const sim_config_t *cfg, char *buf, size_t len)
{
    char dir[SIM_STRING_MAX];
    return sim_bus_runtime_dir_find (cfg, dir, sizeof dir) != 0 ? -1 : vw_door_read_url (dir, buf, len);
}

/* `ssl-sim play`: the log is the world; the configuration given is the
   one in force (no physics sends one), and the log's referee records are
   the game state (the multicast would echo them). 0 or -1. */
static int
s_play (vw_service_t *self, const sim_service_args_t *args)
{
    if (vw_player_open (self, args->play, args->play_loop))
        return -1;
    vw_hub_t *hub = self->hub;
    pthread_mutex_lock (&hub->lock);
    hub->player = true;
    hub->hello = vw_json_hello (self->own.run.mode, self->own.sim.seed);
    hub->geometry = vw_json_geometry (&self->own);
    hub->marks = vw_player_marks (self);
    hub->have_config = hub->hello && hub->geometry && hub->marks;
    vw_stats_refresh (self);
    pthread_mutex_unlock (&hub->lock);
    return hub->have_config ? 0 : -1;
}

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    vw_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->referee_fd = -1;
    self->own = self->cfg = *cfg;
    self->started_us = zclock_usecs ();
    self->frames = vw_frames_new ();
    self->hub = vw_hub_new ();
    if (!self->frames || !self->hub) {
        s_destroy (self);
        return NULL;
    }
    self->hub->started_us = self->started_us;
    sim_rig_t rig;
    sim_rig_resolve (cfg, &rig);
    self->camera_count = rig.count;
    self->hub->ctx.cfg = *cfg;
    self->hub->ctx.resume_speed = cfg->run.speed > 0 ? cfg->run.speed : 1.0;
    if (vw_ops_control_addr (cfg, &self->hub->control))
        sim_warn ("[network] bind_address '%s' is not an IPv4 address: the page's actions will fail",
                  cfg->network.bind_address);
    self->hub->ops_fd = vw_ops_socket (&self->hub->control);
    self->hub->ops_port = self->hub->ops_fd >= 0 ? sim_udp_local_port (self->hub->ops_fd) : 0;
    if (self->hub->ops_fd < 0)
        sim_warn ("no UDP socket for the page's actions: each will fail with UNAVAILABLE");
    char www[PATH_MAX], host[SIM_STRING_MAX];
    int port = 0;
    if (vw_www_dir (cfg, www, sizeof www)) {
        sim_error ("no index.html in %s: set [viewer] www_dir or run `make install`", www);
        s_destroy (self);
        return NULL;
    }
    if (s_listen_addr (cfg, host, sizeof host, &port)) {
        sim_error ("[viewer] addr '%s' is not HOST:PORT", cfg->viewer.addr);
        s_destroy (self);
        return NULL;
    }
    self->link = sim_link_new (cfg, SIM_LINK_VIEWER);
    if (!self->link || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_CONFIG)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_STATS)
        || sim_loop_add_fd (self->loop, "pages", self->hub->wake[0], s_on_wake, self)
        || sim_link_attach (self->link, self->loop, 0, s_on_bus, self)
        || (args->play     ? s_play (self, args)
            : args->replay ? vw_replay_open (self) /* a journal has no referee; the network's is not its */
                           : vw_referee_open (self))
        || (self->status_timer =
                sim_loop_add_timer (self->loop, "status", SIM_LOOP_NEVER, s_on_status_due, self))
               < 0) {
        s_destroy (self);
        return NULL;
    }
    char dir[SIM_STRING_MAX];
    /* a played log's or journal's page is not the simulator's: `ssl-sim
       status` keeps showing a running simulator's address, and its token
       stays its own */
    bool have_dir = !args->play && !args->replay && sim_bus_runtime_dir (cfg, dir, sizeof dir) == 0;
    self->door = vw_door_new (cfg, host, port, have_dir ? dir : NULL);
    self->http = self->door ? vw_http_new (host, port, www, self->hub, self->door) : NULL;
    if (!self->http) {
        s_destroy (self);
        return NULL;
    }
    return self;
}

/* sim_service_run_status's status: a played log that ended in damage. */
static int
s_exit_code (void *arg)
{
    return vw_player_exit_code (arg);
}

void
vw_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_VIEWER, s_new, s_destroy };
    sim_service_run_status (pipe, args, &def, s_exit_code);
}
