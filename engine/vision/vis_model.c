/*  vis_model.c - the camera model: per-capture detections (vision.md §5),
    geometry cadence (§8), outages (§6) and the frame queue that mirrors the
    schedule's release queue (§7).
*/
#include "vis_model.h"
#include "vis_region.h"
#include "vis_ball.h"
#include "common/base/sim_field.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Frames the ball-loss burst looks back at most (s_ball_burst_lost). */
#define S_BURST_REACH 64

/* Draws one camera's captures share with the next ones: each is a pure
   function of (seed, rig generation, camera, frame), kept so it is drawn
   once rather than at every frame that looks at it. A slot holds frame f
   at f mod its length; `valid` is cleared whenever the definition may
   have changed the value. */
typedef struct {
    double burst_u[S_BURST_REACH];
    uint32_t burst_frame[S_BURST_REACH];
    bool burst_valid[S_BURST_REACH];
    double processing[2];
    uint32_t processing_frame[2];
    bool processing_valid[2];
    /* s_ball_burst_lost's answer so far: the furthest frame the bursts
       started at frames up to burst_last reach (-1: none), valid when
       burst_run is set */
    bool burst_run;
    uint32_t burst_last;
    int64_t burst_cover;
} s_memo_t;

struct vis_model_t {
    vis_model_def_t def;
    sim_rig_t rig;
    vis_calib_t calib[SIM_MAX_CAMERAS];
    s_memo_t memo[SIM_MAX_CAMERAS];
    sim_schedule_t *schedule;
    uint64_t period_ns;
    uint64_t delay_ns; /* sim_schedule_delay_ns of the def's vision_delay */
    uint64_t last_t;
    bool started;         /* seen a snapshot or been resumed */
    int geometry_count;   /* camera-0 frames since the last geometry */
    uint32_t truth_count; /* advances that released frames */
    /* frames waiting for release, a ring in capture order */
    vis_frame_t *ring;
    int cap, head, len;
    int released_start, released_count;
};

/* (Re)build everything that depends on the rig: positions and the static
   calibration state, drawn from (seed, rig_generation) over the field in
   force now. */
static void
s_load_rig (vis_model_t *self)
{
    const vis_model_def_t *d = &self->def;
    self->rig = d->schedule.rig;
    if (self->rig.count < 0)
        self->rig.count = 0;
    if (self->rig.count > SIM_MAX_CAMERAS)
        self->rig.count = SIM_MAX_CAMERAS;
    sim_rng_t rng;
    sim_schedule_calibration_rng (d->schedule.seed, d->schedule.rig_generation, &rng);
    for (int i = 0; i < self->rig.count; i++)
        vis_calib_draw (&rng, &d->field, d->realism.calibration_warp_length, &self->calib[i]);
    memset (self->memo, 0, sizeof self->memo);
    self->geometry_count = INT_MAX;
}

void
vis_model_def_default (vis_model_def_t *def)
{
    /* zero first, so two defaults compare equal byte for byte */
    memset (def, 0, sizeof *def);
    sim_schedule_def_default (&def->schedule);
    sim_field_division (SIM_DIVISION_A, &def->field);
    sim_ball_default (&def->ball);
    def->max_robot_radius = 0.09;
    sim_realism_default (&def->realism);
    def->fov_radius = 6.6;
    def->report_area = true;
    def->area_at_nadir_px = 63.0;
    def->spurious_ball_area_px = 32.0;
    def->spurious_ball_forward = 0.13;
    def->spurious_ball_lateral_stddev = 0.07;
    def->robot_confidence_mean = 0.9;
    def->ball_confidence_mean = 0.9;
    def->confidence_stddev = 0.05;
    def->duplicate_robot_rate = 3e-5;
    def->geometry_every_n_frames = 73;
    def->report_ball_z = false;
    def->timestamp_epoch_offset = 0.0;
    def->focal_length_px = 1420.0;
    def->image_width = 2448;
    def->image_height = 2048;
}

