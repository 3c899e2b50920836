/*  viewer.c - the viewer service actor (viewer.h): the bus side.

    One loop: the actor pipe, the bus, and the hub's wake pipe (pages
    joining, leaving, asking for the next "world"). Per snapshot it keeps
    the newest truth and hands a "world" to each page that asked; per
    frames message it keeps each camera's newest detection; on Stats and
    configuration it refreshes what the status bar and /metrics read.
*/
#include "viewer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"
#include "common/config/sim_schedule_config.h"
#include "common/bus/sim_service.h"
#include "common/logs/sim_stats.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "vw_http.h"
#include "vw_hub.h"
#include "vw_json.h"

#define VW_STATUS_US    500000   /* "status" to the pages twice a second */
#define VW_KICKS        64       /* kicks remembered for pages that have not had them */
#define VW_PAGE_IDLE_US 10000000 /* a page that asked for nothing this long gets no status */
#define VW_RAW          16       /* newest vision packets kept undecoded */

/* A vision packet as it came, decoded only when a page gets a "world". */
typedef struct {
    uint8_t *data;
    size_t len, cap;
} vw_raw_t;

/* A block that only grows, for sim_bus_arena_t: every struct of a decoded
   vision packet comes from it and all go together when the block is
   reused, instead of some forty mallocs and frees per packet. */
typedef struct {
    uint8_t *buf;
    size_t cap;
} vw_arena_t;

#define VW_ARENA_MIN (64 * 1024)
#define VW_ARENA_MAX (4 * 1024 * 1024) /* a packet that needs more is not drawn */

typedef struct {
    sim_config_t own, cfg;
    uint64_t config_serial;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    vw_hub_t *hub;
    vw_http_t *http;
    bool watching; /* subscribed to snapshots, events and frames */

    sim_snapshot_t truth;
    bool have_truth;
    uint64_t serial;                           /* bumped per snapshot */
    SSLWrapperPacket *frames[SIM_MAX_CAMERAS]; /* each camera's newest decoded detection, in arena[] */
    vw_arena_t arena[SIM_MAX_CAMERAS];         /* what frames[i] lives in */
    vw_arena_t scratch;                        /* the packet being decoded */
    uint64_t frame_seq[SIM_MAX_CAMERAS];       /* its packet's number (raw_seq at its arrival + 1) */
    vw_raw_t raw[VW_RAW];
    uint64_t raw_seq;     /* packets kept in all; the newest is raw[(raw_seq - 1) % VW_RAW] */
    uint64_t decoded_seq; /* packets up to this one were looked at */
    int camera_count;     /* of the rig in force */
    vw_kick_t kicks[VW_KICKS];
    uint64_t kick_seq;    /* kicks seen in all; the newest is kicks[(kick_seq - 1) % VW_KICKS] */
    vw_text_t world_text; /* the "world" being sent, its buffer reused */

    Simbus__Envelope *stats[VW_SERVICES]; /* newest Stats per service, owned */
    int status_timer;                     /* armed while pages are connected */
    int64_t started_us;
} vw_service_t;

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

/* Decode `len` bytes into self->scratch; NULL when they are no packet (or
   need more than VW_ARENA_MAX). */
static SSLWrapperPacket *
s_unpack (vw_service_t *self, const uint8_t *data, size_t len)
{
    vw_arena_t *a = &self->scratch;
    size_t want = len * 4 > VW_ARENA_MIN ? len * 4 : VW_ARENA_MIN;
    if (a->cap > VW_ARENA_MIN && want == VW_ARENA_MIN) {
        /* a block one large packet grew goes back to the usual size, so
           a peer cannot leave every camera's block at the maximum */
        uint8_t *shrunk = realloc (a->buf, VW_ARENA_MIN);
        if (shrunk) {
            a->buf = shrunk;
            a->cap = VW_ARENA_MIN;
        }
    }
    for (;;) {
        if (a->cap < want) {
            if (want > VW_ARENA_MAX)
                return NULL;
            uint8_t *grown = realloc (a->buf, want);
            if (!grown)
                return NULL;
            a->buf = grown;
            a->cap = want;
        }
        sim_bus_arena_t arena;
        sim_bus_arena_init (&arena, a->buf, a->cap);
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (&arena.base, len, data);
        if (!w || !arena.spilled)
            return w;                                        /* not a packet, or all of it in the block */
        ssl__wrapper_packet__free_unpacked (w, &arena.base); /* frees what spilled */
        want = a->cap * 2;
    }
}

