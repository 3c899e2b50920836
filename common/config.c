/*  config.c - the configuration table and everything it drives: defaults,
    INI parsing with line numbers and range checks, the INI dump, and the
    command-line flags (spec/config.md).

    A key is declared once, in one of four tables: the global keys (offset
    into sim_config_t), the robot-spec keys (offset into sim_robot_specs_t,
    used for [blue*] and [yellow*] at each team's offset), and the keys of
    the numbered [camera N] and [outage N] sections.
*/
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#include "sim_log.h"
#include "sim_rng.h"

/* ---- the table ---------------------------------------------------------- */

typedef enum { S_FLOAT, S_INT, S_U64, S_BOOL, S_ENUM, S_STRING, S_LIST } s_type_t;

enum {
    S_MIN_EXCL = 1,         /* value must be > min (else >= min) */
    S_MAX_EXCL = 2,         /* value must be < max (else <= max) */
    S_ZERO_UNSET = 4,       /* 0 is accepted as "unset" whatever the range */
};

typedef struct {
    double min, max;
    unsigned flags;
} s_range_t;

#define R_(lo_, hi_, fl_) { lo_, hi_, fl_ }
#define R_ANY  { -INFINITY, INFINITY, 0 }
#define R_GE0  { 0, INFINITY, 0 }
#define R_GT0  { 0, INFINITY, S_MIN_EXCL }
#define R_UNIT { 0, 1, 0 }
#define R_PORT { 1, 65535, 0 }

typedef struct {
    const char *name;
    int value;
} s_enum_name_t;

/* A string value check beyond its length; 0 or -1 with a reason in why. */
typedef int (s_check_fn) (const char *value, char *why, size_t whylen);

typedef struct {
    const char *section;    /* global: "ball"; team table: "" or "limits" */
    const char *key;
    s_type_t type;
    size_t offset;          /* into the table's base struct */
    size_t size;            /* S_STRING: buffer size; S_LIST: max items */
    size_t count_offset;    /* S_LIST: offset of the int item count */
    double def;             /* numbers, bools, enums */
    const char *def_text;   /* S_STRING */
    s_range_t range;
    const s_enum_name_t *names;     /* S_ENUM; first entry per value is canonical */
    s_check_fn *check;              /* S_STRING */
    const char *unit;
    const char *help;
    const char *unset_note; /* dump comment written instead of an unset value */
} s_key_t;

static const s_enum_name_t s_division_names[] = {
    { "a", SIM_DIVISION_A }, { "b", SIM_DIVISION_B },
    { "diva", SIM_DIVISION_A }, { "div_a", SIM_DIVISION_A },
    { "divb", SIM_DIVISION_B }, { "div_b", SIM_DIVISION_B }, { NULL, 0 }
};
static const s_enum_name_t s_mode_names[] = {
    { "realtime", SIM_MODE_REALTIME }, { "fast", SIM_MODE_FAST },
    { "sync", SIM_MODE_SYNC }, { "real-time", SIM_MODE_REALTIME },
    { "real_time", SIM_MODE_REALTIME }, { NULL, 0 }
};
static const s_enum_name_t s_phase_names[] = {
    { "locked", SIM_PHASE_LOCKED }, { "free_running", SIM_PHASE_FREE_RUNNING },
    { "free-running", SIM_PHASE_FREE_RUNNING }, { NULL, 0 }
};
static const s_enum_name_t s_drive_names[] = {
    { "wheels", SIM_DRIVE_WHEELS }, { "ideal", SIM_DRIVE_IDEAL }, { NULL, 0 }
};

static s_check_fn s_check_log_level, s_check_addr, s_check_ball_preset, s_check_limits_preset;

#define S_F(sec_, key_, off_, def_, range_, unit_, help_) \
    { .section = sec_, .key = key_, .type = S_FLOAT, .offset = off_, .def = def_, \
      .range = range_, .unit = unit_, .help = help_ }
#define S_I(sec_, key_, off_, def_, range_, help_) \
    { .section = sec_, .key = key_, .type = S_INT, .offset = off_, .def = def_, \
      .range = range_, .unit = "", .help = help_ }
#define S_B(sec_, key_, off_, def_, help_) \
    { .section = sec_, .key = key_, .type = S_BOOL, .offset = off_, .def = def_, \
      .range = R_ANY, .unit = "", .help = help_ }
#define S_E(sec_, key_, off_, def_, names_, help_) \
    { .section = sec_, .key = key_, .type = S_ENUM, .offset = off_, .def = def_, \
      .range = R_ANY, .names = names_, .unit = "", .help = help_ }
#define S_S(sec_, key_, off_, size_, def_, check_, help_, note_) \
    { .section = sec_, .key = key_, .type = S_STRING, .offset = off_, .size = size_, \
      .def_text = def_, .range = R_ANY, .check = check_, .unit = "", .help = help_, \
      .unset_note = note_ }

#define OFF(f) offsetof (sim_config_t, f)
#define SSIZE(f) sizeof (((sim_config_t *) 0)->f)
#define TOFF(f) offsetof (sim_robot_specs_t, f)

