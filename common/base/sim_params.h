/*  sim_params.h - the parameter tables of the models as plain structs:
    ball, contacts, robot specs, cameras, outages, realism and field sizes,
    in SI units (seconds, metres, radians), with the limits and enums they
    use.

    The configuration (sim_config.h) holds one of each, read from files and
    flags; the pure cores (physics core/, vision model/) take them inside
    their own definition structs (phys_world_def_t, vis_model_def_t) and
    never see the rest of the application configuration.
*/
#ifndef SIM_PARAMS_H_INCLUDED
#define SIM_PARAMS_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#define SIM_MAX_CAMERAS         8  /* [camera N] sections kept (index order) */
#define SIM_MAX_OUTAGES         16 /* [outage N] sections kept */
#define SIM_MAX_PHASE_OFFSETS   SIM_MAX_CAMERAS
#define SIM_MAX_ROBOTS_PER_TEAM 16  /* spawned by formations */
#define SIM_MAX_ROBOT_ID        255 /* highest robot number on the wire */

typedef enum { SIM_TEAM_BLUE = 0, SIM_TEAM_YELLOW = 1 } sim_team_t;
typedef enum { SIM_DIVISION_A = 0, SIM_DIVISION_B = 1 } sim_division_t;
typedef enum { SIM_PHASE_LOCKED = 0, SIM_PHASE_FREE_RUNNING = 1 } sim_camera_phase_t;
typedef enum { SIM_DRIVE_WHEELS = 0, SIM_DRIVE_IDEAL = 1 } sim_drive_model_t;

/* [ball] (physics.md §5) */
typedef struct {
    double radius, mass;
    double acc_slide, acc_roll;    /* m/s², both <= 0 */
    double roll_speed_coefficient; /* 1/s */
    double advertise_roll_speed;   /* m/s */
    double inertia_distribution;
    double chip_damping_xy_first_hop, chip_damping_xy_other_hops;
    double chip_damping_z, chip_damping_z_other_hops;
    double min_hop_height; /* m */
    double rest_speed;     /* m/s */
} sim_ball_cfg_t;

/* [contact] (physics.md §7) */
typedef struct {
    double ball_robot_normal, ball_robot_tangent;
    double ball_kicker_normal, ball_kicker_tangent;
    double ball_wall_normal, ball_wall_tangent;
    double spin_retention;
    double robot_robot_restitution, robot_robot_friction;
    double robot_wall_restitution;
    double ball_robot_top_normal, ball_robot_top_tangent;
    bool robot_hull_chord_contacts;
} sim_contact_cfg_t;

/* [TEAM.limits] (physics.md §6.3) */
typedef struct {
    double acc_speedup_absolute_max, acc_speedup_angular_max;
    double acc_brake_absolute_max, acc_brake_angular_max;
    double vel_absolute_max, vel_angular_max;
} sim_limits_t;

/* [TEAM.wheel_angles], CCW radians, protocol order */
typedef struct {
    double front_right, back_right, back_left, front_left;
} sim_wheel_angles_t;

/* [TEAM.drive] */
typedef struct {
    sim_drive_model_t model;
    double wheel_radius, wheel_mount_radius;
    double max_wheel_speed, max_wheel_force, velocity_gain;
    double mu_drive, mu_lateral;
    double coast_decel, coast_angular_decel;
} sim_drive_t;

/* [TEAM.kicker] */
typedef struct {
    double max_linear_speed, max_chip_speed, min_speed;
    double charge_time, max_ball_height, incoming_damping;
} sim_kicker_t;

/* [TEAM.dribbler] */
typedef struct {
    double max_speed_rpm;
    double hold_accel, hold_accel_stddev, hold_accel_min;
    double roller_radius, seat_depth;
    bool glue;
} sim_dribbler_t;

/* [blue] / [yellow]: robot specs (physics.md §6.1), also per robot at runtime */
typedef struct {
    double radius, height, mass;
    double inertia_z; /* 0 = unset: 0.5 * mass * radius^2 */
    double center_to_dribbler, dribbler_width, shoot_radius;
    sim_limits_t limits;
    sim_wheel_angles_t wheel_angles;
    sim_drive_t drive;
    sim_kicker_t kicker;
    sim_dribbler_t dribbler;
} sim_robot_specs_t;

