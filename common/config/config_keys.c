/*  config_keys.c - every configuration key of spec/config.md §3 as one row:
    section, key, type, where it lives, default, range, unit, help and
    flags. Data only: config.c, config_ini.c, config_cli.c and
    config_dump.c read these rows for defaults, parsing, range errors, the
    dump, the key reference of docs/config.md and the --help defaults.

    Keys flagged local (SIM_CFG_LOCAL, the *_LOCAL row macros) describe
    this host or process, not the simulation (spec/config.md §8): every
    [bus] and [network] key, [run] log_level and [run] duration. A service
    keeps its own value of those when it adopts the effective configuration
    physics publishes. The [run] keys that steer vision's output
    (vision_addr, localhost, truth) are not local: physics can change the
    vision port at runtime (spec/config.md §6) and vision must follow.
*/
#include "config_table.h"

#include <limits.h>
#include <math.h>

/* The tables and their macros are laid out by hand, one row per line. */
/* clang-format off */
#define R_(lo_, hi_, fl_) { lo_, hi_, fl_ }
#define R_ANY  { -INFINITY, INFINITY, 0 }
#define R_GE0  { 0, INFINITY, 0 }
#define R_GT0  { 0, INFINITY, SIM_CFG_MIN_EXCL }
#define R_UNIT { 0, 1, 0 }
#define R_PORT { 1, 65535, 0 }

static const sim_cfg_enum_name_t s_division_names[] = {
    { "a", SIM_DIVISION_A }, { "b", SIM_DIVISION_B },
    { "diva", SIM_DIVISION_A }, { "div_a", SIM_DIVISION_A },
    { "divb", SIM_DIVISION_B }, { "div_b", SIM_DIVISION_B }, { NULL, 0 }
};
static const sim_cfg_enum_name_t s_mode_names[] = {
    { "realtime", SIM_MODE_REALTIME }, { "fast", SIM_MODE_FAST },
    { "sync", SIM_MODE_SYNC }, { "real-time", SIM_MODE_REALTIME },
    { "real_time", SIM_MODE_REALTIME }, { NULL, 0 }
};
static const sim_cfg_enum_name_t s_phase_names[] = {
    { "locked", SIM_PHASE_LOCKED }, { "free_running", SIM_PHASE_FREE_RUNNING },
    { "free-running", SIM_PHASE_FREE_RUNNING }, { NULL, 0 }
};
static const sim_cfg_enum_name_t s_timestamp_base_names[] = {
    { "auto", SIM_TS_AUTO }, { "unix", SIM_TS_UNIX }, { "zero", SIM_TS_ZERO }, { NULL, 0 }
};
static const sim_cfg_enum_name_t s_local_vision_names[] = {
    { "multicast", SIM_LOCAL_MULTICAST }, { "unicast", SIM_LOCAL_UNICAST }, { NULL, 0 }
};
static const sim_cfg_enum_name_t s_drive_names[] = {
    { "wheels", SIM_DRIVE_WHEELS }, { "ideal", SIM_DRIVE_IDEAL }, { NULL, 0 }
};

/* One macro per type; the *_LOCAL form flags the key SIM_CFG_LOCAL. A
   range is a braced list, so it reaches the shared form as its trailing
   arguments (__VA_ARGS__ puts the commas back). */
#define S_FX(fl_, sec_, key_, off_, def_, unit_, help_, ...) \
    { .section = sec_, .key = key_, .type = SIM_CFG_FLOAT, .offset = off_, .def = def_, \
      .range = __VA_ARGS__, .unit = unit_, .help = help_, .flags = fl_ }
#define S_IX(fl_, sec_, key_, off_, def_, help_, ...) \
    { .section = sec_, .key = key_, .type = SIM_CFG_INT, .offset = off_, .def = def_, \
      .range = __VA_ARGS__, .unit = "", .help = help_, .flags = fl_ }
#define S_BX(sec_, key_, off_, def_, help_, fl_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_BOOL, .offset = off_, .def = def_, \
      .range = R_ANY, .unit = "", .help = help_, .flags = fl_ }
#define S_SX(sec_, key_, off_, size_, def_, check_, help_, note_, fl_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_STRING, .offset = off_, .size = size_, \
      .def_text = def_, .range = R_ANY, .check = check_, .unit = "", .help = help_, \
      .unset_note = note_, .flags = fl_ }
#define S_E(sec_, key_, off_, def_, names_, help_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_ENUM, .offset = off_, .def = def_, \
      .range = R_ANY, .names = names_, .unit = "", .help = help_ }

#define S_F(sec_, key_, off_, def_, range_, unit_, help_) \
    S_FX (0, sec_, key_, off_, def_, unit_, help_, range_)
#define S_I(sec_, key_, off_, def_, range_, help_) S_IX (0, sec_, key_, off_, def_, help_, range_)
#define S_B(sec_, key_, off_, def_, help_) S_BX (sec_, key_, off_, def_, help_, 0)
#define S_S(sec_, key_, off_, size_, def_, check_, help_, note_) \
    S_SX (sec_, key_, off_, size_, def_, check_, help_, note_, 0)

