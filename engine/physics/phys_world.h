/*  phys_world.h - the simulated world: field, ball, robots, clock and
    physics RNG stream (spec/physics.md). A pure library: no I/O, no clock,
    no globals; every call takes the world it works on.

    The physics service owns one world, applies commands, teleports and
    configuration changes between substeps, calls phys_world_step once per
    substep and reads snapshots and events after it.
*/
#ifndef PHYS_WORLD_H_INCLUDED
#define PHYS_WORLD_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/base/sim_params.h"
#include "common/base/sim_snapshot.h"

typedef struct phys_world_t phys_world_t;

/* The [realism] keys physics reads (physics.md §8.3, §9.8). */
typedef struct {
    bool simulate_dribbling;      /* false: every dribbler glues the ball */
    double kick_direction_stddev; /* rad */
    double chip_angle_stddev;     /* rad */
    double kick_speed_factor_stddev;
} phys_realism_def_t;

/* Everything a world is made from (Box2D style: fill with
   phys_world_def_default, change what differs). The physics service fills
   it from the configuration (phys_world_def_from_config, phys_def.h). */
typedef struct {
    double substep;         /* s, in (0, 1], at least 1 ns once rounded to ns */
    uint64_t seed;          /* of the physics RNG stream */
    double command_timeout; /* s, >= 0: a robot without commands coasts after it */
    double wall_height;     /* m, >= 0: boundary boards */
    int robots_per_team;    /* spawned in formation; clamped to 0..16 */
    sim_field_t field;      /* resolved sizes, every one > 0 */
    sim_ball_cfg_t ball;
    sim_contact_cfg_t contact;
    sim_robot_specs_t team[2]; /* team default specs by sim_team_t; dribbler.glue
                                       is replaced by !realism.simulate_dribbling */
    phys_realism_def_t realism;
} phys_world_def_t;

/* Fill every field of *def with its documented default (spec/config.md:
   the same values as the configuration table's defaults, the division A
   field). */
void phys_world_def_default (phys_world_def_t *def);

/* The realism part alone, as phys_world_def_default fills it. */
void phys_realism_def_default (phys_realism_def_t *def);

/* The keys physics reads out of a whole [realism] table. */
void phys_realism_def_pick (phys_realism_def_t *def, const sim_realism_t *realism);

/* Create a world from *def (copied; the caller keeps it): field, walls,
   ball at the centre spot, formations (physics.md §4). Returns NULL when
   a value is invalid (non-finite or out of range, invalid team specs),
   with "<field> <value> out of range ..." written into err (err_len
   bytes; err may be NULL), or when memory runs out ("out of memory"). */
phys_world_t *phys_world_new (const phys_world_def_t *def, char *err, size_t err_len);

/* Free the world and null *self_p; safe on NULL and twice. */
void phys_world_destroy (phys_world_t **self_p);

/* Deep copy including the RNG state and pending events (checkpoints).
   Returns NULL when memory runs out; the caller owns the copy. */
phys_world_t *phys_world_dup (const phys_world_t *self);

/* Checkpoint image: the whole world (RNG state, pending events, caches)
   as flat bytes, meaningful to the same build only. phys_world_image_size
   is its length; phys_world_save writes it into buf (that many bytes,
   caller-owned). phys_world_load checks the length and the image's
   consistency (counts, indices, finite state, valid specs) and returns a
   new world the caller owns, or NULL for a bad image. */
size_t phys_world_image_size (void);
void phys_world_save (const phys_world_t *self, void *buf);
phys_world_t *phys_world_load (const void *buf, size_t len);

/* Run exactly one substep (physics.md §2). */
void phys_world_step (phys_world_t *self);

/* Simulation time (ns) and substeps done since creation. */
uint64_t phys_world_time_ns (const phys_world_t *self);
uint64_t phys_world_frame (const phys_world_t *self);
/* The substep length in ns. */
uint64_t phys_world_dt_ns (const phys_world_t *self);

/* Fill *out with the current state (robots in iteration order, at most
   SIM_SNAPSHOT_MAX_ROBOTS of them). */
void phys_world_snapshot (const phys_world_t *self, sim_snapshot_t *out);

/* FNV-1a 64 state hash of physics.md §11.3. */
uint64_t phys_world_hash (const phys_world_t *self);

