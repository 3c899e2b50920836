/*  test_schedule.c - the camera rig and the capture/release schedule
    (common/base/sim_schedule.c; spec/vision.md §2, §6, §7).
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "common/base/sim_schedule.h"
#include "tests/support/sim_from_config.h"

/* The defaults with the instants on the grid offset_i + k T (vision.md
   §2.4), which most tests here check; the jittered instants have their
   own tests at the end. */
static sim_config_t
s_cfg (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.realism.capture_jitter = 0;
    cfg.realism.capture_late_rate = 0;
    return cfg;
}

/* Advance at every 1 ms substep end from 1 ms to `ms`, counting captures
   per camera and recording camera-0 frame numbers. */
typedef struct {
    int captures[SIM_MAX_CAMERAS];
    uint32_t last_frame[SIM_MAX_CAMERAS];
    uint64_t first_t[SIM_MAX_CAMERAS];
    int released;
} s_run_t;

static s_run_t
s_run (sim_schedule_t *s, int ms, uint64_t delay_ns)
{
    s_run_t r = { { 0 }, { 0 }, { 0 }, 0 };
    for (int k = 1; k <= ms; k++) {
        uint64_t t = (uint64_t) k * 1000000u;
        uint32_t mask, fn[SIM_MAX_CAMERAS];
        r.released += sim_schedule_advance (s, t, delay_ns, &mask, fn);
        for (int i = 0; i < SIM_MAX_CAMERAS; i++)
            if (mask & (1u << i)) {
                cr_assert_eq (fn[i], (uint32_t) r.captures[i], "frame numbers count captures");
                if (r.captures[i] == 0)
                    r.first_t[i] = t;
                r.captures[i]++;
                r.last_frame[i] = fn[i];
            }
    }
    return r;
}

Test (schedule, period)
{
    sim_config_t cfg = s_cfg ();
    cr_assert_eq (sim_schedule_period_ns (cfg.vision.frame_rate), 13642565u);
    cfg.vision.frame_rate = 0;
    cr_assert_eq (sim_schedule_period_ns (cfg.vision.frame_rate), 16666667u);
    cfg.vision.frame_rate = -5;
    cr_assert_eq (sim_schedule_period_ns (cfg.vision.frame_rate), 16666667u);
    cfg.vision.frame_rate = 1e12;
    cr_assert_eq (sim_schedule_period_ns (cfg.vision.frame_rate), 1u);
}

Test (schedule, auto_placement)
{
    sim_config_t cfg = s_cfg ();
    sim_rig_t rig;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 2, "Division A default is 2 cameras");
    cr_assert_float_eq (rig.cams[0].x, 2.4, 1e-12);
    cr_assert_float_eq (rig.cams[1].x, -2.4, 1e-12);
    cr_assert_float_eq (rig.cams[0].z, 6.4, 1e-12);
    cr_assert_eq (rig.cams[1].id, 1);

    cfg.vision.default_camera_count = 4;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 4);
    double ex[4][2] = { { 2.4, 2.25 }, { -2.4, 2.25 }, { -2.4, -2.25 }, { 2.4, -2.25 } };
    for (int i = 0; i < 4; i++) {
        cr_assert_eq (rig.cams[i].id, i);
        cr_assert_float_eq (rig.cams[i].x, ex[i][0], 1e-12);
        cr_assert_float_eq (rig.cams[i].y, ex[i][1], 1e-12);
    }
    cfg.vision.default_camera_count = 3;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 2);
    cfg.vision.default_camera_count = 9;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 4);
    cfg.vision.default_camera_count = 1;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 1);
    cr_assert_float_eq (rig.cams[0].x, 0, 1e-12);

    /* Division B: one camera by default, two at +-1.8 m when asked */
    cfg.vision.default_camera_count = 0;
    cfg.run.division = SIM_DIVISION_B;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 1);
    cfg.vision.default_camera_count = 2;
    sim_rig_resolve (&cfg, &rig);
    cr_assert_float_eq (rig.cams[0].x, 1.8, 1e-12);

    /* an explicit list wins, in its order */
    cfg.vision.camera_count = 1;
    cfg.vision.cameras[0] = (sim_camera_cfg_t) { .id = 7, .x = 1, .y = 2, .z = 5 };
    sim_rig_resolve (&cfg, &rig);
    cr_assert_eq (rig.count, 1);
    cr_assert_eq (rig.cams[0].id, 7);
    cr_assert_float_eq (rig.cams[0].y, 2, 1e-12);
}