vis_model_t *
vis_model_new (const vis_model_def_t *def)
{
    assert (def);
    vis_model_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->def = *def;
    self->schedule = sim_schedule_new (&def->schedule);
    self->cap = 8;
    self->ring = malloc (sizeof (vis_frame_t) * (size_t) self->cap);
    if (!self->schedule || !self->ring) {
        vis_model_destroy (&self);
        return NULL;
    }
    self->period_ns = sim_schedule_period_ns (def->schedule.frame_rate);
    self->delay_ns = sim_schedule_delay_ns (def->realism.vision_delay);
    s_load_rig (self);
    return self;
}

void
vis_model_destroy (vis_model_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        vis_model_t *self = *self_p;
        sim_schedule_destroy (&self->schedule);
        free (self->ring);
        free (self);
        *self_p = NULL;
    }
}

void
vis_model_set_def (vis_model_t *self, const vis_model_def_t *def)
{
    assert (self && def);
    bool new_rig = def->schedule.rig_generation != self->def.schedule.rig_generation;
    self->def = *def;
    self->delay_ns = sim_schedule_delay_ns (def->realism.vision_delay);
    /* the seed or the realism may be new: nothing drawn before is kept */
    memset (self->memo, 0, sizeof self->memo);
    if (new_rig) {
        sim_schedule_reset_rig (self->schedule, &def->schedule, self->last_t);
        self->period_ns = sim_schedule_period_ns (def->schedule.frame_rate);
        s_load_rig (self);
    }
}

void
vis_model_resume (vis_model_t *self, uint64_t t_ns)
{
    assert (self);
    if (!self->started)
        sim_schedule_skip_to (self->schedule, t_ns);
    self->started = true;
}

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

/* t_sent - t_capture of one frame (docs/vision.md, "Latency"): the median
   vision_processing_time, spread by a normal score z of the frame's own
   keyed generator: below the median with low_stddev, up to p90 on the
   slope that puts z = 1.2816 there, beyond it on the slope that puts
   z = 2.3263 at p99. z is clamped to +-4 so the spread stays shorter
   than a frame period and t_sent keeps increasing. Constant (no draw)
   when neither side is spread. */
static double
s_processing_time_draw (const sim_realism_t *r, uint64_t seed, uint64_t key, uint32_t frame)
{
    double med = r->vision_processing_time;
    double p90 = r->vision_processing_p90, p99 = r->vision_processing_p99;
    bool upper = p90 > med, lower = r->vision_processing_low_stddev > 0;
    if (!upper && !lower)
        return med;
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, seed, SIM_STREAM_VISION_TIMING, key, frame);
    double z = sim_rng_normal (&rng, 1.0);
    z = z < -4 ? -4 : z > 4 ? 4 : z;
    const double z90 = 1.2815515655446004, z99 = 2.3263478740408408;
    double t;
    if (z < 0)
        t = med + z * r->vision_processing_low_stddev;
    else if (!upper)
        t = med;
    else if (z <= z90)
        t = med + z * (p90 - med) / z90;
    else
        t = p90 + (z - z90) * (p99 > p90 ? (p99 - p90) / (z99 - z90) : 0);
    return t > 0 ? t : 0;
}

/* s_processing_time_draw through the camera's memo (NULL: none). */
static double
s_processing_time (s_memo_t *memo, const sim_realism_t *r, uint64_t seed, uint64_t key, uint32_t frame)
{
    if (!memo)
        return s_processing_time_draw (r, seed, key, frame);
    int slot = (int) (frame & 1);
    if (!memo->processing_valid[slot] || memo->processing_frame[slot] != frame) {
        memo->processing[slot] = s_processing_time_draw (r, seed, key, frame);
        memo->processing_frame[slot] = frame;
        memo->processing_valid[slot] = true;
    }
    return memo->processing[slot];
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

/* Is the ball inside a loss burst at `frame` of this camera (docs/vision.md,
   "Ball losses")? A burst starts at a frame with ball_loss_burst_rate q
   and lasts a geometric number of frames of mean m, so frame k is lost
   when some frame k - j drew u < q (1 - 1/m)^j. Each frame's u comes from
   its own keyed generator, so the answer is a pure function of the frame
   number (a restarted service agrees). */
static double
s_burst_u (s_memo_t *memo, uint64_t seed, uint64_t key, uint32_t frame)
{
    int slot = (int) (frame % S_BURST_REACH);
    if (memo && memo->burst_valid[slot] && memo->burst_frame[slot] == frame)
        return memo->burst_u[slot];
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, seed, SIM_STREAM_BALL_BURST, key, frame);
    double u = sim_rng_uniform01 (&rng);
    if (memo) {
        memo->burst_u[slot] = u;
        memo->burst_frame[slot] = frame;
        memo->burst_valid[slot] = true;
    }
    return u;
}

