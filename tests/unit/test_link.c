/*  test_link.c - common/bus/sim_link.c and common/bus/sim_loop.c: service links in
    one process over inproc endpoints, each test with lanes on and with
    lanes off, so the same dataflow is checked on both carriers: physics to
    vision in publication order, requests and their replies, frames-done to
    the gateway, subscriptions (what is not subscribed does not arrive),
    joiners, and bus garbage dropped without a crash.

    Every wait is a bounded poll on the links' own loops; inproc lanes
    share the user's runtime directory, so the pid keeps parallel tests
    apart.
*/
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

#define S_POLL_MS 5   /* one wait of one loop */
#define S_TURNS   600 /* turns before a wait fails: seconds, not luck */
#define S_KEPT    64

/* ---- a service end: a link, its loop, what it received ------------------ */

typedef struct {
    sim_link_t *link;
    sim_loop_t *loop;
    Simbus__Envelope *got[S_KEPT];
    int count; /* messages delivered (also beyond S_KEPT) */
    /* physics: answer every request from inside the handler */
    bool answer;
    int replies_sent, reply_failures;
    bool last_by_lane;
} s_end_t;

static bool
s_on_bus (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    s_end_t *end = arg;
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
    if (end->count < S_KEPT) {
        end->got[end->count++] = env;
        return true; /* kept: freed by s_end_close */
    }
    end->count++;
    return false;
}

static void
s_end_open (s_end_t *end, const sim_config_t *cfg, sim_link_role_t role,
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
    cr_assert_eq (sim_link_attach (end->link, end->loop, 0, s_on_bus, end), 0);
}

static void
s_end_close (s_end_t *end)
{
    for (int i = 0; i < end->count && i < S_KEPT; i++)
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
    s_end_t physics, vision, gateway, tool;
    s_end_t *ends[4];
    int n;
} s_rig_t;

static void
s_rig_cfg (s_rig_t *rig, bool lanes, const char *name)
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

static s_end_t *
s_rig_add (s_rig_t *rig, s_end_t *end, sim_link_role_t role, const Simbus__Envelope__BodyCase *subs,
           int nsubs)
{
    s_end_open (end, &rig->cfg, role, subs, nsubs);
    rig->ends[rig->n++] = end;
    return end;
}

/* One turn: every end waits briefly for input and runs its handlers. */
static void
s_turn (s_rig_t *rig)
{
    for (int i = 0; i < rig->n; i++) {
        cr_assert_geq (sim_loop_wait (rig->ends[i]->loop, rig->n > 1 ? S_POLL_MS : 2 * S_POLL_MS), 0);
        sim_loop_dispatch (rig->ends[i]->loop);
    }
}

static void
s_rig_close (s_rig_t *rig)
{
    for (int i = rig->n - 1; i >= 0; i--)
        s_end_close (rig->ends[i]);
}

#define S_PUMP_UNTIL(rig_, cond_) \
    do { \
        for (int turn_ = 0; !(cond_) && turn_ < S_TURNS; turn_++) \
            s_turn (rig_); \
        cr_assert ((cond_), "lanes %s: timed out waiting for %s", (rig_)->lanes ? "on" : "off", #cond_); \
    } while (0)

/* A few turns for anything in flight to land (used only to show that
   something does NOT arrive, after a later message did). */
static void
s_settle (s_rig_t *rig)
{
    for (int i = 0; i < 4; i++)
        s_turn (rig);
}

/* ---- messages ------------------------------------------------------------- */

static int
s_send_snapshot (sim_link_t *link, uint64_t time_ns)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = time_ns;
    snap.ball.x = 0.5;
    sim_bus_snapshot_msg_t m;
    return sim_link_send (link, sim_bus_snapshot_encode (&m, &snap, false, 0));
}

static int
s_send_config (sim_link_t *link, const sim_config_t *cfg, uint64_t serial)
{
    sim_bus_config_msg_t m;
    Simbus__Envelope *env = sim_bus_config_encode (&m, cfg, serial);
    cr_assert_not_null (env);
    int rc = sim_link_send (link, env);
    sim_bus_config_msg_release (&m);
    return rc;
}

static int
s_send_step_done (sim_link_t *link, uint64_t step_id)
{
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = 1000 * step_id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_STEP_DONE, &done);
    return sim_link_send (link, &env);
}

static int
s_send_request (sim_link_t *link, uint64_t id)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, &req);
    return sim_link_send (link, &env);
}

static int
s_send_frames_done (sim_link_t *link, uint64_t step_id)
{
    Simbus__FramesDone done = SIMBUS__FRAMES_DONE__INIT;
    done.step_id = step_id;
    done.time_ns = 1000 * step_id;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES_DONE, &done);
    return sim_link_send (link, &env);
}