static const s_key_t s_keys[] = {
    /* [sim] */
    S_F ("sim", "substep", OFF (sim.substep), 0.001, R_GT0, "s",
         "physics substep, a multiple of 1 ns; --step-ms"),
    { .section = "sim", .key = "seed", .type = S_U64, .offset = OFF (sim.seed), .def = 0,
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
    { .section = "vision", .key = "phase_offsets", .type = S_LIST,
      .offset = OFF (vision.phase_offsets), .size = SIM_MAX_PHASE_OFFSETS,
      .count_offset = OFF (vision.phase_offset_count), .range = R_ANY, .unit = "s",
      .help = "per-camera capture offsets, comma-separated (locked phase only)",
      .unset_note = "phase_offsets = 0.0, 0.00136" },
    S_B ("vision", "report_area", OFF (vision.report_area), true, "emit SSL_DetectionBall.area"),
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
    S_F ("vision", "confidence_stddev", OFF (vision.confidence_stddev), 0.05, R_GE0, "",
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
         "s", "added to t_capture and t_sent"),
    S_F ("vision", "focal_length_px", OFF (vision.focal_length_px), 1420.0, R_GT0, "px",
         "focal length in the geometry packet and the area height term"),

    /* [realism] vision.md §11; defaults are the realistic preset */
    S_F ("realism", "stddev_ball_p", OFF (realism.stddev_ball_p), 0.0007, R_GE0, "m",
         "ball position noise"),
    S_F ("realism", "stddev_robot_p", OFF (realism.stddev_robot_p), 0.0005, R_GE0, "m",
         "robot position noise"),
    S_F ("realism", "stddev_robot_phi", OFF (realism.stddev_robot_phi), 0.005, R_GE0, "rad",
         "robot orientation noise"),
    S_F ("realism", "stddev_ball_area", OFF (realism.stddev_ball_area), 3.3, R_GE0, "px",
         "ball area noise"),
    S_B ("realism", "enable_invisible_ball", OFF (realism.enable_invisible_ball), true,
         "occluded balls are not detected"),
    S_F ("realism", "ball_visibility_threshold", OFF (realism.ball_visibility_threshold), 0.4,
         R_UNIT, "", "visible fraction below which the ball is not detected"),
    S_F ("realism", "camera_overlap", OFF (realism.camera_overlap), 0.8, R_GE0, "m",
         "half width of the band seen by two cameras"),
    S_F ("realism", "dribbler_ball_detections", OFF (realism.dribbler_ball_detections), 0.02,
         R_GE0, "1/s/robot", "false balls at robot dribblers"),
    S_F ("realism", "camera_position_error", OFF (realism.camera_position_error), 0.02, R_GE0,
         "m", "camera position error in the geometry packet"),
    S_F ("realism", "robot_command_loss", OFF (realism.robot_command_loss), 0.01, R_UNIT, "",
         "chance a robot command is lost"),
    S_F ("realism", "robot_response_loss", OFF (realism.robot_response_loss), 0.01, R_UNIT, "",
         "chance a robot feedback is lost"),
    S_F ("realism", "missing_ball_detections", OFF (realism.missing_ball_detections), 0.007,
         R_UNIT, "", "chance a ball detection is dropped"),
    S_F ("realism", "missing_robot_detections", OFF (realism.missing_robot_detections), 0.002,
         R_UNIT, "", "chance a robot detection is dropped"),
    S_F ("realism", "vision_delay", OFF (realism.vision_delay), 0.022, R_GE0, "s",
         "capture to send delay"),
    S_F ("realism", "vision_processing_time", OFF (realism.vision_processing_time), 0.0073,
         R_GE0, "s", "capture to t_sent (at most vision_delay)"),
    S_B ("realism", "simulate_dribbling", OFF (realism.simulate_dribbling), true,
         "false = glued dribbler"),
    S_F ("realism", "object_position_offset", OFF (realism.object_position_offset), 0.02,
         R_GE0, "m", "constant offset between cameras"),
    S_F ("realism", "command_delay", OFF (realism.command_delay), 0.0, R_GE0, "s",
         "not implemented: accepted, no effect"),
    S_F ("realism", "calibration_warp_stddev", OFF (realism.calibration_warp_stddev), 0.012,
         R_GE0, "m", "spatially varying calibration error"),
    S_F ("realism", "calibration_warp_length", OFF (realism.calibration_warp_length), 3.0,
         R_GT0, "m", "length scale of the warp"),
    S_F ("realism", "calibration_orientation_offset",
         OFF (realism.calibration_orientation_offset), 0.02, R_GE0, "rad",
         "constant orientation error per camera"),
    S_F ("realism", "calibration_orientation_warp", OFF (realism.calibration_orientation_warp),
         0.02, R_GE0, "rad", "spatially varying orientation error"),
    S_F ("realism", "kick_direction_stddev", OFF (realism.kick_direction_stddev),
         0.04363323129985824, R_GE0, "rad", "kick direction error (2.5 deg)"),
    S_F ("realism", "chip_angle_stddev", OFF (realism.chip_angle_stddev), 0.10471975511965978,
         R_GE0, "rad", "chip angle error (6 deg)"),
    S_F ("realism", "kick_speed_factor_stddev", OFF (realism.kick_speed_factor_stddev), 0.1,
         R_GE0, "", "relative kick speed error"),

    /* [field] product addition; 0 = from the division */
    S_F ("field", "length", OFF (field.length), 0, R_GE0, "m", "field length (0 = division)"),
    S_F ("field", "width", OFF (field.width), 0, R_GE0, "m", "field width (0 = division)"),
    S_F ("field", "goal_width", OFF (field.goal_width), 0, R_GE0, "m", "goal width"),
    S_F ("field", "goal_depth", OFF (field.goal_depth), 0, R_GE0, "m", "goal depth"),
    S_F ("field", "goal_height", OFF (field.goal_height), 0, R_GE0, "m", "goal height"),
    S_F ("field", "goal_wall_thickness", OFF (field.goal_wall_thickness), 0, R_GE0, "m",
         "goal wall thickness"),
    S_F ("field", "boundary_width", OFF (field.boundary_width), 0, R_GE0, "m",
         "run-off area outside the touch lines"),
    S_F ("field", "penalty_area_depth", OFF (field.penalty_area_depth), 0, R_GE0, "m",
         "penalty area depth"),
    S_F ("field", "penalty_area_width", OFF (field.penalty_area_width), 0, R_GE0, "m",
         "penalty area width"),
    S_F ("field", "center_circle_radius", OFF (field.center_circle_radius), 0, R_GE0, "m",
         "centre circle radius"),
    S_F ("field", "line_thickness", OFF (field.line_thickness), 0, R_GE0, "m",
         "field line thickness"),

    /* [run] product addition: every flag can be written in the file */
    S_E ("run", "division", OFF (run.division), SIM_DIVISION_A, s_division_names,
         "a (12 x 9 m) | b (9 x 6 m); --division"),
    S_E ("run", "mode", OFF (run.mode), SIM_MODE_REALTIME, s_mode_names,
         "realtime | fast | sync; --mode"),
    S_F ("run", "speed", OFF (run.speed), 1.0, R_GE0, "", "real-time scaling, 0 = paused; --speed"),
    S_S ("run", "realism", OFF (run.realism), SSIZE (run.realism), "", NULL,
         "realism preset name or INI file; replaces [realism]; --realism",
         "realism = realistic     ; preset or file, replaces [realism]"),
    S_S ("run", "ball_preset", OFF (run.ball_preset), SSIZE (run.ball_preset), "",
         s_check_ball_preset, "ball preset, replaces [ball]; --ball-preset",
         "ball_preset = default   ; replaces [ball]"),
    S_S ("run", "robot_limits", OFF (run.robot_limits), SSIZE (run.robot_limits), "",
         s_check_limits_preset, "limits preset, replaces [*.limits]; --robot-limits",
         "robot_limits = default  ; replaces [blue.limits] and [yellow.limits]"),
    S_S ("run", "vision_addr", OFF (run.vision_addr), SSIZE (run.vision_addr),
         "224.5.23.2:10020", s_check_addr, "vision destination HOST:PORT; --vision-addr", NULL),
    S_B ("run", "localhost", OFF (run.localhost), false,
         "vision and truth to 127.0.0.1; --localhost"),
    S_B ("run", "truth", OFF (run.truth), false, "publish ground truth; --truth"),
    S_B ("run", "legacy_grsim", OFF (run.legacy_grsim), true,
         "grSim command port and Robots_Status; --no-legacy-grsim"),
    { .section = "run", .key = "duration", .type = S_FLOAT, .offset = OFF (run.duration),
      .def = 0, .range = { 0, INFINITY, S_MIN_EXCL | S_ZERO_UNSET }, .unit = "s",
      .help = "stop after this much wall time (0 = forever); --duration",
      .unset_note = "duration = 60.0        ; s of wall time, unset = forever" },
    S_S ("run", "log_level", OFF (run.log_level), SSIZE (run.log_level), "info",
         s_check_log_level, "error | warn | info | debug | trace | filter; SSL_SIM_LOG wins",
         NULL),

    /* [network] product addition */
    S_S ("network", "bind_address", OFF (network.bind_address), SSIZE (network.bind_address),
         "0.0.0.0", NULL, "address the UDP ports bind to", NULL),
    S_I ("network", "control_port", OFF (network.control_port), 10300, R_PORT,
         "simulator control port"),
    S_I ("network", "blue_port", OFF (network.blue_port), 10301, R_PORT, "blue robot control"),
    S_I ("network", "yellow_port", OFF (network.yellow_port), 10302, R_PORT,
         "yellow robot control"),
    S_I ("network", "legacy_port", OFF (network.legacy_port), 20011, R_PORT,
         "grSim command port"),
    S_I ("network", "legacy_status_port_blue", OFF (network.legacy_status_port_blue), 30011,
         R_PORT, "grSim Robots_Status to blue"),
    S_I ("network", "legacy_status_port_yellow", OFF (network.legacy_status_port_yellow), 30012,
         R_PORT, "grSim Robots_Status to yellow"),
    S_I ("network", "truth_port", OFF (network.truth_port), 10010, R_PORT,
         "ground-truth stream port"),
    S_I ("network", "multicast_ttl", OFF (network.multicast_ttl), 1,
         R_(0, 255, 0), "multicast TTL"),
    S_S ("network", "multicast_interface", OFF (network.multicast_interface),
         SSIZE (network.multicast_interface), "", NULL,
         "IPv4 address of the interface vision multicast leaves by (empty = the system's choice)",
         "multicast_interface = 127.0.0.1 ; keep vision on this machine"),
    S_I ("network", "port_offset", OFF (network.port_offset), 0, R_(0, 65534, 0),
         "added to every UDP port above; --port-offset"),

    /* [bus] product addition; empty = automatic ipc path */
    S_S ("bus", "cmd_bind", OFF (bus.cmd_bind), SSIZE (bus.cmd_bind), "", NULL,
         "physics ROUTER bind endpoint", "cmd_bind = tcp://*:7301      ; empty = automatic"),
    S_S ("bus", "cmd_connect", OFF (bus.cmd_connect), SSIZE (bus.cmd_connect), "", NULL,
         "physics ROUTER endpoint the others connect to", NULL),
    S_S ("bus", "world_bind", OFF (bus.world_bind), SSIZE (bus.world_bind), "", NULL,
         "physics PUB bind endpoint", NULL),
    S_S ("bus", "world_connect", OFF (bus.world_connect), SSIZE (bus.world_connect), "", NULL,
         "physics PUB endpoint the others connect to", NULL),
    S_S ("bus", "frames_bind", OFF (bus.frames_bind), SSIZE (bus.frames_bind), "", NULL,
         "vision PUB bind endpoint", NULL),
    S_S ("bus", "frames_connect", OFF (bus.frames_connect), SSIZE (bus.frames_connect), "", NULL,
         "vision PUB endpoint the others connect to", NULL),
    S_F ("bus", "sync_timeout", OFF (bus.sync_timeout), 0.5, R_GE0, "s",
         "how long a sync answer waits for vision frames"),
    S_B ("bus", "lanes", OFF (bus.lanes), true,
         "hot messages over same-host datagram lanes when the endpoints are ipc or inproc"),
};

/* [blue*] / [yellow*]: physics.md §6.1, one table at each team's offset */
static const s_key_t s_team_keys[] = {
    S_F ("", "radius", TOFF (radius), 0.09, R_(0.02, INFINITY, S_MIN_EXCL), "m",
         "robot radius"),
    S_F ("", "height", TOFF (height), 0.15, R_(0.02, INFINITY, S_MIN_EXCL), "m",
         "robot height (reported in detections)"),
    S_F ("", "mass", TOFF (mass), 2.5, R_(0.1, INFINITY, S_MIN_EXCL), "kg",
         "robot mass"),
    { .section = "", .key = "inertia_z", .type = S_FLOAT, .offset = TOFF (inertia_z), .def = 0,
      .range = { 0, INFINITY, S_MIN_EXCL | S_ZERO_UNSET }, .unit = "kg m^2",
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
static const s_key_t s_camera_keys[] = {
    S_I ("camera", "id", offsetof (sim_camera_cfg_t, id), 0, R_(0, INT_MAX, 0),
         "camera id (default: the section number)"),
    S_F ("camera", "x", offsetof (sim_camera_cfg_t, x), 0, R_ANY, "m", "optical centre x"),
    S_F ("camera", "y", offsetof (sim_camera_cfg_t, y), 0, R_ANY, "m", "optical centre y"),
    S_F ("camera", "z", offsetof (sim_camera_cfg_t, z), 0, R_GT0, "m", "optical centre height"),
};

/* [outage N] */
static const s_key_t s_outage_keys[] = {
    S_F ("outage", "start", offsetof (sim_outage_cfg_t, start), 0, R_GE0, "s",
         "sim time the outage starts"),
    S_F ("outage", "duration", offsetof (sim_outage_cfg_t, duration), 0, R_GE0, "s",
         "length (> 0 to be active)"),
};

#define S_COUNT(a) (sizeof (a) / sizeof (a)[0])

static const char *const s_team_names[2] = { "blue", "yellow" };
static const char *const s_team_subsections[] = {
    "", "limits", "wheel_angles", "drive", "kicker", "dribbler"
};

/* ---- small helpers ------------------------------------------------------ */

static void
s_set_err (char *err, size_t errlen, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
s_set_err (char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list args;
    va_start (args, fmt);
    vsnprintf (err, errlen, fmt, args);
    va_end (args);
}

/* Copy into a fixed buffer, zeroing the tail so memcmp stays meaningful. */
static int
s_copy_string (char *dest, size_t size, const char *src)
{
    size_t len = strlen (src);
    if (len >= size)
        return -1;
    memset (dest, 0, size);
    memcpy (dest, src, len);
    return 0;
}

/* The fewest of 15, 16, 17 significant digits that read back to the same
   double; a ".0" marks integral floats. */
static void
s_format_double (double value, char *buf, size_t size)
{
    /* 15 digits reads best for hand-written numbers; 16 matches how the
       spec prints angles such as 0.04363323129985824; 17 always works */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf (buf, size, "%.*g", digits, value);
        double back = strtod (buf, NULL);
        if (back == value && signbit (back) == signbit (value))
            break;
    }
    if (!strpbrk (buf, ".eEnNiI")) {
        size_t len = strlen (buf);
        if (len + 2 < size)
            memcpy (buf + len, ".0", 3);
    }
}

static bool
s_parse_double (const char *text, double *out)
{
    char *end;
    errno = 0;
    while (isspace ((unsigned char) *text))
        text++;
    if (*text == '\0')
        return false;
    double value = strtod (text, &end);
    while (isspace ((unsigned char) *end))
        end++;
    if (*end != '\0' || !isfinite (value))
        return false;
    *out = value;
    return true;
}

static bool
s_parse_long (const char *text, long *out)
{
    char *end;
    errno = 0;
    while (isspace ((unsigned char) *text))
        text++;
    if (*text == '\0')
        return false;
    long value = strtol (text, &end, 10);
    while (isspace ((unsigned char) *end))
        end++;
    if (*end != '\0' || errno == ERANGE)
        return false;
    *out = value;
    return true;
}

static bool
s_parse_u64 (const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    while (isspace ((unsigned char) *text))
        text++;
    /* strtoull would accept "-1" as 2^64 - 1 */
    if (!isdigit ((unsigned char) *text))
        return false;
    unsigned long long value = strtoull (text, &end, 10);
    while (isspace ((unsigned char) *end))
        end++;
    if (*end != '\0' || errno == ERANGE)
        return false;
    *out = (uint64_t) value;
    return true;
}

static int
s_parse_bool (const char *text, bool *out)
{
    static const char *const yes[] = { "true", "yes", "on", "1" };
    static const char *const no[] = { "false", "no", "off", "0" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp (text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp (text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

static const char *
s_enum_name (const s_enum_name_t *names, int value)
{
    for (int i = 0; names[i].name; i++)
        if (names[i].value == value)
            return names[i].name;
    return "?";
}

/* "a | b" listing the canonical names (first per value). */
static void
s_enum_list (const s_enum_name_t *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; names[i].name; i++) {
        bool first_of_value = true;
        for (int j = 0; j < i; j++)
            if (names[j].value == names[i].value)
                first_of_value = false;
        if (!first_of_value)
            continue;
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%s", len ? " | " : "", names[i].name);
    }
}

/* Human text for a range, e.g. "> 0", "within 0..1", "" for no limits. */
static void
s_range_text (const s_key_t *key, char *buf, size_t size)
{
    const s_range_t *r = &key->range;
    char lo[32], hi[32];
    bool integral = key->type == S_INT;
    if (integral) {
        snprintf (lo, sizeof lo, "%.0f", r->min);
        snprintf (hi, sizeof hi, "%.0f", r->max);
    }
    else {
        snprintf (lo, sizeof lo, "%.15g", r->min);
        snprintf (hi, sizeof hi, "%.15g", r->max);
    }
    bool has_min = isfinite (r->min), has_max = isfinite (r->max);
    const char *unset = (r->flags & S_ZERO_UNSET) ? " (or 0 = unset)" : "";
    if (has_min && has_max && !(r->flags & (S_MIN_EXCL | S_MAX_EXCL)))
        snprintf (buf, size, "within %s..%s%s", lo, hi, unset);
    else if (has_min && has_max)
        snprintf (buf, size, "%s %s and %s %s%s", (r->flags & S_MIN_EXCL) ? ">" : ">=", lo,
                  (r->flags & S_MAX_EXCL) ? "<" : "<=", hi, unset);
    else if (has_min)
        snprintf (buf, size, "%s %s%s", (r->flags & S_MIN_EXCL) ? ">" : ">=", lo, unset);
    else if (has_max)
        snprintf (buf, size, "%s %s%s", (r->flags & S_MAX_EXCL) ? "<" : "<=", hi, unset);
    else
        buf[0] = '\0';
}

static bool
s_in_range (const s_range_t *r, double value)
{
    if ((r->flags & S_ZERO_UNSET) && value == 0)
        return true;
    if (r->flags & S_MIN_EXCL ? !(value > r->min) : !(value >= r->min))
        return false;
    if (r->flags & S_MAX_EXCL ? !(value < r->max) : !(value <= r->max))
        return false;
    return true;
}

/* ---- one key: default, parse, format ------------------------------------ */

static void
s_key_default (const s_key_t *key, void *base)
{
    char *field = (char *) base + key->offset;
    switch (key->type) {
    case S_FLOAT:
        *(double *) field = key->def;
        break;
    case S_INT:
    case S_ENUM:
        /* every enum in sim_config.h is int-sized; checked at build time */
        *(int *) field = (int) key->def;
        break;
    case S_U64:
        *(uint64_t *) field = (uint64_t) key->def;
        break;
    case S_BOOL:
        *(bool *) field = key->def != 0;
        break;
    case S_STRING:
        s_copy_string (field, key->size, key->def_text ? key->def_text : "");
        break;
    case S_LIST:
        memset (field, 0, key->size * sizeof (double));
        *(int *) ((char *) base + key->count_offset) = 0;
        break;
    }
}

_Static_assert (sizeof (sim_mode_t) == sizeof (int), "enums are stored as int");
_Static_assert (sizeof (sim_division_t) == sizeof (int), "enums are stored as int");
_Static_assert (sizeof (sim_camera_phase_t) == sizeof (int), "enums are stored as int");
_Static_assert (sizeof (sim_drive_model_t) == sizeof (int), "enums are stored as int");

/* Parse `text` into the key's field; 0, or -1 with a reason in why. */
static int
s_key_parse (const s_key_t *key, void *base, const char *text, char *why, size_t whylen)
{
    char *field = (char *) base + key->offset;
    char range[96];
    switch (key->type) {
    case S_FLOAT: {
        double value;
        if (!s_parse_double (text, &value)) {
            s_set_err (why, whylen, "'%s' is not a finite number", text);
            return -1;
        }
        if (!s_in_range (&key->range, value)) {
            s_range_text (key, range, sizeof range);
            s_set_err (why, whylen, "%s is out of range (must be %s)", text, range);
            return -1;
        }
        *(double *) field = value;
        return 0;
    }
    case S_INT: {
        long value;
        if (!s_parse_long (text, &value)) {
            s_set_err (why, whylen, "'%s' is not an integer", text);
            return -1;
        }
        if (value < INT_MIN || value > INT_MAX || !s_in_range (&key->range, (double) value)) {
            s_range_text (key, range, sizeof range);
            s_set_err (why, whylen, "%s is out of range (must be %s)", text, range);
            return -1;
        }
        *(int *) field = (int) value;
        return 0;
    }
    case S_U64: {
        uint64_t value;
        if (!s_parse_u64 (text, &value)) {
            if (strcasecmp (text, "random") == 0)
                s_set_err (why, whylen, "'random' is accepted only on the command line "
                                        "(--seed random)");
            else
                s_set_err (why, whylen, "'%s' is not an integer within 0..18446744073709551615",
                           text);
            return -1;
        }
        *(uint64_t *) field = value;
        return 0;
    }
    case S_BOOL: {
        bool value;
        if (s_parse_bool (text, &value) != 0) {
            s_set_err (why, whylen, "'%s' is not a boolean (true/false, yes/no, on/off, 1/0)",
                       text);
            return -1;
        }
        *(bool *) field = value;
        return 0;
    }
    case S_ENUM:
        for (int i = 0; key->names[i].name; i++)
            if (strcasecmp (text, key->names[i].name) == 0) {
                *(int *) field = key->names[i].value;
                return 0;
            }
        s_enum_list (key->names, range, sizeof range);
        s_set_err (why, whylen, "'%s' is not one of %s", text, range);
        return -1;
    case S_STRING:
        if (strlen (text) >= key->size) {
            s_set_err (why, whylen, "value is longer than %zu characters", key->size - 1);
            return -1;
        }
        if (key->check && key->check (text, why, whylen) != 0)
            return -1;
        s_copy_string (field, key->size, text);
        return 0;
    case S_LIST: {
        double values[64];
        size_t count = 0;
        char item[64];
        const char *p = text;
        while (isspace ((unsigned char) *p))
            p++;
        while (*p) {
            const char *comma = strchr (p, ',');
            size_t len = comma ? (size_t) (comma - p) : strlen (p);
            if (count >= key->size) {
                s_set_err (why, whylen, "more than %zu values", key->size);
                return -1;
            }
            if (len >= sizeof item) {
                s_set_err (why, whylen, "list item too long");
                return -1;
            }
            memcpy (item, p, len);
            item[len] = '\0';
            if (!s_parse_double (item, &values[count])) {
                s_set_err (why, whylen, "'%s' is not a finite number", item);
                return -1;
            }
            count++;
            if (!comma)
                break;
            p = comma + 1;
            /* "1.0," would otherwise be accepted as a list of one */
            while (isspace ((unsigned char) *p))
                p++;
            if (*p == '\0') {
                s_set_err (why, whylen, "empty list item");
                return -1;
            }
        }
        memset (field, 0, key->size * sizeof (double));
        memcpy (field, values, count * sizeof (double));
        *(int *) ((char *) base + key->count_offset) = (int) count;
        return 0;
    }
    }
    return -1;
}

/* The key's value as INI text; false when it is unset and not written. */
static bool
s_key_format (const s_key_t *key, const void *base, char *buf, size_t size)
{
    const char *field = (const char *) base + key->offset;
    switch (key->type) {
    case S_FLOAT: {
        double value = *(const double *) field;
        if ((key->range.flags & S_ZERO_UNSET) && value == 0 && !signbit (value))
            return false;
        s_format_double (value, buf, size);
        return true;
    }
    case S_INT:
        snprintf (buf, size, "%d", *(const int *) field);
        return true;
    case S_U64:
        snprintf (buf, size, "%" PRIu64, *(const uint64_t *) field);
        return true;
    case S_BOOL:
        snprintf (buf, size, "%s", *(const bool *) field ? "true" : "false");
        return true;
    case S_ENUM:
        snprintf (buf, size, "%s", s_enum_name (key->names, *(const int *) field));
        return true;
    case S_STRING:
        /* an empty string is the default "unset" of every string key that
           defaults to empty; others are written even when empty */
        if (field[0] == '\0' && (!key->def_text || key->def_text[0] == '\0'))
            return false;
        snprintf (buf, size, "%s", field);
        return true;
    case S_LIST: {
        int count = *(const int *) ((const char *) base + key->count_offset);
        if (count <= 0)
            return false;
        /* inih reads at most 199 characters a line: drop the spaces after
           the commas when a list of long numbers would not fit */
        for (int pass = 0; pass < 2; pass++) {
            buf[0] = '\0';
            for (int i = 0; i < count; i++) {
                char item[40];
                s_format_double (((const double *) field)[i], item, sizeof item);
                size_t len = strlen (buf);
                snprintf (buf + len, size - len, "%s%s", i ? (pass ? "," : ", ") : "", item);
            }
            if (strlen (key->key) + 3 + strlen (buf) <= 199)
                break;
        }
        return true;
    }
    }
    return false;
}

/* ---- string checks ------------------------------------------------------ */

static int
s_check_log_level (const char *value, char *why, size_t whylen)
{
    if (sim_log_level_parse (value) >= 0)
        return 0;
    s_set_err (why, whylen, "'%s' is not one of error | warn | info | debug | trace | filter",
               value);
    return -1;
}

static int
s_check_addr (const char *value, char *why, size_t whylen)
{
    const char *colon = strrchr (value, ':');
    long port = 0;
    if (!colon || colon == value || !s_parse_long (colon + 1, &port) || port < 1
        || port > 65535) {
        s_set_err (why, whylen, "'%s' is not HOST:PORT (port 1..65535)", value);
        return -1;
    }
    return 0;
}

static int
s_check_ball_preset (const char *value, char *why, size_t whylen)
{
    sim_ball_cfg_t ball;
    if (value[0] == '\0' || sim_config_ball_preset (value, &ball) == 0)
        return 0;
    s_set_err (why, whylen, "unknown ball preset '%s' (choices: %s)", value,
               sim_config_ball_names ());
    return -1;
}

static int
s_check_limits_preset (const char *value, char *why, size_t whylen)
{
    sim_limits_t limits;
    if (value[0] == '\0' || sim_config_limits_preset (value, &limits) == 0)
        return 0;
    s_set_err (why, whylen, "unknown robot limits preset '%s' (choices: %s)", value,
               sim_config_limits_names ());
    return -1;
}

/* ---- defaults ----------------------------------------------------------- */

void
sim_config_defaults (sim_config_t *cfg)
{
    /* zero first: padding and unused array slots must compare equal */
    memset (cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < S_COUNT (s_keys); i++)
        s_key_default (&s_keys[i], cfg);
    for (int team = 0; team < 2; team++)
        for (size_t i = 0; i < S_COUNT (s_team_keys); i++)
            s_key_default (&s_team_keys[i], &cfg->team[team]);
}

/* ---- loading ------------------------------------------------------------ */

typedef struct {
    long number;
    int line;               /* where the section first appeared */
    unsigned seen;          /* bit per key of its table */
    union {
        sim_camera_cfg_t camera;
        sim_outage_cfg_t outage;
    } u;
} s_numbered_t;

typedef struct {
    sim_config_t *cfg;
    const char *origin;
    bool realism_only;      /* a realism file: [realism] or no section */
    /* input */
    FILE *file;
    const char *text;
    int line;
    int section_line;       /* line of the latest [section] header */
    /* first error */
    char *err;
    size_t errlen;
    bool failed;
    int fail_line;
    /* numbered sections, merged after the whole input is read */
    s_numbered_t cameras[SIM_MAX_CAMERAS];
    int camera_count;
    s_numbered_t outages[SIM_MAX_OUTAGES];
    int outage_count;
    /* warn about an unknown section once, not for each of its keys */
    char unknown_section[64];
} s_load_t;

static void
s_fail (s_load_t *self, const char *section, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void
s_fail (s_load_t *self, const char *section, const char *key, const char *fmt, ...)
{
    if (self->failed)
        return;
    self->failed = true;
    self->fail_line = self->line;
    char what[512];
    va_list args;
    va_start (args, fmt);
    vsnprintf (what, sizeof what, fmt, args);
    va_end (args);
    if (!section)
        s_set_err (self->err, self->errlen, "%s:%d: %s", self->origin, self->line, what);
    else if (key)
        s_set_err (self->err, self->errlen, "%s:%d: [%s] %s: %s", self->origin, self->line,
                   section, key, what);
    else
        s_set_err (self->err, self->errlen, "%s:%d: [%s]: %s", self->origin, self->line,
                   section, what);
}

/* Reads one line for inih and counts it. Leading whitespace is dropped so
   inih never takes an indented line as a multi-line continuation (the
   spec has no multi-line values). */
static char *
s_reader (char *str, int num, void *stream)
{
    s_load_t *self = (s_load_t *) stream;
    int c;
    int len = 0;
    bool any = false;
    bool leading = true;
    bool too_long = false;
    while (true) {
        if (self->file)
            c = fgetc (self->file);
        else
            c = *self->text ? (unsigned char) *self->text++ : EOF;
        if (c == EOF)
            break;
        any = true;
        if (c == '\n')
            break;
        if (leading && (c == ' ' || c == '\t'))
            continue;
        leading = false;
        if (len < num - 1)
            str[len++] = (char) c;
        else
            too_long = true;
    }
    if (!any)
        return NULL;
    self->line++;
    str[len] = '\0';
    if (str[0] == '[')
        self->section_line = self->line;
    if (too_long) {
        s_fail (self, NULL, NULL, "line longer than %d characters", num - 1);
        /* hand inih a comment so it does not act on the cut line */
        str[0] = ';';
        str[1] = '\0';
    }
    return str;
}

/* "camera 3" -> 3 when the section is WORD + one space + digits. */
static bool
s_numbered (const char *section, const char *word, long *number)
{
    size_t len = strlen (word);
    if (strncasecmp (section, word, len) != 0 || section[len] != ' ')
        return false;
    const char *digits = section + len + 1;
    if (!isdigit ((unsigned char) *digits))
        return false;
    for (const char *p = digits; *p; p++)
        if (!isdigit ((unsigned char) *p))
            return false;
    errno = 0;
    long value = strtol (digits, NULL, 10);
    if (errno == ERANGE || value > 1000000)
        return false;
    *number = value;
    return true;
}

static s_numbered_t *
s_numbered_slot (s_load_t *self, s_numbered_t *slots, int *count, int max, long number,
                 const char *section)
{
    for (int i = 0; i < *count; i++)
        if (slots[i].number == number)
            return &slots[i];
    if (*count >= max) {
        self->line = self->section_line;
        s_fail (self, section, NULL, "more than %d such sections", max);
        return NULL;
    }
    s_numbered_t *slot = &slots[(*count)++];
    memset (slot, 0, sizeof *slot);
    slot->number = number;
    slot->line = self->section_line;
    return slot;
}

static const s_key_t *
s_find_key (const s_key_t *keys, size_t count, const char *section, const char *key,
            size_t *index)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp (keys[i].section, section) == 0 && strcasecmp (keys[i].key, key) == 0) {
            if (index)
                *index = i;
            return &keys[i];
        }
    return NULL;
}

static bool
s_section_known (const s_key_t *keys, size_t count, const char *section)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp (keys[i].section, section) == 0)
            return true;
    return false;
}

static void
s_warn_unknown (s_load_t *self, const char *section, const char *key, bool section_unknown)
{
    if (section_unknown) {
        if (strcasecmp (self->unknown_section, section) == 0)
            return;
        snprintf (self->unknown_section, sizeof self->unknown_section, "%s", section);
        sim_warn ("%s:%d: unknown section [%s] ignored (first key %s)", self->origin, self->line,
                  section, key);
    }
    else
        sim_warn ("%s:%d: [%s] %s: unknown key ignored", self->origin, self->line, section, key);
}

static int
s_apply (s_load_t *self, const s_key_t *key, void *base, const char *section,
         const char *name, const char *value)
{
    char why[400];
    if (s_key_parse (key, base, value, why, sizeof why) != 0) {
        s_fail (self, section, name, "%s", why);
        return 0;
    }
    return 1;
}

/* A key of a [camera N] / [outage N] section, kept in its slot until the
   whole input is read. */
static int
s_numbered_key (s_load_t *self, const s_key_t *keys, size_t key_count, s_numbered_t *slots,
                int *slot_count, int max, long number, const char *section, const char *name,
                const char *value)
{
    size_t index;
    s_numbered_t *slot = s_numbered_slot (self, slots, slot_count, max, number, section);
    if (!slot)
        return 0;
    const s_key_t *key = s_find_key (keys, key_count, keys[0].section, name, &index);
    if (!key) {
        s_warn_unknown (self, section, name, false);
        return 1;
    }
    slot->seen |= 1u << index;
    return s_apply (self, key, &slot->u, section, name, value);
}

static int
s_handler (void *user, const char *section, const char *name, const char *value)
{
    s_load_t *self = (s_load_t *) user;
    if (self->failed)
        return 0;
    sim_config_t *cfg = self->cfg;
    long number;

    if (self->realism_only) {
        if (section[0] != '\0' && strcasecmp (section, "realism") != 0) {
            s_warn_unknown (self, section, name, true);
            return 1;
        }
        const s_key_t *key = s_find_key (s_keys, S_COUNT (s_keys), "realism", name, NULL);
        if (!key) {
            s_warn_unknown (self, section[0] ? section : "realism", name, false);
            return 1;
        }
        return s_apply (self, key, cfg, section[0] ? section : "realism", name, value);
    }

    /* team sections: "blue", "blue.limits", ... share one key table */
    for (int team = 0; team < 2; team++) {
        size_t len = strlen (s_team_names[team]);
        if (strncasecmp (section, s_team_names[team], len) != 0)
            continue;
        const char *sub;
        if (section[len] == '\0')
            sub = "";
        else if (section[len] == '.')
            sub = section + len + 1;
        else
            continue;
        if (!s_section_known (s_team_keys, S_COUNT (s_team_keys), sub)) {
            s_warn_unknown (self, section, name, true);
            return 1;
        }
        const s_key_t *key = s_find_key (s_team_keys, S_COUNT (s_team_keys), sub, name, NULL);
        if (!key) {
            s_warn_unknown (self, section, name, false);
            return 1;
        }
        return s_apply (self, key, &cfg->team[team], section, name, value);
    }

    if (s_numbered (section, "camera", &number))
        return s_numbered_key (self, s_camera_keys, S_COUNT (s_camera_keys), self->cameras,
                               &self->camera_count, SIM_MAX_CAMERAS, number, section, name,
                               value);
    if (s_numbered (section, "outage", &number))
        return s_numbered_key (self, s_outage_keys, S_COUNT (s_outage_keys), self->outages,
                               &self->outage_count, SIM_MAX_OUTAGES, number, section, name,
                               value);

    if (!s_section_known (s_keys, S_COUNT (s_keys), section)) {
        s_warn_unknown (self, section[0] ? section : "(none)", name, true);
        return 1;
    }
    const s_key_t *key = s_find_key (s_keys, S_COUNT (s_keys), section, name, NULL);
    if (!key) {
        s_warn_unknown (self, section, name, false);
        return 1;
    }
    return s_apply (self, key, cfg, section, name, value);
}

static int
s_compare_numbered (const void *a, const void *b)
{
    long na = ((const s_numbered_t *) a)->number;
    long nb = ((const s_numbered_t *) b)->number;
    return (na > nb) - (na < nb);
}

/* Check the numbered sections and replace the lists they describe. */
static void
s_merge_numbered (s_load_t *self)
{
    sim_vision_cfg_t *vision = &self->cfg->vision;
    char section[48];
    if (self->camera_count > 0) {
        qsort (self->cameras, (size_t) self->camera_count, sizeof self->cameras[0],
               s_compare_numbered);
        for (int i = 0; i < self->camera_count && !self->failed; i++) {
            s_numbered_t *slot = &self->cameras[i];
            snprintf (section, sizeof section, "camera %ld", slot->number);
            /* bit 0 is id, which defaults to the section number */
            if (!(slot->seen & 1u))
                slot->u.camera.id = (int) slot->number;
            for (size_t k = 1; k < S_COUNT (s_camera_keys); k++)
                if (!(slot->seen & (1u << k))) {
                    self->line = slot->line;
                    s_fail (self, section, s_camera_keys[k].key, "missing (a camera needs x, y and z)");
                    return;
                }
        }
        memset (vision->cameras, 0, sizeof vision->cameras);
        for (int i = 0; i < self->camera_count; i++)
            vision->cameras[i] = self->cameras[i].u.camera;
        vision->camera_count = self->camera_count;
    }
    if (self->outage_count > 0) {
        qsort (self->outages, (size_t) self->outage_count, sizeof self->outages[0],
               s_compare_numbered);
        for (int i = 0; i < self->outage_count; i++) {
            s_numbered_t *slot = &self->outages[i];
            snprintf (section, sizeof section, "outage %ld", slot->number);
            for (size_t k = 0; k < S_COUNT (s_outage_keys); k++)
                if (!(slot->seen & (1u << k))) {
                    self->line = slot->line;
                    s_fail (self, section, s_outage_keys[k].key,
                            "missing (an outage needs start and duration)");
                    return;
                }
        }
        memset (vision->outages, 0, sizeof vision->outages);
        for (int i = 0; i < self->outage_count; i++)
            vision->outages[i] = self->outages[i].u.outage;
        vision->outage_count = self->outage_count;
    }
}

static int
s_load (s_load_t *self)
{
    int rc = ini_parse_stream (s_reader, self, s_handler, self);
    /* inih returns the first line it or the handler refused; when that is
       before our own first error, it is a line that is neither a section,
       a key = value, nor a comment */
    if (rc > 0 && (!self->failed || rc < self->fail_line)) {
        self->failed = true;
        s_set_err (self->err, self->errlen, "%s:%d: syntax error (expected [section], "
                   "key = value or a ; comment)", self->origin, rc);
    }
    if (!self->failed)
        s_merge_numbered (self);
    return self->failed ? -1 : 0;
}

int
sim_config_load_string (sim_config_t *cfg, const char *text, const char *origin, char *err,
                        size_t errlen)
{
    s_load_t *self = (s_load_t *) calloc (1, sizeof (s_load_t));
    if (!self) {
        s_set_err (err, errlen, "out of memory");
        return -1;
    }
    self->cfg = cfg;
    self->origin = origin ? origin : "(string)";
    self->text = text ? text : "";
    self->err = err;
    self->errlen = errlen;
    int rc = s_load (self);
    free (self);
    return rc;
}

static int
s_load_file (sim_config_t *cfg, const char *path, bool realism_only, char *err, size_t errlen)
{
    FILE *file = fopen (path, "r");
    if (!file) {
        s_set_err (err, errlen, "%s: cannot read: %s", path, strerror (errno));
        return -1;
    }
    s_load_t *self = (s_load_t *) calloc (1, sizeof (s_load_t));
    if (!self) {
        fclose (file);
        s_set_err (err, errlen, "out of memory");
        return -1;
    }
    self->cfg = cfg;
    self->origin = path;
    self->file = file;
    self->realism_only = realism_only;
    self->err = err;
    self->errlen = errlen;
    int rc = s_load (self);
    if (rc == 0 && ferror (file)) {
        s_set_err (err, errlen, "%s: read error", path);
        rc = -1;
    }
    free (self);
    fclose (file);
    return rc;
}

int
sim_config_load_file (sim_config_t *cfg, const char *path, char *err, size_t errlen)
{
    if (!path) {
        s_set_err (err, errlen, "no configuration file given");
        return -1;
    }
    return s_load_file (cfg, path, false, err, errlen);
}

/* ---- presets ------------------------------------------------------------ */

int
sim_config_apply_realism (sim_config_t *cfg, const char *name_or_file, char *err,
                          size_t errlen)
{
    sim_realism_t realism;
    if (!name_or_file || name_or_file[0] == '\0') {
        s_set_err (err, errlen, "empty realism name (choices: %s, or an INI file)",
                   sim_config_realism_names ());
        return -1;
    }
    if (sim_config_realism_preset (name_or_file, &realism) != 0) {
        FILE *probe = fopen (name_or_file, "r");
        if (!probe) {
            s_set_err (err, errlen, "unknown realism '%s': not a preset (%s) and not a "
                       "readable file", name_or_file, sim_config_realism_names ());
            return -1;
        }
        fclose (probe);
        /* missing keys of a realism file take the realistic values */
        sim_config_t *scratch = (sim_config_t *) malloc (sizeof (sim_config_t));
        if (!scratch) {
            s_set_err (err, errlen, "out of memory");
            return -1;
        }
        sim_config_defaults (scratch);
        sim_config_realism_preset ("realistic", &scratch->realism);
        int rc = s_load_file (scratch, name_or_file, true, err, errlen);
        realism = scratch->realism;
        free (scratch);
        if (rc != 0)
            return -1;
    }
    cfg->realism = realism;
    /* physics.md §9.8: the glue flag follows simulate_dribbling */
    for (int team = 0; team < 2; team++)
        cfg->team[team].dribbler.glue = !realism.simulate_dribbling;
    return 0;
}

int
sim_config_apply_ball_preset (sim_config_t *cfg, const char *name, char *err, size_t errlen)
{
    sim_ball_cfg_t ball;
    if (sim_config_ball_preset (name, &ball) != 0) {
        s_set_err (err, errlen, "unknown ball preset '%s' (choices: %s)", name ? name : "",
                   sim_config_ball_names ());
        return -1;
    }
    cfg->ball = ball;
    return 0;
}

int
sim_config_apply_robot_limits (sim_config_t *cfg, const char *name, char *err, size_t errlen)
{
    sim_limits_t limits;
    if (sim_config_limits_preset (name, &limits) != 0) {
        s_set_err (err, errlen, "unknown robot limits preset '%s' (choices: %s)",
                   name ? name : "", sim_config_limits_names ());
        return -1;
    }
    cfg->team[SIM_TEAM_BLUE].limits = limits;
    cfg->team[SIM_TEAM_YELLOW].limits = limits;
    return 0;
}

int
sim_config_apply_run_presets (sim_config_t *cfg, char *err, size_t errlen)
{
    char why[1024];
    if (cfg->run.realism[0] && sim_config_apply_realism (cfg, cfg->run.realism, why, sizeof why)) {
        s_set_err (err, errlen, "realism: %s", why);
        return -1;
    }
    if (cfg->run.ball_preset[0]
        && sim_config_apply_ball_preset (cfg, cfg->run.ball_preset, why, sizeof why)) {
        s_set_err (err, errlen, "ball preset: %s", why);
        return -1;
    }
    if (cfg->run.robot_limits[0]
        && sim_config_apply_robot_limits (cfg, cfg->run.robot_limits, why, sizeof why)) {
        s_set_err (err, errlen, "robot limits: %s", why);
        return -1;
    }
    return 0;
}

/* Every key of `keys` (in `section`, or all when section is NULL) as the
   loader would check it: the value is written as INI text and parsed into
   a scratch copy of the base struct, so one set of rules serves both. */
static int
s_check_keys (const s_key_t *keys, size_t count, const char *section, const void *base,
              size_t base_size, const char *title, char *err, size_t errlen)
{
    char *scratch = (char *) malloc (base_size);
    if (!scratch) {
        s_set_err (err, errlen, "out of memory");
        return -1;
    }
    memcpy (scratch, base, base_size);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const s_key_t *key = &keys[i];
        if (section && strcmp (key->section, section) != 0)
            continue;
        char value[SIM_STRING_MAX + 512];
        char why[400];
        const char *field = (const char *) base + key->offset;
        if (key->type == S_STRING && !memchr (field, '\0', key->size)) {
            s_set_err (err, errlen, "[%s] %s: not terminated", title, key->key);
            rc = -1;
        }
        else if (key->type == S_LIST
                 && (*(const int *) ((const char *) base + key->count_offset) < 0
                     || *(const int *) ((const char *) base + key->count_offset)
                            > (int) key->size)) {
            s_set_err (err, errlen, "[%s] %s: bad item count", title, key->key);
            rc = -1;
        }
        else if (s_key_format (key, base, value, sizeof value)
                 && s_key_parse (key, scratch, value, why, sizeof why) != 0) {
            s_set_err (err, errlen, "[%s] %s: %s", title, key->key, why);
            rc = -1;
        }
    }
    free (scratch);
    return rc;
}

/* The range and type checks of the loader, applied to a struct. */
static int
s_check_all_keys (const sim_config_t *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < S_COUNT (s_keys); i++) {
        /* one call per section keeps the section name in the message */
        if (i > 0 && strcmp (s_keys[i].section, s_keys[i - 1].section) == 0)
            continue;
        if (s_check_keys (s_keys, S_COUNT (s_keys), s_keys[i].section, cfg, sizeof *cfg,
                          s_keys[i].section, err, errlen) != 0)
            return -1;
    }
    char title[64];
    for (int team = 0; team < 2; team++)
        for (size_t s = 0; s < S_COUNT (s_team_subsections); s++) {
            const char *sub = s_team_subsections[s];
            snprintf (title, sizeof title, "%s%s%s", s_team_names[team], sub[0] ? "." : "", sub);
            if (s_check_keys (s_team_keys, S_COUNT (s_team_keys), sub, &cfg->team[team],
                              sizeof cfg->team[team], title, err, errlen) != 0)
                return -1;
        }
    const sim_vision_cfg_t *vision = &cfg->vision;
    if (vision->camera_count < 0 || vision->camera_count > SIM_MAX_CAMERAS
        || vision->outage_count < 0 || vision->outage_count > SIM_MAX_OUTAGES) {
        s_set_err (err, errlen, "[vision] camera_count or outage_count out of range");
        return -1;
    }
    for (int i = 0; i < vision->camera_count; i++) {
        snprintf (title, sizeof title, "camera %d", i);
        if (s_check_keys (s_camera_keys, S_COUNT (s_camera_keys), NULL, &vision->cameras[i],
                          sizeof vision->cameras[i], title, err, errlen) != 0)
            return -1;
    }
    for (int i = 0; i < vision->outage_count; i++) {
        snprintf (title, sizeof title, "outage %d", i);
        if (s_check_keys (s_outage_keys, S_COUNT (s_outage_keys), NULL, &vision->outages[i],
                          sizeof vision->outages[i], title, err, errlen) != 0)
            return -1;
    }
    return 0;
}

int
sim_config_validate (const sim_config_t *cfg, char *err, size_t errlen)
{
    if (s_check_all_keys (cfg, err, errlen) != 0)
        return -1;
    /* the substep is counted in whole nanoseconds (physics.md §2) */
    double ns = cfg->sim.substep * 1e9;
    if (!(ns >= 1) || fabs (ns - round (ns)) > 1e-3) {
        s_set_err (err, errlen, "[sim] substep (%.17g s) must be a whole number of "
                   "nanoseconds, at least 1 ns", cfg->sim.substep);
        return -1;
    }
    for (int team = 0; team < 2; team++) {
        const sim_robot_specs_t *specs = &cfg->team[team];
        const char *name = s_team_names[team];
        if (!(specs->center_to_dribbler < specs->radius)) {
            s_set_err (err, errlen, "[%s] center_to_dribbler (%g) must be below radius (%g)",
                       name, specs->center_to_dribbler, specs->radius);
            return -1;
        }
        double seated = specs->center_to_dribbler + cfg->ball.radius - specs->dribbler.seat_depth;
        /* the default is exactly equal; allow for rounding of the sum */
        if (specs->shoot_radius < seated - 1e-9) {
            s_set_err (err, errlen, "[%s] shoot_radius (%g) must be at least center_to_dribbler "
                       "+ ball radius - seat_depth (%g)", name, specs->shoot_radius, seated);
            return -1;
        }
    }
    const sim_network_cfg_t *net = &cfg->network;
    const int ports[] = { net->control_port, net->blue_port, net->yellow_port,
                          net->legacy_port, net->legacy_status_port_blue,
                          net->legacy_status_port_yellow, net->truth_port };
    for (size_t i = 0; i < S_COUNT (ports); i++)
        if (ports[i] + net->port_offset > 65535 || ports[i] + net->port_offset < 1) {
            s_set_err (err, errlen, "[network] port_offset %d moves port %d outside 1..65535",
                       net->port_offset, ports[i]);
            return -1;
        }
    if (cfg->realism.vision_processing_time > cfg->realism.vision_delay)
        sim_warn ("[realism] vision_processing_time (%g s) exceeds vision_delay (%g s)",
                  cfg->realism.vision_processing_time, cfg->realism.vision_delay);
    return 0;
}

/* ---- small public helpers ----------------------------------------------- */

int
sim_config_port (const sim_config_t *cfg, int base_port)
{
    return base_port + cfg->network.port_offset;
}

const char *
sim_config_mode_name (sim_mode_t mode)
{
    switch (mode) {
    case SIM_MODE_REALTIME: return "realtime";
    case SIM_MODE_FAST: return "fast";
    case SIM_MODE_SYNC: return "sync";
    }
    return "?";
}

const char *
sim_config_division_name (sim_division_t division)
{
    switch (division) {
    case SIM_DIVISION_A: return "a";
    case SIM_DIVISION_B: return "b";
    }
    return "?";
}

/* ---- the INI dump ------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
    bool oom;
} s_out_t;

static void
s_out (s_out_t *out, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static void
s_out (s_out_t *out, const char *fmt, ...)
{
    if (out->oom)
        return;
    va_list args;
    va_start (args, fmt);
    int n = vsnprintf (NULL, 0, fmt, args);
    va_end (args);
    if (n < 0) {
        out->oom = true;
        return;
    }
    if (out->len + (size_t) n + 1 > out->cap) {
        size_t cap = out->cap ? out->cap : 8192;
        while (out->len + (size_t) n + 1 > cap)
            cap *= 2;
        char *grown = (char *) realloc (out->buf, cap);
        if (!grown) {
            out->oom = true;
            return;
        }
        out->buf = grown;
        out->cap = cap;
    }
    va_start (args, fmt);
    vsnprintf (out->buf + out->len, out->cap - out->len, fmt, args);
    va_end (args);
    out->len += (size_t) n;
}

static const char *const s_header =
    "; ssl-sim built-in defaults, printed by `ssl-sim presets`.\n"
    "; Edit a copy and start with `ssl-sim run --config <copy>`.\n"
    ";\n"
    "; --realism choices:\n"
    ";   none               perfect vision: no noise or loss, only the 35 ms delay\n"
    ";   realistic          default; fitted to ten 2026 tournament games\n"
    ";   go26               German Open 2026 venue: many false balls from robot LEDs\n"
    ";   rc26               RoboCup 2026 venue: few false balls, ~2.3 cm camera offset\n"
    ";   erforce_friendly   ER-Force's \"Friendly\" values (alias: friendly)\n"
    ";   erforce_realistic  ER-Force's \"Realistic\" values\n"
    ";   erforce_rc2021     ER-Force's \"RC2021\" values, glued dribbler (alias: rc2021)\n"
    ";\n"
    "; --ball-preset choices:\n"
    ";   default  2026 fit with speed-dependent rolling (alias: measured)\n"
    ";   go26     German Open 2026 carpet\n"
    ";   rc26     RoboCup 2026 carpet\n"
    ";   erforce  ball constants advertised by ER-Force's simulator\n"
    ";   tigers   ball constants advertised by TIGERs\n"
    ";   grsim    grSim-like ball\n"
    ";\n"
    "; --robot-limits choices:\n"
    ";   default  limits fitted to 2026 games (alias: measured)\n"
    ";   tigers   TIGERs Mannheim fleet\n"
    ";   erforce  ER-Force fleet\n"
    ";   kiks     KIKS fleet\n"
    ";   fast     fastest fleet seen in the logs\n"
    ";   grsim    grSim's loose limits\n"
    ";\n"
    "; --division choices: a (12 x 9 m), b (9 x 6 m)\n"
    "; --cameras choices: 1 (one central camera), 2 (default), 4 (one per quadrant)\n"
    "; A preset flag replaces its whole section; anything a preset sets can\n"
    "; also be written out in this file instead.\n";

/* One "; help [unit] (range)" comment line for the annotated dump. */
static void
s_dump_help (s_out_t *out, const s_key_t *key)
{
    char range[96];
    char choices[96];
    s_range_text (key, range, sizeof range);
    if (key->type == S_ENUM) {
        s_enum_list (key->names, choices, sizeof choices);
        snprintf (range, sizeof range, "%s", choices);
    }
    s_out (out, "; %s", key->help);
    if (key->unit && key->unit[0])
        s_out (out, " [%s]", key->unit);
    if (range[0] && key->type != S_ENUM)
        s_out (out, " (%s)", range);
    s_out (out, "\n");
}

/* Every key of `keys` whose table section is `section`, read from base. */
static void
s_dump_keys (s_out_t *out, const s_key_t *keys, size_t count, const char *section,
             const void *base, bool annotated)
{
    char value[SIM_STRING_MAX + 512];
    for (size_t i = 0; i < count; i++) {
        const s_key_t *key = &keys[i];
        if (strcmp (key->section, section) != 0)
            continue;
        if (annotated)
            s_dump_help (out, key);
        if (s_key_format (key, base, value, sizeof value))
            s_out (out, "%s = %s\n", key->key, value);
        else if (key->unset_note)
            s_out (out, "; %s\n", key->unset_note);
    }
}

static void
s_dump_global (s_out_t *out, const sim_config_t *cfg, const char *section, bool annotated)
{
    s_out (out, "\n[%s]\n", section);
    s_dump_keys (out, s_keys, S_COUNT (s_keys), section, cfg, annotated);
}

static char *
s_dump (const sim_config_t *cfg, bool with_header, bool annotated)
{
    s_out_t out = { NULL, 0, 0, false };
    if (with_header)
        s_out (&out, "%s", s_header);
    else
        s_out (&out, "; ssl-sim configuration\n");

    s_dump_global (&out, cfg, "sim", annotated);
    s_dump_global (&out, cfg, "ball", annotated);
    s_dump_global (&out, cfg, "contact", annotated);

    for (int team = 0; team < 2; team++)
        for (size_t s = 0; s < S_COUNT (s_team_subsections); s++) {
            const char *sub = s_team_subsections[s];
            s_out (&out, "\n");
            if (strcmp (sub, "wheel_angles") == 0 && team == 0)
                s_out (&out, "; CCW from robot +x, protocol order; the wire message is "
                             "clockwise (negated)\n");
            s_out (&out, "[%s%s%s]\n", s_team_names[team], sub[0] ? "." : "", sub);
            s_dump_keys (&out, s_team_keys, S_COUNT (s_team_keys), sub, &cfg->team[team],
                         annotated);
        }

    s_dump_global (&out, cfg, "vision", annotated);
    const sim_vision_cfg_t *vision = &cfg->vision;
    if (vision->camera_count <= 0)
        s_out (&out, "\n; Explicit cameras replace the auto-placement, e.g.\n"
                     "; [camera 0]\n; id = 0\n; x = 2.4\n; y = 0.0\n; z = 6.4\n");
    for (int i = 0; i < vision->camera_count && i < SIM_MAX_CAMERAS; i++) {
        s_out (&out, "\n[camera %d]\n", i);
        s_dump_keys (&out, s_camera_keys, S_COUNT (s_camera_keys), "camera",
                     &vision->cameras[i], annotated);
    }
    if (vision->outage_count <= 0)
        s_out (&out, "%s; Scripted vision outages (sim seconds), e.g.\n"
                     "; [outage 0]\n; start = 120.0\n; duration = 310.0\n",
               vision->camera_count <= 0 ? ";\n" : "\n");
    for (int i = 0; i < vision->outage_count && i < SIM_MAX_OUTAGES; i++) {
        s_out (&out, "\n[outage %d]\n", i);
        s_dump_keys (&out, s_outage_keys, S_COUNT (s_outage_keys), "outage",
                     &vision->outages[i], annotated);
    }

    s_dump_global (&out, cfg, "realism", annotated);
    s_out (&out, "\n; Field sizes: 0 = the division's size (physics.md §3.1)");
    s_dump_global (&out, cfg, "field", annotated);
    s_dump_global (&out, cfg, "run", annotated);
    s_dump_global (&out, cfg, "network", annotated);
    s_out (&out, "\n; Bus endpoints: empty = an automatic ipc:// path in the runtime directory");
    s_dump_global (&out, cfg, "bus", annotated);

    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}

char *
sim_config_dump (const sim_config_t *cfg, bool with_header)
{
    return s_dump (cfg, with_header, false);
}

char *
sim_config_dump_annotated (const sim_config_t *cfg)
{
    return s_dump (cfg, true, true);
}

/* ---- command line ------------------------------------------------------- */

typedef enum {
    F_KEY,                  /* sets (section, key) from the argument or `fixed` */
    F_CONFIG, F_STEP_MS, F_CAMERAS, F_SEED
} s_flag_kind_t;

typedef struct {
    const char *name;
    bool has_arg;
    s_flag_kind_t kind;
    const char *section, *key;
    const char *fixed;      /* value of an argument-less F_KEY flag */
} s_flag_t;

static const s_flag_t s_flags[] = {
    { "--config", true, F_CONFIG, NULL, NULL, NULL },
    { "--division", true, F_KEY, "run", "division", NULL },
    { "--robots", true, F_KEY, "sim", "initial_robots_per_team", NULL },
    { "--mode", true, F_KEY, "run", "mode", NULL },
    { "--speed", true, F_KEY, "run", "speed", NULL },
    { "--step-ms", true, F_STEP_MS, NULL, NULL, NULL },
    { "--realism", true, F_KEY, "run", "realism", NULL },
    { "--ball-preset", true, F_KEY, "run", "ball_preset", NULL },
    { "--robot-limits", true, F_KEY, "run", "robot_limits", NULL },
    { "--cameras", true, F_CAMERAS, NULL, NULL, NULL },
    { "--seed", true, F_SEED, NULL, NULL, NULL },
    { "--vision-addr", true, F_KEY, "run", "vision_addr", NULL },
    { "--localhost", false, F_KEY, "run", "localhost", "true" },
    { "--truth", false, F_KEY, "run", "truth", "true" },
    { "--no-legacy-grsim", false, F_KEY, "run", "legacy_grsim", "false" },
    { "--duration", true, F_KEY, "run", "duration", NULL },
    { "--log-level", true, F_KEY, "run", "log_level", NULL },
    { "--port-offset", true, F_KEY, "network", "port_offset", NULL },
};

typedef struct {
    const s_flag_t *flag;
    const char *value;
} s_option_t;

/* Apply one flag other than --config; 0 or -1 with err. */
static int
s_apply_flag (sim_config_t *cfg, const s_option_t *opt, char *err, size_t errlen)
{
    const s_flag_t *flag = opt->flag;
    const char *value = flag->has_arg ? opt->value : flag->fixed;
    char why[400];
    switch (flag->kind) {
    case F_KEY: {
        const s_key_t *key = s_find_key (s_keys, S_COUNT (s_keys), flag->section, flag->key,
                                         NULL);
        /* the flag says "> 0"; only the file keeps 0 = forever */
        if (strcmp (flag->name, "--duration") == 0) {
            double seconds;
            if (!s_parse_double (value, &seconds) || !(seconds > 0)) {
                s_set_err (err, errlen, "%s: '%s' must be a number of seconds > 0",
                           flag->name, value);
                return -1;
            }
        }
        if (s_key_parse (key, cfg, value, why, sizeof why) != 0) {
            s_set_err (err, errlen, "%s: %s", flag->name, why);
            return -1;
        }
        return 0;
    }
    case F_STEP_MS: {
        double ms;
        if (!s_parse_double (value, &ms) || !(ms > 0)) {
            s_set_err (err, errlen, "--step-ms: '%s' must be a finite number > 0", value);
            return -1;
        }
        cfg->sim.substep = ms / 1000.0;
        return 0;
    }
    case F_CAMERAS: {
        long count;
        if (!s_parse_long (value, &count) || (count != 1 && count != 2 && count != 4)) {
            s_set_err (err, errlen, "--cameras: '%s' must be 1, 2 or 4", value);
            return -1;
        }
        cfg->vision.default_camera_count = (int) count;
        cfg->vision.camera_count = 0;
        memset (cfg->vision.cameras, 0, sizeof cfg->vision.cameras);
        return 0;
    }
    case F_SEED: {
        if (strcasecmp (value, "random") == 0) {
            /* physics.md §11.2: wall-clock nanoseconds through the avalanche */
            struct timespec now;
            clock_gettime (CLOCK_REALTIME, &now);
            uint64_t ns = (uint64_t) now.tv_sec * 1000000000u + (uint64_t) now.tv_nsec;
            cfg->sim.seed = sim_rng_avalanche (ns);
            return 0;
        }
        uint64_t seed;
        if (!s_parse_u64 (value, &seed)) {
            s_set_err (err, errlen, "--seed: '%s' must be an integer within "
                       "0..18446744073709551615 or 'random'", value);
            return -1;
        }
        cfg->sim.seed = seed;
        return 0;
    }
    case F_CONFIG:
        break;
    }
    return 0;
}

/* A realism file named in [run] of a config file is looked up next to
   that file when it is not found from the current directory. */
static void
s_resolve_realism_path (sim_config_t *cfg, const char *config_path)
{
    const char *name = cfg->run.realism;
    sim_realism_t preset;
    if (name[0] == '\0' || name[0] == '/' || sim_config_realism_preset (name, &preset) == 0
        || access (name, R_OK) == 0)
        return;
    const char *slash = strrchr (config_path, '/');
    if (!slash)
        return;
    char joined[sizeof cfg->run.realism];
    int n = snprintf (joined, sizeof joined, "%.*s/%s", (int) (slash - config_path),
                      config_path, name);
    if (n > 0 && (size_t) n < sizeof joined && access (joined, R_OK) == 0)
        s_copy_string (cfg->run.realism, sizeof cfg->run.realism, joined);
}

int
sim_config_from_args (sim_config_t *cfg, int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 0 || (argc > 0 && !argv)) {
        s_set_err (err, errlen, "no arguments");
        return -1;
    }
    s_option_t *options = (s_option_t *) calloc ((size_t) argc + 1, sizeof (s_option_t));
    if (!options) {
        s_set_err (err, errlen, "out of memory");
        return -1;
    }
    int count = 0;
    int rc = -1;

    /* pass 1: recognise every option before acting on any */
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!arg || strncmp (arg, "--", 2) != 0) {
            s_set_err (err, errlen, "unexpected argument '%s' (options start with --)",
                       arg ? arg : "(null)");
            goto done;
        }
        const char *equals = strchr (arg, '=');
        size_t name_len = equals ? (size_t) (equals - arg) : strlen (arg);
        const s_flag_t *flag = NULL;
        for (size_t f = 0; f < S_COUNT (s_flags); f++)
            if (strlen (s_flags[f].name) == name_len
                && strncmp (s_flags[f].name, arg, name_len) == 0)
                flag = &s_flags[f];
        if (!flag) {
            s_set_err (err, errlen, "unknown option '%.*s'", (int) name_len, arg);
            goto done;
        }
        const char *value = NULL;
        if (flag->has_arg) {
            if (equals)
                value = equals + 1;
            else if (i + 1 < argc && argv[i + 1] && strncmp (argv[i + 1], "--", 2) != 0)
                value = argv[++i];
            else {
                s_set_err (err, errlen, "option %s needs a value", flag->name);
                goto done;
            }
        }
        else if (equals) {
            s_set_err (err, errlen, "option %s takes no value", flag->name);
            goto done;
        }
        options[count].flag = flag;
        options[count].value = value;
        count++;
    }

    /* pass 2: files first, whatever their position among the flags */
    for (int i = 0; i < count; i++) {
        if (options[i].flag->kind != F_CONFIG)
            continue;
        char before[sizeof cfg->run.realism];
        memcpy (before, cfg->run.realism, sizeof before);
        if (sim_config_load_file (cfg, options[i].value, err, errlen) != 0)
            goto done;
        if (strcmp (before, cfg->run.realism) != 0)
            s_resolve_realism_path (cfg, options[i].value);
    }

    /* pass 3: the flags in order (a later repeat wins) */
    for (int i = 0; i < count; i++)
        if (options[i].flag->kind != F_CONFIG && s_apply_flag (cfg, &options[i], err, errlen) != 0)
            goto done;

    /* the environment wins over file and flag (config.md §4) */
    const char *env = getenv ("SSL_SIM_LOG");
    if (env && sim_log_level_parse (env) >= 0 && strlen (env) < sizeof cfg->run.log_level)
        s_copy_string (cfg->run.log_level, sizeof cfg->run.log_level, env);

    /* preset names of [run] or of the flags replace whole tables last */
    if (sim_config_apply_run_presets (cfg, err, errlen) != 0)
        goto done;
    /* physics.md §9.8: the glue flag follows realism, at startup too */
    for (int team = 0; team < 2; team++)
        cfg->team[team].dribbler.glue = !cfg->realism.simulate_dribbling;
    if (sim_config_validate (cfg, err, errlen) != 0)
        goto done;
    rc = 0;