Test (schedule, first_second)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    cr_assert_not_null (s);
    cr_assert_eq (sim_schedule_next_due (s), 1u, "offset 0 is due at the first substep end");
    s_run_t r = s_run (s, 1000, 0);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (r.first_t[i], 1000000u, "first capture at t = 1 ms");
        cr_assert_eq (r.captures[i], 74);
        cr_assert_eq (r.last_frame[i], 73u);
    }
    cr_assert_eq (r.released, 148, "delay 0 releases each capture at once");
    sim_schedule_destroy (&s);
    sim_schedule_destroy (&s);
    cr_assert_null (s);
}

Test (schedule, intervals_quantised)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    uint64_t last = 0;
    int n = 0;
    double sum = 0;
    for (int k = 1; k <= 60000; k++) {
        uint64_t t = (uint64_t) k * 1000000u;
        uint32_t mask, fn[SIM_MAX_CAMERAS];
        sim_schedule_advance (s, t, 0, &mask, fn);
        if (mask & 1u) {
            if (last) {
                uint64_t d = t - last;
                cr_assert (d == 13000000u || d == 14000000u);
                sum += (double) d;
                n++;
            }
            last = t;
        }
    }
    cr_assert_float_eq (sum / n, 13642565.0, 2e3, "mean interval is one period");
    sim_schedule_destroy (&s);
}

Test (schedule, next_due_and_skips)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    /* t = 0 is the initial state, not a substep end */
    sim_schedule_advance (s, 0, 0, &mask, fn);
    cr_assert_eq (mask, 0u);
    sim_schedule_advance (s, 1000000, 0, &mask, fn);
    cr_assert_eq (mask, 3u);
    cr_assert_eq (sim_schedule_next_due (s), 13642565u);
    /* a jump over several instants captures once, the latest (instant 7
       at 95.5 ms), numbered as if every one before had been captured:
       the frames missed are a gap, as a restarted vision's would be */
    sim_schedule_advance (s, 100000000, 0, &mask, fn);
    cr_assert_eq (mask, 3u);
    cr_assert_eq (fn[0], 7u);
    cr_assert_eq (sim_schedule_capture_ns (s, 0), 7u * 13642565u);
    cr_assert_eq (sim_schedule_next_due (s), 8u * 13642565u);
    sim_schedule_destroy (&s);
}

Test (schedule, locked_offsets)
{
    sim_config_t cfg = s_cfg ();
    cfg.vision.phase_offset_count = 2;
    cfg.vision.phase_offsets[0] = 0.005;
    cfg.vision.phase_offsets[1] = -0.00583;
    cr_assert_eq (sim_fc_offset_ns (&cfg, 0), 5000000u);
    cr_assert_eq (sim_fc_offset_ns (&cfg, 1), 13642565u - 5830000u);
    cr_assert_eq (sim_fc_offset_ns (&cfg, 2), 0u, "missing entries are 0");
    cfg.vision.phase_offsets[0] = 0.1; /* reduced modulo the period */
    cr_assert_eq (sim_fc_offset_ns (&cfg, 0), 100000000u - 7u * 13642565u);

    cfg.vision.phase_offsets[0] = 0.005;
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    s_run_t r = s_run (s, 1000, 0);
    cr_assert_eq (r.first_t[0], 5000000u);
    cr_assert_eq (r.first_t[1], 8000000u);
    sim_schedule_destroy (&s);
}

