/*  sim_mfit_vchip.c - chip flights from vision alone (see sim_mfit.h).

    The league's vision reports no ball height: a camera at (cx, cy, H)
    that sees the ball h above its rest puts it on the floor where its ray
    meets it, p = g + (p - c) h / H, g the ground point under the ball
    (engine/vision/vis_ball.c projects so; SSL-Vision does the same).
    Given a flight's take-off ta and landing tb, h is known at every
    instant (a parabola under gravity, 0 at both), so each detection moved
    back along its own camera's ray, g = p - (p - c) h / H, must lie on
    the flight's straight ground line: least squares of the line over the
    flight's detections, any camera, leaves a residual that is small only
    for the right ta and tb. vz = G (tb - ta) / 2, and the line's slope is
    the ground speed.

    Candidates for ta and tb are the kinks of each camera's track: where
    the ball bounces, its image's velocity jumps by (p - c)(vz_in +
    vz_out) / H and its ground speed by the damping; a kick is a kink
    too. A kink is where the quadratics fitted to five samples either
    side differ in velocity by 0.3 m/s or more, more than at the three
    samples around, placed by one quadratic with a break in slope fitted
    over the ten samples. Ghosts (a camera's lone sample far from its
    neighbours) are dropped first, and each camera but the first in a
    flight gets a ground offset of its own (calibrations differ by a
    centimetre or two). From each kink
    the later kink (within 2.5 s) that makes the best flight is taken: a
    flight's ground line must explain its detections to 2 cm and four
    times better than the plain image line (near a camera's nadir a
    flight barely shows and is left out), its apex must be 2 cm or more
    (the heights path's threshold), and a flight that does not take off
    where the last one landed must start from a ball that was at rest or
    rolled at less than half its speed (a kick; a stretch inside a flight
    that a camera's noise cut off is neither). The flights then make
    bounces as the heights' flights do (mfit_chain_add).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_mfit_internal.h"

#define S_SIDE     5     /* samples each side of a kink */
#define S_KINK_DV  0.3   /* m/s: a smaller jump of the image's velocity is no kink */
#define S_SIDE_RMS 0.004 /* m: a side this far off its quadratic holds a jump or a bounce */
#define S_MERGE    0.02  /* s: kinks of two cameras this close are one */
#define S_ROOT     0.03  /* s: a take-off this close to the last landing is a bounce */
#define S_MARGIN   0.01  /* s: samples this close to a kink may be on its other side */
#define S_MIN_N    8     /* detections a flight needs */
/* m: detections this far off a flight's model are no flight (a camera's
   calibration warp, 10 mm by default, bends the ground line a little) */
#define S_MAX_RMS 0.02
#define S_STRAY   0.2 /* m: farther from a camera's samples either side is a ghost */
#define S_NMS     3   /* samples either side a kink must stand out of */

/* One detection with its camera. */
typedef struct {
    double t, x, y, cx, cy, h;
    int cam;
} s_det_t;

