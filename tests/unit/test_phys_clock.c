/*  test_phys_clock.c - services/physics/phys_clock.c: the realtime, fast
    and sync clock policies (spec/protocol.md §8) driven with made-up wall
    times, so every case is exact and instant.

    The substep counts come from floating-point sums of wall time, so a
    count may be one short of the exact quotient; that one substep is the
    tolerance the remainder carrying promises (it is owed on the next call).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "services/physics/phys_clock.h"
#include "common/bus/sim_loop.h"

#define S_DT_NS 1000000u     /* 1 ms substeps, the default */
#define S_T0    5000000000LL /* an arbitrary wall clock origin, us */

static phys_clock_t
s_clock (sim_mode_t mode, double speed)
{
    phys_clock_t c;
    phys_clock_init (&c, mode, speed, S_DT_NS, S_T0);
    return c;
}

/* The substeps for sim_s seconds of sim time in one call: the whole
   substeps in it, give or take the one that the remainder carried in or
   out (floating-point sums can fall a hair short of a whole substep). */
static void
s_expect_about (uint64_t owed, double sim_s, const char *what)
{
    double whole = floor (sim_s / (S_DT_NS / 1e9) + 1e-9);
    cr_expect (fabs ((double) owed - whole) <= 1.0, "%s: %llu substeps for %.0f whole ones of sim time", what,
               (unsigned long long) owed, whole);
}

/* ---- realtime --------------------------------------------------------- */

Test (phys_clock, realtime_owes_wall_time_times_speed)
{
    const double speeds[] = { 1.0, 2.0, 0.5, 10.0 };
    for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; k++) {
        phys_clock_t c = s_clock (SIM_MODE_REALTIME, speeds[k]);
        cr_assert (phys_clock_running (&c, S_T0));
        cr_expect_eq (phys_clock_owed (&c, S_T0), 0, "no wall time, no substeps");
        s_expect_about (phys_clock_owed (&c, S_T0 + 20000), 0.020 * speeds[k], "20 ms of wall time");
    }
}

Test (phys_clock, realtime_carries_the_remainder)
{
    /* calls 300 us apart owe nothing most of the time, yet the sum over a
       second is a second of sim time: the remainder is carried */
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    uint64_t total = 0;
    int zero_calls = 0;
    for (int i = 1; i <= 3333; i++) {
        uint64_t n = phys_clock_owed (&c, S_T0 + 300 * (int64_t) i);
        zero_calls += n == 0;
        cr_assert_leq (n, 1, "300 us never owes two 1 ms substeps");
        total += n;
        double exact = 300e-6 * i / 1e-3;
        cr_assert (total <= (uint64_t) floor (exact + 1e-9) && total + 1 >= (uint64_t) floor (exact + 1e-9),
                   "after %d calls: %llu substeps for %.3f owed", i, (unsigned long long) total, exact);
    }
    cr_expect_gt (zero_calls, 2000, "most calls owe less than a substep");
    cr_expect_geq (total, 998);
    cr_expect_leq (c.acc, c.dt, "what is left over is less than one substep");
}

Test (phys_clock, realtime_uneven_ticks_sum_to_the_wall_time)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.5);
    const int64_t gaps[] = { 1, 999, 1001, 250, 7000, 3, 12345, 400, 640, 1 };
    int64_t now = S_T0;
    uint64_t total = 0;
    for (int round = 0; round < 50; round++)
        for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++) {
            now += gaps[i];
            total += phys_clock_owed (&c, now);
        }
    s_expect_about (total, (double) (now - S_T0) / 1e6 * 1.5, "uneven ticks");
}

Test (phys_clock, catch_up_is_capped_after_a_stall)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 1000), 1);
    /* five seconds without a turn: only PHYS_CLOCK_CATCH_UP_S is made up */
    uint64_t n = phys_clock_owed (&c, S_T0 + 1000 + 5000000);
    s_expect_about (n, PHYS_CLOCK_CATCH_UP_S, "after a 5 s stall");
    /* the rest is dropped, not owed later: the next 10 ms owe 10 ms */
    s_expect_about (phys_clock_owed (&c, S_T0 + 1000 + 5000000 + 10000), 0.010, "10 ms after the stall");

    /* the cap is sim time: at speed 4 a 100 ms stall (400 ms of sim time)
       is capped too */
    phys_clock_t f = s_clock (SIM_MODE_REALTIME, 4.0);
    s_expect_about (phys_clock_owed (&f, S_T0 + 100000), PHYS_CLOCK_CATCH_UP_S, "speed 4, 100 ms stall");
    /* and a stall just under the cap is made up whole */
    phys_clock_t g = s_clock (SIM_MODE_REALTIME, 1.0);
    s_expect_about (phys_clock_owed (&g, S_T0 + 240000), 0.240, "a 240 ms stall");
}

