/*  vis_capture.c - one camera capture (vision.md §5): the world moved back
    to the capture instant and the frame's timestamps (vis_timing.c),
    which robots and balls the camera sees (its region, the soft edge of its view, dropouts and
    the ball's losses), their calibration errors and noise, duplicates,
    spurious and ghost balls, and the shuffle.
*/
#include "vis_model_internal.h"
#include "vis_region.h"
#include "vis_ball.h"
#include "vis_vproc.h"

#include "common/base/sim_field.h"

#include <float.h>
#include <math.h>

/* A confidence: c clamped to [DBL_MIN, 1]. */
static double
s_clamp_confidence (double c)
{
    if (!(c >= DBL_MIN))
        return DBL_MIN;
    return c > 1 ? 1 : c;
}

static double
s_confidence (sim_rng_t *rng_n, double mean, double stddev)
{
    return s_clamp_confidence (mean + sim_rng_normal (rng_n, stddev));
}

/* The mean confidence of every ball: the venue's when its realism names
   one, else the [vision] key's. */
static double
s_ball_confidence_mean (const vis_model_def_t *v)
{
    double venue = v->realism.venue_ball_confidence;
    return venue > 0 ? venue : v->ball_confidence_mean;
}

/* The noise of a frame's robot detections (step 3 of §5.1): for each in
   turn the normal pair (x, y), then (orientation, confidence), the draws
   and values of a sim_rng_normal_pair each, in that order. All the
   points are drawn first, then all their logs are taken: the generator
   stays in registers through the draws, and nothing else is live across
   the calls to log. */
typedef struct {
    double sp, sphi, sc; /* stddev_robot_p, stddev_robot_phi, confidence_stddev */
    bool pos, ang;       /* does the pair draw (a sigma > 0, as sim_rng_normal_pair) */
    /* pair i's unit normals u f and v f */
    double uf[4 * SIM_SNAPSHOT_MAX_ROBOTS], vf[4 * SIM_SNAPSHOT_MAX_ROBOTS];
} s_noise_t;

static void
s_robot_noise (const vis_model_t *self, sim_rng_t *rng_n, int dets, s_noise_t *nz)
{
    nz->sp = self->def.realism.stddev_robot_p;
    nz->sphi = self->def.realism.stddev_robot_phi;
    nz->sc = self->def.confidence_stddev;
    nz->pos = nz->sp > 0;
    nz->ang = nz->sphi > 0 || nz->sc > 0;
    double s[4 * SIM_SNAPSHOT_MAX_ROBOTS];
    int np = 0, per = nz->pos + nz->ang;
    sim_rng_t g = *rng_n;
    for (int i = 0; i < dets * per; i++) {
        do
            s[np] = sim_rng_polar_try (&g, &nz->uf[np], &nz->vf[np]);
        while (!sim_rng_polar_kept (s[np]));
        np++;
    }
    *rng_n = g;
    for (int i = 0; i < np; i++) {
        double f = sim_rng_polar_scale (s[i]);
        nz->uf[i] *= f;
        nz->vf[i] *= f;
    }
}

/* The soft edge of the field of view (docs/vision.md): an object at
   nadir distance d is missed with the logistic chance
   1 / (1 + exp (-(d - fov_edge_radius) / fov_edge_width)). No draw where
   that chance is below 1e-13 (always seen) or above 1 - 1e-13 (never). */
static bool
s_soft_fov (const sim_realism_t *r)
{
    return r->fov_edge_radius > 0 && r->fov_edge_width > 0;
}

/* The soft edge as one capture sees it, worked out once per capture. */
typedef struct {
    bool on;              /* s_soft_fov */
    double cx, cy;        /* the camera's nadir */
    double radius, width; /* fov_edge_radius, fov_edge_width */
    double sure2;         /* squared distance always seen within (0: none) */
} s_edge_t;

