/*  sim_bus_codec.c - bodies of bus messages to and from plain structs. */
#include "sim_bus_codec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "sim_bus.h"
#include "common/base/sim_log.h"
#include "common/base/sim_team.h"

static void *
s_arena_alloc (void *data, size_t size)
{
    sim_bus_arena_t *self = data;
    /* the address aligned for any type (max_align_t on this ABI), not
       only the offset: the caller's buffer may start anywhere */
    uintptr_t base = (uintptr_t) self->buf;
    size_t at = (size_t) (((base + self->used + 15) & ~(uintptr_t) 15) - base);
    if (self->buf && size <= self->cap && at <= self->cap - size) {
        self->used = at + size;
        return self->buf + at;
    }
    self->spilled++;
    return malloc (size);
}

static void
s_arena_free (void *data, void *ptr)
{
    sim_bus_arena_t *self = data;
    uintptr_t p = (uintptr_t) ptr, base = (uintptr_t) self->buf;
    if (ptr && (p < base || p - base >= self->cap))
        free (ptr); /* beyond the buffer: from the heap */
}

void
sim_bus_arena_init (sim_bus_arena_t *self, void *buf, size_t cap)
{
    self->base = (ProtobufCAllocator) { s_arena_alloc, s_arena_free, self };
    self->buf = buf;
    self->cap = buf ? cap : 0;
    self->used = 0;
    self->spilled = 0;
}

void
sim_bus_arena_reset (sim_bus_arena_t *self)
{
    self->used = 0;
    self->spilled = 0;
}

void
sim_bus_arena_free (sim_bus_arena_t *self, Simbus__Envelope *env)
{
    if (env && self->spilled > 0)
        simbus__envelope__free_unpacked (env, &self->base);
}

void
sim_bus_wrap (Simbus__Envelope *env, Simbus__Envelope__BodyCase kind, void *body)
{
    simbus__envelope__init (env);
    env->body_case = kind;
    switch (kind) {
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT:
        env->snapshot = body;
        break;
    case SIMBUS__ENVELOPE__BODY_EVENTS:
        env->events = body;
        break;
    case SIMBUS__ENVELOPE__BODY_CONFIG:
        env->config = body;
        break;
    case SIMBUS__ENVELOPE__BODY_CLOCK:
        env->clock = body;
        break;
    case SIMBUS__ENVELOPE__BODY_STEP_DONE:
        env->step_done = body;
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES:
        env->frames = body;
        break;
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        env->frames_done = body;
        break;
    case SIMBUS__ENVELOPE__BODY_REQUEST:
        env->request = body;
        break;
    case SIMBUS__ENVELOPE__BODY_REPLY:
        env->reply = body;
        break;
    case SIMBUS__ENVELOPE__BODY_STATS:
        env->stats = body;
        break;
    case SIMBUS__ENVELOPE__BODY_COMMANDS:
        env->commands = body;
        break;
    default:
        assert (body == NULL);
        env->body_case = SIMBUS__ENVELOPE__BODY__NOT_SET;
        break;
    }
}

