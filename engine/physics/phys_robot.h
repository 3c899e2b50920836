/*  phys_robot.h - robot spec validation (physics.md §6.1), the firmware
    limiter (§6.6), wheel kinematics and the wheels drive model (§6.7).
    Pure functions on plain structs; the world keeps the robots.
*/
#ifndef PHYS_ROBOT_H_INCLUDED
#define PHYS_ROBOT_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "common/base/sim_params.h"

/* Fill *s with the documented default specs (config.md §3.4, the same
   values as the configuration table's [blue] / [yellow] defaults). */
void phys_robot_def_default (sim_robot_specs_t *s);

/* Validate specs (§6.1 plus the config.md §3.4 ranges, all values finite).
   Returns 0 when valid, -1 otherwise. */
int phys_specs_validate (const sim_robot_specs_t *s);

/* phys_specs_validate that also says what it refused: on -1 writes
   "<prefix><field> <value> out of range ..." into err (err_len bytes; err
   may be NULL; prefix may be NULL). */
int phys_specs_check (const sim_robot_specs_t *s, const char *prefix, char *err, size_t err_len);

/* Effective moment of inertia: inertia_z, or ½ m R² when unset (<= 0). */
double phys_specs_inertia (const sim_robot_specs_t *s);

/* Wheel geometry cached from the specs: drive direction (-sin φ, cos φ)
   and axle direction (cos φ, sin φ) per wheel in protocol order. */
typedef struct {
    double s[4], c[4];
    double mount; /* wheel_mount_radius */
} phys_wheels_t;

void phys_wheels_init (phys_wheels_t *w, const sim_robot_specs_t *s);

/* Surface speeds of the four wheels for a local twist (vx, vy, omega). */
void phys_wheels_ik (const phys_wheels_t *w, double vx, double vy, double omega, double u[4]);

/* Least-squares twist for four wheel speeds (§6.4); returns -1 and a zero
   twist when the geometry is singular (pivot < 1e-12), else 0. */
int phys_wheels_fk (const phys_wheels_t *w, const double u[4], double *vx, double *vy, double *omega);

/* One limiter step (§6.6) of the local setpoint sp[3] = (vx, vy, omega)
   toward target[3] (NULL = no target: coast at the drive's coast rates). */
void phys_limiter_step (const sim_robot_specs_t *s, double sp[3], const double *target, double dt);

/* Wheels drive (§6.7): local body force (fx, fy) and torque for setpoint
   sp[3] and actual local velocity (vx, vy, omega), with per-wheel wheel
   speed, force and traction clamps and roller friction. */
void phys_drive_wheels (const sim_robot_specs_t *s, const phys_wheels_t *w, const double sp[3], double vx,
                        double vy, double omega, double *fx, double *fy, double *torque);

#endif