#define S_F_LOCAL(sec_, key_, off_, def_, range_, unit_, help_) \
    S_FX (SIM_CFG_LOCAL, sec_, key_, off_, def_, unit_, help_, range_)
#define S_I_LOCAL(sec_, key_, off_, def_, range_, help_) \
    S_IX (SIM_CFG_LOCAL, sec_, key_, off_, def_, help_, range_)
#define S_B_LOCAL(sec_, key_, off_, def_, help_) S_BX (sec_, key_, off_, def_, help_, SIM_CFG_LOCAL)
#define S_S_LOCAL(sec_, key_, off_, size_, def_, check_, help_, note_) \
    S_SX (sec_, key_, off_, size_, def_, check_, help_, note_, SIM_CFG_LOCAL)

#define OFF(f) offsetof (sim_config_t, f)
#define SSIZE(f) sizeof (((sim_config_t *) 0)->f)
#define TOFF(f) offsetof (sim_robot_specs_t, f)

const sim_cfg_key_t sim_cfg_keys[] = {
    /* [sim] */
    S_F ("sim", "substep", OFF (sim.substep), 0.001, R_(0, 1, SIM_CFG_MIN_EXCL), "s",
         "physics substep, a multiple of 1 ns; --step-ms"),
    { .section = "sim", .key = "seed", .type = SIM_CFG_U64, .offset = OFF (sim.seed), .def = 0,
      .range = R_ANY, .unit = "", .help = "RNG seed; --seed (random only on the command line)" },
    S_F ("sim", "command_timeout", OFF (sim.command_timeout), 0.1, R_GE0, "s",
         "time without a command before a robot coasts and its dribbler stops"),
    S_F ("sim", "wall_height", OFF (sim.wall_height), 0.10, R_GE0, "m",
         "boundary-board height; a ball whose bottom is above passes"),
    S_I ("sim", "initial_robots_per_team", OFF (sim.initial_robots_per_team), 11,
         R_(0, SIM_MAX_ROBOTS_PER_TEAM, 0), "robots spawned per team; --robots"),

    /* [ball] physics.md §5 */
    S_F ("ball", "radius", OFF (ball.radius), 0.0215, R_GT0, "m", "ball radius"),
    S_F ("ball", "mass", OFF (ball.mass), 0.046, R_GT0, "kg", "ball mass"),
    S_F ("ball", "acc_slide", OFF (ball.acc_slide), -3.3, R_(-INFINITY, 0, 0),
         "m/s^2", "sliding deceleration (negative)"),
    S_F ("ball", "acc_roll", OFF (ball.acc_roll), -0.22, R_(-INFINITY, 0, 0),
         "m/s^2", "rolling deceleration at zero speed (negative)"),
    S_F ("ball", "roll_speed_coefficient", OFF (ball.roll_speed_coefficient), 0.045, R_GE0,
         "1/s", "extra rolling deceleration per m/s"),
    S_F ("ball", "advertise_roll_speed", OFF (ball.advertise_roll_speed), 1.5, R_GE0, "m/s",
         "speed at which the constant roll model is advertised"),
    S_F ("ball", "inertia_distribution", OFF (ball.inertia_distribution), 0.5, R_GT0, "",
         "I / (m r^2): 0.4 solid sphere ... 0.66 hollow"),
    S_F ("ball", "chip_damping_xy_first_hop", OFF (ball.chip_damping_xy_first_hop), 0.70,
         R_UNIT, "", "horizontal speed kept at the first bounce"),
    S_F ("ball", "chip_damping_xy_other_hops", OFF (ball.chip_damping_xy_other_hops), 0.87,
         R_UNIT, "", "horizontal speed kept at later bounces"),
    S_F ("ball", "chip_damping_z", OFF (ball.chip_damping_z), 0.46, R_UNIT, "",
         "vertical speed kept at the first bounce"),
    S_F ("ball", "chip_damping_z_other_hops", OFF (ball.chip_damping_z_other_hops), 0.40,
         R_UNIT, "", "vertical speed kept at later bounces"),
    S_F ("ball", "min_hop_height", OFF (ball.min_hop_height), 0.01, R_GE0, "m",
         "a bounce whose apex would be at most this ends the hopping"),
    S_F ("ball", "rest_speed", OFF (ball.rest_speed), 0.01, R_GE0, "m/s",
         "a rolling ball slower than this stops"),

    /* [contact] physics.md §7 */
    S_F ("contact", "ball_robot_normal", OFF (contact.ball_robot_normal), 0.5, R_UNIT, "",
         "normal damping: 1 perfectly inelastic, 0 elastic"),
    S_F ("contact", "ball_robot_tangent", OFF (contact.ball_robot_tangent), 0.3, R_UNIT, "",
         "blend of the tangential velocity toward the surface's"),
    S_F ("contact", "ball_kicker_normal", OFF (contact.ball_kicker_normal), 0.8, R_UNIT, "",
         "normal damping on the kicker face"),
    S_F ("contact", "ball_kicker_tangent", OFF (contact.ball_kicker_tangent), 0.4, R_UNIT, "",
         "tangential blend on the kicker face"),
    S_F ("contact", "ball_wall_normal", OFF (contact.ball_wall_normal), 0.5, R_UNIT, "",
         "normal damping on walls"),
    S_F ("contact", "ball_wall_tangent", OFF (contact.ball_wall_tangent), 0.0, R_UNIT, "",
         "tangential blend on walls"),
    S_F ("contact", "spin_retention", OFF (contact.spin_retention), 0.6, R_UNIT, "",
         "spin kept through a contact"),
    S_F ("contact", "robot_robot_restitution", OFF (contact.robot_robot_restitution), 0.2,
         R_UNIT, "", "robot-robot restitution"),
    S_F ("contact", "robot_robot_friction", OFF (contact.robot_robot_friction), 0.1, R_UNIT, "",
         "robot-robot friction"),
    S_F ("contact", "robot_wall_restitution", OFF (contact.robot_wall_restitution), 0.1,
         R_UNIT, "", "robot-wall restitution"),
    S_F ("contact", "ball_robot_top_normal", OFF (contact.ball_robot_top_normal), 0.54, R_UNIT,
         "", "normal damping on a robot's top"),
    S_F ("contact", "ball_robot_top_tangent", OFF (contact.ball_robot_top_tangent), 0.3,
         R_UNIT, "", "tangential blend on a robot's top"),
    S_B ("contact", "robot_hull_chord_contacts", OFF (contact.robot_hull_chord_contacts), true,
         "robot-robot contacts use the cut hull (face to face at 2 * center_to_dribbler)"),

    /* [vision] vision.md */
    S_I ("vision", "default_camera_count", OFF (vision.default_camera_count), 0, R_GE0,
         "auto-placed cameras when no [camera N]: 0 = by division (A 2, B 1); 3 => 2, > 4 => 4"),
    S_F ("vision", "default_camera_height", OFF (vision.default_camera_height), 6.4, R_GT0, "m",
         "height of the auto-placed cameras"),
    S_F ("vision", "default_camera_x_fraction", OFF (vision.default_camera_x_fraction), 0.20,
         R_(0, 0.5, 0), "", "camera x = +- fraction x field length"),
    S_F ("vision", "fov_radius", OFF (vision.fov_radius), 6.6, R_GE0, "m",
         "field-of-view disc around each nadir (0 = unlimited)"),
    S_E ("vision", "camera_phase", OFF (vision.camera_phase), SIM_PHASE_LOCKED, s_phase_names,
         "locked | free_running"),
    { .section = "vision", .key = "phase_offsets", .type = SIM_CFG_LIST,
      .offset = OFF (vision.phase_offsets), .size = SIM_MAX_PHASE_OFFSETS,
      .count_offset = OFF (vision.phase_offset_count), .range = R_ANY, .unit = "s",
      .help = "per-camera capture offsets, comma-separated (locked phase only)",
      .unset_note = "phase_offsets = 0.0, 0.00136" },
    S_F ("vision", "area_at_nadir_px", OFF (vision.area_at_nadir_px), 63.0, R_GE0, "px",
         "ball area straight below a camera"),
    S_F ("vision", "spurious_ball_area_px", OFF (vision.spurious_ball_area_px), 32.0, R_GE0,
         "px", "area of a false ball"),
    S_F ("vision", "spurious_ball_forward", OFF (vision.spurious_ball_forward), 0.13, R_ANY, "m",
         "false ball distance ahead of the robot centre"),
    S_F ("vision", "spurious_ball_lateral_stddev", OFF (vision.spurious_ball_lateral_stddev),
         0.07, R_GE0, "m", "sideways spread of false balls"),
    S_F ("vision", "robot_confidence_mean", OFF (vision.robot_confidence_mean), 0.9, R_UNIT, "",
         "mean robot detection confidence"),
    S_F ("vision", "ball_confidence_mean", OFF (vision.ball_confidence_mean), 0.9, R_UNIT, "",
         "mean ball detection confidence"),
    S_F ("vision", "confidence_stddev", OFF (vision.confidence_stddev), 0.09, R_GE0, "",
         "confidence spread"),
    S_F ("vision", "duplicate_robot_rate", OFF (vision.duplicate_robot_rate), 3e-5, R_UNIT,
         "per detection", "chance of a duplicated robot detection"),
    S_F ("vision", "frame_rate", OFF (vision.frame_rate), 73.3, R_ANY, "Hz",
         "frames per second per camera (<= 0 => 60)"),
    S_I ("vision", "geometry_every_n_frames", OFF (vision.geometry_every_n_frames), 73, R_GE0,
         "geometry packet every N camera-0 frames (0 => 1)"),
    S_B ("vision", "report_ball_z", OFF (vision.report_ball_z), false,
         "report the ball height in detections"),
    S_F ("vision", "timestamp_epoch_offset", OFF (vision.timestamp_epoch_offset), 0.0, R_GE0,
         "s", "added to t_capture, t_sent and the truth timestamp"),
    S_E ("vision", "timestamp_base", OFF (vision.timestamp_base), SIM_TS_AUTO,
         s_timestamp_base_names,
         "what t_capture, t_sent and the truth timestamp count from (auto: Unix time in "
         "realtime mode, 0 in fast and sync)"),
    S_S ("vision", "truth_uuid", OFF (vision.truth_uuid), SSIZE (vision.truth_uuid), "", NULL,
         "uuid of the truth stream (empty = from seed, port offset, control port and host name)",
         "truth_uuid = 0b5e1c3a-0000-8000-8000-000000000001 ; fixed truth source id"),
    S_F ("vision", "focal_length_px", OFF (vision.focal_length_px), 1420.0, R_GT0, "px",
         "focal length in the geometry packet and the area height term"),
    S_I ("vision", "image_width", OFF (vision.image_width), 2448, R_(1, 100000, 0),
         "image width of a camera without its own sensor (sensor_mix 0)"),
    S_I ("vision", "image_height", OFF (vision.image_height), 2048, R_(1, 100000, 0),
         "image height of a camera without its own sensor (sensor_mix 0)"),

    /* [realism] vision.md §11; defaults are the realistic preset */
    S_F ("realism", "stddev_ball_p", OFF (realism.stddev_ball_p), 0.0007, R_GE0, "m",
         "ball position noise"),
    S_F ("realism", "stddev_robot_p", OFF (realism.stddev_robot_p), 0.00042, R_GE0, "m",
         "robot position noise"),
    S_F ("realism", "stddev_robot_phi", OFF (realism.stddev_robot_phi), 0.0043, R_GE0, "rad",
         "robot orientation noise"),
    S_F ("realism", "stddev_ball_area", OFF (realism.stddev_ball_area), 3.3, R_GE0, "px",
         "ball area noise"),
    S_B ("realism", "enable_invisible_ball", OFF (realism.enable_invisible_ball), true,
         "occluded balls are not detected"),
    S_F ("realism", "ball_visibility_threshold", OFF (realism.ball_visibility_threshold), 0.25,
         R_UNIT, "", "visible fraction below which the ball is not detected"),
    S_F ("realism", "camera_overlap", OFF (realism.camera_overlap), 0.8, R_GE0, "m",
         "half width of the band seen by two cameras"),
    S_F ("realism", "dribbler_ball_detections", OFF (realism.dribbler_ball_detections), 0.030,
         R_GE0, "1/s/robot", "false balls at robot dribblers"),
    S_F ("realism", "camera_position_error", OFF (realism.camera_position_error), 0.02, R_GE0,
         "m", "camera position error in the geometry packet"),
    S_F ("realism", "robot_command_loss", OFF (realism.robot_command_loss), 0.01, R_UNIT, "",
         "chance a robot command is lost"),
    S_F ("realism", "robot_response_loss", OFF (realism.robot_response_loss), 0.01, R_UNIT, "",
         "chance a robot feedback is lost"),
    S_F ("realism", "missing_ball_detections", OFF (realism.missing_ball_detections), 0.0,
         R_UNIT, "", "chance a ball detection is dropped"),
    S_F ("realism", "missing_robot_detections", OFF (realism.missing_robot_detections), 0.0017,
         R_UNIT, "", "chance a robot detection is dropped"),
    S_F ("realism", "vision_delay", OFF (realism.vision_delay), 0.022, R_GE0, "s",
         "capture to send delay"),
    S_F ("realism", "vision_processing_time", OFF (realism.vision_processing_time), 0.00675,
         R_GE0, "s", "median of t_sent - t_capture (at most vision_delay)"),
    S_B ("realism", "simulate_dribbling", OFF (realism.simulate_dribbling), true,
         "false = glued dribbler"),
    S_F ("realism", "object_position_offset", OFF (realism.object_position_offset), 0.0,
         R_GE0, "m", "constant offset between cameras"),
    S_F ("realism", "command_delay", OFF (realism.command_delay), 0.0, R_GE0, "s",
         "not implemented: accepted, no effect"),
    S_F ("realism", "calibration_warp_stddev", OFF (realism.calibration_warp_stddev), 0.0095,
         R_GE0, "m", "spatially varying calibration error"),
    S_F ("realism", "calibration_warp_length", OFF (realism.calibration_warp_length), 3.0,
         R_GT0, "m", "length scale of the warp"),
    S_F ("realism", "calibration_orientation_offset",
         OFF (realism.calibration_orientation_offset), 0.0, R_GE0, "rad",
         "constant orientation error per camera"),
    S_F ("realism", "calibration_orientation_warp", OFF (realism.calibration_orientation_warp),
         0.02, R_GE0, "rad", "spatially varying orientation error"),
    S_F ("realism", "kick_direction_stddev", OFF (realism.kick_direction_stddev),
         0.04363323129985824, R_GE0, "rad", "kick direction error (2.5 deg)"),
    S_F ("realism", "chip_angle_stddev", OFF (realism.chip_angle_stddev), 0.10471975511965978,
         R_GE0, "rad", "chip angle error (6 deg)"),
    S_F ("realism", "kick_speed_factor_stddev", OFF (realism.kick_speed_factor_stddev), 0.1,
         R_GE0, "", "relative kick speed error"),
    /* bounded well below any camera's height over a robot's markers: the
       parallax factor dh / (camera z - height) must stay small and finite */
    S_F ("realism", "robot_marker_height_error", OFF (realism.robot_marker_height_error), 0.015,
         R_(-0.5, 0.5, 0), "m", "robot marker height error: parallax between cameras along their baseline"),
    S_F ("realism", "vision_processing_p90", OFF (realism.vision_processing_p90), 0.00894, R_GE0,
         "s", "90th percentile of t_sent - t_capture (<= median: constant)"),
    S_F ("realism", "vision_processing_p99", OFF (realism.vision_processing_p99), 0.01048, R_GE0,
         "s", "99th percentile of t_sent - t_capture"),
    S_F ("realism", "vision_processing_low_stddev", OFF (realism.vision_processing_low_stddev),
         0.0004, R_GE0, "s", "spread of t_sent - t_capture below its median"),
    S_F ("realism", "fov_edge_radius", OFF (realism.fov_edge_radius), 6.92, R_GE0, "m",
         "soft FOV edge: nadir distance of 50 % misses (0 = the hard fov_radius)"),
    S_F ("realism", "fov_edge_width", OFF (realism.fov_edge_width), 0.133, R_GE0, "m",
         "soft FOV edge: logistic width (0 = the hard fov_radius)"),
    S_F ("realism", "ball_loss_burst_rate", OFF (realism.ball_loss_burst_rate), 0.0155, R_UNIT,
         "", "chance a ball-loss burst starts at a frame, per camera"),
    S_F ("realism", "ball_loss_burst_length", OFF (realism.ball_loss_burst_length), 2.6,
         R_(0, 64, 0), "frames", "mean length of a ball-loss burst (geometric)"),
    S_F ("realism", "near_robot_ball_loss", OFF (realism.near_robot_ball_loss), 0.06, R_UNIT, "",
         "chance the ball is lost when it touches a robot"),
    S_F ("realism", "near_robot_ball_loss_length", OFF (realism.near_robot_ball_loss_length),
         0.12, R_GE0, "m", "decay length of that chance with the gap to the robot"),
    S_F ("realism", "ghost_ball_rate", OFF (realism.ghost_ball_rate), 0.025, R_UNIT, "",
         "chance a camera frame has ghost balls"),
    S_F ("realism", "ghost_ball_more", OFF (realism.ghost_ball_more), 0.072, R_(0, 0.9, 0), "",
         "chance of one more ghost ball (geometric count)"),
    S_F ("realism", "ball_area_height_gain", OFF (realism.ball_area_height_gain), 0.60, R_GE0, "",
         "area gain at 1 m ball height (0 = pinhole term)"),
    S_F ("realism", "ball_area_height_exponent", OFF (realism.ball_area_height_exponent), 0.62,
         R_GE0, "", "exponent of the area-vs-height curve"),
    S_F ("realism", "capture_jitter", OFF (realism.capture_jitter), 0.00014, R_(0, 0.002, 0), "s",
         "capture instant jitter (0 with no late rate: instants on the substep grid)"),
    S_F ("realism", "capture_late_rate", OFF (realism.capture_late_rate), 0.0, R_(0, 0.1, 0), "",
         "chance a capture instant comes late"),
    S_F ("realism", "capture_late_fraction", OFF (realism.capture_late_fraction), 0.5,
         R_(0, 0.5, 0), "periods", "how late a late capture comes"),
    S_I ("realism", "sensor_mix", OFF (realism.sensor_mix), 0, R_(0, 2, 0),
         "sensors of cameras without their own: 0 = [vision] one, 1 = go26 mix, 2 = rc26 mix"),
    S_I ("realism", "source", OFF (realism.source), 0, R_(0, 1, 0),
         "wrapper source: 0 = SSL_SOURCE_OTHER (a simulator), 1 = SSL_SOURCE_VISION_PROCESSOR"),
    S_F ("realism", "line_ghost_rate", OFF (realism.line_ghost_rate), 0.0, R_UNIT, "",
         "chance per camera frame of a ghost ball at a field-line crossing it sees"),
    S_F ("realism", "robot_identity_swap", OFF (realism.robot_identity_swap), 0.0, R_UNIT, "",
         "chance per robot detection of the other team's colour or another id"),
    S_F ("realism", "close_robot_loss_distance", OFF (realism.close_robot_loss_distance), 0.0,
         R_(0, 0.5, 0), "m", "of two robots whose centres are closer, one detection is lost"),
    S_F ("realism", "camera_clock_offset", OFF (realism.camera_clock_offset), 0.0, R_GE0, "s",
         "t_capture_camera: camera clock at sim time 0 (0 = field not sent)"),
    S_B ("realism", "geometry_alone", OFF (realism.geometry_alone), false,
         "geometry in wrappers of its own, never with a detection"),
    S_F ("realism", "venue_ball_confidence", OFF (realism.venue_ball_confidence), 0.0, R_UNIT, "",
         "mean ball confidence at this venue (0 = [vision] ball_confidence_mean)"),
    S_B ("realism", "report_ball_area", OFF (realism.report_ball_area), true,
         "emit SSL_DetectionBall.area (false: the vision program sends none)"),
    S_B ("realism", "vision_artefacts", OFF (realism.vision_artefacts), true,
         "[vision] duplicate_robot_rate and confidence_stddev apply (false: no duplicate robots, "
         "every confidence its mean)"),

    /* [field] product addition; 0 = from the division */
    S_F ("field", "length", OFF (field.length), 0, R_GE0, "m", "field length (0 = division)"),
    S_F ("field", "width", OFF (field.width), 0, R_GE0, "m", "field width (0 = division)"),
    S_F ("field", "goal_width", OFF (field.goal_width), 0, R_GE0, "m", "goal width"),
    S_F ("field", "goal_depth", OFF (field.goal_depth), 0, R_GE0, "m", "goal depth"),
    S_F ("field", "goal_height", OFF (field.goal_height), 0, R_GE0, "m", "goal height"),
    S_F ("field", "goal_wall_thickness", OFF (field.goal_wall_thickness), 0, R_GE0, "m",
         "goal wall thickness"),
    S_F ("field", "boundary_width", OFF (field.boundary_width), 0, R_GE0, "m",
         "margin from the touch lines to the walls (0 = division: 0.3)"),
    S_F ("field", "penalty_area_depth", OFF (field.penalty_area_depth), 0, R_GE0, "m",
         "penalty area depth"),
    S_F ("field", "penalty_area_width", OFF (field.penalty_area_width), 0, R_GE0, "m",
         "penalty area width"),
    S_F ("field", "boundary_width_goal_line", OFF (field.boundary_width_goal_line), 0, R_GE0,
         "m", "margin from the goal lines to the walls (0 = division: A 0.6, B 0.3)"),
    S_F ("field", "goal_center_to_penalty_mark", OFF (field.goal_center_to_penalty_mark), 0,
         R_GE0, "m", "goal centre to the penalty mark (0 = division)"),
    S_F ("field", "goal_substitution_area_width", OFF (field.goal_substitution_area_width), 0,
         R_GE0, "m", "goal substitution area: outer part of that margin, geometry only (0 = division: 0.3)"),
    S_F ("field", "center_circle_radius", OFF (field.center_circle_radius), 0, R_GE0, "m",
         "centre circle radius"),
    S_F ("field", "line_thickness", OFF (field.line_thickness), 0, R_GE0, "m",
         "field line thickness"),

    /* [run] product addition: every flag can be written in the file */
    S_E ("run", "division", OFF (run.division), SIM_DIVISION_A, s_division_names,
         "a (12 x 9 m) | b (9 x 6 m); --division"),
    S_E ("run", "mode", OFF (run.mode), SIM_MODE_REALTIME, s_mode_names,
         "realtime | fast | sync; --mode"),
    S_F ("run", "speed", OFF (run.speed), 1.0, R_(0, SIM_SPEED_MAX, 0), "",
         "real-time scaling, 0 = paused; --speed"),
    S_S ("run", "realism", OFF (run.realism), SSIZE (run.realism), "", NULL,
         "realism preset name or INI file; replaces [realism]; --realism",
         "realism = realistic     ; preset or file, replaces [realism]"),
    S_S ("run", "ball_preset", OFF (run.ball_preset), SSIZE (run.ball_preset), "",
         sim_cfg_check_ball_preset, "ball preset, replaces [ball]; --ball-preset",
         "ball_preset = default   ; replaces [ball]"),
    S_S ("run", "robot_limits", OFF (run.robot_limits), SSIZE (run.robot_limits), "",
         sim_cfg_check_limits_preset, "limits preset, replaces [*.limits] (team sets: kick caps too); --robot-limits",
         "robot_limits = default  ; replaces [blue.limits] and [yellow.limits]"),
    S_S ("run", "blue_robot_limits", OFF (run.team_robot_limits[0]), SSIZE (run.team_robot_limits[0]), "",
         sim_cfg_check_limits_preset,
         "limits preset for blue alone, after robot_limits; replaces [blue.limits] (team sets: kick caps too); --blue-robot-limits",
         "blue_robot_limits = tigers ; replaces [blue.limits] only"),
    S_S ("run", "yellow_robot_limits", OFF (run.team_robot_limits[1]), SSIZE (run.team_robot_limits[1]), "",
         sim_cfg_check_limits_preset,
         "limits preset for yellow alone, after robot_limits; replaces [yellow.limits] (team sets: kick caps too); --yellow-robot-limits",
         "yellow_robot_limits = default ; replaces [yellow.limits] only"),
    S_S ("run", "vision_addr", OFF (run.vision_addr), SSIZE (run.vision_addr),
         "224.5.23.2:10020", sim_cfg_check_addr, "vision destination HOST:PORT; --vision-addr",
         NULL),
    S_B ("run", "localhost", OFF (run.localhost), false,
         "vision and truth stay on this machine ([network] local_vision); --localhost"),
    S_B ("run", "truth", OFF (run.truth), false, "publish ground truth; --truth"),
    S_B ("run", "legacy_grsim", OFF (run.legacy_grsim), true,
         "grSim command port and Robots_Status; --no-legacy-grsim"),
    /* duration and log_level are local: the wall time and the log of this
       process, not of the simulation */
    { .section = "run", .key = "duration", .type = SIM_CFG_FLOAT, .offset = OFF (run.duration),
      .def = 0, .range = { 0, INFINITY, SIM_CFG_MIN_EXCL | SIM_CFG_ZERO_UNSET }, .unit = "s",
      .help = "stop after this much wall time (0 = forever); --duration",
      .unset_note = "duration = 60.0        ; s of wall time, unset = forever",
      .flags = SIM_CFG_LOCAL },
    S_S_LOCAL ("run", "log_level", OFF (run.log_level), SSIZE (run.log_level), "info",
               sim_cfg_check_log_level,
               "error | warn | info | debug | trace | filter; SSL_SIM_LOG wins", NULL),
    /* record and journal are files of this run's host (docs/logs.md) */
    S_S_LOCAL ("run", "record", OFF (run.record), SSIZE (run.record), "", NULL,
               "league log file (.gz: compressed) of every vision packet as released; --record",
               "record = game.log.gz    ; every vision, truth and referee packet"),
    S_S_LOCAL ("run", "journal", OFF (run.journal), SSIZE (run.journal), "", NULL,
               "journal of every input physics applies, for `ssl-sim replay`; --journal",
               "journal = game.journal  ; inputs pinned to substeps"),

    /* [network] product addition; all local: the ports this host binds */
    S_S_LOCAL ("network", "bind_address", OFF (network.bind_address),
               SSIZE (network.bind_address), "0.0.0.0", NULL,
               "address the control, blue and yellow ports bind to (127.0.0.1 with --localhost)",
               NULL),
    S_S_LOCAL ("network", "legacy_bind_address", OFF (network.legacy_bind_address),
               SSIZE (network.legacy_bind_address), "", NULL,
               "address the grSim port binds to (empty = bind_address; 127.0.0.1 with --localhost)",
               "legacy_bind_address = 127.0.0.1 ; grSim clients on this host only"),
    S_S_LOCAL ("network", "trusted_sources", OFF (network.trusted_sources),
               SSIZE (network.trusted_sources), "", sim_cfg_check_trusted_list,
               "IPv4 addresses (comma-separated, up to 16) that get full answers; others (not loopback, "
               "not in [tournament]) get at most 3x their request's bytes (docs/protocol.md)",
               "trusted_sources = 192.168.1.20, 192.168.1.21 ; the lab's machines"),
    S_B_LOCAL ("network", "sync_takeover", OFF (network.sync_takeover), true,
               "a SimulationSyncRequest takes over a realtime or fast simulator (false: refused)"),
    S_I_LOCAL ("network", "control_port", OFF (network.control_port), 10300, R_PORT,
               "simulator control port"),
    S_I_LOCAL ("network", "blue_port", OFF (network.blue_port), 10301, R_PORT,
               "blue robot control"),
    S_I_LOCAL ("network", "yellow_port", OFF (network.yellow_port), 10302, R_PORT,
               "yellow robot control"),
    S_I_LOCAL ("network", "legacy_port", OFF (network.legacy_port), 20011, R_PORT,
               "grSim command port"),
    S_I_LOCAL ("network", "legacy_status_port_blue", OFF (network.legacy_status_port_blue),
               30011, R_PORT, "grSim Robots_Status to blue"),
    S_I_LOCAL ("network", "legacy_status_port_yellow", OFF (network.legacy_status_port_yellow),
               30012, R_PORT, "grSim Robots_Status to yellow"),
    S_I_LOCAL ("network", "truth_port", OFF (network.truth_port), 10010, R_PORT,
               "ground-truth stream port"),
    S_S_LOCAL ("network", "referee_addr", OFF (network.referee_addr), SSIZE (network.referee_addr),
               "224.5.23.1:10003", sim_cfg_check_addr,
               "game controller multicast: recorded with --record and by `ssl-sim record`, played by "
               "`ssl-sim play`", NULL),
    S_I_LOCAL ("network", "multicast_ttl", OFF (network.multicast_ttl), 1, R_(0, 255, 0),
               "multicast TTL"),
    S_S_LOCAL ("network", "multicast_interface", OFF (network.multicast_interface),
               SSIZE (network.multicast_interface), "", NULL,
               "IPv4 address of the interface vision multicast leaves by (empty = the "
               "system's choice)",
               "multicast_interface = 127.0.0.1 ; keep vision on this machine"),
    { .section = "network", .key = "local_vision", .type = SIM_CFG_ENUM,
      .offset = OFF (network.local_vision), .def = SIM_LOCAL_UNICAST,
      .range = R_ANY, .names = s_local_vision_names, .unit = "",
      .help = "how --localhost sends vision and truth: unicast to 127.0.0.1 (one program bound to "
              "127.0.0.1 or 0.0.0.0) or multicast through the loopback interface (every program "
              "bound to 0.0.0.0 or the group); --local-multicast",
      .flags = SIM_CFG_LOCAL },
    S_I_LOCAL ("network", "port_offset", OFF (network.port_offset), 0, R_(0, 65534, 0),
               "added to every port, however given (UDP, vision_addr, referee_addr, the viewer's); "
               "--port-offset"),

    /* [tournament] product addition (docs/protocol.md "Tournament mode"):
       not local, a match's setting that every host reads alike */
    S_B ("tournament", "enabled", OFF (tournament.enabled), false,
         "each port accepts only its addresses below; others get FORBIDDEN"),
    S_S ("tournament", "blue", OFF (tournament.blue), SSIZE (tournament.blue), "",
         sim_cfg_check_addr_list, "IPv4 addresses (comma-separated) that may use the blue port",
         NULL),
    S_S ("tournament", "yellow", OFF (tournament.yellow), SSIZE (tournament.yellow), "",
         sim_cfg_check_addr_list, "IPv4 addresses that may use the yellow port", NULL),
    S_S ("tournament", "control", OFF (tournament.control), SSIZE (tournament.control), "",
         sim_cfg_check_addr_list,
         "IPv4 addresses that may use the control port and send sync requests", NULL),

    /* [viewer] product addition (docs/viewer.md); local: this host's server */
    S_B_LOCAL ("viewer", "enabled", OFF (viewer.enabled), true,
               "ssl-sim run starts the browser viewer; --no-viewer"),
    S_S_LOCAL ("viewer", "addr", OFF (viewer.addr), SSIZE (viewer.addr), "127.0.0.1:8082",
               sim_cfg_check_addr,
               "viewer HTTP HOST:PORT (page, WebSocket, /metrics); the port moves with port_offset; "
               "--viewer-addr",
               NULL),
    S_S_LOCAL ("viewer", "www_dir", OFF (viewer.www_dir), SSIZE (viewer.www_dir), "", NULL,
               "directory of the page's files (empty = installed share/ssl-sim/www, else the source tree's)",
               "www_dir = /usr/share/ssl-sim/www"),

    /* [bus] product addition; empty = automatic ipc path. All local: how
       this process reaches its peers. */
    S_S_LOCAL ("bus", "cmd_bind", OFF (bus.cmd_bind), SSIZE (bus.cmd_bind), "", NULL,
               "physics ROUTER bind endpoint", "cmd_bind = tcp://*:7301      ; empty = automatic"),
    S_S_LOCAL ("bus", "cmd_connect", OFF (bus.cmd_connect), SSIZE (bus.cmd_connect), "", NULL,
               "physics ROUTER endpoint the others connect to", NULL),
    S_S_LOCAL ("bus", "world_bind", OFF (bus.world_bind), SSIZE (bus.world_bind), "", NULL,
               "physics PUB bind endpoint", NULL),
    S_S_LOCAL ("bus", "world_connect", OFF (bus.world_connect), SSIZE (bus.world_connect), "",
               NULL, "physics PUB endpoint the others connect to", NULL),
    S_S_LOCAL ("bus", "frames_bind", OFF (bus.frames_bind), SSIZE (bus.frames_bind), "", NULL,
               "vision PUB bind endpoint", NULL),
    S_S_LOCAL ("bus", "frames_connect", OFF (bus.frames_connect), SSIZE (bus.frames_connect), "",
               NULL, "vision PUB endpoint the others connect to", NULL),
    S_F_LOCAL ("bus", "sync_timeout", OFF (bus.sync_timeout), 0.5, R_GE0, "s",
               "how long a sync answer waits for vision frames"),
    S_B_LOCAL ("bus", "lanes", OFF (bus.lanes), true,
               "hot messages over same-host datagram lanes when the endpoints are ipc or inproc"),
    /* CURVE (docs/operations.md §6): only tcp endpoints use it; ipc and
       inproc stay behind the private runtime directory */
    S_B_LOCAL ("bus", "curve", OFF (bus.curve), false,
               "CURVE encryption and authentication on the tcp endpoints"),
    S_S_LOCAL ("bus", "curve_cert", OFF (bus.curve_cert), SSIZE (bus.curve_cert), "", NULL,
               "this process's certificate: FILE and FILE_secret (ssl-sim keygen FILE)",
               "curve_cert = /etc/ssl-sim/host.cert"),
    S_S_LOCAL ("bus", "curve_allow", OFF (bus.curve_allow), SSIZE (bus.curve_allow), "", NULL,
               "directory of the public certificates allowed to connect to this process's binds",
               NULL),
    S_S_LOCAL ("bus", "curve_server", OFF (bus.curve_server), SSIZE (bus.curve_server), "", NULL,
               "physics' public certificate (cmd and world connects)", NULL),
    S_S_LOCAL ("bus", "curve_frames_server", OFF (bus.curve_frames_server),
               SSIZE (bus.curve_frames_server), "", NULL,
               "vision's public certificate (frames connects; empty = curve_server)", NULL),
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

#define S_COUNT(a) (sizeof (a) / sizeof (a)[0])

const size_t sim_cfg_keys_count = S_COUNT (sim_cfg_keys);
const size_t sim_cfg_team_keys_count = S_COUNT (sim_cfg_team_keys);
const size_t sim_cfg_camera_keys_count = S_COUNT (sim_cfg_camera_keys);
const size_t sim_cfg_outage_keys_count = S_COUNT (sim_cfg_outage_keys);

const char *const sim_cfg_team_subsections[] = {
    "", "limits", "wheel_angles", "drive", "kicker", "dribbler"
};
const size_t sim_cfg_team_subsections_count = S_COUNT (sim_cfg_team_subsections);
/* clang-format on */
