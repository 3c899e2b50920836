/*  vis_codec.c - SSL_WrapperPacket and TrackerWrapperPacket encoding.
    Messages are built on the stack (no allocation per packet), packed once
    the size is known to fit: detection frames against a bound from their
    counts, the rest by protobuf-c's exact size.
*/
#include "vis_codec.h"
#include "vis_wire.h"
#include "common/base/sim_field.h"
#include "common/base/sim_team.h"
#include "engine/vision/vis_camera.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* Everything one geometry message points into. */
typedef struct {
    SSLGeometryData data;
    SSLGeometryFieldSize field;
    Vector2f points[2 * SIM_FIELD_LINE_COUNT + 1];
    SSLFieldLineSegment lines[SIM_FIELD_LINE_COUNT];
    SSLFieldLineSegment *line_ptrs[SIM_FIELD_LINE_COUNT];
    SSLFieldCircularArc arc;
    SSLFieldCircularArc *arc_ptr;
    SSLGeometryCameraCalibration calib[SIM_MAX_CAMERAS];
    SSLGeometryCameraCalibration *calib_ptrs[SIM_MAX_CAMERAS];
    SSLGeometryModels models;
    SSLBallModelStraightTwoPhase straight;
    SSLBallModelChipFixedLoss chip;
} s_geometry_t;

/* The advertised pinhole camera of rig camera `index`; a default one (no
   position) when the index is outside the rig, e.g. a frame released just
   after the rig shrank. */
static void
s_camera (const vis_model_def_t *def, const sim_rig_t *rig, int index, vis_camera_t *out)
{
    sim_camera_cfg_t none = { 0 };
    const sim_camera_cfg_t *cam = index >= 0 && index < rig->count ? &rig->cams[index] : &none;
    vis_camera_resolve (cam, index, def->realism.sensor_mix, def->focal_length_px, def->image_width,
                        def->image_height, def->realism.camera_position_error, out);
}

/* Project the wire's own floats (mm), so a client un-projecting the
   packet's numbers meets exactly these. */
static void
s_pixels (const vis_camera_t *pin, float x, float y, float z, float *u, float *v)
{
    double pu, pv;
    vis_camera_project (pin, x, y, z, &pu, &pv);
    *u = (float) pu;
    *v = (float) pv;
}

static int32_t
s_mm (double m)
{
    double v = round (m * 1000.0);
    if (!(v > -2e9))
        return -2000000000;
    return v < 2e9 ? (int32_t) v : 2000000000;
}

static SSLFieldShapeType
s_shape_type (const char *name)
{
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value_by_name (&ssl__field_shape_type__descriptor, name);
    return v ? (SSLFieldShapeType) v->value : SSL__FIELD_SHAPE_TYPE__Undefined;
}

