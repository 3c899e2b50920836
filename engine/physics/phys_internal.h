/*  phys_internal.h - the world's private layout, shared by the core's own
    files (world, step, robot phase, teleport, collide, kicker, dribbler).
    Not for use outside engine/physics/.
*/
#ifndef PHYS_INTERNAL_H_INCLUDED
#define PHYS_INTERNAL_H_INCLUDED

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "phys_ball.h"
#include "phys_drive.h"
#include "phys_field.h"
#include "phys_robot.h"
#include "phys_world.h"
#include "common/base/sim_rng.h"

#define PHYS_MAX_ROBOTS     (2 * (SIM_MAX_ROBOT_ID + 1))
#define PHYS_MAX_EVENTS     640
#define PHYS_CONTACT_ROBOTS 32 /* robot contact solver limit (§7.6) */
#define PHYS_LANE_ROBOTS    32 /* robots 0..31 have their lane constants by field (phys_lanes.c) */
#define PHYS_LANE_CONSTS    23 /* the constants the lanes read per robot (phys_lanes.c) */

typedef struct {
    /* Laid out by use: what a substep reads or writes for every robot (the
       robot phase, the lanes, the contacts) comes first and together, the
       specs' head (radius .. limits) right after it, and what a substep
       reads rarely (the specs' tail, the by_force target) last, so that a
       robot's substep touches as few cache lines as it can. */
    int team, id;
    /* state */
    double x, y, theta, vx, vy, omega;
    double ct, st; /* cos / sin of theta, kept in step with it */
    double sp[3];  /* firmware setpoint, robot frame */
    /* derived from specs (refreshed whenever specs change, phys_robot_refresh) */
    phys_wheels_t wheels;
    phys_drive_consts_t drive_k;
    double inv_mass, inv_inertia;
    double cos_m;        /* cos θ_m = c2d / R */
    double half_w;       /* front half-width sqrt(R² - c2d²) */
    double coast[2];     /* specs.drive.coast_decel, coast_angular_decel */
    double charge_time;  /* specs.kicker.charge_time */
    double drib_max_rpm; /* specs.dribbler.max_speed_rpm */
    /* state */
    phys_command_t cmd;
    double cmd_twist[3]; /* least-squares twist of a wheels command */
    uint64_t command_time_ns;
    double since_kick;
    double drib_fraction;
    /* a checkpoint's image holds these: every bool and enum here and in
       phys_world_t is checked on load (s_flags_ok, phys_image.c) */
    bool force_active;
    bool charged;
    bool drib_active;
    bool holding;
    bool ball_contact;
    bool ideal; /* derived: specs.drive.model == SIM_DRIVE_IDEAL */
    sim_robot_specs_t specs;
    double hold_accel_actual; /* §9.7 */
    double force_x, force_y;
} phys_robot_t;

struct phys_world_t {
    double command_timeout; /* s */
    sim_ball_cfg_t ball_cfg;
    sim_contact_cfg_t contact;
    phys_realism_def_t realism;
    sim_robot_specs_t team_specs[2];
    phys_geom_t geom;
    uint64_t time_ns, frame, dt_ns;
    double dt;
    phys_ball_state_t ball;
    bool ball_force_active;
    double ball_force_x, ball_force_y;
    bool was_outside_field;
    int in_goal; /* goal region at the end of the last substep, -1 none */
    sim_rng_t rng;
    int robot_count;
    int16_t slot[2][SIM_MAX_ROBOT_ID + 1]; /* index into robots[], -1 absent */
    int event_count;
    phys_event_t events[PHYS_MAX_EVENTS];
    /* robot contact broad phase: robot indices sorted by x at the last
       substep (a cache; results never depend on it) */
    int sap_count;
    uint8_t sap_order[PHYS_CONTACT_ROBOTS];
    /* and its reference positions and near pairs (phys_collide_robots),
       kept across substeps while near_valid and sap_count is current */
    bool near_valid;
    double near_px[PHYS_CONTACT_ROBOTS], near_py[PHYS_CONTACT_ROBOTS];
    uint32_t near_bits[PHYS_CONTACT_ROBOTS];
    uint32_t near_rows;  /* bit i: near_bits[i] is not empty */
    uint32_t near_clear; /* bit i: robot i clear of the boards (s_clear_of_walls) */
    /* the robot lanes' constants of robots 0..PHYS_LANE_ROBOTS-1 by field
       (phys_lanes_consts; rows past the last robot repeat it), a copy of
       the robots' own values so that a register loads a field at once;
       rebuilt on the next robot phase once robots or their specs change */
    bool lane_consts_valid;
    double lane_consts[PHYS_LANE_CONSTS][PHYS_LANE_ROBOTS];
    bool exhaustive_contacts;             /* tests: robot contacts without broad phase */
    bool scalar_robots;                   /* tests: robot phase without the lanes (phys_lanes.h) */
    phys_robot_t robots[PHYS_MAX_ROBOTS]; /* iteration order: blue 0..255, yellow 0..255 */
};

