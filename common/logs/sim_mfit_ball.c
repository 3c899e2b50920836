/*  sim_mfit_ball.c - the ball model from flat kicks and chip flights (see
    sim_mfit.h for the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_mfit_internal.h"

/* ---- flat kicks -------------------------------------------------------------- */

/* Velocity of a line fitted to p[a..b] (inclusive), and when rms is
   not NULL the samples' rms distance from it; false when too short. */
static bool
s_line (const mfit_pt_t *p, size_t a, size_t b, double *vx, double *vy, double *rms)
{
    size_t n = b - a + 1;
    if (b < a || n < 3)
        return false;
    double mt = 0, mx = 0, my = 0;
    for (size_t i = a; i <= b; i++) {
        mt += p[i].t;
        mx += p[i].x;
        my += p[i].y;
    }
    mt /= (double) n;
    mx /= (double) n;
    my /= (double) n;
    double stt = 0, stx = 0, sty = 0;
    for (size_t i = a; i <= b; i++) {
        stt += (p[i].t - mt) * (p[i].t - mt);
        stx += (p[i].t - mt) * (p[i].x - mx);
        sty += (p[i].t - mt) * (p[i].y - my);
    }
    if (!(stt > 0))
        return false;
    *vx = stx / stt;
    *vy = sty / stt;
    if (rms) {
        double s = 0;
        for (size_t i = a; i <= b; i++) {
            double ex = p[i].x - (mx + *vx * (p[i].t - mt)), ey = p[i].y - (my + *vy * (p[i].t - mt));
            s += ex * ex + ey * ey;
        }
        *rms = sqrt (s / (double) n);
    }
    return true;
}

static bool
s_line_vel (const mfit_pt_t *p, size_t a, size_t b, double *vx, double *vy)
{
    return s_line (p, a, b, vx, vy, NULL);
}

/* The along-track model's columns at time tau for a switch at sw:
   (1, tau, -slide part, -roll part). */
static void
s_columns (double tau, double sw, double *r)
{
    r[0] = 1;
    r[1] = tau;
    r[2] = tau < sw ? -tau * tau / 2 : -(sw * sw / 2 + sw * (tau - sw));
    r[3] = tau < sw ? 0 : -(tau - sw) * (tau - sw) / 2;
}

/* Fit the law to the run p[a..e] along direction (ux, uy): slide only,
   or slide then roll (the switch by search, least squares at each); the
   two-phase model is taken only when it explains clearly more than the
   slide alone (an F statistic above 20 for its two extra parameters),
   so a run cut short before the switch does not invent one. */
static void
s_fit_run (const mfit_pt_t *p, size_t a, size_t e, double ux, double uy, double b, mfit_ball_acc_t *acc,
           int kicker)
{
    /* the ball in the air: its shadow in the image is no ground run
       (the two clocks may differ by a frame or two: 0.1 s margins) */
    for (int f = 0; f < acc->n_air; f++)
        if (p[a].t < acc->air[2 * f + 1] + 0.1 && p[e].t > acc->air[2 * f] - 0.1)
            return;
    size_t n = e - a + 1;
    double *x = malloc (n * 4 * sizeof *x), *y = malloc (n * sizeof *y);
    if (!x || !y) {
        free (x);
        free (y);
        return;
    }
    double T = p[e].t - p[a].t;
    for (size_t i = 0; i < n; i++)
        y[i] = (p[a + i].x - p[a].x) * ux + (p[a + i].y - p[a].y) * uy;
    double one[4] = { 0 }, two[4] = { 0 }, sw2 = 0;
    for (size_t i = 0; i < n; i++)
        s_columns (p[a + i].t - p[a].t, INFINITY, &x[i * 4]);
    double sse1 = mfit_lsq (x, y, n, 3, one);
    double sse2 = INFINITY;
    for (double sw = 0.02; sw <= T - 0.1; sw += 0.002) {
        for (size_t i = 0; i < n; i++)
            s_columns (p[a + i].t - p[a].t, sw, &x[i * 4]);
        double beta[4], sse = mfit_lsq (x, y, n, 4, beta);
        if (sse < sse2) {
            sse2 = sse;
            memcpy (two, beta, sizeof two);
            sw2 = sw;
        }
    }
    free (x);
    free (y);
    bool split = isfinite (sse2) && n > 8 && (sse1 - sse2) / 2 > 20 * sse2 / (double) (n - 5);
    double sse = split ? sse2 : sse1, V0 = split ? two[1] : one[1], A = split ? two[2] : one[2];
    if (!isfinite (sse) || sqrt (sse / (double) n) > 0.01 || !(A > 0) || !(V0 > 0))
        return; /* not the law: a chip's shadow, a touch the checks missed */
    if (kicker >= 0)
        mfit_list_push (&acc->kick[kicker], V0);
    /* one phase alone is a slide cut short or a roll (a rebound, a ball
       that already turned with the carpet): the same parabola, so it
       tells neither deceleration */
    if (!split)
        return;
    mfit_list_push (&acc->slide, A);
    double ar = two[3], vsw = V0 - A * sw2, vend = vsw - ar * (T - sw2);
    if (vsw > 0 && sw2 > 0.03)
        mfit_list_push (&acc->k, vsw / V0);
    if (T - sw2 >= 0.2 && ar > -0.05 && ar < A && vend > 0)
        mfit_list_push (&acc->roll, ar - b * (vsw + vend) / 2);
}

