/*  test_lane.c - common/bus/sim_lane.c: when lanes apply, the record format
    (batches, malformed datagrams), delivery and its failures (absent peer,
    full queue), replies, stale lane files, and inproc lanes kept in the
    private runtime directory. Every test uses its own directory or
    inproc name, so tests may run in parallel. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_lane.h"

static void
s_ipc_cfg (sim_config_t *cfg, const char *dir)
{
    sim_config_defaults (cfg);
    snprintf (cfg->bus.cmd_connect, SIM_STRING_MAX, "ipc://%s/cmd.sock", dir);
    snprintf (cfg->bus.world_connect, SIM_STRING_MAX, "ipc://%s/world.sock", dir);
    snprintf (cfg->bus.frames_connect, SIM_STRING_MAX, "ipc://%s/frames.sock", dir);
    cfg->bus.lanes = true;
}

/* Inproc lanes share the user's runtime directory: the pid keeps parallel
   tests apart. */
static void
s_inproc_cfg (sim_config_t *cfg)
{
    sim_config_defaults (cfg);
    snprintf (cfg->bus.cmd_connect, SIM_STRING_MAX, "inproc://lanetest-cmd-%d", (int) getpid ());
    snprintf (cfg->bus.world_connect, SIM_STRING_MAX, "inproc://lanetest-world-%d", (int) getpid ());
    snprintf (cfg->bus.frames_connect, SIM_STRING_MAX, "inproc://lanetest-frames-%d", (int) getpid ());
    cfg->bus.lanes = true;
}

/* A private lane directory with physics and vision open. */
typedef struct {
    char dir[32];
    sim_config_t cfg;
    sim_lane_t *physics, *vision;
} s_rig_t;

static void
s_rig_open (s_rig_t *rig)
{
    snprintf (rig->dir, sizeof rig->dir, "/tmp/ssl-sim-lane-XXXXXX");
    cr_assert_not_null (mkdtemp (rig->dir));
    s_ipc_cfg (&rig->cfg, rig->dir);
    rig->physics = sim_lane_new (&rig->cfg, SIM_LANE_PHYSICS);
    rig->vision = sim_lane_new (&rig->cfg, SIM_LANE_VISION);
    cr_assert (rig->physics && rig->vision);
}

static void
s_rig_close (s_rig_t *rig)
{
    sim_lane_destroy (&rig->physics);
    sim_lane_destroy (&rig->vision);
    char cmd[64];
    snprintf (cmd, sizeof cmd, "rm -rf %s", rig->dir);
    cr_assert_eq (system (cmd), 0);
}

static bool
s_exists (const char *dir, const char *name)
{
    char path[300];
    struct stat st;
    snprintf (path, sizeof path, "%s/%s", dir, name);
    return stat (path, &st) == 0;
}

static double
s_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static void
s_snapshot (Simbus__Envelope *env, Simbus__Snapshot *snap, Simbus__BallState *ball, uint64_t time_ns)
{
    simbus__envelope__init (env);
    simbus__snapshot__init (snap);
    simbus__ball_state__init (ball);
    ball->x = 1.5;
    snap->time_ns = time_ns;
    snap->ball = ball;
    env->body_case = SIMBUS__ENVELOPE__BODY_SNAPSHOT;
    env->snapshot = snap;
}

static int
s_send_snapshot (sim_lane_t *from, sim_lane_id_t to, uint64_t time_ns, int wait_ms)
{
    Simbus__Envelope env;
    Simbus__Snapshot snap;
    Simbus__BallState ball;
    s_snapshot (&env, &snap, &ball, time_ns);
    return sim_lane_send (from, to, SIM_TOPIC_SNAPSHOT, &env, wait_ms);
}

/* A datagram is queued by the time sendto returns; the bounded poll only
   guards against a slow kernel path making a test flaky. */