/* The largest j for which u < q keep^j, with the thresholds and limits of
   the scan in s_ball_burst_lost (j < S_BURST_REACH, threshold > 1e-12);
   -1 when u starts no burst. The thresholds only fall, so the frame that
   drew u covers exactly frames f .. f + reach. */
static int
s_burst_reach (double u, double q, double keep)
{
    int reach = -1;
    double threshold = q;
    for (int j = 0; j < S_BURST_REACH && threshold > 1e-12 && u < threshold; j++) {
        reach = j;
        threshold *= keep;
    }
    return reach;
}

/* Frame k is lost when some frame k - j (j <= k, within the scan's
   limits) drew u < q keep^j, that is when k lies within the reach of a
   burst that started up to S_BURST_REACH - 1 frames before. The memo keeps
   the furthest reach so far, so a camera's next capture looks at only
   the frames since its last; without one (or after a gap) the window is
   scanned afresh. */
static bool
s_ball_burst_lost (s_memo_t *memo, const sim_realism_t *r, uint64_t seed, uint64_t key, uint32_t frame)
{
    double q = r->ball_loss_burst_rate;
    if (!(q > 0))
        return false;
    double m = r->ball_loss_burst_length > 1 ? r->ball_loss_burst_length : 1;
    double keep = 1 - 1 / m;
    uint64_t from;
    int64_t cover = -1;
    if (memo && memo->burst_run && memo->burst_last <= frame && frame - memo->burst_last < S_BURST_REACH) {
        from = (uint64_t) memo->burst_last + 1;
        cover = memo->burst_cover;
    } else {
        /* afresh: only the frames the scan would reach back to */
        int span = 0;
        for (double threshold = q; span < S_BURST_REACH && threshold > 1e-12; threshold *= keep)
            span++;
        from = (uint64_t) frame + 1 >= (uint64_t) span ? (uint64_t) frame + 1 - (uint64_t) span : 0;
    }
    for (uint64_t f = from; f <= frame; f++) {
        int reach = s_burst_reach (s_burst_u (memo, seed, key, (uint32_t) f), q, keep);
        if (reach >= 0 && (int64_t) f + reach > cover)
            cover = (int64_t) f + reach;
    }
    if (memo) {
        memo->burst_run = true;
        memo->burst_last = frame;
        memo->burst_cover = cover;
    }
    return cover >= (int64_t) frame;
}

/* Chance the ball is lost next to a robot (docs/vision.md): A exp (-g / L)
   with g the gap from the ball centre to the nearest robot's circle
   (negative inside it); 0 without robots or when the model is off. */