Test (phys_clock, a_stall_reports_the_time_it_dropped)
{
    /* the service re-bases the wire timestamps by exactly what the cap
       dropped, so they stay on the wall clock after a stall */
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    phys_clock_owed (&c, S_T0 + 1000);
    cr_expect_eq (c.skipped, 0.0, "an ordinary tick drops nothing");
    phys_clock_owed (&c, S_T0 + 1000 + 3000000);
    cr_expect (fabs (c.skipped - (3.0 - PHYS_CLOCK_CATCH_UP_S)) < 2e-3, "a 3 s stall dropped %.6f s",
               c.skipped);
    phys_clock_owed (&c, S_T0 + 1000 + 3000000 + 10000);
    cr_expect_eq (c.skipped, 0.0, "the next tick drops nothing again");
    /* paused: nothing owed, nothing dropped */
    phys_clock_t p = s_clock (SIM_MODE_REALTIME, 0.0);
    phys_clock_owed (&p, S_T0 + 5000000);
    cr_expect_eq (p.skipped, 0.0);
}

Test (phys_clock, speed_zero_never_runs)
{
    const sim_mode_t modes[] = { SIM_MODE_REALTIME, SIM_MODE_FAST };
    for (size_t k = 0; k < 2; k++) {
        phys_clock_t c = s_clock (modes[k], 0.0);
        cr_expect_not (phys_clock_running (&c, S_T0 + 1000000));
        for (int i = 1; i <= 10; i++)
            cr_expect_eq (phys_clock_owed (&c, S_T0 + 100000 * (int64_t) i), 0);
        cr_expect_eq (phys_clock_next_us (&c, S_T0, 16000000, S_T0 + 777), S_T0 + 777,
                      "a stopped clock sets no wake-up of its own");
    }
}

Test (phys_clock, configure_changes_mode_and_speed)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    s_expect_about (phys_clock_owed (&c, S_T0 + 10000), 0.010, "speed 1");
    phys_clock_configure (&c, SIM_MODE_REALTIME, 3.0);
    s_expect_about (phys_clock_owed (&c, S_T0 + 20000), 0.030, "speed 3 from now on");
    phys_clock_configure (&c, SIM_MODE_FAST, 3.0);
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 20001), PHYS_CLOCK_FAST_BATCH);
    phys_clock_configure (&c, SIM_MODE_SYNC, 3.0);
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 30000), 0);
    cr_expect_not (phys_clock_running (&c, S_T0 + 30000));
    phys_clock_configure (&c, SIM_MODE_REALTIME, 0.0);
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 40000), 0);
}

/* ---- fast and sync ------------------------------------------------------ */

Test (phys_clock, fast_owes_one_batch_per_turn)
{
    phys_clock_t c = s_clock (SIM_MODE_FAST, 1.0);
    cr_expect (phys_clock_running (&c, S_T0));
    cr_expect_eq (phys_clock_owed (&c, S_T0), PHYS_CLOCK_FAST_BATCH, "no wall time passed: still a batch");
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 1), PHYS_CLOCK_FAST_BATCH);
    cr_expect_eq (phys_clock_owed (&c, S_T0 + 10000000), PHYS_CLOCK_FAST_BATCH, "a stall changes nothing");
    cr_expect_eq (phys_clock_next_us (&c, S_T0 + 10000000, 16000000, INT64_MAX), S_T0 + 10000000,
                  "fast mode wakes up at once");
}

Test (phys_clock, sync_owes_nothing)
{
    phys_clock_t c = s_clock (SIM_MODE_SYNC, 1.0);
    for (int i = 0; i < 5; i++) {
        int64_t now = S_T0 + 400000 * (int64_t) i;
        cr_expect_not (phys_clock_running (&c, now));
        cr_expect_eq (phys_clock_owed (&c, now), 0);
    }
    cr_expect_eq (phys_clock_next_us (&c, S_T0, 16000000, S_T0 + 100000), S_T0 + 100000,
                  "sync mode waits for requests only");
    cr_expect_eq (phys_clock_next_us (&c, S_T0, 16000000, INT64_MAX), INT64_MAX);
}

/* ---- the sync hold (protocol.md §8.4) ----------------------------------- */