static int
s_recv (sim_lane_t *lane, Simbus__Envelope **env, char *topic, sim_lane_peer_t *from)
{
    if (!sim_lane_buffered (lane)) {
        struct pollfd p = { .fd = sim_lane_fd (lane), .events = POLLIN };
        poll (&p, 1, 1000);
    }
    bool warned = false;
    return sim_lane_recv (lane, env, topic, 8, from, &warned);
}

static void
s_expect_snapshot (sim_lane_t *lane, uint64_t time_ns)
{
    Simbus__Envelope *env = NULL;
    char topic[8];
    cr_assert_eq (s_recv (lane, &env, topic, NULL), 1);
    cr_assert_not_null (env);
    cr_assert_str_eq (topic, SIM_TOPIC_SNAPSHOT);
    cr_assert_eq (env->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
    cr_assert_eq (env->snapshot->time_ns, time_ns);
    simbus__envelope__free_unpacked (env, NULL);
}

static bool
s_nothing_waits (sim_lane_t *lane)
{
    Simbus__Envelope *env = NULL;
    char topic[8];
    return sim_lane_recv (lane, &env, topic, sizeof topic, NULL, NULL) == 0 && !env;
}

Test (lane, enabled_only_for_same_host_endpoints)
{
    sim_config_t cfg;
    s_ipc_cfg (&cfg, "/tmp/x");
    cr_assert (sim_lane_enabled (&cfg));
    s_inproc_cfg (&cfg);
    cr_assert (sim_lane_enabled (&cfg));

    sim_config_defaults (&cfg);
    snprintf (cfg.bus.cmd_connect, SIM_STRING_MAX, "tcp://127.0.0.1:7301");
    snprintf (cfg.bus.world_connect, SIM_STRING_MAX, "tcp://127.0.0.1:7302");
    snprintf (cfg.bus.frames_connect, SIM_STRING_MAX, "tcp://127.0.0.1:7303");
    cr_assert_not (sim_lane_enabled (&cfg));
    cr_assert_null (sim_lane_new (&cfg, SIM_LANE_PHYSICS));

    s_ipc_cfg (&cfg, "/tmp/x");
    cfg.bus.lanes = false;
    cr_assert_not (sim_lane_enabled (&cfg));
    cr_assert_null (sim_lane_new (&cfg, SIM_LANE_PHYSICS));

    /* one service over tcp means they need not share a host */
    s_ipc_cfg (&cfg, "/tmp/x");
    snprintf (cfg.bus.world_connect, SIM_STRING_MAX, "tcp://127.0.0.1:7302");
    cr_assert_not (sim_lane_enabled (&cfg));

    /* sun_path holds 107 characters and a NUL; "/gateway.lane" is 13 */
    char dir[128];
    memset (dir, 'd', sizeof dir);
    dir[0] = '/';
    dir[94] = 0;
    s_ipc_cfg (&cfg, dir);
    cr_assert (sim_lane_enabled (&cfg));
    dir[94] = 'd';
    dir[95] = 0;
    s_ipc_cfg (&cfg, dir);
    cr_assert_not (sim_lane_enabled (&cfg));
    cr_assert_null (sim_lane_new (&cfg, SIM_LANE_PHYSICS));
}

Test (lane, round_trip_over_ipc)
{
    s_rig_t rig;
    s_rig_open (&rig);
    cr_assert (s_exists (rig.dir, "physics.lane"));
    cr_assert (s_nothing_waits (rig.physics));
    cr_assert_eq (s_send_snapshot (rig.vision, SIM_LANE_PHYSICS, 16000000, -1), 0);
    s_expect_snapshot (rig.physics, 16000000);
    cr_assert (s_nothing_waits (rig.physics));

    sim_lane_destroy (&rig.physics);
    cr_assert_null (rig.physics);
    cr_assert_not (s_exists (rig.dir, "physics.lane"));
    s_rig_close (&rig); /* destroys physics a second time: harmless */
}

Test (lane, a_batch_is_one_datagram)
{
    s_rig_t rig;
    s_rig_open (&rig);
    Simbus__Envelope env;
    Simbus__Snapshot snap;
    Simbus__BallState ball;
    s_snapshot (&env, &snap, &ball, 1000);
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_VISION, SIM_TOPIC_SNAPSHOT, &env, -1), 0);
    snap.time_ns = 2000;
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_VISION, SIM_TOPIC_SNAPSHOT, &env, -1), 0);
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = 7;
    done.time_ns = 3000;
    Simbus__Envelope mark = SIMBUS__ENVELOPE__INIT;
    mark.body_case = SIMBUS__ENVELOPE__BODY_STEP_DONE;
    mark.step_done = &done;
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_VISION, SIM_TOPIC_STEP_DONE, &mark, -1), 0);
    cr_assert (s_nothing_waits (rig.vision));

    cr_assert_eq (sim_lane_flush (rig.physics, -1), 0);
    s_expect_snapshot (rig.vision, 1000);
    cr_assert (sim_lane_buffered (rig.vision));
    s_expect_snapshot (rig.vision, 2000);
    cr_assert (sim_lane_buffered (rig.vision));
    Simbus__Envelope *got = NULL;
    char topic[8];
    cr_assert_eq (s_recv (rig.vision, &got, topic, NULL), 1);
    cr_assert_not (sim_lane_buffered (rig.vision));
    cr_assert_not_null (got);
    cr_assert_str_eq (topic, SIM_TOPIC_STEP_DONE);
    cr_assert_eq (got->step_done->step_id, 7);
    cr_assert_eq (got->step_done->time_ns, 3000);
    simbus__envelope__free_unpacked (got, NULL);
    /* a batch is sent once, never again by the next flush */
    cr_assert_eq (sim_lane_flush (rig.physics, -1), 0);
    cr_assert (s_nothing_waits (rig.vision));

    /* a record for another service sends the pending batch first */
    sim_lane_t *gateway = sim_lane_new (&rig.cfg, SIM_LANE_GATEWAY);
    cr_assert_not_null (gateway);
    snap.time_ns = 4000;
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_VISION, SIM_TOPIC_SNAPSHOT, &env, -1), 0);
    snap.time_ns = 5000;
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_GATEWAY, SIM_TOPIC_SNAPSHOT, &env, -1), 0);
    s_expect_snapshot (rig.vision, 4000);
    cr_assert (s_nothing_waits (gateway));
    cr_assert_eq (sim_lane_flush (rig.physics, -1), 0);
    s_expect_snapshot (gateway, 5000);
    sim_lane_destroy (&gateway);
    s_rig_close (&rig);
}

