/*  test_sim_stats.c - common/logs/sim_stats's command->vision latency: a command
    is measured once, by the first packet captured at or after the snapshot
    that first carried it, never by an earlier capture; a timeline that went
    back or a re-based clock forgets what is pending; a restarted vision
    does not measure what the one before it showed; the report's
    quantiles and totals. The
    receive times are set relative to the real clock the module reads, so a
    sample's lower bound is exact and its upper bound is the test's own
    run time (a second is far more than it takes). */
#include <criterion/criterion.h>

#include "common/logs/sim_stats.h"

#define MS 1000000ull /* sim ns */

static Simbus__Stats
s_report (sim_latency_t *lat)
{
    Simbus__Stats st;
    simbus__stats__init (&st);
    sim_latency_report (lat, &st);
    return st;
}

Test (sim_stats, a_command_is_measured_by_the_first_capture_after_it)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0);               /* vision's first snapshot: no command yet */
    int64_t received = sim_stats_wall_us () - 40000; /* 40 ms ago */
    sim_latency_snapshot (&lat, 100 * MS, received);
    sim_latency_snapshot (&lat, 101 * MS, received); /* the same command, still the newest */
    sim_latency_sent (&lat, 99 * MS);                /* captured before it was applied */
    Simbus__Stats st = s_report (&lat);
    cr_expect_eq (st.latency_period_count, 0);
    cr_expect_not (st.has_latency_p50_ms, "no quantile without a sample");
    cr_expect (st.has_latency_count && st.latency_count == 0);

    sim_latency_sent (&lat, 100 * MS);
    sim_latency_sent (&lat, 110 * MS); /* a later packet: measured already */
    st = s_report (&lat);
    cr_expect_eq (st.latency_period_count, 1);
    cr_expect_eq (st.latency_count, 1);
    cr_assert (st.has_latency_p50_ms);
    cr_expect (st.latency_p50_ms >= 40.0 && st.latency_p50_ms < 1040.0, "%.3f ms", st.latency_p50_ms);
    cr_expect_eq (st.latency_max_ms, st.latency_p50_ms);
    cr_expect_float_eq (st.latency_sum_ms, st.latency_p50_ms, 1e-9);

    /* the next period starts empty; the totals stay */
    st = s_report (&lat);
    cr_expect_eq (st.latency_period_count, 0);
    cr_expect_eq (st.latency_count, 1);
}

Test (sim_stats, quantiles_of_a_period)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0); /* vision's first snapshot: no command yet */
    int64_t now = sim_stats_wall_us ();
    /* ten commands 100, 200, ... 1000 ms ago, each in its own snapshot,
       all shown by one packet */
    for (int i = 0; i < 10; i++)
        sim_latency_snapshot (&lat, (uint64_t) (i + 1) * MS, now - (10 - i) * 100000);
    sim_latency_sent (&lat, 10 * MS);
    Simbus__Stats st = s_report (&lat);
    cr_assert_eq (st.latency_period_count, 10);
    /* nearest rank: the 5th and 9th of 100..1000 ms, each a little later */
    cr_expect (st.latency_p50_ms >= 500 && st.latency_p50_ms < 600, "p50 %.1f", st.latency_p50_ms);
    cr_expect (st.latency_p90_ms >= 900 && st.latency_p90_ms < 1000, "p90 %.1f", st.latency_p90_ms);
    cr_expect (st.latency_max_ms >= 1000 && st.latency_max_ms < 1100, "max %.1f", st.latency_max_ms);
}

Test (sim_stats, time_going_back_forgets_the_pending)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0); /* vision's first snapshot: no command yet */
    int64_t now = sim_stats_wall_us ();
    sim_latency_snapshot (&lat, 500 * MS, now - 1000);
    /* physics resumed from an older checkpoint: that command's capture
       will never come on this timeline */
    sim_latency_snapshot (&lat, 200 * MS, 0);
    sim_latency_sent (&lat, 600 * MS);
    cr_expect_eq (s_report (&lat).latency_count, 0);
    /* what is not a latency (a clock step, a long pause) is left out */
    sim_latency_snapshot (&lat, 700 * MS, now - 2 * SIM_LATENCY_MAX_US);
    sim_latency_sent (&lat, 700 * MS);
    cr_expect_eq (s_report (&lat).latency_count, 0);
}

Test (sim_stats, a_full_queue_drops_its_oldest)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0); /* vision's first snapshot: no command yet */
    int64_t now = sim_stats_wall_us ();
    for (int i = 0; i < SIM_LATENCY_PENDING + 5; i++)
        sim_latency_snapshot (&lat, (uint64_t) i * MS, now - 1000 - i);
    sim_latency_sent (&lat, (uint64_t) (SIM_LATENCY_PENDING + 5) * MS);
    cr_expect_eq (s_report (&lat).latency_count, SIM_LATENCY_PENDING);
}

Test (sim_stats, a_restarted_vision_does_not_measure_an_old_command)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    int64_t now = sim_stats_wall_us ();
    /* physics keeps carrying the last command on every snapshot: the one
       vision before this one showed it long ago */
    sim_latency_snapshot (&lat, 500 * MS, now - 3000000);
    sim_latency_sent (&lat, 510 * MS);
    cr_expect_eq (s_report (&lat).latency_count, 0);
    /* a new command after the restart is measured */
    sim_latency_snapshot (&lat, 520 * MS, now - 20000);
    sim_latency_sent (&lat, 530 * MS);
    cr_expect_eq (s_report (&lat).latency_count, 1);
}

Test (sim_stats, a_rebased_clock_forgets_the_pending)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0);
    sim_latency_snapshot (&lat, 100 * MS, sim_stats_wall_us () - 1000);
    sim_latency_forget (&lat); /* paused: it waited through the pause */
    sim_latency_sent (&lat, 200 * MS);
    cr_expect_eq (s_report (&lat).latency_count, 0);
}

Test (sim_stats, a_busy_period_keeps_samples_from_all_of_it)
{
    sim_latency_t lat;
    sim_latency_init (&lat);
    sim_latency_snapshot (&lat, 0, 0);
    int64_t now = sim_stats_wall_us ();
    /* 5000 commands in one period: the first 1000 quick (1 ms), the rest
       slow (200 ms); the median is a slow one */
    for (int i = 0; i < 5000; i++) {
        sim_latency_snapshot (&lat, (uint64_t) (i + 1) * MS, now - (i < 1000 ? 1000 : 200000) - i);
        sim_latency_sent (&lat, (uint64_t) (i + 1) * MS);
    }
    Simbus__Stats st = s_report (&lat);
    cr_assert_eq (st.latency_period_count, 5000);
    cr_expect (st.latency_p50_ms >= 200, "p50 %.1f ms: only the period's start was kept", st.latency_p50_ms);
}
