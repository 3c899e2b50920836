/*  test_bus_codec.c - common/bus/sim_bus_codec.c: snapshots, events, clock marks
    and the effective configuration, through a real pack and sim_bus_decode
    as on the bus: what is decoded equals what was encoded to the bit, and
    nothing the bus says (counts, teams, ids, kinds, text) is trusted.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"

/* ---- helpers ------------------------------------------------------------ */

/* Pack `env` as sim_bus_send does and decode it as a receiver does.
   Free the result with simbus__envelope__free_unpacked. */
static Simbus__Envelope *
s_wire (Simbus__Envelope *env)
{
    env->version = SIM_BUS_VERSION;
    size_t size = simbus__envelope__get_packed_size (env);
    uint8_t *buf = malloc (size ? size : 1);
    cr_assert_not_null (buf);
    cr_assert_eq (simbus__envelope__pack (env, buf), size);
    bool warned = false;
    Simbus__Envelope *out = sim_bus_decode (buf, size, &warned);
    free (buf);
    cr_assert_not_null (out, "a packed envelope decodes");
    cr_assert_not (warned);
    cr_assert_eq (out->body_case, env->body_case);
    return out;
}

static bool
s_bits (double a, double b)
{
    return memcmp (&a, &b, sizeof a) == 0;
}

#define S_EXPECT_BITS(a_, b_, what_, i_) \
    cr_expect (s_bits ((a_), (b_)), "%s of #%d: %a became %a", (what_), (int) (i_), (a_), (b_))

/* Awkward doubles: every one must survive as it is. */
static double
s_value (int i)
{
    static const double v[] = { 0.0,     -0.0,    1.0 / 3.0,         -4.5e-310 /* subnormal */,
                                6.02e23, -1e-300, 3.141592653589793, 9007199254740993.0,
                                -2.5,    1e-17 };
    return v[i % (int) (sizeof v / sizeof v[0])] * (1.0 + i * 1e-9);
}

static sim_snapshot_t
s_snapshot (int robots)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = 0xfedcba9876543210ull;
    s.ball = (sim_ball_state_t) { s_value (1), s_value (2), s_value (3), s_value (4),
                                  s_value (5), s_value (6), s_value (7), NAN };
    s.robot_count = robots;
    for (int i = 0; i < robots; i++)
        s.robots[i] = (sim_robot_state_t) {
            .team = i % 2 ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE,
            .id = (i * 37) % (SIM_MAX_ROBOT_ID + 1),
            .x = s_value (i),
            .y = s_value (i + 1),
            .orientation = s_value (i + 2),
            .vx = s_value (i + 3),
            .vy = s_value (i + 4),
            .omega = s_value (i + 5),
            .ball_contact = i % 3 == 0,
            .radius = s_value (i + 6),
            .height = s_value (i + 7),
        };
    s.robots[robots > 0 ? robots - 1 : 0].id = SIM_MAX_ROBOT_ID;
    return s;
}

static void
s_expect_same_snapshot (const sim_snapshot_t *a, const sim_snapshot_t *b)
{
    cr_expect_eq (b->time_ns, a->time_ns);
    const double *ba = &a->ball.x, *bb = &b->ball.x;
    for (int k = 0; k < 8; k++)
        S_EXPECT_BITS (ba[k], bb[k], "ball field", k);
    cr_assert_eq (b->robot_count, a->robot_count);
    for (int i = 0; i < a->robot_count; i++) {
        const sim_robot_state_t *r = &a->robots[i], *o = &b->robots[i];
        cr_expect_eq (o->team, r->team, "robot #%d", i);
        cr_expect_eq (o->id, r->id, "robot #%d", i);
        cr_expect_eq (o->ball_contact, r->ball_contact, "robot #%d", i);
        S_EXPECT_BITS (r->x, o->x, "x", i);
        S_EXPECT_BITS (r->y, o->y, "y", i);
        S_EXPECT_BITS (r->orientation, o->orientation, "orientation", i);
        S_EXPECT_BITS (r->vx, o->vx, "vx", i);
        S_EXPECT_BITS (r->vy, o->vy, "vy", i);
        S_EXPECT_BITS (r->omega, o->omega, "omega", i);
        S_EXPECT_BITS (r->radius, o->radius, "radius", i);
        S_EXPECT_BITS (r->height, o->height, "height", i);
    }
}

/* ---- snapshots ---------------------------------------------------------- */