static int
s_send_frames (sim_link_t *link, uint64_t time_ns)
{
    Simbus__Frames frames = SIMBUS__FRAMES__INIT;
    frames.time_ns = time_ns;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_FRAMES, &frames);
    return sim_link_send (link, &env);
}

static int
s_send_clock (sim_link_t *link, uint64_t time_ns)
{
    sim_bus_clock_msg_t m;
    return sim_link_send (link, sim_bus_clock_encode (&m, time_ns, SIM_MODE_REALTIME, true, 0));
}

static int
s_send_events (sim_link_t *link, uint64_t time_ns)
{
    sim_event_t e = { SIM_EVENT_KICK, time_ns, 0, 1, -1, -1, 3.0, 0.0 };
    sim_bus_events_msg_t m;
    return sim_link_send (link, sim_bus_events_encode (&m, &e, 1));
}

/* ---- physics -> vision ---------------------------------------------------- */

static const Simbus__Envelope__BodyCase s_vision_kinds[] = {
    SIMBUS__ENVELOPE__BODY_CONFIG,
    SIMBUS__ENVELOPE__BODY_SNAPSHOT,
    SIMBUS__ENVELOPE__BODY_STEP_DONE,
};

static void
s_physics_to_vision (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "order");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *vis = s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CONFIG)
                            && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                            && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_STEP_DONE));

    /* as physics publishes: configuration, a step's snapshots and its
       mark, a change of configuration, the next step */
    cr_expect_geq (s_send_config (phys->link, &rig.cfg, 1), 1);
    cr_expect_geq (s_send_snapshot (phys->link, 1000), 1);
    cr_expect_geq (s_send_snapshot (phys->link, 2000), 1);
    cr_expect_geq (s_send_step_done (phys->link, 7), 1);
    cr_expect_geq (s_send_snapshot (phys->link, 3000), 1);
    cr_expect_geq (s_send_config (phys->link, &rig.cfg, 2), 1);
    /* a batch: the same order when the messages travel together */
    cr_expect_eq (sim_link_batch (phys->link, true), 0);
    cr_expect_geq (s_send_snapshot (phys->link, 4000), 1);
    cr_expect_geq (s_send_snapshot (phys->link, 5000), 1);
    cr_expect_geq (s_send_step_done (phys->link, 8), 1);
    cr_expect_eq (sim_link_batch (phys->link, false), 0);
    S_PUMP_UNTIL (&rig, vis->count >= 9);
    s_settle (&rig);
    cr_assert_eq (vis->count, 9, "each message once");

    const struct {
        Simbus__Envelope__BodyCase kind;
        uint64_t value;
    } want[] = {
        { SIMBUS__ENVELOPE__BODY_CONFIG, 1 },      { SIMBUS__ENVELOPE__BODY_SNAPSHOT, 1000 },
        { SIMBUS__ENVELOPE__BODY_SNAPSHOT, 2000 }, { SIMBUS__ENVELOPE__BODY_STEP_DONE, 7 },
        { SIMBUS__ENVELOPE__BODY_SNAPSHOT, 3000 }, { SIMBUS__ENVELOPE__BODY_CONFIG, 2 },
        { SIMBUS__ENVELOPE__BODY_SNAPSHOT, 4000 }, { SIMBUS__ENVELOPE__BODY_SNAPSHOT, 5000 },
        { SIMBUS__ENVELOPE__BODY_STEP_DONE, 8 },
    };
    for (int i = 0; i < 9; i++) {
        const Simbus__Envelope *env = vis->got[i];
        cr_assert_eq (env->body_case, want[i].kind, "lanes %d: message %d is of kind %d", lanes, i,
                      (int) env->body_case);
        uint64_t value = env->body_case == SIMBUS__ENVELOPE__BODY_CONFIG   ? env->config->serial
                       : env->body_case == SIMBUS__ENVELOPE__BODY_SNAPSHOT ? env->snapshot->time_ns
                                                                           : env->step_done->step_id;
        cr_expect_eq (value, want[i].value, "lanes %d: message %d", lanes, i);
        cr_expect_eq (env->version, SIM_BUS_VERSION);
    }
    /* the configuration is the one sent */
    sim_config_t out = rig.cfg;
    uint64_t serial = 0;
    cr_expect_eq (sim_bus_config_decode (vis->got[0]->config, &rig.cfg, &out, &serial), 0);
    s_rig_close (&rig);
}

Test (link, physics_to_vision_in_publication_order_zmq)
{
    s_physics_to_vision (false);
}

