/*  phys_drive.h - the robot phase's per-robot kernels: the firmware
    limiter (physics.md §6.6) and the wheels drive (§6.7). Inline so that
    the robot phase (phys_robot_phase.c) pays no call and takes the drive's
    constants from the robot, computed once per spec change, instead of
    per substep; phys_robot.c wraps them as phys_limiter_step and
    phys_drive_wheels. Internal to the core.
*/
#ifndef PHYS_DRIVE_H_INCLUDED
#define PHYS_DRIVE_H_INCLUDED

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "phys_ball.h"
#include "phys_robot.h"

/* The wheels drive's constants of a robot's specs. */
typedef struct {
    double Fl;   /* lateral roller friction per wheel at full slip, N */
    double fmax; /* wheel force clamp: motor or traction limit, N */
    double umax; /* wheel surface speed clamp, m/s */
    double kv;   /* velocity gain, N s/m */
} phys_drive_consts_t;

static inline void
phys_drive_consts_init (phys_drive_consts_t *k, const sim_robot_specs_t *s)
{
    const sim_drive_t *d = &s->drive;
    double N = s->mass * PHYS_GRAVITY / 4;
    double Ft = d->mu_drive * N;
    k->Fl = d->mu_lateral * N;
    k->fmax = d->max_wheel_force < Ft ? d->max_wheel_force : Ft;
    k->umax = d->max_wheel_speed;
    k->kv = d->velocity_gain;
}

static inline void
phys_limiter_kernel (const sim_robot_specs_t *s, double sp[3], const double *target, double dt)
{
    const sim_limits_t *l = &s->limits;
    double tx = 0, ty = 0, tw = 0, a_xy, a_w;
    if (target) {
        tx = target[0];
        ty = target[1];
        tw = target[2];
        a_xy = tx * tx + ty * ty > sp[0] * sp[0] + sp[1] * sp[1] ? l->acc_speedup_absolute_max
                                                                 : l->acc_brake_absolute_max;
        a_w = fabs (tw) > fabs (sp[2]) ? l->acc_speedup_angular_max : l->acc_brake_angular_max;
    } else {
        a_xy = s->drive.coast_decel;
        a_w = s->drive.coast_angular_decel;
    }
    double dx = tx - sp[0], dy = ty - sp[1];
    double dist2 = dx * dx + dy * dy, step = a_xy * dt;
    if (dist2 <= step * step) {
        sp[0] = tx;
        sp[1] = ty;
    } else {
        double f = step / sqrt (dist2);
        sp[0] += dx * f;
        sp[1] += dy * f;
    }
    double dw = tw - sp[2], stepw = a_w * dt;
    if (fabs (dw) <= stepw)
        sp[2] = tw;
    else
        sp[2] += dw > 0 ? stepw : -stepw;
    double vmax = l->vel_absolute_max;
    double v2 = sp[0] * sp[0] + sp[1] * sp[1];
    if (v2 > vmax * vmax) {
        double f = vmax / sqrt (v2);
        sp[0] *= f;
        sp[1] *= f;
    }
    if (sp[2] > l->vel_angular_max)
        sp[2] = l->vel_angular_max;
    else if (sp[2] < -l->vel_angular_max)
        sp[2] = -l->vel_angular_max;
}

/* Below this a wheels-driven velocity (m/s, or rad/s for omega) is zero.
   With a zero setpoint the wheels drive takes a fixed fraction of the
   velocity off every substep, so a robot at rest decays geometrically
   and never reaches zero: after ~20 s its velocities are subnormal, where
   x86 takes a microcode assist per operation and a substep costs 10x.
   1e-150 is far below any physical meaning and keeps the squares and
   products of such velocities (drive, limiter, contacts) normal. */
#define PHYS_REST 1e-150

/* v, or +0 when v is nonzero and |v| < PHYS_REST (NaN and signed zeros
   pass through). */
static inline double
phys_drive_rest (double v)
{
    return v != 0 && fabs (v) < PHYS_REST ? 0.0 : v;
}

#ifdef __SSE2__
/* max (-lim, min (lim, x)) per lane: the scalar x > lim ? lim : x < -lim ?
   -lim : x for lim >= 0, NaN passing through (minpd/maxpd return their
   second operand when unordered). */
static inline __m128d
phys_drive_clamp2 (__m128d x, __m128d lim, __m128d neg_lim)
{
    return _mm_max_pd (neg_lim, _mm_min_pd (lim, x));
}
#endif