Test (bus_codec, snapshot_round_trip_is_exact)
{
    const int counts[] = { 0, 1, 22, SIM_SNAPSHOT_MAX_ROBOTS };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        sim_snapshot_t in = s_snapshot (counts[k]);
        sim_bus_snapshot_msg_t m;
        Simbus__Envelope *env = sim_bus_snapshot_encode (&m, &in, true, 0x8000000000000001ull);
        cr_assert_eq (env, &m.env, "the envelope lives in the caller's struct");
        Simbus__Envelope *got = s_wire (env);
        cr_assert_eq (got->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
        cr_expect (got->snapshot->has_step_id);
        cr_expect_eq (got->snapshot->step_id, 0x8000000000000001ull, "the step id is kept");
        sim_snapshot_t out;
        memset (&out, 0xa5, sizeof out);
        cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
        s_expect_same_snapshot (&in, &out);
        simbus__envelope__free_unpacked (got, NULL);
    }
}

Test (bus_codec, snapshot_without_a_step_has_no_step_id)
{
    sim_snapshot_t in = s_snapshot (3);
    sim_bus_snapshot_msg_t m;
    Simbus__Envelope *got = s_wire (sim_bus_snapshot_encode (&m, &in, false, 99));
    cr_expect_not (got->snapshot->has_step_id);
    sim_snapshot_t out;
    cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
    s_expect_same_snapshot (&in, &out);
    simbus__envelope__free_unpacked (got, NULL);
}

Test (bus_codec, snapshot_carries_the_timestamp_base_only_when_set)
{
    /* fast and sync runs (base 0) must keep their bytes: no field at all */
    sim_snapshot_t in = s_snapshot (2);
    sim_bus_snapshot_msg_t m;
    Simbus__Envelope *got = s_wire (sim_bus_snapshot_encode (&m, &in, false, 0));
    cr_expect_not (got->snapshot->has_epoch_us);
    sim_snapshot_t out;
    cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
    cr_expect_eq (out.epoch_us, 0);
    simbus__envelope__free_unpacked (got, NULL);
    in.epoch_us = 1796000000123456LL;
    got = s_wire (sim_bus_snapshot_encode (&m, &in, false, 0));
    cr_expect (got->snapshot->has_epoch_us);
    cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
    cr_expect_eq (out.epoch_us, 1796000000123456LL);
    simbus__envelope__free_unpacked (got, NULL);
}

Test (bus_codec, snapshot_encoding_caps_the_robot_count)
{
    sim_snapshot_t in = s_snapshot (SIM_SNAPSHOT_MAX_ROBOTS);
    in.robot_count = SIM_SNAPSHOT_MAX_ROBOTS + 5; /* a caller's slip must not read past robots[] */
    sim_bus_snapshot_msg_t m;
    sim_bus_snapshot_encode (&m, &in, false, 0);
    cr_expect_eq (m.snapshot.n_robot_x, SIM_SNAPSHOT_MAX_ROBOTS);
    cr_expect_eq (m.snapshot.n_robot_height, SIM_SNAPSHOT_MAX_ROBOTS);
    in.robot_count = -3;
    sim_bus_snapshot_encode (&m, &in, false, 0);
    cr_expect_eq (m.snapshot.n_robot_team, 0);
    cr_expect_eq (m.snapshot.n_robot_ball_contact, 0);
}

/* A hand-made Snapshot body, as a foreign or broken sender could put on the bus. */
typedef struct {
    Simbus__Snapshot snap;
    Simbus__BallState ball;
    uint32_t team[100], id[100];
    double x[100], zero[100];
    protobuf_c_boolean contact[100];
} s_raw_t;

static void
s_raw (s_raw_t *r, size_t n)
{
    memset (r, 0, sizeof *r);
    simbus__snapshot__init (&r->snap);
    simbus__ball_state__init (&r->ball);
    r->ball.x = 1.5;
    r->snap.ball = &r->ball;
    r->snap.time_ns = 42;
    for (size_t i = 0; i < n; i++) {
        r->team[i] = (uint32_t) (i % 2);
        r->id[i] = (uint32_t) i;
        r->x[i] = (double) i;
    }
    Simbus__Snapshot *o = &r->snap;
    o->n_robot_team = o->n_robot_id = o->n_robot_x = o->n_robot_y = o->n_robot_orientation = o->n_robot_vx =
        o->n_robot_vy = o->n_robot_omega = o->n_robot_ball_contact = o->n_robot_radius = o->n_robot_height =
            n;
    o->robot_team = r->team;
    o->robot_id = r->id;
    o->robot_x = r->x;
    o->robot_y = o->robot_orientation = o->robot_vx = o->robot_vy = o->robot_omega = o->robot_radius =
        o->robot_height = r->zero;
    o->robot_ball_contact = r->contact;
}

