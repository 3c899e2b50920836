/*  phys_robot.c - robot specs, limiter, wheel kinematics and drive. */
#include "phys_robot.h"

#include <math.h>

#include "phys_ball.h"

/* Spec values beyond this magnitude are refused (no physical robot has
   them, and their squares would overflow in the contact code). */
#define PHYS_SPEC_LIMIT 1e6

static bool
s_pos (double v)
{
    return isfinite (v) && v > 0 && v <= PHYS_SPEC_LIMIT;
}

static bool
s_nonneg (double v)
{
    return isfinite (v) && v >= 0 && v <= PHYS_SPEC_LIMIT;
}

static bool
s_angle (double v)
{
    return isfinite (v) && fabs (v) <= PHYS_SPEC_LIMIT;
}

int
phys_specs_validate (const sim_robot_specs_t *s)
{
    const sim_limits_t *l = &s->limits;
    const sim_drive_t *d = &s->drive;
    const sim_kicker_t *k = &s->kicker;
    const sim_dribbler_t *b = &s->dribbler;
    bool ok = s_pos (s->radius) && s->radius > 0.02
        && s_pos (s->height) && s->height > 0.02
        && s_pos (s->mass) && s->mass > 0.1
        && s_nonneg (s->inertia_z)
        && s_pos (s->center_to_dribbler) && s->center_to_dribbler < s->radius
        && s_pos (s->dribbler_width) && s_pos (s->shoot_radius)
        && s_pos (l->acc_speedup_absolute_max) && s_pos (l->acc_speedup_angular_max)
        && s_pos (l->acc_brake_absolute_max) && s_pos (l->acc_brake_angular_max)
        && s_pos (l->vel_absolute_max) && s_pos (l->vel_angular_max)
        && s_angle (s->wheel_angles.front_right) && s_angle (s->wheel_angles.back_right)
        && s_angle (s->wheel_angles.back_left) && s_angle (s->wheel_angles.front_left)
        && (d->model == SIM_DRIVE_WHEELS || d->model == SIM_DRIVE_IDEAL)
        && s_pos (d->wheel_radius) && s_pos (d->wheel_mount_radius)
        && s_nonneg (d->max_wheel_speed) && s_nonneg (d->max_wheel_force)
        && s_nonneg (d->velocity_gain) && s_nonneg (d->mu_drive) && s_nonneg (d->mu_lateral)
        && s_nonneg (d->coast_decel) && s_nonneg (d->coast_angular_decel)
        && s_pos (k->max_linear_speed) && s_pos (k->max_chip_speed) && s_nonneg (k->min_speed)
        && s_nonneg (k->charge_time) && s_pos (k->max_ball_height)
        && s_nonneg (k->incoming_damping) && k->incoming_damping <= 1
        && s_pos (b->max_speed_rpm) && s_nonneg (b->hold_accel)
        && s_nonneg (b->hold_accel_stddev) && s_nonneg (b->hold_accel_min)
        && s_nonneg (b->roller_radius) && s_nonneg (b->seat_depth);
    return ok ? 0 : -1;
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
phys_wheels_fk (const phys_wheels_t *w, const double u[4], double *vx, double *vy,
                double *omega)
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
        a_xy = tx * tx + ty * ty > sp[0] * sp[0] + sp[1] * sp[1]
            ? l->acc_speedup_absolute_max : l->acc_brake_absolute_max;
        a_w = fabs (tw) > fabs (sp[2]) ? l->acc_speedup_angular_max : l->acc_brake_angular_max;
    }
    else {
        a_xy = s->drive.coast_decel;
        a_w = s->drive.coast_angular_decel;
    }
    double dx = tx - sp[0], dy = ty - sp[1];
    double dist2 = dx * dx + dy * dy, step = a_xy * dt;
    if (dist2 <= step * step) {
        sp[0] = tx;
        sp[1] = ty;
    }
    else {
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

void
phys_drive_wheels (const sim_robot_specs_t *s, const phys_wheels_t *w, const double sp[3],
                   double vx, double vy, double omega, double *fx, double *fy, double *torque)
{
    const sim_drive_t *d = &s->drive;
    double N = s->mass * PHYS_GRAVITY / 4;
    double Ft = d->mu_drive * N, Fl = d->mu_lateral * N;
    double fmax = d->max_wheel_force < Ft ? d->max_wheel_force : Ft;
    double umax = d->max_wheel_speed, kv = d->velocity_gain;
    double rw_sp = w->mount * sp[2], rw = w->mount * omega;
    double bx = 0, by = 0, sumF = 0;
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
    *fx = bx;
    *fy = by;
    *torque = w->mount * sumF;
}
