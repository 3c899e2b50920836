/*  config_keys_team.c - the keys of the sections a configuration has
    more than once: a robot's specs ([blue*] and [yellow*], one table at
    each team's offset, with its subsections), a numbered camera ([camera
    N]) and a numbered outage ([outage N]). Data only, read as
    config_keys.c's global table is.
*/
#include "config_key_rows.h"

#include <limits.h>

/* The tables are laid out by hand, one row per line. */
/* clang-format off */
static const sim_cfg_enum_name_t s_drive_names[] = {
    { "wheels", SIM_DRIVE_WHEELS }, { "ideal", SIM_DRIVE_IDEAL }, { NULL, 0 }
};

/* [blue*] / [yellow*]: physics.md §6.1, one table at each team's offset */
const sim_cfg_key_t sim_cfg_team_keys[] = {
    S_F ("", "radius", TOFF (radius), 0.09, R_(0.02, INFINITY, SIM_CFG_MIN_EXCL), "m",
         "robot radius"),
    S_F ("", "height", TOFF (height), 0.15, R_(0.02, INFINITY, SIM_CFG_MIN_EXCL), "m",
         "robot height (reported in detections)"),
    S_F ("", "mass", TOFF (mass), 2.5, R_(0.1, INFINITY, SIM_CFG_MIN_EXCL), "kg",
         "robot mass"),
    { .section = "", .key = "inertia_z", .type = SIM_CFG_FLOAT, .offset = TOFF (inertia_z),
      .def = 0,
      .range = { 0, INFINITY, SIM_CFG_MIN_EXCL | SIM_CFG_ZERO_UNSET }, .unit = "kg m^2",
      .help = "yaw inertia (unset or 0 = 0.5 * mass * radius^2)",
      .unset_note = "inertia_z omitted: 0.5 * mass * radius^2" },
    S_F ("", "center_to_dribbler", TOFF (center_to_dribbler), 0.075, R_GT0, "m",
         "centre to the flat front (< radius)"),
    S_F ("", "dribbler_width", TOFF (dribbler_width), 0.07, R_GT0, "m", "dribbler width"),
    S_F ("", "shoot_radius", TOFF (shoot_radius), 0.0965, R_GT0, "m",
         "seated ball centre distance (>= center_to_dribbler + ball radius - seat_depth)"),
    S_F ("limits", "acc_speedup_absolute_max", TOFF (limits.acc_speedup_absolute_max), 3.5,
         R_GT0, "m/s^2", "linear acceleration limit"),
    S_F ("limits", "acc_speedup_angular_max", TOFF (limits.acc_speedup_angular_max), 40, R_GT0,
         "rad/s^2", "angular acceleration limit"),
    S_F ("limits", "acc_brake_absolute_max", TOFF (limits.acc_brake_absolute_max), 5.0, R_GT0,
         "m/s^2", "linear braking limit"),
    S_F ("limits", "acc_brake_angular_max", TOFF (limits.acc_brake_angular_max), 40, R_GT0,
         "rad/s^2", "angular braking limit"),
    S_F ("limits", "vel_absolute_max", TOFF (limits.vel_absolute_max), 3.0, R_GT0, "m/s",
         "speed limit"),
    S_F ("limits", "vel_angular_max", TOFF (limits.vel_angular_max), 12, R_GT0, "rad/s",
         "turn rate limit"),
    S_F ("wheel_angles", "front_right", TOFF (wheel_angles.front_right), -1.0471975511965976,
         R_ANY, "rad", "CCW from robot +x (-60 deg)"),
    S_F ("wheel_angles", "back_right", TOFF (wheel_angles.back_right), -2.356194490192345, R_ANY,
         "rad", "CCW from robot +x (-135 deg)"),
    S_F ("wheel_angles", "back_left", TOFF (wheel_angles.back_left), 2.356194490192345, R_ANY,
         "rad", "CCW from robot +x (135 deg)"),
    S_F ("wheel_angles", "front_left", TOFF (wheel_angles.front_left), 1.0471975511965976,
         R_ANY, "rad", "CCW from robot +x (60 deg)"),
    S_E ("drive", "model", TOFF (drive.model), SIM_DRIVE_WHEELS, s_drive_names,
         "wheels | ideal"),
    S_F ("drive", "wheel_radius", TOFF (drive.wheel_radius), 0.027, R_GT0, "m", "wheel radius"),
    S_F ("drive", "wheel_mount_radius", TOFF (drive.wheel_mount_radius), 0.0875, R_GT0, "m",
         "centre to wheel contact"),
    S_F ("drive", "max_wheel_speed", TOFF (drive.max_wheel_speed), 5.0, R_GE0, "m/s",
         "wheel surface speed limit"),
    S_F ("drive", "max_wheel_force", TOFF (drive.max_wheel_force), 6.0, R_GE0, "N",
         "wheel force limit"),
    S_F ("drive", "velocity_gain", TOFF (drive.velocity_gain), 60, R_GE0, "N s/m",
         "wheel force per m/s of speed error"),
    S_F ("drive", "mu_drive", TOFF (drive.mu_drive), 0.8, R_GE0, "", "wheel friction along"),
    S_F ("drive", "mu_lateral", TOFF (drive.mu_lateral), 0.05, R_GE0, "",
         "wheel friction across"),
    S_F ("drive", "coast_decel", TOFF (drive.coast_decel), 8.0, R_GE0, "m/s^2",
         "deceleration without commands"),
    S_F ("drive", "coast_angular_decel", TOFF (drive.coast_angular_decel), 50, R_GE0, "rad/s^2",
         "angular deceleration without commands"),
    S_F ("kicker", "max_linear_speed", TOFF (kicker.max_linear_speed), 6.5, R_GT0, "m/s",
         "flat kick speed limit"),
    S_F ("kicker", "max_chip_speed", TOFF (kicker.max_chip_speed), 5.5, R_GT0, "m/s",
         "chip kick speed limit"),
    S_F ("kicker", "min_speed", TOFF (kicker.min_speed), 0.05, R_GE0, "m/s",
         "slower kick requests do nothing"),
    S_F ("kicker", "charge_time", TOFF (kicker.charge_time), 0.1, R_GE0, "s",
         "time between kicks"),
    S_F ("kicker", "max_ball_height", TOFF (kicker.max_ball_height), 0.05, R_GT0, "m",
         "highest ball centre the kicker reaches"),
    S_F ("kicker", "incoming_damping", TOFF (kicker.incoming_damping), 1.0, R_UNIT, "",
         "share of the incoming ball speed removed at a kick"),
    S_F ("dribbler", "max_speed_rpm", TOFF (dribbler.max_speed_rpm), 10000, R_GT0, "rpm",
         "dribbler speed limit"),
    S_F ("dribbler", "hold_accel", TOFF (dribbler.hold_accel), 3.0, R_GE0, "m/s^2",
         "mean holding acceleration"),
    S_F ("dribbler", "hold_accel_stddev", TOFF (dribbler.hold_accel_stddev), 1.0, R_GE0,
         "m/s^2", "per-robot spread of the holding acceleration"),
    S_F ("dribbler", "hold_accel_min", TOFF (dribbler.hold_accel_min), 1.5, R_GE0, "m/s^2",
         "lowest holding acceleration"),
    S_F ("dribbler", "roller_radius", TOFF (dribbler.roller_radius), 0.007, R_GE0, "m",
         "dribbler roller radius"),
    S_F ("dribbler", "seat_depth", TOFF (dribbler.seat_depth), 0.0, R_GE0, "m",
         "how deep a held ball sits in the mouth"),
    S_B ("dribbler", "glue", TOFF (dribbler.glue), false,
         "glued ball; overwritten by !realism.simulate_dribbling"),
};