static void
s_build_geometry (const vis_model_t *model, s_geometry_t *g)
{
    const vis_model_def_t *def = vis_model_def (model);
    const sim_rig_t *rig = vis_model_rig (model);
    const sim_field_t field = def->field;
    sim_field_line_t lines[SIM_FIELD_LINE_COUNT];
    sim_field_arc_t arc;
    sim_field_lines (&field, lines, &arc);

    ssl__geometry_field_size__init (&g->field);
    g->field.field_length = s_mm (field.length);
    g->field.field_width = s_mm (field.width);
    g->field.goal_width = s_mm (field.goal_width);
    g->field.goal_depth = s_mm (field.goal_depth);
    g->field.boundary_width = s_mm (field.boundary_width);
    g->field.has_penalty_area_depth = true;
    g->field.penalty_area_depth = s_mm (field.penalty_area_depth);
    g->field.has_penalty_area_width = true;
    g->field.penalty_area_width = s_mm (field.penalty_area_width);
    /* Optional extras the reference leaves out; clients use them. */
    g->field.has_center_circle_radius = true;
    g->field.center_circle_radius = s_mm (field.center_circle_radius);
    g->field.has_line_thickness = true;
    g->field.line_thickness = s_mm (field.line_thickness);
    g->field.has_goal_height = true;
    g->field.goal_height = s_mm (field.goal_height);
    g->field.has_boundary_width_goal_line = true;
    g->field.boundary_width_goal_line = s_mm (field.boundary_width_goal_line);
    g->field.has_goal_center_to_penalty_mark = true;
    g->field.goal_center_to_penalty_mark = s_mm (field.goal_center_to_penalty_mark);
    g->field.has_goal_substitution_area_width = true;
    g->field.goal_substitution_area_width = s_mm (field.goal_substitution_area_width);
    g->field.has_ball_radius = true;
    g->field.ball_radius = (float) (def->ball.radius * 1000.0);
    double rmax = def->max_robot_radius;
    if (rmax > 0) {
        g->field.has_max_robot_radius = true;
        g->field.max_robot_radius = (float) (rmax * 1000.0);
    }

    for (int i = 0; i < SIM_FIELD_LINE_COUNT; i++) {
        SSLFieldLineSegment *s = &g->lines[i];
        ssl__field_line_segment__init (s);
        Vector2f *p1 = &g->points[2 * i], *p2 = &g->points[2 * i + 1];
        vector2f__init (p1);
        vector2f__init (p2);
        p1->x = (float) (lines[i].x1 * 1000.0);
        p1->y = (float) (lines[i].y1 * 1000.0);
        p2->x = (float) (lines[i].x2 * 1000.0);
        p2->y = (float) (lines[i].y2 * 1000.0);
        s->name = (char *) lines[i].name;
        s->p1 = p1;
        s->p2 = p2;
        s->thickness = (float) (lines[i].thickness * 1000.0);
        s->has_type = true;
        s->type = s_shape_type (lines[i].name);
        g->line_ptrs[i] = s;
    }
    g->field.n_field_lines = SIM_FIELD_LINE_COUNT;
    g->field.field_lines = g->line_ptrs;

    Vector2f *c = &g->points[2 * SIM_FIELD_LINE_COUNT];
    vector2f__init (c);
    c->x = (float) (arc.cx * 1000.0);
    c->y = (float) (arc.cy * 1000.0);
    ssl__field_circular_arc__init (&g->arc);
    g->arc.name = (char *) arc.name;
    g->arc.center = c;
    g->arc.radius = (float) (arc.radius * 1000.0);
    g->arc.a1 = (float) arc.a1;
    g->arc.a2 = (float) arc.a2;
    g->arc.thickness = (float) (arc.thickness * 1000.0);
    g->arc.has_type = true;
    g->arc.type = s_shape_type (arc.name);
    g->arc_ptr = &g->arc;
    g->field.n_field_arcs = 1;
    g->field.field_arcs = &g->arc_ptr;

    for (int i = 0; i < rig->count; i++) {
        SSLGeometryCameraCalibration *k = &g->calib[i];
        ssl__geometry_camera_calibration__init (k);
        const sim_camera_cfg_t *cam = &rig->cams[i];
        vis_camera_t pin;
        s_camera (def, rig, i, &pin);
        k->camera_id = cam->id >= 0 ? (uint32_t) cam->id : 0;
        k->focal_length = pin.focal;
        k->principal_point_x = pin.ppx;
        k->principal_point_y = pin.ppy;
        k->distortion = 0;
        /* q0..q2 the vector part, q3 the scalar: 180 degrees about world
           x, so the camera looks straight down; t = -R c. */
        k->q0 = 1;
        k->q1 = 0;
        k->q2 = 0;
        k->q3 = 0;
        k->tx = -pin.cx;
        k->ty = pin.cy;
        k->tz = pin.cz;
        k->has_derived_camera_world_tx = true;
        k->derived_camera_world_tx = pin.cx;
        k->has_derived_camera_world_ty = true;
        k->derived_camera_world_ty = pin.cy;
        k->has_derived_camera_world_tz = true;
        k->derived_camera_world_tz = pin.cz;
        k->has_pixel_image_width = true;
        k->pixel_image_width = pin.width;
        k->has_pixel_image_height = true;
        k->pixel_image_height = pin.height;
        g->calib_ptrs[i] = k;
    }

    const sim_ball_cfg_t *b = &def->ball;
    ssl__ball_model_straight_two_phase__init (&g->straight);
    g->straight.acc_slide = b->acc_slide;
    g->straight.acc_roll = b->acc_roll - b->roll_speed_coefficient * b->advertise_roll_speed;
    g->straight.k_switch = 1.0 / (1.0 + b->inertia_distribution);
    ssl__ball_model_chip_fixed_loss__init (&g->chip);
    g->chip.damping_xy_first_hop = b->chip_damping_xy_first_hop;
    g->chip.damping_xy_other_hops = b->chip_damping_xy_other_hops;
    g->chip.damping_z = b->chip_damping_z;
    ssl__geometry_models__init (&g->models);
    g->models.straight_two_phase = &g->straight;
    g->models.chip_fixed_loss = &g->chip;

    ssl__geometry_data__init (&g->data);
    g->data.field = &g->field;
    g->data.n_calib = (size_t) rig->count;
    g->data.calib = g->calib_ptrs;
    g->data.models = &g->models;
}

