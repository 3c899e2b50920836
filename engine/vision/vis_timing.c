/*  vis_timing.c - when a capture happened and when its frame leaves
    (docs/vision.md, "Latency" and "Capture timing"): the world moved back
    to a jittered capture instant, each frame's drawn processing time, and
    t_capture and t_sent, t_sent kept after the frame before's when a
    late capture's successor comes early. vis_capture.c calls them.
*/
#include "vis_model_internal.h"

#include <stddef.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
s_processing_time (vis_memo_t *memo, const sim_realism_t *r, uint64_t seed, uint64_t key, uint32_t frame)
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

/* t_sent of the frame before, as vis_timing_stamps computes it before the
   ordering clamp (docs/vision.md, "Capture timing"). */
static double
s_previous_t_sent (const vis_model_t *self, vis_memo_t *memo, uint64_t key, uint32_t frame_number,
                   uint64_t previous_ns)
{
    const vis_model_def_t *v = &self->def;
    const sim_realism_t *r = &v->realism;
    double delay = r->vision_delay > 0 ? r->vision_delay : 0;
    double leave = (double) previous_ns * 1e-9 + delay + v->timestamp_epoch_offset;
    return leave - r->vision_processing_time
         + s_processing_time (memo, r, v->schedule.seed, key, frame_number - 1);
}

/* The world at the true capture instant: every object moved back along
   its velocity by the time between the instant and the snapshot (at most
   a substep, so straight lines are exact enough). */
void
vis_timing_rewind (const sim_snapshot_t *snap, uint64_t instant_ns, sim_snapshot_t *out)
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

void
vis_timing_stamps (const vis_model_t *self, vis_memo_t *memo, uint64_t key, uint32_t frame_number,
                   uint64_t capture_ns, bool jittered, uint64_t previous_ns, vis_frame_t *f)
{
    const vis_model_def_t *v = &self->def;
    const sim_realism_t *r = &v->realism;
    /* The frame leaves at capture + vision_delay; t_capture sits the median
       processing time before that, t_sent one drawn processing time after
       t_capture (the same instant when the time is constant). */
    double delay = r->vision_delay > 0 ? r->vision_delay : 0;
    double leave = (double) capture_ns * 1e-9 + delay + v->timestamp_epoch_offset;
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
}