static inline void
phys_drive_kernel (const phys_drive_consts_t *k, const phys_wheels_t *w, const double sp[3], double vx,
                   double vy, double omega, double *fx, double *fy, double *torque)
{
    double Fl = k->Fl, fmax = k->fmax, umax = k->umax, kv = k->kv;
    double rw_sp = w->mount * sp[2], rw = w->mount * omega;
    double bx = 0, by = 0, sumF = 0;
#ifdef __SSE2__
    /* Two wheels per SSE2 register: the same IEEE operations in the same
       order per wheel as the scalar loop below, so the same bits; the
       sums then run over the wheels in protocol order as before. */
    const __m128d sign = _mm_set1_pd (-0.0);
    const __m128d nsp0 = _mm_set1_pd (-sp[0]), sp1 = _mm_set1_pd (sp[1]), rwsp = _mm_set1_pd (rw_sp);
    const __m128d nvx = _mm_set1_pd (-vx), vvx = _mm_set1_pd (vx), vvy = _mm_set1_pd (vy);
    const __m128d rww = _mm_set1_pd (rw), kvv = _mm_set1_pd (kv), nfl = _mm_set1_pd (-Fl);
    const __m128d um = _mm_set1_pd (umax), num = _mm_set1_pd (-umax);
    const __m128d fm = _mm_set1_pd (fmax), nfm = _mm_set1_pd (-fmax);
    const __m128d one = _mm_set1_pd (1.0), none = _mm_set1_pd (-1.0), slip = _mm_set1_pd (0.05);
    /* written out for both halves: a loop here is not unrolled at -O2 */
    __m128d si = _mm_loadu_pd (&w->s[0]), ci = _mm_loadu_pd (&w->c[0]);
    __m128d us = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nsp0, si), _mm_mul_pd (sp1, ci)), rwsp);
    us = phys_drive_clamp2 (us, um, num);
    __m128d ua = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nvx, si), _mm_mul_pd (vvy, ci)), rww);
    __m128d f0 = phys_drive_clamp2 (_mm_mul_pd (kvv, _mm_sub_pd (us, ua)), fm, nfm);
    __m128d r = _mm_div_pd (_mm_add_pd (_mm_mul_pd (vvx, ci), _mm_mul_pd (vvy, si)), slip);
    __m128d flat = _mm_mul_pd (nfl, phys_drive_clamp2 (r, one, none));
    __m128d tx0 = _mm_add_pd (_mm_mul_pd (_mm_xor_pd (f0, sign), si), _mm_mul_pd (flat, ci));
    __m128d ty0 = _mm_add_pd (_mm_mul_pd (f0, ci), _mm_mul_pd (flat, si));
    si = _mm_loadu_pd (&w->s[2]);
    ci = _mm_loadu_pd (&w->c[2]);
    us = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nsp0, si), _mm_mul_pd (sp1, ci)), rwsp);
    us = phys_drive_clamp2 (us, um, num);
    ua = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nvx, si), _mm_mul_pd (vvy, ci)), rww);
    __m128d f1 = phys_drive_clamp2 (_mm_mul_pd (kvv, _mm_sub_pd (us, ua)), fm, nfm);
    r = _mm_div_pd (_mm_add_pd (_mm_mul_pd (vvx, ci), _mm_mul_pd (vvy, si)), slip);
    flat = _mm_mul_pd (nfl, phys_drive_clamp2 (r, one, none));
    __m128d tx1 = _mm_add_pd (_mm_mul_pd (_mm_xor_pd (f1, sign), si), _mm_mul_pd (flat, ci));
    __m128d ty1 = _mm_add_pd (_mm_mul_pd (f1, ci), _mm_mul_pd (flat, si));
    bx = (bx + _mm_cvtsd_f64 (tx0)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (tx0, tx0));
    by = (by + _mm_cvtsd_f64 (ty0)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (ty0, ty0));
    sumF = (sumF + _mm_cvtsd_f64 (f0)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (f0, f0));
    bx = (bx + _mm_cvtsd_f64 (tx1)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (tx1, tx1));
    by = (by + _mm_cvtsd_f64 (ty1)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (ty1, ty1));
    sumF = (sumF + _mm_cvtsd_f64 (f1)) + _mm_cvtsd_f64 (_mm_unpackhi_pd (f1, f1));
#else
    for (int i = 0; i < 4; i++) {
        double si = w->s[i], ci = w->c[i];
        double us = -sp[0] * si + sp[1] * ci + rw_sp;
        us = us > umax ? umax : us < -umax ? -umax : us;
        double ua = -vx * si + vy * ci + rw;
        double F = kv * (us - ua);
        F = F > fmax ? fmax : F < -fmax ? -fmax : F;
        /* roller friction saturates above 0.05 m/s of lateral slip */
        double r = (vx * ci + vy * si) / 0.05;
        double flat = -Fl * (r > 1 ? 1 : r < -1 ? -1 : r);
        bx += -F * si + flat * ci;
        by += F * ci + flat * si;
        sumF += F;
    }
#endif
    *fx = bx;
    *fy = by;
    *torque = w->mount * sumF;
}

#endif
