/*  test_vis_calib.c - the static calibration error
    (engine/vision/vis_calib.c; spec/vision.md §3) and its
    statistics against the reference tolerances of §12.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/config/config.h"
#include "common/base/sim_field.h"
#include "engine/vision/vis_model.h"
#include "tests/support/sim_from_config.h"

static sim_config_t
s_cfg (void)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    return cfg;
}

Test (vis_calib, draws_21_uniforms_in_order)
{
    sim_config_t cfg = s_cfg ();
    sim_field_t field;
    sim_field_resolve (&cfg.field, cfg.run.division, &field);
    sim_rng_t a, b;
    sim_schedule_calibration_rng (cfg.sim.seed, cfg.rig_generation, &a);
    b = a;
    vis_calib_t c;
    double u0 = sim_rng_uniform01 (&b);
    sim_rng_t b2 = a;
    vis_calib_draw (&a, &field, 3.0, &c);
    for (int k = 0; k < SIM_CALIB_UNIFORMS_PER_CAMERA; k++)
        sim_rng_next (&b2);
    cr_assert (memcmp (&a, &b2, sizeof a) == 0, "exactly 21 uniforms per camera");
    cr_assert_eq (c.free_fraction, u0, "the free fraction is the first uniform");
    cr_assert (c.sign == 1 || c.sign == -1);
    cr_assert_float_eq (hypot (c.ox, c.oy), 1.0, 1e-12);
}

Test (vis_calib, model_agrees_with_schedule_free_fraction)
{
    sim_config_t cfg = s_cfg ();
    cfg.vision.default_camera_count = 4;
    cfg.vision.camera_phase = SIM_PHASE_FREE_RUNNING;
    cfg.sim.seed = 1234;
    vis_model_t *m = sim_fc_model_new (&cfg);
    uint64_t period = sim_schedule_period_ns (cfg.vision.frame_rate);
    for (int i = 0; i < 4; i++)
        cr_assert_eq (sim_fc_offset_ns (&cfg, i),
                      (uint64_t) llround (vis_model_calib (m, i)->free_fraction * (double) period));
    vis_model_destroy (&m);
}

/* The field of cfg and the calibration its seed and rig draw (3 m warp). */
static void
s_calib_of (const sim_config_t *cfg, sim_field_t *field, vis_calib_t *c)
{
    sim_field_resolve (&cfg->field, cfg->run.division, field);
    sim_rng_t rng;
    sim_schedule_calibration_rng (cfg->sim.seed, cfg->rig_generation, &rng);
    vis_calib_draw (&rng, field, 3.0, c);
}

Test (vis_calib, gain_normalises_on_the_grid)
{
    sim_config_t cfg = s_cfg ();
    sim_field_t field;
    sim_field_resolve (&cfg.field, cfg.run.division, &field);
    sim_rng_t rng;
    sim_rng_seed (&rng, 7, SIM_STREAM_CALIBRATION);
    vis_calib_t c;
    vis_calib_draw (&rng, &field, 3.0, &c);
    double sum = 0, sum2 = 0;
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            double x = -6 + (i + 0.5) * 0.5, y = -4.5 + (j + 0.5) * 0.375;
            double v = c.bx.gain * vis_warp_raw (&c.bx, 3.0, x, y);
            sum += v;
            sum2 += v * v;
        }
    double mean = sum / 576;
    cr_assert_float_eq (sqrt (sum2 / 576 - mean * mean), 1.0, 1e-9);
    /* L <= 0 switches the warp off */
    cr_assert_eq (vis_warp_raw (&c.bx, 0, 1, 1), 0.0);
}

/* The gain as vis_calib.c worked it out one point at a time before its
   grid went through the lanes: 1 / the standard deviation of raw() over
   24 x 24 points, a column of fixed x at a time. */
static double
s_gain_point_by_point (const vis_warp_basis_t *b, const sim_field_t *f, double length)
{
    double sum = 0, sum2 = 0;
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            double x = -f->length / 2 + (i + 0.5) * f->length / 24;
            double y = -f->width / 2 + (j + 0.5) * f->width / 24;
            double v = vis_warp_raw (b, length, x, y);
            sum += v;
            sum2 += v * v;
        }
    double mean = sum / 576, var = sum2 / 576 - mean * mean;
    return var > 1e-18 ? 1 / sqrt (var) : 0;
}

/* The grid's points share the lanes of the sines (a world's reset draws
   six gains); each gain keeps the bits of the point-by-point sum, so a
   seed's vision bytes did not move. Seeds, both divisions' fields and
   warp lengths from centimetres to metres. */