/* Number of robots present (both teams). */
int phys_world_robot_count (const phys_world_t *self);

typedef enum {
    PHYS_OK = 0,
    PHYS_ERR_PARTIAL_COORD,
    PHYS_ERR_VELOCITY_FORCE,
    PHYS_ERR_TELEPORT_SAFELY_PARTIAL,
    PHYS_ERR_CREATE_NOPOS_ROBOT,
    PHYS_ERR_INVALID_SPEC,
    PHYS_ERR_UNKNOWN_ROBOT,
    PHYS_ERR_UNSUPPORTED
} phys_err_t;

/* The protocol.md §6 code string ("PARTIAL_COORD", ...); "" for PHYS_OK.
   Static string. */
const char *phys_err_code (phys_err_t err);

typedef enum { PHYS_MOVE_NONE = 0, PHYS_MOVE_LOCAL, PHYS_MOVE_GLOBAL, PHYS_MOVE_WHEELS } phys_move_t;

typedef struct {
    phys_move_t move;
    double v[4];           /* local: forward, left, angular; global: x, y, angular;
                               wheels: front_right, back_right, back_left, front_left (m/s) */
    double kick_speed;     /* m/s, <= 0 none */
    double kick_angle_deg; /* > 0 chip */
    double dribbler_rpm;   /* <= 0 off */
} phys_command_t;

/* Replace robot (team, id)'s command (physics.md §6.4), stamped with the
   current time. PHYS_ERR_UNKNOWN_ROBOT for a bad team, a missing robot or
   id > 255; PHYS_ERR_UNSUPPORTED for non-finite values or an unknown move
   kind. On error the world is unchanged. */
phys_err_t phys_world_command (phys_world_t *self, sim_team_t team, unsigned id, const phys_command_t *cmd);

/* Break-beam state of a robot as of the last substep; -1 if no such robot. */
int phys_world_ball_contact (const phys_world_t *self, sim_team_t team, unsigned id);

typedef struct {
    bool has_x, has_y, has_z, has_vx, has_vy, has_vz;
    double x, y, z, vx, vy, vz;
    bool teleport_safely, roll, by_force;
} phys_ball_teleport_t;

/* Ball teleport with the validation of protocol.md §4.2 and the semantics
   of physics.md §10.1. Non-finite values give PHYS_ERR_UNSUPPORTED. On
   error the world is unchanged. */
phys_err_t phys_world_teleport_ball (phys_world_t *self, const phys_ball_teleport_t *t);

typedef struct {
    sim_team_t team;
    unsigned id;
    bool has_x, has_y, has_orientation, has_vx, has_vy, has_omega, has_present;
    double x, y, orientation, vx, vy, omega;
    bool present, by_force;
} phys_robot_teleport_t;

/* Robot teleport, creation and removal (protocol.md §4.2, physics.md
   §10.2). A bad team or id > 255 gives PHYS_ERR_UNSUPPORTED; non-finite
   values PHYS_ERR_UNSUPPORTED. On error the world is unchanged. */
phys_err_t phys_world_teleport_robot (phys_world_t *self, const phys_robot_teleport_t *t);

/* Bits of phys_spec_update_t.mask: the wire-settable spec fields
   (protocol.md §4.3). PHYS_SPEC_ALL replaces every field of the specs. */
#define PHYS_SPEC_RADIUS                   (1ull << 0)
#define PHYS_SPEC_HEIGHT                   (1ull << 1)
#define PHYS_SPEC_MASS                     (1ull << 2)
#define PHYS_SPEC_CENTER_TO_DRIBBLER       (1ull << 3)
#define PHYS_SPEC_MAX_LINEAR_KICK_SPEED    (1ull << 4)
#define PHYS_SPEC_MAX_CHIP_KICK_SPEED      (1ull << 5)
#define PHYS_SPEC_ACC_SPEEDUP_ABSOLUTE_MAX (1ull << 6)
#define PHYS_SPEC_ACC_SPEEDUP_ANGULAR_MAX  (1ull << 7)
#define PHYS_SPEC_ACC_BRAKE_ABSOLUTE_MAX   (1ull << 8)
#define PHYS_SPEC_ACC_BRAKE_ANGULAR_MAX    (1ull << 9)
#define PHYS_SPEC_VEL_ABSOLUTE_MAX         (1ull << 10)
#define PHYS_SPEC_VEL_ANGULAR_MAX          (1ull << 11)
#define PHYS_SPEC_WHEEL_FRONT_RIGHT        (1ull << 12)
#define PHYS_SPEC_WHEEL_BACK_RIGHT         (1ull << 13)
#define PHYS_SPEC_WHEEL_BACK_LEFT          (1ull << 14)
#define PHYS_SPEC_WHEEL_FRONT_LEFT         (1ull << 15)
#define PHYS_SPEC_SHOOT_RADIUS             (1ull << 16)
#define PHYS_SPEC_DRIBBLER_WIDTH           (1ull << 17)
#define PHYS_SPEC_ALL                      (1ull << 63)

