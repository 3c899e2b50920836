/*  sim_snapshot.h - one instant of the world as the services outside physics
    see it (spec/README.md "Snapshots"). Plain data in SI units; physics core
    fills it, vision model and legacy-grsim read it, the bus codec carries it.
*/
#ifndef SIM_SNAPSHOT_H_INCLUDED
#define SIM_SNAPSHOT_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#define SIM_SNAPSHOT_MAX_ROBOTS 64

typedef struct {
    double x, y, z;                 /* centre, m */
    double vx, vy, vz;              /* m/s */
    double spin_x, spin_y;          /* m/s, physics.md §5.1 */
} sim_ball_state_t;

typedef struct {
    int team;                       /* sim_team_t */
    int id;                         /* 0..255 */
    double x, y, orientation;       /* m, rad in (-pi, pi] */
    double vx, vy, omega;           /* world frame, m/s, rad/s */
    bool ball_contact;              /* break-beam, physics.md §9.6 */
    double radius, height;          /* from the robot's specs, m */
} sim_robot_state_t;

typedef struct {
    uint64_t time_ns;               /* sim time of this state */
    sim_ball_state_t ball;
    int robot_count;
    /* in iteration order: blue 0..255, then yellow 0..255 */
    sim_robot_state_t robots[SIM_SNAPSHOT_MAX_ROBOTS];
} sim_snapshot_t;

#endif
