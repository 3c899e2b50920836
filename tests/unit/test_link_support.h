/*  test_link_support.h - the rig shared by the link tests (test_link.c,
    test_link_loop.c): service ends (a link, its loop, what it received) in
    one process over inproc endpoints, pumped together, and the messages
    they send.
*/
#ifndef TEST_LINK_SUPPORT_H_INCLUDED
#define TEST_LINK_SUPPORT_H_INCLUDED

#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_lane.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"

#define LINK_TEST_POLL_MS 5   /* one wait of one loop */
#define LINK_TEST_TURNS   600 /* turns before a wait fails: seconds, not luck */
#define LINK_TEST_KEPT    64

/* ---- a service end: a link, its loop, what it received ------------------ */

typedef struct {
    sim_link_t *link;
    sim_loop_t *loop;
    Simbus__Envelope *got[LINK_TEST_KEPT];
    int count; /* messages delivered (also beyond LINK_TEST_KEPT) */
    /* physics: answer every request from inside the handler */
    bool answer;
    int replies_sent, reply_failures;
    bool last_by_lane;
} link_test_end_t;

static inline bool
link_test_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    link_test_end_t *end = arg;
    cr_assert_not_null (env);
    if (end->answer && env->body_case == SIMBUS__ENVELOPE__BODY_REQUEST) {
        cr_assert_not_null (from, "a request says where it came from");
        end->last_by_lane = sim_link_from_lane (from);
        Simbus__Reply reply = SIMBUS__REPLY__INIT;
        reply.id = env->request->id;
        reply.time_ns = 10 * env->request->id;
        Simbus__Envelope out;
        sim_bus_wrap (&out, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
        if (sim_link_reply (end->link, from, &out) == 0)
            end->replies_sent++;
        else
            end->reply_failures++;
    }
    if (end->count < LINK_TEST_KEPT) {
        end->got[end->count++] = env;
        return true; /* kept: freed by link_test_end_close */
    }
    end->count++;
    return false;
}

static inline void
link_test_end_open (link_test_end_t *end, const sim_config_t *cfg, sim_link_role_t role,
                    const Simbus__Envelope__BodyCase *subs, int nsubs)
{
    memset (end, 0, sizeof *end);
    end->link = sim_link_new (cfg, role);
    cr_assert_not_null (end->link, "link of role %d", (int) role);
    for (int i = 0; i < nsubs; i++)
        cr_assert_eq (sim_link_subscribe (end->link, subs[i]), 0, "role %d subscribes to kind %d", (int) role,
                      (int) subs[i]);
    end->loop = sim_loop_new ();
    cr_assert_not_null (end->loop);
    cr_assert_eq (sim_link_attach (end->link, end->loop, 0, link_test_on_bus, end), 0);
}

static inline void
link_test_end_close (link_test_end_t *end)
{
    for (int i = 0; i < end->count && i < LINK_TEST_KEPT; i++)
        simbus__envelope__free_unpacked (end->got[i], NULL);
    sim_link_destroy (&end->link);
    cr_expect_null (end->link);
    sim_link_destroy (&end->link); /* safe twice */
    sim_loop_destroy (&end->loop);
    sim_loop_destroy (&end->loop);
}

/* ---- a rig: the ends of one test, pumped together --------------------- */

typedef struct {
    sim_config_t cfg;
    bool lanes;
    link_test_end_t physics, vision, gateway, tool;
    link_test_end_t *ends[4];
    int n;
} link_test_rig_t;

static inline void
link_test_rig_cfg (link_test_rig_t *rig, bool lanes, const char *name)
{
    memset (rig, 0, sizeof *rig);
    sim_config_defaults (&rig->cfg);
    char prefix[96];
    snprintf (prefix, sizeof prefix, "linktest-%s-%d-%s", name, (int) getpid (), lanes ? "lanes" : "zmq");
    cr_assert_eq (sim_bus_resolve (&rig->cfg, prefix), 0);
    rig->cfg.bus.lanes = lanes;
    rig->lanes = lanes;
    cr_assert_eq (sim_lane_enabled (&rig->cfg), lanes, "lanes %s for inproc endpoints", lanes ? "on" : "off");
}