/* World point (x, y) in robot r's frame. */
static inline void
phys_robot_local (const phys_robot_t *r, double x, double y, double *qx, double *qy)
{
    double dx = x - r->x, dy = y - r->y;
    *qx = r->ct * dx + r->st * dy;
    *qy = -r->st * dx + r->ct * dy;
}

/* Angle a wrapped to (-π, π]. */
static inline double
phys_angle_wrap (double a)
{
    if (a > -M_PI && a <= M_PI)
        return a; /* the usual case, as the loops below would leave it */
    if (!(fabs (a) <= 64))
        a = remainder (a, 2 * M_PI);
    while (a > M_PI)
        a -= 2 * M_PI;
    while (a <= -M_PI)
        a += 2 * M_PI;
    return a;
}

/* The robot of (team, id), NULL for a bad team, an id > SIM_MAX_ROBOT_ID
   or an absent robot. Borrowed: valid until robots are added or removed. */
static inline phys_robot_t *
phys_world_find (phys_world_t *self, int team, unsigned id)
{
    if ((team != SIM_TEAM_BLUE && team != SIM_TEAM_YELLOW) || id > SIM_MAX_ROBOT_ID)
        return NULL;
    int k = self->slot[team][id];
    return k < 0 ? NULL : &self->robots[k];
}

static inline const phys_robot_t *
phys_world_find_const (const phys_world_t *self, int team, unsigned id)
{
    return phys_world_find ((phys_world_t *) self, team, id);
}

/* Insert a robot with team default specs at rest, drawing its holding
   budget (§9.7). Returns it, or NULL if it already exists. team and id
   must be valid. */
phys_robot_t *phys_world_add_robot (phys_world_t *self, int team, int id, double x, double y, double theta);

/* Remove robot (team, id) if present; team and id must be valid. */
void phys_world_remove_robot (phys_world_t *self, int team, int id);

/* Tests only: run the robot phase on the scalar path even where the CPU
   runs the lanes (phys_lanes.h), to check both give the same
   bits. */
void phys_world_set_scalar_robots (phys_world_t *self, bool on);

/* Tests only: visit every robot pair and wall in every contact iteration
   (no broad phase), to check that the broad phase changes no result. */
void phys_world_set_exhaustive_contacts (phys_world_t *self, bool on);

/* The definition's checks (phys_world_def.c). phys_def_check: every
   value of a definition, the first refusal described in err; the others
   the same checks of a part without a message, for loaded images and
   runtime changes of field and realism. */
bool phys_def_check (const phys_world_def_t *def, char *err, size_t err_len);
bool phys_def_field_ok (const sim_field_t *f);
bool phys_def_realism_ok (const phys_realism_def_t *r);
bool phys_def_parts_ok (const sim_ball_cfg_t *ball, const sim_contact_cfg_t *contact,
                        const phys_realism_def_t *realism, const sim_field_t *field);

/* Refresh a robot's derived values after its specs changed. */
void phys_robot_refresh (phys_robot_t *r);

/* Set a robot's orientation and its cached cos/sin. */
void phys_robot_set_theta (phys_robot_t *r, double theta);
/* The least-squares twist of a wheel-speed command into r->cmd_twist
   (zero for any other command). */
void phys_robot_solve_wheels (phys_robot_t *r);

/* Append an event (dropped silently when the buffer is full). */
void phys_world_emit (phys_world_t *self, phys_event_kind_t kind, int team, int id, int other_team,
                      int other_id, double speed, double elevation_deg);

/* Robot phase (§6.10) for all robots, on the lanes where the CPU runs
   them, then their contacts (phys_robot_phase.c). */
void phys_robot_phase (phys_world_t *self);

/* Robot phase contacts (§7.6) for all robots (phys_collide_robots.c). */
void phys_collide_robots (phys_world_t *self);

/* Ball phase steps 4-6 (§7.1): depenetrate, contact loop, free advance,
   ignoring robot index `holder` (-1 none). */
void phys_collide_ball (phys_world_t *self, int holder);

/* Support floor height under the ball (§7.3). */
double phys_collide_support (const phys_world_t *self, const phys_ball_state_t *b);

/* Kicks (§8, ball phase step 1); returns the index of the last robot that
   kicked, -1 if none. */
int phys_kicker_run (phys_world_t *self);

/* Dribblers (§9, ball phase step 2); returns the holder index, -1 if none. */
int phys_dribbler_run (phys_world_t *self, int kicker);

/* Break-beam test (§9.6) for every robot. */
void phys_dribbler_break_beams (phys_world_t *self);

#endif