static void
s_edge_init (const sim_realism_t *r, const sim_camera_cfg_t *cam, s_edge_t *e)
{
    double sure = r->fov_edge_radius - 30 * r->fov_edge_width;
    *e = (s_edge_t) {
        .on = s_soft_fov (r),
        .cx = cam->x,
        .cy = cam->y,
        .radius = r->fov_edge_radius,
        .width = r->fov_edge_width,
        .sure2 = sure > 0 ? sure * sure : 0,
    };
}

static inline bool
s_fov_edge_miss (const s_edge_t *e, sim_rng_t *rng_d, double x, double y)
{
    if (!e->on)
        return false;
    double dx = x - e->cx, dy = y - e->cy;
    if (dx * dx + dy * dy < e->sure2)
        return false;
    double u = (sqrt (dx * dx + dy * dy) - e->radius) / e->width;
    if (u > 30)
        return true;
    return sim_rng_chance (rng_d, 1 / (1 + exp (-u)));
}

/* A ghost ball at (x, y): the dribbler balls' area, a confidence drawn
   from rng_n, no calibration error. */
static vis_ball_det_t
s_ghost (const vis_model_def_t *v, sim_rng_t *rng_n, double x, double y)
{
    return (vis_ball_det_t) {
        .x = x,
        .y = y,
        .z = v->ball.radius,
        .has_z = v->report_ball_z,
        .area = v->spurious_ball_area_px,
        .has_area = v->realism.report_ball_area,
        .confidence = s_confidence (rng_n, s_ball_confidence_mean (v), v->confidence_stddev),
        .spurious = true,
        .ghost = true,
    };
}

/* Capture frame `frame_number` of camera `index` into f; memo is the
   camera's (NULL: draw everything afresh, the same numbers). */