Simbus__Envelope *
sim_bus_snapshot_encode (sim_bus_snapshot_msg_t *m, const sim_snapshot_t *snap, bool has_step,
                         uint64_t step_id)
{
    const sim_ball_state_t *b = &snap->ball;
    simbus__ball_state__init (&m->ball);
    m->ball.x = b->x;
    m->ball.y = b->y;
    m->ball.z = b->z;
    m->ball.vx = b->vx;
    m->ball.vy = b->vy;
    m->ball.vz = b->vz;
    m->ball.spin_x = b->spin_x;
    m->ball.spin_y = b->spin_y;
    int n = snap->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? snap->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    if (n < 0)
        n = 0;
    for (int i = 0; i < n; i++) {
        const sim_robot_state_t *r = &snap->robots[i];
        m->team[i] = (uint32_t) r->team;
        m->id[i] = (uint32_t) r->id;
        m->x[i] = r->x;
        m->y[i] = r->y;
        m->orientation[i] = r->orientation;
        m->vx[i] = r->vx;
        m->vy[i] = r->vy;
        m->omega[i] = r->omega;
        m->ball_contact[i] = r->ball_contact;
        m->radius[i] = r->radius;
        m->height[i] = r->height;
    }
    simbus__snapshot__init (&m->snapshot);
    Simbus__Snapshot *o = &m->snapshot;
    o->time_ns = snap->time_ns;
    o->ball = &m->ball;
    o->n_robot_team = o->n_robot_id = o->n_robot_x = o->n_robot_y = o->n_robot_orientation = o->n_robot_vx =
        o->n_robot_vy = o->n_robot_omega = o->n_robot_ball_contact = o->n_robot_radius = o->n_robot_height =
            (size_t) n;
    o->robot_team = m->team;
    o->robot_id = m->id;
    o->robot_x = m->x;
    o->robot_y = m->y;
    o->robot_orientation = m->orientation;
    o->robot_vx = m->vx;
    o->robot_vy = m->vy;
    o->robot_omega = m->omega;
    o->robot_ball_contact = m->ball_contact;
    o->robot_radius = m->radius;
    o->robot_height = m->height;
    m->snapshot.has_step_id = has_step;
    m->snapshot.step_id = step_id;
    m->snapshot.has_epoch_us = snap->epoch_us != 0;
    m->snapshot.epoch_us = snap->epoch_us;
    m->snapshot.has_command_us = snap->command_us != 0;
    m->snapshot.command_us = snap->command_us;
    sim_bus_wrap (&m->env, SIMBUS__ENVELOPE__BODY_SNAPSHOT, &m->snapshot);
    return &m->env;
}

int
sim_bus_snapshot_decode (const Simbus__Snapshot *msg, sim_snapshot_t *out)
{
    const Simbus__BallState *b = msg->ball;
    size_t count = msg->n_robot_team;
    if (!b || msg->n_robot_id != count || msg->n_robot_x != count || msg->n_robot_y != count
        || msg->n_robot_orientation != count || msg->n_robot_vx != count || msg->n_robot_vy != count
        || msg->n_robot_omega != count || msg->n_robot_ball_contact != count || msg->n_robot_radius != count
        || msg->n_robot_height != count)
        return -1;
    out->time_ns = msg->time_ns;
    out->epoch_us = msg->has_epoch_us ? msg->epoch_us : 0;
    out->command_us = msg->has_command_us ? msg->command_us : 0;
    out->ball = (sim_ball_state_t) { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->spin_x, b->spin_y };
    int n = 0;
    for (size_t i = 0; i < count && n < SIM_SNAPSHOT_MAX_ROBOTS; i++) {
        if (msg->robot_team[i] > 1 || msg->robot_id[i] > SIM_MAX_ROBOT_ID)
            continue;
        out->robots[n++] = (sim_robot_state_t) {
            .team = sim_team_from_number (msg->robot_team[i]),
            .id = (int) msg->robot_id[i],
            .x = msg->robot_x[i],
            .y = msg->robot_y[i],
            .orientation = msg->robot_orientation[i],
            .vx = msg->robot_vx[i],
            .vy = msg->robot_vy[i],
            .omega = msg->robot_omega[i],
            .ball_contact = msg->robot_ball_contact[i],
            .radius = msg->robot_radius[i],
            .height = msg->robot_height[i],
        };
    }
    out->robot_count = n;
    return 0;
}

/* ---- flat snapshots (same-host lanes) --------------------------------- */

/* "FLAT" read as little-endian bytes; a new value for any change of the
   layout below, so builds that differ in it refuse each other's records */
#define S_FLAT_MAGIC   0x54414c46u
#define S_FLAT_STEP    1u
#define S_FLAT_EPOCH   2u
#define S_FLAT_COMMAND 4u

/* The header; then the robots' arrays, each n elements long, in the order
   of s_flat_u32 and s_flat_f64 (memcpy'd in and out: the record may start
   anywhere in a datagram). */
typedef struct {
    uint32_t magic, version; /* S_FLAT_MAGIC, SIM_BUS_VERSION */
    uint32_t count, flags;   /* robots; S_FLAT_* */
    uint64_t time_ns, step_id;
    int64_t epoch_us, command_us;
    double ball[8]; /* x y z vx vy vz spin_x spin_y */
} s_flat_head_t;