done:
    free (options);
    return rc;
}

/* ---- the key reference -------------------------------------------------- */

static void
s_doc_keys (s_out_t *out, const s_key_t *keys, size_t count, const char *section,
            const char *title, const void *base)
{
    s_out (out, "\n### %s\n\n| Key | Type | Unit | Default | Range | Meaning |\n"
                "|---|---|---|---|---|---|\n", title);
    static const char *const type_names[] = { "float", "int", "u64", "bool", "enum",
                                              "string", "list" };
    for (size_t i = 0; i < count; i++) {
        const s_key_t *key = &keys[i];
        if (strcmp (key->section, section) != 0)
            continue;
        char value[SIM_STRING_MAX + 512];
        char range[128];
        if (!s_key_format (key, base, value, sizeof value))
            snprintf (value, sizeof value, "(unset)");
        if (key->type == S_ENUM)
            s_enum_list (key->names, range, sizeof range);
        else
            s_range_text (key, range, sizeof range);
        /* a literal | would split the markdown cell */
        for (char *p = range; *p; p++)
            if (*p == '|')
                *p = '/';
        char help[256];
        snprintf (help, sizeof help, "%s", key->help);
        for (char *p = help; *p; p++)
            if (*p == '|')
                *p = '/';
        s_out (out, "| %s | %s | %s | %s | %s | %s |\n", key->key, type_names[key->type],
               key->unit && key->unit[0] ? key->unit : "-", value[0] ? value : "\"\"",
               range[0] ? range : "-", help);
    }
}

