/*  test_phys_ball.c - the closed-form ball model (physics.md §5) against
    the spec's worked values, a numeric integration, and its identities.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_ball.h"
#include "engine/physics/phys_world.h"

static sim_ball_cfg_t
s_cfg (void)
{
    sim_config_t c;
    sim_config_defaults (&c);
    return c.ball;
}

/* Roll a spin-free kick of speed v0 along +x in 1 ms pieces, as the world
   does, and report slide/roll split and rest time. */
static void
s_kick_run (const sim_ball_cfg_t *cfg, double v0, double *t_sw, double *slide, double *total, double *rest)
{
    phys_ball_state_t b = { .z = cfg->radius, .vx = v0 };
    *t_sw = -1;
    for (int k = 1; k < 40000; k++) {
        double prev_slip = b.vx - b.sx;
        phys_ball_advance (cfg, &b, 0, 0.001);
        if (*t_sw < 0 && prev_slip > 1e-5 && !(b.vx - b.sx > 1e-9)) {
            *t_sw = k * 0.001;
            *slide = b.x;
        }
        if (b.vx == 0) {
            *total = b.x;
            *rest = k * 0.001;
            return;
        }
    }
    cr_assert_fail ("ball never rests");
}

Test (phys_ball, worked_values_table)
{
    sim_ball_cfg_t cfg = s_cfg ();
    const double v0[3] = { 2.0, 4.0, 6.5 };
    const double tsw[3] = { 0.202, 0.404, 0.657 };
    const double slide[3] = { 0.337, 1.347, 3.556 };
    const double total[3] = { 3.766, 13.312, 30.903 };
    const double rest[3] = { 5.56, 10.08, 14.76 };
    for (int i = 0; i < 3; i++) {
        double t, s, d, r;
        s_kick_run (&cfg, v0[i], &t, &s, &d, &r);
        cr_expect_float_eq (t, tsw[i], 0.0015, "t_sw %g for %g", t, v0[i]);
        cr_expect_float_eq (s, slide[i], 0.005, "slide %g for %g", s, v0[i]);
        cr_expect_float_eq (d, total[i], 0.002, "total %g for %g", d, v0[i]);
        /* The table's rest time is the exact rest u_r; stepping snaps to rest
           when the speed drops below rest_speed, at most rest_speed/|acc_roll|
           earlier. */
        double k = phys_ball_k_switch (&cfg);
        double exact = v0[i] * (1 - k) / fabs (cfg.acc_slide) + phys_ball_roll_rest_time (&cfg, k * v0[i]);
        cr_expect_float_eq (exact, rest[i], 0.006, "rest %g for %g", exact, v0[i]);
        cr_expect_leq (r, exact + 0.001);
        cr_expect_geq (r, exact - cfg.rest_speed / fabs (cfg.acc_roll) - 0.002);
        cr_expect_float_eq (phys_ball_kick_distance (&cfg, v0[i]), total[i], 0.001);
    }
    cr_expect_float_eq (phys_ball_k_switch (&cfg), 2.0 / 3.0, 1e-12);
    cr_expect_float_eq (phys_ball_advertised_roll_acc (&cfg), -0.2875, 1e-12);
}

Test (phys_ball, one_call_equals_many_substeps)
{
    sim_ball_cfg_t cfg = s_cfg ();
    phys_ball_state_t a = { .z = cfg.radius, .vx = 3.0, .vy = -1.0, .sx = 0.5 };
    phys_ball_state_t b = a;
    phys_ball_advance (&cfg, &a, 0, 2.0);
    for (int i = 0; i < 2000; i++)
        phys_ball_advance (&cfg, &b, 0, 0.001);
    cr_expect_float_eq (a.x, b.x, 1e-9);
    cr_expect_float_eq (a.y, b.y, 1e-9);
    cr_expect_float_eq (a.vx, b.vx, 1e-9);
    cr_expect_float_eq (a.sy, b.sy, 1e-9);
}

/* ---- numeric reference: RK4 with located phase events ---------------- */

typedef struct {
    double x, y, vx, vy, sx, sy;
} s_num_t;

/* While sliding the slip keeps its direction (ux, uy), so the derivative
   uses it instead of re-normalising a slip that crosses zero. */
static void
s_deriv (const sim_ball_cfg_t *cfg, const s_num_t *s, bool rolling, double ux, double uy, s_num_t *d)
{
    double A = fabs (cfg->acc_slide), p = cfg->inertia_distribution;
    double a0 = fabs (cfg->acc_roll), b = cfg->roll_speed_coefficient;
    d->x = s->vx;
    d->y = s->vy;
    if (!rolling) {
        d->vx = -A * ux;
        d->vy = -A * uy;
        d->sx = A / p * ux;
        d->sy = A / p * uy;
    } else {
        /* rolling keeps its direction too: speed along (ux, uy) */
        double v = s->vx * ux + s->vy * uy, a = a0 + b * v;
        d->vx = d->sx = -a * ux;
        d->vy = d->sy = -a * uy;
    }
}

