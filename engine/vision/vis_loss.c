/*  vis_loss.c - the ball's losses that are not dropouts (docs/vision.md,
    "Ball losses"): loss bursts that last a geometric number of frames,
    keyed per frame so the answer is a pure function of the frame number,
    and the chance of losing the ball next to a robot.
*/
#include "vis_model_internal.h"
#include "vis_ball.h"

#include <math.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Is the ball inside a loss burst at `frame` of this camera (docs/vision.md,
   "Ball losses")? A burst starts at a frame with ball_loss_burst_rate q
   and lasts a geometric number of frames of mean m, so frame k is lost
   when some frame k - j drew u < q (1 - 1/m)^j. Each frame's u comes from
   its own keyed generator, so the answer is a pure function of the frame
   number (a restarted service agrees). */
static double
s_burst_u (vis_memo_t *memo, uint64_t seed, uint64_t key, uint32_t frame)
{
    int slot = (int) (frame % VIS_BURST_REACH);
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
   the scan in vis_loss_ball_burst (j < VIS_BURST_REACH, threshold > 1e-12);
   -1 when u starts no burst. The thresholds only fall, so the frame that
   drew u covers exactly frames f .. f + reach. */
static int
s_burst_reach (double u, double q, double keep)
{
    int reach = -1;
    double threshold = q;
    for (int j = 0; j < VIS_BURST_REACH && threshold > 1e-12 && u < threshold; j++) {
        reach = j;
        threshold *= keep;
    }
    return reach;
}

/* Frame k is lost when some frame k - j (j <= k, within the scan's
   limits) drew u < q keep^j, that is when k lies within the reach of a
   burst that started up to VIS_BURST_REACH - 1 frames before. The memo keeps
   the furthest reach so far, so a camera's next capture looks at only
   the frames since its last; without one (or after a gap) the window is
   scanned afresh. */
bool
vis_loss_ball_burst (vis_memo_t *memo, const sim_realism_t *r, uint64_t seed, uint64_t key, uint32_t frame)
{
    double q = r->ball_loss_burst_rate;
    if (!(q > 0))
        return false;
    double m = r->ball_loss_burst_length > 1 ? r->ball_loss_burst_length : 1;
    double keep = 1 - 1 / m;
    uint64_t from;
    int64_t cover = -1;
    if (memo && memo->burst_run && memo->burst_last <= frame && frame - memo->burst_last < VIS_BURST_REACH) {
        from = (uint64_t) memo->burst_last + 1;
        cover = memo->burst_cover;
    } else {
        /* afresh: only the frames the scan would reach back to */
        int span = 0;
        for (double threshold = q; span < VIS_BURST_REACH && threshold > 1e-12; threshold *= keep)
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
double
vis_loss_near_robot (const sim_realism_t *r, const sim_snapshot_t *snap, int n, double bx, double by)
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
