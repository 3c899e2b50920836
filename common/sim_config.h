/*  sim_config.h - the effective configuration of ssl-sim as plain structs.

    Every section and key of spec/config.md §3 has a field here, in SI units
    (seconds, metres, radians). The structs carry no behaviour: defaults,
    parsing, ranges, presets and the INI dump live in config*.c, driven by
    one table (config_keys.c). The pure cores (physics core/, vision
    model/) read these structs directly, so a value has exactly one
    definition in the whole project.
*/
#ifndef SIM_CONFIG_H_INCLUDED
#define SIM_CONFIG_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#define SIM_MAX_CAMERAS      8      /* [camera N] sections kept (index order) */
#define SIM_MAX_OUTAGES      16     /* [outage N] sections kept */
#define SIM_MAX_PHASE_OFFSETS SIM_MAX_CAMERAS
#define SIM_MAX_ROBOTS_PER_TEAM 16  /* spawned by formations */
#define SIM_MAX_ROBOT_ID     255    /* highest robot number on the wire */
#define SIM_STRING_MAX       256

typedef enum { SIM_TEAM_BLUE = 0, SIM_TEAM_YELLOW = 1 } sim_team_t;
typedef enum { SIM_DIVISION_A = 0, SIM_DIVISION_B = 1 } sim_division_t;
typedef enum { SIM_MODE_REALTIME = 0, SIM_MODE_FAST = 1, SIM_MODE_SYNC = 2 } sim_mode_t;
typedef enum { SIM_PHASE_LOCKED = 0, SIM_PHASE_FREE_RUNNING = 1 } sim_camera_phase_t;
typedef enum { SIM_DRIVE_WHEELS = 0, SIM_DRIVE_IDEAL = 1 } sim_drive_model_t;

/* [sim] */
typedef struct {
    double substep;                 /* s */
    uint64_t seed;
    double command_timeout;         /* s */
    double wall_height;             /* m */
    int initial_robots_per_team;    /* 0..16 */
} sim_sim_cfg_t;

/* [ball] (physics.md §5) */
typedef struct {
    double radius, mass;
    double acc_slide, acc_roll;             /* m/s², both <= 0 */
    double roll_speed_coefficient;          /* 1/s */
    double advertise_roll_speed;            /* m/s */
    double inertia_distribution;
    double chip_damping_xy_first_hop, chip_damping_xy_other_hops;
    double chip_damping_z, chip_damping_z_other_hops;
    double min_hop_height;                  /* m */
    double rest_speed;                      /* m/s */
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
    double inertia_z;               /* 0 = unset: 0.5 * mass * radius^2 */
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
    double x, y, z;                 /* true optical centre, m */
} sim_camera_cfg_t;

/* [outage N] */
typedef struct {
    double start, duration;         /* s of sim time */
} sim_outage_cfg_t;

/* [vision] plus the numbered camera and outage sections */
typedef struct {
    int default_camera_count;       /* 0 = by division */
    double default_camera_height;
    double default_camera_x_fraction;
    double fov_radius;
    sim_camera_phase_t camera_phase;
    int phase_offset_count;
    double phase_offsets[SIM_MAX_PHASE_OFFSETS];
    bool report_area;
    double area_at_nadir_px, spurious_ball_area_px;
    double spurious_ball_forward, spurious_ball_lateral_stddev;
    double robot_confidence_mean, ball_confidence_mean, confidence_stddev;
    double duplicate_robot_rate;
    double frame_rate;
    int geometry_every_n_frames;
    bool report_ball_z;
    double timestamp_epoch_offset;
    double focal_length_px;
    int camera_count;               /* explicit [camera N] sections; 0 = auto */
    sim_camera_cfg_t cameras[SIM_MAX_CAMERAS];
    int outage_count;
    sim_outage_cfg_t outages[SIM_MAX_OUTAGES];
} sim_vision_cfg_t;

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
} sim_realism_t;

/* [field] - product addition: every size 0 means "from the division";
   a runtime geometry message writes explicit values here. */
typedef struct {
    double length, width, goal_width, goal_depth, goal_height;
    double goal_wall_thickness, boundary_width;
    double penalty_area_depth, penalty_area_width;
    double center_circle_radius, line_thickness;
} sim_field_t;

/* [run] */
typedef struct {
    sim_division_t division;
    sim_mode_t mode;
    double speed;
    char realism[SIM_STRING_MAX];       /* "" = unset */
    char ball_preset[SIM_STRING_MAX];
    char robot_limits[SIM_STRING_MAX];
    char vision_addr[SIM_STRING_MAX];   /* HOST:PORT */
    bool localhost;
    bool truth;
    bool legacy_grsim;
    double duration;                    /* 0 = forever */
    char log_level[32];
} sim_run_cfg_t;

/* [network] */
typedef struct {
    char bind_address[SIM_STRING_MAX];
    int control_port, blue_port, yellow_port;
    int legacy_port, legacy_status_port_blue, legacy_status_port_yellow;
    int truth_port;
    int multicast_ttl;
    char multicast_interface[64];       /* IPv4 address; "" = system's choice */
    int port_offset;
} sim_network_cfg_t;

/* [bus] */
typedef struct {
    char cmd_bind[SIM_STRING_MAX], cmd_connect[SIM_STRING_MAX];
    char world_bind[SIM_STRING_MAX], world_connect[SIM_STRING_MAX];
    char frames_bind[SIM_STRING_MAX], frames_connect[SIM_STRING_MAX];
    double sync_timeout;                /* s */
    bool lanes;                         /* same-host datagram lanes (sim_lane.h) */
} sim_bus_cfg_t;

typedef struct {
    sim_sim_cfg_t sim;
    sim_ball_cfg_t ball;
    sim_contact_cfg_t contact;
    sim_robot_specs_t team[2];          /* indexed by sim_team_t */
    sim_vision_cfg_t vision;
    sim_realism_t realism;
    sim_field_t field;
    sim_run_cfg_t run;
    sim_network_cfg_t network;
    sim_bus_cfg_t bus;
    /* Runtime state carried with the effective configuration (not in files):
       bumped by physics when the camera rig is replaced at runtime. */
    uint32_t rig_generation;
} sim_config_t;

#endif
