/*  test_bus.c - common/bus/sim_bus.c: endpoint resolution, the envelope codec
    every service shares (version check, topics, ROUTER replies), the XPUB
    subscription set publishers consult before packing, and the runtime
    directory, which is used only when it is private and ours. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"

Test (bus, resolves_ipc_endpoints_in_the_runtime_dir)
{
    char dir[] = "/tmp/ssl-sim-bus-XXXXXX";
    cr_assert_not_null (mkdtemp (dir));
    setenv ("XDG_RUNTIME_DIR", dir, 1);
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_bus_resolve (&cfg, NULL), 0);
    char expect[512];
    snprintf (expect, sizeof expect, "ipc://%s/ssl-sim/cmd.sock", dir);
    cr_assert_str_eq (cfg.bus.cmd_bind, expect);
    cr_assert_str_eq (cfg.bus.cmd_connect, expect);
    snprintf (expect, sizeof expect, "ipc://%s/ssl-sim/frames.sock", dir);
    cr_assert_str_eq (cfg.bus.frames_connect, expect);

    /* a port offset moves the runtime directory; explicit values stay */
    sim_config_defaults (&cfg);
    cfg.network.port_offset = 3;
    snprintf (cfg.bus.world_bind, sizeof cfg.bus.world_bind, "tcp://*:7302");
    cr_assert_eq (sim_bus_resolve (&cfg, NULL), 0);
    snprintf (expect, sizeof expect, "ipc://%s/ssl-sim/3/cmd.sock", dir);
    cr_assert_str_eq (cfg.bus.cmd_bind, expect);
    cr_assert_str_eq (cfg.bus.world_bind, "tcp://*:7302");
    char cmd[600];
    snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq (system (cmd), 0);
}

Test (bus, inproc_names_carry_the_prefix)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_assert_eq (sim_bus_resolve (&cfg, "t1"), 0);
    cr_assert_str_eq (cfg.bus.world_bind, "inproc://world-t1");
    cr_assert_str_eq (cfg.bus.world_connect, "inproc://world-t1");
}

Test (bus, envelope_round_trip_over_pub_sub)
{
    zsock_t *pub = zsock_new_pub ("inproc://bus-test-rt");
    zsock_t *sub = zsock_new_sub ("inproc://bus-test-rt", SIM_TOPIC_STEP_DONE);
    cr_assert (pub && sub);
    Simbus__StepDone done = SIMBUS__STEP_DONE__INIT;
    done.step_id = 77;
    done.time_ns = 16000000;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_STEP_DONE;
    env.step_done = &done;
    /* a PUB drops messages until the subscription has arrived */
    zpoller_t *poller = zpoller_new (sub, NULL);
    Simbus__Envelope *got = NULL;
    char topic = 0;
    bool warned = false;
    for (int i = 0; i < 200 && !got; i++) {
        cr_assert_eq (sim_bus_send (pub, SIM_TOPIC_STEP_DONE, &env), 0);
        if (zpoller_wait (poller, 10))
            got = sim_bus_recv_sub (sub, &topic, &warned);
    }
    cr_assert_not_null (got);
    cr_assert_eq (topic, 'D');
    cr_assert_eq (got->version, SIM_BUS_VERSION);
    cr_assert_eq (got->body_case, SIMBUS__ENVELOPE__BODY_STEP_DONE);
    cr_assert_eq (got->step_done->step_id, 77);
    cr_assert_eq (got->step_done->time_ns, 16000000);
    simbus__envelope__free_unpacked (got, NULL);
    zpoller_destroy (&poller);
    zsock_destroy (&sub);
    zsock_destroy (&pub);
}

Test (bus, other_versions_and_garbage_are_dropped)
{
    Simbus__Clock clock = SIMBUS__CLOCK__INIT;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_CLOCK;
    env.clock = &clock;
    env.version = SIM_BUS_VERSION + 1;
    uint8_t buf[256];
    size_t len = simbus__envelope__pack (&env, buf);
    bool warned = false;
    cr_assert_null (sim_bus_decode (buf, len, &warned));
    cr_assert (warned, "the first mismatch is logged");
    const uint8_t garbage[] = { 0xff, 0xff, 0xff, 0x01, 0x02 };
    cr_assert_null (sim_bus_decode (garbage, sizeof garbage, &warned));
    cr_assert_null (sim_bus_decode (buf, 0, &warned));
}