void
vis_capture_frame (const vis_model_t *self, vis_memo_t *memo, int index, uint32_t frame_number,
                   const sim_snapshot_t *world, uint64_t instant_ns, uint64_t previous_ns, vis_frame_t *f)
{
    const vis_model_def_t *v = &self->def;
    const sim_realism_t *r = &v->realism;
    const sim_camera_cfg_t *cam = &self->rig.cams[index];
    const vis_calib_t *cal = &self->calib[index];
    double overlap = r->camera_overlap, fov = v->fov_radius;

    /* Off the grid the capture is of the world at its own instant, which
       lies before the substep end that brought it. */
    bool jittered = sim_schedule_def_jittered (&v->schedule) && instant_ns < world->time_ns;
    sim_snapshot_t rewound;
    if (jittered)
        vis_timing_rewind (world, instant_ns, &rewound);
    const sim_snapshot_t *snap = jittered ? &rewound : world;

    f->camera_index = index;
    f->camera_id = cam->id;
    f->frame_number = frame_number;
    f->capture_ns = world->time_ns;
    f->due_ns = world->time_ns;
    f->geometry = false;
    f->ball_count = f->blue_count = f->yellow_count = 0;

    /* Per-capture generators keyed by (rig generation, camera, frame). */
    uint64_t key = ((uint64_t) v->schedule.rig_generation << 32) | (uint64_t) index;

    /* the frame's timestamps (vis_timing.c) */
    vis_timing_stamps (self, memo, key, frame_number, snap->time_ns, jittered, previous_ns, f);
    /* vision-processor stamps each frame with the camera's own clock too */
    f->has_t_capture_camera = vis_vproc_camera_clock (r, instant_ns, index, &f->t_capture_camera);
    sim_rng_t rng_n, rng_d, rng_s;
    sim_rng_seed_keyed (&rng_n, v->schedule.seed, SIM_STREAM_VISION_NOISE, key, frame_number);
    sim_rng_seed_keyed (&rng_d, v->schedule.seed, SIM_STREAM_VISION_DROPOUT, key, frame_number);

    int n = snap->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? snap->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    if (n < 0)
        n = 0;

    /* The soft edge replaces the hard disc. */
    bool soft = s_soft_fov (r);
    s_edge_t edge;
    s_edge_init (r, cam, &edge);
    if (soft)
        fov = 0;

    /* Robots (§5.1): which are seen and duplicated first (the dropout
       draws, robot by robot), then the calibration errors of all of them
       together, then the noise (the noise draws, robot by robot). The two
       streams are independent, so this is the order of one robot at a
       time, and the sines of the warps fill their lanes across robots. */
    int seen[SIM_SNAPSHOT_MAX_ROBOTS], m = 0;
    bool twice[SIM_SNAPSHOT_MAX_ROBOTS], in_region[SIM_SNAPSHOT_MAX_ROBOTS];
    /* one more point than robots: the ball's (below) */
    double rx[SIM_SNAPSHOT_MAX_ROBOTS + 1], ry[SIM_SNAPSHOT_MAX_ROBOTS + 1];
    for (int k = 0; k < n; k++) {
        rx[k] = snap->robots[k].x;
        ry[k] = snap->robots[k].y;
    }
    vis_region_visible_n (&self->rig, index, rx, ry, n, overlap, fov, in_region);
    /* the constant chances as integer bounds (sim_rng_odds), once */
    const uint64_t miss_odds = sim_rng_odds (r->missing_robot_detections);
    const uint64_t twice_odds = sim_rng_odds (v->duplicate_robot_rate);
    for (int k = 0; k < n; k++) {
        const sim_robot_state_t *rb = &snap->robots[k];
        if (!in_region[k])
            continue;
        if (s_fov_edge_miss (&edge, &rng_d, rb->x, rb->y))
            continue;
        if (sim_rng_chance_odds (&rng_d, miss_odds))
            continue;
        seen[m] = k;
        rx[m] = rb->x; /* compacted in place: m <= k */
        ry[m] = rb->y;
        twice[m++] = sim_rng_chance_odds (&rng_d, twice_odds);
    }
    if (r->close_robot_loss_distance > 0)
        m = vis_vproc_close_robot_loss (r->close_robot_loss_distance, &rng_d, seen, rx, ry, twice, m);
    /* Ball (§5.2), its losses and geometry: the loss draws follow the
       robots' dropout draws on rng_d, as they always have, and the noise
       stream is not touched, so they are taken here, before the robots'
       warp; the ball's warp then rides along as one more point: with 11
       robots seen it fills the last lane of a 4-lane step computed
       anyway, instead of a step of its own with 3 lanes idle. Each lane's
       error is the same whatever else shares its step. */
    const sim_ball_state_t *b = &snap->ball;
    double br = v->ball.radius;
    double vis = 1, bpx = 0, bpy = 0, bzp = 0;
    bool ball_shown = false;
    if (vis_region_visible (&self->rig, index, b->x, b->y, overlap, fov)
        && !s_fov_edge_miss (&edge, &rng_d, b->x, b->y)
        && !vis_loss_ball_burst (memo, r, v->schedule.seed, key, frame_number)
        && !sim_rng_chance (&rng_d, vis_loss_near_robot (r, snap, n, b->x, b->y))
        && !sim_rng_chance (&rng_d, r->missing_ball_detections)) {
        double cx = b->x, cy = b->y, cz = b->z;
        if (r->enable_invisible_ball)
            vis = vis_ball_visibility (snap, b->x, b->y, b->z, br, cam, &cx, &cy, &cz);
        if (vis >= r->ball_visibility_threshold) {
            vis_ball_project (cx, cy, cz, br, cam, &bpx, &bpy, &bzp);
            ball_shown = true;
            rx[m] = bpx;
            ry[m] = bpy;
        }
    }
    double rex[SIM_SNAPSHOT_MAX_ROBOTS + 1], rey[SIM_SNAPSHOT_MAX_ROBOTS + 1];
    double rephi[SIM_SNAPSHOT_MAX_ROBOTS + 1];
    vis_calib_error_n (cal, r, rx, ry, m + ball_shown, rex, rey, rephi);
    /* a duplicate is a detection of its own, with noise of its own */
    int dets = 0;
    for (int j = 0; j < m; j++)
        dets += 1 + twice[j];
    s_noise_t nz;
    s_robot_noise (self, &rng_n, dets, &nz);
    for (int j = 0, pair = 0; j < m; j++) {
        const sim_robot_state_t *rb = &snap->robots[seen[j]];
        double px = rb->x + rex[j], py = rb->y + rey[j], phi = rb->orientation + rephi[j];
        /* Parallax of a marker-height error: the camera intersects its ray
           with the wrong plane, so the robot moves away from its nadir. */
        double dh = r->robot_marker_height_error;
        if (dh != 0 && cam->z > rb->height) {
            double k_par = dh / (cam->z - rb->height);
            px += (rb->x - cam->x) * k_par;
            py += (rb->y - cam->y) * k_par;
        }
        for (int copy = 0; copy < 1 + twice[j]; copy++) {
            int team = rb->team, id = rb->id;
            if (r->robot_identity_swap > 0)
                vis_vproc_identity_swap (r->robot_identity_swap, &rng_d, &team, &id);
            vis_robot_det_t *list = team == SIM_TEAM_YELLOW ? f->yellow : f->blue;
            int *count = team == SIM_TEAM_YELLOW ? &f->yellow_count : &f->blue_count;
            /* each side 0 where its sigma is not > 0, u f sigma else */
            double nx = 0, ny = 0, nphi = 0, nc = 0;
            if (nz.pos) {
                nx = nz.uf[pair] * nz.sp;
                ny = nz.vf[pair] * nz.sp;
                pair++;
            }
            if (nz.ang) {
                if (nz.sphi > 0)
                    nphi = nz.uf[pair] * nz.sphi;
                if (nz.sc > 0)
                    nc = nz.vf[pair] * nz.sc;
                pair++;
            }
            list[(*count)++] = (vis_robot_det_t) {
                .id = id,
                .x = px + nx,
                .y = py + ny,
                .orientation = phi + nphi,
                .height = rb->height,
                .confidence = s_clamp_confidence (v->robot_confidence_mean + nc),
            };
        }
    }

    /* the ball's detection: its losses, geometry and warp are above */
    if (ball_shown) {
        double px = bpx, py = bpy, zp = bzp;
        double n_a, n_c, nx, ny;
        sim_rng_normal_pair (&rng_n, r->stddev_ball_area, v->confidence_stddev, &n_a, &n_c);
        double term = r->ball_area_height_gain > 0
                        ? 1 + r->ball_area_height_gain * pow (zp, r->ball_area_height_exponent)
                        : vis_ball_area_term (cam->z, zp, v->focal_length_px);
        double area = v->area_at_nadir_px * term + n_a;
        area = vis * (area > 0 ? area : 0);
        double ex = rex[m], ey = rey[m];
        sim_rng_normal_pair (&rng_n, r->stddev_ball_p, r->stddev_ball_p, &nx, &ny);
        f->balls[f->ball_count++] = (vis_ball_det_t) {
            .x = px + ex + nx,
            .y = py + ey + ny,
            .z = b->z,
            .has_z = v->report_ball_z,
            .area = area,
            .has_area = v->realism.report_ball_area,
            .confidence = s_clamp_confidence (s_ball_confidence_mean (v) + n_c),
        };
    }

    /* Spurious dribbler balls (§5.3) */
    double p_s = r->dribbler_ball_detections * (double) self->period_ns * 1e-9;
    if (p_s > 0) {
        const uint64_t odds = sim_rng_odds (p_s);
        for (int k = 0; k < n; k++) {
            const sim_robot_state_t *rb = &snap->robots[k];
            if (!sim_rng_chance_odds (&rng_d, odds))
                continue;
            double lateral = sim_rng_normal (&rng_n, v->spurious_ball_lateral_stddev);
            double hx = cos (rb->orientation), hy = sin (rb->orientation);
            double sx = rb->x + hx * v->spurious_ball_forward - hy * lateral;
            double sy = rb->y + hy * v->spurious_ball_forward + hx * lateral;
            if (!vis_region_visible (&self->rig, index, sx, sy, overlap, fov))
                continue;
            if (s_fov_edge_miss (&edge, &rng_d, sx, sy))
                continue;
            double ex, ey;
            vis_calib_error (cal, r, sx, sy, &ex, &ey, NULL);
            f->balls[f->ball_count++] = (vis_ball_det_t) {
                .x = sx + ex,
                .y = sy + ey,
                .z = br,
                .has_z = v->report_ball_z,
                .area = v->spurious_ball_area_px,
                .has_area = v->realism.report_ball_area,
                .confidence = s_confidence (&rng_n, s_ball_confidence_mean (v), v->confidence_stddev),
                .spurious = true,
            };
        }
    }

    /* Ghost balls (docs/vision.md): a frame has some with ghost_ball_rate,
       then one more each time with ghost_ball_more (a geometric count),
       each anywhere over the field and its boundary that this camera
       sees; four tries to land in the camera's part, else none. */
    if (r->ghost_ball_rate > 0 && sim_rng_chance (&rng_d, r->ghost_ball_rate)) {
        int count = 1;
        while (count < VIS_MAX_GHOSTS && sim_rng_chance (&rng_d, r->ghost_ball_more))
            count++;
        double hx = v->field.length / 2 + sim_field_goal_line_margin (&v->field);
        double hy = v->field.width / 2 + v->field.boundary_width;
        double reach = soft ? r->fov_edge_radius : fov;
        for (int g = 0; g < count; g++)
            for (int attempt = 0; attempt < 4; attempt++) {
                double gx = sim_rng_uniform (&rng_n, -hx, hx);
                double gy = sim_rng_uniform (&rng_n, -hy, hy);
                if (!vis_region_visible (&self->rig, index, gx, gy, overlap, reach))
                    continue;
                f->balls[f->ball_count++] = s_ghost (v, &rng_n, gx, gy);
                break;
            }
    }

    /* vision-processor's ghost balls at field-line crossings (its README):
       with line_ghost_rate a frame has one, at a crossing this camera sees
       (picked uniformly), off by the line's own width at most. */
    if (r->line_ghost_rate > 0 && sim_rng_chance (&rng_d, r->line_ghost_rate)
        && f->ball_count < VIS_MAX_BALLS) {
        double pts[2 * VIS_VPROC_MAX_CROSSINGS];
        int np = vis_vproc_line_crossings (&v->field, pts), mine[VIS_VPROC_MAX_CROSSINGS], nm = 0;
        for (int i = 0; i < np; i++)
            if (vis_region_visible (&self->rig, index, pts[2 * i], pts[2 * i + 1], overlap,
                                    soft ? r->fov_edge_radius : fov))
                mine[nm++] = i;
        if (nm > 0) {
            int pick = mine[(int) sim_rng_uniform (&rng_n, 0, nm) % nm];
            double half = v->field.line_thickness / 2;
            double gx = pts[2 * pick] + sim_rng_uniform (&rng_n, -half, half);
            double gy = pts[2 * pick + 1] + sim_rng_uniform (&rng_n, -half, half);
            f->balls[f->ball_count++] = s_ghost (v, &rng_n, gx, gy);
        }
    }

    /* Shuffle (§5.5): the real ball must not always come first. */
    if (f->ball_count > 1) {
        sim_rng_seed_keyed (&rng_s, v->schedule.seed, SIM_STREAM_SHUFFLE, key, frame_number);
        sim_rng_shuffle (&rng_s, f->balls, (size_t) f->ball_count, sizeof f->balls[0]);
    }
}
