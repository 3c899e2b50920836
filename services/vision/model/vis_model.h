/*  vis_model.h - the pure camera model of ssl-sim (spec/vision.md): world
    snapshots and the configuration in, one detection frame per camera
    capture out, released from the delay queue by simulation time.

    No sockets, no clock, no protobuf: the vision service feeds snapshots at
    the instants sim_schedule asks for and encodes the released frames with
    vis_codec. All randomness is keyed (ARCHITECTURE.md §4): capture k of
    camera c draws the same numbers whoever computes it, so a restarted
    service emits the same bytes.
*/
#ifndef VIS_MODEL_H_INCLUDED
#define VIS_MODEL_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>
#include "sim_config.h"
#include "sim_snapshot.h"
#include "sim_schedule.h"
#include "vis_calib.h"

/* At most one real ball plus one spurious ball per robot. */
#define VIS_MAX_BALLS (1 + SIM_SNAPSHOT_MAX_ROBOTS)
/* Every robot of a team, each possibly duplicated. */
#define VIS_MAX_ROBOTS (2 * SIM_SNAPSHOT_MAX_ROBOTS)

/* One ball detection, SI units (the codec converts to mm). */
typedef struct {
    double x, y;                    /* m */
    double z;                       /* m, valid when has_z */
    double area;                    /* px, valid when has_area */
    double confidence;
    bool has_z, has_area;
    bool spurious;                  /* a dribbler-LED false ball (for tests and tools) */
} vis_ball_det_t;

/* One robot detection. */
typedef struct {
    int id;
    double x, y;                    /* m */
    double orientation;             /* rad, not re-wrapped */
    double height;                  /* m */
    double confidence;
} vis_robot_det_t;

/* One camera capture, as released from the delay queue. */
typedef struct {
    int camera_index;               /* position in the rig */
    int camera_id;                  /* camera_id on the wire */
    uint32_t frame_number;          /* per camera */
    uint64_t capture_ns;            /* sim time of the capture */
    uint64_t due_ns;                /* sim time it is released at */
    double t_capture, t_sent;       /* s, wire timestamps (vision.md §7) */
    bool geometry;                  /* an SSL_GeometryData rides along */
    int ball_count;
    vis_ball_det_t balls[VIS_MAX_BALLS];
    int blue_count;
    vis_robot_det_t blue[VIS_MAX_ROBOTS];
    int yellow_count;
    vis_robot_det_t yellow[VIS_MAX_ROBOTS];
} vis_frame_t;

typedef struct vis_model_t vis_model_t;

/* A model for `cfg` (copied), its rig resolved and the calibration state
   drawn from (seed, rig_generation). Returns NULL on allocation failure. */
vis_model_t *vis_model_new (const sim_config_t *cfg);

/* Free the model and null *self_p; safe on NULL and twice. */
void vis_model_destroy (vis_model_t **self_p);

/* Runtime configuration update (realism, field, vision keys). When
   cfg->rig_generation differs from the model's, the rig is replaced at the
   last advanced time (vision.md §2.1): frame numbers restart, calibration
   is re-drawn, geometry is forced on the next camera-0 capture, queued
   frames are kept. */
void vis_model_set_config (vis_model_t *self, const sim_config_t *cfg);

/* For a service that joins a running simulation (restart): continue frame
   numbers as if the model had seen every substep end before t_ns (substep
   from the configuration). The first advance does this by itself with its
   snapshot's time, which changes nothing on a fresh start because physics
   publishes a snapshot at every capture instant; call this only to join at
   another time. No effect after the first advance. Geometry is sent at
   once anyway. A rig replaced at runtime before the restart restarts its
   frame numbers from the replacement time, which a late joiner cannot
   know: it then counts from sim time 0. */
void vis_model_resume (vis_model_t *self, uint64_t t_ns);

/* Process the world at snap->time_ns (the end of a substep, increasing):
   capture for every camera due, then release what is due. Returns the
   number of frames released at this instant (0..), -1 on allocation
   failure (nothing was captured). */
int vis_model_advance (vis_model_t *self, const sim_snapshot_t *snap);

/* Released frame i (0 <= i < last return of vis_model_advance), oldest
   first; borrowed, valid until the next advance or set_config. */
const vis_frame_t *vis_model_released (const vis_model_t *self, int i);

/* Capture one frame of camera `index` with `frame_number` from `snap`
   right now, without the schedule or the queue (no geometry flag): the
   same result the scheduled capture has. For tests and benchmarks. */
void vis_model_capture (const vis_model_t *self, int index, uint32_t frame_number,
                        const sim_snapshot_t *snap, vis_frame_t *out);

/* Borrowed views of the model's state, valid until the next set_config. */
const sim_config_t *vis_model_config (const vis_model_t *self);
const sim_rig_t *vis_model_rig (const vis_model_t *self);
const vis_calib_t *vis_model_calib (const vis_model_t *self, int index);
const sim_schedule_t *vis_model_schedule (const vis_model_t *self);

/* Capture period in ns. */
uint64_t vis_model_period_ns (const vis_model_t *self);

/* Frame number for the ground-truth packet that follows the last advance:
   counts the advances that released at least one frame, from 0 (vision.md
   §10). Meaningful only after an advance that returned > 0. */
uint32_t vis_model_truth_frame_number (const vis_model_t *self);

#endif