Test (schedule, free_running_phases)
{
    sim_config_t cfg = s_cfg ();
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    uint64_t period = sim_schedule_period_ns (cfg.vision.frame_rate);
    /* camera i's fraction is uniform number 21 i of the calibration draw */
    sim_rng_t rng;
    sim_schedule_calibration_rng (cfg.sim.seed, cfg.rig_generation, &rng);
    double u[64];
    for (int k = 0; k < 64; k++)
        u[k] = sim_rng_uniform01 (&rng);
    for (int i = 0; i < 3; i++)
        cr_assert_eq (sim_fc_offset_ns (&cfg, i), (uint64_t) llround (u[21 * i] * (double) period));
    /* seeds give different phases; the same seed the same */
    uint64_t a = sim_fc_offset_ns (&cfg, 1);
    cfg.sim.seed = 99;
    uint64_t b = sim_fc_offset_ns (&cfg, 1);
    cr_assert_neq (a, b);
    cfg.sim.seed = 0;
    cr_assert_eq (sim_fc_offset_ns (&cfg, 1), a);
    /* spread over many seeds: uniform over the period (sigma = T / sqrt 12) */
    double sum = 0, sum2 = 0;
    for (uint64_t seed = 0; seed < 2000; seed++) {
        cfg.sim.seed = seed;
        double f = (double) sim_fc_offset_ns (&cfg, 0) / (double) period;
        sum += f;
        sum2 += f * f;
    }
    double mean = sum / 2000, sd = sqrt (sum2 / 2000 - mean * mean);
    cr_assert_float_eq (mean, 0.5, 0.03);
    cr_assert_float_eq (sd, 1 / sqrt (12.0), 0.02);
}

Test (schedule, delay_queue_fifo)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    /* capture at 1 ms with 22 ms delay: released at 23 ms */
    cr_assert_eq (sim_schedule_advance (s, 1000000, 22000000, &mask, fn), 0);
    cr_assert_eq (sim_schedule_queued (s), 2);
    cr_assert_eq (sim_schedule_next_due (s), 13642565u);
    /* capture at 14 ms with a lowered delay of 1 ms (due 15 ms) must not
       overtake the older frames */
    cr_assert_eq (sim_schedule_advance (s, 14000000, 1000000, &mask, fn), 0);
    cr_assert_eq (mask, 3u);
    cr_assert_eq (sim_schedule_advance (s, 15000000, 1000000, &mask, fn), 0);
    cr_assert_eq (sim_schedule_next_due (s), 23000000u);
    cr_assert_eq (sim_schedule_advance (s, 22999999, 1000000, &mask, fn), 0);
    cr_assert_eq (sim_schedule_advance (s, 23000000, 1000000, &mask, fn), 4,
                  "the old frames and the ones queued behind them go together");
    cr_assert_eq (sim_schedule_queued (s), 0);
    sim_schedule_destroy (&s);
}

Test (schedule, outage_suppresses_but_counts)
{
    sim_config_t cfg = s_cfg ();
    cfg.vision.outage_count = 1;
    cfg.vision.outages[0] = (sim_outage_cfg_t) { 0.1, 0.2 };
    cr_assert (sim_fc_in_outage (&cfg, 100000000));
    cr_assert (!sim_fc_in_outage (&cfg, 300000000));
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    int emitted = 0, suppressed = 0;
    uint32_t last = 0;
    for (int k = 1; k <= 1000; k++) {
        uint64_t t = (uint64_t) k * 1000000u;
        uint32_t mask, fn[SIM_MAX_CAMERAS];
        sim_schedule_advance (s, t, 0, &mask, fn);
        uint32_t sup = sim_schedule_suppressed_mask (s);
        cr_assert_eq (mask & sup, 0u);
        if (sup & 1u) {
            cr_assert (t >= 100000000u && t < 300000000u);
            suppressed++;
        }
        if (mask & 1u) {
            cr_assert (t < 100000000u || t >= 300000000u);
            emitted++;
        }
        if ((mask | sup) & 1u) {
            cr_assert (fn[0] == 0 || fn[0] == last + 1, "frame numbers keep counting");
            last = fn[0];
        }
    }
    cr_assert_eq (emitted + suppressed, 74);
    cr_assert (suppressed >= 14 && suppressed <= 15);
    sim_schedule_destroy (&s);
}