char *
sim_config_doc_markdown (void)
{
    sim_config_t *cfg = (sim_config_t *) malloc (sizeof (sim_config_t));
    if (!cfg)
        return NULL;
    sim_config_defaults (cfg);
    s_out_t out = { NULL, 0, 0, false };
    s_out (&out, "<!-- generated from the key table of common/config.c by "
                 "sim_config_doc_markdown(); do not edit by hand -->\n");
    static const char *const globals[][2] = {
        { "sim", "[sim]" }, { "ball", "[ball]" }, { "contact", "[contact]" },
    };
    for (size_t i = 0; i < S_COUNT (globals); i++)
        s_doc_keys (&out, s_keys, S_COUNT (s_keys), globals[i][0], globals[i][1], cfg);
    for (size_t s = 0; s < S_COUNT (s_team_subsections); s++) {
        char title[64];
        const char *sub = s_team_subsections[s];
        snprintf (title, sizeof title, "[blue%s%s] and [yellow%s%s]", sub[0] ? "." : "", sub,
                  sub[0] ? "." : "", sub);
        s_doc_keys (&out, s_team_keys, S_COUNT (s_team_keys), sub, title, &cfg->team[0]);
    }
    s_doc_keys (&out, s_keys, S_COUNT (s_keys), "vision", "[vision]", cfg);
    sim_camera_cfg_t camera = { 0 };
    sim_outage_cfg_t outage = { 0 };
    s_doc_keys (&out, s_camera_keys, S_COUNT (s_camera_keys), "camera",
                "[camera N] (x, y and z required)", &camera);
    s_doc_keys (&out, s_outage_keys, S_COUNT (s_outage_keys), "outage",
                "[outage N] (start and duration required)", &outage);
    static const char *const rest[][2] = {
        { "realism", "[realism]" }, { "field", "[field]" }, { "run", "[run]" },
        { "network", "[network]" }, { "bus", "[bus]" },
    };
    for (size_t i = 0; i < S_COUNT (rest); i++)
        s_doc_keys (&out, s_keys, S_COUNT (s_keys), rest[i][0], rest[i][1], cfg);
    free (cfg);
    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}