static s_num_t
s_rk4 (const sim_ball_cfg_t *cfg, s_num_t s, bool rolling, double ux, double uy, double h)
{
    s_num_t k1, k2, k3, k4, t;
#define S_AX(o, a, k, f) \
    o.x = a.x + f * k.x, o.y = a.y + f * k.y, o.vx = a.vx + f * k.vx, o.vy = a.vy + f * k.vy, \
    o.sx = a.sx + f * k.sx, o.sy = a.sy + f * k.sy
    s_deriv (cfg, &s, rolling, ux, uy, &k1);
    S_AX (t, s, k1, h / 2);
    s_deriv (cfg, &t, rolling, ux, uy, &k2);
    S_AX (t, s, k2, h / 2);
    s_deriv (cfg, &t, rolling, ux, uy, &k3);
    S_AX (t, s, k3, h);
    s_deriv (cfg, &t, rolling, ux, uy, &k4);
    s_num_t o;
    o.x = s.x + h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x);
    o.y = s.y + h / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y);
    o.vx = s.vx + h / 6 * (k1.vx + 2 * k2.vx + 2 * k3.vx + k4.vx);
    o.vy = s.vy + h / 6 * (k1.vy + 2 * k2.vy + 2 * k3.vy + k4.vy);
    o.sx = s.sx + h / 6 * (k1.sx + 2 * k2.sx + 2 * k3.sx + k4.sx);
    o.sy = s.sy + h / 6 * (k1.sy + 2 * k2.sy + 2 * k3.sy + k4.sy);
#undef S_AX
    return o;
}

/* Slip along the initial slip direction (it keeps its direction while
   sliding), used to locate the switch. */
static double
s_slip_along (const s_num_t *s, double ux, double uy)
{
    return (s->vx - s->sx) * ux + (s->vy - s->sy) * uy;
}

/* Integrate to time T with step h, locating the slide->roll switch and
   the rest instant by bisection on the step length. */
static s_num_t
s_integrate (const sim_ball_cfg_t *cfg, s_num_t s, double T)
{
    const double h = 1e-3;
    double t = 0;
    double cx = s.vx - s.sx, cy = s.vy - s.sy, c = hypot (cx, cy);
    bool rolling = !(c >= 1e-5);
    double ux = rolling ? 0 : cx / c, uy = rolling ? 0 : cy / c;
    bool rest = false;
    if (rolling) {
        double v = hypot (s.vx, s.vy);
        rest = !(v > cfg->rest_speed) || v == 0;
        ux = rest ? 0 : s.vx / v;
        uy = rest ? 0 : s.vy / v;
    }
    while (t < T - 1e-15 && !rest) {
        double step = T - t < h ? T - t : h;
        s_num_t n = s_rk4 (cfg, s, rolling, ux, uy, step);
        if (!rolling && s_slip_along (&n, ux, uy) <= 0) {
            double lo = 0, hi = step;
            for (int i = 0; i < 200; i++) {
                double mid = 0.5 * (lo + hi);
                if (s_slip_along ((s_num_t[]) { s_rk4 (cfg, s, false, ux, uy, mid) }, ux, uy) > 0)
                    lo = mid;
                else
                    hi = mid;
            }
            s = s_rk4 (cfg, s, false, ux, uy, hi);
            s.sx = s.vx;
            s.sy = s.vy;
            t += hi;
            rolling = true;
            double v = hypot (s.vx, s.vy);
            ux = s.vx / v;
            uy = s.vy / v;
            continue;
        }
        if (rolling && n.vx * s.vx + n.vy * s.vy <= 0) {
            double lo = 0, hi = step;
            for (int i = 0; i < 200; i++) {
                double mid = 0.5 * (lo + hi);
                s_num_t m = s_rk4 (cfg, s, true, ux, uy, mid);
                if (m.vx * s.vx + m.vy * s.vy > 0)
                    lo = mid;
                else
                    hi = mid;
            }
            s = s_rk4 (cfg, s, true, ux, uy, lo);
            s.vx = s.vy = s.sx = s.sy = 0;
            rest = true;
            break;
        }
        s = n;
        t += step;
    }
    return s;
}