static void
s_free_frames (vw_service_t *self)
{
    for (int i = 0; i < SIM_MAX_CAMERAS; i++) {
        self->frames[i] = NULL; /* the arenas are reused, not freed */
        self->frame_seq[i] = 0;
    }
    self->decoded_seq = self->raw_seq; /* what is kept is older than any page's world */
}

/* Decode the packets that came since the last look, newest first, until
   every camera of the rig has its newest: a page at 60 Hz costs about one
   decode per camera per world, a page that asks seldom far fewer than one
   per packet. */
static void
s_decode_frames (vw_service_t *self)
{
    uint64_t oldest = self->raw_seq > VW_RAW ? self->raw_seq - VW_RAW : 0;
    if (self->decoded_seq > oldest)
        oldest = self->decoded_seq;
    int found = 0;
    for (uint64_t k = self->raw_seq; k > oldest && found < self->camera_count; k--) {
        const vw_raw_t *r = &self->raw[(k - 1) % VW_RAW];
        SSLWrapperPacket *w = s_unpack (self, r->data, r->len);
        if (!w || !w->detection || w->detection->camera_id >= SIM_MAX_CAMERAS
            || self->frame_seq[w->detection->camera_id] >= k)
            continue; /* the scratch block is simply reused */
        uint32_t cam = w->detection->camera_id;
        /* the camera's block now holds this packet; its old one is the next scratch */
        vw_arena_t old = self->arena[cam];
        self->arena[cam] = self->scratch;
        self->scratch = old;
        self->frames[cam] = w;
        self->frame_seq[cam] = k;
        found++;
    }
    self->decoded_seq = self->raw_seq;
}

/* The first page makes the viewer watch the world; the last one leaving
   stops it, so an unwatched simulator costs it nothing per frame. */
static void
s_watch (vw_service_t *self, bool on)
{
    if (on == self->watching)
        return;
    static const Simbus__Envelope__BodyCase kinds[] = { SIMBUS__ENVELOPE__BODY_SNAPSHOT,
                                                        SIMBUS__ENVELOPE__BODY_EVENTS,
                                                        SIMBUS__ENVELOPE__BODY_FRAMES };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (on)
            sim_link_subscribe (self->link, kinds[i]);
        else
            sim_link_unsubscribe (self->link, kinds[i]);
    self->watching = on;
    if (!on) {
        s_free_frames (self);
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
    s_decode_frames (self);
    const void *frames[SIM_MAX_CAMERAS];
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        frames[i] = self->frames[i];
    vw_world_t w = { .truth = &self->truth,
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

/* Greet new pages, send a "world" to each that asked and has not seen
   the newest state, and the status when due (`status`, or NULL). */
static void
s_serve_pages (vw_service_t *self, const char *status)
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
            char *text = vw_json_status (&hub->status);
            s_send (c, text);
            free (text);
            c->greeted = true;
            c->kick_seq = self->kick_seq;
        } else if (status && c->greeted && zclock_usecs () - c->asked_us < VW_PAGE_IDLE_US)
            s_send (c, status); /* a page that stopped asking is sent nothing more */
        if (c->greeted && c->want && self->have_truth && c->sent_serial != self->serial) {
            const char *text = s_world_text (self, c);
            c->want = false;
            c->sent_serial = self->serial;
            s_send (c, text);
        }
    }
    pthread_mutex_unlock (&hub->lock);
}

static void
s_broadcast (vw_service_t *self, const char *text)
{
    vw_hub_t *hub = self->hub;
    for (int i = 0; i < VW_CLIENTS_MAX; i++)
        if (hub->clients[i].conn && hub->clients[i].greeted)
            s_send (&hub->clients[i], text);
}

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
    s_watch (self, pages);
    if (pages && sim_loop_timer_deadline (self->loop, self->status_timer) == SIM_LOOP_NEVER)
        sim_loop_timer_set (self->loop, self->status_timer, zclock_usecs () + VW_STATUS_US);
    s_serve_pages (self, NULL);
}