static double
s_near_robot_loss (const sim_realism_t *r, const sim_snapshot_t *snap, int n, double bx, double by)
{
    double a = r->near_robot_ball_loss, len = r->near_robot_ball_loss_length;
    if (!(a > 0) || !(len > 0) || n == 0)
        return 0;
    /* hypot is the measure (the same gap as ever), but it costs several
       times sqrt of the squares, which is within vis_ball_hypot_slack of it: the
       squares pick the robots that can be nearest, hypot decides among
       them. A robot whose square overflows is never picked; it cannot be
       the nearest of finite ones, and alone it leaves the gap infinite,
       which returns 0 as its huge hypot gap would. */
    double approx[SIM_SNAPSHOT_MAX_ROBOTS], slack[SIM_SNAPSHOT_MAX_ROBOTS];
    double best = INFINITY;
    int k = 0;
#ifdef __SSE2__
    /* two robots at a time, the same operations per lane; minpd is exactly
       `v < best ? v : best`, and the minimum of the lanes is the minimum */
    const __m128d bxv = _mm_set1_pd (bx), byv = _mm_set1_pd (by);
    const __m128d abs = _mm_castsi128_pd (_mm_set1_epi64x (0x7fffffffffffffffll));
    __m128d bestv = _mm_set1_pd (INFINITY);
    for (; k + 1 < n; k += 2) {
        const sim_robot_state_t *r0 = &snap->robots[k], *r1 = &snap->robots[k + 1];
        __m128d dx = _mm_sub_pd (_mm_set_pd (r1->x, r0->x), bxv);
        __m128d dy = _mm_sub_pd (_mm_set_pd (r1->y, r0->y), byv);
        __m128d ap = _mm_sub_pd (_mm_sqrt_pd (_mm_add_pd (_mm_mul_pd (dx, dx), _mm_mul_pd (dy, dy))),
                                 _mm_set_pd (r1->radius, r0->radius));
        __m128d sl = _mm_add_pd (
            _mm_set1_pd (1e-6),
            _mm_mul_pd (_mm_set1_pd (1e-12), _mm_add_pd (_mm_and_pd (abs, dx), _mm_and_pd (abs, dy))));
        _mm_storeu_pd (approx + k, ap);
        _mm_storeu_pd (slack + k, sl);
        bestv = _mm_min_pd (_mm_add_pd (ap, sl), bestv);
    }
    double lanes[2];
    _mm_storeu_pd (lanes, bestv);
    best = lanes[0] < lanes[1] ? lanes[0] : lanes[1];
#endif
    for (; k < n; k++) {
        const sim_robot_state_t *rb = &snap->robots[k];
        double dx = rb->x - bx, dy = rb->y - by;
        approx[k] = sqrt (dx * dx + dy * dy) - rb->radius;
        slack[k] = vis_ball_hypot_slack (dx, dy);
        if (approx[k] + slack[k] < best)
            best = approx[k] + slack[k];
    }
    double gap = INFINITY;
    for (k = 0; k < n; k++) {
        const sim_robot_state_t *rb = &snap->robots[k];
        if (!(approx[k] - slack[k] <= best))
            continue;
        double g = hypot (rb->x - bx, rb->y - by) - rb->radius;
        if (g < gap)
            gap = g;
    }
    if (gap > 30 * len)
        return 0;
    return a * exp (-gap / len);
}

/* The world at the true capture instant: every object moved back along
   its velocity by the time between the instant and the snapshot (at most
   a substep, so straight lines are exact enough). */
static void
s_rewind (const sim_snapshot_t *snap, uint64_t instant_ns, sim_snapshot_t *out)
{
    /* the robots past robot_count are never read: copying the whole
       snapshot would cost more than the rest of the rewind */
    int n = snap->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? snap->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    if (n < 0)
        n = 0;
    memcpy (out, snap, offsetof (sim_snapshot_t, robots) + (size_t) n * sizeof snap->robots[0]);
    double dt = (double) (snap->time_ns - instant_ns) * 1e-9;
    out->time_ns = instant_ns;
    int k = 0;
#ifdef __SSE2__
    /* x and y next to each other, vx and vy too: one pair a robot, the
       same operation per lane */
    _Static_assert(offsetof (sim_robot_state_t, y) == offsetof (sim_robot_state_t, x) + sizeof (double)
                       && offsetof (sim_robot_state_t, vy)
                              == offsetof (sim_robot_state_t, vx) + sizeof (double),
                   "the rewind's pairs");
    const __m128d dtv = _mm_set1_pd (dt);
    for (; k < n; k++) {
        sim_robot_state_t *rb = &out->robots[k];
        __m128d p = _mm_loadu_pd (&rb->x), vel = _mm_loadu_pd (&rb->vx);
        _mm_storeu_pd (&rb->x, _mm_sub_pd (p, _mm_mul_pd (vel, dtv)));
        rb->orientation -= rb->omega * dt;
    }
#endif
    for (; k < n; k++) {
        sim_robot_state_t *rb = &out->robots[k];
        rb->x -= rb->vx * dt;
        rb->y -= rb->vy * dt;
        rb->orientation -= rb->omega * dt;
    }
    sim_ball_state_t *b = &out->ball;
    b->x -= b->vx * dt;
    b->y -= b->vy * dt;
    b->z -= b->vz * dt;
}