static void
s_compare (const sim_ball_cfg_t *cfg, s_num_t s0)
{
    const double times[] = { 0.001, 0.01, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 12 };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        s_num_t n = s_integrate (cfg, s0, times[i]);
        phys_ball_state_t b = {
            .x = s0.x, .y = s0.y, .z = cfg->radius, .vx = s0.vx, .vy = s0.vy, .sx = s0.sx, .sy = s0.sy
        };
        phys_ball_advance (cfg, &b, 0, times[i]);
        double tol = 1e-6;
        cr_expect_float_eq (b.x, n.x, tol, "x at %g: %.9g vs %.9g", times[i], b.x, n.x);
        cr_expect_float_eq (b.y, n.y, tol, "y at %g: %.9g vs %.9g", times[i], b.y, n.y);
        cr_expect_float_eq (b.vx, n.vx, tol, "vx at %g: %.9g vs %.9g", times[i], b.vx, n.vx);
        cr_expect_float_eq (b.vy, n.vy, tol, "vy at %g", times[i]);
        cr_expect_float_eq (b.sx, n.sx, tol, "sx at %g: %.9g vs %.9g", times[i], b.sx, n.sx);
        cr_expect_float_eq (b.sy, n.sy, tol, "sy at %g", times[i]);
    }
}

Test (phys_ball, closed_form_matches_numeric_integration)
{
    sim_ball_cfg_t cfg = s_cfg ();
    cfg.rest_speed = 0; /* rest then only at zero speed, located exactly */
    const s_num_t cases[] = {
        { .vx = 4.0 },             /* spin-free kick */
        { .vx = 1.5, .sx = 1.5 },  /* already rolling */
        { .vx = 2.0, .sx = -1.0 }, /* back-spin */
        { .sx = 0.8, .sy = -0.3 }, /* spinning at rest */
        { .vx = 2.0, .sy = 1.0 },  /* non-collinear slip */
        { .x = 1, .y = -2, .vx = -3.0, .vy = 2.0, .sx = 0.5, .sy = 0.5 },
    };
    const double b[3] = { 0.045, 0, 0.135 };
    const double a0[3] = { -0.22, -0.22, -0.238 };
    for (int k = 0; k < 3; k++) {
        cfg.roll_speed_coefficient = b[k];
        cfg.acc_roll = a0[k];
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            s_compare (&cfg, cases[i]);
    }
}

Test (phys_ball, roll_law_identities)
{
    sim_ball_cfg_t cfg = s_cfg ();
    for (double V = 0.1; V < 8; V += 0.7) {
        cr_expect_float_eq (phys_ball_roll_rest_time (&cfg, V), log (1 + 0.045 * V / 0.22) / 0.045, 1e-12);
        double d = 0.22 / 0.045;
        cr_expect_float_eq (phys_ball_roll_distance (&cfg, V),
                            V / 0.045 - d / 0.045 * log (1 + 0.045 * V / 0.22), 1e-9);
        double dist = phys_ball_kick_distance (&cfg, V);
        cr_expect_float_eq (phys_ball_kick_speed_for_distance (&cfg, dist), V, 1e-9);
    }
    /* b -> 0 is continuous */
    sim_ball_cfg_t c0 = cfg, c1 = cfg;
    c0.roll_speed_coefficient = 0;
    c1.roll_speed_coefficient = 1e-12;
    phys_ball_state_t s0 = { .z = cfg.radius, .vx = 2, .sx = 2 }, s1 = s0;
    phys_ball_advance (&c0, &s0, 0, 3.0);
    phys_ball_advance (&c1, &s1, 0, 3.0);
    cr_expect_float_eq (s0.x, s1.x, 1e-9);
    cr_expect_float_eq (s0.vx, s1.vx, 1e-9);
}

Test (phys_ball, rest_snapping)
{
    sim_ball_cfg_t cfg = s_cfg ();
    phys_ball_state_t b = { .z = cfg.radius, .vx = 0.0099, .sx = 0.0099, .x = 0.5 };
    phys_ball_advance (&cfg, &b, 0, 0.001);
    cr_expect_eq (b.vx, 0);
    cr_expect_eq (b.sx, 0);
    cr_expect_eq (b.x, 0.5);
    /* a slow ball that still slides is not snapped */
    b = (phys_ball_state_t) { .z = cfg.radius, .vx = 0.005 };
    phys_ball_advance (&cfg, &b, 0, 0.001);
    cr_expect_gt (b.x, 0);
}