Test (bus, router_replies_reach_the_requesting_dealer)
{
    zsock_t *router = zsock_new_router ("inproc://bus-test-router");
    zsock_t *a = zsock_new_dealer ("inproc://bus-test-router");
    zsock_t *b = zsock_new_dealer ("inproc://bus-test-router");
    cr_assert (router && a && b);
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    req.id = 5;
    Simbus__Envelope env = SIMBUS__ENVELOPE__INIT;
    env.body_case = SIMBUS__ENVELOPE__BODY_REQUEST;
    env.request = &req;
    cr_assert_eq (sim_bus_send (b, NULL, &env), 0);
    zmsg_t *msg = zmsg_recv (router);
    cr_assert_not_null (msg);
    zframe_t *identity = zmsg_pop (msg);
    zframe_t *body = zmsg_first (msg);
    Simbus__Envelope *in = sim_bus_decode (zframe_data (body), zframe_size (body), NULL);
    cr_assert_not_null (in);
    cr_assert_eq (in->request->id, 5);
    simbus__envelope__free_unpacked (in, NULL);
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = 5;
    Simbus__Envelope out = SIMBUS__ENVELOPE__INIT;
    out.body_case = SIMBUS__ENVELOPE__BODY_REPLY;
    out.reply = &reply;
    cr_assert_eq (sim_bus_send_to (router, identity, &out), 0);
    zframe_t *r = zframe_recv (b);
    cr_assert_not_null (r);
    Simbus__Envelope *back = sim_bus_decode (zframe_data (r), zframe_size (r), NULL);
    cr_assert_not_null (back);
    cr_assert_eq (back->reply->id, 5);
    simbus__envelope__free_unpacked (back, NULL);
    zframe_destroy (&r);
    cr_assert_eq (zsock_events (a) & ZMQ_POLLIN, 0, "the other dealer gets nothing");
    zframe_destroy (&identity);
    zmsg_destroy (&msg);
    zsock_destroy (&a);
    zsock_destroy (&b);
    zsock_destroy (&router);
}

/* ---- who subscribes (sim_bus_subs_t) ------------------------------------ */

static void
s_sub (sim_bus_subs_t *subs, bool on, const char *prefix)
{
    uint8_t msg[32] = { on ? 1 : 0 };
    size_t n = strlen (prefix);
    memcpy (msg + 1, prefix, n);
    sim_bus_subs_update (subs, msg, n + 1);
}

Test (bus, subscriptions_are_tracked_by_prefix)
{
    sim_bus_subs_t subs = { 0 };
    cr_expect (!sim_bus_subs_want (&subs, SIM_TOPIC_SNAPSHOT), "nobody yet");
    s_sub (&subs, true, "F");
    cr_expect (sim_bus_subs_want (&subs, SIM_TOPIC_FRAMES));
    cr_expect (sim_bus_subs_want (&subs, SIM_TOPIC_STEP_FRAMES), "F is a prefix of FS");
    cr_expect (!sim_bus_subs_want (&subs, SIM_TOPIC_FRAMES_DONE));
    s_sub (&subs, true, "F");  /* a verbose XPUB repeats it */
    s_sub (&subs, false, "F"); /* the last subscriber of F left */
    cr_expect (!sim_bus_subs_want (&subs, SIM_TOPIC_STEP_FRAMES));
    s_sub (&subs, true, "");
    cr_expect (sim_bus_subs_want (&subs, SIM_TOPIC_CLOCK), "an empty prefix wants everything");
    s_sub (&subs, false, "");
    cr_expect (!sim_bus_subs_want (&subs, SIM_TOPIC_CLOCK));
    /* garbage and overflow never lose a subscriber: at worst too many */
    sim_bus_subs_update (&subs, NULL, 0);
    s_sub (&subs, true, "a-prefix-longer-than-eight");
    cr_expect (sim_bus_subs_want (&subs, SIM_TOPIC_SNAPSHOT), "an unkeepable prefix counts as everything");
    sim_bus_subs_t full = { 0 };
    for (int i = 0; i < SIM_BUS_SUBS_MAX + 4; i++) {
        char p[4] = { 'x', (char) ('a' + i), 0, 0 };
        s_sub (&full, true, p);
    }
    cr_expect (sim_bus_subs_want (&full, SIM_TOPIC_SNAPSHOT), "a full set counts as everything");
}

/* Read subscriptions from `pub` (at most 1 s) until `topic` is wanted or
   not, as `wanted` says; returns whether that happened. */
static bool
s_await_want (zsock_t *pub, sim_bus_subs_t *subs, const char *topic, bool wanted)
{
    zpoller_t *poller = zpoller_new (pub, NULL);
    for (int i = 0; i < 100 && sim_bus_subs_want (subs, topic) != wanted; i++) {
        zpoller_wait (poller, 10);
        sim_bus_subs_read (subs, pub);
    }
    zpoller_destroy (&poller);
    return sim_bus_subs_want (subs, topic) == wanted;
}