Test (bus_codec, snapshot_decode_drops_robots_of_no_team_or_a_bad_id)
{
    s_raw_t r;
    s_raw (&r, 8);
    r.team[1] = 2;
    r.team[3] = UINT32_MAX;
    r.id[4] = SIM_MAX_ROBOT_ID + 1;
    r.id[6] = UINT32_MAX;
    r.id[7] = SIM_MAX_ROBOT_ID; /* the highest id is fine */
    /* through the wire, so the values are what a receiver really sees */
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_SNAPSHOT, &r.snap);
    Simbus__Envelope *got = s_wire (&env);
    sim_snapshot_t out;
    cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
    simbus__envelope__free_unpacked (got, NULL);
    const int kept[] = { 0, 2, 5, 7 };
    cr_assert_eq (out.robot_count, 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq (out.robots[i].x, (double) kept[i], "robot %d kept in order", kept[i]);
        cr_expect_eq (out.robots[i].team, kept[i] % 2 ? SIM_TEAM_YELLOW : SIM_TEAM_BLUE);
    }
    cr_expect_eq (out.robots[3].id, SIM_MAX_ROBOT_ID);
    cr_expect_eq (out.time_ns, 42);
    cr_expect_eq (out.ball.x, 1.5);
}

Test (bus_codec, snapshot_decode_keeps_at_most_the_snapshot_capacity)
{
    s_raw_t r;
    s_raw (&r, 100);
    sim_snapshot_t out;
    cr_assert_eq (sim_bus_snapshot_decode (&r.snap, &out), 0);
    cr_expect_eq (out.robot_count, SIM_SNAPSHOT_MAX_ROBOTS);
    cr_expect_eq (out.robots[SIM_SNAPSHOT_MAX_ROBOTS - 1].x, (double) (SIM_SNAPSHOT_MAX_ROBOTS - 1));
}

Test (bus_codec, snapshot_decode_refuses_robot_arrays_of_different_lengths)
{
    /* every array one short in turn, through the wire: a sender that
       lies about one field must not make the decoder read past another */
    for (int field = 0; field < 11; field++) {
        s_raw_t r;
        s_raw (&r, 6);
        size_t *counts[] = {
            &r.snap.n_robot_team,   &r.snap.n_robot_id,          &r.snap.n_robot_x,
            &r.snap.n_robot_y,      &r.snap.n_robot_orientation, &r.snap.n_robot_vx,
            &r.snap.n_robot_vy,     &r.snap.n_robot_omega,       &r.snap.n_robot_ball_contact,
            &r.snap.n_robot_radius, &r.snap.n_robot_height
        };
        *counts[field] = 5;
        Simbus__Envelope env;
        sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_SNAPSHOT, &r.snap);
        Simbus__Envelope *got = s_wire (&env);
        sim_snapshot_t out = s_snapshot (3), before = out;
        cr_expect_eq (sim_bus_snapshot_decode (got->snapshot, &out), -1, "array %d short", field);
        cr_expect_eq (out.robot_count, before.robot_count, "a refused snapshot leaves *out alone");
        simbus__envelope__free_unpacked (got, NULL);
    }
}

Test (bus_codec, snapshot_decode_refuses_a_snapshot_without_ball)
{
    s_raw_t r;
    s_raw (&r, 2);
    r.snap.ball = NULL;
    sim_snapshot_t out = s_snapshot (5), before = out;
    cr_expect_eq (sim_bus_snapshot_decode (&r.snap, &out), -1);
    cr_expect_eq (out.robot_count, before.robot_count, "a refused snapshot leaves *out alone");
    cr_expect_eq (out.time_ns, before.time_ns);
}