Test (phys_clock, a_sync_request_holds_a_free_running_clock)
{
    const sim_mode_t modes[] = { SIM_MODE_REALTIME, SIM_MODE_FAST };
    for (size_t k = 0; k < 2; k++) {
        phys_clock_t c = s_clock (modes[k], 1.0);
        int64_t t = S_T0 + 50000;
        cr_assert_gt (phys_clock_owed (&c, t), 0, "free-running before the request");
        phys_clock_sync_request (&c, t);
        phys_clock_sync_answered (&c, t + 100);
        for (int64_t dt = 0; dt <= PHYS_CLOCK_SYNC_HOLD_US; dt += PHYS_CLOCK_SYNC_HOLD_US / 8) {
            cr_expect_not (phys_clock_running (&c, t + dt), "held %lld us after the request", (long long) dt);
            cr_expect_eq (phys_clock_owed (&c, t + dt), 0, "held %lld us after the request", (long long) dt);
        }
        cr_expect_not (phys_clock_running (&c, t + PHYS_CLOCK_SYNC_HOLD_US), "held through the whole hold");
        cr_expect (phys_clock_running (&c, t + PHYS_CLOCK_SYNC_HOLD_US + 1), "free again after the hold");
        /* the hold's end is a wake-up of its own, and it caps any later one */
        cr_expect_eq (phys_clock_next_us (&c, t + 300000, 16000000, INT64_MAX),
                      t + PHYS_CLOCK_SYNC_HOLD_US + 1);
        cr_expect_eq (phys_clock_next_us (&c, t + 300000, 16000000, t + 400000), t + 400000,
                      "an earlier deadline wins");
        /* the last call in the hold was at t + HOLD: resuming owes only
           the time since then */
        uint64_t n = phys_clock_owed (&c, t + PHYS_CLOCK_SYNC_HOLD_US + 10000);
        if (modes[k] == SIM_MODE_FAST)
            cr_expect_eq (n, PHYS_CLOCK_FAST_BATCH);
        else
            s_expect_about (n, 0.010, "10 ms after the hold");
    }
}

Test (phys_clock, every_sync_request_extends_the_hold)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    int64_t t = S_T0;
    for (int i = 0; i < 10; i++) {
        t += 600000;
        phys_clock_sync_request (&c, t);
        cr_expect_not (phys_clock_running (&c, t + 599999), "request %d", i);
        cr_expect_eq (phys_clock_owed (&c, t + 599999), 0);
    }
    cr_expect (phys_clock_running (&c, t + PHYS_CLOCK_SYNC_HOLD_US + 1));
}

/* Regression: the physics loop may sleep through most of a sync hold (its
   own wake-up is the hold's end), and the first call after it used to owe
   the whole held time, up to PHYS_CLOCK_CATCH_UP_S: the world jumped
   250 ms ahead when free running resumed. The held time is not owed
   (protocol.md §8.4: acc = 0 while held). */
Test (phys_clock, resuming_after_a_hold_owes_no_held_time)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    int64_t t = S_T0 + 1000;
    phys_clock_owed (&c, t);
    phys_clock_sync_request (&c, t);
    /* the loop sleeps until the wake-up the clock asks for */
    int64_t wake = phys_clock_next_us (&c, t, 16000000, INT64_MAX);
    cr_assert_eq (wake, t + PHYS_CLOCK_SYNC_HOLD_US + 1);
    cr_expect_leq (phys_clock_owed (&c, wake), 1, "the held second is not owed when the clock resumes");
}

/* ---- when to wake up ---------------------------------------------------- */

Test (phys_clock, realtime_wakes_when_the_needed_sim_time_has_passed)
{
    const double speeds[] = { 1.0, 2.0, 0.25 };
    const uint64_t needs_ns[] = { 16000000, 1000000, 13642565, 333, 999999999 };
    for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; k++)
        for (size_t j = 0; j < sizeof needs_ns / sizeof needs_ns[0]; j++) {
            phys_clock_t c = s_clock (SIM_MODE_REALTIME, speeds[k]);
            int64_t now = S_T0 + 7;
            int64_t wake = phys_clock_next_us (&c, now, needs_ns[j], INT64_MAX);
            double exact_us = (double) needs_ns[j] / 1e3 / speeds[k];
            /* not early: at the wake-up the sim time has passed (to the
               last bit of a double) */
            cr_expect_geq ((double) (wake - now), exact_us - 1e-6, "speed %g need %llu ns", speeds[k],
                           (unsigned long long) needs_ns[j]);
            cr_expect_leq ((double) (wake - now), exact_us + 1.0, "rounded up by less than a microsecond");
            /* the poll timeout made from it rounds up to whole ms */
            int ms = sim_loop_timeout_ms (now, wake);
            cr_expect_eq (ms, (int) ceil ((double) (wake - now) / 1000.0));
            cr_expect_geq (ms * 1000.0, exact_us - 1e-6);
            /* and then the clock owes what was needed, to a substep (when
               the catch-up cap does not cut it) */
            if (exact_us > PHYS_CLOCK_CATCH_UP_S * 1e6 * 0.8)
                continue;
            phys_clock_owed (&c, now);
            uint64_t n = phys_clock_owed (&c, now + (int64_t) ms * 1000);
            cr_expect_geq ((double) n * 1e6, (double) needs_ns[j] - 1e6,
                           "at the wake-up the needed time is owed (to a substep)");
        }
}

