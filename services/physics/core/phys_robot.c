/*  phys_robot.c - robot specs, limiter, wheel kinematics and drive. */
#include "phys_robot.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "phys_ball.h"
#include "phys_check.h"

void
phys_robot_def_default (sim_robot_specs_t *s)
{
    *s = (sim_robot_specs_t) {
        .radius = 0.09,
        .height = 0.15,
        .mass = 2.5,
        .inertia_z = 0,
        .center_to_dribbler = 0.075,
        .dribbler_width = 0.07,
        .shoot_radius = 0.0965,
        .limits = { .acc_speedup_absolute_max = 3.5,
                    .acc_speedup_angular_max = 40,
                    .acc_brake_absolute_max = 5.0,
                    .acc_brake_angular_max = 40,
                    .vel_absolute_max = 3.0,
                    .vel_angular_max = 12 },
        /* CCW from robot +x: -60, -135, 135 and 60 degrees */
        .wheel_angles = { .front_right = -1.0471975511965976,
                          .back_right = -2.356194490192345,
                          .back_left = 2.356194490192345,
                          .front_left = 1.0471975511965976 },
        .drive = { .model = SIM_DRIVE_WHEELS,
                   .wheel_radius = 0.027,
                   .wheel_mount_radius = 0.0875,
                   .max_wheel_speed = 5.0,
                   .max_wheel_force = 6.0,
                   .velocity_gain = 60,
                   .mu_drive = 0.8,
                   .mu_lateral = 0.05,
                   .coast_decel = 8.0,
                   .coast_angular_decel = 50 },
        .kicker = { .max_linear_speed = 6.5,
                    .max_chip_speed = 5.5,
                    .min_speed = 0.05,
                    .charge_time = 0.1,
                    .max_ball_height = 0.05,
                    .incoming_damping = 1.0 },
        .dribbler = { .max_speed_rpm = 10000,
                      .hold_accel = 3.0,
                      .hold_accel_stddev = 1.0,
                      .hold_accel_min = 1.5,
                      .roller_radius = 0.007,
                      .seat_depth = 0.0,
                      .glue = false },
    };
}