Test (bus_codec, a_snapshot_decodes_the_same_into_an_arena_big_or_small)
{
    /* the heap takes what the buffer cannot; freeing with the arena frees
       exactly that (LSan in `make asan` sees a leak or a bad free) */
    static _Alignas(16) uint8_t big[32 * 1024], tiny[100];
    /* a buffer that starts off any alignment: the arena aligns addresses */
    static _Alignas(16) uint8_t odd_store[32 * 1024 + 3];
    uint8_t *odd = odd_store + 3;
    struct {
        uint8_t *buf;
        size_t cap;
    } arenas[] = { { big, sizeof big }, { odd, sizeof odd_store - 3 }, { tiny, sizeof tiny }, { NULL, 0 } };
    sim_snapshot_t in = s_snapshot (SIM_SNAPSHOT_MAX_ROBOTS);
    sim_bus_snapshot_msg_t m;
    Simbus__Envelope *env = sim_bus_snapshot_encode (&m, &in, true, 5);
    env->version = SIM_BUS_VERSION;
    size_t size = simbus__envelope__get_packed_size (env);
    uint8_t *wire = malloc (size);
    cr_assert_not_null (wire);
    simbus__envelope__pack (env, wire);
    for (size_t k = 0; k < sizeof arenas / sizeof arenas[0]; k++) {
        sim_bus_arena_t arena;
        sim_bus_arena_init (&arena, arenas[k].buf, arenas[k].cap);
        for (int round = 0; round < 3; round++) { /* reused, as the link does */
            sim_bus_arena_reset (&arena);
            bool warned = false;
            Simbus__Envelope *got = sim_bus_decode_in (wire, size, &warned, &arena.base);
            cr_assert_not_null (got);
            if (arenas[k].buf == big || arenas[k].buf == odd)
                cr_expect ((uint8_t *) got >= arenas[k].buf
                               && (uint8_t *) got < arenas[k].buf + arenas[k].cap,
                           "from the buffer");
            cr_expect_eq ((uintptr_t) got % 8, 0, "an envelope at a misaligned address");
            cr_expect_eq ((uintptr_t) got->snapshot->robot_x % 8, 0, "doubles at a misaligned address");
            cr_expect_leq (arena.used, arenas[k].cap);
            sim_snapshot_t out;
            cr_assert_eq (sim_bus_snapshot_decode (got->snapshot, &out), 0);
            s_expect_same_snapshot (&in, &out);
            if (arenas[k].buf == big || arenas[k].buf == odd)
                cr_expect_eq (arena.spilled, 0, "the buffer holds it all");
            else
                cr_expect_gt (arena.spilled, 0, "the heap took what the buffer could not");
            /* round 0 the long way; then as the link frees (a spill, freed
               or leaked, is what LSan in `make asan` would see) */
            if (round == 0)
                simbus__envelope__free_unpacked (got, &arena.base);
            else
                sim_bus_arena_free (&arena, got);
        }
    }
    /* a message of another version is refused and freed with the arena too */
    wire[1] = SIM_BUS_VERSION + 1; /* tag 1 varint: the version byte */
    sim_bus_arena_t arena;
    sim_bus_arena_init (&arena, tiny, sizeof tiny);
    bool warned = false;
    cr_expect_null (sim_bus_decode_in (wire, size, &warned, &arena.base));
    cr_expect (warned);
    free (wire);
}

/* ---- flat snapshots (same-host lanes) --------------------------------- */

/* The flat form decodes to what the packed one decodes to, to the bit,
   step id and timestamp flags included, from the heap or an arena (of any
   size: LSan in `make asan` sees a leak or a bad free). */
/* The flat layout carries Snapshot's 16 fields and BallState's 8: a field
   added to either in sim_bus.proto must be added to it too (and its
   magic changed), or lanes would drop what ZeroMQ carries. */
Test (bus_codec, the_flat_layout_knows_every_snapshot_field)
{
    cr_expect_eq (simbus__snapshot__descriptor.n_fields, 16);
    cr_expect_eq (simbus__ball_state__descriptor.n_fields, 8);
}

Test (bus_codec, a_flat_snapshot_decodes_as_the_packed_one)
{
    static _Alignas(16) uint8_t big[32 * 1024], tiny[100];
    const int counts[] = { 0, 1, 22, SIM_SNAPSHOT_MAX_ROBOTS };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int variant = 0; variant < 2; variant++) {
            sim_snapshot_t in = s_snapshot (counts[k]);
            in.epoch_us = variant ? -1234567 : 0;
            in.command_us = variant ? 0 : 987654321;
            sim_bus_snapshot_msg_t m;
            Simbus__Envelope *env = sim_bus_snapshot_encode (&m, &in, variant, 0x8000000000000001ull);
            uint8_t flat[SIM_BUS_FLAT_MAX + 1]; /* +1: data need not be aligned */
            size_t len = sim_bus_snapshot_flatten (env->snapshot, flat + 1, SIM_BUS_FLAT_MAX);
            cr_assert_gt (len, 0, "%d robots", counts[k]);
            Simbus__Envelope *packed = s_wire (env);
            sim_snapshot_t want;
            cr_assert_eq (sim_bus_snapshot_decode (packed->snapshot, &want), 0);
            sim_bus_arena_t arenas[3];
            sim_bus_arena_init (&arenas[0], big, sizeof big);
            sim_bus_arena_init (&arenas[1], tiny, sizeof tiny);
            ProtobufCAllocator *allocs[] = { NULL, &arenas[0].base, &arenas[1].base };
            for (int a = 0; a < 3; a++) {
                Simbus__Envelope *got = sim_bus_snapshot_unflatten (flat + 1, len, allocs[a]);
                cr_assert_not_null (got);
                cr_expect_eq (got->version, SIM_BUS_VERSION);
                cr_assert_eq (got->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
                const Simbus__Snapshot *g = got->snapshot, *p = packed->snapshot;
                cr_expect_eq (g->has_step_id, p->has_step_id);
                cr_expect_eq (g->step_id, p->step_id);
                cr_expect_eq (g->has_epoch_us, p->has_epoch_us);
                cr_expect_eq (g->has_command_us, p->has_command_us);
                sim_snapshot_t out;
                memset (&out, 0xa5, sizeof out);
                cr_assert_eq (sim_bus_snapshot_decode (g, &out), 0);
                s_expect_same_snapshot (&want, &out);
                cr_expect_eq (out.epoch_us, want.epoch_us);
                cr_expect_eq (out.command_us, want.command_us);
                /* every field of the message, not only what sim_snapshot_t
                   keeps: a field the flat layout forgot shows here */
                env->version = SIM_BUS_VERSION;
                size_t n_got = simbus__envelope__get_packed_size (got);
                size_t n_env = simbus__envelope__get_packed_size (env);
                cr_assert_eq (n_got, n_env, "%d robots: packed sizes %zu and %zu", counts[k], n_got, n_env);
                uint8_t *b_got = malloc (n_got + 1), *b_env = malloc (n_env + 1);
                cr_assert (b_got && b_env);
                simbus__envelope__pack (got, b_got);
                simbus__envelope__pack (env, b_env);
                cr_expect_eq (memcmp (b_got, b_env, n_got), 0, "%d robots: packed bytes differ", counts[k]);
                free (b_got);
                free (b_env);
                simbus__envelope__free_unpacked (got, allocs[a]);
            }
            simbus__envelope__free_unpacked (packed, NULL);
        }
}