_Static_assert(sizeof (s_flat_head_t) == 112, "the flat header has no padding");
_Static_assert(sizeof (protobuf_c_boolean) == sizeof (uint32_t), "ball contact travels as 32 bits");
#define S_FLAT_U32 3 /* team, id, ball contact */
#define S_FLAT_F64 8 /* x, y, orientation, vx, vy, omega, radius, height */
_Static_assert(SIM_BUS_FLAT_MAX
                   == sizeof (s_flat_head_t) + (S_FLAT_U32 * 4 + S_FLAT_F64 * 8) * SIM_SNAPSHOT_MAX_ROBOTS,
               "SIM_BUS_FLAT_MAX is the size of the largest flat snapshot");

static size_t
s_flat_size (size_t n)
{
    return sizeof (s_flat_head_t) + (S_FLAT_U32 * 4 + S_FLAT_F64 * 8) * n;
}

/* Copy `size` bytes between buffers that do not overlap. memmove, not
   memcpy: GCC expands a memcpy whose size it knows to be small (here at
   most SIM_SNAPSHOT_MAX_ROBOTS elements) as `rep movsq`, whose start-up
   cost more than copying these few hundred bytes (it was most of vision's
   unflattening); memmove stays a call to the C library's copy. */
static void
s_copy (void *dst, const void *src, size_t size)
{
    memmove (dst, src, size);
}

size_t
sim_bus_snapshot_flatten (const Simbus__Snapshot *msg, void *buf, size_t cap)
{
    assert (msg && buf);
    const Simbus__BallState *b = msg->ball;
    size_t n = msg->n_robot_team;
    if (!b || n > SIM_SNAPSHOT_MAX_ROBOTS || s_flat_size (n) > cap || msg->n_robot_id != n
        || msg->n_robot_ball_contact != n || msg->n_robot_x != n || msg->n_robot_y != n
        || msg->n_robot_orientation != n || msg->n_robot_vx != n || msg->n_robot_vy != n
        || msg->n_robot_omega != n || msg->n_robot_radius != n || msg->n_robot_height != n)
        return 0;
    s_flat_head_t h = {
        .magic = S_FLAT_MAGIC,
        .version = SIM_BUS_VERSION,
        .count = (uint32_t) n,
        .flags = (msg->has_step_id ? S_FLAT_STEP : 0) | (msg->has_epoch_us ? S_FLAT_EPOCH : 0)
               | (msg->has_command_us ? S_FLAT_COMMAND : 0),
        .time_ns = msg->time_ns,
        /* an absent optional reads as 0, as it does unpacked */
        .step_id = msg->has_step_id ? msg->step_id : 0,
        .epoch_us = msg->has_epoch_us ? msg->epoch_us : 0,
        .command_us = msg->has_command_us ? msg->command_us : 0,
        .ball = { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->spin_x, b->spin_y },
    };
    uint8_t *p = buf;
    s_copy (p, &h, sizeof h);
    p += sizeof h;
    const void *u32[S_FLAT_U32] = { msg->robot_team, msg->robot_id, msg->robot_ball_contact };
    const double *f64[S_FLAT_F64] = { msg->robot_x,      msg->robot_y,     msg->robot_orientation,
                                      msg->robot_vx,     msg->robot_vy,    msg->robot_omega,
                                      msg->robot_radius, msg->robot_height };
    for (int i = 0; i < S_FLAT_U32 && n; p += 4 * n, i++)
        s_copy (p, u32[i], 4 * n);
    for (int i = 0; i < S_FLAT_F64 && n; p += 8 * n, i++)
        s_copy (p, f64[i], 8 * n);
    return s_flat_size (n);
}

/* An array of `size` bytes from alloc, copied from src; NULL for none. */
static void *
s_flat_array (ProtobufCAllocator *alloc, const uint8_t *src, size_t size, bool *failed)
{
    if (size == 0)
        return NULL;
    void *a = alloc->alloc (alloc->allocator_data, size);
    if (!a) {
        *failed = true;
        return NULL;
    }
    s_copy (a, src, size);
    return a;
}

static void *
s_heap_alloc (void *data, size_t size)
{
    (void) data;
    return malloc (size);
}