Test (schedule, reset_rig)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *s = sim_fc_schedule_new (&cfg);
    s_run (s, 100, 50000000);
    cr_assert (sim_schedule_queued (s) > 0);
    int queued = sim_schedule_queued (s);
    cfg.vision.camera_count = 1;
    cfg.vision.cameras[0] = (sim_camera_cfg_t) { .id = 3, .x = 0, .y = 0, .z = 6 };
    cfg.rig_generation = 1;
    sim_fc_schedule_reset_rig (s, &cfg, 100000000);
    cr_assert_eq (sim_schedule_camera_count (s), 1);
    cr_assert_eq (sim_schedule_queued (s), queued, "queued frames are kept");
    cr_assert_eq (sim_schedule_next_due (s), 100000001u);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    sim_schedule_advance (s, 101000000, 50000000, &mask, fn);
    cr_assert_eq (mask, 1u, "captures at the first substep end after the replacement");
    cr_assert_eq (fn[0], 0u, "frame numbers restart");
    /* then on its grid offset + k T: 8 T = 109.14 ms */
    sim_schedule_advance (s, 109000000, 50000000, &mask, fn);
    cr_assert_eq (mask, 0u);
    sim_schedule_advance (s, 110000000, 50000000, &mask, fn);
    cr_assert_eq (mask, 1u);
    cr_assert_eq (fn[0], 1u);
    sim_schedule_destroy (&s);
}

Test (schedule, skip_to_continues_frame_numbers)
{
    sim_config_t cfg = s_cfg ();
    sim_schedule_t *a = sim_fc_schedule_new (&cfg);
    sim_schedule_t *b = sim_fc_schedule_new (&cfg);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    for (int k = 1; k < 5000; k++)
        sim_schedule_advance (a, (uint64_t) k * 1000000u, 0, &mask, fn);
    sim_schedule_skip_to (b, 5000000000u);
    for (int k = 5000; k < 6000; k++) {
        uint32_t ma, mb, fa[SIM_MAX_CAMERAS], fb[SIM_MAX_CAMERAS];
        uint64_t t = (uint64_t) k * 1000000u;
        sim_schedule_advance (a, t, 0, &ma, fa);
        sim_schedule_advance (b, t, 0, &mb, fb);
        cr_assert_eq (ma, mb);
        if (ma & 1u)
            cr_assert_eq (fa[0], fb[0]);
    }
    sim_schedule_destroy (&a);
    sim_schedule_destroy (&b);
}

Test (schedule, delay_ns)
{
    sim_config_t cfg = s_cfg ();
    cr_assert_eq (sim_schedule_delay_ns (cfg.realism.vision_delay), 22000000u);
    cfg.realism.vision_delay = 2.5;
    cr_assert_eq (sim_schedule_delay_ns (cfg.realism.vision_delay), 2500000000u);
    cfg.realism.vision_delay = -1;
    cr_assert_eq (sim_schedule_delay_ns (cfg.realism.vision_delay), 0u);
    cfg.realism.vision_delay = NAN;
    cr_assert_eq (sim_schedule_delay_ns (cfg.realism.vision_delay), 0u);
}

/* ---- jittered capture instants (docs/vision.md, "Capture timing") ------ */

/* The RC-like jitter: sigma 0.61 ms per instant, 1 % of frames half a
   period late. */