/* Whether p[a..b] follow each other with no pause above MFIT_BALL_GAP. */
static bool
s_ball_contiguous (const mfit_pt_t *p, size_t a, size_t b)
{
    for (size_t i = a + 1; i <= b; i++)
        if (!(p[i].t - p[i - 1].t > 0 && p[i].t - p[i - 1].t <= MFIT_BALL_GAP))
            return false;
    return true;
}

/* Whether a kick (or a launch) lies just before p[i]: the five samples
   from i lie on a line at 0.3 m/s or more, and just before them the ball
   rested, went slower or elsewhere, or stood somewhere else. Where the
   track begins or breaks off nothing is known, so no run starts there. */
static bool
s_kick_before (const mfit_pt_t *p, size_t n, size_t i, double *vx, double *vy)
{
    /* six samples before: the first ones where a ball enters a camera's
       view are the least certain */
    double rms;
    if (i < 6 || i + 4 >= n || !s_ball_contiguous (p, i - 6, i + 4) || !s_line (p, i, i + 4, vx, vy, &rms))
        return false;
    double v = hypot (*vx, *vy);
    /* a rest sample among the five leaves centimetres off the line */
    if (v < 0.3 || rms > 0.005)
        return false;
    double dt = p[i].t - p[i - 1].t, px = p[i].x - *vx * dt, py = p[i].y - *vy * dt, bx, by;
    if (hypot (p[i - 1].x - px, p[i - 1].y - py) > 0.1)
        return true;
    if (!s_line_vel (p, i - 3, i - 1, &bx, &by))
        return false;
    return hypot (bx, by) < 0.5 * v || (bx * *vx + by * *vy) < cos (20 * M_PI / 180) * hypot (bx, by) * v;
}

/* Cut one camera's ball track into straight runs and fit each. */
void
mfit_ball_track (const mfit_pt_t *p, size_t n, const mfit_robots_t *rb, double b, mfit_ball_acc_t *acc)
{
    size_t i = 6;
    while (i + 5 < n) {
        double vx, vy;
        if (!s_kick_before (p, n, i, &vx, &vy)) {
            i++;
            continue;
        }
        /* the kicker: a robot at the last place the ball rested, unless
           the ball jumped there (a teleport) */
        int kteam = -1, kicker = -1;
        double dt = p[i].t - p[i - 1].t;
        double jump = hypot (p[i - 1].x - (p[i].x - vx * dt), p[i - 1].y - (p[i].y - vy * dt));
        if (jump < 0.1 + hypot (vx, vy) * dt
            && mfit_nearest_robot (rb, p[i - 1].t, p[i - 1].x, p[i - 1].y, &kteam) <= MFIT_KICKR)
            kicker = kteam;
        /* the direction from the first ten samples */
        size_t d_end = i + 9 < n ? i + 9 : n - 1;
        if (!s_ball_contiguous (p, i, d_end) || !s_line_vel (p, i, d_end, &vx, &vy)) {
            i++;
            continue;
        }
        double ux = vx / hypot (vx, vy), uy = vy / hypot (vx, vy);
        bool clear = false;
        double last_s = 0;
        size_t j = i + 1;
        for (; j < n; j++) {
            if (!(p[j].t - p[j - 1].t > 0 && p[j].t - p[j - 1].t <= MFIT_BALL_GAP))
                break;
            /* a camera's calibration warp bends a straight path by a
               few centimetres over metres; a wall or a robot turns it
               (or sends it back) */
            double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
            double s = dx * ux + dy * uy, lat = fabs (dx * uy - dy * ux), wx, wy;
            bool turned = j >= i + 6 && s_line_vel (p, j - 5, j, &wx, &wy) && hypot (wx, wy) > 0.2
                       && (wx * ux + wy * uy) < cos (10 * M_PI / 180) * hypot (wx, wy);
            if (turned || lat > 0.02 * s + 0.05 || s < last_s - 0.01)
                break;
            int tm;
            bool near = mfit_nearest_robot (rb, p[j].t, p[j].x, p[j].y, &tm) < MFIT_NEAR;
            if (near && clear)
                break;
            clear = clear || !near;
            /* at rest: nothing more to learn */
            if (j >= i + 6 && s_line_vel (p, j - 6, j, &wx, &wy) && hypot (wx, wy) < 0.1)
                break;
            last_s = s > last_s ? s : last_s;
        }
        size_t e = j >= 3 ? j - 3 : 0; /* the last samples may hold the touch already */
        acc->runs++;
        if (e > i + 20 && p[e].t - p[i].t >= 0.3)
            s_fit_run (p, i, e, ux, uy, b, acc, kicker);
        i = j > i + 1 ? j : i + 1;
    }
}

