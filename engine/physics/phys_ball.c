/*  phys_ball.c - closed-form ball trajectories (physics.md §5). */
#include "phys_ball.h"

#include <math.h>

/* (1 - e^-x) / x, continuous at 0 (expm1 keeps small x exact). */
static double
s_g1 (double x)
{
    if (x == 0)
        return 1.0;
    return -expm1 (-x) / x;
}

/* (x - 1 + e^-x) / x², Taylor series below 0.01 where the direct form
   cancels catastrophically. */
static double
s_g2 (double x)
{
    if (x < 0.01)
        return 0.5 + x * (-1.0 / 6.0 + x * (1.0 / 24.0 + x * (-1.0 / 120.0 + x / 720.0)));
    return (x + expm1 (-x)) / (x * x);
}

static double
s_b (const sim_ball_cfg_t *cfg)
{
    return cfg->roll_speed_coefficient > 0 ? cfg->roll_speed_coefficient : 0;
}

double
phys_ball_roll_rest_time (const sim_ball_cfg_t *cfg, double V)
{
    double a0 = fabs (cfg->acc_roll), b = s_b (cfg);
    if (V <= 0)
        return 0;
    if (a0 > 0 && b > 0)
        return log1p (b * V / a0) / b;
    if (a0 > 0)
        return V / a0;
    if (b > 0) {
        if (!(cfg->rest_speed > 0))
            return INFINITY;
        return V > cfg->rest_speed ? log (V / cfg->rest_speed) / b : 0;
    }
    return INFINITY;
}

/* Speed and distance after rolling u seconds from speed V (u <= rest time). */
static void
s_roll_eval (double a0, double b, double V, double u, double *v, double *dist)
{
    double x = b * u;
    double g1 = s_g1 (x);
    *v = V * exp (-x) - a0 * u * g1;
    *dist = V * u * g1 - a0 * u * u * s_g2 (x);
}

double
phys_ball_roll_distance (const sim_ball_cfg_t *cfg, double V)
{
    double ur = phys_ball_roll_rest_time (cfg, V);
    if (isinf (ur))
        return INFINITY;
    double v, d;
    s_roll_eval (fabs (cfg->acc_roll), s_b (cfg), V, ur, &v, &d);
    return d;
}

double
phys_ball_advertised_roll_acc (const sim_ball_cfg_t *cfg)
{
    return -fabs (cfg->acc_roll) - s_b (cfg) * cfg->advertise_roll_speed;
}

static double
s_inertia (const sim_ball_cfg_t *cfg)
{
    return cfg->inertia_distribution > 1e-6 ? cfg->inertia_distribution : 1e-6;
}

double
phys_ball_k_switch (const sim_ball_cfg_t *cfg)
{
    return 1.0 / (1.0 + s_inertia (cfg));
}

/* The flat model of §5.3 from the horizontal part of *st, for t seconds. */
static void
s_flat (const sim_ball_cfg_t *cfg, phys_ball_state_t *st, double t)
{
    double cx = st->vx - st->sx, cy = st->vy - st->sy;
    double c = sqrt (cx * cx + cy * cy);
    double A = fabs (cfg->acc_slide);
    double vx = st->vx, vy = st->vy;
    if (c >= 1e-5 && A > 0) {
        double p = s_inertia (cfg);
        double t_sw = c * p / ((1.0 + p) * A);
        double ax = -A * cx / c, ay = -A * cy / c;
        double ts = t < t_sw ? t : t_sw;
        st->x += vx * ts + 0.5 * ax * ts * ts;
        st->y += vy * ts + 0.5 * ay * ts * ts;
        if (t < t_sw) {
            st->vx = vx + ax * t;
            st->vy = vy + ay * t;
            st->sx -= ax / p * t;
            st->sy -= ay / p * t;
            return;
        }
        vx += ax * t_sw;
        vy += ay * t_sw;
        t -= t_sw;
    } else if (vx * vx + vy * vy < cfg->rest_speed * cfg->rest_speed) {
        st->vx = st->vy = st->sx = st->sy = 0;
        return;
    }
    double V = sqrt (vx * vx + vy * vy);
    if (V < 1e-12) {
        st->vx = st->vy = st->sx = st->sy = 0;
        return;
    }
    double ux = vx / V, uy = vy / V;
    double ur = phys_ball_roll_rest_time (cfg, V);
    double v, d;
    bool rest = t >= ur;
    s_roll_eval (fabs (cfg->acc_roll), s_b (cfg), V, rest ? ur : t, &v, &d);
    if (rest || !(v > 0))
        v = 0;
    st->x += ux * d;
    st->y += uy * d;
    st->vx = st->sx = ux * v;
    st->vy = st->sy = uy * v;
}

static double
s_finite_or_zero (double v)
{
    return isfinite (v) ? v : 0.0;
}

