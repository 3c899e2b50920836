/*  sim_vstats.h - statistics of a vision stream (`ssl-sim stats`,
    docs/stats.md): fed one SSL_WrapperPacket (and, when the log has
    them, TrackerWrapperPacket truth frames) at a time, it measures what
    the measured-field table of docs/vision.md lists, and fits the
    [realism] keys that reproduce it. It never prints: the launcher does.

    Robust noise: for each object a camera saw in three consecutive frames
    the middle position's residual r against the line through its two
    neighbours (in capture time) is r = e_k - a e_{k-1} - b e_{k+1} for
    white noise e, with a + b = 1, so var r = s^2 (1 + a^2 + b^2); the
    noise s is 1.4826 * median |r| / sqrt (1 + a^2 + b^2), which a ghost,
    a kick or a collision (rare outliers) does not move and smooth motion
    does not reach.
*/
#ifndef SIM_VSTATS_H_INCLUDED
#define SIM_VSTATS_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_VSTATS_CAMERAS  16
#define SIM_VSTATS_FOV_BINS 40 /* 0.25 m wide, from the nadir */
#define SIM_VSTATS_FOV_BIN  0.25
/* A gap of at most this many frames is a dropout; a longer one is an
   object out of view. */
#define SIM_VSTATS_GAP_MAX 10

typedef struct sim_vstats_t sim_vstats_t;

typedef struct {
    double p50, p90, p99, p10, mean;
    size_t n;
} sim_vstats_dist_t;

typedef struct {
    bool seen;
    uint64_t frames, duplicates;
    double rate_hz;                  /* frames / capture time span */
    double period_ms;                /* median frame period */
    double jitter_ms;                /* stddev of the periods within 1.25 median periods */
    double late_share;               /* periods above 1.25 median periods */
    bool has_nadir;                  /* the geometry packet named its position */
    double nadir_x, nadir_y, height; /* m */
} sim_vstats_camera_t;

typedef struct {
    int a, b; /* camera ids, a < b */
    size_t n; /* same robot in both within 20 ms */
    double mean_mm, p50_mm, p90_mm, p99_mm;
    double const_mm;  /* length of the mean difference vector */
    double spread_mm; /* per-axis stddev of the per-robot mean differences */
    double phi_sigma_mrad;
} sim_vstats_pair_t;

typedef struct {
    sim_vstats_camera_t camera[SIM_VSTATS_CAMERAS];
    uint64_t frames, geometry, undecodable, truth_frames;
    double geometry_period_s;     /* mean receive interval of geometry packets */
    sim_vstats_dist_t latency_ms; /* t_sent - t_capture */
    double robot_noise_mm, robot_phi_noise_mrad, ball_noise_mm;
    size_t robot_noise_n, ball_noise_n;
    double robot_conf_mean, robot_conf_min, ball_conf_mean, ball_conf_min;
    /* dropouts: share of frames an object was missing inside a gap of at
       most SIM_VSTATS_GAP_MAX frames, and how many gaps had one frame */
    double robot_missing, ball_missing;
    uint64_t robot_gaps, robot_gaps_single, ball_gaps, ball_gaps_single;
    double ball_gap_mean;        /* frames */
    uint64_t robot_duplicates;   /* same team and id twice in one frame */
    uint64_t balls_per_frame[6]; /* 0..4, 5 or more */
    uint64_t false_balls;        /* balls beyond the first in a frame */
    sim_vstats_pair_t pair[SIM_VSTATS_CAMERAS * (SIM_VSTATS_CAMERAS - 1) / 2];
    size_t pairs;
    /* against truth (static robots, when the log has a truth stream) */
    bool has_truth;
    double truth_offset_mm, truth_warp_mm;
    double truth_phi_warp_mrad; /* spread of the per-robot mean orientation errors */
    /* robot miss rate by distance from a camera's nadir */
    uint64_t fov_expected[SIM_VSTATS_FOV_BINS], fov_seen[SIM_VSTATS_FOV_BINS];
} sim_vstats_report_t;

/* The [realism] values sim_vstats_fit finds (SI units). */
typedef struct {
    double stddev_robot_p, stddev_robot_phi, stddev_ball_p;
    double missing_robot_detections;
    double ball_loss_burst_rate, ball_loss_burst_length;
    double object_position_offset, calibration_warp_stddev, calibration_orientation_warp;
    double vision_processing_time, vision_processing_p90, vision_processing_p99;
    double vision_processing_low_stddev;
    double capture_jitter, capture_late_rate;
    double ghost_ball_rate, ghost_ball_more;
    bool offset_from_truth;
    /* the offset and warps were measured (against the truth, or from
       robots two cameras saw at once); else they are not fitted and a
       fitted file leaves them out */
    bool calibration_fitted;
} sim_vstats_fit_t;

/* A new, empty accumulator; NULL when out of memory. */
sim_vstats_t *sim_vstats_new (void);

/* Safe on NULL; nulls *self_p. */
void sim_vstats_destroy (sim_vstats_t **self_p);

/* One SSL_WrapperPacket received at recv_ns. Returns 0, or -1 when the
   bytes do not decode (counted, nothing else changes). */
int sim_vstats_add_vision (sim_vstats_t *self, int64_t recv_ns, const void *data, size_t len);

/* One TrackerWrapperPacket (truth). Returns 0 or -1 as above. */
int sim_vstats_add_truth (sim_vstats_t *self, const void *data, size_t len);

/* The statistics so far into *out (self is not changed). */
void sim_vstats_report (const sim_vstats_t *self, sim_vstats_report_t *out);

/* The realism parameters that reproduce `report` (docs/stats.md gives
   each inversion). */
void sim_vstats_fit (const sim_vstats_report_t *report, sim_vstats_fit_t *out);

#endif