/* [camera N] */
typedef struct {
    int id;
    double x, y, z;                /* true optical centre, m */
    double focal_length_px;        /* px; 0 = from the sensor mix or [vision] */
    int image_width, image_height; /* px; 0 = from the sensor mix or [vision] */
} sim_camera_cfg_t;

/* [outage N] */
typedef struct {
    double start, duration; /* s of sim time */
} sim_outage_cfg_t;

/* [realism] (vision.md §11); times in seconds */
typedef struct {
    double stddev_ball_p, stddev_robot_p, stddev_robot_phi, stddev_ball_area;
    bool enable_invisible_ball;
    double ball_visibility_threshold;
    double camera_overlap;
    double dribbler_ball_detections;
    double camera_position_error;
    double robot_command_loss, robot_response_loss;
    double missing_ball_detections, missing_robot_detections;
    double vision_delay, vision_processing_time;
    bool simulate_dribbling;
    double object_position_offset;
    double command_delay;
    double calibration_warp_stddev, calibration_warp_length;
    double calibration_orientation_offset, calibration_orientation_warp;
    double kick_direction_stddev, chip_angle_stddev, kick_speed_factor_stddev;
    /* vision fidelity, round 2 (docs/vision.md); each 0 turns its model off */
    double robot_marker_height_error;                         /* m, parallax between cameras */
    double vision_processing_p90, vision_processing_p99;      /* s; <= median: constant */
    double vision_processing_low_stddev;                      /* s, below the median */
    double fov_edge_radius, fov_edge_width;                   /* m, soft FOV edge (logistic) */
    double ball_loss_burst_rate, ball_loss_burst_length;      /* per frame; frames */
    double near_robot_ball_loss, near_robot_ball_loss_length; /* at contact; m */
    double ghost_ball_rate, ghost_ball_more;                  /* per frame; chance of one more */
    double ball_area_height_gain, ball_area_height_exponent;
    double capture_jitter;                           /* s, per capture instant */
    double capture_late_rate, capture_late_fraction; /* per frame; periods */
    int sensor_mix; /* camera sensors where [camera N] names none: 0 one, 1 go26, 2 rc26 */
    /* vision-processor's artefacts (docs/vision.md, "vp26"); each 0 turns its model off */
    int source;                       /* wrapper source: 0 SSL_SOURCE_OTHER, 1 vision-processor */
    double line_ghost_rate;           /* per frame: a ghost ball at a field-line crossing */
    double robot_identity_swap;       /* per robot detection: another team or id this frame */
    double close_robot_loss_distance; /* m: of two robots closer than this, one is lost */
    double camera_clock_offset;       /* s: t_capture_camera = capture + this + camera skew; 0 none */
    bool geometry_alone;              /* geometry in wrappers of its own, never with a detection */
    /* a venue's ball confidence (docs/vision.md "Confidence"); 0: [vision] ball_confidence_mean */
    double venue_ball_confidence;
    /* SSL_DetectionBall.area sent (false: the vision program sends none, as SSL-Vision at GO 2026) */
    bool report_ball_area;
    /* [vision] duplicate_robot_rate and confidence_stddev in force (false:
       no duplicate robots, every confidence its mean; the none preset) */
    bool vision_artefacts;
} sim_realism_t;

/* [field] - product addition: every size 0 means "from the division";
   a runtime geometry message writes explicit values here. */
typedef struct {
    double length, width, goal_width, goal_depth, goal_height;
    double goal_wall_thickness, boundary_width; /* boundary_width: margin along the touch lines */
    double penalty_area_depth, penalty_area_width;
    double center_circle_radius, line_thickness;
    /* the margin behind the goal lines (the walls stand there too); the
       last two are for the geometry packet only */
    double boundary_width_goal_line, goal_center_to_penalty_mark, goal_substitution_area_width;
} sim_field_t;

/* Fill *ball with the documented default ball (physics.md §5.6 "default",
   the configuration table's [ball] defaults). */
void sim_ball_default (sim_ball_cfg_t *ball);

/* Fill *realism with the documented defaults (the "realistic" preset of
   vision.md §11, the configuration table's [realism] defaults). */
void sim_realism_default (sim_realism_t *realism);

#endif
