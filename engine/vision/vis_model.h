/*  vis_model.h - the pure camera model of ssl-sim (spec/vision.md): world
    snapshots and the configuration in, one detection frame per camera
    capture out, released from the delay queue by simulation time.

    The model is made from a vis_model_def_t (Box2D style: fill with
    vis_model_def_default, change what differs); the vision service fills
    it from the configuration (vis_model_def_from_config, vis_def.h).

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
#include "common/base/sim_params.h"
#include "common/base/sim_snapshot.h"
#include "common/base/sim_schedule.h"
#include "vis_calib.h"

/* Ghost balls one camera frame may carry at most. */
#define VIS_MAX_GHOSTS 8
/* At most one real ball, one spurious ball per robot and the ghosts. */
#define VIS_MAX_BALLS (1 + SIM_SNAPSHOT_MAX_ROBOTS + VIS_MAX_GHOSTS)
/* Every robot of a team, each possibly duplicated. */
#define VIS_MAX_ROBOTS (2 * SIM_SNAPSHOT_MAX_ROBOTS)

/* One ball detection, SI units (the codec converts to mm). */
typedef struct {
    double x, y; /* m */
    double z;    /* m, valid when has_z */
    double area; /* px, valid when has_area */
    double confidence;
    bool has_z, has_area;
    bool spurious; /* a false ball: dribbler LED or ghost (for tests and tools) */
    bool ghost;    /* a ghost ball anywhere in the view or on a line (spurious too) */
} vis_ball_det_t;

/* One robot detection. */
typedef struct {
    int id;
    double x, y;        /* m */
    double orientation; /* rad, not re-wrapped */
    double height;      /* m */
    double confidence;
} vis_robot_det_t;

/* One camera capture, as released from the delay queue. */
typedef struct {
    int camera_index;         /* position in the rig */
    int camera_id;            /* camera_id on the wire */
    uint32_t frame_number;    /* per camera */
    uint64_t capture_ns;      /* sim time of the capture */
    uint64_t due_ns;          /* sim time it is released at */
    double t_capture, t_sent; /* s, wire timestamps (vision.md §7) */
    double t_capture_camera;  /* s, the camera's own clock; sent when has_t_capture_camera */
    bool has_t_capture_camera;
    bool geometry; /* an SSL_GeometryData rides along */
    int ball_count;
    vis_ball_det_t balls[VIS_MAX_BALLS];
    int blue_count;
    vis_robot_det_t blue[VIS_MAX_ROBOTS];
    int yellow_count;
    vis_robot_det_t yellow[VIS_MAX_ROBOTS];
} vis_frame_t;

/* Everything the camera model reads. */
typedef struct {
    sim_schedule_def_t schedule; /* rig, capture timing, outages, seed, rig generation */
    sim_field_t field;           /* resolved sizes: calibration fit, geometry packet */
    sim_ball_cfg_t ball;         /* radius in detections; ball models in the geometry */
    double max_robot_radius;     /* m, in the geometry packet; <= 0: not advertised */
    sim_realism_t realism;       /* noise, dropouts, delay, calibration error */
    /* the camera-model keys of [vision] (vision.md §4-§10) */
    double fov_radius; /* m, 0 = unlimited */
    double area_at_nadir_px, spurious_ball_area_px;
    double spurious_ball_forward, spurious_ball_lateral_stddev; /* m */
    /* confidence_stddev and duplicate_robot_rate: 0 where the
       configuration's realism.vision_artefacts is false (vis_def.c) */
    double robot_confidence_mean, ball_confidence_mean, confidence_stddev;
    double duplicate_robot_rate;
    int geometry_every_n_frames; /* 0 => 1 */
    bool report_ball_z;
    double timestamp_epoch_offset; /* s */
    double focal_length_px;        /* px: area height term; sensor of sensor_mix 0 */
    int image_width, image_height; /* px: sensor of sensor_mix 0 */
} vis_model_def_t;

/* Fill every field of *def with its documented default (spec/config.md:
   the configuration table's defaults, division A field and rig). */
void vis_model_def_default (vis_model_def_t *def);

typedef struct vis_model_t vis_model_t;

/* A model for `def` (copied), its rig taken and the calibration state
   drawn from (seed, rig_generation). Returns NULL on allocation failure. */
vis_model_t *vis_model_new (const vis_model_def_t *def);

/* Free the model and null *self_p; safe on NULL and twice. */
void vis_model_destroy (vis_model_t **self_p);

/* Runtime update (realism, field, vision keys) from a new definition
   (copied). When def->schedule.rig_generation differs from the model's,
   the rig is replaced at the last advanced time (vision.md §2.1): frame
   numbers restart, calibration is re-drawn, geometry is forced on the
   next camera-0 capture, queued frames are kept; otherwise the rig and
   the capture grid stay: a new capture jitter applies from each camera's
   next instant (sim_schedule_set_jitter, as physics does), a new
   calibration_warp_length draws the calibration state again from the
   same key. Before the first advance the model then equals one made with
   the new definition. */
void vis_model_set_def (vis_model_t *self, const vis_model_def_t *def);

/* For a service that joins a running simulation (restart): continue frame
   numbers as if the model had seen every substep end before t_ns (substep
   from the definition). The first advance does this by itself with its
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
   first; borrowed, valid until the next advance or set_def. */
const vis_frame_t *vis_model_released (const vis_model_t *self, int i);

/* Capture one frame of camera `index` with `frame_number` from `snap`
   right now, without the schedule or the queue (no geometry flag): the
   same result the scheduled capture has. For tests and benchmarks. */
void vis_model_capture (const vis_model_t *self, int index, uint32_t frame_number, const sim_snapshot_t *snap,
                        vis_frame_t *out);

/* Borrowed views of the model's state, valid until the next set_def. */
const vis_model_def_t *vis_model_def (const vis_model_t *self);
const sim_rig_t *vis_model_rig (const vis_model_t *self);
const vis_calib_t *vis_model_calib (const vis_model_t *self, int index);
const sim_schedule_t *vis_model_schedule (const vis_model_t *self);

/* Capture period in ns. */
uint64_t vis_model_period_ns (const vis_model_t *self);

/* True when a ground-truth packet follows the last advance: it released
   frames, and it is the first to do so, or comes at least half a frame
   period of sim time after the last such advance. So the truth stream
   keeps the cameras' cadence even when jittered captures of one period
   fall on neighbouring substeps (docs/vision.md). */
bool vis_model_truth_due (const vis_model_t *self);

/* Frame number for the ground-truth packet that follows the last advance:
   the rig's frame period its earliest released capture lies in, so a
   restarted or stalled model numbers as one that saw every snapshot; one
   more than the last where that would not grow (docs/vision.md).
   Meaningful only after an advance for which one is due. */
uint32_t vis_model_truth_frame_number (const vis_model_t *self);

#endif
