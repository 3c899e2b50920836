/*  sim_params.c - documented defaults of the parameter tables both cores
    read (the ball and the realism table). The configuration table states
    the same values for its keys; tests/unit/test_defs.c checks that they
    agree, so a core built from its own defaults behaves as one built from
    a default configuration.
*/
#include "sim_params.h"

#include <string.h>

void
sim_ball_default (sim_ball_cfg_t *ball)
{
    *ball = (sim_ball_cfg_t) {
        .radius = 0.0215,
        .mass = 0.046,
        .acc_slide = -3.3,
        .acc_roll = -0.22,
        .roll_speed_coefficient = 0.045,
        .advertise_roll_speed = 1.5,
        .inertia_distribution = 0.5,
        .chip_damping_xy_first_hop = 0.70,
        .chip_damping_xy_other_hops = 0.87,
        .chip_damping_z = 0.46,
        .chip_damping_z_other_hops = 0.40,
        .min_hop_height = 0.01,
        .rest_speed = 0.01,
    };
}

void
sim_realism_default (sim_realism_t *r)
{
    /* the "realistic" preset (vision.md §11) */
    memset (r, 0, sizeof *r);
    *r = (sim_realism_t) {
        .stddev_ball_p = 0.0007,
        .stddev_robot_p = 0.00042,
        .stddev_robot_phi = 0.0043,
        .stddev_ball_area = 3.3,
        .enable_invisible_ball = true,
        .ball_visibility_threshold = 0.25,
        .camera_overlap = 0.8,
        .dribbler_ball_detections = 0.030,
        .camera_position_error = 0.02,
        .robot_command_loss = 0.01,
        .robot_response_loss = 0.01,
        .missing_ball_detections = 0,
        .missing_robot_detections = 0.0017,
        .vision_delay = 0.022,
        .vision_processing_time = 0.00675,
        .simulate_dribbling = true,
        .object_position_offset = 0,
        .command_delay = 0.0,
        .calibration_warp_stddev = 0.0095,
        .calibration_warp_length = 3.0,
        .calibration_orientation_offset = 0,
        .calibration_orientation_warp = 0.02,
        .kick_direction_stddev = 0.04363323129985824, /* 2.5 degrees */
        .chip_angle_stddev = 0.10471975511965978,     /* 6 degrees */
        .kick_speed_factor_stddev = 0.1,
        .robot_marker_height_error = 0.015,
        .vision_processing_p90 = 0.00894,
        .vision_processing_p99 = 0.01048,
        .vision_processing_low_stddev = 0.0004,
        .fov_edge_radius = 6.92,
        .fov_edge_width = 0.133,
        .ball_loss_burst_rate = 0.0155,
        .ball_loss_burst_length = 2.6,
        .near_robot_ball_loss = 0.06,
        .near_robot_ball_loss_length = 0.12,
        .ghost_ball_rate = 0.025,
        .ghost_ball_more = 0.072,
        .ball_area_height_gain = 0.60,
        .ball_area_height_exponent = 0.62,
        .capture_jitter = 0.00014,
        .capture_late_rate = 0,
        .capture_late_fraction = 0.5,
        .report_ball_area = true,
        .vision_artefacts = true,
    };
}