/* A snapshot crosses a lane flat (sim_bus_snapshot_flatten), and its
   reader gets the envelope a packed one gives, under topic S: robots,
   ball, step id and timestamp base to the bit. */
Test (lane, a_snapshot_reads_as_it_was_sent)
{
    s_rig_t rig;
    s_rig_open (&rig);
    sim_snapshot_t in;
    memset (&in, 0, sizeof in);
    in.time_ns = 123456789;
    in.epoch_us = -42;
    in.ball = (sim_ball_state_t) { 1.0 / 3, -2.5, 0.0215, 4e-300, -0.0, 7, 8, 9 };
    in.robot_count = 22;
    for (int i = 0; i < in.robot_count; i++)
        in.robots[i] = (sim_robot_state_t) { .team = i >= 11,
                                             .id = i % 11,
                                             .x = i / 7.0,
                                             .y = -i / 3.0,
                                             .orientation = i * 0.1,
                                             .vx = 1e-9 * i,
                                             .vy = 2,
                                             .omega = -3,
                                             .ball_contact = i == 5,
                                             .radius = 0.09,
                                             .height = 0.15 };
    sim_bus_snapshot_msg_t m;
    cr_assert_eq (sim_lane_queue (rig.physics, SIM_LANE_VISION, SIM_TOPIC_SNAPSHOT,
                                  sim_bus_snapshot_encode (&m, &in, true, 77), -1),
                  0);
    cr_assert_eq (sim_lane_flush (rig.physics, -1), 0);
    Simbus__Envelope *env = NULL;
    char topic[8];
    cr_assert_eq (s_recv (rig.vision, &env, topic, NULL), 1);
    cr_assert_not_null (env);
    cr_assert_str_eq (topic, SIM_TOPIC_SNAPSHOT);
    cr_assert_eq (env->body_case, SIMBUS__ENVELOPE__BODY_SNAPSHOT);
    cr_expect (env->snapshot->has_step_id);
    cr_expect_eq (env->snapshot->step_id, 77);
    sim_snapshot_t out;
    memset (&out, 0x5a, sizeof out);
    cr_assert_eq (sim_bus_snapshot_decode (env->snapshot, &out), 0);
    cr_expect (out.time_ns == in.time_ns && out.epoch_us == in.epoch_us && out.command_us == in.command_us);
    cr_expect_eq (memcmp (&out.ball, &in.ball, sizeof in.ball), 0, "the ball, to the bit");
    cr_assert_eq (out.robot_count, in.robot_count);
    for (int i = 0; i < in.robot_count; i++) {
        const sim_robot_state_t *a = &in.robots[i], *b = &out.robots[i];
        cr_expect (a->team == b->team && a->id == b->id && a->ball_contact == b->ball_contact, "robot %d", i);
        const double va[] = { a->x, a->y, a->orientation, a->vx, a->vy, a->omega, a->radius, a->height };
        const double vb[] = { b->x, b->y, b->orientation, b->vx, b->vy, b->omega, b->radius, b->height };
        cr_expect_eq (memcmp (va, vb, sizeof va), 0, "robot %d", i);
    }
    simbus__envelope__free_unpacked (env, NULL);
    s_rig_close (&rig);
}

