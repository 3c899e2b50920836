/*  phys_lanes_kernel.h - the body of the robot lanes, written once for a
    register of S_W robots and included by phys_lanes.c once per width
    (AVX2: four, AVX-512: eight) after it defines the width's type V, mask
    M, target S_T, name suffix S_NAME and the operations below (each one
    IEEE operation per lane, so both widths do the same arithmetic).
    Not a header of its own: phys_lanes.c only.
*/

/* m ? a : b per lane. */
#define S_SEL(m, a, b) S_BLEND (m, a, b)

/* The scalar x > lim ? lim : x < -lim ? -lim : x per lane for lim >= 0,
   NaN passing through, as phys_drive_clamp2. */
S_T static inline V
S_NAME (s_clamp) (V x, V lim, V neg_lim)
{
    return S_MAXV (neg_lim, S_MINV (lim, x));
}

S_T static inline V
S_NAME (s_dot) (V a, V b, V c, V d)
{
    return S_ADD (S_MUL (a, b), S_MUL (c, d));
}

/* phys_drive_rest per lane. */
S_T static inline V
S_NAME (s_rest) (V v)
{
    V a = S_ANDNOT (S_SET1 (-0.0), v);
    return S_SEL (S_MAND (S_GT (S_SET1 (PHYS_REST), a), S_NEQ (v, S_ZERO ())), S_ZERO (), v);
}

#define s_clamp S_NAME (s_clamp)
#define s_dot   S_NAME (s_dot)

/* Constants idx and idx + 1 of the register's robots p[] into v[0], v[1]:
   from the world's lane constants at cs (their first robot's column)
   where cols, else from the robots' rows at field off. The same values.
   cols is a constant of each of s_run's two bodies. */
#define S_CONST2(cols, cs, p, off, idx, v) \
    do { \
        if (cols) { \
            (v)[0] = S_LOADU ((cs) + (idx) *PHYS_LANE_ROBOTS); \
            (v)[1] = S_LOADU ((cs) + ((idx) + 1) * PHYS_LANE_ROBOTS); \
        } else \
            S_LOAD2 (p, off, v); \
    } while (0)

/* The wheels drive (phys_drive_kernel) of the robots p[]: body force
   (fx, fy) and torque in the robot frame for setpoint sp and local
   velocity (lvx, lvy, om). */
S_T static inline __attribute__ ((always_inline)) void
S_NAME (s_drive) (bool cols, char *const p[S_W], const double *cs, const V sp[3], V lvx, V lvy, V om, V *fx,
                  V *fy, V *torque)
{
    const V sign = S_SET1 (-0.0), one = S_SET1 (1.0), none = S_SET1 (-1.0), slip = S_SET1 (0.05);
    V ws[4], wc[4], k[4];
    S_CONST2 (cols, cs, p, S_OFF (wheels.s), S_C_WS, ws);
    S_CONST2 (cols, cs, p, S_OFF (wheels.s) + 2 * sizeof (double), S_C_WS + 2, ws + 2);
    S_CONST2 (cols, cs, p, S_OFF (wheels.c), S_C_WC, wc);
    S_CONST2 (cols, cs, p, S_OFF (wheels.c) + 2 * sizeof (double), S_C_WC + 2, wc + 2);
    S_CONST2 (cols, cs, p, S_OFF (wheels.mount), S_C_MOUNT, k);    /* mount, Fl */
    S_CONST2 (cols, cs, p, S_OFF (drive_k.fmax), S_C_FMAX, k + 2); /* fmax, umax */
    V mount = k[0], nfl = S_XOR (k[1], sign);
    V fm = k[2], nfm = S_XOR (fm, sign);
    V um = k[3], num = S_XOR (um, sign);
    V kv = cols ? S_LOADU (cs + S_C_KV * PHYS_LANE_ROBOTS) : S_LOAD1 (p, S_OFF (drive_k.kv));
    V nsp0 = S_XOR (sp[0], sign), nlvx = S_XOR (lvx, sign);
    V rw_sp = S_MUL (mount, sp[2]), rw = S_MUL (mount, om);
    V bx = S_ZERO (), by = bx, sum = bx;
    for (int i = 0; i < 4; i++) {
        V si = ws[i], ci = wc[i];
        V us = s_clamp (S_ADD (s_dot (nsp0, si, sp[1], ci), rw_sp), um, num);
        V ua = S_ADD (s_dot (nlvx, si, lvy, ci), rw);
        V f = s_clamp (S_MUL (kv, S_SUB (us, ua)), fm, nfm);
        /* roller friction saturates above 0.05 m/s of lateral slip */
        V r = S_DIV (s_dot (lvx, ci, lvy, si), slip);
        V flat = S_MUL (nfl, s_clamp (r, one, none));
        bx = S_ADD (bx, s_dot (S_XOR (f, sign), si, flat, ci));
        by = S_ADD (by, s_dot (f, ci, flat, si));
        sum = S_ADD (sum, f);
    }
    *fx = bx;
    *fy = by;
    *torque = S_MUL (mount, sum);
}