/* What physics would not send is not flattened (the caller packs it), and
   nothing flat of another length, layout or version decodes. */
Test (bus_codec, flat_snapshots_trust_no_length_or_layout)
{
    sim_snapshot_t in = s_snapshot (22);
    sim_bus_snapshot_msg_t m;
    Simbus__Envelope *env = sim_bus_snapshot_encode (&m, &in, false, 0);
    uint8_t flat[SIM_BUS_FLAT_MAX];
    size_t len = sim_bus_snapshot_flatten (env->snapshot, flat, sizeof flat);
    cr_assert_gt (len, 0);
    cr_expect_eq (sim_bus_snapshot_flatten (env->snapshot, flat, len - 1), 0, "too small a buffer");
    m.snapshot.n_robot_height = 21;
    cr_expect_eq (sim_bus_snapshot_flatten (env->snapshot, flat, sizeof flat), 0, "arrays of two lengths");
    m.snapshot.n_robot_height = 22;
    m.snapshot.ball = NULL;
    cr_expect_eq (sim_bus_snapshot_flatten (env->snapshot, flat, sizeof flat), 0, "no ball");
    m.snapshot.ball = &m.ball;
    cr_assert_eq (sim_bus_snapshot_flatten (env->snapshot, flat, sizeof flat), len);
    for (size_t cut = 0; cut < len; cut += 7)
        cr_expect_null (sim_bus_snapshot_unflatten (flat, cut, NULL), "cut at %zu", cut);
    uint8_t longer[SIM_BUS_FLAT_MAX + 8];
    memcpy (longer, flat, len);
    cr_expect_null (sim_bus_snapshot_unflatten (longer, len + 8, NULL), "trailing bytes");
    /* the header: magic, version, robot count, flags (four 32-bit words) */
    for (int word = 0; word < 4; word++) {
        uint8_t bad[SIM_BUS_FLAT_MAX];
        memcpy (bad, flat, len);
        uint32_t v;
        memcpy (&v, bad + 4 * word, 4);
        v = word == 2 ? SIM_SNAPSHOT_MAX_ROBOTS + 1 : word == 3 ? 8 : v + 1;
        memcpy (bad + 4 * word, &v, 4);
        cr_expect_null (sim_bus_snapshot_unflatten (bad, len, NULL), "header word %d", word);
    }
    Simbus__Envelope *got = sim_bus_snapshot_unflatten (flat, len, NULL);
    cr_assert_not_null (got);
    simbus__envelope__free_unpacked (got, NULL);
}

/* ---- events ------------------------------------------------------------- */

static sim_event_t
s_event (sim_event_kind_t kind, uint64_t t, int team, int id, int other_team, int other_id, double speed,
         double elevation)
{
    return (sim_event_t) { kind, t, team, id, other_team, other_id, speed, elevation };
}

static void
s_expect_same_event (const sim_event_t *a, const sim_event_t *b, int i)
{
    cr_expect_eq (b->kind, a->kind, "event %d", i);
    cr_expect_eq (b->time_ns, a->time_ns, "event %d", i);
    cr_expect_eq (b->team, a->team, "event %d", i);
    cr_expect_eq (b->id, a->id, "event %d", i);
    cr_expect_eq (b->other_team, a->other_team, "event %d", i);
    cr_expect_eq (b->other_id, a->other_id, "event %d", i);
    S_EXPECT_BITS (a->speed, b->speed, "speed", i);
    S_EXPECT_BITS (a->elevation_deg, b->elevation_deg, "elevation", i);
}