/* Touchdown points, times and apexes of a chip (physics.md §5.5). */
Test (phys_ball, chip_worked_example)
{
    sim_ball_cfg_t cfg = s_cfg ();
    double v = 4.0, th = M_PI / 4;
    phys_ball_state_t b = { .z = cfg.radius, .vx = v * cos (th), .vz = v * sin (th) };
    double apex[4] = { 0 }, land_x[4] = { 0 }, land_t[4] = { 0 };
    int hop = 0;
    double prev_vz = b.vz;
    for (int k = 1; k <= 20000 && hop < 4; k++) {
        phys_ball_advance (&cfg, &b, 0, 0.0001);
        double h = b.z - cfg.radius;
        if (h > apex[hop])
            apex[hop] = h;
        if (prev_vz < 0 && !(b.vz < 0)) {
            land_x[hop] = b.x;
            land_t[hop] = k * 0.0001;
            hop++;
        }
        prev_vz = b.vz;
    }
    cr_log_info ("land %g %g apex %g %g %g hops %d", land_x[0], land_t[0], apex[0], apex[1], apex[2], hop);
    cr_expect_float_eq (land_x[0], 1.631, 0.001);
    cr_expect_float_eq (land_t[0], 0.577, 0.001);
    cr_expect_float_eq (apex[0], 0.408, 0.0005);
    cr_expect_float_eq (apex[1], 0.086, 0.0005);
    cr_expect_float_eq (apex[2], 0.0138, 0.0001);
    cr_expect_eq (hop, 3, "rolls after the third touchdown (next apex 0.0022 m < 1 cm)");
    cr_expect_eq (b.vz, 0);
    cr_expect_float_eq (b.z, cfg.radius, 1e-12);
    cr_expect_float_eq (b.vx, b.sx, 1e-12, "leaves the last bounce rolling");
}

Test (phys_ball, chip_touchdown_inverse)
{
    sim_ball_cfg_t cfg = s_cfg ();
    double th = M_PI / 4;
    for (double d = 2.0; d <= 4.0; d += 0.5)
        for (int n = 0; n <= 2; n++) {
            double v = phys_ball_chip_speed_for_distance (&cfg, d, th, n);
            /* time of touchdown n from the hop durations */
            double vz = v * sin (th), vxy = v * cos (th), T = 0;
            for (int i = 0; i <= n; i++) {
                T += 2 * vz / PHYS_GRAVITY;
                vz *= i == 0 ? cfg.chip_damping_z : cfg.chip_damping_z_other_hops;
                (void) vxy;
            }
            phys_ball_state_t b = { .z = cfg.radius, .vx = v * cos (th), .vz = v * sin (th) };
            phys_ball_advance (&cfg, &b, 0, T);
            cr_expect_float_eq (b.x, d, 1e-9, "d %g n %d: %.12g", d, n, b.x);
        }
    double v = phys_ball_chip_speed_for_height (0.5, th);
    cr_expect_float_eq (pow (v * sin (th), 2) / (2 * PHYS_GRAVITY), 0.5, 1e-12);
}

Test (phys_ball, non_finite_state_is_sanitised)
{
    sim_ball_cfg_t cfg = s_cfg ();
    phys_ball_state_t b = { .x = NAN, .y = 1, .z = INFINITY, .vx = INFINITY, .vz = NAN };
    phys_ball_advance (&cfg, &b, 0, 0.001);
    cr_expect (isfinite (b.x) && isfinite (b.z) && isfinite (b.vx) && isfinite (b.vz));
}

/* §5.4: kick speed for a target end speed, against the trajectory. */
Test (phys_ball, kick_speed_for_end_speed)
{
    for (int variant = 0; variant < 2; variant++) {
        sim_ball_cfg_t cfg = s_cfg ();
        if (variant)
            cfg.roll_speed_coefficient = 0;
        const double cases[][2] = { { 1.0, 0.5 }, { 3.0, 1.0 }, { 0.2, 3.0 }, { 6.0, 0.2 } };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            double d = cases[i][0], ve = cases[i][1];
            double v0 = phys_ball_kick_speed_for_end_speed (&cfg, d, ve);
            cr_assert_gt (v0, 0);
            cr_expect_float_eq (phys_ball_speed_at_distance (&cfg, v0, d), ve, 1e-9);
            /* and the trajectory agrees: when the ball passes d its speed is ve */
            phys_ball_state_t b = { .z = cfg.radius, .vx = v0 };
            double prev_x = 0, prev_v = v0;
            while (b.x < d && b.vx > 0) {
                prev_x = b.x;
                prev_v = b.vx;
                phys_ball_advance (&cfg, &b, 0, 1e-4);
            }
            double f = (d - prev_x) / (b.x - prev_x);
            double v = prev_v + f * (b.vx - prev_v);
            cr_expect_float_eq (v, ve, 1e-3, "d %g ve %g: %g", d, ve, v);
        }
    }
}