int
phys_specs_check (const sim_robot_specs_t *s, const char *prefix, char *err, size_t err_len)
{
    const sim_limits_t *l = &s->limits;
    const sim_drive_t *d = &s->drive;
    const sim_kicker_t *k = &s->kicker;
    const sim_dribbler_t *b = &s->dribbler;
    const double lim = PHYS_INPUT_LIMIT;
    phys_check_t c;
    phys_check_init (&c, err, err_len, prefix);
    phys_check_range (&c, "radius", s->radius, 0.02, true, lim, false, "m");
    phys_check_range (&c, "height", s->height, 0.02, true, lim, false, "m");
    phys_check_range (&c, "mass", s->mass, 0.1, true, lim, false, "kg");
    PHYS_CHECK_NONNEG (&c, "inertia_z", s->inertia_z, "kg m^2");
    phys_check_range (&c, "center_to_dribbler", s->center_to_dribbler, 0, true, s->radius, true,
                      "m (below radius)");
    PHYS_CHECK_POS (&c, "dribbler_width", s->dribbler_width, "m");
    PHYS_CHECK_POS (&c, "shoot_radius", s->shoot_radius, "m");
    PHYS_CHECK_POS (&c, "limits.acc_speedup_absolute_max", l->acc_speedup_absolute_max, "m/s^2");
    PHYS_CHECK_POS (&c, "limits.acc_speedup_angular_max", l->acc_speedup_angular_max, "rad/s^2");
    PHYS_CHECK_POS (&c, "limits.acc_brake_absolute_max", l->acc_brake_absolute_max, "m/s^2");
    PHYS_CHECK_POS (&c, "limits.acc_brake_angular_max", l->acc_brake_angular_max, "rad/s^2");
    PHYS_CHECK_POS (&c, "limits.vel_absolute_max", l->vel_absolute_max, "m/s");
    PHYS_CHECK_POS (&c, "limits.vel_angular_max", l->vel_angular_max, "rad/s");
    PHYS_CHECK_ANY (&c, "wheel_angles.front_right", s->wheel_angles.front_right, "rad");
    PHYS_CHECK_ANY (&c, "wheel_angles.back_right", s->wheel_angles.back_right, "rad");
    PHYS_CHECK_ANY (&c, "wheel_angles.back_left", s->wheel_angles.back_left, "rad");
    PHYS_CHECK_ANY (&c, "wheel_angles.front_left", s->wheel_angles.front_left, "rad");
    phys_check_that (&c, d->model == SIM_DRIVE_WHEELS || d->model == SIM_DRIVE_IDEAL, "drive.model",
                     (double) d->model, "is no drive model (wheels 0, ideal 1)");
    PHYS_CHECK_POS (&c, "drive.wheel_radius", d->wheel_radius, "m");
    PHYS_CHECK_POS (&c, "drive.wheel_mount_radius", d->wheel_mount_radius, "m");
    PHYS_CHECK_NONNEG (&c, "drive.max_wheel_speed", d->max_wheel_speed, "m/s");
    PHYS_CHECK_NONNEG (&c, "drive.max_wheel_force", d->max_wheel_force, "N");
    PHYS_CHECK_NONNEG (&c, "drive.velocity_gain", d->velocity_gain, "N s/m");
    PHYS_CHECK_NONNEG (&c, "drive.mu_drive", d->mu_drive, "");
    PHYS_CHECK_NONNEG (&c, "drive.mu_lateral", d->mu_lateral, "");
    PHYS_CHECK_NONNEG (&c, "drive.coast_decel", d->coast_decel, "m/s^2");
    PHYS_CHECK_NONNEG (&c, "drive.coast_angular_decel", d->coast_angular_decel, "rad/s^2");
    PHYS_CHECK_POS (&c, "kicker.max_linear_speed", k->max_linear_speed, "m/s");
    PHYS_CHECK_POS (&c, "kicker.max_chip_speed", k->max_chip_speed, "m/s");
    PHYS_CHECK_NONNEG (&c, "kicker.min_speed", k->min_speed, "m/s");
    PHYS_CHECK_NONNEG (&c, "kicker.charge_time", k->charge_time, "s");
    PHYS_CHECK_POS (&c, "kicker.max_ball_height", k->max_ball_height, "m");
    PHYS_CHECK_UNIT (&c, "kicker.incoming_damping", k->incoming_damping);
    PHYS_CHECK_POS (&c, "dribbler.max_speed_rpm", b->max_speed_rpm, "rpm");
    PHYS_CHECK_NONNEG (&c, "dribbler.hold_accel", b->hold_accel, "m/s^2");
    PHYS_CHECK_NONNEG (&c, "dribbler.hold_accel_stddev", b->hold_accel_stddev, "m/s^2");
    PHYS_CHECK_NONNEG (&c, "dribbler.hold_accel_min", b->hold_accel_min, "m/s^2");
    PHYS_CHECK_NONNEG (&c, "dribbler.roller_radius", b->roller_radius, "m");
    PHYS_CHECK_NONNEG (&c, "dribbler.seat_depth", b->seat_depth, "m");
    return c.ok ? 0 : -1;
}

int
phys_specs_validate (const sim_robot_specs_t *s)
{
    return phys_specs_check (s, NULL, NULL, 0);
}

double
phys_specs_inertia (const sim_robot_specs_t *s)
{
    return s->inertia_z > 0 ? s->inertia_z : 0.5 * s->mass * s->radius * s->radius;
}

void
phys_wheels_init (phys_wheels_t *w, const sim_robot_specs_t *s)
{
    const double phi[4] = { s->wheel_angles.front_right, s->wheel_angles.back_right,
                            s->wheel_angles.back_left, s->wheel_angles.front_left };
    for (int i = 0; i < 4; i++) {
        w->s[i] = sin (phi[i]);
        w->c[i] = cos (phi[i]);
    }
    w->mount = s->drive.wheel_mount_radius;
}

void
phys_wheels_ik (const phys_wheels_t *w, double vx, double vy, double omega, double u[4])
{
    double rw = w->mount * omega;
    for (int i = 0; i < 4; i++)
        u[i] = -vx * w->s[i] + vy * w->c[i] + rw;
}

