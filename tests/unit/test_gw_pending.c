/*  test_gw_pending.c - services/gateway/gw_pending.c: the gateway's table of
    requests waiting for physics. Ids map to slots, an id no longer pending
    finds nothing, a full table refuses and counts, expiry calls back only
    what is due, and what a request owns (reply, frames, early errors) is
    freed exactly once: run under valgrind or `make asan` to see leaks.
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "services/gateway/gw_pending.h"
#include "common/bus/sim_bus.h"

static struct sockaddr_in
s_from (int port)
{
    struct sockaddr_in a;
    memset (&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons ((uint16_t) port);
    a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    return a;
}

static gw_request_t *
s_add (gw_pending_t *p, gw_req_kind_t kind, int64_t deadline)
{
    struct sockaddr_in from = s_from (40000 + (int) (deadline % 1000));
    return gw_pending_add (p, kind, GW_PORT_BLUE, &from, deadline);
}

/* A reply with bus id `id` as the gateway gets it: decoded from the wire,
   so the envelope is protobuf-c's to free. */
static Simbus__Envelope *
s_reply_env (uint64_t id)
{
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = id;
    reply.time_ns = 1000 * id;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.version = SIM_BUS_VERSION;
    env.body_case = SIMBUS__ENVELOPE__BODY_REPLY;
    env.reply = &reply;
    uint8_t buf[64];
    size_t size = simbus__envelope__pack (&env, buf);
    cr_assert_leq (size, sizeof buf);
    Simbus__Envelope *out = sim_bus_decode (buf, size, NULL);
    cr_assert_not_null (out);
    return out;
}

/* ---- ids and slots ------------------------------------------------------ */

Test (gw_pending, ids_map_to_slots_and_find_their_request)
{
    gw_pending_t *p = gw_pending_new (8);
    cr_assert_not_null (p);
    gw_request_t *r[5];
    bool slot_taken[8] = { false };
    for (int i = 0; i < 5; i++) {
        r[i] = s_add (p, i % 2 ? GW_REQ_ROBOTS : GW_REQ_COMMAND, 1000 + i);
        cr_assert_not_null (r[i]);
        cr_expect (r[i]->used);
        cr_expect_neq (r[i]->id, 0, "0 is never an id");
        cr_expect_not (slot_taken[r[i]->id % 8], "each request has a slot of its own");
        slot_taken[r[i]->id % 8] = true;
        for (int j = 0; j < i; j++)
            cr_expect_neq (r[i]->id, r[j]->id);
    }
    cr_expect_eq (gw_pending_count (p), 5);
    for (int i = 0; i < 5; i++) {
        cr_expect_eq (gw_pending_find (p, r[i]->id), r[i]);
        cr_expect_eq (r[i]->kind, i % 2 ? GW_REQ_ROBOTS : GW_REQ_COMMAND);
        cr_expect_eq (r[i]->port, GW_PORT_BLUE);
        cr_expect_eq (r[i]->deadline_us, 1000 + i);
        cr_expect_eq (ntohs (r[i]->from.sin_port), 40000 + (1000 + i) % 1000);
        cr_expect_eq (r[i]->from.sin_addr.s_addr, htonl (INADDR_LOOPBACK));
        cr_expect_null (r[i]->early, "only a sync request has an error list");
        /* the same slot under another id is not this request */
        cr_expect_null (gw_pending_find (p, r[i]->id + 8));
        cr_expect_null (gw_pending_find (p, r[i]->id + 8 * 1000003ull));
    }
    cr_expect_null (gw_pending_find (p, 0));
    cr_expect_null (gw_pending_find (p, UINT64_MAX));
    gw_pending_destroy (&p);
    cr_expect_null (p);
    gw_pending_destroy (&p); /* safe twice */
}

Test (gw_pending, a_released_id_finds_nothing_even_when_its_slot_is_reused)
{
    gw_pending_t *p = gw_pending_new (4);
    gw_request_t *a = s_add (p, GW_REQ_COMMAND, 10);
    uint64_t a_id = a->id;
    gw_pending_release (p, a);
    cr_expect_eq (gw_pending_count (p), 0);
    cr_expect_null (gw_pending_find (p, a_id), "a late reply to a forgotten request finds nothing");
    /* wrap around the table several times: the old id stays unknown */
    for (int i = 0; i < 13; i++) {
        gw_request_t *b = s_add (p, GW_REQ_COMMAND, 20 + i);
        cr_assert_not_null (b);
        cr_expect_neq (b->id, a_id, "ids are not reused");
        cr_expect_null (gw_pending_find (p, a_id));
        cr_expect_eq (gw_pending_find (p, b->id), b);
        uint64_t b_id = b->id;
        gw_pending_release (p, b);
        cr_expect_null (gw_pending_find (p, b_id));
    }
    gw_pending_destroy (&p);
}