/* The limiter (phys_limiter_kernel) of the robots p[], the batch's j on:
   sp[] stepped toward their targets, or coasting where a lane has none. */
S_T static inline __attribute__ ((always_inline)) void
S_NAME (s_limit) (bool cols, char *const p[S_W], const double *cs, const phys_lanes_t *b, int j, V dt,
                  V sp[3])
{
    const V zero = S_ZERO (), sign = S_SET1 (-0.0);
    V lim[4], vel[2], coast[2];
    S_CONST2 (cols, cs, p, S_OFF (specs.limits.acc_speedup_absolute_max), S_C_LIMITS,
              lim); /* speedup abs, angular */
    S_CONST2 (cols, cs, p, S_OFF (specs.limits.acc_brake_absolute_max), S_C_LIMITS + 2, lim + 2); /* brake */
    S_CONST2 (cols, cs, p, S_OFF (specs.limits.vel_absolute_max), S_C_LIMITS + 4, vel);
    S_CONST2 (cols, cs, p, S_OFF (coast[0]), S_C_COAST, coast);
    M has = S_MASK64 (b->has + j);
    V tx = S_LOADU (b->tx + j), ty = S_LOADU (b->ty + j), tw = S_LOADU (b->tw + j);
    V s0 = sp[0], s1 = sp[1], s2 = sp[2];
    M up = S_GT (s_dot (tx, tx, ty, ty), s_dot (s0, s0, s1, s1));
    V a_xy = S_SEL (has, S_SEL (up, lim[0], lim[2]), coast[0]);
    M upw = S_GT (S_ANDNOT (sign, tw), S_ANDNOT (sign, s2));
    V a_w = S_SEL (has, S_SEL (upw, lim[1], lim[3]), coast[1]);
    V dx = S_SUB (tx, s0), dy = S_SUB (ty, s1);
    V dist2 = s_dot (dx, dx, dy, dy), step = S_MUL (a_xy, dt);
    M snap = S_LE (dist2, S_MUL (step, step));
    V f = S_DIV (step, S_SQRT (dist2));
    s0 = S_SEL (snap, tx, S_ADD (s0, S_MUL (dx, f)));
    s1 = S_SEL (snap, ty, S_ADD (s1, S_MUL (dy, f)));
    V dw = S_SUB (tw, s2), stepw = S_MUL (a_w, dt);
    V dir = S_SEL (S_GT (dw, zero), stepw, S_XOR (stepw, sign));
    s2 = S_SEL (S_LE (S_ANDNOT (sign, dw), stepw), tw, S_ADD (s2, dir));
    V vmax = vel[0];
    V v2 = s_dot (s0, s0, s1, s1);
    M over = S_GT (v2, S_MUL (vmax, vmax));
    V fv = S_DIV (vmax, S_SQRT (v2));
    sp[0] = S_SEL (over, S_MUL (s0, fv), s0);
    sp[1] = S_SEL (over, S_MUL (s1, fv), s1);
    V wmax = vel[1];
    sp[2] = s_clamp (s2, wmax, S_XOR (wmax, sign));
}

/* θ + ω dt wrapped to (-π, π] in the lanes where turned, θ elsewhere. */
S_T static V
S_NAME (s_advance_theta) (V th, V om, V dt, M turned)
{
    V a = S_ADD (th, S_MUL (om, dt));
    M in = S_MAND (S_GT (a, S_SET1 (-M_PI)), S_LE (a, S_SET1 (M_PI)));
    if (S_ANY (S_MANDNOT (in, turned))) {
        /* rare (a robot crossing ±π): the scalar wrap per lane */
        double v[S_W];
        S_STOREU (v, a);
        for (int i = 0; i < S_W; i++)
            v[i] = phys_angle_wrap (v[i]);
        a = S_LOADU (v);
    }
    return S_SEL (turned, a, th);
}

/* One register's robots between the stages of s_run: their state row
   (x, y, theta, vx, vy, omega, ct, st) and setpoints, stored back at the
   end. */
typedef struct {
    char *p[S_W];     /* the robots */
    const double *cs; /* their constants' column in the world's lane constants (where cols) */
    V s[8];           /* x, y, theta, vx, vy, omega, ct, st */
    V sp[3];          /* setpoints after the limiter */
} S_NAME (s_group_t);

/* Stage 1: the rows loaded, the limiter. */
S_T static inline __attribute__ ((always_inline)) void
S_NAME (s_stage_limit) (bool cols, phys_world_t *w, const phys_lanes_t *b, int j, V dt,
                        S_NAME (s_group_t) * g)
{
    for (int i = 0; i < S_W; i++)
        g->p[i] = (char *) &w->robots[b->k[j + i]];
    g->cs = cols ? &w->lane_consts[0][b->k[0] + j] : NULL;
    for (int i = 0; i < 8; i += 2)
        S_LOAD2 (g->p, S_OFF (x) + (size_t) i * sizeof (double), g->s + i);
    S_LOAD2 (g->p, S_OFF (sp[0]), g->sp);
    g->sp[2] = S_LOAD1 (g->p, S_OFF (sp[2]));
    S_NAME (s_limit) (cols, g->p, g->cs, b, j, dt, g->sp);
}