Test (link, physics_to_vision_in_publication_order_lanes)
{
    s_physics_to_vision (true);
}

/* ---- borrowed snapshots (sim_link_borrow) ---------------------------------- */

/* A handler that reads each snapshot whole while it runs and keeps
   nothing, as vision's does. */
typedef struct {
    int count;
    uint64_t time_ns[16];
    int robots[16];
    double last_x[16];
} s_borrower_t;

static bool
s_on_borrowed (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    (void) from;
    s_borrower_t *b = arg;
    sim_snapshot_t snap;
    if (env->body_case == SIMBUS__ENVELOPE__BODY_SNAPSHOT && b->count < 16
        && sim_bus_snapshot_decode (env->snapshot, &snap) == 0) {
        b->time_ns[b->count] = snap.time_ns;
        b->robots[b->count] = snap.robot_count;
        b->last_x[b->count] = snap.robot_count ? snap.robots[snap.robot_count - 1].x : 0;
        b->count++;
    }
    return false;
}

static int
s_send_robots (sim_link_t *link, uint64_t time_ns, int robots)
{
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    snap.time_ns = time_ns;
    snap.robot_count = robots;
    for (int i = 0; i < robots; i++)
        snap.robots[i] = (sim_robot_state_t) { .team = i % 2, .id = i / 2, .x = (double) time_ns + i };
    sim_bus_snapshot_msg_t m;
    return sim_link_send (link, sim_bus_snapshot_encode (&m, &snap, false, 0));
}

static void
s_borrowed_snapshots (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "borrow");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *vis = &rig.vision;
    memset (vis, 0, sizeof *vis);
    vis->link = sim_link_new (&rig.cfg, SIM_LINK_VISION);
    vis->loop = sim_loop_new ();
    cr_assert (vis->link && vis->loop);
    cr_assert_eq (sim_link_subscribe (vis->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT), 0);
    cr_expect_eq (sim_link_borrow (vis->link, SIMBUS__ENVELOPE__BODY_FRAMES), -1, "two topics: not borrowed");
    cr_assert_eq (sim_link_borrow (vis->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT), 0);
    s_borrower_t b = { 0 };
    cr_assert_eq (sim_link_attach (vis->link, vis->loop, 0, s_on_borrowed, &b), 0);
    rig.ends[rig.n++] = vis;
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));
    /* one datagram of several (each decoded into the same memory in
       turn), then single ones, the biggest a snapshot can be among them */
    const int robots[] = { 22, 0, SIM_SNAPSHOT_MAX_ROBOTS, 1, 22 };
    cr_expect_eq (sim_link_batch (phys->link, true), 0);
    for (int i = 0; i < 3; i++)
        cr_expect_geq (s_send_robots (phys->link, 1000 * (uint64_t) (i + 1), robots[i]), 1);
    cr_expect_eq (sim_link_batch (phys->link, false), 0);
    for (int i = 3; i < 5; i++)
        cr_expect_geq (s_send_robots (phys->link, 1000 * (uint64_t) (i + 1), robots[i]), 1);
    S_PUMP_UNTIL (&rig, b.count >= 5);
    for (int i = 0; i < 5; i++) {
        cr_expect_eq (b.time_ns[i], 1000 * (uint64_t) (i + 1), "lanes %d: snapshot %d", lanes, i);
        cr_expect_eq (b.robots[i], robots[i], "lanes %d: snapshot %d", lanes, i);
        if (robots[i])
            cr_expect_eq (b.last_x[i], (double) b.time_ns[i] + robots[i] - 1, "lanes %d: snapshot %d", lanes,
                          i);
    }
    s_rig_close (&rig);
}

Test (link, a_borrowed_snapshot_is_whole_while_its_handler_runs_zmq)
{
    s_borrowed_snapshots (false);
}

Test (link, a_borrowed_snapshot_is_whole_while_its_handler_runs_lanes)
{
    s_borrowed_snapshots (true);
}

/* ---- gateway -> physics -> gateway ---------------------------------------- */

