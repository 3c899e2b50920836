/*  sim_mfit.c - fit the ball model and the robot limits to a log's
    tracks (the method is in sim_mfit.h). */
#include "sim_mfit_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

static int
s_append (sim_mfit_t *self, mfit_arr_t *a, const void *item, size_t size)
{
    if (self->samples >= SIM_MFIT_MAX_SAMPLES) {
        self->truncated = true;
        return -1;
    }
    self->samples++;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 256;
        void *v = realloc (a->v, cap * size);
        if (!v)
            return -1; /* a lost sample changes no fit much */
        a->v = v;
        a->cap = cap;
    }
    memcpy ((char *) a->v + a->n * size, item, size);
    a->n++;
    return 0;
}

sim_mfit_t *
sim_mfit_new (void)
{
    return calloc (1, sizeof (sim_mfit_t));
}

void
sim_mfit_destroy (sim_mfit_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    sim_mfit_t *self = *self_p;
    for (int c = 0; c < MFIT_CAMS; c++)
        free (self->ball[c].v);
    free (self->height.v);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < MFIT_IDS; i++)
            free (self->robot[t][i].v);
    free (self);
    *self_p = NULL;
}

void
sim_mfit_add_ball (sim_mfit_t *self, int camera, double t, double x, double y, double z)
{
    if (camera < 0 || camera >= MFIT_CAMS || !isfinite (t) || !isfinite (x) || !isfinite (y))
        return;
    mfit_pt_t p = { t, x, y, NAN };
    s_append (self, &self->ball[camera], &p, sizeof p);
    if (isfinite (z))
        sim_mfit_add_height (self, t, x, y, z);
}

void
sim_mfit_add_height (sim_mfit_t *self, double t, double x, double y, double z)
{
    if (!isfinite (t) || !isfinite (x) || !isfinite (y) || !isfinite (z))
        return;
    mfit_pt_t p = { t, x, y, z };
    s_append (self, &self->height, &p, sizeof p);
}

void
sim_mfit_add_robot (sim_mfit_t *self, int camera, int team, int id, double t, double x, double y, double phi)
{
    if (team < 0 || team > 1 || id < 0 || id >= MFIT_IDS || !isfinite (t) || !isfinite (x) || !isfinite (y)
        || !isfinite (phi))
        return;
    mfit_rs_t r = { t, (float) x, (float) y, (float) phi, camera };
    s_append (self, &self->robot[team][id], &r, sizeof r);
}

void
sim_mfit_add_camera (sim_mfit_t *self, int camera, double x, double y, double z)
{
    if (camera < 0 || camera >= MFIT_CAMS || !isfinite (x) || !isfinite (y) || !(z > 0) || !isfinite (z))
        return;
    self->cam_x[camera] = x;
    self->cam_y[camera] = y;
    self->cam_z[camera] = z;
    self->has_cam[camera] = true;
}