void
phys_ball_advance (const sim_ball_cfg_t *cfg, phys_ball_state_t *st, double floor, double t)
{
    const double g = PHYS_GRAVITY;
    double G = floor + cfg->radius;
    st->x = s_finite_or_zero (st->x);
    st->y = s_finite_or_zero (st->y);
    st->vx = s_finite_or_zero (st->vx);
    st->vy = s_finite_or_zero (st->vy);
    st->vz = s_finite_or_zero (st->vz);
    st->sx = s_finite_or_zero (st->sx);
    st->sy = s_finite_or_zero (st->sy);
    if (!isfinite (st->z) || st->z < G) {
        st->z = G;
        if (st->vz < 0)
            st->vz = 0;
    }
    bool airborne = st->z > G + 1e-9 || st->vz > 0;
    if (airborne && st->z <= G + 1e-9 && st->vz * st->vz / (2 * g) <= cfg->min_hop_height)
        airborne = false;
    if (!airborne) {
        st->z = G;
        st->vz = 0;
        s_flat (cfg, st, t);
        return;
    }
    for (int hop = 0; hop < 4096; hop++) {
        double h = st->z - G;
        if (h < 0)
            h = 0;
        double T = (st->vz + sqrt (st->vz * st->vz + 2 * g * h)) / g;
        if (t < T) {
            st->x += st->vx * t;
            st->y += st->vy * t;
            st->z += st->vz * t - 0.5 * g * t * t;
            if (st->z < G)
                st->z = G;
            st->vz -= g * t;
            return;
        }
        st->x += st->vx * T;
        st->y += st->vy * T;
        st->z = G;
        double vz_in = st->vz - g * T;
        t -= T;
        bool first = st->sx * st->sx + st->sy * st->sy < 1e-24;
        double dxy = first ? cfg->chip_damping_xy_first_hop : cfg->chip_damping_xy_other_hops;
        double dz = first ? cfg->chip_damping_z : cfg->chip_damping_z_other_hops;
        st->vx *= dxy;
        st->vy *= dxy;
        double vz = -vz_in * dz;
        st->vz = vz > 0 ? vz : 0;
        st->sx = st->vx;
        st->sy = st->vy;
        if (!(st->vz > 0 && st->vz * st->vz / (2 * g) > cfg->min_hop_height))
            break;
    }
    st->z = G;
    st->vz = 0;
    s_flat (cfg, st, t);
}

double
phys_ball_kick_distance (const sim_ball_cfg_t *cfg, double v0)
{
    if (!(v0 > 0))
        return 0;
    double A = fabs (cfg->acc_slide);
    if (!(A > 0) || v0 < 1e-5)
        return v0 < cfg->rest_speed ? 0 : phys_ball_roll_distance (cfg, v0);
    double k = phys_ball_k_switch (cfg);
    return v0 * v0 * (1 - k * k) / (2 * A) + phys_ball_roll_distance (cfg, k * v0);
}

double
phys_ball_kick_speed_for_distance (const sim_ball_cfg_t *cfg, double d)
{
    if (!(d >= 0))
        return -1;
    if (d == 0)
        return 0;
    double lo = 0, hi = 100;
    if (!(phys_ball_kick_distance (cfg, hi) >= d))
        return -1;
    for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
        double mid = 0.5 * (lo + hi);
        if (phys_ball_kick_distance (cfg, mid) < d)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Rolling distance while slowing from V to v (v <= V) under a0 + b v. */
static double
s_roll_dist_between (double a0, double b, double V, double v)
{
    if (b > 0)
        return (V - v) / b - a0 / (b * b) * log ((a0 + b * V) / (a0 + b * v));
    return a0 > 0 ? (V * V - v * v) / (2 * a0) : INFINITY;
}

double
phys_ball_speed_at_distance (const sim_ball_cfg_t *cfg, double v0, double d)
{
    if (!(v0 > 0) || !(d >= 0))
        return 0;
    double A = fabs (cfg->acc_slide), k = phys_ball_k_switch (cfg);
    double a0 = fabs (cfg->acc_roll), b = s_b (cfg);
    double V = v0;
    if (A > 0 && v0 >= 1e-5) {
        double slide = v0 * v0 * (1 - k * k) / (2 * A);
        if (d <= slide)
            return sqrt (v0 * v0 - 2 * A * d);
        d -= slide;
        V = k * v0;
    }
    if (d >= phys_ball_roll_distance (cfg, V))
        return 0;
    if (b == 0)
        return sqrt (V * V - 2 * a0 * d);
    double lo = 0, hi = V; /* speed at distance d: s_roll_dist_between is monotone */
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (s_roll_dist_between (a0, b, V, mid) > d)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double
phys_ball_kick_speed_for_end_speed (const sim_ball_cfg_t *cfg, double d, double v_end)
{
    if (!(d >= 0) || !(v_end >= 0))
        return -1;
    double A = fabs (cfg->acc_slide), k = phys_ball_k_switch (cfg);
    double a0 = fabs (cfg->acc_roll);
    if (s_b (cfg) == 0 && A > 0) {
        /* end in the roll phase: v_end² = (k v0)² - 2 a0 (d - slide(v0)) */
        double v0 = sqrt ((v_end * v_end + 2 * a0 * d) / (k * k + a0 * (1 - k * k) / A));
        if (d >= v0 * v0 * (1 - k * k) / (2 * A) && v_end <= k * v0)
            return v0;
        return sqrt (v_end * v_end + 2 * A * d); /* still sliding at d */
    }
    double lo = 0, hi = 100;
    if (phys_ball_speed_at_distance (cfg, hi, d) < v_end)
        return -1;
    for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
        double mid = 0.5 * (lo + hi);
        if (phys_ball_speed_at_distance (cfg, mid, d) < v_end)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double
phys_ball_chip_speed_for_distance (const sim_ball_cfg_t *cfg, double d, double theta, int n)
{
    double f = 1, pxy = 1, pz = 1;
    for (int i = 1; i <= n; i++) {
        pxy *= i == 1 ? cfg->chip_damping_xy_first_hop : cfg->chip_damping_xy_other_hops;
        pz *= i == 1 ? cfg->chip_damping_z : cfg->chip_damping_z_other_hops;
        f += pxy * pz;
    }
    double sc = fabs (sin (theta) * cos (theta));
    if (!(sc > 0) || !(d >= 0))
        return -1;
    return sqrt (d * PHYS_GRAVITY / (2 * f * sc));
}

double
phys_ball_chip_speed_for_height (double h, double theta)
{
    double s = fabs (sin (theta));
    if (!(s > 0) || !(h >= 0))
        return -1;
    return sqrt (2 * PHYS_GRAVITY * h) / s;
}