/* Physics answers the gateway at the address its request came from. */
static void
s_reply_round_trip (const sim_config_t *cfg)
{
    sim_lane_t *physics = sim_lane_new (cfg, SIM_LANE_PHYSICS);
    sim_lane_t *gateway = sim_lane_new (cfg, SIM_LANE_GATEWAY);
    cr_assert (physics && gateway);
    cr_assert_eq (s_send_snapshot (gateway, SIM_LANE_PHYSICS, 5, -1), 0);
    Simbus__Envelope *env = NULL;
    char topic[8];
    sim_lane_peer_t from;
    memset (&from, 0, sizeof from);
    cr_assert_eq (s_recv (physics, &env, topic, &from), 1);
    cr_assert_not_null (env);
    simbus__envelope__free_unpacked (env, NULL);

    Simbus__Envelope reply;
    Simbus__Snapshot snap;
    Simbus__BallState ball;
    s_snapshot (&reply, &snap, &ball, 6);
    cr_assert_eq (sim_lane_reply (physics, &from, SIM_TOPIC_SNAPSHOT, &reply, -1), 0);
    s_expect_snapshot (gateway, 6);
    sim_lane_destroy (&physics);
    sim_lane_destroy (&gateway);
}

Test (lane, reply_reaches_the_sender)
{
    char dir[] = "/tmp/ssl-sim-lane-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    sim_config_t cfg;
    s_ipc_cfg (&cfg, dir);
    s_reply_round_trip (&cfg);
    s_inproc_cfg (&cfg);
    s_reply_round_trip (&cfg);
    cr_assert_eq (rmdir (dir), 0, "a lane file was left behind");
}