/* Pack msg into buf when it fits; bound is a size msg cannot exceed (0:
   unknown). protobuf-c's pack does not check room, so it needs a size
   first: below a known bound the cap is the check, which skips
   get_packed_size, a whole extra walk of every nested message. */
static size_t
s_pack (const ProtobufCMessage *msg, size_t bound, uint8_t *buf, size_t cap)
{
    if (!buf)
        return 0;
    if (bound == 0 || bound > cap) {
        size_t size = protobuf_c_message_get_packed_size (msg);
        if (size > cap)
            return 0;
    }
    return protobuf_c_message_pack (msg, buf);
}

/* Largest encodings of a detection wrapper's parts: every field number is
   below 16 (one-byte tags); a float costs 5 bytes, a double 9, a uint32
   at most 6 (tag and five varint bytes), an enum at most 11 (negative
   values take ten). A repeated element adds its tag and a length of one
   byte, since the element stays under 128 bytes. */
#define S_ROBOT_MAX (7 * 5 + 6 + 2) /* 7 floats, robot_id */
#define S_BALL_MAX  (6 * 5 + 6 + 2) /* 6 floats, area */
#define S_FRAME_MAX (2 * 6 + 3 * 9) /* frame_number, camera_id, 3 doubles */
#define S_WRAP_MAX  (1 + 5 + 11)    /* detection tag and length, source */

/* The wrapper's source: a simulator by default, vision-processor where
   the realism says so (its own programs set it on every wrapper). */
static SSLSource
s_source (const vis_model_t *model)
{
    return vis_model_def (model)->realism.source == 1 ? SSL__SOURCE__SSL_SOURCE_VISION_PROCESSOR
                                                      : SSL__SOURCE__SSL_SOURCE_OTHER;
}

/* A size the detection-only wrapper of these counts cannot exceed. */
static size_t
s_detection_bound (int balls, int robots)
{
    return (size_t) S_WRAP_MAX + S_FRAME_MAX + (size_t) balls * S_BALL_MAX + (size_t) robots * S_ROBOT_MAX;
}

static void
s_robots (const vis_camera_t *pin, const vis_robot_det_t *det, int n, SSLDetectionRobot *msgs,
          SSLDetectionRobot **ptrs)
{
    /* the generated initial value, copied inline rather than by a call
       per robot */
    static const SSLDetectionRobot init = SSL__DETECTION_ROBOT__INIT;
    for (int i = 0; i < n; i++) {
        SSLDetectionRobot *m = &msgs[i];
        *m = init;
        m->confidence = (float) det[i].confidence;
        m->has_robot_id = true;
        m->robot_id = det[i].id >= 0 ? (uint32_t) det[i].id : 0;
        m->x = (float) (det[i].x * 1000.0);
        m->y = (float) (det[i].y * 1000.0);
        m->has_orientation = true;
        m->orientation = (float) det[i].orientation;
        m->has_height = true;
        m->height = (float) (det[i].height * 1000.0);
        s_pixels (pin, m->x, m->y, m->height, &m->pixel_x, &m->pixel_y);
        ptrs[i] = m;
    }
}