/* Stage 2: the drive (wheels or ideal), velocities and positions. */
S_T static inline __attribute__ ((always_inline)) void
S_NAME (s_stage_drive) (bool cols, const phys_lanes_t *b, int j, V dt, S_NAME (s_group_t) * g)
{
    const V sign = S_SET1 (-0.0);
    const V *sp = g->sp;
    V ct = g->s[S_CT], st = g->s[S_ST];
    V vx = g->s[S_VX], vy = g->s[S_VY], om = g->s[S_OMEGA];
    M ideal = S_MASK64 (b->ideal + j);
    if (!S_ALL (ideal)) {
        V lvx = s_dot (ct, vx, st, vy), lvy = s_dot (S_XOR (st, sign), vx, ct, vy);
        V fx, fy, tq, inv[2];
        S_NAME (s_drive) (cols, g->p, g->cs, sp, lvx, lvy, om, &fx, &fy, &tq);
        S_CONST2 (cols, g->cs, g->p, S_OFF (inv_mass), S_C_INV, inv); /* inv_mass, inv_inertia */
        V ax = S_SUB (S_MUL (ct, fx), S_MUL (st, fy));
        V ay = s_dot (st, fx, ct, fy);
        /* the ideal lanes take the setpoint below instead */
        vx = S_NAME (s_rest) (S_ADD (vx, S_MUL (S_MUL (ax, inv[0]), dt)));
        vy = S_NAME (s_rest) (S_ADD (vy, S_MUL (S_MUL (ay, inv[0]), dt)));
        om = S_NAME (s_rest) (S_ADD (om, S_MUL (S_MUL (tq, inv[1]), dt)));
    }
    V ivx = S_SUB (S_MUL (ct, sp[0]), S_MUL (st, sp[1]));
    vx = S_SEL (ideal, ivx, vx);
    vy = S_SEL (ideal, s_dot (st, sp[0], ct, sp[1]), vy);
    om = S_SEL (ideal, sp[2], om);
    g->s[S_X] = S_ADD (g->s[S_X], S_MUL (vx, dt));
    g->s[S_Y] = S_ADD (g->s[S_Y], S_MUL (vy, dt));
    g->s[S_VX] = vx;
    g->s[S_VY] = vy;
    g->s[S_OMEGA] = om;
}

/* Stage 3: the turn of the robots whose omega is not zero; the rows
   stored (a robot repeated in a register gets the same values from each
   of its lanes). */
S_T static inline void
S_NAME (s_stage_turn) (V dt, S_NAME (s_group_t) * g)
{
    M turned = S_NEQ (g->s[S_OMEGA], S_ZERO ());
    if (S_ANY (turned)) {
        V th = S_NAME (s_advance_theta) (g->s[S_THETA], g->s[S_OMEGA], dt, turned);
        V s, c;
        S_SINCOS (th, &s, &c);
        g->s[S_THETA] = th;
        g->s[S_ST] = S_SEL (turned, s, g->s[S_ST]);
        g->s[S_CT] = S_SEL (turned, c, g->s[S_CT]);
    }
    for (int i = 0; i < 8; i += 2)
        S_STORE2 (g->p, S_OFF (x) + (size_t) i * sizeof (double), g->s + i);
    S_STORE2 (g->p, S_OFF (sp[0]), g->sp);
    S_STORE1 (g->p, S_OFF (sp[2]), g->sp[2]);
}

/* The batch's n robots (a multiple of S_W) a register at a time, stage
   by stage: the registers' dependency chains are independent, and
   running stage 1 of every register before stage 2 of any lets the CPU
   overlap them (one register's chain alone, some 300 cycles long, would
   leave the units idle most of the time). */
S_T static inline __attribute__ ((always_inline)) void
S_NAME (s_run_body) (bool cols, phys_world_t *w, const phys_lanes_t *b, int n, double dt_s)
{
    const V dt = S_SET1 (dt_s);
    S_NAME (s_group_t) g[PHYS_LANES / S_W];
    int groups = n / S_W;
    for (int i = 0; i < groups; i++)
        S_NAME (s_stage_limit) (cols, w, b, i * S_W, dt, &g[i]);
    for (int i = 0; i < groups; i++)
        S_NAME (s_stage_drive) (cols, b, i * S_W, dt, &g[i]);
    for (int i = 0; i < groups; i++)
        S_NAME (s_stage_turn) (dt, &g[i]);
}

/* cols: the batch's constants from the world's lane constants (lane i
   of the batch is column b->k[0] + i), else from the robots' rows; a
   body compiled for each. */
S_T static void
S_NAME (s_run) (bool cols, phys_world_t *w, const phys_lanes_t *b, int n, double dt_s)
{
    if (cols)
        S_NAME (s_run_body) (true, w, b, n, dt_s);
    else
        S_NAME (s_run_body) (false, w, b, n, dt_s);
}

#undef S_CONST2
#undef s_clamp
#undef s_dot
#undef S_SEL