static void
s_request_reply (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "request");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *gw = s_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    phys->answer = true;
    for (uint64_t id = 41; id < 46; id++)
        cr_expect_eq (s_send_request (gw->link, id), 1, "the request is taken");
    S_PUMP_UNTIL (&rig, gw->count >= 5);
    s_settle (&rig);
    cr_assert_eq (phys->count, 5);
    cr_assert_eq (gw->count, 5);
    cr_expect_eq (phys->replies_sent, 5);
    cr_expect_eq (phys->reply_failures, 0);
    cr_expect_eq (phys->last_by_lane, lanes, "lanes %s: the request came by the configured carrier",
                  lanes ? "on" : "off");
    for (int i = 0; i < 5; i++) {
        cr_assert_eq (phys->got[i]->body_case, SIMBUS__ENVELOPE__BODY_REQUEST);
        cr_expect_eq (phys->got[i]->request->id, 41 + (uint64_t) i, "requests in order");
        cr_assert_eq (gw->got[i]->body_case, SIMBUS__ENVELOPE__BODY_REPLY);
        cr_expect_eq (gw->got[i]->reply->id, 41 + (uint64_t) i, "replies in order");
        cr_expect_eq (gw->got[i]->reply->time_ns, 10 * (41 + (uint64_t) i));
    }
    cr_expect (sim_link_requests_read (gw->link) == lanes,
               "the lane tells when requests were read; ZeroMQ cannot");
    s_rig_close (&rig);
}

Test (link, a_request_reaches_physics_and_its_reply_comes_back_zmq)
{
    s_request_reply (false);
}

Test (link, a_request_reaches_physics_and_its_reply_comes_back_lanes)
{
    s_request_reply (true);
}

/* ---- vision -> gateway -------------------------------------------------- */

static void
s_frames_done (bool lanes)
{
    static const Simbus__Envelope__BodyCase gw_kinds[] = { SIMBUS__ENVELOPE__BODY_FRAMES_DONE };
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "frames");
    s_end_t *vis = s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, NULL, 0);
    s_end_t *gw = s_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, gw_kinds, 1);
    /* vision learns of the subscription when it publishes: until the
       gateway's has arrived a mark goes to nobody (returns 0) */
    int taken = 0;
    for (int turn = 0; turn < S_TURNS && taken == 0; turn++) {
        taken = s_send_frames_done (vis->link, 12);
        cr_assert_geq (taken, 0);
        if (!taken)
            s_turn (&rig);
    }
    cr_assert_geq (taken, 1, "lanes %d: the gateway's subscription never came", lanes);
    /* free-running frames: the gateway did not subscribe to them */
    cr_expect_eq (s_send_frames (vis->link, 99), 0, "nobody wants free-running frames");
    cr_expect_geq (s_send_frames_done (vis->link, 13), 1);
    S_PUMP_UNTIL (&rig, gw->count >= 2);
    s_settle (&rig);
    cr_assert_eq (gw->count, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (gw->got[i]->body_case, SIMBUS__ENVELOPE__BODY_FRAMES_DONE);
        cr_expect_eq (gw->got[i]->frames_done->step_id, 12 + (uint64_t) i);
    }
    s_rig_close (&rig);
}

Test (link, frames_done_reaches_the_gateway_zmq)
{
    s_frames_done (false);
}

Test (link, frames_done_reaches_the_gateway_lanes)
{
    s_frames_done (true);
}

/* ---- subscriptions ------------------------------------------------------ */

static void
s_not_subscribed (bool lanes)
{
    static const Simbus__Envelope__BodyCase vis_kinds[] = { SIMBUS__ENVELOPE__BODY_SNAPSHOT };
    static const Simbus__Envelope__BodyCase tool_kinds[] = { SIMBUS__ENVELOPE__BODY_CLOCK };
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "subs");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *vis = s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, vis_kinds, 1);
    s_end_t *tool = s_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, tool_kinds, 1);
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                            && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    /* vision takes snapshots only; the tool the clock only. What a lane
       carries to vision anyway is dropped by its link. */
    s_send_config (phys->link, &rig.cfg, 1);
    s_send_step_done (phys->link, 3);
    s_send_events (phys->link, 50);
    cr_expect_geq (s_send_snapshot (phys->link, 100), 1);
    cr_expect_geq (s_send_clock (phys->link, 200), 1);
    S_PUMP_UNTIL (&rig, vis->count >= 1 && tool->count >= 1);
    s_settle (&rig);
    cr_assert_eq (vis->count, 1, "lanes %d: vision got only what it subscribed to", lanes);
    cr_expect_eq (vis->got[0]->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
    cr_assert_eq (tool->count, 1, "lanes %d: the tool got only what it subscribed to", lanes);
    cr_expect_eq (tool->got[0]->body_case, SIMBUS__ENVELOPE__BODY_CLOCK);
    cr_expect_eq (tool->got[0]->clock->time_ns, 200);

    /* no more clock for the tool: physics learns that nobody wants it */
    cr_expect_eq (sim_link_unsubscribe (tool->link, SIMBUS__ENVELOPE__BODY_CLOCK), 0);
    S_PUMP_UNTIL (&rig, !sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    cr_expect_eq (s_send_clock (phys->link, 300), 0);
    /* and subscribing after attaching works as well */
    cr_expect_eq (sim_link_subscribe (tool->link, SIMBUS__ENVELOPE__BODY_EVENTS), 0);
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_EVENTS));
    cr_expect_geq (s_send_events (phys->link, 400), 1);
    S_PUMP_UNTIL (&rig, tool->count >= 2);
    s_settle (&rig);
    cr_expect_eq (tool->count, 2);
    cr_expect_eq (tool->got[1]->body_case, SIMBUS__ENVELOPE__BODY_EVENTS);
    s_rig_close (&rig);
}