Test (vis_calib, gain_has_the_bits_of_the_point_by_point_sum)
{
    sim_config_t cfg = s_cfg ();
    const double lengths[] = { 0.05, 0.7, 3.0, 11.0 };
    int checked = 0;
    for (int division = 0; division < 2; division++) {
        cfg.run.division = division ? SIM_DIVISION_B : SIM_DIVISION_A;
        sim_field_t field;
        sim_field_resolve (&cfg.field, cfg.run.division, &field);
        for (uint64_t seed = 1; seed <= 50; seed++)
            for (int l = 0; l < 4; l++) {
                sim_rng_t rng;
                sim_rng_seed (&rng, seed, SIM_STREAM_CALIBRATION);
                vis_calib_t c;
                vis_calib_draw (&rng, &field, lengths[l], &c);
                const vis_warp_basis_t *b[3] = { &c.bx, &c.by, &c.bphi };
                for (int k = 0; k < 3; k++, checked++) {
                    vis_warp_basis_t copy = *b[k];
                    double want = s_gain_point_by_point (&copy, &field, lengths[l]);
                    cr_assert (memcmp (&want, &b[k]->gain, sizeof want) == 0,
                               "seed %llu, L %g, basis %d: gain %a, point by point %a",
                               (unsigned long long) seed, lengths[l], k, b[k]->gain, want);
                }
            }
    }
    cr_assert_eq (checked, 2 * 50 * 4 * 3);
}

/* Spread of the warp per axis on a 0.2 m grid over the field. */
static void
s_spread (const vis_calib_t *c, const sim_realism_t *r, double *sx, double *sy, double *mean_phi)
{
    double s[3] = { 0 }, s2[3] = { 0 };
    int n = 0;
    for (double x = -6; x <= 6 + 1e-9; x += 0.2)
        for (double y = -4.5; y <= 4.5 + 1e-9; y += 0.2) {
            double e[3];
            vis_calib_error (c, r, x, y, &e[0], &e[1], &e[2]);
            for (int k = 0; k < 3; k++) {
                s[k] += e[k];
                s2[k] += e[k] * e[k];
            }
            n++;
        }
    *sx = sqrt (s2[0] / n - (s[0] / n) * (s[0] / n));
    *sy = sqrt (s2[1] / n - (s[1] / n) * (s[1] / n));
    *mean_phi = s[2] / n;
}

Test (vis_calib, warp_statistics)
{
    sim_config_t cfg = s_cfg ();
    const sim_realism_t *r = &cfg.realism;
    sim_field_t field;
    sim_field_resolve (&cfg.field, cfg.run.division, &field);
    for (uint64_t seed = 0; seed < 20; seed++) {
        cfg.sim.seed = seed;
        sim_rng_t rng;
        sim_schedule_calibration_rng (cfg.sim.seed, cfg.rig_generation, &rng);
        for (int cam = 0; cam < 2; cam++) {
            vis_calib_t c;
            vis_calib_draw (&rng, &field, r->calibration_warp_length, &c);
            double sx, sy, mphi;
            s_spread (&c, r, &sx, &sy, &mphi);
            cr_assert_float_eq (sx, r->calibration_warp_stddev, 0.25 * r->calibration_warp_stddev,
                                "seed %lu: x spread %g", (unsigned long) seed, sx);
            cr_assert_float_eq (sy, r->calibration_warp_stddev, 0.25 * r->calibration_warp_stddev);
            cr_assert_float_eq (fabs (mphi), r->calibration_orientation_offset, 0.005,
                                "mean orientation error magnitude near the offset");
            cr_assert_float_eq (mphi * c.sign, r->calibration_orientation_offset, 0.005);
        }
    }
}

Test (vis_calib, live_amplitude_and_offset)
{
    sim_config_t cfg = s_cfg ();
    sim_field_t field;
    vis_calib_t c;
    s_calib_of (&cfg, &field, &c);
    sim_realism_t r = cfg.realism;
    r.object_position_offset = 0;
    r.calibration_orientation_offset = 0;
    double ax, ay, ap, bx, by, bp;
    vis_calib_error (&c, &r, 1.3, -0.7, &ax, &ay, &ap);
    r.calibration_warp_stddev *= 2;
    r.calibration_orientation_warp *= 3;
    vis_calib_error (&c, &r, 1.3, -0.7, &bx, &by, &bp);
    cr_assert_float_eq (bx, 2 * ax, 1e-15, "a new amplitude rescales without reshaping");
    cr_assert_float_eq (by, 2 * ay, 1e-15);
    cr_assert_float_eq (bp, 3 * ap, 1e-15);
    /* constant offset only: along o_i with the offset's length */
    r.calibration_warp_stddev = 0;
    r.calibration_orientation_warp = 0;
    r.object_position_offset = 0.02;
    r.calibration_orientation_offset = 0.02;
    vis_calib_error (&c, &r, 4, 2, &bx, &by, &bp);
    cr_assert_float_eq (hypot (bx, by), 0.02, 1e-15);
    cr_assert_float_eq (bp, 0.02 * c.sign, 1e-15);
}

/* Camera-to-camera disagreement of the default pair over seeds, with an
   offset of 0.006 m and a warp of 0.010 m (the model's arithmetic; the
   presets' own numbers are checked against the logs in test_vis_stats):
   the constant part |o1 - o2| = 2 * 0.006 |sin(dangle / 2)| averages
   0.012 * 2 / pi = 7.6 mm; the warp difference is sigma 0.010 sqrt 2 =
   14 mm per axis; the orientation warp difference 0.02 sqrt 2 = 28 mrad. */