/* [camera N] */
const sim_cfg_key_t sim_cfg_camera_keys[] = {
    S_I ("camera", "id", offsetof (sim_camera_cfg_t, id), 0, R_(0, INT_MAX, 0),
         "camera id (default: the section number)"),
    S_F ("camera", "x", offsetof (sim_camera_cfg_t, x), 0, R_ANY, "m", "optical centre x"),
    S_F ("camera", "y", offsetof (sim_camera_cfg_t, y), 0, R_ANY, "m", "optical centre y"),
    S_F ("camera", "z", offsetof (sim_camera_cfg_t, z), 0, R_GT0, "m", "optical centre height"),
    S_F ("camera", "focal_length_px", offsetof (sim_camera_cfg_t, focal_length_px), 0, R_GE0, "px",
         "pinhole focal length (0 = sensor mix or [vision] focal_length_px)"),
    S_I ("camera", "image_width", offsetof (sim_camera_cfg_t, image_width), 0, R_(0, 100000, 0),
         "image width (0 = sensor mix or [vision] image_width)"),
    S_I ("camera", "image_height", offsetof (sim_camera_cfg_t, image_height), 0, R_(0, 100000, 0),
         "image height (0 = sensor mix or [vision] image_height)"),
};

/* [outage N] */
const sim_cfg_key_t sim_cfg_outage_keys[] = {
    S_F ("outage", "start", offsetof (sim_outage_cfg_t, start), 0, R_GE0, "s",
         "sim time the outage starts"),
    S_F ("outage", "duration", offsetof (sim_outage_cfg_t, duration), 0, R_GE0, "s",
         "length (> 0 to be active)"),
};

const size_t sim_cfg_team_keys_count = S_COUNT (sim_cfg_team_keys);
const size_t sim_cfg_camera_keys_count = S_COUNT (sim_cfg_camera_keys);
const size_t sim_cfg_outage_keys_count = S_COUNT (sim_cfg_outage_keys);

const char *const sim_cfg_team_subsections[] = {
    "", "limits", "wheel_angles", "drive", "kicker", "dribbler"
};
const size_t sim_cfg_team_subsections_count = S_COUNT (sim_cfg_team_subsections);
/* clang-format on */
