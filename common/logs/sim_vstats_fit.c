/*  sim_vstats_fit.c - the realism keys of a measured report
    (sim_vstats_fit, sim_vstats.h; docs/stats.md "Fitting"): a pure
    function of the report, kept apart from the measuring. */
#include "sim_vstats.h"

#include <math.h>
#include <string.h>

void
sim_vstats_fit (const sim_vstats_report_t *r, sim_vstats_fit_t *out)
{
    memset (out, 0, sizeof *out);
    out->stddev_robot_p = r->robot_noise_mm / 1000;
    out->stddev_robot_phi = r->robot_phi_noise_mrad / 1000;
    out->stddev_ball_p = r->ball_noise_mm / 1000;
    out->missing_robot_detections = r->robot_missing;
    /* bursts: a geometric length m with the measured mean gap; a burst
       starts at any frame with chance q, but only one that starts while
       the ball is seen (1 - f of the frames) opens a gap, so the lost
       share is f = q (1 - f) m and q = f / ((1 - f) m) */
    if (r->ball_gaps > 0 && r->ball_missing < 1) {
        double m = r->ball_gap_mean > 1.0 ? r->ball_gap_mean : 1.0;
        out->ball_loss_burst_length = m;
        out->ball_loss_burst_rate = r->ball_missing / ((1 - r->ball_missing) * m);
    }
    out->calibration_fitted = r->has_truth || r->pairs > 0;
    if (r->has_truth) {
        out->offset_from_truth = true;
        out->object_position_offset = r->truth_offset_mm / 1000;
        out->calibration_warp_stddev = r->truth_warp_mm / 1000;
    } else if (r->pairs > 0) {
        /* two offsets of length o in independent random directions differ
           by 2 o |sin (d / 2)|, of mean 4 o / pi; two independent warps
           differ with per-axis variance 2 w^2 */
        double c = 0, s = 0;
        for (size_t i = 0; i < r->pairs; i++) {
            c += r->pair[i].const_mm;
            s += r->pair[i].spread_mm * r->pair[i].spread_mm;
        }
        out->object_position_offset = M_PI / 4 * c / (double) r->pairs / 1000;
        out->calibration_warp_stddev = sqrt (s / (double) r->pairs / 2) / 1000;
    }
    double phi = 0;
    for (size_t i = 0; i < r->pairs; i++)
        phi += r->pair[i].phi_sigma_mrad * r->pair[i].phi_sigma_mrad;
    /* against truth where the log has it; else per-camera orientation
       errors differ with variance 2 s^2 (less the two frames' noise) */
    if (r->has_truth)
        out->calibration_orientation_warp = r->truth_phi_warp_mrad / 1000;
    else if (r->pairs > 0) {
        double v = phi / (double) r->pairs / 2 - r->robot_phi_noise_mrad * r->robot_phi_noise_mrad;
        out->calibration_orientation_warp = v > 0 ? sqrt (v) / 1000 : 0;
    }
    out->vision_processing_time = r->latency_ms.p50 / 1000;
    out->vision_processing_p90 = r->latency_ms.p90 / 1000;
    out->vision_processing_p99 = r->latency_ms.p99 / 1000;
    /* the model's lower half is normal: p10 lies 1.2816 sigma below p50 */
    out->vision_processing_low_stddev = (r->latency_ms.p50 - r->latency_ms.p10) / 1.2816 / 1000;
    double jit = 0, late = 0;
    int n = 0;
    for (int i = 0; i < SIM_VSTATS_CAMERAS; i++)
        if (r->camera[i].seen && r->camera[i].frames > 2) {
            jit += r->camera[i].jitter_ms;
            late += r->camera[i].late_share;
            n++;
        }
    if (n > 0) {
        out->capture_jitter = jit / n / 1000;
        out->capture_late_rate = late / n;
    }
    uint64_t one = 0, two = 0, three = 0;
    for (int k = 1; k < 6; k++)
        one += r->balls_per_frame[k];
    for (int k = 2; k < 6; k++)
        two += r->balls_per_frame[k];
    for (int k = 3; k < 6; k++)
        three += r->balls_per_frame[k];
    out->ghost_ball_rate = one ? (double) two / (double) one : 0;
    out->ghost_ball_more = two ? (double) three / (double) two : 0;
}