Test (vis_calib, camera_disagreement_over_seeds)
{
    sim_config_t cfg = s_cfg ();
    cfg.realism.object_position_offset = 0.006;
    cfg.realism.calibration_warp_stddev = 0.010;
    sim_field_t field;
    sim_field_resolve (&cfg.field, cfg.run.division, &field);
    const sim_realism_t *r = &cfg.realism;
    double const_sum = 0, dx2 = 0, dphi2 = 0;
    int nconst = 0, n = 0;
    for (uint64_t seed = 0; seed < 400; seed++) {
        cfg.sim.seed = seed;
        sim_rng_t rng;
        sim_schedule_calibration_rng (cfg.sim.seed, cfg.rig_generation, &rng);
        vis_calib_t c[2];
        vis_calib_draw (&rng, &field, 3.0, &c[0]);
        vis_calib_draw (&rng, &field, 3.0, &c[1]);
        const_sum += r->object_position_offset * hypot (c[0].ox - c[1].ox, c[0].oy - c[1].oy);
        nconst++;
        /* warp-only difference at a few points of the overlap band */
        sim_realism_t w = *r;
        w.object_position_offset = 0;
        w.calibration_orientation_offset = 0;
        for (double y = -4; y <= 4; y += 2) {
            double e0[3], e1[3];
            vis_calib_error (&c[0], &w, 0.3, y, &e0[0], &e0[1], &e0[2]);
            vis_calib_error (&c[1], &w, 0.3, y, &e1[0], &e1[1], &e1[2]);
            dx2 += (e0[0] - e1[0]) * (e0[0] - e1[0]);
            dphi2 += (e0[2] - e1[2]) * (e0[2] - e1[2]);
            n++;
        }
    }
    cr_assert_float_eq (const_sum / nconst, 0.0076, 0.0006);
    cr_assert_float_eq (sqrt (dx2 / n), 0.0141, 0.002);
    cr_assert_float_eq (sqrt (dphi2 / n), 0.028, 0.004);
}

/* The warp by its definition (vision.md §3.2) with libm's sine, the
   phase rounded as the model rounds it. */
static double
s_raw_by_hand (const vis_warp_basis_t *b, double length, double x, double y)
{
    double sum = 0, k = 2 * M_PI / length;
    for (int i = 0; i < VIS_WARP_WAVES; i++)
        sum += sin (k * (x * b->wave[i].ux + y * b->wave[i].uy) + b->wave[i].phase);
    return sqrt (2.0 / VIS_WARP_WAVES) * sum;
}

/* A frame's robots are evaluated together (lanes across points, chunks of
   several points): each point must get its own error, the bits of one
   call for it alone, for any count and with warps switched off. */
Test (vis_calib, many_points_at_once_match_one_at_a_time)
{
    sim_config_t cfg = s_cfg ();
    sim_field_t field;
    vis_calib_t c;
    s_calib_of (&cfg, &field, &c);
    enum { N = 37 };
    double x[N], y[N], ex[N], ey[N], ep[N], bx[N], by[N];
    for (int i = 0; i < N; i++) {
        x[i] = -6 + 0.33 * i;
        y[i] = 4.5 - 0.25 * i;
    }
    for (int variant = 0; variant < 4; variant++) {
        sim_realism_t r = cfg.realism;
        if (variant == 1)
            r.calibration_warp_stddev = 0; /* only the orientation warp */
        if (variant == 2)
            r.calibration_orientation_warp = 0;
        if (variant == 3)
            r.calibration_warp_length = 2e-6; /* phases past the kernel's range: libm */
        for (int n = 0; n <= N; n += (n < 6 ? 1 : 7)) {
            vis_calib_error_n (&c, &r, x, y, n, ex, ey, ep);
            vis_calib_error_n (&c, &r, x, y, n, bx, by, NULL);
            for (int i = 0; i < n; i++) {
                double sx, sy, sp;
                vis_calib_error (&c, &r, x[i], y[i], &sx, &sy, &sp);
                cr_assert (ex[i] == sx && ey[i] == sy && ep[i] == sp, "variant %d n %d point %d", variant, n,
                           i);
                cr_assert (bx[i] == sx && by[i] == sy, "without orientation: variant %d point %d", variant,
                           i);
                double L = r.calibration_warp_length;
                double hx = r.object_position_offset * c.ox
                          + r.calibration_warp_stddev * c.bx.gain * s_raw_by_hand (&c.bx, L, x[i], y[i]);
                double hp =
                    c.sign * r.calibration_orientation_offset
                    + r.calibration_orientation_warp * c.bphi.gain * s_raw_by_hand (&c.bphi, L, x[i], y[i]);
                /* libm against the kernel (~1e-16 each) is all that may differ */
                cr_assert_float_eq (ex[i], hx, 1e-15, "variant %d point %d: %.17g vs %.17g", variant, i,
                                    ex[i], hx);
                cr_assert_float_eq (ep[i], hp, 2e-15, "variant %d point %d", variant, i);
            }
        }
    }
}