int
sim_mfit_add_vision (sim_mfit_t *self, const void *data, size_t len)
{
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, data);
    if (!w)
        return -1;
    if (w->geometry)
        for (size_t i = 0; i < w->geometry->n_calib; i++) {
            const SSLGeometryCameraCalibration *k = w->geometry->calib[i];
            if (k->camera_id < MFIT_CAMS && k->has_derived_camera_world_tx && k->has_derived_camera_world_ty
                && k->has_derived_camera_world_tz)
                sim_mfit_add_camera (self, (int) k->camera_id, k->derived_camera_world_tx / 1000,
                                     k->derived_camera_world_ty / 1000, k->derived_camera_world_tz / 1000);
        }
    const SSLDetectionFrame *f = w->detection;
    if (f && f->camera_id < MFIT_CAMS) {
        int cam = (int) f->camera_id;
        for (int team = 0; team < 2; team++) {
            size_t n = team == 0 ? f->n_robots_yellow : f->n_robots_blue;
            SSLDetectionRobot **rs = team == 0 ? f->robots_yellow : f->robots_blue;
            for (size_t i = 0; i < n; i++)
                if (rs[i]->has_robot_id && rs[i]->robot_id < MFIT_IDS)
                    sim_mfit_add_robot (self, cam, team, (int) rs[i]->robot_id, f->t_capture, rs[i]->x / 1000,
                                        rs[i]->y / 1000, rs[i]->has_orientation ? rs[i]->orientation : 0);
        }
        if (f->n_balls > 0) {
            /* follow the ball nearest to where this camera saw it last: a
               ghost is one frame's stranger */
            size_t best = 0;
            if (self->has_last[cam]) {
                double bd = INFINITY;
                for (size_t i = 0; i < f->n_balls; i++) {
                    double d = hypot (f->balls[i]->x / 1000 - self->last_x[cam],
                                      f->balls[i]->y / 1000 - self->last_y[cam]);
                    if (d < bd) {
                        bd = d;
                        best = i;
                    }
                }
            }
            const SSLDetectionBall *b = f->balls[best];
            self->has_last[cam] = true;
            self->last_x[cam] = b->x / 1000;
            self->last_y[cam] = b->y / 1000;
            sim_mfit_add_ball (self, cam, f->t_capture, b->x / 1000, b->y / 1000,
                               b->has_z ? b->z / 1000 : NAN);
        }
    }
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return 0;
}

int
sim_mfit_add_tracker (sim_mfit_t *self, const void *data, size_t len)
{
    TrackerWrapperPacket *w = tracker_wrapper_packet__unpack (NULL, len, data);
    if (!w)
        return -1;
    const TrackedFrame *f = w->tracked_frame;
    if (f && f->n_balls > 0 && f->balls[0]->pos) {
        const Vector3 *p = f->balls[0]->pos;
        sim_mfit_add_height (self, f->timestamp, p->x, p->y, p->z);
    }
    tracker_wrapper_packet__free_unpacked (w, NULL);
    return 0;
}

/* ---- small numerics ------------------------------------------------------ */

/* Least squares of y on the columns of x (n rows of k <= MFIT_LSQ_MAX
   values, row i at x[i * stride]): solves the normal equations in place.
   Returns the residual sum of squares, or INFINITY when singular. */
double
mfit_lsq_wide (const double *x, const double *y, size_t n, int k, int stride, double *beta)
{
    double m[MFIT_LSQ_MAX][MFIT_LSQ_MAX + 1] = { { 0 } };
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++)
                m[a][b] += x[i * (size_t) stride + (size_t) a] * x[i * (size_t) stride + (size_t) b];
            m[a][k] += x[i * (size_t) stride + (size_t) a] * y[i];
        }
    for (int c = 0; c < k; c++) {
        int piv = c;
        for (int r = c + 1; r < k; r++)
            if (fabs (m[r][c]) > fabs (m[piv][c]))
                piv = r;
        if (fabs (m[piv][c]) < 1e-12)
            return INFINITY;
        for (int j = 0; j <= k; j++) {
            double tmp = m[c][j];
            m[c][j] = m[piv][j];
            m[piv][j] = tmp;
        }
        for (int r = 0; r < k; r++)
            if (r != c) {
                double f = m[r][c] / m[c][c];
                for (int j = c; j <= k; j++)
                    m[r][j] -= f * m[c][j];
            }
    }
    for (int a = 0; a < k; a++)
        beta[a] = m[a][k] / m[a][a];
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i];
        for (int a = 0; a < k; a++)
            e -= beta[a] * x[i * (size_t) stride + (size_t) a];
        sse += e * e;
    }
    return sse;
}

double
mfit_lsq (const double *x, const double *y, size_t n, int k, double *beta)
{
    return mfit_lsq_wide (x, y, n, k, 4, beta);
}

