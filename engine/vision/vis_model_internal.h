/*  vis_model_internal.h - the camera model's private layout, shared by its
    own files: vis_model.c (life, the frame queue that mirrors the
    schedule's release queue), vis_capture.c (one capture's detections),
    vis_timing.c (its instant and timestamps) and vis_loss.c (the ball's
    losses: bursts, next to robots). Not for use outside engine/vision/.
*/
#ifndef VIS_MODEL_INTERNAL_H_INCLUDED
#define VIS_MODEL_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "vis_model.h"
#include "common/base/sim_params.h"
#include "common/base/sim_schedule.h"
#include "common/base/sim_snapshot.h"

/* Frames the ball-loss burst looks back at most (vis_loss_ball_burst). */
#define VIS_BURST_REACH 64

/* Draws one camera's captures share with the next ones: each is a pure
   function of (seed, rig generation, camera, frame), kept so it is drawn
   once rather than at every frame that looks at it. A slot holds frame f
   at f mod its length; `valid` is cleared whenever the definition may
   have changed the value. */
typedef struct {
    double burst_u[VIS_BURST_REACH];
    uint32_t burst_frame[VIS_BURST_REACH];
    bool burst_valid[VIS_BURST_REACH];
    double processing[2];
    uint32_t processing_frame[2];
    bool processing_valid[2];
    /* vis_loss_ball_burst's answer so far: the furthest frame the bursts
       started at frames up to burst_last reach (-1: none), valid when
       burst_run is set */
    bool burst_run;
    uint32_t burst_last;
    int64_t burst_cover;
} vis_memo_t;

struct vis_model_t {
    vis_model_def_t def;
    sim_rig_t rig;
    vis_calib_t calib[SIM_MAX_CAMERAS];
    vis_memo_t memo[SIM_MAX_CAMERAS];
    sim_schedule_t *schedule;
    uint64_t period_ns;
    uint64_t delay_ns; /* sim_schedule_delay_ns of the def's vision_delay */
    uint64_t last_t;
    bool started;            /* seen a snapshot or been resumed */
    int geometry_count;      /* camera-0 frames since the last geometry */
    uint32_t geometry_frame; /* the last camera-0 frame it counted */
    bool truth_due;          /* the last advance is one */
    uint64_t truth_last_ns;  /* sim time of the last one */
    int64_t truth_frame;     /* its frame number (vis_model_truth_frame_number), -1 before the first */
    /* per camera, 1 where its offset lies more than half a period after
       the rig's earliest: its frame k falls in truth period k + 1 */
    uint8_t truth_shift[SIM_MAX_CAMERAS];
    /* frames waiting for release, a ring in capture order */
    vis_frame_t *ring;
    int cap, head, len;
    int released_start, released_count;
};

/* Capture frame `frame_number` of camera `index` into f (vision.md §5):
   the world `world` moved back to `instant_ns` where the capture is off
   the grid, previous_ns the camera's capture before (0: none); memo is
   the camera's (NULL: draw everything afresh, the same numbers). */
void vis_capture_frame (const vis_model_t *self, vis_memo_t *memo, int index, uint32_t frame_number,
                        const sim_snapshot_t *world, uint64_t instant_ns, uint64_t previous_ns,
                        vis_frame_t *f);

/* The world at the true capture instant instant_ns into out: every object
   of snap moved back along its velocity by the time between the instant
   and the snapshot (at most a substep, so straight lines are exact
   enough). */
void vis_timing_rewind (const sim_snapshot_t *snap, uint64_t instant_ns, sim_snapshot_t *out);

/* f's t_capture and t_sent for capture `frame_number` of the camera keyed
   `key` (docs/vision.md, "Latency" and "Capture timing"), the capture
   reporting the world at capture_ns: the frame leaves at capture_ns +
   vision_delay, t_sent one drawn processing time after t_capture; a
   jittered capture's t_sent follows that of the camera's capture before
   at previous_ns (0: none). memo is the camera's (NULL: none). */
void vis_timing_stamps (const vis_model_t *self, vis_memo_t *memo, uint64_t key, uint32_t frame_number,
                        uint64_t capture_ns, bool jittered, uint64_t previous_ns, vis_frame_t *f);

/* Is the ball lost in a loss burst at `frame` of the camera keyed `key`
   (docs/vision.md, "Ball losses")? memo is the camera's (NULL: none). */
bool vis_loss_ball_burst (vis_memo_t *memo, const sim_realism_t *r, uint64_t seed, uint64_t key,
                          uint32_t frame);

/* Chance the ball at (bx, by) is lost next to one of the first n robots
   of snap (docs/vision.md); 0 without robots or when the model is off. */
double vis_loss_near_robot (const sim_realism_t *r, const sim_snapshot_t *snap, int n, double bx, double by);

#endif