static inline link_test_end_t *
link_test_rig_add (link_test_rig_t *rig, link_test_end_t *end, sim_link_role_t role,
                   const Simbus__Envelope__BodyCase *subs, int nsubs)
{
    link_test_end_open (end, &rig->cfg, role, subs, nsubs);
    rig->ends[rig->n++] = end;
    return end;
}

/* One turn: every end waits briefly for input and runs its handlers. */
static inline void
link_test_turn (link_test_rig_t *rig)
{
    for (int i = 0; i < rig->n; i++) {
        cr_assert_geq (
            sim_loop_wait (rig->ends[i]->loop, rig->n > 1 ? LINK_TEST_POLL_MS : 2 * LINK_TEST_POLL_MS), 0);
        sim_loop_dispatch (rig->ends[i]->loop);
    }
}

static inline void
link_test_rig_close (link_test_rig_t *rig)
{
    for (int i = rig->n - 1; i >= 0; i--)
        link_test_end_close (rig->ends[i]);
}

#define LINK_TEST_PUMP_UNTIL(rig_, cond_) \
    do { \
        for (int turn_ = 0; !(cond_) && turn_ < LINK_TEST_TURNS; turn_++) \
            link_test_turn (rig_); \
        cr_assert ((cond_), "lanes %s: timed out waiting for %s", (rig_)->lanes ? "on" : "off", #cond_); \
    } while (0)

/* A few turns for anything in flight to land (used only to show that
   something does NOT arrive, after a later message did). */
static inline void
link_test_settle (link_test_rig_t *rig)
{
    for (int i = 0; i < 4; i++)
        link_test_turn (rig);
}

/* ---- messages ------------------------------------------------------------- */

static inline int
link_test_send_snapshot (sim_link_t *link, uint64_t time_ns)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = time_ns;
    snap.ball.x = 0.5;
    sim_bus_snapshot_msg_t m;
    return sim_link_send (link, sim_bus_snapshot_encode (&m, &snap, false, 0));
}

static inline int
link_test_send_config (sim_link_t *link, const sim_config_t *cfg, uint64_t serial)
{
    sim_bus_config_msg_t m;
    Simbus__Envelope *env = sim_bus_config_encode (&m, cfg, serial);
    cr_assert_not_null (env);
    int rc = sim_link_send (link, env);
    sim_bus_config_msg_release (&m);
    return rc;
}

static inline int
link_test_send_step_done (sim_link_t *link, uint64_t step_id)
{
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = 1000 * step_id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STEP_DONE, &done);
    return sim_link_send (link, &env);
}

static inline int
link_test_send_request (sim_link_t *link, uint64_t id)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, &req);
    return sim_link_send (link, &env);
}

static inline int
link_test_send_frames_done (sim_link_t *link, uint64_t step_id)
{
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = 1000 * step_id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done);
    return sim_link_send (link, &env);
}

static inline int
link_test_send_frames (sim_link_t *link, uint64_t time_ns)
{
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = time_ns;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES, &frames);
    return sim_link_send (link, &env);
}

static inline int
link_test_send_clock (sim_link_t *link, uint64_t time_ns)
{
    sim_bus_clock_msg_t m;
    return sim_link_send (link, sim_bus_clock_encode (&m, time_ns, SIM_MODE_REALTIME, true, 0));
}

static inline int
link_test_send_events (sim_link_t *link, uint64_t time_ns)
{
    sim_event_t e = { SIM_EVENT_KICK, time_ns, 0, 1, -1, -1, 3.0, 0.0 };
    sim_bus_events_msg_t m;
    return sim_link_send (link, sim_bus_events_encode (&m, &e, 1));
}

#endif