static sim_config_t
s_jitter_cfg (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.seed = 21;
    cfg.realism.capture_jitter = 0.00061;
    cfg.realism.capture_late_rate = 0.01;
    cfg.realism.capture_late_fraction = 0.5;
    return cfg;
}

Test (schedule, jittered_instants_increase_and_are_keyed)
{
    sim_config_t cfg = s_jitter_cfg ();
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, &cfg);
    cr_assert (sim_schedule_def_jittered (&def));
    uint64_t period = sim_schedule_period_ns (def.frame_rate);
    uint64_t last = 0;
    int late = 0, off_grid = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        uint64_t t = sim_schedule_instant_ns (&def, 1, k);
        cr_assert_eq (t, sim_schedule_instant_ns (&def, 1, k), "a pure function of the key");
        if (k > 0)
            cr_assert (t >= last + period / 5, "instants at least 0.2 T apart (k %lu)", (unsigned long) k);
        int64_t dev = (int64_t) t - (int64_t) (k * period);
        late += dev > (int64_t) (period / 3);
        off_grid += dev != 0;
        last = t;
    }
    cr_assert (late > 120 && late < 290, "late instants %d of 20000", late);
    cr_assert (off_grid > 19000);
    /* another seed, other instants */
    cfg.sim.seed = 22;
    sim_schedule_def_t other;
    sim_schedule_def_from_config (&other, &cfg);
    cr_assert_neq (sim_schedule_instant_ns (&other, 1, 5), sim_schedule_instant_ns (&def, 1, 5));
}

Test (schedule, jittered_skip_to_continues_where_stepping_is)
{
    /* a consumer that joins late (a restart) must reach the frame numbers
       and the next instants of one that saw every substep */
    sim_config_t cfg = s_jitter_cfg ();
    sim_schedule_t *a = sim_fc_schedule_new (&cfg);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    for (uint64_t t = 1000000; t < 7000000000u; t += 1000000)
        sim_schedule_advance (a, t, 0, &mask, fn);
    sim_schedule_t *b = sim_fc_schedule_new (&cfg);
    sim_schedule_skip_to (b, 7000000000u);
    cr_assert_eq (sim_schedule_next_due (b), sim_schedule_next_due (a));
    for (int i = 0; i < 2; i++) {
        cr_assert_eq (sim_schedule_capture_ns (b, i), sim_schedule_capture_ns (a, i));
        cr_assert_eq (sim_schedule_previous_capture_ns (b, i), sim_schedule_previous_capture_ns (a, i));
    }
    uint32_t fa[SIM_MAX_CAMERAS] = { 0 }, fb[SIM_MAX_CAMERAS] = { 0 }, ma = 0, mb = 0;
    for (uint64_t t = 7000000000u; t < 7100000000u; t += 1000000) {
        sim_schedule_advance (a, t, 0, &ma, fa);
        sim_schedule_advance (b, t, 0, &mb, fb);
        cr_assert_eq (ma, mb, "same captures at %lu", (unsigned long) t);
        for (int i = 0; i < 2; i++)
            if (ma & (1u << i))
                cr_assert_eq (fa[i], fb[i]);
    }
    sim_schedule_destroy (&a);
    sim_schedule_destroy (&b);
}