/* Partial spec update (protocol.md §4.3): only fields whose bit is set in
   `mask` are merged from `v` (wheel angles CCW, already negated from the
   wire). */
typedef struct {
    uint64_t mask;
    sim_robot_specs_t v;
} phys_spec_update_t;

/* Merge into robot (team, id) if it exists (validate, INVALID_SPEC on
   failure, holding-budget deviation kept), then into the team default.
   Returns the first error; a bad team or id > 255 gives UNSUPPORTED. On
   INVALID_SPEC, why[why_len] (may be NULL/0) names the refused field, its
   value and the range it must lie in. */
phys_err_t phys_world_update_specs (phys_world_t *self, sim_team_t team, unsigned id,
                                    const phys_spec_update_t *u, char *why, size_t why_len);

/* Current specs of robot (team, id), NULL if absent. Borrowed pointer,
   valid until the world changes. */
const sim_robot_specs_t *phys_world_robot_specs (const phys_world_t *self, sim_team_t team, unsigned id);

/* Replace the field (resolved sizes, every one > 0): walls rebuilt with the
   current wall height, nothing moved. Returns PHYS_ERR_UNSUPPORTED (world
   unchanged) for non-finite or non-positive sizes. */
phys_err_t phys_world_set_field (phys_world_t *self, const sim_field_t *field);

/* The field in force. */
const sim_field_t *phys_world_field (const phys_world_t *self);

/* Replace the realism keys: glue = !simulate_dribbling written into every
   robot and both team defaults (physics.md §9.8); kick error deviations.
   Non-finite or huge deviations are ignored (world unchanged). */
void phys_world_set_realism (phys_world_t *self, const phys_realism_def_t *realism);

/* Team default specs (used for robots created later). Borrowed pointer. */
const sim_robot_specs_t *phys_world_team_specs (const phys_world_t *self, sim_team_t team);

typedef enum {
    PHYS_EVENT_KICK = 1,
    PHYS_EVENT_GOAL,
    PHYS_EVENT_BALL_LEFT_FIELD,
    PHYS_EVENT_DRIBBLER_SLIP,
    PHYS_EVENT_ROBOT_COLLISION
} phys_event_kind_t;

/* team/id: the robot (Kick, DribblerSlip, collision robot a) or, for Goal,
   team = the conceding team; -1 where not used. */
typedef struct {
    phys_event_kind_t kind;
    uint64_t time_ns; /* start time of the substep that raised it */
    int team, id, other_team, other_id;
    double speed, elevation_deg;
} phys_event_t;

/* Events of the last substep; *events valid until the next step. Returns
   the count. */
int phys_world_events (const phys_world_t *self, const phys_event_t **events);

/* Direct read access for tools and tests. */
void phys_world_ball (const phys_world_t *self, sim_ball_state_t *out);

/* Robot state (same fields as a snapshot entry); -1 if absent, else 0. */
int phys_world_robot (const phys_world_t *self, sim_team_t team, unsigned id, sim_robot_state_t *out);

/* The dribbler holding budget drawn for a robot (physics.md §9.7); NAN if
   absent. */
double phys_world_robot_hold_accel (const phys_world_t *self, sim_team_t team, unsigned id);

/* Whether robot (team, id) currently holds the ball with its dribbler. */
bool phys_world_robot_holding (const phys_world_t *self, sim_team_t team, unsigned id);

#endif