int
phys_wheels_fk (const phys_wheels_t *w, const double u[4], double *vx, double *vy, double *omega)
{
    /* Normal equations (AᵀA) x = Aᵀu with rows a_i = (-sin, cos, R_m). */
    double m[3][4] = { { 0 } };
    for (int i = 0; i < 4; i++) {
        double a[3] = { -w->s[i], w->c[i], w->mount };
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                m[r][c] += a[r] * a[c];
            m[r][3] += a[r] * u[i];
        }
    }
    for (int col = 0; col < 3; col++) {
        int piv = col;
        for (int r = col + 1; r < 3; r++)
            if (fabs (m[r][col]) > fabs (m[piv][col]))
                piv = r;
        if (fabs (m[piv][col]) < 1e-12) {
            *vx = *vy = *omega = 0;
            return -1;
        }
        if (piv != col)
            for (int c = 0; c < 4; c++) {
                double t = m[col][c];
                m[col][c] = m[piv][c];
                m[piv][c] = t;
            }
        for (int r = col + 1; r < 3; r++) {
            double f = m[r][col] / m[col][col];
            for (int c = col; c < 4; c++)
                m[r][c] -= f * m[col][c];
        }
    }
    double x[3];
    for (int r = 2; r >= 0; r--) {
        double acc = m[r][3];
        for (int c = r + 1; c < 3; c++)
            acc -= m[r][c] * x[c];
        x[r] = acc / m[r][r];
    }
    *vx = x[0];
    *vy = x[1];
    *omega = x[2];
    return 0;
}

void
phys_limiter_step (const sim_robot_specs_t *s, double sp[3], const double *target, double dt)
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

#ifdef __SSE2__
/* max (-lim, min (lim, x)) per lane: the scalar x > lim ? lim : x < -lim ?
   -lim : x for lim >= 0, NaN passing through (minpd/maxpd return their
   second operand when unordered). */
static inline __m128d
s_clamp2 (__m128d x, __m128d lim, __m128d neg_lim)
{
    return _mm_max_pd (neg_lim, _mm_min_pd (lim, x));
}
#endif

void
phys_drive_wheels (const sim_robot_specs_t *s, const phys_wheels_t *w, const double sp[3], double vx,
                   double vy, double omega, double *fx, double *fy, double *torque)
{
    const sim_drive_t *d = &s->drive;
    double N = s->mass * PHYS_GRAVITY / 4;
    double Ft = d->mu_drive * N, Fl = d->mu_lateral * N;
    double fmax = d->max_wheel_force < Ft ? d->max_wheel_force : Ft;
    double umax = d->max_wheel_speed, kv = d->velocity_gain;
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
    __m128d tx[2], ty[2], F[2];
    for (int h = 0; h < 2; h++) {
        __m128d si = _mm_loadu_pd (&w->s[2 * h]), ci = _mm_loadu_pd (&w->c[2 * h]);
        __m128d us = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nsp0, si), _mm_mul_pd (sp1, ci)), rwsp);
        us = s_clamp2 (us, um, num);
        __m128d ua = _mm_add_pd (_mm_add_pd (_mm_mul_pd (nvx, si), _mm_mul_pd (vvy, ci)), rww);
        __m128d f = s_clamp2 (_mm_mul_pd (kvv, _mm_sub_pd (us, ua)), fm, nfm);
        __m128d r = _mm_div_pd (_mm_add_pd (_mm_mul_pd (vvx, ci), _mm_mul_pd (vvy, si)), slip);
        __m128d flat = _mm_mul_pd (nfl, s_clamp2 (r, one, none));
        __m128d nf = _mm_xor_pd (f, sign);
        tx[h] = _mm_add_pd (_mm_mul_pd (nf, si), _mm_mul_pd (flat, ci));
        ty[h] = _mm_add_pd (_mm_mul_pd (f, ci), _mm_mul_pd (flat, si));
        F[h] = f;
    }
    for (int h = 0; h < 2; h++) {
        bx = (bx + _mm_cvtsd_f64 (tx[h])) + _mm_cvtsd_f64 (_mm_unpackhi_pd (tx[h], tx[h]));
        by = (by + _mm_cvtsd_f64 (ty[h])) + _mm_cvtsd_f64 (_mm_unpackhi_pd (ty[h], ty[h]));
        sumF = (sumF + _mm_cvtsd_f64 (F[h])) + _mm_cvtsd_f64 (_mm_unpackhi_pd (F[h], F[h]));
    }
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