Test (schedule, stepped_instants_are_the_pure_ones)
{
    /* the schedule keeps the instants it has drawn; what it reports must
       still be the pure function of the key, for every camera, after a
       rig replacement too (the kept ones belong to the old rig) */
    sim_config_t cfg = s_jitter_cfg ();
    cfg.vision.default_camera_count = 4;
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    sim_schedule_def_t def;
    sim_schedule_def_from_config (&def, &cfg);
    uint64_t period = sim_schedule_period_ns (def.frame_rate);
    sim_schedule_t *s = sim_schedule_new (&def);
    cr_assert (s);
    uint32_t mask, fn[SIM_MAX_CAMERAS];
    /* grid index of frame 0: 0 from the start, found after the reset (the
       first capture then takes the latest instant passed) */
    int64_t first[4] = { 0, 0, 0, 0 };
    int checked = 0;
    for (uint64_t t = 1000000; t < 20000000000u; t += 1000000) {
        if (t == 10000000000u) {
            def.rig_generation++;
            sim_schedule_reset_rig (s, &def, t);
            for (int i = 0; i < 4; i++)
                first[i] = -1;
        }
        sim_schedule_advance (s, t, 0, &mask, fn);
        for (int i = 0; i < 4; i++) {
            if (!(mask & (1u << i)))
                continue;
            uint64_t taken = sim_schedule_capture_ns (s, i);
            if (first[i] < 0) {
                cr_assert_eq (fn[i], 0);
                for (uint64_t k = t / period - 2; k <= t / period + 2; k++)
                    if (sim_schedule_instant_ns (&def, i, k) == taken)
                        first[i] = (int64_t) k;
                cr_assert (first[i] >= 0, "camera %d's first capture after the reset is an instant", i);
                continue;
            }
            /* a 1 ms substep never passes two instants of one camera */
            uint64_t k = (uint64_t) first[i] + fn[i];
            cr_assert_eq (taken, sim_schedule_instant_ns (&def, i, k), "t %lu camera %d", (unsigned long) t,
                          i);
            if (fn[i] > 0)
                cr_assert_eq (sim_schedule_previous_capture_ns (s, i),
                              sim_schedule_instant_ns (&def, i, k - 1));
            checked++;
        }
    }
    cr_assert (checked > 5000, "%d captures checked", checked);
    sim_schedule_destroy (&s);
}

/* A realism switched at runtime brings its capture jitter: taken before
   the first advance, the schedule is the one made with it; taken later,
   frame numbers go on and the instants from the next one on are the new
   jitter's pure ones. */
Test (schedule, set_jitter_is_a_schedule_made_with_it)
{
    sim_config_t cfg = s_jitter_cfg (), plain;
    sim_config_defaults (&plain);
    plain.sim.seed = cfg.sim.seed;
    plain.realism.capture_jitter = plain.realism.capture_late_rate = 0;
    sim_schedule_def_t jittered;
    sim_schedule_def_from_config (&jittered, &cfg);
    sim_schedule_t *made = sim_fc_schedule_new (&cfg), *switched = sim_fc_schedule_new (&plain);
    sim_schedule_set_jitter (switched, &jittered);
    uint32_t ma, mb, fa[SIM_MAX_CAMERAS], fb[SIM_MAX_CAMERAS];
    for (uint64_t t = 1000000; t < 3000000000u; t += 1000000) {
        cr_assert_eq (sim_schedule_next_due (switched), sim_schedule_next_due (made));
        sim_schedule_advance (made, t, 0, &ma, fa);
        sim_schedule_advance (switched, t, 0, &mb, fb);
        cr_assert_eq (ma, mb, "same captures at %lu", (unsigned long) t);
        for (int i = 0; i < 2; i++)
            if (ma & (1u << i))
                cr_assert_eq (fa[i], fb[i]);
    }
    /* back to no jitter at 3 s: the next instants are on the grid again */
    sim_schedule_def_t grid;
    sim_schedule_def_from_config (&grid, &plain);
    sim_schedule_set_jitter (switched, &grid);
    uint64_t period = sim_schedule_period_ns (grid.frame_rate);
    uint32_t before = fa[0];
    for (uint64_t t = 3000000000u; t < 4000000000u; t += 1000000) {
        sim_schedule_advance (switched, t, 0, &mb, fb);
        if (mb & 1u) {
            cr_assert_eq (sim_schedule_capture_ns (switched, 0) % period,
                          sim_schedule_offset_ns (&grid, 0) % period, "camera 0 off the grid at %lu",
                          (unsigned long) t);
            cr_assert_gt (fb[0], before, "frame numbers go on");
        }
    }
    sim_schedule_destroy (&made);
    sim_schedule_destroy (&switched);
}