static void
s_heap_free (void *data, void *ptr)
{
    (void) data;
    free (ptr);
}

Simbus__Envelope *
sim_bus_snapshot_unflatten (const void *data, size_t len, ProtobufCAllocator *alloc)
{
    assert (data || len == 0);
    ProtobufCAllocator heap = { s_heap_alloc, s_heap_free, NULL };
    if (!alloc)
        alloc = &heap;
    s_flat_head_t h;
    if (len < sizeof h)
        return NULL;
    memcpy (&h, data, sizeof h);
    if (h.magic != S_FLAT_MAGIC || h.version != SIM_BUS_VERSION || h.count > SIM_SNAPSHOT_MAX_ROBOTS
        || len != s_flat_size (h.count) || (h.flags & ~(S_FLAT_STEP | S_FLAT_EPOCH | S_FLAT_COMMAND)))
        return NULL;
    Simbus__Envelope *env = alloc->alloc (alloc->allocator_data, sizeof *env);
    Simbus__Snapshot *o = alloc->alloc (alloc->allocator_data, sizeof *o);
    Simbus__BallState *b = alloc->alloc (alloc->allocator_data, sizeof *b);
    if (!env || !o || !b) {
        if (env)
            alloc->free (alloc->allocator_data, env);
        if (o)
            alloc->free (alloc->allocator_data, o);
        if (b)
            alloc->free (alloc->allocator_data, b);
        return NULL;
    }
    simbus__ball_state__init (b);
    b->x = h.ball[0];
    b->y = h.ball[1];
    b->z = h.ball[2];
    b->vx = h.ball[3];
    b->vy = h.ball[4];
    b->vz = h.ball[5];
    b->spin_x = h.ball[6];
    b->spin_y = h.ball[7];
    simbus__snapshot__init (o);
    o->time_ns = h.time_ns;
    o->ball = b;
    o->has_step_id = (h.flags & S_FLAT_STEP) != 0;
    o->step_id = h.step_id;
    o->has_epoch_us = (h.flags & S_FLAT_EPOCH) != 0;
    o->epoch_us = h.epoch_us;
    o->has_command_us = (h.flags & S_FLAT_COMMAND) != 0;
    o->command_us = h.command_us;
    size_t n = h.count;
    const uint8_t *p = (const uint8_t *) data + sizeof h;
    bool failed = false;
    o->robot_team = s_flat_array (alloc, p, 4 * n, &failed);
    o->robot_id = s_flat_array (alloc, p + 4 * n, 4 * n, &failed);
    o->robot_ball_contact = s_flat_array (alloc, p + 8 * n, 4 * n, &failed);
    p += 12 * n;
    double **f64[S_FLAT_F64] = { &o->robot_x,  &o->robot_y,     &o->robot_orientation, &o->robot_vx,
                                 &o->robot_vy, &o->robot_omega, &o->robot_radius,      &o->robot_height };
    for (int i = 0; i < S_FLAT_F64; p += 8 * n, i++)
        *f64[i] = s_flat_array (alloc, p, 8 * n, &failed);
    o->n_robot_team = o->n_robot_id = o->n_robot_x = o->n_robot_y = o->n_robot_orientation = o->n_robot_vx =
        o->n_robot_vy = o->n_robot_omega = o->n_robot_ball_contact = o->n_robot_radius = o->n_robot_height =
            n;
    sim_bus_wrap (env, SIMBUS__ENVELOPE__BODY_SNAPSHOT, o);
    env->version = SIM_BUS_VERSION;
    if (failed) {
        /* free_unpacked frees every array that was made (the others are NULL) */
        simbus__envelope__free_unpacked (env, alloc == &heap ? NULL : alloc);
        return NULL;
    }
    return env;
}

