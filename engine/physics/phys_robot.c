/*  phys_robot.c - robot specs, limiter, wheel kinematics and drive. */
#include "phys_robot.h"

#include <math.h>

#include "phys_ball.h"
#include "phys_check.h"
#include "phys_drive.h"

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
    phys_limiter_kernel (s, sp, target, dt);
}

void
phys_drive_wheels (const sim_robot_specs_t *s, const phys_wheels_t *w, const double sp[3], double vx,
                   double vy, double omega, double *fx, double *fy, double *torque)
{
    phys_drive_consts_t k;
    phys_drive_consts_init (&k, s);
    phys_drive_kernel (&k, w, sp, vx, vy, omega, fx, fy, torque);
}