Test (lane, absent_peer_fails_at_once)
{
    s_rig_t rig;
    s_rig_open (&rig);
    sim_lane_destroy (&rig.vision);
    char path[300];
    snprintf (path, sizeof path, "%s/vision.lane", rig.dir);
    /* no file, then a file where no socket listens: neither is waited on */
    for (int i = 0; i < 4; i++) {
        if (i == 2) {
            FILE *f = fopen (path, "w");
            cr_assert_not_null (f);
            fclose (f);
        }
        int wait_ms = i % 2 ? 100 : -1;
        double t0 = s_now_ms ();
        errno = 0;
        cr_assert_eq (s_send_snapshot (rig.physics, SIM_LANE_VISION, 1, wait_ms), -1);
        cr_assert (errno == ECONNREFUSED || errno == ENOENT, "errno %d", errno);
        cr_assert_lt (s_now_ms () - t0, 50.0, "case %d", i);
    }
    s_rig_close (&rig);
}

/* The timeout turns a send that never returns into a failure. */
Test (lane, full_queue_fails_without_losing_accepted_records, .timeout = 10)
{
    s_rig_t rig;
    s_rig_open (&rig);
    int sent = 0;
    bool full = false;
    for (int i = 0; i < 1000 && !full; i++) {
        errno = 0;
        if (s_send_snapshot (rig.physics, SIM_LANE_VISION, (uint64_t) i, -1) == 0)
            sent++;
        else {
            cr_assert_eq (errno, EAGAIN, "send %d: errno %d", i, errno);
            full = true;
        }
    }
    cr_assert (full, "1000 sends, none refused");
    cr_assert_gt (sent, 0);
    cr_assert_gt (sim_lane_unread (rig.physics), 0);

    /* wait_ms 0 waits for nothing (an SO_SNDTIMEO of 0 would be forever);
       100 gives up after about that long */
    const int waits[] = { 0, 100 };
    for (int i = 0; i < 2; i++) {
        double t0 = s_now_ms ();
        errno = 0;
        cr_assert_eq (s_send_snapshot (rig.physics, SIM_LANE_VISION, 9999, waits[i]), -1);
        cr_assert_eq (errno, EAGAIN);
        double waited = s_now_ms () - t0;
        cr_assert (waited >= waits[i] * 0.8 && waited < waits[i] * 3 + 50.0, "waited %.1f ms", waited);
    }

    for (int i = 0; i < sent; i++)
        s_expect_snapshot (rig.vision, (uint64_t) i);
    cr_assert (s_nothing_waits (rig.vision));
    cr_assert_eq (sim_lane_unread (rig.physics), 0);
    s_rig_close (&rig);
}

/* Deterministic noise, so a failure reproduces. */
static void
s_noise (uint8_t *buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        buf[i] = (uint8_t) seed;
    }
}