/* ---- the bus ---------------------------------------------------------------- */

/* Recompute the status from the newest Stats; with the hub locked. */
static void
s_refresh_status (vw_service_t *self)
{
    vw_hub_t *hub = self->hub;
    const Simbus__Stats *st[VW_SERVICES] = { NULL };
    for (int i = 0; i < VW_SERVICES; i++)
        st[i] = self->stats[i] ? self->stats[i]->stats : NULL;
    bool alive[VW_SERVICES];
    vw_hub_alive (hub, zclock_usecs (), alive);
    vw_status_from_stats (&hub->status, &self->cfg, st[0], st[1], st[2], st[3], alive,
                          (double) (zclock_usecs () - self->started_us) / 1e6);
    Simbus__Stats own;
    sim_stats_begin (&own, "viewer", self->started_us);
    hub->status.restarts[VW_SERVICES - 1] = own.restarts;
    if (hub->realism[0])
        snprintf (hub->status.realism, sizeof hub->status.realism, "%s", hub->realism);
    /* the newest truth is newer than physics' last Stats */
    if (self->have_truth)
        hub->status.t = (double) self->truth.time_ns / 1e9;
}

static void
s_on_stats (vw_service_t *self, Simbus__Envelope *env)
{
    int i = sim_service_find (env->stats->service);
    if (i < 0 || i == VW_SERVICES - 1) {
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    pthread_mutex_lock (&self->hub->lock);
    if (self->stats[i])
        simbus__envelope__free_unpacked (self->stats[i], NULL);
    self->stats[i] = env;
    self->hub->heard_us[i] = zclock_usecs ();
    s_refresh_status (self);
    pthread_mutex_unlock (&self->hub->lock);
}

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
    s_refresh_status (self);
    if (changed)
        s_broadcast (self, hub->geometry);
    pthread_mutex_unlock (&hub->lock);
    s_serve_pages (self, NULL); /* pages that came before the configuration */
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
    s_serve_pages (self, NULL);
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
    for (size_t i = 0; i < msg->n_wrapper; i++) {
        const ProtobufCBinaryData *w = &msg->wrapper[i];
        vw_raw_t *r = &self->raw[self->raw_seq % VW_RAW];
        if (w->len > r->cap) {
            uint8_t *grown = realloc (r->data, w->len);
            if (!grown)
                continue;
            r->data = grown;
            r->cap = w->len;
        }
        memcpy (r->data, w->data, w->len);
        r->len = w->len;
        self->raw_seq++;
    }
}

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    vw_service_t *self = arg;
    (void) from;
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_STATS:
        s_on_stats (self, env);
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
    s_refresh_status (self);
    char *text = pages ? vw_json_status (&hub->status) : NULL;
    pthread_mutex_unlock (&hub->lock);
    if (text)
        s_serve_pages (self, text);
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
    /* the server first: its threads read the hub */
    vw_http_destroy (&self->http);
    sim_link_destroy (&self->link);
    s_free_frames (self);
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        free (self->arena[i].buf);
    free (self->scratch.buf);
    for (int i = 0; i < VW_RAW; i++)
        free (self->raw[i].data);
    vw_text_free (&self->world_text);
    for (int i = 0; i < VW_SERVICES; i++)
        if (self->stats[i])
            simbus__envelope__free_unpacked (self->stats[i], NULL);
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

/* sim_service_def_t's start. */
static void *
s_new (const sim_service_args_t *args, sim_loop_t *loop)
{
    const sim_config_t *cfg = &args->cfg;
    vw_service_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = loop;
    self->own = self->cfg = *cfg;
    self->started_us = zclock_usecs ();
    self->hub = vw_hub_new ();
    if (!self->hub) {
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
        || (self->status_timer =
                sim_loop_add_timer (self->loop, "status", SIM_LOOP_NEVER, s_on_status_due, self))
               < 0) {
        s_destroy (self);
        return NULL;
    }
    self->http = vw_http_new (host, port, www, self->hub);
    if (!self->http) {
        s_destroy (self);
        return NULL;
    }
    return self;
}

void
vw_service_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_VIEWER, s_new, s_destroy };
    sim_service_run (pipe, args, &def);
}