/* t_sent of the frame before, as s_capture computes it before the
   ordering clamp (docs/vision.md, "Capture timing"). */
static double
s_previous_t_sent (const vis_model_t *self, s_memo_t *memo, uint64_t key, uint32_t frame_number,
                   uint64_t previous_ns)
{
    const vis_model_def_t *v = &self->def;
    const sim_realism_t *r = &v->realism;
    double delay = r->vision_delay > 0 ? r->vision_delay : 0;
    double leave = (double) previous_ns * 1e-9 + delay + v->timestamp_epoch_offset;
    return leave - r->vision_processing_time
         + s_processing_time (memo, r, v->schedule.seed, key, frame_number - 1);
}

/* Capture frame `frame_number` of camera `index` into f; memo is the
   camera's (NULL: draw everything afresh, the same numbers). */
static void
s_capture (const vis_model_t *self, s_memo_t *memo, int index, uint32_t frame_number,
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
        s_rewind (world, instant_ns, &rewound);
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

    /* The frame leaves at capture + vision_delay; t_capture sits the median
       processing time before that, t_sent one drawn processing time after
       t_capture (the same instant when the time is constant). */
    double delay = r->vision_delay > 0 ? r->vision_delay : 0;
    double leave = (double) snap->time_ns * 1e-9 + delay + v->timestamp_epoch_offset;
    f->t_capture = leave - r->vision_processing_time;
    double processing = s_processing_time (memo, r, v->schedule.seed, key, frame_number);
    f->t_sent = processing == r->vision_processing_time ? leave : f->t_capture + processing;
    /* A capture right after a late one may come less than the processing
       spread later; its t_sent must still follow the one before. */
    if (jittered && previous_ns > 0 && frame_number > 0) {
        double before = s_previous_t_sent (self, memo, key, frame_number, previous_ns);
        if (!(f->t_sent > before))
            f->t_sent = before + 1e-6;
    }
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
        && !s_ball_burst_lost (memo, r, v->schedule.seed, key, frame_number)
        && !sim_rng_chance (&rng_d, s_near_robot_loss (r, snap, n, b->x, b->y))
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
        vis_robot_det_t *list = rb->team == SIM_TEAM_YELLOW ? f->yellow : f->blue;
        int *count = rb->team == SIM_TEAM_YELLOW ? &f->yellow_count : &f->blue_count;
        for (int copy = 0; copy < 1 + twice[j]; copy++) {
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
                .id = rb->id,
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
            .has_area = v->report_area,
            .confidence = s_clamp_confidence (v->ball_confidence_mean + n_c),
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
                .has_area = v->report_area,
                .confidence = s_confidence (&rng_n, v->ball_confidence_mean, v->confidence_stddev),
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
        double hx = v->field.length / 2 + v->field.boundary_width;
        double hy = v->field.width / 2 + v->field.boundary_width;
        double reach = soft ? r->fov_edge_radius : fov;
        for (int g = 0; g < count; g++)
            for (int attempt = 0; attempt < 4; attempt++) {
                double gx = sim_rng_uniform (&rng_n, -hx, hx);
                double gy = sim_rng_uniform (&rng_n, -hy, hy);
                if (!vis_region_visible (&self->rig, index, gx, gy, overlap, reach))
                    continue;
                f->balls[f->ball_count++] = (vis_ball_det_t) {
                    .x = gx,
                    .y = gy,
                    .z = br,
                    .has_z = v->report_ball_z,
                    .area = v->spurious_ball_area_px,
                    .has_area = v->report_area,
                    .confidence = s_confidence (&rng_n, v->ball_confidence_mean, v->confidence_stddev),
                    .spurious = true,
                    .ghost = true,
                };
                break;
            }
    }

    /* Shuffle (§5.5): the real ball must not always come first. */
    if (f->ball_count > 1) {
        sim_rng_seed_keyed (&rng_s, v->schedule.seed, SIM_STREAM_SHUFFLE, key, frame_number);
        sim_rng_shuffle (&rng_s, f->balls, (size_t) f->ball_count, sizeof f->balls[0]);
    }
}

