/*  test_phys_policy.c - engine/world/phys_policy.c: the step policy the
    physics service and libsslsim share (when a snapshot is due after a
    substep, when a sync step or a replay closes with one, a replaced
    rig), driven with a default capture schedule and made-up sim times.
*/
#include <criterion/criterion.h>

#include "common/base/sim_schedule.h"
#include "common/config/config.h"
#include "engine/world/phys_policy.h"

#define S_DT_NS    1000000u /* 1 ms substeps, the default */
#define S_DELAY_NS 0u

static sim_schedule_t *
s_schedule (void)
{
    sim_schedule_def_t def;
    sim_schedule_def_default (&def);
    sim_schedule_t *s = sim_schedule_new (&def);
    cr_assert_not_null (s);
    return s;
}

Test (phys_policy, a_snapshot_is_due_exactly_at_the_substeps_a_camera_captures)
{
    /* the reference is advanced at every substep: it captures where a
       capture instant came; the policy must say "due" there and nowhere
       else (the default rig has no outages, so each instant captures) */
    sim_schedule_t *policy = s_schedule (), *every = s_schedule ();
    int due = 0;
    for (uint64_t k = 1; k <= 2000; k++) {
        uint64_t t = k * S_DT_NS;
        uint64_t next = sim_schedule_next_due (policy);
        uint32_t mask, frames[SIM_MAX_CAMERAS];
        sim_schedule_advance (every, t, S_DELAY_NS, &mask, frames);
        bool is_due = phys_policy_substep (policy, t, S_DELAY_NS);
        cr_expect_eq (is_due, mask != 0, "substep %llu: due %d, a camera captured %d", (unsigned long long) k,
                      is_due, mask != 0);
        if (!is_due)
            cr_expect_eq (sim_schedule_next_due (policy), next,
                          "a substep with nothing due leaves the schedule");
        else
            cr_expect_gt (sim_schedule_next_due (policy), t, "a due instant is passed");
        due += is_due;
    }
    cr_expect_gt (due, 100, "two cameras at 73 Hz capture in 2 s of sim time (%d instants)", due);
    sim_schedule_destroy (&policy);
    sim_schedule_destroy (&every);
}

Test (phys_policy, a_sync_step_closes_with_a_snapshot_unless_its_end_went_out)
{
    phys_policy_t p = { 0 };
    cr_expect_not (phys_policy_step_closes (&p, 0, 5 * S_DT_NS), "a step without substeps shows nothing new");
    cr_expect (phys_policy_step_closes (&p, 5, 5 * S_DT_NS), "nothing published yet");
    phys_policy_published (&p, 3 * S_DT_NS);
    cr_expect (phys_policy_step_closes (&p, 5, 5 * S_DT_NS),
               "the last snapshot is older than the step's end");
    phys_policy_published (&p, 5 * S_DT_NS);
    cr_expect_not (phys_policy_step_closes (&p, 5, 5 * S_DT_NS), "the step's end went out already");
}

Test (phys_policy, a_replay_closes_with_a_snapshot_only_after_others)
{
    phys_policy_t p = { 0 };
    cr_expect_not (phys_policy_replay_closes (&p, 7 * S_DT_NS), "nothing published: nothing to close");
    phys_policy_published (&p, 4 * S_DT_NS);
    cr_expect (phys_policy_replay_closes (&p, 7 * S_DT_NS));
    cr_expect_not (phys_policy_replay_closes (&p, 4 * S_DT_NS));
}

Test (phys_policy, a_step_publishes_the_due_instants_then_its_end_once)
{
    /* the sequence both callers produce for one sync step of 40 substeps:
       the due snapshots in order, then the closing one unless the last
       substep was due itself */
    sim_schedule_t *s = s_schedule ();
    phys_policy_t p = { 0 };
    uint64_t published[64];
    int n = 0;
    for (uint64_t k = 1; k <= 40; k++)
        if (phys_policy_substep (s, k * S_DT_NS, S_DELAY_NS)) {
            phys_policy_published (&p, k * S_DT_NS);
            published[n++] = k * S_DT_NS;
        }
    if (phys_policy_step_closes (&p, 40, 40 * S_DT_NS)) {
        phys_policy_published (&p, 40 * S_DT_NS);
        published[n++] = 40 * S_DT_NS;
    }
    cr_assert_geq (n, 2, "the two 73 Hz cameras capture within 40 ms");
    for (int i = 1; i < n; i++)
        cr_expect_gt (published[i], published[i - 1], "snapshot %d goes forward in sim time", i);
    cr_expect_eq (published[n - 1], 40 * S_DT_NS, "the step ends with a snapshot of its end");
    cr_expect_not (phys_policy_step_closes (&p, 40, 40 * S_DT_NS), "and only one");
    sim_schedule_destroy (&s);
}

/* The default schedule with every substep up to t run, for the tests of a
   change at t; its grid has no capture instant at the substep after t, so
   a capture there comes from the change. */
static sim_schedule_t *
s_schedule_stepped_to (uint64_t t)
{
    sim_schedule_t *s = s_schedule ();
    for (uint64_t k = 1; k * S_DT_NS <= t; k++)
        phys_policy_substep (s, k * S_DT_NS, S_DELAY_NS);
    cr_assert_gt (sim_schedule_next_due (s), t + S_DT_NS, "the old grid has no instant at the next substep");
    return s;
}

Test (phys_policy, a_replaced_rig_captures_at_the_next_substep)
{
    /* vision.md §2.1: after a runtime rig replacement every camera
       captures at the first substep after it, whatever the old grid */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    uint64_t t = 50 * S_DT_NS;
    sim_schedule_t *s = s_schedule_stepped_to (t);
    cfg.vision.default_camera_count = 4;
    cfg.rig_generation++;
    phys_policy_changed (s, &cfg, true, true, t);
    cr_expect (phys_policy_substep (s, t + S_DT_NS, S_DELAY_NS), "a snapshot at the first substep after");
    sim_schedule_destroy (&s);
}

Test (phys_policy, a_configuration_change_without_a_new_rig_keeps_the_grid)
{
    /* a realism change (phys_changes_t config, not rig) takes the capture
       jitter only: the instants stay on the old grid */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    uint64_t t = 50 * S_DT_NS;
    sim_schedule_t *s = s_schedule_stepped_to (t);
    uint64_t next = sim_schedule_next_due (s);
    cfg.vision.default_camera_count = 4;
    phys_policy_changed (s, &cfg, false, true, t);
    cr_expect_eq (sim_schedule_next_due (s), next, "the next instant is the old grid's");
    phys_policy_changed (s, &cfg, false, false, t);
    cr_expect_eq (sim_schedule_next_due (s), next, "nothing changed, nothing moves");
    sim_schedule_destroy (&s);
}