/* ---- chip flights ---------------------------------------------------------- */

static bool
s_flight (const mfit_pt_t *p, size_t a, size_t e, double r, mfit_flight_t *out)
{
    size_t n = e - a + 1;
    if (n < 4)
        return false;
    double x[4 * 64], y[64], beta[4];
    if (n > 64) { /* a long flight: every k-th sample is plenty */
        size_t k = (n + 63) / 64;
        size_t m = 0;
        for (size_t i = a; i <= e && m < 64; i += k, m++) {
            double tau = p[i].t - p[a].t;
            x[m * 4] = 1;
            x[m * 4 + 1] = tau;
            y[m] = p[i].z + MFIT_G * tau * tau / 2;
        }
        n = m;
    } else
        for (size_t i = 0; i < n; i++) {
            double tau = p[a + i].t - p[a].t;
            x[i * 4] = 1;
            x[i * 4 + 1] = tau;
            y[i] = p[a + i].z + MFIT_G * tau * tau / 2;
        }
    if (!isfinite (mfit_lsq (x, y, n, 2, beta)))
        return false;
    double z0 = beta[0] - r, vz = beta[1];
    double disc = vz * vz + 2 * MFIT_G * z0;
    if (!(disc > 0) || vz * vz / (2 * MFIT_G) + z0 < 0.02)
        return false; /* apex below 2 cm: the last rattles */
    double ta = (vz - sqrt (disc)) / MFIT_G, tb = (vz + sqrt (disc)) / MFIT_G;
    double vx, vy;
    if (!s_line_vel (p, a, e, &vx, &vy))
        return false;
    out->ta = p[a].t + ta;
    out->tb = p[a].t + tb;
    out->vz_up = vz - MFIT_G * ta;
    out->vz_down = vz - MFIT_G * tb;
    out->vxy = hypot (vx, vy);
    out->x = p[a].x + vx * ta;
    out->y = p[a].y + vy * ta;
    return true;
}

/* One more flight: a bounce when it takes off where the last one
   landed (the dampings), else a kick's first flight (a chip's speed
   when a robot stood at its take-off). */
void
mfit_chain_add (mfit_chain_t *ch, const mfit_flight_t *f, const mfit_robots_t *rb, mfit_chip_acc_t *acc)
{
    acc->flights++;
    mfit_list_push (&acc->air, f->ta);
    mfit_list_push (&acc->air, f->tb);
    bool bounce = ch->have_prev && fabs (f->ta - ch->prev.tb) < 0.03;
    if (bounce && ch->prev.vz_down < 0 && ch->prev.vxy > 0.05) {
        double dz = f->vz_up / -ch->prev.vz_down, dxy = f->vxy / ch->prev.vxy;
        mfit_list_push (ch->prev_first ? &acc->z_first : &acc->z_other, dz);
        mfit_list_push (ch->prev_first ? &acc->xy_first : &acc->xy_other, dxy);
    }
    if (!bounce) {
        int tm;
        if (mfit_nearest_robot (rb, f->ta, f->x, f->y, &tm) <= MFIT_KICKR + 0.05 && tm >= 0)
            mfit_list_push (&acc->chip[tm], hypot (f->vxy, f->vz_up));
    }
    ch->prev_first = !bounce;
    ch->prev = *f;
    ch->have_prev = true;
}

void
mfit_heights (const mfit_pt_t *p, size_t n, double r, const mfit_robots_t *rb, mfit_chip_acc_t *acc)
{
    const double air = r + 0.005;
    mfit_chain_t ch = { 0 };
    size_t i = 0;
    while (i < n) {
        if (!(p[i].z > air)) {
            i++;
            continue;
        }
        /* a flight ends where the ball lands, or at a lowest sample
           (a bounce between two samples both in the air), which belongs
           to neither flight */
        size_t e = i, next;
        while (e + 1 < n && p[e + 1].z > air && p[e + 1].t - p[e].t <= MFIT_GAP
               && !(e > i && e + 2 < n && p[e + 1].z < p[e].z && p[e + 1].z < p[e + 2].z))
            e++;
        next = e + 1;
        if (e + 2 < n && p[e + 1].z > air && p[e + 1].z < p[e].z && p[e + 1].z < p[e + 2].z)
            next = e + 2;
        mfit_flight_t f;
        if (s_flight (p, i, e, r, &f))
            mfit_chain_add (&ch, &f, rb, acc);
        else
            ch.have_prev = false;
        i = next;
    }
}