Test (lane, malformed_datagrams_are_dropped_whole)
{
    s_rig_t rig;
    s_rig_open (&rig);
    struct sockaddr_un to = { .sun_family = AF_UNIX };
    snprintf (to.sun_path, sizeof to.sun_path, "%s/physics.lane", rig.dir);
    int fd = socket (AF_UNIX, SOCK_DGRAM, 0);
    cr_assert_geq (fd, 0);

    /* the lies wrap a valid envelope, so only the length checks drop them */
    Simbus__Envelope valid;
    Simbus__Snapshot snap;
    Simbus__BallState ball;
    s_snapshot (&valid, &snap, &ball, 1);
    valid.version = SIM_BUS_VERSION;
    size_t vlen = simbus__envelope__get_packed_size (&valid);
    cr_assert_lt (vlen, 256);
    uint8_t bad_topic[1 + 200 + 4 + 256] = { 200 };
    memset (bad_topic + 1, 'T', 200);
    bad_topic[201] = (uint8_t) vlen;
    simbus__envelope__pack (&valid, bad_topic + 205);
    /* topic "S", then an envelope length (little endian) of 2 GiB */
    uint8_t too_long[6 + 256] = { 1, 'S', 0xFF, 0xFF, 0xFF, 0x7F };
    simbus__envelope__pack (&valid, too_long + 6);
    uint8_t garbage[6 + 40] = { 1, 'S', 40, 0, 0, 0 };
    s_noise (garbage + 6, 40, 777);
    static uint8_t big[64 * 1024];
    s_noise (big, sizeof big, 12345);
    /* a flat snapshot record ("Sf", sim_bus_snapshot_flatten) of noise */
    uint8_t flat_noise[7 + 112 + 76] = { 2, 'S', 'f', 112 + 76, 0, 0, 0 };
    s_noise (flat_noise + 7, sizeof flat_noise - 7, 4242);
    const uint8_t ff = 0xFF;
    const struct {
        const void *data;
        size_t len;
    } cases[] = {
        { "", 0 },
        { &ff, 1 },
        { bad_topic, 205 + vlen },
        { too_long, 6 + vlen },
        { garbage, sizeof garbage },
        { big, sizeof big },
        { flat_noise, sizeof flat_noise },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ssize_t n = sendto (fd, cases[c].data, cases[c].len, 0, (struct sockaddr *) &to, sizeof to);
        cr_assert_eq (n, (ssize_t) cases[c].len, "case %zu: %s", c, strerror (errno));
        Simbus__Envelope *env = NULL;
        char topic[8];
        cr_assert_eq (s_recv (rig.physics, &env, topic, NULL), 1, "case %zu", c);
        cr_assert_null (env, "case %zu", c);
        /* noise may happen to parse as several records: none decodes */
        for (int i = 0; i < 1000 && sim_lane_buffered (rig.physics); i++) {
            cr_assert_eq (sim_lane_recv (rig.physics, &env, topic, sizeof topic, NULL, NULL), 1);
            cr_assert_null (env, "case %zu", c);
        }
        cr_assert (s_nothing_waits (rig.physics), "case %zu", c);
    }
    close (fd);
    cr_assert_eq (s_send_snapshot (rig.vision, SIM_LANE_PHYSICS, 42, -1), 0);
    s_expect_snapshot (rig.physics, 42);
    s_rig_close (&rig);
}

Test (lane, stale_files_are_replaced_and_only_our_own_removed)
{
    s_rig_t rig;
    s_rig_open (&rig);
    sim_lane_destroy (&rig.vision);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf (addr.sun_path, sizeof addr.sun_path, "%s/vision.lane", rig.dir);

    /* a socket file left by a killed process */
    int fd = socket (AF_UNIX, SOCK_DGRAM, 0);
    cr_assert_eq (bind (fd, (struct sockaddr *) &addr, sizeof addr), 0);
    close (fd);
    sim_lane_t *a = sim_lane_new (&rig.cfg, SIM_LANE_VISION);
    cr_assert_not_null (a);
    cr_assert_eq (s_send_snapshot (rig.physics, SIM_LANE_VISION, 1, -1), 0);
    s_expect_snapshot (a, 1);

    /* a restarted vision binds the path before the old one is destroyed */
    sim_lane_t *b = sim_lane_new (&rig.cfg, SIM_LANE_VISION);
    cr_assert_not_null (b);
    sim_lane_destroy (&a);
    cr_assert (s_exists (rig.dir, "vision.lane"));
    cr_assert_eq (s_send_snapshot (rig.physics, SIM_LANE_VISION, 2, -1), 0);
    s_expect_snapshot (b, 2);
    sim_lane_destroy (&b);
    cr_assert_not (s_exists (rig.dir, "vision.lane"));

    /* a regular file in the way */
    FILE *f = fopen (addr.sun_path, "w");
    cr_assert_not_null (f);
    fclose (f);
    rig.vision = sim_lane_new (&rig.cfg, SIM_LANE_VISION);
    cr_assert_not_null (rig.vision);
    cr_assert_eq (s_send_snapshot (rig.physics, SIM_LANE_VISION, 3, -1), 0);
    s_expect_snapshot (rig.vision, 3);
    s_rig_close (&rig);
}