Test (link, a_kind_not_subscribed_is_not_delivered_zmq)
{
    s_not_subscribed (false);
}

Test (link, a_kind_not_subscribed_is_not_delivered_lanes)
{
    s_not_subscribed (true);
}

static void
s_nobody (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "nobody");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *vis = s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, NULL, 0);
    s_settle (&rig);
    /* nobody subscribed anything, and no gateway runs */
    cr_expect_eq (s_send_clock (phys->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (s_send_events (phys->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (s_send_frames_done (vis->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (s_send_frames (vis->link, 1), 0, "lanes %d", lanes);
    cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_EVENTS));
    if (!lanes) {
        /* a lane cannot tell whether vision wants a snapshot; ZeroMQ can */
        cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));
        cr_expect_eq (s_send_snapshot (phys->link, 1), 0);
        cr_expect_eq (s_send_step_done (phys->link, 1), 0);
        cr_expect_eq (s_send_config (phys->link, &rig.cfg, 1), 0);
    }

    /* kinds a role does not send, or that are not sent at all */
    cr_expect_eq (s_send_snapshot (vis->link, 1), -1, "vision sends no snapshots");
    cr_expect_eq (s_send_frames (phys->link, 1), -1, "physics sends no frames");
    cr_expect_eq (s_send_request (phys->link, 1), -1, "physics sends no requests");
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
    cr_expect_eq (sim_link_send (phys->link, &env), -1, "a reply goes by sim_link_reply");
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY__NOT_SET, NULL);
    cr_expect_eq (sim_link_send (phys->link, &env), -1, "an envelope without a body");
    /* kinds a role cannot receive */
    cr_expect_eq (sim_link_subscribe (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT), -1, "its own kind");
    cr_expect_eq (sim_link_subscribe (vis->link, SIMBUS__ENVELOPE__BODY_FRAMES), -1, "its own kind");
    cr_expect_eq (sim_link_subscribe (vis->link, SIMBUS__ENVELOPE__BODY_REQUEST), -1,
                  "requests are not subscribed");
    cr_expect_eq (sim_link_subscribe (vis->link, SIMBUS__ENVELOPE__BODY_REPLY), -1,
                  "replies are not subscribed");
    cr_expect_eq (sim_link_subscribe (vis->link, SIMBUS__ENVELOPE__BODY__NOT_SET), -1);
    s_rig_close (&rig);
}

Test (link, send_returns_0_taken_when_nobody_wants_a_kind_zmq)
{
    s_nobody (false);
}

Test (link, send_returns_0_taken_when_nobody_wants_a_kind_lanes)
{
    s_nobody (true);
}

/* ---- joining -------------------------------------------------------------- */

static void
s_joined (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "joined");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_settle (&rig);
    cr_expect_not (sim_link_joined (phys->link), "nobody joined yet");

    /* vision starts and wants the configuration */
    s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    bool joined = false;
    S_PUMP_UNTIL (&rig, (joined = joined || sim_link_joined (phys->link)));
    /* once every subscription is in, nobody new joins: true once since
       the last call */
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CONFIG)
                            && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                            && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_STEP_DONE));
    s_settle (&rig);
    sim_link_joined (phys->link);
    s_settle (&rig);
    cr_expect_not (sim_link_joined (phys->link), "lanes %d: a joiner is reported once", lanes);

    /* a tool subscribing to anything is a joiner too */
    static const Simbus__Envelope__BodyCase tool_kinds[] = { SIMBUS__ENVELOPE__BODY_CLOCK };
    s_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, tool_kinds, 1);
    joined = false;
    S_PUMP_UNTIL (&rig, (joined = joined || sim_link_joined (phys->link)));
    s_rig_close (&rig);
}

Test (link, joined_becomes_true_when_a_subscriber_joins_zmq)
{
    s_joined (false);
}

Test (link, joined_becomes_true_when_a_subscriber_joins_lanes)
{
    s_joined (true);
}

/* ---- garbage -------------------------------------------------------------- */

