/*  test_loop.c - common/bus/sim_loop.c's timers, wake-ups, first handlers,
    spin and stop, and the actor skeleton of common/bus/sim_service.c.

    Deadlines are real zclock_usecs instants a few ms ahead; every wait is
    a turn of the loop bounded by its nearest deadline, never a sleep.
*/
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/bus/sim_loop.h"
#include "common/bus/sim_service.h"

#define S_MS 1000 /* us */

/* What the handlers did, one letter each, in order. */
typedef struct {
    char log[128];
    sim_loop_t *loop;
    int64_t period;       /* a periodic timer's; 0: once */
    int64_t deadlines[8]; /* those a timer was called with */
    int calls;
    int other; /* a timer another handler re-arms */
} s_rec_t;

static void
s_note (s_rec_t *r, char c)
{
    size_t at = strlen (r->log);
    cr_assert_lt (at + 1, sizeof r->log);
    r->log[at] = c;
    r->log[at + 1] = 0;
}

static void
s_tick (void *arg)
{
    s_note (arg, 't');
}

static void
s_first (void *arg)
{
    s_note (arg, 'f');
}

static int64_t
s_timer (void *arg, int64_t deadline, int64_t now)
{
    s_rec_t *r = arg;
    cr_expect_geq (now, deadline, "a timer never runs before its deadline");
    s_note (r, 'T');
    if (r->calls < 8)
        r->deadlines[r->calls] = deadline;
    r->calls++;
    return r->period ? sim_loop_period (deadline, r->period, now) : SIM_LOOP_NEVER;
}

static int64_t
s_second_timer (void *arg, int64_t deadline, int64_t now)
{
    (void) deadline, (void) now;
    s_note (arg, 'U');
    return SIM_LOOP_NEVER;
}

Test (loop, period_adds_to_the_deadline_and_skips_what_a_stall_missed)
{
    cr_expect_eq (sim_loop_period (1000, 100, 1050), 1100, "next += period, not now + period");
    cr_expect_eq (sim_loop_period (1000, 100, 1099), 1100);
    cr_expect_eq (sim_loop_period (1000, 100, 1100), 1200, "a whole period behind: from now");
    cr_expect_eq (sim_loop_period (1000, 100, 5000), 5100, "a stall gets no burst of turns");
}

Test (loop, timeout_is_the_nearest_deadline_rounded_up)
{
    cr_expect_eq (sim_loop_timeout_ms (0, SIM_LOOP_NEVER), -1, "nothing due: wait for input only");
    cr_expect_eq (sim_loop_timeout_ms (5000, 4000), 0, "passed: at once");
    cr_expect_eq (sim_loop_timeout_ms (5000, 5000), 0);
    cr_expect_eq (sim_loop_timeout_ms (5000, 5001), 1, "rounded up, never early");
    cr_expect_eq (sim_loop_timeout_ms (5000, 7000), 2);
}

static int64_t
s_wake_in_3ms (void *arg, int64_t now)
{
    (void) arg;
    return now + 3 * S_MS;
}

Test (loop, the_next_deadline_is_the_nearest_of_timers_and_wake_ups)
{
    s_rec_t r = { .log = "" };
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    cr_expect_eq (sim_loop_next (loop, 0), SIM_LOOP_NEVER, "an empty loop sleeps until input");
    int a = sim_loop_add_timer (loop, "a", 9000, s_timer, &r);
    int b = sim_loop_add_timer (loop, "b", SIM_LOOP_NEVER, s_timer, &r);
    cr_assert (a >= 0 && b >= 0 && a != b);
    cr_expect_eq (sim_loop_next (loop, 0), 9000);
    sim_loop_timer_set (loop, b, 7000);
    cr_expect_eq (sim_loop_timer_deadline (loop, b), 7000);
    cr_expect_eq (sim_loop_next (loop, 0), 7000);
    sim_loop_timer_set (loop, b, SIM_LOOP_NEVER);
    cr_expect_eq (sim_loop_next (loop, 0), 9000, "a stopped timer does not wake the loop");
    cr_assert_eq (sim_loop_add_wake (loop, "owner", s_wake_in_3ms, &r), 0);
    cr_expect_eq (sim_loop_next (loop, 1000), 4000, "a wake-up is asked at each wait");
    cr_expect_eq (sim_loop_next (loop, 8000), 9000);
    sim_loop_destroy (&loop);
    cr_expect_null (loop);
}

