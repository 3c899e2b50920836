/*  sim_mfit_robot.c - each team's robot limits and kick caps (see
    sim_mfit.h for the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_mfit_internal.h"

/* ---- robot limits ------------------------------------------------------------ */

/* Per sample of one camera's track: speed, acceleration along the
   motion, turn rate and its change along the turn (NAN: no fit). */
typedef struct {
    double v, at, w, aw;
    bool ok;
} s_kin_t;

static void
s_kinematics (const mfit_rs_t *r, const size_t *idx, size_t n, s_kin_t *out)
{
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        const mfit_rs_t *c = &r[idx[i]];
        out[i].ok = false;
        while (lo < i && c->t - r[idx[lo]].t > MFIT_WIN)
            lo++;
        if (hi < i)
            hi = i;
        while (hi + 1 < n && r[idx[hi + 1]].t - c->t <= MFIT_WIN)
            hi++;
        size_t m = hi - lo + 1;
        if (m < 7 || c->t - r[idx[lo]].t < 0.7 * MFIT_WIN || r[idx[hi]].t - c->t < 0.7 * MFIT_WIN || m > 128)
            continue;
        /* a pause, or a jump no robot drives (a teleport, a swapped id) */
        bool gap = false;
        for (size_t k = lo + 1; k <= hi; k++) {
            const mfit_rs_t *a = &r[idx[k - 1]], *b = &r[idx[k]];
            double dt = b->t - a->t, dphi = b->phi - a->phi;
            gap = gap || dt > MFIT_GAP || hypot (b->x - a->x, b->y - a->y) > 0.01 + MFIT_JUMP_V * dt
               || fabs (atan2 (sin (dphi), cos (dphi))) > 0.05 + MFIT_JUMP_W * dt;
        }
        if (gap)
            continue;
        double x[4 * 128], yx[128], yy[128], yp[128], bx[4], by[4], bp[4];
        double phi = c->phi;
        for (size_t k = 0; k < m; k++) {
            const mfit_rs_t *s = &r[idx[lo + k]];
            double u = s->t - c->t;
            x[k * 4] = 1;
            x[k * 4 + 1] = u;
            x[k * 4 + 2] = u * u;
            yx[k] = s->x;
            yy[k] = s->y;
            yp[k] = 0;
        }
        /* unwrap the orientation outwards from the centre sample */
        size_t ci = i - lo;
        for (size_t k = ci + 1; k < m; k++) {
            double d = r[idx[lo + k]].phi - r[idx[lo + k - 1]].phi;
            yp[k] = yp[k - 1] + atan2 (sin (d), cos (d));
        }
        for (size_t k = ci; k-- > 0;) {
            double d = r[idx[lo + k]].phi - r[idx[lo + k + 1]].phi;
            yp[k] = yp[k + 1] + atan2 (sin (d), cos (d));
        }
        (void) phi;
        if (!isfinite (mfit_lsq (x, yx, m, 3, bx)) || !isfinite (mfit_lsq (x, yy, m, 3, by))
            || !isfinite (mfit_lsq (x, yp, m, 3, bp)))
            continue;
        double v = hypot (bx[1], by[1]);
        out[i].v = v;
        out[i].at = v > 1e-6 ? (2 * bx[2] * bx[1] + 2 * by[2] * by[1]) / v : 0;
        out[i].w = fabs (bp[1]);
        out[i].aw = 2 * bp[2] * (bp[1] >= 0 ? 1 : -1);
        out[i].ok = true;
    }
}

/* The samples a limit reads, one track after another: value, or NAN for
   "not this kind" and a track break. */
typedef struct {
    double *v;
    size_t n, cap;
} s_series_t;

static void
s_series_push (s_series_t *s, double x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        double *v = realloc (s->v, cap * sizeof *v);
        if (!v)
            return;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
}

/* A plateau: runs of at least 5 samples above `share` of the 99th
   percentile are events, each event's median an estimate. */