/* Events as physics makes them (engine/physics: phys_kicker,
   phys_dribbler, phys_collide, phys_world): speed and elevation only for
   kicks, -1 where a robot is not named. */
Test (bus_codec, events_round_trip)
{
    const sim_event_t in[] = {
        s_event (SIM_EVENT_KICK, 1000000, SIM_TEAM_BLUE, 0, -1, -1, 6.5, 0.0),
        s_event (SIM_EVENT_KICK, 2000000, SIM_TEAM_YELLOW, SIM_MAX_ROBOT_ID, -1, -1, 1.0 / 3.0, 45.0),
        s_event (SIM_EVENT_BALL_LEFT_FIELD, 3000000, -1, -1, -1, -1, 0, 0),
        s_event (SIM_EVENT_DRIBBLER_SLIP, 4000000, SIM_TEAM_YELLOW, 7, -1, -1, 0, 0),
        s_event (SIM_EVENT_ROBOT_COLLISION, UINT64_MAX, SIM_TEAM_BLUE, 3, SIM_TEAM_YELLOW, 11, 0, 0),
    };
    const int n = (int) (sizeof in / sizeof in[0]);
    sim_bus_events_msg_t m;
    Simbus__Envelope *got = s_wire (sim_bus_events_encode (&m, in, n));
    cr_assert_eq (got->events->n_events, (size_t) n);
    for (int i = 0; i < n; i++) {
        sim_event_t out;
        cr_assert_eq (sim_bus_event_decode (got->events->events[i], &out), 0, "event %d", i);
        s_expect_same_event (&in[i], &out, i);
    }
    simbus__envelope__free_unpacked (got, NULL);
}

/* Regression: a goal event names the conceding team and no robot (id -1,
   as phys_world_step emits it); the encoder used to send id -1 as
   4294967295, which the decoder refused, so tools lost every goal. */
Test (bus_codec, goal_events_round_trip)
{
    const sim_event_t goal = s_event (SIM_EVENT_GOAL, 5000000, SIM_TEAM_YELLOW, -1, -1, -1, 0, 0);
    sim_bus_events_msg_t m;
    Simbus__Envelope *got = s_wire (sim_bus_events_encode (&m, &goal, 1));
    sim_event_t out;
    cr_expect_eq (sim_bus_event_decode (got->events->events[0], &out), 0, "a goal event decodes");
    s_expect_same_event (&goal, &out, 0);
    simbus__envelope__free_unpacked (got, NULL);
}

Test (bus_codec, events_beyond_the_maximum_are_cut)
{
    sim_event_t in[SIM_BUS_EVENTS_MAX + 9];
    for (int i = 0; i < SIM_BUS_EVENTS_MAX + 9; i++)
        in[i] = s_event (SIM_EVENT_DRIBBLER_SLIP, (uint64_t) i, SIM_TEAM_BLUE, i % 16, -1, -1, 0, 0);
    sim_bus_events_msg_t m;
    Simbus__Envelope *got = s_wire (sim_bus_events_encode (&m, in, SIM_BUS_EVENTS_MAX + 9));
    cr_assert_eq (got->events->n_events, SIM_BUS_EVENTS_MAX, "the first SIM_BUS_EVENTS_MAX go");
    for (int i = 0; i < SIM_BUS_EVENTS_MAX; i++) {
        sim_event_t out;
        cr_assert_eq (sim_bus_event_decode (got->events->events[i], &out), 0);
        cr_expect_eq (out.time_ns, (uint64_t) i, "in order");
    }
    simbus__envelope__free_unpacked (got, NULL);
    cr_expect_null (sim_bus_events_encode (&m, in, 0), "no events, no message");
    cr_expect_null (sim_bus_events_encode (&m, in, -1));
}

Test (bus_codec, events_with_a_bad_kind_team_or_id_are_refused)
{
    Simbus__Event e;
    sim_event_t out;
    simbus__event__init (&e);
    e.kind = SIMBUS__EVENT__KIND__DRIBBLER_SLIP;
    e.has_team = e.has_id = true;
    e.team = 1;
    e.id = 4;
    cr_assert_eq (sim_bus_event_decode (&e, &out), 0, "the valid event the others vary");

    Simbus__Event bad = e;
    bad.kind = (Simbus__Event__Kind) 0;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "kind 0");
    bad.kind = (Simbus__Event__Kind) (SIMBUS__EVENT__KIND__ROBOT_COLLISION + 1);
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "a kind from the future");
    bad = e;
    bad.team = 2;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "team 2");
    bad = e;
    bad.id = SIM_MAX_ROBOT_ID + 1;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "id 256");
    bad = e;
    bad.kind = SIMBUS__EVENT__KIND__ROBOT_COLLISION;
    bad.has_other_team = bad.has_other_id = true;
    bad.other_team = 0;
    bad.other_id = 9;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), 0, "a collision names two robots");
    cr_expect_eq (out.other_id, 9);
    bad.other_team = 7;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "the other robot's team is checked too");
    bad.other_team = 0;
    bad.other_id = 1000;
    cr_expect_eq (sim_bus_event_decode (&bad, &out), -1, "the other robot's id is checked too");
}

