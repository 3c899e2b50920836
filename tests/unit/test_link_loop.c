/*  test_link_loop.c - a link on its sim_loop (common/bus/sim_loop.c,
    common/bus/sim_link.c): handlers run by name in the order they were
    added, a quiet input waits, the link's inputs named on both carriers, and requests seen
    while physics steps. The loop's timers and the actor skeleton are
    test_loop.c.
*/
#include "test_link_support.h"

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

    /* a quiet input ends no wait and runs no handler; what came waits */
    log[0] = 0;
    sim_loop_set_quiet (loop, "fd a", true);
    cr_assert_eq (write (pa[1], "x", 1), 1);
    cr_expect_eq (sim_loop_wait (loop, 0), 0, "a quiet input does not wake the loop");
    sim_loop_dispatch (loop);
    cr_expect_str_eq (log, "12", "nor does its handler run");
    sim_loop_set_quiet (loop, "fd a", false);
    cr_expect_eq (sim_loop_wait (loop, 0), 1, "loud again, what waited is there");
    log[0] = 0;
    sim_loop_dispatch (loop);
    cr_expect_str_eq (log, "a12");

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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "names");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *gw = link_test_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    cr_expect_not (sim_link_input_waiting (phys->link));
    cr_assert_eq (link_test_send_request (gw->link, 1), 1);
    int ready = 0;
    for (int i = 0; i < LINK_TEST_TURNS && ready == 0; i++)
        ready = sim_loop_wait (phys->loop, LINK_TEST_POLL_MS);
    cr_assert_eq (ready, 1);
    cr_expect_eq (sim_loop_ready (phys->loop, "bus lane"), lanes, "lanes %d", lanes);
    cr_expect_eq (sim_loop_ready (phys->loop, "bus cmd"), !lanes, "lanes %d", lanes);
    cr_expect_not (sim_loop_ready (phys->loop, "bus world"));
    cr_expect (sim_link_input_waiting (phys->link));
    sim_loop_dispatch (phys->loop);
    cr_expect_eq (phys->count, 1);
    cr_expect_not (sim_link_input_waiting (phys->link));
    link_test_rig_close (&rig);
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
    link_test_rig_t rig;
    link_test_rig_cfg (&rig, lanes, "waiting");
    link_test_end_t *phys = link_test_rig_add (&rig, &rig.physics, SIM_LINK_PHYSICS, NULL, 0);
    link_test_end_t *gw = link_test_rig_add (&rig, &rig.gateway, SIM_LINK_GATEWAY, NULL, 0);
    link_test_end_t *tool = link_test_rig_add (&rig, &rig.tool, SIM_LINK_TOOL, NULL, 0);
    phys->answer = true;
    cr_expect_not (sim_link_input_waiting (phys->link));
    for (int round = 0; round < 6; round++) {
        link_test_end_t *from = round % 2 ? gw : tool; /* the tool's go by ZeroMQ */
        cr_assert_eq (link_test_send_request (from->link, (uint64_t) round + 1), 1);
        cr_assert (s_request_seen (phys->link), "lanes %d, round %d", lanes, round);
        cr_expect (sim_link_input_waiting (phys->link), "seen until read, round %d", round);
        LINK_TEST_PUMP_UNTIL (&rig, phys->count == round + 1);
        cr_expect_not (sim_link_input_waiting (phys->link), "round %d", round);
        LINK_TEST_PUMP_UNTIL (&rig, from->count == round / 2 + 1); /* the reply, which touched cmd */
    }
    cr_expect_eq (phys->replies_sent, 6);
    link_test_rig_close (&rig);
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