Test (phys_clock, realtime_wake_up_counts_the_carried_remainder)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    int64_t now = S_T0 + 10500;
    uint64_t n = phys_clock_owed (&c, now); /* 10 substeps, 0.5 ms carried */
    cr_assert (n == 10 || n == 9);
    double carried_us = c.acc * 1e6;
    cr_assert (carried_us > 0 && carried_us < 1000.0 * (11 - (double) n));
    int64_t wake = phys_clock_next_us (&c, now, 2000000, INT64_MAX);
    cr_expect_geq ((double) (wake - now), 2000.0 - carried_us - 1e-6);
    cr_expect_leq ((double) (wake - now), 2000.0 - carried_us + 1.0);
    /* nothing needed, or already owed: wake now */
    cr_expect_eq (phys_clock_next_us (&c, now, 0, INT64_MAX), now);
    cr_expect_eq (phys_clock_next_us (&c, now, 100000, INT64_MAX), now, "100 us of need is already carried");
}

Test (phys_clock, wake_up_is_capped_by_until)
{
    phys_clock_t c = s_clock (SIM_MODE_REALTIME, 1.0);
    cr_expect_eq (phys_clock_next_us (&c, S_T0, 16000000, S_T0 + 5000), S_T0 + 5000);
    cr_expect_eq (phys_clock_next_us (&c, S_T0, 16000000, S_T0 + 20000), S_T0 + 16000);
    /* a need too far away to matter sets no timer (an idle day of sim
       time): the caller's deadline stands */
    cr_expect_eq (phys_clock_next_us (&c, S_T0, UINT64_MAX, INT64_MAX), INT64_MAX);
}

/* ---- spinning after a sync answer ---------------------------------------- */

/* n requests, each `gap` us after the previous answer, answered at once. */
static int64_t
s_lock_step (phys_clock_t *c, int64_t t, int n, int64_t gap)
{
    for (int i = 0; i < n; i++) {
        t += gap;
        phys_clock_sync_request (c, t);
        t += 50;
        phys_clock_sync_answered (c, t);
    }
    return t;
}

Test (phys_clock, spin_only_in_sync_mode_after_an_answer)
{
    phys_clock_t c = s_clock (SIM_MODE_SYNC, 1.0);
    cr_expect_eq (phys_clock_spin_until (&c), 0, "nothing answered yet");
    int64_t t = s_lock_step (&c, S_T0, 1, 100);
    cr_expect_eq (phys_clock_spin_until (&c), t + PHYS_CLOCK_SPIN_US, "spin right after the answer");

    const sim_mode_t modes[] = { SIM_MODE_REALTIME, SIM_MODE_FAST };
    for (size_t k = 0; k < 2; k++) {
        phys_clock_t f = s_clock (modes[k], 1.0);
        s_lock_step (&f, S_T0, 20, 50);
        cr_expect_eq (phys_clock_spin_until (&f), 0, "a free-running clock (held) does not spin");
    }
}

Test (phys_clock, spin_follows_the_clients_recent_pauses)
{
    phys_clock_t c = s_clock (SIM_MODE_SYNC, 1.0);
    int64_t t = s_lock_step (&c, S_T0, 50, 40);
    cr_expect_eq (phys_clock_spin_until (&c), t + PHYS_CLOCK_SPIN_US, "a fast lock-step client: spin");
    /* one long pause (a client that stopped to think) does not stop it */
    t = s_lock_step (&c, t, 1, 5000000);
    cr_expect_eq (phys_clock_spin_until (&c), t + PHYS_CLOCK_SPIN_US, "one long pause is an outlier");
    /* a client whose pauses stay long is not worth spinning for */
    t = s_lock_step (&c, t, 20, 20000);
    cr_expect_eq (phys_clock_spin_until (&c), 0, "long pauses: sleep instead");
    cr_expect_gt (c.sync_gap_us, PHYS_CLOCK_SPIN_US);
    /* the average is bounded, so a client that speeds up again is spun
       for again soon, not after thousands of steps */
    int steps = 0;
    while (phys_clock_spin_until (&c) == 0 && steps < 100) {
        t = s_lock_step (&c, t, 1, 40);
        steps++;
    }
    cr_expect_lt (steps, 30, "spinning again after %d quick steps", steps);
    cr_expect_eq (phys_clock_spin_until (&c), t + PHYS_CLOCK_SPIN_US);
}