/* ---- clock -------------------------------------------------------------- */

Test (bus_codec, clock_round_trip)
{
    const sim_mode_t modes[] = { SIM_MODE_REALTIME, SIM_MODE_FAST, SIM_MODE_SYNC };
    for (int k = 0; k < 3; k++) {
        sim_bus_clock_msg_t m;
        Simbus__Envelope *got =
            s_wire (sim_bus_clock_encode (&m, 123456789012345ull + (uint64_t) k, modes[k], k != 1, 12 + k));
        const Simbus__Clock *c = got->clock;
        cr_expect_eq (c->time_ns, 123456789012345ull + (uint64_t) k);
        cr_expect_eq (c->mode, (uint32_t) modes[k]);
        cr_expect_eq (c->running, k != 1);
        cr_expect_eq (c->robots, (uint32_t) (12 + k));
        simbus__envelope__free_unpacked (got, NULL);
    }
    sim_bus_clock_msg_t m;
    sim_bus_clock_encode (&m, 0, SIM_MODE_SYNC, false, -4);
    cr_expect_eq (m.clock.robots, 0, "a negative count goes as none");
}

/* ---- configuration ---------------------------------------------------- */

/* Physics' effective configuration: simulation keys changed from the
   defaults, and its own process keys. */
static void
s_physics_cfg (sim_config_t *cfg)
{
    sim_config_defaults (cfg);
    cfg->run.mode = SIM_MODE_SYNC;
    cfg->run.speed = 2.5;
    cfg->sim.seed = 987654321;
    cfg->sim.initial_robots_per_team = 3;
    cfg->ball.mass = 0.0459;
    cfg->realism.stddev_ball_p = 1.0 / 3.0;
    cfg->team[SIM_TEAM_YELLOW].radius = 0.088;
    cfg->vision.frame_rate = 75.0;
    cfg->rig_generation = 4;
    cr_assert_eq (sim_bus_resolve (cfg, "physics-side"), 0);
    cfg->bus.sync_timeout = 0.7;
    cfg->bus.lanes = false;
    snprintf (cfg->network.bind_address, sizeof cfg->network.bind_address, "10.1.2.3");
    cfg->network.port_offset = 200;
    cfg->network.control_port = 10400;
    snprintf (cfg->run.log_level, sizeof cfg->run.log_level, "debug");
    cfg->run.duration = 30;
    char err[256];
    cr_assert_eq (sim_config_validate (cfg, err, sizeof err), 0, "%s", err);
}

/* The receiver: defaults and its own process keys. */
static void
s_own_cfg (sim_config_t *own)
{
    sim_config_defaults (own);
    cr_assert_eq (sim_bus_resolve (own, "receiver-side"), 0);
    own->bus.sync_timeout = 1.25;
    own->bus.lanes = true;
    snprintf (own->network.bind_address, sizeof own->network.bind_address, "127.0.0.1");
    own->network.port_offset = 7;
    own->network.blue_port = 10333;
    snprintf (own->run.log_level, sizeof own->run.log_level, "warn");
    own->run.duration = 0;
}

/* Physics' configuration published with `serial`, through the wire. */
static Simbus__Envelope *
s_config_wire (const sim_config_t *cfg, uint64_t serial)
{
    sim_bus_config_msg_t m;
    Simbus__Envelope *env = sim_bus_config_encode (&m, cfg, serial);
    cr_assert_not_null (env);
    Simbus__Envelope *got = s_wire (env);
    sim_bus_config_msg_release (&m);
    cr_expect_null (m.ini, "released");
    sim_bus_config_msg_release (&m); /* safe twice */
    return got;
}