static void
s_plateau (const s_series_t *s, double share, double floor, sim_mfit_param_t *out)
{
    memset (out, 0, sizeof *out);
    double *tmp = malloc ((s->n + 1) * sizeof *tmp);
    if (!tmp)
        return;
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite (s->v[i]) && s->v[i] > 0)
            tmp[m++] = s->v[i];
    double top = mfit_quantile (tmp, m, 0.99);
    mfit_list_t ev = { 0 };
    if (m > 0 && top > floor) {
        double th = share * top;
        size_t i = 0;
        while (i < s->n) {
            if (!(s->v[i] > th)) {
                i++;
                continue;
            }
            size_t e = i;
            while (e + 1 < s->n && s->v[e + 1] > th)
                e++;
            if (e - i + 1 >= 5) {
                size_t k = 0;
                for (size_t j = i; j <= e; j++)
                    tmp[k++] = s->v[j];
                mfit_list_push (&ev, mfit_quantile (tmp, k, 0.5));
            }
            i = e + 1;
        }
    }
    mfit_param (ev.v, ev.n, out);
    free (ev.v);
    free (tmp);
}

void
mfit_team (const mfit_robots_t *rb, int team, sim_mfit_team_t *out)
{
    s_series_t v = { 0 }, acc = { 0 }, brk = { 0 }, w = { 0 }, accw = { 0 }, brkw = { 0 };
    for (int id = 0; id < MFIT_IDS; id++) {
        const mfit_rs_t *r = rb->r[team][id];
        size_t n = rb->n[team][id];
        if (n == 0)
            continue;
        out->robots++;
        size_t *idx = malloc (n * sizeof *idx);
        s_kin_t *k = malloc (n * sizeof *k);
        for (int cam = 0; idx && k && cam < MFIT_CAMS; cam++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (r[i].cam == cam && (m == 0 || r[i].t > r[idx[m - 1]].t))
                    idx[m++] = i;
            if (m == 0)
                continue;
            s_kinematics (r, idx, m, k);
            for (size_t i = 0; i < m; i++) {
                bool moving = k[i].ok && k[i].v > 0.1, turning = k[i].ok && k[i].w > 0.3;
                s_series_push (&v, k[i].ok ? k[i].v : NAN);
                s_series_push (&acc, moving && k[i].at > 0 ? k[i].at : NAN);
                s_series_push (&brk, moving && k[i].at < 0 ? -k[i].at : NAN);
                s_series_push (&w, k[i].ok ? k[i].w : NAN);
                s_series_push (&accw, turning && k[i].aw > 0 ? k[i].aw : NAN);
                s_series_push (&brkw, turning && k[i].aw < 0 ? -k[i].aw : NAN);
            }
            s_series_t *all[] = { &v, &acc, &brk, &w, &accw, &brkw };
            for (int a = 0; a < 6; a++)
                s_series_push (all[a], NAN); /* a track ends */
        }
        free (idx);
        free (k);
    }
    /* speeds are read close to the top, accelerations (noisier, and
       smeared by the window at their ends) a little lower */
    s_plateau (&v, 0.95, 0.3, &out->vel);
    s_plateau (&acc, 0.8, 0.3, &out->acc);
    s_plateau (&brk, 0.8, 0.3, &out->brake);
    s_plateau (&w, 0.95, 0.5, &out->vel_w);
    s_plateau (&accw, 0.8, 2.0, &out->acc_w);
    s_plateau (&brkw, 0.8, 2.0, &out->brake_w);
    free (v.v);
    free (acc.v);
    free (brk.v);
    free (w.v);
    free (accw.v);
    free (brkw.v);
}

/* The fastest of a team's kicks: a lower bound of its cap, the interval
   one frame of sliding above it (the first sample comes up to a frame
   after the kick). */
void
mfit_cap (const mfit_list_t *l, double slide, double period, sim_mfit_param_t *out)
{
    memset (out, 0, sizeof *out);
    out->events = l->n;
    for (int i = 0; i < l->n; i++)
        if (l->v[i] > out->value)
            out->value = l->v[i];
    out->lo = out->value;
    out->hi = out->value + slide * period;
}