Test (gw_pending, a_full_table_refuses_and_counts)
{
    gw_pending_t *p = gw_pending_new (4);
    gw_request_t *r[4];
    for (int i = 0; i < 4; i++)
        cr_assert_not_null (r[i] = s_add (p, GW_REQ_COMMAND, i));
    cr_expect_eq (gw_pending_refused (p), 0);
    cr_expect_null (s_add (p, GW_REQ_COMMAND, 9));
    cr_expect_null (s_add (p, GW_REQ_SYNC, 9), "a sync request neither");
    cr_expect_eq (gw_pending_refused (p), 2);
    cr_expect_eq (gw_pending_count (p), 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq (gw_pending_find (p, r[i]->id), r[i], "the refused adds disturbed nothing");
    /* room again after an answer */
    uint64_t freed_id = r[2]->id;
    gw_pending_release (p, r[2]);
    gw_request_t *again = s_add (p, GW_REQ_ROBOTS, 5);
    cr_assert_not_null (again);
    cr_expect_eq (again->id % 4, freed_id % 4, "the only free slot");
    cr_expect_neq (again->id, freed_id);
    cr_expect_eq (gw_pending_refused (p), 2, "refusals are counted, not forgotten");
    cr_expect_null (s_add (p, GW_REQ_COMMAND, 9));
    cr_expect_eq (gw_pending_refused (p), 3);
    gw_pending_destroy (&p);
}

/* ---- deadlines ---------------------------------------------------------- */

typedef struct {
    gw_pending_t *pending;
    int calls;
    uint64_t ids[16];
    int64_t deadlines[16];
    int64_t move_to; /* 0: release; else the new deadline */
} s_expiry_t;

static void
s_on_expired (void *arg, gw_request_t *req)
{
    s_expiry_t *e = arg;
    cr_assert_lt (e->calls, 16);
    e->ids[e->calls] = req->id;
    e->deadlines[e->calls] = req->deadline_us;
    e->calls++;
    if (e->move_to)
        req->deadline_us = e->move_to;
    else
        gw_pending_release (e->pending, req);
}

Test (gw_pending, expire_calls_back_only_what_is_due)
{
    gw_pending_t *p = gw_pending_new (16);
    s_expiry_t e = { .pending = p };
    cr_expect_eq (gw_pending_expire (p, 1000000, s_on_expired, &e), INT64_MAX, "nothing pending");
    cr_expect_eq (e.calls, 0);

    const int64_t deadlines[] = { 400, 100, 300, 250, 900 };
    uint64_t ids[5];
    for (int i = 0; i < 5; i++)
        ids[i] = s_add (p, GW_REQ_COMMAND, deadlines[i])->id;
    cr_expect_eq (gw_pending_expire (p, 99, s_on_expired, &e), 100, "none due yet: the earliest deadline");
    cr_expect_eq (e.calls, 0);

    /* a deadline equal to now has come */
    cr_expect_eq (gw_pending_expire (p, 250, s_on_expired, &e), 300);
    cr_expect_eq (e.calls, 2);
    for (int k = 0; k < e.calls; k++)
        cr_expect (e.deadlines[k] <= 250, "called back for a request due at %lld",
                   (long long) e.deadlines[k]);
    cr_expect_null (gw_pending_find (p, ids[1]));
    cr_expect_null (gw_pending_find (p, ids[3]));
    cr_expect_not_null (gw_pending_find (p, ids[0]));
    cr_expect_not_null (gw_pending_find (p, ids[2]));
    cr_expect_eq (gw_pending_count (p), 3);

    /* a callback that moves the deadline keeps the request */
    e.calls = 0;
    e.move_to = 2000;
    cr_expect_eq (gw_pending_expire (p, 500, s_on_expired, &e), 900, "the moved ones are due at 2000");
    cr_expect_eq (e.calls, 2);
    cr_expect_eq (gw_pending_count (p), 3);
    cr_expect_eq (gw_pending_find (p, ids[0])->deadline_us, 2000);

    e.calls = 0;
    e.move_to = 0;
    cr_expect_eq (gw_pending_expire (p, 5000, s_on_expired, &e), INT64_MAX, "all answered");
    cr_expect_eq (e.calls, 3);
    cr_expect_eq (gw_pending_count (p), 0);
    gw_pending_destroy (&p);
}

/* ---- commands handed to physics again ------------------------------------ */

static void
s_count_kept (void *arg, gw_request_t *req)
{
    (void) req;
    (*(int *) arg)++;
}

/* A kept command is handed over 0.15, 0.45, 1.05 and 2.25 s after it came
   in and answered UNAVAILABLE at its limit; one kept before a physics
   spoke is handed over then too, one that came in later is not (its
   first hand-over is still to come), nor is one that keeps nothing. */
Test (gw_pending, a_kept_command_is_handed_over_on_a_doubling_schedule_and_when_physics_speaks)
{
    gw_pending_t *p = gw_pending_new (8);
    Simbus__Request bus = SIMBUS__REQUEST__INIT;
    bus.id = 42;
    gw_request_t *r = s_add (p, GW_REQ_COMMAND, 4000000);
    cr_assert_eq (gw_pending_keep_request (p, r, &bus, 0, 4000000), 0);
    cr_expect_eq (r->deadline_us, GW_RESEND_FIRST_US);
    const int64_t at[] = { 150000, 450000, 1050000, 2250000 };
    for (int i = 0; i < 4; i++) {
        cr_expect_eq (r->deadline_us, at[i], "hand-over %d", i + 1);
        cr_expect (gw_pending_resend_due (r, r->deadline_us), "hand-over %d", i + 1);
    }
    cr_expect_eq (r->deadline_us, 4000000, "after the last hand-over, the limit");
    cr_expect_not (gw_pending_resend_due (r, 4000000), "its time is up");

    gw_request_t *later = s_add (p, GW_REQ_COMMAND, 4500000);
    cr_assert_eq (gw_pending_keep_request (p, later, &bus, 500000, 4500000), 0);
    s_add (p, GW_REQ_ROBOTS, 4000000); /* a RobotControl: nothing kept */
    int n = 0;
    gw_pending_each_kept (p, 500000 - GW_RESEND_FIRST_US + 1, s_count_kept, &n);
    cr_expect_eq (n, 1, "only the command kept before");
    n = 0;
    gw_pending_each_kept (p, 4000000, s_count_kept, &n);
    cr_expect_eq (n, 2);
    gw_pending_destroy (&p);
}

/* ---- what a sync request owns -------------------------------------------- */

Test (gw_pending, a_sync_request_has_an_empty_error_list)
{
    gw_pending_t *p = gw_pending_new (2);
    gw_request_t *r = s_add (p, GW_REQ_SYNC, 1);
    cr_assert_not_null (r);
    cr_assert_not_null (r->early);
    cr_expect_eq (r->early->count, 0);
    cr_expect_null (r->reply);
    cr_expect_eq (r->frame_count, 0);
    cr_expect_not (r->frames_done);
    sim_errors_add (r->early, "INVALID_STEP", "sim_step %g", 0.5);
    gw_pending_destroy (&p); /* frees the list */
}

Test (gw_pending, a_second_reply_is_freed_not_kept)
{
    gw_pending_t *p = gw_pending_new (4);
    gw_request_t *r = s_add (p, GW_REQ_SYNC, 1);
    Simbus__Envelope *first = s_reply_env (r->id);
    Simbus__Envelope *second = s_reply_env (r->id);
    gw_pending_set_reply (r, first, first->reply);
    cr_expect_eq (r->reply, first->reply);
    cr_expect_eq (r->reply_env, first);
    /* a duplicate (a retransmitted answer): the first one counts */
    gw_pending_set_reply (r, second, second->reply);
    cr_expect_eq (r->reply, first->reply);
    cr_expect_eq (r->reply_env, first);
    cr_expect_eq (r->reply->time_ns, 1000 * r->id);
    /* releasing frees the kept one; valgrind / LSan see no leak of either */
    gw_pending_release (p, r);
    cr_expect_eq (gw_pending_count (p), 0);
    /* a request destroyed with its table frees its reply too */
    gw_request_t *s = s_add (p, GW_REQ_SYNC, 2);
    Simbus__Envelope *third = s_reply_env (s->id);
    gw_pending_set_reply (s, third, third->reply);
    gw_pending_destroy (&p);
}

static ProtobufCBinaryData
s_bytes (uint8_t *storage, int tag, size_t len)
{
    for (size_t i = 0; i < len; i++)
        storage[i] = (uint8_t) (tag + (int) i);
    memcpy (storage, &tag, sizeof tag);
    return (ProtobufCBinaryData) { len, storage };
}

static int
s_tag (const zchunk_t *chunk)
{
    int tag;
    cr_assert_geq (zchunk_size ((zchunk_t *) chunk), sizeof tag);
    memcpy (&tag, zchunk_data ((zchunk_t *) chunk), sizeof tag);
    return tag;
}

Test (gw_pending, keep_frames_keeps_the_newest)
{
    gw_pending_t *p = gw_pending_new (4);
    gw_request_t *r = s_add (p, GW_REQ_SYNC, 1);
    static uint8_t storage[400][16];
    ProtobufCBinaryData w[400];
    for (int i = 0; i < 400; i++)
        w[i] = s_bytes (storage[i], i, 8 + (size_t) (i % 8));

    cr_expect_eq (gw_pending_keep_frames (r, w, 3), 0);
    cr_expect_eq (r->frame_count, 3);
    cr_expect_eq (gw_pending_keep_frames (r, w + 3, 0), 0, "nothing to keep");
    /* the bytes are copied: the message they came in may go */
    storage[0][5] = 0xee;
    cr_expect_neq (((uint8_t *) zchunk_data (r->frames[0]))[5], 0xee);
    cr_expect_eq (zchunk_size (r->frames[1]), 9);

    /* 300 more: 47 of the oldest make room */
    cr_expect_eq (gw_pending_keep_frames (r, w + 3, 300), 3 + 300 - GW_SYNC_FRAMES);
    cr_assert_eq (r->frame_count, GW_SYNC_FRAMES);
    for (size_t i = 0; i < GW_SYNC_FRAMES; i++)
        cr_expect_eq (s_tag (r->frames[i]), (int) (303 - GW_SYNC_FRAMES + i), "the newest, in release order");
    /* and a few more, one at a time */
    for (int i = 303; i < 310; i++)
        cr_expect_eq (gw_pending_keep_frames (r, w + i, 1), 1);
    cr_expect_eq (s_tag (r->frames[0]), 310 - GW_SYNC_FRAMES);
    cr_expect_eq (s_tag (r->frames[GW_SYNC_FRAMES - 1]), 309);
    gw_pending_release (p, r); /* frees every chunk */
    gw_pending_destroy (&p);
}

Test (gw_pending, destroy_frees_what_pending_requests_own)
{
    gw_pending_t *p = gw_pending_new (8);
    static uint8_t storage[4][16];
    ProtobufCBinaryData w[4];
    for (int i = 0; i < 4; i++)
        w[i] = s_bytes (storage[i], i, 16);
    for (int i = 0; i < 6; i++) {
        gw_request_t *r = s_add (p, i % 2 ? GW_REQ_SYNC : GW_REQ_COMMAND, i);
        if (r->kind == GW_REQ_SYNC) {
            gw_pending_keep_frames (r, w, 4);
            Simbus__Envelope *env = s_reply_env (r->id);
            gw_pending_set_reply (r, env, env->reply);
            sim_errors_add (r->early, "UNSUPPORTED", "test");
        }
    }
    cr_expect_eq (gw_pending_count (p), 6);
    gw_pending_destroy (&p);
    cr_expect_null (p);
}

/* ---- quotas: a port's share, a source's share ----------------------------- */

static gw_request_t *
s_add_from (gw_pending_t *p, gw_port_kind_t port, int source_port)
{
    struct sockaddr_in from = s_from (source_port);
    return gw_pending_add (p, GW_REQ_COMMAND, port, &from, 100);
}

Test (gw_pending, a_flooded_port_leaves_the_others_their_share)
{
    gw_pending_t *p = gw_pending_new (12);
    gw_pending_set_quota (p, 4, 0);
    gw_request_t *blue[4];
    for (int i = 0; i < 4; i++)
        cr_assert_not_null (blue[i] = s_add_from (p, GW_PORT_BLUE, 41000 + i));
    /* many sources on blue: the port's share is all they get */
    for (int i = 0; i < 10; i++)
        cr_expect_null (s_add_from (p, GW_PORT_BLUE, 42000 + i));
    cr_expect_eq (gw_pending_refused_for (p, GW_ADMIT_PORT), 10);
    cr_expect_eq (gw_pending_port_count (p, GW_PORT_BLUE), 4);
    /* the other ports still have theirs, in full */
    for (int i = 0; i < 4; i++) {
        cr_expect_not_null (s_add_from (p, GW_PORT_CONTROL, 43000 + i));
        cr_expect_not_null (s_add_from (p, GW_PORT_YELLOW, 44000 + i));
    }
    cr_expect_eq (gw_pending_count (p), 12);
    struct sockaddr_in any = s_from (45000);
    cr_expect_eq (gw_pending_admit (p, GW_PORT_CONTROL, &any), GW_ADMIT_FULL);
    /* an answer gives the port its room back */
    gw_pending_release (p, blue[1]);
    cr_expect_eq (gw_pending_port_count (p, GW_PORT_BLUE), 3);
    cr_expect_eq (gw_pending_admit (p, GW_PORT_BLUE, &any), GW_ADMIT_OK);
    cr_expect_eq (gw_pending_admit (p, GW_PORT_YELLOW, &any), GW_ADMIT_PORT);
    cr_expect_not_null (s_add_from (p, GW_PORT_BLUE, 45000));
    cr_expect_eq (gw_pending_refused (p), 10, "admit only looks");
    gw_pending_destroy (&p);
}

Test (gw_pending, a_source_holds_at_most_its_share)
{
    gw_pending_t *p = gw_pending_new (64);
    gw_pending_set_quota (p, 0, 3);
    struct sockaddr_in a = s_from (41000), b = s_from (41001);
    gw_request_t *mine[3];
    for (int i = 0; i < 3; i++)
        cr_assert_not_null (mine[i] = gw_pending_add (p, GW_REQ_COMMAND, i % 3, &a, 10));
    cr_expect_eq (gw_pending_source_count (p, &a), 3, "a source's share spans every port");
    cr_expect_null (gw_pending_add (p, GW_REQ_SYNC, GW_PORT_YELLOW, &a, 10));
    cr_expect_eq (gw_pending_refused_for (p, GW_ADMIT_SOURCE), 1);
    cr_expect_eq (gw_pending_admit (p, GW_PORT_CONTROL, &a), GW_ADMIT_SOURCE);
    /* the same ip on another port is another source */
    cr_expect_not_null (gw_pending_add (p, GW_REQ_COMMAND, GW_PORT_CONTROL, &b, 10));
    cr_expect_eq (gw_pending_source_count (p, &b), 1);
    gw_pending_release (p, mine[0]);
    cr_expect_eq (gw_pending_source_count (p, &a), 2);
    cr_expect_not_null (gw_pending_add (p, GW_REQ_COMMAND, GW_PORT_BLUE, &a, 10));
    cr_expect_eq (gw_pending_refused (p), 1);
    gw_pending_destroy (&p);
}

/* A client that keeps its share full while physics answers the others:
   the warning comes once, not once per answer (a 20 kHz flood of
   commands wrote hundreds of lines a second), and the next line, a
   second later at the earliest, says how many were refused meanwhile. */
Test (gw_pending, a_share_kept_full_warns_once_a_second, .init = cr_redirect_stderr)
{
    enum { N = 200 };
    gw_pending_t *p = gw_pending_new (64);
    gw_pending_set_quota (p, 0, 1);
    struct sockaddr_in a = s_from (41000), b = s_from (41001);
    cr_assert_not_null (gw_pending_add (p, GW_REQ_COMMAND, GW_PORT_BLUE, &a, 10));
    for (int i = 0; i < N; i++) {
        cr_expect_null (gw_pending_add (p, GW_REQ_COMMAND, GW_PORT_BLUE, &a, 10));
        gw_request_t *other = gw_pending_add (p, GW_REQ_COMMAND, GW_PORT_YELLOW, &b, 10);
        cr_assert_not_null (other, "another source keeps its share");
        gw_pending_release (p, other);
    }
    cr_expect_eq (gw_pending_refused_for (p, GW_ADMIT_SOURCE), N);
    fflush (stderr);
    FILE *captured = cr_get_redirected_stderr ();
    char text[65536];
    size_t len = fread (text, 1, sizeof text - 1, captured);
    text[len] = '\0';
    int lines = 0;
    for (const char *at = text; (at = strstr (at, "holds 1 requests waiting for physics")); at++)
        lines++;
    cr_expect_eq (lines, 1, "%d warnings for %d refusals within a second", lines, N);
    gw_pending_destroy (&p);
}

Test (gw_pending, every_slot_from_another_source)
{
    enum { N = 1000 };
    gw_pending_t *p = gw_pending_new (N);
    gw_pending_set_quota (p, N / 3, 1);
    static gw_request_t *r[N];
    for (int i = 0; i < N - N % 3; i++) {
        struct sockaddr_in from = s_from (1000 + i);
        from.sin_addr.s_addr = htonl (0x0a000000u + (uint32_t) (i * 7919));
        cr_assert_not_null (r[i] = gw_pending_add (p, GW_REQ_COMMAND, i % 3, &from, i), "request %d", i);
        cr_expect_eq (gw_pending_source_count (p, &from), 1);
        cr_expect_null (gw_pending_add (p, GW_REQ_COMMAND, (i + 1) % 3, &from, i), "a second from %d", i);
    }
    for (int i = 0; i < N - N % 3; i += 2)
        gw_pending_release (p, r[i]);
    for (int i = 1; i < N - N % 3; i += 2) {
        cr_expect_eq (gw_pending_source_count (p, &r[i]->from), 1);
        gw_pending_release (p, r[i]);
    }
    cr_expect_eq (gw_pending_count (p), 0);
    struct sockaddr_in again = s_from (1000);
    again.sin_addr.s_addr = htonl (0x0a000000u);
    cr_expect_eq (gw_pending_source_count (p, &again), 0);
    gw_pending_destroy (&p);
}

/* ---- the oldest of a kind (gw_defer's bound) ---------------------------- */

/* The first question may come with a request already pending: the ids
   start from the wall clock (a restarted gateway starts past its
   predecessor's), so a mark starting from 0 would step through ~2^59 ids
   (the gateway hung, every team answer lost). */
Test (gw_pending, the_oldest_is_found_when_first_asked_with_one_pending, .timeout = 5)
{
    gw_pending_t *p = gw_pending_new (8);
    cr_assert_not_null (p);
    gw_request_t *r = s_add (p, GW_REQ_ROBOTS, 100);
    cr_assert_not_null (r);
    const gw_request_t *o = gw_pending_oldest_of (p, GW_REQ_ROBOTS);
    cr_assert_not_null (o);
    cr_expect_eq (o->id, r->id);
    gw_pending_destroy (&p);
}

Test (gw_pending, the_oldest_of_a_kind_is_the_first_added_still_pending)
{
    gw_pending_t *p = gw_pending_new (8);
    cr_assert_not_null (p);
    cr_expect_null (gw_pending_oldest_of (p, GW_REQ_ROBOTS), "none pending");
    gw_request_t *c = s_add (p, GW_REQ_COMMAND, 100);
    gw_request_t *r1 = s_add (p, GW_REQ_ROBOTS, 200);
    gw_request_t *r2 = s_add (p, GW_REQ_ROBOTS, 300);
    cr_assert (c && r1 && r2);
    uint64_t id1 = r1->id, id2 = r2->id;
    cr_expect_eq (gw_pending_kind_count (p, GW_REQ_ROBOTS), 2);
    cr_expect_eq (gw_pending_kind_count (p, GW_REQ_COMMAND), 1);
    const gw_request_t *o = gw_pending_oldest_of (p, GW_REQ_ROBOTS);
    cr_assert_not_null (o);
    cr_expect_eq (o->id, id1, "the command before it is another kind");
    gw_pending_release (p, r1);
    o = gw_pending_oldest_of (p, GW_REQ_ROBOTS);
    cr_assert_not_null (o);
    cr_expect_eq (o->id, id2);
    /* slots are reused as the table turns over: the answer follows ids */
    gw_request_t *r3 = s_add (p, GW_REQ_ROBOTS, 400);
    cr_assert_not_null (r3);
    uint64_t id3 = r3->id;
    gw_pending_release (p, r2);
    o = gw_pending_oldest_of (p, GW_REQ_ROBOTS);
    cr_assert_not_null (o);
    cr_expect_eq (o->id, id3);
    gw_pending_release (p, r3);
    cr_expect_null (gw_pending_oldest_of (p, GW_REQ_ROBOTS));
    cr_expect_eq (gw_pending_kind_count (p, GW_REQ_ROBOTS), 0);
    gw_request_t *r4 = s_add (p, GW_REQ_ROBOTS, 500);
    cr_assert_not_null (r4);
    o = gw_pending_oldest_of (p, GW_REQ_ROBOTS);
    cr_expect (o && o->id == r4->id, "a new one after an empty spell");
    gw_pending_destroy (&p);
}