/* A raw datagram to service `name`'s lane, from a socket of no lane. */
static void
s_lane_raw (const sim_config_t *cfg, const char *name, const void *data, size_t len)
{
    int fd = socket (AF_UNIX, SOCK_DGRAM, 0);
    cr_assert_geq (fd, 0);
    sim_lane_id_t id = strcmp (name, "physics") == 0 ? SIM_LANE_PHYSICS
                     : strcmp (name, "vision") == 0  ? SIM_LANE_VISION
                                                     : SIM_LANE_GATEWAY;
    sim_lane_peer_t to;
    cr_assert_eq (sim_lane_address (cfg, id, &to), 0);
    cr_assert_eq (sendto (fd, data, len, 0, (struct sockaddr *) &to.addr, to.len), (ssize_t) len, "%s",
                  strerror (errno));
    close (fd);
}

/* Records that lie, to the lane of `name`: empty, random, a topic longer
   than a record may have, a size beyond the datagram, a truncated
   envelope, another bus version, a kind the service does not take. */
static void
s_lane_garbage (const sim_config_t *cfg, const char *name, bool stray_reply)
{
    uint8_t junk[300];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t) (i * 131 + 7);
    s_lane_raw (cfg, name, junk, 0);
    s_lane_raw (cfg, name, junk, 1);
    s_lane_raw (cfg, name, junk, sizeof junk);
    uint8_t long_topic[] = { 200, 'Q', 0, 0, 0, 0 };
    s_lane_raw (cfg, name, long_topic, sizeof long_topic);

    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 666;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, &req);
    size_t len = 0;
    uint8_t *rec = sim_lane_pack ("Q", &env, &len);
    cr_assert_not_null (rec);
    uint8_t *bad = malloc (len + 8);
    cr_assert_not_null (bad);
    /* the size says more than the datagram holds */
    memcpy (bad, rec, len);
    bad[3] = 0xff;
    s_lane_raw (cfg, name, bad, len);
    /* cut short */
    s_lane_raw (cfg, name, rec, len - 1);
    /* a well-framed record whose envelope is junk */
    memcpy (bad, rec, len);
    memset (bad + 6, 0xff, len - 6);
    s_lane_raw (cfg, name, bad, len);
    free (rec);
    /* another bus version */
    env.version = SIM_BUS_VERSION + 1;
    len = 6 + simbus__envelope__get_packed_size (&env);
    bad[0] = 1;
    bad[1] = 'Q';
    for (int i = 0; i < 4; i++)
        bad[2 + i] = (uint8_t) ((len - 6) >> (8 * i));
    simbus__envelope__pack (&env, bad + 6);
    s_lane_raw (cfg, name, bad, len);
    free (bad);
    /* a reply where nobody asked: physics takes no replies (the other
       roles take any reply; the gateway matches it to what it asked) */
    if (!stray_reply)
        return;
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
    rec = sim_lane_pack ("R", &env, &len);
    s_lane_raw (cfg, name, rec, len);
    free (rec);
}

/* Junk to physics' cmd socket from a raw DEALER; returns the DEALER,
   kept open until the junk was read (closing it could discard it). */
static zsock_t *
s_cmd_garbage (const sim_config_t *cfg)
{
    zsock_t *dealer = zsock_new_dealer (cfg->bus.cmd_connect);
    cr_assert_not_null (dealer);
    uint8_t junk[64];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t) (0xff - i);
    zframe_t *f = zframe_new (junk, sizeof junk);
    cr_assert_eq (zframe_send (&f, dealer, 0), 0);
    f = zframe_new (NULL, 0);
    cr_assert_eq (zframe_send (&f, dealer, 0), 0);
    zmsg_t *multi = zmsg_new ();
    zmsg_addmem (multi, junk, 3);
    zmsg_addmem (multi, junk, 5);
    zmsg_addmem (multi, junk, 7);
    cr_assert_eq (zmsg_send (&multi, dealer), 0);
    /* a valid snapshot: not a request, so not physics' on cmd */
    sim_snapshot_t snap;
    memset (&snap, 0, sizeof snap);
    sim_bus_snapshot_msg_t m;
    cr_assert_eq (sim_bus_send (dealer, NULL, sim_bus_snapshot_encode (&m, &snap, false, 0)), 0);
    /* a request of another bus version */
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 667;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, &req);
    env.version = SIM_BUS_VERSION + 1;
    uint8_t buf[64];
    size_t size = simbus__envelope__pack (&env, buf);
    f = zframe_new (buf, size);
    cr_assert_eq (zframe_send (&f, dealer, 0), 0);
    return dealer;
}