/* vis_codec_wrapper and vis_codec_wrapper_general: the same message,
   written directly (fast) or by protobuf-c. */
static size_t
s_wrapper (const vis_model_t *model, const vis_frame_t *frame, uint8_t *buf, size_t cap, bool fast)
{
    assert (model && frame);
    SSLDetectionBall balls[VIS_MAX_BALLS], *ball_ptrs[VIS_MAX_BALLS];
    SSLDetectionRobot blue[VIS_MAX_ROBOTS], *blue_ptrs[VIS_MAX_ROBOTS];
    SSLDetectionRobot yellow[VIS_MAX_ROBOTS], *yellow_ptrs[VIS_MAX_ROBOTS];

    const vis_model_def_t *def = vis_model_def (model);
    const sim_rig_t *rig = vis_model_rig (model);
    vis_camera_t pin;
    s_camera (def, rig, frame->camera_index, &pin);
    int nb = frame->ball_count < VIS_MAX_BALLS ? frame->ball_count : VIS_MAX_BALLS;
    for (int i = 0; i < nb; i++) {
        const vis_ball_det_t *d = &frame->balls[i];
        SSLDetectionBall *m = &balls[i];
        ssl__detection_ball__init (m);
        m->confidence = (float) d->confidence;
        if (d->has_area) {
            double a = round (d->area > 0 ? d->area : 0);
            m->has_area = true;
            m->area = a < 4e9 ? (uint32_t) a : UINT32_MAX;
        }
        m->x = (float) (d->x * 1000.0);
        m->y = (float) (d->y * 1000.0);
        if (d->has_z) {
            m->has_z = true;
            m->z = (float) (d->z * 1000.0);
        }
        /* a ball without z is on the floor: its centre one radius up */
        float z = m->has_z ? m->z : (float) (def->ball.radius * 1000.0);
        s_pixels (&pin, m->x, m->y, z, &m->pixel_x, &m->pixel_y);
        ball_ptrs[i] = m;
    }
    int nblue = frame->blue_count < VIS_MAX_ROBOTS ? frame->blue_count : VIS_MAX_ROBOTS;
    int nyellow = frame->yellow_count < VIS_MAX_ROBOTS ? frame->yellow_count : VIS_MAX_ROBOTS;
    s_robots (&pin, frame->blue, nblue, blue, blue_ptrs);
    s_robots (&pin, frame->yellow, nyellow, yellow, yellow_ptrs);

    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.frame_number = frame->frame_number;
    det.t_capture = frame->t_capture;
    det.t_sent = frame->t_sent;
    det.has_t_capture_camera = frame->has_t_capture_camera;
    det.t_capture_camera = frame->t_capture_camera;
    det.camera_id = frame->camera_id >= 0 ? (uint32_t) frame->camera_id : 0;
    det.n_balls = (size_t) nb;
    det.balls = ball_ptrs;
    det.n_robots_blue = (size_t) nblue;
    det.robots_blue = blue_ptrs;
    det.n_robots_yellow = (size_t) nyellow;
    det.robots_yellow = yellow_ptrs;

    SSLWrapperPacket wrapper = SSL__WRAPPER_PACKET__INIT;
    wrapper.detection = &det;
    wrapper.has_source = true;
    wrapper.source = s_source (model);
    s_geometry_t geometry;
    size_t bound = s_detection_bound (nb, nblue + nyellow);
    if (frame->geometry && !def->realism.geometry_alone) {
        s_build_geometry (model, &geometry);
        wrapper.geometry = &geometry.data;
        bound = 0; /* rare: sized exactly */
    } else if (fast)
        return vis_wire_detection (&wrapper, buf, cap);
    return s_pack (&wrapper.base, bound, buf, cap);
}

size_t
vis_codec_wrapper (const vis_model_t *model, const vis_frame_t *frame, uint8_t *buf, size_t cap)
{
    return s_wrapper (model, frame, buf, cap, true);
}