Test (bus, an_xpub_reports_its_subscribers)
{
    zsock_t *pub = zsock_new_xpub ("inproc://subs-test");
    zsock_t *sub = zsock_new_sub ("inproc://subs-test", SIM_TOPIC_CLOCK);
    cr_assert (pub && sub);
    sim_bus_subs_t subs = { 0 };
    cr_expect (s_await_want (pub, &subs, SIM_TOPIC_CLOCK, true), "the subscription arrived");
    cr_expect (!sim_bus_subs_want (&subs, SIM_TOPIC_SNAPSHOT));
    zsock_destroy (&sub);
    cr_expect (s_await_want (pub, &subs, SIM_TOPIC_CLOCK, false), "a subscriber that went away is forgotten");
    zsock_destroy (&pub);
}

/* ---- the runtime directory: only a private one of ours ------------------ */

/* A fresh parent for the runtime directory, as XDG_RUNTIME_DIR (Criterion
   forks each test, so the variable is the test's own). */
static void
s_xdg (char *dir, size_t cap, char *rundir, size_t rcap)
{
    snprintf (dir, cap, "/tmp/ssl-sim-bus-XXXXXX");
    cr_assert_not_null (mkdtemp (dir));
    setenv ("XDG_RUNTIME_DIR", dir, 1);
    snprintf (rundir, rcap, "%s/ssl-sim", dir);
}

static void
s_rm (const char *dir)
{
    char cmd[600];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq (system (cmd), 0);
}

Test (bus, the_runtime_dir_is_made_private)
{
    char dir[64], rundir[96], got[256];
    s_xdg (dir, sizeof dir, rundir, sizeof rundir);
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.network.port_offset = 2;
    mode_t old = umask (0); /* even a permissive umask makes no open directory */
    cr_assert_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), 0);
    umask (old);
    struct stat st;
    cr_assert_eq (stat (rundir, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0700, "mode %o", (unsigned) (st.st_mode & 0777));
    cr_assert_eq (stat (got, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0700, "offset directory mode %o", (unsigned) (st.st_mode & 0777));
    /* and one that is already there and private is used */
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), 0);
    s_rm (dir);
}

Test (bus, an_open_runtime_dir_is_refused)
{
    char dir[64], rundir[96], got[256];
    s_xdg (dir, sizeof dir, rundir, sizeof rundir);
    cr_assert_eq (mkdir (rundir, 0700), 0);
    cr_assert_eq (chmod (rundir, 0755), 0);
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), -1, "a 0755 directory was accepted");
    cr_expect_eq (sim_bus_resolve (&cfg, NULL), -1);
    cr_expect_eq (cfg.bus.cmd_bind[0], '\0', "no endpoint in a refused directory");
    cr_assert_eq (chmod (rundir, 0710), 0);
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), -1, "group access was accepted");
    /* the port offset's subdirectory is held to the same rule */
    cr_assert_eq (chmod (rundir, 0700), 0);
    char sub[128];
    snprintf (sub, sizeof sub, "%s/4", rundir);
    cr_assert_eq (mkdir (sub, 0700), 0);
    cr_assert_eq (chmod (sub, 0707), 0);
    cfg.network.port_offset = 4;
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), -1, "an open offset directory was accepted");
    s_rm (dir);
}

Test (bus, a_runtime_dir_of_another_user_is_refused)
{
    if (geteuid () != 0) {
        cr_skip_test ("skipped: only root can give a directory to another uid");
        return;
    }
    char dir[64], rundir[96], got[256];
    s_xdg (dir, sizeof dir, rundir, sizeof rundir);
    cr_assert_eq (mkdir (rundir, 0700), 0);
    cr_assert_eq (chown (rundir, 65534, 65534), 0);
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), -1, "nobody's directory was accepted");
    cr_expect_eq (sim_bus_resolve (&cfg, NULL), -1);
    s_rm (dir);
}

Test (bus, a_symlinked_runtime_dir_is_refused)
{
    /* even one to a private directory of ours: whoever made the link
       can point it elsewhere */
    char dir[64], rundir[96], got[256], target[128];
    s_xdg (dir, sizeof dir, rundir, sizeof rundir);
    snprintf (target, sizeof target, "%s/elsewhere", dir);
    cr_assert_eq (mkdir (target, 0700), 0);
    cr_assert_eq (symlink (target, rundir), 0);
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cr_expect_eq (sim_bus_runtime_dir (&cfg, got, sizeof got), -1, "a symbolic link was accepted");
    s_rm (dir);
}
