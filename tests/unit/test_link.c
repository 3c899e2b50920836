/*  test_link.c - common/bus/sim_link.c: service links in
    one process over inproc endpoints, each test with lanes on and with
    lanes off, so the same dataflow is checked on both carriers: physics to
    vision in publication order, requests and their replies, frames-done to
    the gateway, subscriptions (what is not subscribed does not arrive),
    joiners, and bus garbage dropped without a crash. A link on its loop
    (named inputs, requests seen while physics steps) is test_link_loop.c.

    Every wait is a bounded poll on the links' own loops; inproc lanes
    share the user's runtime directory, so the pid keeps parallel tests
    apart.
*/
#include "test_link_support.h"

/* ---- physics -> vision ---------------------------------------------------- */

static const Simbus__Envelope__BodyCase s_vision_kinds[] = {
    SIMBUS__ENVELOPE__BODY_CONFIG,
    SIMBUS__ENVELOPE__BODY_SNAPSHOT,
    SIMBUS__ENVELOPE__BODY_STEP_DONE,
};

static void
s_physics_to_vision (bool lanes)
{
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "order");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *vis = link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CONFIG)
                                    && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                                    && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_STEP_DONE));

    /* as physics publishes: configuration, a step's snapshots and its
       mark, a change of configuration, the next step */
    cr_expect_geq (link_test_send_config (phys->link, &rig.cfg, 1), 1);
    cr_expect_geq (link_test_send_snapshot (phys->link, 1000), 1);
    cr_expect_geq (link_test_send_snapshot (phys->link, 2000), 1);
    cr_expect_geq (link_test_send_step_done (phys->link, 7), 1);
    cr_expect_geq (link_test_send_snapshot (phys->link, 3000), 1);
    cr_expect_geq (link_test_send_config (phys->link, &rig.cfg, 2), 1);
    /* a batch: the same order when the messages travel together */
    cr_expect_eq (sim_link_batch (phys->link, true), 0);
    cr_expect_geq (link_test_send_snapshot (phys->link, 4000), 1);
    cr_expect_geq (link_test_send_snapshot (phys->link, 5000), 1);
    cr_expect_geq (link_test_send_step_done (phys->link, 8), 1);
    cr_expect_eq (sim_link_batch (phys->link, false), 0);
    LINK_TEST_PUMP_UNTIL (&rig, vis->count >= 9);
    link_test_settle (&rig);
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
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "borrow");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *vis = &rig.vision;
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
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));
    /* one datagram of several (each decoded into the same memory in
       turn), then single ones, the biggest a snapshot can be among them */
    const int robots[] = { 22, 0, SIM_SNAPSHOT_MAX_ROBOTS, 1, 22 };
    cr_expect_eq (sim_link_batch (phys->link, true), 0);
    for (int i = 0; i < 3; i++)
        cr_expect_geq (s_send_robots (phys->link, 1000 * (uint64_t) (i + 1), robots[i]), 1);
    cr_expect_eq (sim_link_batch (phys->link, false), 0);
    for (int i = 3; i < 5; i++)
        cr_expect_geq (s_send_robots (phys->link, 1000 * (uint64_t) (i + 1), robots[i]), 1);
    LINK_TEST_PUMP_UNTIL (&rig, b.count >= 5);
    for (int i = 0; i < 5; i++) {
        cr_expect_eq (b.time_ns[i], 1000 * (uint64_t) (i + 1), "lanes %d: snapshot %d", lanes, i);
        cr_expect_eq (b.robots[i], robots[i], "lanes %d: snapshot %d", lanes, i);
        if (robots[i])
            cr_expect_eq (b.last_x[i], (double) b.time_ns[i] + robots[i] - 1, "lanes %d: snapshot %d", lanes,
                          i);
    }
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "request");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *gw = link_test_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    phys->answer = true;
    for (uint64_t id = 41; id < 46; id++)
        cr_expect_eq (link_test_send_request (gw->link, id), 1, "the request is taken");
    LINK_TEST_PUMP_UNTIL (&rig, gw->count >= 5);
    link_test_settle (&rig);
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
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "frames");
    link_test_end_t *vis = link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, NULL, 0);
    link_test_end_t *gw = link_test_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, gw_kinds, 1);
    /* vision learns of the subscription when it publishes: until the
       gateway's has arrived a mark goes to nobody (returns 0) */
    int taken = 0;
    for (int turn = 0; turn < LINK_TEST_TURNS && taken == 0; turn++) {
        taken = link_test_send_frames_done (vis->link, 12);
        cr_assert_geq (taken, 0);
        if (!taken)
            link_test_turn (&rig);
    }
    cr_assert_geq (taken, 1, "lanes %d: the gateway's subscription never came", lanes);
    /* free-running frames: the gateway did not subscribe to them */
    cr_expect_eq (link_test_send_frames (vis->link, 99), 0, "nobody wants free-running frames");
    cr_expect_geq (link_test_send_frames_done (vis->link, 13), 1);
    LINK_TEST_PUMP_UNTIL (&rig, gw->count >= 2);
    link_test_settle (&rig);
    cr_assert_eq (gw->count, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (gw->got[i]->body_case, SIMBUS__ENVELOPE__BODY_FRAMES_DONE);
        cr_expect_eq (gw->got[i]->frames_done->step_id, 12 + (uint64_t) i);
    }
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "subs");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *vis = link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, vis_kinds, 1);
    link_test_end_t *tool = link_test_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, tool_kinds, 1);
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                                    && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    /* vision takes snapshots only; the tool the clock only. What a lane
       carries to vision anyway is dropped by its link. */
    link_test_send_config (phys->link, &rig.cfg, 1);
    link_test_send_step_done (phys->link, 3);
    link_test_send_events (phys->link, 50);
    cr_expect_geq (link_test_send_snapshot (phys->link, 100), 1);
    cr_expect_geq (link_test_send_clock (phys->link, 200), 1);
    LINK_TEST_PUMP_UNTIL (&rig, vis->count >= 1 && tool->count >= 1);
    link_test_settle (&rig);
    cr_assert_eq (vis->count, 1, "lanes %d: vision got only what it subscribed to", lanes);
    cr_expect_eq (vis->got[0]->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
    cr_assert_eq (tool->count, 1, "lanes %d: the tool got only what it subscribed to", lanes);
    cr_expect_eq (tool->got[0]->body_case, SIMBUS__ENVELOPE__BODY_CLOCK);
    cr_expect_eq (tool->got[0]->clock->time_ns, 200);

    /* no more clock for the tool: physics learns that nobody wants it */
    cr_expect_eq (sim_link_unsubscribe (tool->link, SIMBUS__ENVELOPE__BODY_CLOCK), 0);
    LINK_TEST_PUMP_UNTIL (&rig, !sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    cr_expect_eq (link_test_send_clock (phys->link, 300), 0);
    /* and subscribing after attaching works as well */
    cr_expect_eq (sim_link_subscribe (tool->link, SIMBUS__ENVELOPE__BODY_EVENTS), 0);
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_EVENTS));
    cr_expect_geq (link_test_send_events (phys->link, 400), 1);
    LINK_TEST_PUMP_UNTIL (&rig, tool->count >= 2);
    link_test_settle (&rig);
    cr_expect_eq (tool->count, 2);
    cr_expect_eq (tool->got[1]->body_case, SIMBUS__ENVELOPE__BODY_EVENTS);
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "nobody");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *vis = link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, NULL, 0);
    link_test_settle (&rig);
    /* nobody subscribed anything, and no gateway runs */
    cr_expect_eq (link_test_send_clock (phys->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (link_test_send_events (phys->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (link_test_send_frames_done (vis->link, 1), 0, "lanes %d", lanes);
    cr_expect_eq (link_test_send_frames (vis->link, 1), 0, "lanes %d", lanes);
    cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CLOCK));
    cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_EVENTS));
    if (!lanes) {
        /* a lane cannot tell whether vision wants a snapshot; ZeroMQ can */
        cr_expect_not (sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));
        cr_expect_eq (link_test_send_snapshot (phys->link, 1), 0);
        cr_expect_eq (link_test_send_step_done (phys->link, 1), 0);
        cr_expect_eq (link_test_send_config (phys->link, &rig.cfg, 1), 0);
    }

    /* kinds a role does not send, or that are not sent at all */
    cr_expect_eq (link_test_send_snapshot (vis->link, 1), -1, "vision sends no snapshots");
    cr_expect_eq (link_test_send_frames (phys->link, 1), -1, "physics sends no frames");
    cr_expect_eq (link_test_send_request (phys->link, 1), -1, "physics sends no requests");
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
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "joined");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_settle (&rig);
    cr_expect_not (sim_link_joined (phys->link), "nobody joined yet");

    /* vision starts and wants the configuration */
    link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    bool joined = false;
    LINK_TEST_PUMP_UNTIL (&rig, (joined = joined || sim_link_joined (phys->link)));
    /* once every subscription is in, nobody new joins: true once since
       the last call */
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_CONFIG)
                                    && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
                                    && sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_STEP_DONE));
    link_test_settle (&rig);
    sim_link_joined (phys->link);
    link_test_settle (&rig);
    cr_expect_not (sim_link_joined (phys->link), "lanes %d: a joiner is reported once", lanes);

    /* a tool subscribing to anything is a joiner too */
    static const Simbus__Envelope__BodyCase tool_kinds[] = { SIMBUS__ENVELOPE__BODY_CLOCK };
    link_test_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, tool_kinds, 1);
    joined = false;
    LINK_TEST_PUMP_UNTIL (&rig, (joined = joined || sim_link_joined (phys->link)));
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "garbage");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *vis = link_test_rig_add (&rig, &rig.vision, SIM_LINK_VISION, s_vision_kinds, 3);
    link_test_end_t *gw = link_test_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    phys->answer = true;
    LINK_TEST_PUMP_UNTIL (&rig, sim_link_wanted (phys->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT));

    zsock_t *dealer = s_cmd_garbage (&rig.cfg);
    if (lanes) {
        s_lane_garbage (&rig.cfg, "physics", true);
        s_lane_garbage (&rig.cfg, "vision", false);
        s_lane_garbage (&rig.cfg, "gateway", false);
    }
    link_test_settle (&rig);
    /* the links still work, and only the real messages were delivered */
    cr_expect_eq (link_test_send_request (gw->link, 5), 1);
    cr_expect_geq (link_test_send_snapshot (phys->link, 77), 1);
    LINK_TEST_PUMP_UNTIL (&rig, gw->count >= 1 && vis->count >= 1);
    link_test_settle (&rig);
    cr_assert_eq (phys->count, 1, "lanes %d: physics got %d messages, only one was real", lanes, phys->count);
    cr_expect_eq (phys->got[0]->request->id, 5);
    cr_assert_eq (gw->count, 1, "lanes %d: the gateway got %d messages", lanes, gw->count);
    cr_expect_eq (gw->got[0]->reply->id, 5);
    cr_assert_eq (vis->count, 1, "lanes %d: vision got %d messages", lanes, vis->count);
    cr_expect_eq (vis->got[0]->snapshot->time_ns, 77);
    zsock_destroy (&dealer);
    link_test_rig_close (&rig);
}

Test (link, garbage_on_the_bus_is_dropped_zmq)
{
    s_garbage (false);
}

Test (link, garbage_on_the_bus_is_dropped_lanes)
{
    s_garbage (true);
}