/* The first detection at or after t. */
static size_t
s_at (const s_det_t *d, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A quadratic in time fitted to p[a..a+S_SIDE-1] around tm (its
   coefficients per axis into bx, by) and the rms distance of the samples
   from it; false when the samples do not follow each other. */
static bool
s_side (const mfit_pt_t *p, size_t a, double tm, double *bx, double *by, double *rms)
{
    double x[4 * S_SIDE], yx[S_SIDE], yy[S_SIDE];
    for (size_t i = 0; i < S_SIDE; i++) {
        if (i > 0 && !(p[a + i].t - p[a + i - 1].t > 0 && p[a + i].t - p[a + i - 1].t <= MFIT_BALL_GAP))
            return false;
        double tau = p[a + i].t - tm;
        x[i * 4] = 1;
        x[i * 4 + 1] = tau;
        x[i * 4 + 2] = tau * tau;
        yx[i] = p[a + i].x;
        yy[i] = p[a + i].y;
    }
    double sx = mfit_lsq (x, yx, S_SIDE, 3, bx), sy = mfit_lsq (x, yy, S_SIDE, 3, by);
    *rms = sqrt ((sx + sy) / S_SIDE);
    return isfinite (sx) && isfinite (sy);
}

/* Where exactly the kink found between p[i - 1] and p[i] lies: the ten
   samples around it fitted with one quadratic plus a break in slope at
   t*, t* searched 0.5 ms at a time from three samples before to two
   after (the velocity jump is largest a sample or two off a weak kink).
   A break in curvature too was tried: it placed the kinks no better. */
static double
s_kink_at (const mfit_pt_t *p, size_t i)
{
    enum { W = 2 * S_SIDE };
    double x[W * 4], yx[W], yy[W], beta[4], best = INFINITY, at = (p[i - 1].t + p[i].t) / 2;
    size_t a = i - S_SIDE;
    double lo = p[i - 3].t, hi = p[i + 2].t;
    for (double ts = lo; ts <= hi; ts += 0.0005) {
        for (size_t k = 0; k < W; k++) {
            double tau = p[a + k].t - ts, h = tau > 0 ? tau : 0;
            double row[4] = { 1, tau, tau * tau, h };
            memcpy (&x[k * 4], row, sizeof row);
            yx[k] = p[a + k].x;
            yy[k] = p[a + k].y;
        }
        double sse = mfit_lsq (x, yx, W, 4, beta) + mfit_lsq (x, yy, W, 4, beta);
        if (sse < best) {
            best = sse;
            at = ts;
        }
    }
    return at;
}

/* The kinks of one camera's track: where the quadratics fitted to the
   samples either side differ in velocity by S_KINK_DV or more, most in
   their neighbourhood (a bounce is where the image's path breaks), each
   placed by s_kink_at. */
static void
s_kinks (const mfit_pt_t *p, size_t n, mfit_list_t *out)
{
    if (n < 2 * S_SIDE + 2)
        return;
    double *dv = calloc (n, sizeof *dv);
    if (!dv)
        return;
    for (size_t i = S_SIDE; i + S_SIDE <= n; i++) {
        double tm = (p[i - 1].t + p[i].t) / 2, l[2][3], r[2][3], lr, rr;
        if (!(p[i].t - p[i - 1].t > 0 && p[i].t - p[i - 1].t <= MFIT_BALL_GAP))
            continue;
        /* a side that holds the jump itself (a teleport, a bounce a
           sample away) is far off its quadratic: only clean sides count */
        if (!s_side (p, i - S_SIDE, tm, l[0], l[1], &lr) || !s_side (p, i, tm, r[0], r[1], &rr)
            || lr > S_SIDE_RMS || rr > S_SIDE_RMS)
            continue;
        dv[i] = hypot (r[0][1] - l[0][1], r[1][1] - l[1][1]);
    }
    for (size_t i = S_SIDE; i + S_SIDE <= n; i++) {
        bool top = dv[i] > S_KINK_DV;
        for (size_t j = i - S_NMS; top && j <= i + S_NMS && j < n; j++)
            top = j == i || (j < i ? dv[j] <= dv[i] : dv[j] < dv[i]);
        if (top)
            mfit_list_push (out, s_kink_at (p, i));
    }
    free (dv);
}

/* The detections d[a..e) with the heights of a flight from ta to tb
   (a parabola under gravity, 0 at both), each moved back along its
   camera's ray to the ground: the residual sum of squares of their
   ground line (its origin at ta and velocity into line[0..3]). Each
   camera but the first has an offset of its own (two cameras' ground
   positions differ by a centimetre or two: their calibrations); a
   fifth camera's detections are left out. *flat gets the same for the
   plain image, *reach the largest |p - c| / H. */
static double
s_hop (const s_det_t *d, size_t a, size_t e, double ta, double tb, double *line, double *flat, double *reach)
{
    enum { K = MFIT_LSQ_MAX };
    size_t m = 0;
    double T = tb - ta, r = 0;
    double *x = malloc ((e - a) * K * sizeof *x), *v = malloc (4 * (e - a) * sizeof *v);
    if (!x || !v) {
        free (x);
        free (v);
        return INFINITY;
    }
    int cams[K - 2], nc = 0;
    double *gx = v, *gy = v + (e - a), *fx = v + 2 * (e - a), *fy = v + 3 * (e - a);
    for (size_t i = a; i < e; i++) {
        const s_det_t *s = &d[i];
        int c = 0;
        while (c < nc && cams[c] != s->cam)
            c++;
        if (c == nc && nc == K - 2)
            continue;
        if (c == nc)
            cams[nc++] = s->cam;
        double tau = s->t - ta, h = MFIT_G * tau * (T - tau) / 2;
        double ex = (s->x - s->cx) / s->h, ey = (s->y - s->cy) / s->h;
        double *row = &x[m * K];
        memset (row, 0, K * sizeof *row);
        row[0] = 1;
        row[1] = tau;
        if (c > 0)
            row[1 + c] = 1;
        gx[m] = s->x - ex * h;
        gy[m] = s->y - ey * h;
        fx[m] = s->x;
        fy[m] = s->y;
        r = fmax (r, hypot (ex, ey));
        m++;
    }
    double bx[K], by[K];
    int k = 1 + nc;
    double sse = mfit_lsq_wide (x, gx, m, k, K, bx) + mfit_lsq_wide (x, gy, m, k, K, by);
    line[0] = bx[0];
    line[1] = by[0];
    line[2] = bx[1];
    line[3] = by[1];
    *flat = mfit_lsq_wide (x, fx, m, k, K, bx) + mfit_lsq_wide (x, fy, m, k, K, by);
    *reach = r;
    free (x);
    free (v);
    return sse;
}

/* Whether the detections between take-off ta and landing tb are one
   flight: moved back to the ground with the flight's heights they lie
   on a line, to S_MAX_RMS and four times closer than the image does;
   the apex is 2 cm or more and shows (near a camera's nadir a flight
   does not). *rms_out gets the line's rms distance. */
static bool
s_flight (const s_det_t *d, size_t n, double ta, double tb, mfit_flight_t *out, double *rms_out)
{
    double T = tb - ta, apex = MFIT_G * T * T / 8;
    if (!(T > 0) || T > 2.5 || apex < 0.02)
        return false; /* the heights path's threshold: the last rattles */
    size_t a = s_at (d, n, ta + S_MARGIN), e = s_at (d, n, tb - S_MARGIN);
    if (e < a + S_MIN_N)
        return false;
    double line[4] = { 0 }, flat = 0, reach = 0;
    double sse = s_hop (d, a, e, ta, tb, line, &flat, &reach);
    *rms_out = sqrt (sse / (double) (e - a));
    if (!isfinite (sse) || *rms_out > S_MAX_RMS || !(4 * sse < flat) || apex * reach < 0.01)
        return false;
    out->ta = ta;
    out->tb = tb;
    out->vz_up = MFIT_G * T / 2;
    out->vz_down = -out->vz_up;
    out->vxy = hypot (line[2], line[3]);
    out->x = line[0];
    out->y = line[1];
    return true;
}

/* Keep the samples of one camera's track that lie within S_STRAY of
   the sample before or after (a frame or two away): a camera that does
   not see the ball reports what it takes for one, a ghost somewhere
   else, one frame here and one there. Returns how many are kept (in
   place, in order). */
static size_t
s_drop_strays (mfit_pt_t *p, size_t n)
{
    size_t m = 0;
    bool prev_near = false;
    for (size_t i = 0; i < n; i++) {
        bool next_near = i + 1 < n && p[i + 1].t - p[i].t <= MFIT_GAP
                      && hypot (p[i + 1].x - p[i].x, p[i + 1].y - p[i].y) < S_STRAY;
        if (prev_near || next_near)
            p[m++] = p[i];
        prev_near = next_near;
    }
    return m;
}

/* Whether the ball's image moved at less than half the flight's ground
   speed in the 60 ms before its take-off (a kick from rest or from a
   slower roll). */
static bool
s_kicked (const s_det_t *d, size_t n, const mfit_flight_t *f)
{
    size_t a = s_at (d, n, f->ta - 0.06), e = s_at (d, n, f->ta - 0.005);
    if (e < a + 3)
        return false;
    double x[4 * 16], yx[16], yy[16], bx[4], by[4];
    size_t m = 0;
    for (size_t i = a; i < e && m < 16; i++, m++) {
        x[m * 4] = 1;
        x[m * 4 + 1] = d[i].t - f->ta;
        yx[m] = d[i].x;
        yy[m] = d[i].y;
    }
    double sse = mfit_lsq (x, yx, m, 2, bx) + mfit_lsq (x, yy, m, 2, by);
    return isfinite (sse) && hypot (bx[1], by[1]) < 0.5 * f->vxy;
}

void
mfit_vision_chips (const sim_mfit_t *self, const mfit_robots_t *rb, mfit_chip_acc_t *acc)
{
    size_t total = 0;
    for (int c = 0; c < MFIT_CAMS; c++)
        if (self->has_cam[c])
            total += self->ball[c].n;
    if (total == 0)
        return;
    s_det_t *d = malloc (total * sizeof *d);
    if (!d)
        return;
    mfit_list_t kinks = { 0 };
    size_t n = 0;
    for (int c = 0; c < MFIT_CAMS; c++) {
        const mfit_arr_t *a = &self->ball[c];
        mfit_pt_t *p = self->has_cam[c] ? mfit_sorted (a) : NULL;
        if (!p)
            continue;
        size_t kept = s_drop_strays (p, a->n);
        s_kinks (p, kept, &kinks);
        for (size_t i = 0; i < kept; i++)
            d[n++] = (s_det_t) { p[i].t, p[i].x, p[i].y, self->cam_x[c], self->cam_y[c], self->cam_z[c], c };
        free (p);
    }
    qsort (d, n, sizeof *d, mfit_cmp_t);
    if (kinks.n > 1)
        qsort (kinks.v, (size_t) kinks.n, sizeof *kinks.v, mfit_cmp_t);
    /* two cameras in an overlap see one bounce: keep the first */
    int m = 0;
    for (int i = 0; i < kinks.n; i++)
        if (m == 0 || kinks.v[i] - kinks.v[m - 1] > S_MERGE)
            kinks.v[m++] = kinks.v[i];
    /* from each kink, the later one that makes the best flight with it
       (a kink that a camera's noise made inside a flight leaves heights
       that do not fit); a flight's landing is where the next one is
       sought from */
    mfit_chain_t ch = { 0 };
    for (int k = 0; k + 1 < m;) {
        mfit_flight_t f, g;
        double rms, best = INFINITY;
        int j = -1;
        for (int i = k + 1; i < m && kinks.v[i] - kinks.v[k] <= 2.5; i++)
            if (s_flight (d, n, kinks.v[k], kinks.v[i], &g, &rms) && rms < best) {
                best = rms;
                f = g;
                j = i;
            }
        /* a flight that is no bounce is a kick's: the ball came from
           rest or rolled slower (a stretch inside a flight that a
           camera's noise cut off is neither) */
        bool bounce = j >= 0 && ch.have_prev && fabs (f.ta - ch.prev.tb) < S_ROOT;
        if (j >= 0 && !bounce && !s_kicked (d, n, &f))
            j = -1;
        if (j < 0) {
            if (ch.have_prev && kinks.v[k] > ch.prev.tb + S_ROOT)
                ch.have_prev = false;
            k++;
            continue;
        }
        mfit_chain_add (&ch, &f, rb, acc);
        k = j;
    }
    free (kinks.v);
    free (d);
}