Test (lane, packed_records_travel_as_bytes)
{
    s_rig_t rig;
    s_rig_open (&rig);
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = 99;
    done.time_ns = 123456789;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_STEP_DONE;
    env.step_done = &done;
    size_t len = 0, env_len = 0;
    void *record = sim_lane_pack (SIM_TOPIC_STEP_DONE, &env, &len);
    cr_assert_not_null (record);
    const void *bytes = sim_lane_envelope (record, len, &env_len);
    cr_assert_eq (env_len, simbus__envelope__get_packed_size (&env));
    cr_assert_eq (len, 1 + strlen (SIM_TOPIC_STEP_DONE) + 4 + env_len);
    Simbus__Envelope *got = simbus__envelope__unpack (NULL, env_len, bytes);
    cr_assert_not_null (got);
    cr_assert_eq (got->version, SIM_BUS_VERSION);
    cr_assert_eq (got->step_done->step_id, 99);
    cr_assert_eq (got->step_done->time_ns, 123456789);
    simbus__envelope__free_unpacked (got, NULL);

    cr_assert_eq (sim_lane_send_bytes (rig.physics, SIM_LANE_VISION, record, len, -1), 0);
    char topic[8];
    cr_assert_eq (s_recv (rig.vision, &got, topic, NULL), 1);
    cr_assert_not_null (got);
    cr_assert_str_eq (topic, SIM_TOPIC_STEP_DONE);
    cr_assert_eq (got->step_done->step_id, 99);
    simbus__envelope__free_unpacked (got, NULL);
    free (record);

    /* more than one lane datagram holds: refused, nothing sent */
    static char ini[300 * 1024];
    memset (ini, 'x', sizeof ini - 1);
    Simbus__Config config = SIMBUS__CONFIG__INIT;
    config.ini = ini;
    env.body_case = SIMBUS__ENVELOPE__BODY_CONFIG;
    env.config = &config;
    cr_assert_null (sim_lane_pack (SIM_TOPIC_CONFIG, &env, &len));
    errno = 0;
    cr_assert_eq (sim_lane_send (rig.physics, SIM_LANE_VISION, SIM_TOPIC_CONFIG, &env, -1), -1);
    cr_assert_eq (errno, EMSGSIZE);
    cr_assert (s_nothing_waits (rig.vision));
    s_rig_close (&rig);
}

/* ---- inproc lanes: files in the private runtime directory --------------- */

Test (lane, inproc_lanes_live_in_the_private_runtime_dir)
{
    char xdg[] = "/tmp/ssl-sim-lane-XXXXXX";
    cr_assert_not_null (mkdtemp (xdg));
    setenv ("XDG_RUNTIME_DIR", xdg, 1);
    sim_config_t cfg;
    s_inproc_cfg (&cfg);
    sim_lane_t *physics = sim_lane_new (&cfg, SIM_LANE_PHYSICS);
    cr_assert_not_null (physics);
    char rundir[64], name[128];
    snprintf (rundir, sizeof rundir, "%s/ssl-sim", xdg);
    snprintf (name, sizeof name, "inproc-lanetest-cmd-%d.physics.lane", (int) getpid ());
    char path[300];
    snprintf (path, sizeof path, "%s/%s", rundir, name);
    struct stat st;
    cr_assert_eq (stat (path, &st), 0, "no lane file %s", path);
    cr_expect (S_ISSOCK (st.st_mode));
    cr_expect_eq (st.st_mode & 0777, 0600, "lane mode %o", (unsigned) (st.st_mode & 0777));
    sim_lane_peer_t addr;
    cr_assert_eq (sim_lane_address (&cfg, SIM_LANE_PHYSICS, &addr), 0);
    cr_expect_str_eq (addr.addr.sun_path, path);

    /* the abstract name it had before answers nobody */
    int fd = socket (AF_UNIX, SOCK_DGRAM, 0);
    cr_assert_geq (fd, 0);
    struct sockaddr_un abstract = { .sun_family = AF_UNIX };
    int n = snprintf (abstract.sun_path + 1, sizeof abstract.sun_path - 1, "ssl-sim-lane:%s:physics",
                      cfg.bus.cmd_connect + 9);
    socklen_t alen = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + (size_t) n);
    cr_expect_eq (sendto (fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *) &abstract, alen), -1);
    close (fd);

    /* a second simulator of the same user (another cmd name) is apart */
    sim_config_t other;
    s_inproc_cfg (&other);
    snprintf (other.bus.cmd_connect, SIM_STRING_MAX, "inproc://lanetest-other-%d", (int) getpid ());
    sim_lane_t *physics2 = sim_lane_new (&other, SIM_LANE_PHYSICS);
    sim_lane_t *vision2 = sim_lane_new (&other, SIM_LANE_VISION);
    cr_assert (physics2 && vision2);
    cr_assert_eq (s_send_snapshot (vision2, SIM_LANE_PHYSICS, 8, -1), 0);
    s_expect_snapshot (physics2, 8);
    cr_assert (s_nothing_waits (physics));
    sim_lane_destroy (&physics2);
    sim_lane_destroy (&vision2);

    sim_lane_destroy (&physics);
    cr_expect_neq (access (path, F_OK), 0, "the lane file outlived its lane");
    cr_expect_eq (rmdir (rundir), 0, "a lane file was left behind");
    cr_expect_eq (rmdir (xdg), 0);
}