size_t
vis_codec_wrapper_general (const vis_model_t *model, const vis_frame_t *frame, uint8_t *buf, size_t cap)
{
    return s_wrapper (model, frame, buf, cap, false);
}

size_t
vis_codec_geometry (const vis_model_t *model, uint8_t *buf, size_t cap)
{
    assert (model);
    s_geometry_t geometry;
    s_build_geometry (model, &geometry);
    SSLWrapperPacket wrapper = SSL__WRAPPER_PACKET__INIT;
    wrapper.geometry = &geometry.data;
    wrapper.has_source = true;
    wrapper.source = s_source (model);
    return s_pack (&wrapper.base, 0, buf, cap);
}

size_t
vis_codec_truth (const vis_model_t *model, const sim_snapshot_t *snap, const char *uuid, uint8_t *buf,
                 size_t cap)
{
    assert (model && snap && uuid);
    const vis_model_def_t *def = vis_model_def (model);
    int n = snap->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? snap->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    if (n < 0)
        n = 0;

    Vector3 ball_pos = VECTOR3__INIT, ball_vel = VECTOR3__INIT;
    ball_pos.x = (float) snap->ball.x;
    ball_pos.y = (float) snap->ball.y;
    ball_pos.z = (float) snap->ball.z;
    ball_vel.x = (float) snap->ball.vx;
    ball_vel.y = (float) snap->ball.vy;
    ball_vel.z = (float) snap->ball.vz;
    TrackedBall ball = TRACKED_BALL__INIT, *ball_ptr = &ball;
    ball.pos = &ball_pos;
    ball.vel = &ball_vel;
    ball.has_visibility = true;
    ball.visibility = 1;

    TrackedRobot robots[SIM_SNAPSHOT_MAX_ROBOTS], *robot_ptrs[SIM_SNAPSHOT_MAX_ROBOTS];
    RobotId ids[SIM_SNAPSHOT_MAX_ROBOTS];
    Vector2 pos[SIM_SNAPSHOT_MAX_ROBOTS], vel[SIM_SNAPSHOT_MAX_ROBOTS];
    for (int i = 0; i < n; i++) {
        const sim_robot_state_t *r = &snap->robots[i];
        robot_id__init (&ids[i]);
        ids[i].has_id = true;
        ids[i].id = r->id >= 0 ? (uint32_t) r->id : 0;
        ids[i].has_team = true;
        ids[i].team = sim_team_league (r->team);
        vector2__init (&pos[i]);
        pos[i].x = (float) r->x;
        pos[i].y = (float) r->y;
        vector2__init (&vel[i]);
        vel[i].x = (float) r->vx;
        vel[i].y = (float) r->vy;
        tracked_robot__init (&robots[i]);
        robots[i].robot_id = &ids[i];
        robots[i].pos = &pos[i];
        robots[i].orientation = (float) r->orientation;
        robots[i].vel = &vel[i];
        robots[i].has_vel_angular = true;
        robots[i].vel_angular = (float) r->omega;
        robots[i].has_visibility = true;
        robots[i].visibility = 1;
        robot_ptrs[i] = &robots[i];
    }

    Capability caps[1] = { CAPABILITY__CAPABILITY_DETECT_FLYING_BALLS };
    TrackedFrame frame = TRACKED_FRAME__INIT;
    frame.frame_number = vis_model_truth_frame_number (model);
    frame.timestamp = (double) snap->time_ns * 1e-9 + def->timestamp_epoch_offset;
    frame.n_balls = 1;
    frame.balls = &ball_ptr;
    frame.n_robots = (size_t) n;
    frame.robots = robot_ptrs;
    frame.n_capabilities = 1;
    frame.capabilities = caps;

    TrackerWrapperPacket wrapper = TRACKER_WRAPPER_PACKET__INIT;
    wrapper.uuid = (char *) uuid;
    wrapper.source_name = (char *) VIS_TRUTH_SOURCE_NAME;
    wrapper.tracked_frame = &frame;
    return s_pack (&wrapper.base, 0, buf, cap);
}