static int
s_cmp_d (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int
mfit_cmp_t (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b; /* t is every sample's first field */
    return x < y ? -1 : x > y;
}

mfit_pt_t *
mfit_sorted (const mfit_arr_t *a)
{
    mfit_pt_t *p = a->n ? malloc (a->n * sizeof *p) : NULL;
    if (!p)
        return NULL;
    memcpy (p, a->v, a->n * sizeof *p);
    qsort (p, a->n, sizeof *p, mfit_cmp_t);
    return p;
}

/* Quantile q of v (n values, sorted in place). */
double
mfit_quantile (double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    qsort (v, n, sizeof *v, s_cmp_d);
    double pos = q * (double) (n - 1);
    size_t i = (size_t) pos;
    double f = pos - (double) i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

/* The median of n event estimates with its 95 % interval from the order
   statistics (the binomial rank interval, normal approximation; [min,
   max] for a handful): a chip's shadow or a touch that slipped through
   the checks moves neither. */
void
mfit_param (const double *v, int n, sim_mfit_param_t *out)
{
    memset (out, 0, sizeof *out);
    out->events = n;
    if (n == 0)
        return;
    double *s = malloc ((size_t) n * sizeof *s);
    if (!s)
        return;
    memcpy (s, v, (size_t) n * sizeof *s);
    out->value = mfit_quantile (s, (size_t) n, 0.5);
    double h = 0.98 * sqrt ((double) n);
    int lo = (int) floor (n / 2.0 - h), hi = (int) ceil (n / 2.0 + h);
    out->lo = s[lo < 0 ? 0 : lo];
    out->hi = s[hi > n - 1 ? n - 1 : hi];
    free (s);
}

void
mfit_list_push (mfit_list_t *l, double x)
{
    if (!isfinite (x))
        return;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        double *v = realloc (l->v, (size_t) cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
}

/* ---- robots near the ball --------------------------------------------------- */

static void
s_robots_sorted (const sim_mfit_t *self, mfit_robots_t *out)
{
    memset (out, 0, sizeof *out);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < MFIT_IDS; i++) {
            const mfit_arr_t *a = &self->robot[t][i];
            if (a->n == 0)
                continue;
            out->r[t][i] = malloc (a->n * sizeof (mfit_rs_t));
            if (!out->r[t][i])
                continue;
            memcpy (out->r[t][i], a->v, a->n * sizeof (mfit_rs_t));
            qsort (out->r[t][i], a->n, sizeof (mfit_rs_t), mfit_cmp_t);
            out->n[t][i] = a->n;
        }
}

static void
s_robots_free (mfit_robots_t *rb)
{
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < MFIT_IDS; i++)
            free (rb->r[t][i]);
}

/* The distance from (x, y) at time t to the nearest robot seen within
   MFIT_GAP of t, and its team (-1 when none). */
double
mfit_nearest_robot (const mfit_robots_t *rb, double t, double x, double y, int *team)
{
    double best = INFINITY;
    *team = -1;
    for (int tm = 0; tm < 2; tm++)
        for (int i = 0; i < MFIT_IDS; i++) {
            const mfit_rs_t *r = rb->r[tm][i];
            size_t n = rb->n[tm][i], lo = 0, hi = n;
            if (n == 0)
                continue;
            while (lo < hi) { /* first sample at or after t */
                size_t mid = (lo + hi) / 2;
                if (r[mid].t < t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t k = lo > 0 ? lo - 1 : 0; k < n && k <= lo; k++)
                if (fabs (r[k].t - t) <= MFIT_GAP) {
                    double d = hypot (r[k].x - x, r[k].y - y);
                    if (d < best) {
                        best = d;
                        *team = tm;
                    }
                }
        }
    return best;
}

void
sim_mfit_fit (const sim_mfit_t *self, double roll_speed_coefficient, double ball_radius,
              sim_mfit_result_t *out)
{
    memset (out, 0, sizeof *out);
    out->roll_speed_coefficient = roll_speed_coefficient;
    out->truncated = self->truncated;
    mfit_robots_t rb;
    s_robots_sorted (self, &rb);

    mfit_chip_acc_t ca = { 0 };
    const mfit_arr_t *h = &self->height;
    out->has_heights = h->n > 0;
    mfit_pt_t *hp = mfit_sorted (h);
    if (hp)
        mfit_heights (hp, h->n, ball_radius, &rb, &ca);
    free (hp);
    out->flights = ca.flights;
    mfit_param (ca.z_first.v, ca.z_first.n, &out->z_first);
    mfit_param (ca.z_other.v, ca.z_other.n, &out->z_other);
    mfit_param (ca.xy_first.v, ca.xy_first.n, &out->xy_first);
    mfit_param (ca.xy_other.v, ca.xy_other.n, &out->xy_other);

    /* the same from vision alone: beside the heights when there are
       any, in their place when not */
    mfit_chip_acc_t va = { 0 };
    mfit_vision_chips (self, &rb, &va);
    for (int c = 0; c < MFIT_CAMS; c++)
        out->vision.cameras += self->has_cam[c];
    out->vision.flights = va.flights;
    mfit_param (va.z_first.v, va.z_first.n, &out->vision.z_first);
    mfit_param (va.z_other.v, va.z_other.n, &out->vision.z_other);
    mfit_param (va.xy_first.v, va.xy_first.n, &out->vision.xy_first);
    mfit_param (va.xy_other.v, va.xy_other.n, &out->vision.xy_other);
    for (int t = 0; t < 2; t++)
        mfit_cap (&va.chip[t], 0, 0, &out->vision.chip[t]);
    if (!out->has_heights) {
        out->z_first = out->vision.z_first;
        out->z_other = out->vision.z_other;
        out->xy_first = out->vision.xy_first;
        out->xy_other = out->vision.xy_other;
    }

    mfit_ball_acc_t ba = { 0 };
    /* no flat run during a flight: the heights show them, or vision's
       chip flights where the log has no heights */
    const mfit_list_t *air = out->has_heights ? &ca.air : &va.air;
    ba.air = air->v;
    ba.n_air = air->n / 2;
    mfit_list_t periods = { 0 };
    for (int c = 0; c < MFIT_CAMS; c++) {
        const mfit_arr_t *a = &self->ball[c];
        mfit_pt_t *p = mfit_sorted (a);
        if (!p)
            continue;
        for (size_t i = 1; i < a->n && i < 200; i++)
            mfit_list_push (&periods, p[i].t - p[i - 1].t);
        mfit_ball_track (p, a->n, &rb, roll_speed_coefficient, &ba);
        free (p);
    }
    ba.period = periods.n ? mfit_quantile (periods.v, (size_t) periods.n, 0.5) : 0;
    free (periods.v);
    out->runs = ba.runs;
    mfit_param (ba.slide.v, ba.slide.n, &out->slide);
    mfit_param (ba.roll.v, ba.roll.n, &out->roll);
    mfit_param (ba.k.v, ba.k.n, &out->k_switch);

    for (int t = 0; t < 2; t++) {
        mfit_team (&rb, t, &out->team[t]);
        mfit_cap (&ba.kick[t], out->slide.value, ba.period, &out->team[t].kick);
        if (out->has_heights)
            mfit_cap (&ca.chip[t], 0, 0, &out->team[t].chip);
        else
            out->team[t].chip = out->vision.chip[t];
    }
    mfit_list_t *lists[] = { &ba.slide,    &ba.roll,    &ba.k,        &ba.kick[0],  &ba.kick[1],
                             &ca.z_first,  &ca.z_other, &ca.xy_first, &ca.xy_other, &ca.chip[0],
                             &ca.chip[1],  &ca.air,     &va.z_first,  &va.z_other,  &va.xy_first,
                             &va.xy_other, &va.chip[0], &va.chip[1],  &va.air };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        free (lists[i]->v);
    s_robots_free (&rb);
}