static void
s_garbage (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "garbage");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *vis = s_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    s_end_t *gw = s_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    phys->answer = true;
    S_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));

    zsock_t *dealer = s_cmd_garbage (&rig.cfg);
    if (lanes) {
        s_lane_garbage (&rig.cfg, "physics", true);
        s_lane_garbage (&rig.cfg, "vision", false);
        s_lane_garbage (&rig.cfg, "gateway", false);
    }
    s_settle (&rig);
    /* the links still work, and only the real messages were delivered */
    cr_expect_eq (s_send_request (gw->link, 5), 1);
    cr_expect_geq (s_send_snapshot (phys->link, 77), 1);
    S_PUMP_UNTIL (&rig, gw->count >= 1 && vis->count >= 1);
    s_settle (&rig);
    cr_assert_eq (phys->count, 1, "lanes %d: physics got %d messages, only one was real", lanes, phys->count);
    cr_expect_eq (phys->got[0]->request->id, 5);
    cr_assert_eq (gw->count, 1, "lanes %d: the gateway got %d messages", lanes, gw->count);
    cr_expect_eq (gw->got[0]->reply->id, 5);
    cr_assert_eq (vis->count, 1, "lanes %d: vision got %d messages", lanes, vis->count);
    cr_expect_eq (vis->got[0]->snapshot->time_ns, 77);
    zsock_destroy (&dealer);
    s_rig_close (&rig);
}

Test (link, garbage_on_the_bus_is_dropped_zmq)
{
    s_garbage (false);
}

Test (link, garbage_on_the_bus_is_dropped_lanes)
{
    s_garbage (true);
}

/* ---- sim_loop ------------------------------------------------------------- */

typedef struct {
    char order[32];
    int n;
    int fd;        /* to drain, or -1 */
    zsock_t *sock; /* to drain, or NULL */
    char *log;
} s_handler_t;

static void
s_handler (void *arg)
{
    s_handler_t *h = arg;
    size_t at = strlen (h->log);
    h->log[at] = h->order[0];
    h->log[at + 1] = 0;
    h->n++;
    if (h->fd >= 0) {
        char c;
        cr_assert_eq (read (h->fd, &c, 1), 1);
    }
    if (h->sock) {
        char *s = zstr_recv (h->sock);
        zstr_free (&s);
    }
}

Test (link, loop_dispatches_named_handlers_in_order)
{
    char log[64] = "";
    int pa[2], pb[2], pc[2];
    cr_assert (pipe (pa) == 0 && pipe (pb) == 0 && pipe (pc) == 0);
    char bind[64], conn[64];
    snprintf (bind, sizeof bind, "@inproc://looptest-%d", (int) getpid ());
    snprintf (conn, sizeof conn, ">inproc://looptest-%d", (int) getpid ());
    zsock_t *in = zsock_new_pair (bind);
    zsock_t *out = zsock_new_pair (conn);
    cr_assert (in && out);

    s_handler_t a = { "a", 0, pa[0], NULL, log }, b = { "b", 0, pb[0], NULL, log },
                c = { "c", 0, pc[0], NULL, log }, s = { "s", 0, -1, in, log }, t1 = { "1", 0, -1, NULL, log },
                t2 = { "2", 0, -1, NULL, log };
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    cr_assert_eq (sim_loop_add_tick (loop, "tick one", s_handler, &t1), 0);
    cr_assert_eq (sim_loop_add_fd (loop, "fd a", pa[0], s_handler, &a), 0);
    cr_assert_eq (sim_loop_add_sock (loop, "sock s", in, s_handler, &s), 0);
    cr_assert_eq (sim_loop_add_fd (loop, "fd b", pb[0], s_handler, &b), 0);
    cr_assert_eq (sim_loop_add_fd (loop, "fd c", pc[0], s_handler, &c), 0);
    cr_assert_eq (sim_loop_add_tick (loop, "tick two", s_handler, &t2), 0);

    /* nothing ready: a timeout, and the ticks still run */
    cr_expect_eq (sim_loop_wait (loop, 0), 0);
    cr_expect_not (sim_loop_ready (loop, "fd a"));
    sim_loop_dispatch (loop);
    cr_expect_str_eq (log, "12", "ticks run every turn, in the order added");

    /* c and a ready (written in that order), then the socket */
    log[0] = 0;
    cr_assert_eq (write (pc[1], "x", 1), 1);
    cr_assert_eq (write (pa[1], "x", 1), 1);
    cr_assert_eq (zstr_send (out, "hello"), 0);
    int ready = 0;
    for (int i = 0; i < 100 && ready < 3; i++)
        ready = sim_loop_wait (loop, 20); /* the socket's message may take a moment */
    cr_assert_eq (ready, 3);
    cr_expect (sim_loop_ready (loop, "fd a"));
    cr_expect_not (sim_loop_ready (loop, "fd b"));
    cr_expect (sim_loop_ready (loop, "fd c"));
    cr_expect (sim_loop_ready (loop, "sock s"));
    cr_expect_not (sim_loop_ready (loop, "tick one"), "a tick is not an input");
    cr_expect_not (sim_loop_ready (loop, "no such handler"));
    sim_loop_dispatch (loop);
    cr_expect_str_eq (log, "asc12", "inputs in the order added, then ticks");
    cr_expect_not (sim_loop_ready (loop, "fd a"), "dispatch clears the marks");

    /* a full loop refuses */
    int added = 0;
    while (sim_loop_add_fd (loop, "filler", pb[0], s_handler, &b) == 0 && added < 100)
        added++;
    cr_expect_lt (added, 100, "the loop has a bound, and says when it is reached");
    int ticks = 0;
    while (sim_loop_add_tick (loop, "filler tick", s_handler, &t1) == 0 && ticks < 100)
        ticks++;
    cr_expect_lt (ticks, 100);

    sim_loop_destroy (&loop);
    cr_expect_null (loop);
    sim_loop_destroy (&loop);
    zsock_destroy (&in);
    zsock_destroy (&out);
    for (int i = 0; i < 2; i++) {
        close (pa[i]);
        close (pb[i]);
        close (pc[i]);
    }
}