Simbus__Envelope *
sim_bus_events_encode (sim_bus_events_msg_t *m, const sim_event_t *events, int n)
{
    if (n <= 0)
        return NULL;
    if (n > SIM_BUS_EVENTS_MAX)
        n = SIM_BUS_EVENTS_MAX;
    for (int i = 0; i < n; i++) {
        const sim_event_t *e = &events[i];
        Simbus__Event *o = &m->items[i];
        simbus__event__init (o);
        o->kind = (Simbus__Event__Kind) e->kind;
        o->time_ns = e->time_ns;
        /* a goal names the conceding team but no robot */
        o->has_team = e->team >= 0;
        o->has_id = e->id >= 0;
        o->team = (uint32_t) e->team;
        o->id = (uint32_t) e->id;
        o->has_other_team = e->other_team >= 0;
        o->has_other_id = e->other_id >= 0;
        o->other_team = (uint32_t) e->other_team;
        o->other_id = (uint32_t) e->other_id;
        o->has_speed = o->has_elevation = e->kind == SIM_EVENT_KICK;
        o->speed = e->speed;
        o->elevation = e->elevation_deg;
        m->ptrs[i] = o;
    }
    simbus__events__init (&m->events);
    m->events.n_events = (size_t) n;
    m->events.events = m->ptrs;
    sim_bus_wrap (&m->env, SIMBUS__ENVELOPE__BODY_EVENTS, &m->events);
    return &m->env;
}

int
sim_bus_event_decode (const Simbus__Event *msg, sim_event_t *out)
{
    if (msg->kind < SIMBUS__EVENT__KIND__KICK || msg->kind > SIMBUS__EVENT__KIND__ROBOT_COLLISION)
        return -1;
    if ((msg->has_team && msg->team > 1) || (msg->has_id && msg->id > SIM_MAX_ROBOT_ID)
        || (msg->has_other_team && msg->other_team > 1)
        || (msg->has_other_id && msg->other_id > SIM_MAX_ROBOT_ID) || (msg->has_id && !msg->has_team)
        || (msg->has_other_id && !msg->has_other_team))
        return -1;
    *out = (sim_event_t) {
        .kind = (sim_event_kind_t) msg->kind,
        .time_ns = msg->time_ns,
        .team = msg->has_team ? (int) msg->team : -1,
        .id = msg->has_id ? (int) msg->id : -1,
        .other_team = msg->has_other_team ? (int) msg->other_team : -1,
        .other_id = msg->has_other_id ? (int) msg->other_id : -1,
        .speed = msg->has_speed ? msg->speed : 0,
        .elevation_deg = msg->has_elevation ? msg->elevation : 0,
    };
    return 0;
}

Simbus__Envelope *
sim_bus_clock_encode (sim_bus_clock_msg_t *m, uint64_t time_ns, sim_mode_t mode, bool running, int robots)
{
    simbus__clock__init (&m->clock);
    m->clock.time_ns = time_ns;
    m->clock.mode = (uint32_t) mode;
    m->clock.running = running;
    m->clock.robots = (uint32_t) (robots > 0 ? robots : 0);
    sim_bus_wrap (&m->env, SIMBUS__ENVELOPE__BODY_CLOCK, &m->clock);
    return &m->env;
}

Simbus__Envelope *
sim_bus_config_encode (sim_bus_config_msg_t *m, const sim_config_t *cfg, uint64_t serial)
{
    m->ini = sim_config_dump (cfg, false);
    if (!m->ini)
        return NULL;
    simbus__config__init (&m->config);
    m->config.serial = serial;
    m->config.ini = m->ini;
    m->config.rig_generation = cfg->rig_generation;
    sim_bus_wrap (&m->env, SIMBUS__ENVELOPE__BODY_CONFIG, &m->config);
    return &m->env;
}

void
sim_bus_config_msg_release (sim_bus_config_msg_t *m)
{
    free (m->ini);
    m->ini = NULL;
}

int
sim_bus_config_decode (const Simbus__Config *msg, const sim_config_t *own, sim_config_t *out,
                       uint64_t *serial)
{
    if (*serial != 0 && msg->serial == *serial && msg->rig_generation == out->rig_generation)
        return 1;
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    if (!msg->ini || sim_config_load_string (&cfg, msg->ini, "effective configuration", err, sizeof err)) {
        sim_warn ("effective configuration rejected: %s", msg->ini ? err : "no text");
        return -1;
    }
    cfg.rig_generation = msg->rig_generation;
    sim_config_keep_local (&cfg, own);
    *out = cfg;
    *serial = msg->serial;
    return 0;
}