Test (loop, a_periodic_timer_keeps_its_rhythm)
{
    s_rec_t r = { .log = "", .period = 20 * S_MS };
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    int64_t start = zclock_usecs () + 2 * S_MS;
    cr_assert_geq (sim_loop_add_timer (loop, "beat", start, s_timer, &r), 0);
    int64_t bound = zclock_usecs () + 5 * 1000 * S_MS;
    while (r.calls < 5 && zclock_usecs () < bound)
        cr_assert_geq (sim_loop_turn (loop), 0);
    cr_assert_eq (r.calls, 5);
    /* each deadline is the last plus the period, however late the turn
       that ran it (a starved machine may skip a whole period, never come
       early) */
    cr_expect_eq (r.deadlines[0], start);
    int exact = 0;
    for (int i = 1; i < 5; i++) {
        cr_expect_geq (r.deadlines[i], r.deadlines[i - 1] + r.period);
        exact += r.deadlines[i] == r.deadlines[i - 1] + r.period;
    }
    cr_expect_gt (exact, 0, "no drift: the next deadline counts from the last, not from the turn");
    sim_loop_destroy (&loop);
}

Test (loop, a_turn_sleeps_until_the_nearest_deadline)
{
    s_rec_t r = { .log = "" };
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    int64_t due = zclock_usecs () + 15 * S_MS;
    cr_assert_geq (sim_loop_add_timer (loop, "once", due, s_timer, &r), 0);
    int64_t bound = zclock_usecs () + 5 * 1000 * S_MS;
    while (r.calls == 0 && zclock_usecs () < bound)
        cr_assert_geq (sim_loop_turn (loop), 0);
    cr_expect_eq (r.calls, 1);
    cr_expect_geq (zclock_usecs (), due);
    cr_expect_eq (sim_loop_timer_deadline (loop, 0), SIM_LOOP_NEVER,
                  "SIM_LOOP_NEVER from the callback stops it");
    sim_loop_destroy (&loop);
}

Test (loop, first_handlers_inputs_then_ticks_and_timers_in_the_order_added)
{
    s_rec_t r = { .log = "" };
    int p[2];
    cr_assert_eq (pipe (p), 0);
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    cr_assert_eq (sim_loop_add_tick (loop, "tick", s_tick, &r), 0);
    int due = sim_loop_add_timer (loop, "due", 0, s_timer, &r);
    int later = sim_loop_add_timer (loop, "later", zclock_usecs () + 60 * 1000 * S_MS, s_second_timer, &r);
    cr_assert (due >= 0 && later >= 0);
    cr_assert_eq (sim_loop_add_first (loop, "first", s_first, &r), 0);
    cr_assert_eq (sim_loop_add_fd (loop, "input", p[0], s_tick, &r), 0);
    cr_assert_eq (write (p[1], "x", 1), 1);
    cr_assert_eq (sim_loop_wait (loop, 1000), 1);
    sim_loop_dispatch (loop);
    cr_expect_str_eq (r.log, "fttT", "first, the input, then tick and due timer as added; not the later one");
    char c;
    cr_assert_eq (read (p[0], &c, 1), 1);

    /* another handler arms a timer: due in the same turn if its place in
       the list is still to come */
    r.log[0] = 0;
    sim_loop_timer_set (loop, later, 0);
    cr_assert_eq (sim_loop_wait (loop, 0), 0);
    sim_loop_dispatch (loop);
    cr_expect_str_eq (r.log, "ftU", "the stopped timer stays stopped; the re-armed one runs");
    sim_loop_destroy (&loop);
    close (p[0]);
    close (p[1]);
}

static bool
s_spin_finds (void *arg)
{
    s_note (arg, 's');
    return true;
}

static void
s_spun (void *arg)
{
    s_note (arg, 'r');
}

Test (loop, a_spin_that_finds_input_replaces_the_poll_for_a_while)
{
    s_rec_t r = { .log = "" };
    int p[2];
    cr_assert_eq (pipe (p), 0);
    sim_loop_t *loop = sim_loop_new ();
    cr_assert_not_null (loop);
    sim_loop_set_spin (loop, s_spin_finds, s_spun, &r);
    cr_assert_eq (sim_loop_add_first (loop, "first", s_first, &r), 0);
    cr_assert_eq (sim_loop_add_fd (loop, "input", p[0], s_tick, &r), 0);
    cr_assert_eq (sim_loop_add_timer (loop, "later", zclock_usecs () + 60 * 1000 * S_MS, s_timer, &r), 0);
    cr_assert_eq (write (p[1], "x", 1), 1);
    /* never polled yet: the spin's find is followed by a poll at once */
    cr_assert_eq (sim_loop_turn (loop), 1);
    cr_expect_str_eq (r.log, "sft");
    /* polled less than SIM_LOOP_SPIN_POLL_US ago: the spin's input alone
       is read (a starved machine may take longer between two turns: then
       it polls again, and a later try sees the short path) */
    bool alone = false;
    for (int i = 0; i < 100 && !alone; i++) {
        r.log[0] = 0;
        cr_assert_eq (sim_loop_turn (loop), 1);
        alone = strcmp (r.log, "sfr") == 0;
        if (!alone)
            cr_assert_str_eq (r.log, "sft");
    }
    cr_expect (alone, "the other inputs wait a little");
    char c;
    cr_assert_eq (read (p[0], &c, 1), 1);
    /* something due now: no spin */
    r.log[0] = 0;
    sim_loop_timer_set (loop, 0, 0);
    cr_assert_geq (sim_loop_turn (loop), 0);
    cr_expect_str_eq (r.log, "fT");
    sim_loop_destroy (&loop);
    close (p[0]);
    close (p[1]);
}