/* The link's inputs are named handlers of the service's loop: a request
   wakes the input of the carrier it came by. */
static void
s_input_names (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "names");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *gw = s_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    cr_expect_not (sim_link_input_waiting (phys->link));
    cr_assert_eq (s_send_request (gw->link, 1), 1);
    int ready = 0;
    for (int i = 0; i < S_TURNS && ready == 0; i++)
        ready = sim_loop_wait (phys->loop, S_POLL_MS);
    cr_assert_eq (ready, 1);
    cr_expect_eq (sim_loop_ready (phys->loop, "bus lane"), lanes, "lanes %d", lanes);
    cr_expect_eq (sim_loop_ready (phys->loop, "bus cmd"), !lanes, "lanes %d", lanes);
    cr_expect_not (sim_loop_ready (phys->loop, "bus world"));
    cr_expect (sim_link_input_waiting (phys->link));
    sim_loop_dispatch (phys->loop);
    cr_expect_eq (phys->count, 1);
    cr_expect_not (sim_link_input_waiting (phys->link));
    s_rig_close (&rig);
}

/* Physics looks for a request while it steps, without its loop
   (sim_link_input_waiting, one poll for both carriers): every request is
   seen, by lane or by ZeroMQ, also one that comes after physics answered
   the last one (a send handles the cmd socket's commands, so its ZMQ_FD
   may not tell), and a request seen stays seen until it is read. */
static bool
s_request_seen (sim_link_t *link)
{
    int64_t until = zclock_usecs () + 10 * 1000000; /* a bound, not a wait: true at once when it works */
    while (zclock_usecs () < until)
        if (sim_link_input_waiting (link))
            return true;
    return false;
}

static void
s_requests_seen_while_stepping (bool lanes)
{
    s_rig_t rig;
    s_rig_cfg (&rig, lanes, "waiting");
    s_end_t *phys = s_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    s_end_t *gw = s_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    s_end_t *tool = s_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, NULL, 0);
    phys->answer = true;
    cr_expect_not (sim_link_input_waiting (phys->link));
    for (int round = 0; round < 6; round++) {
        s_end_t *from = round % 2 ? gw : tool; /* the tool's go by ZeroMQ */
        cr_assert_eq (s_send_request (from->link, (uint64_t) round + 1), 1);
        cr_assert (s_request_seen (phys->link), "lanes %d, round %d", lanes, round);
        cr_expect (sim_link_input_waiting (phys->link), "seen until read, round %d", round);
        S_PUMP_UNTIL (&rig, phys->count == round + 1);
        cr_expect_not (sim_link_input_waiting (phys->link), "round %d", round);
        S_PUMP_UNTIL (&rig, from->count == round / 2 + 1); /* the reply, which touched cmd */
    }
    cr_expect_eq (phys->replies_sent, 6);
    s_rig_close (&rig);
}

Test (link, requests_are_seen_while_physics_steps_zmq)
{
    s_requests_seen_while_stepping (false);
}

Test (link, requests_are_seen_while_physics_steps_lanes)
{
    s_requests_seen_while_stepping (true);
}

Test (link, loop_names_the_links_inputs_zmq)
{
    s_input_names (false);
}

Test (link, loop_names_the_links_inputs_lanes)
{
    s_input_names (true);
}
