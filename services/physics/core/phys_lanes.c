/*  phys_lanes.c - the robot phase four robots a register (AVX2): the
    scalar path of phys_world.c (phys_limiter_kernel, phys_drive_kernel,
    the integration and the turn) with one robot per lane. Where the
    scalar path branches, both sides are computed and the lane's side is
    selected, so every lane sees the scalar path's operations on its own
    values in the same order: the same bits.
*/
#include "phys_lanes.h"

#include <assert.h>
#include <stddef.h>

#include "sim_math.h"

#ifdef SIM_MATH_AVX2

#define S_AVX2       SIM_MATH_AVX2_TARGET
#define S_OFF(field) offsetof (phys_robot_t, field)
#define S_W          4 /* lanes of a register */

bool
phys_lanes_supported (void)
{
    return sim_math_have_avx2 ();
}

/* The robots' fields come in rows: fields that follow each other in
   phys_robot_t are loaded per robot, two doubles at a time, and
   transposed into a register per field (cheaper than a gather per
   field); the stores transpose back. The rows: */
#define S_ROW(a, b, n) \
    _Static_assert(offsetof (phys_robot_t, b) == offsetof (phys_robot_t, a) + (n) * sizeof (double), \
                   #a " .. " #b " in a row")
S_ROW (specs.limits.acc_speedup_absolute_max, specs.limits.vel_angular_max, 5);
S_ROW (specs.drive.coast_decel, specs.drive.coast_angular_decel, 1);
S_ROW (wheels.s, wheels.c, 4);
S_ROW (wheels.c, wheels.mount, 4);
S_ROW (wheels.mount, drive_k.Fl, 1);
S_ROW (drive_k.Fl, drive_k.kv, 3);
S_ROW (drive_k.kv, inv_inertia, 2);
S_ROW (x, st, 7);
S_ROW (st, sp, 1);

/* Two doubles of robot p from field on. */
S_AVX2 static inline __m128d
s_pair (const char *p, size_t field)
{
    return _mm_loadu_pd ((const double *) (p + field));
}

/* The two fields from field on of the four robots p[]: v[0], v[1]. */
S_AVX2 static inline void
s_load2 (char *const p[S_W], size_t field, __m256d v[2])
{
    __m256d a = _mm256_insertf128_pd (_mm256_castpd128_pd256 (s_pair (p[0], field)), s_pair (p[2], field), 1);
    __m256d b = _mm256_insertf128_pd (_mm256_castpd128_pd256 (s_pair (p[1], field)), s_pair (p[3], field), 1);
    v[0] = _mm256_unpacklo_pd (a, b);
    v[1] = _mm256_unpackhi_pd (a, b);
}

/* The four fields from field on of the four robots: v[0..3]. */
S_AVX2 static inline void
s_load4 (char *const p[S_W], size_t field, __m256d v[4])
{
    s_load2 (p, field, v);
    s_load2 (p, field + 2 * sizeof (double), v + 2);
}

/* The field at field of the four robots. */
S_AVX2 static inline __m256d
s_load1 (char *const p[S_W], size_t field)
{
    __m128d lo =
        _mm_loadh_pd (_mm_load_sd ((const double *) (p[0] + field)), (const double *) (p[1] + field));
    __m128d hi =
        _mm_loadh_pd (_mm_load_sd ((const double *) (p[2] + field)), (const double *) (p[3] + field));
    return _mm256_insertf128_pd (_mm256_castpd128_pd256 (lo), hi, 1);
}

/* Stores v[0], v[1] at field and the next of the four robots (a robot
   repeated in p gets the same values from each of its lanes). */
S_AVX2 static inline void
s_store2 (char *const p[S_W], size_t field, const __m256d v[2])
{
    __m256d a = _mm256_unpacklo_pd (v[0], v[1]), b = _mm256_unpackhi_pd (v[0], v[1]);
    _mm_storeu_pd ((double *) (p[0] + field), _mm256_castpd256_pd128 (a));
    _mm_storeu_pd ((double *) (p[1] + field), _mm256_castpd256_pd128 (b));
    _mm_storeu_pd ((double *) (p[2] + field), _mm256_extractf128_pd (a, 1));
    _mm_storeu_pd ((double *) (p[3] + field), _mm256_extractf128_pd (b, 1));
}

/* Stores lane i of v at field of robot p[i]. */
S_AVX2 static inline void
s_store1 (char *const p[S_W], size_t field, __m256d v)
{
    __m128d lo = _mm256_castpd256_pd128 (v), hi = _mm256_extractf128_pd (v, 1);
    _mm_storel_pd ((double *) (p[0] + field), lo);
    _mm_storeh_pd ((double *) (p[1] + field), lo);
    _mm_storel_pd ((double *) (p[2] + field), hi);
    _mm_storeh_pd ((double *) (p[3] + field), hi);
}

/* m ? a : b per lane (m all ones or all zeros). */
S_AVX2 static inline __m256d
s_sel (__m256d m, __m256d a, __m256d b)
{
    return _mm256_blendv_pd (b, a, m);
}

/* The scalar x > lim ? lim : x < -lim ? -lim : x per lane for lim >= 0,
   NaN passing through, as phys_drive_clamp2. */
S_AVX2 static inline __m256d
s_clamp (__m256d x, __m256d lim, __m256d neg_lim)
{
    return _mm256_max_pd (neg_lim, _mm256_min_pd (lim, x));
}

S_AVX2 static inline __m256d
s_dot (__m256d a, __m256d b, __m256d c, __m256d d)
{
    return _mm256_add_pd (_mm256_mul_pd (a, b), _mm256_mul_pd (c, d));
}

S_AVX2 static inline __m256d
s_cmp_gt (__m256d a, __m256d b)
{
    return _mm256_cmp_pd (a, b, _CMP_GT_OQ);
}

S_AVX2 static inline __m256d
s_cmp_le (__m256d a, __m256d b)
{
    return _mm256_cmp_pd (a, b, _CMP_LE_OQ);
}

/* The wheels drive (phys_drive_kernel) of the four robots p[]: body
   force (fx, fy) and torque in the robot frame for setpoint (s0, s1, s2)
   and local velocity (lvx, lvy, om). */
S_AVX2 static void
s_drive (char *const p[S_W], const __m256d sp[3], __m256d lvx, __m256d lvy, __m256d om, __m256d *fx,
         __m256d *fy, __m256d *torque)
{
    const __m256d sign = _mm256_set1_pd (-0.0), one = _mm256_set1_pd (1.0), none = _mm256_set1_pd (-1.0);
    const __m256d slip = _mm256_set1_pd (0.05);
    __m256d ws[4], wc[4], k[4];
    s_load4 (p, S_OFF (wheels.s), ws);
    s_load4 (p, S_OFF (wheels.c), wc);
    s_load4 (p, S_OFF (wheels.mount), k); /* mount, Fl, fmax, umax */
    __m256d mount = k[0], nfl = _mm256_xor_pd (k[1], sign);
    __m256d fm = k[2], nfm = _mm256_xor_pd (fm, sign);
    __m256d um = k[3], num = _mm256_xor_pd (um, sign);
    __m256d kv = s_load1 (p, S_OFF (drive_k.kv));
    __m256d nsp0 = _mm256_xor_pd (sp[0], sign), nlvx = _mm256_xor_pd (lvx, sign);
    __m256d rw_sp = _mm256_mul_pd (mount, sp[2]), rw = _mm256_mul_pd (mount, om);
    __m256d bx = _mm256_setzero_pd (), by = bx, sum = bx;
    for (int i = 0; i < 4; i++) {
        __m256d si = ws[i], ci = wc[i];
        __m256d us = s_clamp (_mm256_add_pd (s_dot (nsp0, si, sp[1], ci), rw_sp), um, num);
        __m256d ua = _mm256_add_pd (s_dot (nlvx, si, lvy, ci), rw);
        __m256d f = s_clamp (_mm256_mul_pd (kv, _mm256_sub_pd (us, ua)), fm, nfm);
        /* roller friction saturates above 0.05 m/s of lateral slip */
        __m256d r = _mm256_div_pd (s_dot (lvx, ci, lvy, si), slip);
        __m256d flat = _mm256_mul_pd (nfl, s_clamp (r, one, none));
        bx = _mm256_add_pd (bx, s_dot (_mm256_xor_pd (f, sign), si, flat, ci));
        by = _mm256_add_pd (by, s_dot (f, ci, flat, si));
        sum = _mm256_add_pd (sum, f);
    }
    *fx = bx;
    *fy = by;
    *torque = _mm256_mul_pd (mount, sum);
}

/* The limiter (phys_limiter_kernel) of the four robots p[], the batch's
   j..j+3: sp[] stepped toward their targets, or coasting where a lane
   has none. */
S_AVX2 static void
s_limit (char *const p[S_W], const phys_lanes_t *b, int j, __m256d dt, __m256d sp[3])
{
    const __m256d zero = _mm256_setzero_pd (), sign = _mm256_set1_pd (-0.0);
    __m256d lim[4], vel[2], coast[2];
    s_load4 (p, S_OFF (specs.limits.acc_speedup_absolute_max), lim); /* speedup abs, ang; brake abs, ang */
    s_load2 (p, S_OFF (specs.limits.vel_absolute_max), vel);
    s_load2 (p, S_OFF (specs.drive.coast_decel), coast);
    __m256d has = _mm256_castsi256_pd (_mm256_loadu_si256 ((const __m256i *) (b->has + j)));
    __m256d tx = _mm256_loadu_pd (b->tx + j), ty = _mm256_loadu_pd (b->ty + j),
            tw = _mm256_loadu_pd (b->tw + j);
    __m256d s0 = sp[0], s1 = sp[1], s2 = sp[2];
    __m256d up = s_cmp_gt (s_dot (tx, tx, ty, ty), s_dot (s0, s0, s1, s1));
    __m256d a_xy = s_sel (has, s_sel (up, lim[0], lim[2]), coast[0]);
    __m256d upw = s_cmp_gt (_mm256_andnot_pd (sign, tw), _mm256_andnot_pd (sign, s2));
    __m256d a_w = s_sel (has, s_sel (upw, lim[1], lim[3]), coast[1]);
    __m256d dx = _mm256_sub_pd (tx, s0), dy = _mm256_sub_pd (ty, s1);
    __m256d dist2 = s_dot (dx, dx, dy, dy), step = _mm256_mul_pd (a_xy, dt);
    __m256d snap = s_cmp_le (dist2, _mm256_mul_pd (step, step));
    __m256d f = _mm256_div_pd (step, _mm256_sqrt_pd (dist2));
    s0 = s_sel (snap, tx, _mm256_add_pd (s0, _mm256_mul_pd (dx, f)));
    s1 = s_sel (snap, ty, _mm256_add_pd (s1, _mm256_mul_pd (dy, f)));
    __m256d dw = _mm256_sub_pd (tw, s2), stepw = _mm256_mul_pd (a_w, dt);
    __m256d dir = s_sel (s_cmp_gt (dw, zero), stepw, _mm256_xor_pd (stepw, sign));
    s2 = s_sel (s_cmp_le (_mm256_andnot_pd (sign, dw), stepw), tw, _mm256_add_pd (s2, dir));
    __m256d vmax = vel[0];
    __m256d v2 = s_dot (s0, s0, s1, s1);
    __m256d over = s_cmp_gt (v2, _mm256_mul_pd (vmax, vmax));
    __m256d fv = _mm256_div_pd (vmax, _mm256_sqrt_pd (v2));
    sp[0] = s_sel (over, _mm256_mul_pd (s0, fv), s0);
    sp[1] = s_sel (over, _mm256_mul_pd (s1, fv), s1);
    __m256d wmax = vel[1];
    sp[2] = s_clamp (s2, wmax, _mm256_xor_pd (wmax, sign));
}

/* θ + ω dt wrapped to (-π, π] in the lanes where turned, θ elsewhere. */
S_AVX2 static __m256d
s_advance_theta (__m256d th, __m256d om, __m256d dt, __m256d turned)
{
    __m256d a = _mm256_add_pd (th, _mm256_mul_pd (om, dt));
    __m256d in = _mm256_and_pd (s_cmp_gt (a, _mm256_set1_pd (-M_PI)), s_cmp_le (a, _mm256_set1_pd (M_PI)));
    if (_mm256_movemask_pd (_mm256_andnot_pd (in, turned))) {
        /* rare (a robot crossing ±π): the scalar wrap per lane */
        double v[S_W];
        _mm256_storeu_pd (v, a);
        for (int i = 0; i < S_W; i++)
            v[i] = phys_angle_wrap (v[i]);
        a = _mm256_loadu_pd (v);
    }
    return s_sel (turned, a, th);
}

/* One register's four robots between the stages of s_run: their state
   row (x, y, theta, vx, vy, omega, ct, st) and setpoints, stored back at
   the end. */
typedef struct {
    char *p[S_W];  /* the robots */
    __m256d s[8];  /* x, y, theta, vx, vy, omega, ct, st */
    __m256d sp[3]; /* setpoints after the limiter */
} s_group_t;

enum { S_X, S_Y, S_THETA, S_VX, S_VY, S_OMEGA, S_CT, S_ST };

/* Stage 1: the rows loaded, the limiter. */
S_AVX2 static inline void
s_stage_limit (phys_robot_t *robots, const phys_lanes_t *b, int j, __m256d dt, s_group_t *g)
{
    for (int i = 0; i < S_W; i++)
        g->p[i] = (char *) &robots[b->k[j + i]];
    s_load4 (g->p, S_OFF (x), g->s);
    s_load4 (g->p, S_OFF (vy), g->s + 4);
    s_load2 (g->p, S_OFF (sp[0]), g->sp);
    g->sp[2] = s_load1 (g->p, S_OFF (sp[2]));
    s_limit (g->p, b, j, dt, g->sp);
}

/* Stage 2: the drive (wheels or ideal), velocities and positions. */
S_AVX2 static inline void
s_stage_drive (const phys_lanes_t *b, int j, __m256d dt, s_group_t *g)
{
    const __m256d sign = _mm256_set1_pd (-0.0);
    const __m256d *sp = g->sp;
    __m256d ct = g->s[S_CT], st = g->s[S_ST];
    __m256d vx = g->s[S_VX], vy = g->s[S_VY], om = g->s[S_OMEGA];
    __m256d ideal = _mm256_castsi256_pd (_mm256_loadu_si256 ((const __m256i *) (b->ideal + j)));
    if (_mm256_movemask_pd (ideal) != (1 << S_W) - 1) {
        __m256d lvx = s_dot (ct, vx, st, vy), lvy = s_dot (_mm256_xor_pd (st, sign), vx, ct, vy);
        __m256d fx, fy, tq, inv[2];
        s_drive (g->p, sp, lvx, lvy, om, &fx, &fy, &tq);
        s_load2 (g->p, S_OFF (inv_mass), inv); /* inv_mass, inv_inertia */
        __m256d ax = _mm256_sub_pd (_mm256_mul_pd (ct, fx), _mm256_mul_pd (st, fy));
        __m256d ay = s_dot (st, fx, ct, fy);
        /* the ideal lanes take the setpoint below instead */
        vx = _mm256_add_pd (vx, _mm256_mul_pd (_mm256_mul_pd (ax, inv[0]), dt));
        vy = _mm256_add_pd (vy, _mm256_mul_pd (_mm256_mul_pd (ay, inv[0]), dt));
        om = _mm256_add_pd (om, _mm256_mul_pd (_mm256_mul_pd (tq, inv[1]), dt));
    }
    __m256d ivx = _mm256_sub_pd (_mm256_mul_pd (ct, sp[0]), _mm256_mul_pd (st, sp[1]));
    vx = s_sel (ideal, ivx, vx);
    vy = s_sel (ideal, s_dot (st, sp[0], ct, sp[1]), vy);
    om = s_sel (ideal, sp[2], om);
    g->s[S_X] = _mm256_add_pd (g->s[S_X], _mm256_mul_pd (vx, dt));
    g->s[S_Y] = _mm256_add_pd (g->s[S_Y], _mm256_mul_pd (vy, dt));
    g->s[S_VX] = vx;
    g->s[S_VY] = vy;
    g->s[S_OMEGA] = om;
}

/* Stage 3: the turn of the robots whose omega is not zero; the rows
   stored. */
S_AVX2 static inline void
s_stage_turn (__m256d dt, s_group_t *g)
{
    __m256d turned = _mm256_cmp_pd (g->s[S_OMEGA], _mm256_setzero_pd (), _CMP_NEQ_UQ);
    if (_mm256_movemask_pd (turned)) {
        __m256d th = s_advance_theta (g->s[S_THETA], g->s[S_OMEGA], dt, turned);
        __m256d s, c;
        sim_sincos4 (th, &s, &c);
        g->s[S_THETA] = th;
        g->s[S_ST] = s_sel (turned, s, g->s[S_ST]);
        g->s[S_CT] = s_sel (turned, c, g->s[S_CT]);
    }
    for (int i = 0; i < 8; i += 2)
        s_store2 (g->p, S_OFF (x) + (size_t) i * sizeof (double), g->s + i);
    s_store2 (g->p, S_OFF (sp[0]), g->sp);
    s_store1 (g->p, S_OFF (sp[2]), g->sp[2]);
}

/* The batch's robots a register at a time, stage by stage: the registers'
   dependency chains are independent, and running stage 1 of every
   register before stage 2 of any lets the CPU overlap them (one
   register's chain alone, some 300 cycles long, would leave the units
   idle most of the time). */
S_AVX2 static void
s_run (phys_robot_t *robots, const phys_lanes_t *b, int n, double dt_s)
{
    const __m256d dt = _mm256_set1_pd (dt_s);
    s_group_t g[PHYS_LANES / S_W];
    int groups = n / S_W;
    for (int i = 0; i < groups; i++)
        s_stage_limit (robots, b, i * S_W, dt, &g[i]);
    for (int i = 0; i < groups; i++)
        s_stage_drive (b, i * S_W, dt, &g[i]);
    for (int i = 0; i < groups; i++)
        s_stage_turn (dt, &g[i]);
}

void
phys_lanes_run (phys_robot_t *robots, phys_lanes_t *batch, double dt)
{
    assert (batch->n >= 1 && batch->n <= PHYS_LANES);
    /* a short register repeats the batch's last robot: the same inputs,
       the same results, stored twice */
    int n = (batch->n + S_W - 1) / S_W * S_W;
    for (int i = batch->n; i < n; i++) {
        int j = batch->n - 1;
        batch->k[i] = batch->k[j];
        batch->has[i] = batch->has[j];
        batch->ideal[i] = batch->ideal[j];
        batch->tx[i] = batch->tx[j];
        batch->ty[i] = batch->ty[j];
        batch->tw[i] = batch->tw[j];
    }
    s_run (robots, batch, n, dt);
}

#else

bool
phys_lanes_supported (void)
{
    return false;
}

void
phys_lanes_run (phys_robot_t *robots, phys_lanes_t *batch, double dt)
{
    (void) robots;
    (void) batch;
    (void) dt;
    assert (!"phys_lanes_run without phys_lanes_supported");
}

#endif