Test (bus_codec, config_round_trip_keeps_the_receivers_local_keys)
{
    sim_config_t phys, own;
    s_physics_cfg (&phys);
    s_own_cfg (&own);
    Simbus__Envelope *got = s_config_wire (&phys, 17);
    cr_expect_eq (got->config->serial, 17);
    cr_expect_eq (got->config->rig_generation, 4);

    sim_config_t out = own;
    uint64_t serial = 0;
    cr_assert_eq (sim_bus_config_decode (got->config, &own, &out, &serial), 0);
    cr_expect_eq (serial, 17);

    /* the simulation is physics' ... */
    cr_expect_eq (out.run.mode, SIM_MODE_SYNC);
    cr_expect_eq (out.run.speed, 2.5);
    cr_expect_eq (out.sim.seed, 987654321);
    cr_expect_eq (out.team[SIM_TEAM_YELLOW].radius, 0.088);
    cr_expect (s_bits (out.realism.stddev_ball_p, 1.0 / 3.0));
    cr_expect_eq (out.rig_generation, 4, "the rig generation travels beside the text");
    /* ... the host and process are the receiver's */
    cr_expect_str_eq (out.bus.cmd_connect, own.bus.cmd_connect);
    cr_expect_str_eq (out.bus.world_bind, own.bus.world_bind);
    cr_expect_eq (out.bus.sync_timeout, 1.25);
    cr_expect_eq (out.bus.lanes, true);
    cr_expect_str_eq (out.network.bind_address, "127.0.0.1");
    cr_expect_eq (out.network.port_offset, 7);
    cr_expect_eq (out.network.blue_port, 10333);
    cr_expect_eq (out.network.control_port, own.network.control_port);
    cr_expect_str_eq (out.run.log_level, "warn");
    cr_expect_eq (out.run.duration, 0);

    /* and that is all that differs: the rest is physics' to the byte */
    sim_config_t expect = phys;
    sim_config_keep_local (&expect, &own);
    cr_expect (memcmp (&out, &expect, sizeof out) == 0,
               "the decoded configuration is physics' plus local keys");
    simbus__envelope__free_unpacked (got, NULL);
}

Test (bus_codec, config_seen_before_is_not_loaded_again)
{
    sim_config_t phys, own;
    s_physics_cfg (&phys);
    s_own_cfg (&own);
    sim_config_t out = own;
    uint64_t serial = 0;
    Simbus__Envelope *first = s_config_wire (&phys, 5);
    cr_assert_eq (sim_bus_config_decode (first->config, &own, &out, &serial), 0);
    sim_config_t loaded = out;

    /* the once-a-second re-publication: same serial, same rig */
    cr_expect_eq (sim_bus_config_decode (first->config, &own, &out, &serial), 1);
    cr_expect_eq (serial, 5);
    cr_expect (memcmp (&out, &loaded, sizeof out) == 0, "*out untouched");

    /* the same serial with a new rig generation is loaded */
    phys.rig_generation = 5;
    Simbus__Envelope *rig = s_config_wire (&phys, 5);
    cr_expect_eq (sim_bus_config_decode (rig->config, &own, &out, &serial), 0);
    cr_expect_eq (out.rig_generation, 5);
    cr_expect_eq (sim_bus_config_decode (rig->config, &own, &out, &serial), 1);

    /* a new serial is loaded */
    phys.run.speed = 0.5;
    Simbus__Envelope *next = s_config_wire (&phys, 6);
    cr_expect_eq (sim_bus_config_decode (next->config, &own, &out, &serial), 0);
    cr_expect_eq (serial, 6);
    cr_expect_eq (out.run.speed, 0.5);

    simbus__envelope__free_unpacked (first, NULL);
    simbus__envelope__free_unpacked (rig, NULL);
    simbus__envelope__free_unpacked (next, NULL);
}

Test (bus_codec, config_that_does_not_load_is_refused)
{
    sim_config_t own;
    s_own_cfg (&own);
    const char *bad[] = {
        "[sim]\nsubstep = banana\n",
        "[run]\nspeed = -4\n",
        "[ball]\nradius\n",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        Simbus__Config c;
        simbus__config__init (&c);
        c.serial = 9;
        c.ini = (char *) bad[k];
        sim_config_t out = own;
        out.run.speed = 3.0;
        uint64_t serial = 4;
        cr_expect_eq (sim_bus_config_decode (&c, &own, &out, &serial), -1, "%s", bad[k]);
        cr_expect_eq (serial, 4, "the serial stays");
        cr_expect_eq (out.run.speed, 3.0, "*out stays");
    }
    Simbus__Config none;
    simbus__config__init (&none);
    none.serial = 9;
    none.ini = NULL;
    sim_config_t out = own;
    uint64_t serial = 0;
    cr_expect_eq (sim_bus_config_decode (&none, &own, &out, &serial), -1, "no text at all");
    cr_expect_eq (serial, 0);
}

Test (bus_codec, wrap_sets_the_body_and_clears_the_rest)
{
    Simbus__Envelope env;
    Simbus__Clock clock;
    simbus__clock__init (&clock);
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_CLOCK, &clock);
    cr_expect_eq (env.body_case, SIMBUS__ENVELOPE__BODY_CLOCK);
    cr_expect_eq (env.clock, &clock);
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY__NOT_SET, NULL);
    cr_expect_eq (env.body_case, SIMBUS__ENVELOPE__BODY__NOT_SET);
}
