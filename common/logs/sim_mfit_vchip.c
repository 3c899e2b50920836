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
    samples around, placed where the two quadratics meet. From each kink
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
#define S_NMS     3 /* samples either side a kink must stand out of */

/* One detection with its camera. */
typedef struct {
    double t, x, y, cx, cy, h;
} s_det_t;

static int
s_cmp_t (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b; /* t first in both */
    return x < y ? -1 : x > y;
}

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

/* The kinks of one camera's track: where the quadratics fitted to the
   samples either side differ in velocity by S_KINK_DV or more, most in
   their neighbourhood; each at the instant between the two samples where
   the two quadratics meet (a bounce is where the image's path breaks). */
static void
s_kinks (const mfit_pt_t *p, size_t n, mfit_list_t *out)
{
    if (n < 2 * S_SIDE + 2)
        return;
    double *dv = calloc (n, sizeof *dv), *at = calloc (n, sizeof *at);
    if (!dv || !at) {
        free (dv);
        free (at);
        return;
    }
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
        double half = (p[i].t - p[i - 1].t) / 2, best = INFINITY;
        at[i] = tm;
        for (double tau = -half; tau <= half; tau += 0.0005) {
            double ex = (l[0][0] + l[0][1] * tau + l[0][2] * tau * tau)
                      - (r[0][0] + r[0][1] * tau + r[0][2] * tau * tau);
            double ey = (l[1][0] + l[1][1] * tau + l[1][2] * tau * tau)
                      - (r[1][0] + r[1][1] * tau + r[1][2] * tau * tau);
            if (hypot (ex, ey) < best) {
                best = hypot (ex, ey);
                at[i] = tm + tau;
            }
        }
    }
    for (size_t i = S_SIDE; i + S_SIDE <= n; i++) {
        bool top = dv[i] > S_KINK_DV;
        for (size_t j = i - S_NMS; top && j <= i + S_NMS && j < n; j++)
            top = j == i || (j < i ? dv[j] <= dv[i] : dv[j] < dv[i]);
        if (top)
            mfit_list_push (out, at[i]);
    }
    free (dv);
    free (at);
}

/* Whether the detections between take-off ta and landing tb are one
   flight: with the heights of a parabola under gravity from ta to tb,
   each detection moved back along its camera's ray to the ground lies
   on a line; its speed and take-off point into *out. */
static bool
s_flight (const s_det_t *d, size_t n, double ta, double tb, mfit_flight_t *out, double *rms_out)
{
    double T = tb - ta, apex = MFIT_G * T * T / 8;
    if (!(T > 0) || T > 2.5 || apex < 0.02)
        return false; /* the heights path's threshold: the last rattles */
    size_t a = s_at (d, n, ta + S_MARGIN), e = s_at (d, n, tb - S_MARGIN), m = e > a ? e - a : 0;
    if (m < S_MIN_N)
        return false;
    double *x = malloc (m * 4 * sizeof *x), *gx = malloc (m * sizeof *gx), *gy = malloc (m * sizeof *gy);
    double *fx = malloc (m * sizeof *fx), *fy = malloc (m * sizeof *fy);
    bool ok = false;
    if (x && gx && gy && fx && fy) {
        double reach = 0;
        for (size_t i = 0; i < m; i++) {
            const s_det_t *s = &d[a + i];
            double tau = s->t - ta, h = MFIT_G * tau * (T - tau) / 2;
            double ex = (s->x - s->cx) / s->h, ey = (s->y - s->cy) / s->h;
            x[i * 4] = 1;
            x[i * 4 + 1] = tau;
            gx[i] = s->x - ex * h;
            gy[i] = s->y - ey * h;
            fx[i] = s->x;
            fy[i] = s->y;
            reach = fmax (reach, hypot (ex, ey));
        }
        double bx[4], by[4], fbx[4], fby[4];
        double sse = mfit_lsq (x, gx, m, 2, bx) + mfit_lsq (x, gy, m, 2, by);
        double flat = mfit_lsq (x, fx, m, 2, fbx) + mfit_lsq (x, fy, m, 2, fby);
        double rms = sqrt (sse / (double) m);
        /* near a camera's nadir a flight does not show: no evidence */
        ok = isfinite (sse) && rms < S_MAX_RMS && 4 * sse < flat && apex * reach >= 0.01;
        *rms_out = rms;
        if (ok) {
            out->ta = ta;
            out->tb = tb;
            out->vz_up = MFIT_G * T / 2;
            out->vz_down = -out->vz_up;
            out->vxy = hypot (bx[1], by[1]);
            out->x = bx[0];
            out->y = by[0];
        }
    }
    free (x);
    free (gx);
    free (gy);
    free (fx);
    free (fy);
    return ok;
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
        if (!self->has_cam[c] || a->n == 0)
            continue;
        mfit_pt_t *p = malloc (a->n * sizeof *p);
        if (!p)
            continue;
        memcpy (p, a->v, a->n * sizeof *p);
        qsort (p, a->n, sizeof *p, s_cmp_t);
        s_kinks (p, a->n, &kinks);
        for (size_t i = 0; i < a->n; i++)
            d[n++] = (s_det_t) { p[i].t, p[i].x, p[i].y, self->cam_x[c], self->cam_y[c], self->cam_z[c] };
        free (p);
    }
    qsort (d, n, sizeof *d, s_cmp_t);
    if (kinks.n > 1)
        qsort (kinks.v, (size_t) kinks.n, sizeof *kinks.v, s_cmp_t);
    /* two cameras in an overlap see one bounce: keep the first */
    int m = 0;
    for (int i = 0; i < kinks.n; i++)
        if (m == 0 || kinks.v[i] - kinks.v[m - 1] > S_MERGE)
            kinks.v[m++] = kinks.v[i];
    /* from each kink, the first later one that makes a flight with it
       (a kink that a camera's noise made inside a flight leaves
       heights that do not fit); a flight's landing is where the next
       one is sought from */
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