void
vis_model_capture (const vis_model_t *self, int index, uint32_t frame_number, const sim_snapshot_t *snap,
                   vis_frame_t *out)
{
    assert (self && snap && out);
    assert (index >= 0 && index < self->rig.count);
    s_capture (self, NULL, index, frame_number, snap, snap->time_ns, 0, out);
}

/* Make room for `more` frames; 0 on success. */
static int
s_reserve (vis_model_t *self, int more)
{
    if (self->len + more <= self->cap)
        return 0;
    int cap = self->cap;
    while (cap < self->len + more)
        cap *= 2;
    vis_frame_t *ring = malloc (sizeof (vis_frame_t) * (size_t) cap);
    if (!ring)
        return -1;
    for (int i = 0; i < self->len; i++)
        memcpy (&ring[i], &self->ring[(self->head + i) % self->cap], sizeof (vis_frame_t));
    free (self->ring);
    self->ring = ring;
    self->cap = cap;
    self->head = 0;
    return 0;
}

int
vis_model_advance (vis_model_t *self, const sim_snapshot_t *snap)
{
    assert (self && snap);
    self->released_count = 0;
    int cams = self->rig.count;
    if (s_reserve (self, cams) != 0)
        return -1;
    self->last_t = snap->time_ns;

    /* A model that first sees the world late (a restarted service) picks
       up the frame numbers the schedule has reached by now. */
    if (!self->started) {
        sim_schedule_skip_to (self->schedule, snap->time_ns);
        self->started = true;
    }
    uint64_t delay_ns = self->delay_ns;
    uint32_t mask = 0, frames[SIM_MAX_CAMERAS] = { 0 };
    int released = sim_schedule_advance (self->schedule, snap->time_ns, delay_ns, &mask, frames);
    uint32_t suppressed = sim_schedule_suppressed_mask (self->schedule);
    int every = self->def.geometry_every_n_frames > 0 ? self->def.geometry_every_n_frames : 1;

    for (int i = 0; i < cams; i++) {
        uint32_t bit = 1u << i;
        bool geometry = false;
        if (i == 0 && ((mask | suppressed) & bit)) {
            /* A suppressed frame only counts, so geometry comes right after
               an outage at least one interval long (vision.md §6). */
            if ((mask & bit) && self->geometry_count >= every) {
                geometry = true;
                self->geometry_count = 1;
            } else if (self->geometry_count < INT_MAX)
                self->geometry_count++;
        }
        if (!(mask & bit))
            continue;
        vis_frame_t *f = &self->ring[(self->head + self->len) % self->cap];
        self->len++;
        s_capture (self, &self->memo[i], i, frames[i], snap, sim_schedule_capture_ns (self->schedule, i),
                   sim_schedule_previous_capture_ns (self->schedule, i), f);
        f->geometry = geometry;
        f->due_ns = snap->time_ns + delay_ns;
    }

    assert (released <= self->len);
    self->released_start = self->head;
    self->released_count = released;
    self->head = (self->head + released) % self->cap;
    self->len -= released;
    if (released > 0)
        self->truth_count++;
    return released;
}

const vis_frame_t *
vis_model_released (const vis_model_t *self, int i)
{
    assert (self);
    assert (i >= 0 && i < self->released_count);
    return &self->ring[(self->released_start + i) % self->cap];
}

const vis_model_def_t *
vis_model_def (const vis_model_t *self)
{
    assert (self);
    return &self->def;
}

const sim_rig_t *
vis_model_rig (const vis_model_t *self)
{
    assert (self);
    return &self->rig;
}

const vis_calib_t *
vis_model_calib (const vis_model_t *self, int index)
{
    assert (self && index >= 0 && index < self->rig.count);
    return &self->calib[index];
}

const sim_schedule_t *
vis_model_schedule (const vis_model_t *self)
{
    assert (self);
    return self->schedule;
}

uint64_t
vis_model_period_ns (const vis_model_t *self)
{
    assert (self);
    return self->period_ns;
}

uint32_t
vis_model_truth_frame_number (const vis_model_t *self)
{
    assert (self);
    return self->truth_count > 0 ? self->truth_count - 1 : 0;
}
