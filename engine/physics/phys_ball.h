/*  phys_ball.h - the closed-form ball model of physics.md §5: two-phase
    slide/roll on a floor with a speed-dependent rolling law, chip hops
    with first-hop and later-hop damping, rest snapping, plus the
    prediction helpers of §5.4.

    Every function is pure: a state and the [ball] parameters in, a state
    out. The world advances the ball by rebuilding the trajectory from the
    current state every substep (and between contacts).
*/
#ifndef PHYS_BALL_H_INCLUDED
#define PHYS_BALL_H_INCLUDED

#include <stdbool.h>

#include "common/base/sim_params.h"

#define PHYS_GRAVITY 9.81

/* Ball state: centre position, velocity, spin (physics.md §5.1; spin is
   the contact point's velocity as a linear speed, rolling when v_xy = s). */
typedef struct {
    double x, y, z;
    double vx, vy, vz;
    double sx, sy;
} phys_ball_state_t;

/* Advance *st by t >= 0 seconds on a supporting floor at height `floor`
   (0 = carpet), following the trajectory construction of §5.2-§5.5. */
void phys_ball_advance (const sim_ball_cfg_t *cfg, phys_ball_state_t *st, double floor, double t);

/* Rolling deceleration law (§5.3): with start speed V, the time to rest
   (INFINITY when the ball never rests) and the stopping distance. */
double phys_ball_roll_rest_time (const sim_ball_cfg_t *cfg, double V);
double phys_ball_roll_distance (const sim_ball_cfg_t *cfg, double V);

/* Advertised constant rolling deceleration acc_roll - b * advertise_roll_speed
   (negative, m/s²). */
double phys_ball_advertised_roll_acc (const sim_ball_cfg_t *cfg);

/* Published k_switch = 1 / (1 + inertia_distribution). */
double phys_ball_k_switch (const sim_ball_cfg_t *cfg);

/* Total straight distance of a spin-free flat kick at speed v0 (§5.4). */
double phys_ball_kick_distance (const sim_ball_cfg_t *cfg, double v0);

/* Kick speed whose total distance is d (bisection on the monotone
   distance; closed form for b = 0). Returns -1 if d cannot be reached
   below 100 m/s or is negative. */
double phys_ball_kick_speed_for_distance (const sim_ball_cfg_t *cfg, double d);

/* Speed of a spin-free flat kick of speed v0 after travelling distance d
   (0 if it rests before). */
double phys_ball_speed_at_distance (const sim_ball_cfg_t *cfg, double v0, double d);

/* Kick speed so that the ball still moves at v_end after distance d
   (closed form when roll_speed_coefficient is 0, else bisection). Returns
   -1 when not reachable below 100 m/s or for negative inputs. */
double phys_ball_kick_speed_for_end_speed (const sim_ball_cfg_t *cfg, double d, double v_end);

/* Chip speed so that touchdown n (0 = first) lands at distance d for
   elevation theta (rad); and chip speed for apex height h. */
double phys_ball_chip_speed_for_distance (const sim_ball_cfg_t *cfg, double d, double theta, int n);
double phys_ball_chip_speed_for_height (double h, double theta);

#endif
