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
    double x, y, z;        /* centre, m */
    double vx, vy, vz;     /* m/s */
    double spin_x, spin_y; /* m/s, physics.md §5.1 */
} sim_ball_state_t;

typedef struct {
    int team;                 /* sim_team_t */
    int id;                   /* 0..255 */
    double x, y, orientation; /* m, rad in (-pi, pi] */
    double vx, vy, omega;     /* world frame, m/s, rad/s */
    bool ball_contact;        /* break-beam, physics.md §9.6 */
    double radius, height;    /* from the robot's specs, m */
} sim_robot_state_t;

typedef struct {
    uint64_t time_ns; /* sim time of this state */
    /* Unix time (us) the wire timestamps count sim time from, 0 = none
       ([vision] timestamp_base); set by the physics service, not the core */
    int64_t epoch_us;
    /* sim_stats_wall_us when the gateway read the newest team command
       applied before this state, 0 = none: only for the command->vision
       latency in vision's Stats; set by the physics service, not the core */
    int64_t command_us;
    sim_ball_state_t ball;
    int robot_count;
    /* in iteration order: blue 0..255, then yellow 0..255 */
    sim_robot_state_t robots[SIM_SNAPSHOT_MAX_ROBOTS];
} sim_snapshot_t;

/* Something physics saw happen in a substep (sim_bus.proto Event). The
   kinds have the bus's numbers. team/id: the robot (kick, dribbler slip,
   robot a of a collision) or, for a goal, the conceding team; -1 where not
   used. */
typedef enum {
    SIM_EVENT_KICK = 1,
    SIM_EVENT_GOAL,
    SIM_EVENT_BALL_LEFT_FIELD,
    SIM_EVENT_DRIBBLER_SLIP,
    SIM_EVENT_ROBOT_COLLISION
} sim_event_kind_t;

typedef struct {
    sim_event_kind_t kind;
    uint64_t time_ns; /* start of the substep that raised it */
    int team, id, other_team, other_id;
    double speed, elevation_deg; /* kicks: m/s, degrees */
} sim_event_t;

#endif