static int64_t
s_stopper (void *arg, int64_t deadline, int64_t now)
{
    s_rec_t *r = arg;
    (void) deadline;
    s_note (r, 'T');
    if (++r->calls == 3)
        sim_loop_stop (r->loop);
    return now;
}

Test (loop, run_turns_until_stopped_and_finishes_the_turn)
{
    s_rec_t r = { .log = "" };
    sim_loop_t *loop = r.loop = sim_loop_new ();
    cr_assert_not_null (loop);
    cr_assert_geq (sim_loop_add_timer (loop, "stopper", 0, s_stopper, &r), 0);
    cr_assert_eq (sim_loop_add_tick (loop, "tick", s_tick, &r), 0);
    cr_expect_not (sim_loop_stopped (loop));
    cr_expect_eq (sim_loop_run (loop), 0);
    cr_expect (sim_loop_stopped (loop));
    cr_expect_str_eq (r.log, "TtTtTt", "the stopping turn runs to its end");
    sim_loop_destroy (&loop);
}

/* ---- the actor skeleton ------------------------------------------------- */

typedef struct {
    int turns;
    bool fail;
    bool *stopped;
} s_svc_t;

/* How the next start behaves. File-scope state, as an actor's start gets
   nothing else from a test; each Criterion test runs in a process of its
   own. */
static s_svc_t s_svc_template;

static int64_t
s_svc_beat (void *arg, int64_t deadline, int64_t now)
{
    s_svc_t *svc = arg;
    svc->turns++;
    return sim_loop_period (deadline, 1 * S_MS, now);
}

static void *
s_svc_start (const sim_service_args_t *args, sim_loop_t *loop)
{
    (void) args;
    if (s_svc_template.fail)
        return NULL;
    s_svc_t *svc = calloc (1, sizeof *svc);
    cr_assert_not_null (svc);
    *svc = s_svc_template;
    cr_assert_geq (sim_loop_add_timer (loop, "beat", 0, s_svc_beat, svc), 0);
    return svc;
}

static void
s_svc_stop (void *arg)
{
    s_svc_t *svc = arg;
    *svc->stopped = true;
    free (svc);
}

static void
s_svc_actor (zsock_t *pipe, void *args)
{
    static const sim_service_def_t def = { SIM_SERVICE_VISION, s_svc_start, s_svc_stop };
    sim_service_run (pipe, args, &def);
}

Test (loop, the_skeleton_reports_its_start_and_ends_on_term)
{
    bool stopped = false;
    s_svc_template = (s_svc_t) { .stopped = &stopped };
    sim_service_args_t args = { .replay = NULL };
    sim_config_defaults (&args.cfg);
    zactor_t *actor = sim_service_start (s_svc_actor, &args);
    cr_assert_not_null (actor, "a service that starts is signalled ready");
    cr_expect_eq (args.status, 0);
    zactor_destroy (&actor); /* $TERM, then waits for the actor */
    cr_expect (stopped, "$TERM ends the loop and stop runs");

    stopped = false;
    s_svc_template.fail = true;
    actor = sim_service_start (s_svc_actor, &args);
    cr_expect_null (actor, "a failed start is reported");
    cr_expect_eq (args.status, -1);
    cr_expect_not (stopped, "nothing was started, so nothing stops");
}

Test (loop, service_names_are_one_table)
{
    cr_expect_str_eq (sim_service_names[SIM_SERVICE_PHYSICS], "physics");
    cr_expect_str_eq (sim_service_names[SIM_SERVICE_LEGACY], "legacy-grsim");
    cr_expect_str_eq (sim_service_names[SIM_SERVICE_VIEWER], "viewer");
    for (int i = 0; i < SIM_SERVICE_COUNT; i++)
        cr_expect_eq (sim_service_find (sim_service_names[i]), i);
    cr_expect_eq (sim_service_find ("tool"), -1);
    cr_expect_eq (sim_service_find (NULL), -1);
}