Test (lane, long_inproc_names_are_hashed_apart)
{
    char xdg[] = "/tmp/ssl-sim-lane-XXXXXX";
    cr_assert_not_null (mkdtemp (xdg));
    setenv ("XDG_RUNTIME_DIR", xdg, 1);
    sim_config_t a, b;
    s_inproc_cfg (&a);
    s_inproc_cfg (&b);
    char longname[200];
    memset (longname, 'n', sizeof longname);
    longname[sizeof longname - 1] = 0;
    snprintf (a.bus.cmd_connect, SIM_STRING_MAX, "inproc://a%s", longname);
    snprintf (b.bus.cmd_connect, SIM_STRING_MAX, "inproc://b%s", longname);
    sim_lane_peer_t pa, pb;
    cr_assert_eq (sim_lane_address (&a, SIM_LANE_GATEWAY, &pa), 0, "a long name must still fit");
    cr_assert_eq (sim_lane_address (&b, SIM_LANE_GATEWAY, &pb), 0);
    cr_expect_str_neq (pa.addr.sun_path, pb.addr.sun_path);
    cr_expect (strstr (pa.addr.sun_path, "/ssl-sim/inproc#"), "%s", pa.addr.sun_path);
    /* names with a slash or other odd bytes are hashed too */
    snprintf (a.bus.cmd_connect, SIM_STRING_MAX, "inproc://x/../y");
    cr_assert_eq (sim_lane_address (&a, SIM_LANE_GATEWAY, &pa), 0);
    cr_expect (strstr (pa.addr.sun_path, "/ssl-sim/inproc#"), "%s", pa.addr.sun_path);
    char cmd[64];
    snprintf (cmd, sizeof cmd, "rm -rf %s", xdg);
    cr_assert_eq (system (cmd), 0);
}

Test (lane, no_inproc_lanes_in_a_refused_runtime_dir)
{
    char xdg[] = "/tmp/ssl-sim-lane-XXXXXX";
    cr_assert_not_null (mkdtemp (xdg));
    setenv ("XDG_RUNTIME_DIR", xdg, 1);
    char rundir[64];
    snprintf (rundir, sizeof rundir, "%s/ssl-sim", xdg);
    cr_assert_eq (mkdir (rundir, 0700), 0);
    cr_assert_eq (chmod (rundir, 0777), 0);
    sim_config_t cfg;
    s_inproc_cfg (&cfg);
    /* the services then talk over inproc ZeroMQ alone, which no other
       process can reach */
    cr_expect_not (sim_lane_enabled (&cfg));
    cr_expect_null (sim_lane_new (&cfg, SIM_LANE_PHYSICS));
    char cmd[64];
    snprintf (cmd, sizeof cmd, "rm -rf %s", xdg);
    cr_assert_eq (system (cmd), 0);
}
