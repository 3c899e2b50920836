/*  sim_mfit.c - fit the ball model and the robot limits to a log's
    tracks (the method is in sim_mfit.h). */
#include "sim_mfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#define S_CAMS 16
#define S_IDS  16
#define S_G    9.81
#define S_GAP  0.05 /* s: a longer pause between samples breaks a track */
/* s: the ball's tracks also bridge a few lost frames (burst losses) */
#define S_BALL_GAP 0.1
#define S_NEAR     0.2  /* m: a ball this close to a robot's centre may touch it */
#define S_KICKR    0.25 /* m: a robot this close to a run's start kicked it */
#define S_WIN      0.1  /* s: half width of a robot sample's quadratic */
/* faster than any robot moves or turns between two frames: a teleport */
#define S_JUMP_V 8.0  /* m/s */
#define S_JUMP_W 40.0 /* rad/s */

typedef struct {
    double t, x, y, z;
} s_pt_t;

/* 24 bytes a robot sighting (floats hold field positions to a micrometre) */
typedef struct {
    double t;
    float x, y, phi;
    int cam;
} s_rs_t;

typedef struct {
    void *v;
    size_t n, cap;
} s_arr_t;

struct sim_mfit_t {
    s_arr_t ball[S_CAMS];    /* s_pt_t, one per detection frame */
    s_arr_t height;          /* s_pt_t with z */
    s_arr_t robot[2][S_IDS]; /* s_rs_t */
    double last_x[S_CAMS], last_y[S_CAMS];
    bool has_last[S_CAMS];
    size_t samples; /* kept so far, at most SIM_MFIT_MAX_SAMPLES */
    bool truncated;
};

static int
s_append (sim_mfit_t *self, s_arr_t *a, const void *item, size_t size)
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
    for (int c = 0; c < S_CAMS; c++)
        free (self->ball[c].v);
    free (self->height.v);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < S_IDS; i++)
            free (self->robot[t][i].v);
    free (self);
    *self_p = NULL;
}

void
sim_mfit_add_ball (sim_mfit_t *self, int camera, double t, double x, double y, double z)
{
    if (camera < 0 || camera >= S_CAMS || !isfinite (t) || !isfinite (x) || !isfinite (y))
        return;
    s_pt_t p = { t, x, y, NAN };
    s_append (self, &self->ball[camera], &p, sizeof p);
    if (isfinite (z))
        sim_mfit_add_height (self, t, x, y, z);
}

void
sim_mfit_add_height (sim_mfit_t *self, double t, double x, double y, double z)
{
    if (!isfinite (t) || !isfinite (x) || !isfinite (y) || !isfinite (z))
        return;
    s_pt_t p = { t, x, y, z };
    s_append (self, &self->height, &p, sizeof p);
}

void
sim_mfit_add_robot (sim_mfit_t *self, int camera, int team, int id, double t, double x, double y, double phi)
{
    if (team < 0 || team > 1 || id < 0 || id >= S_IDS || !isfinite (t) || !isfinite (x) || !isfinite (y)
        || !isfinite (phi))
        return;
    s_rs_t r = { t, (float) x, (float) y, (float) phi, camera };
    s_append (self, &self->robot[team][id], &r, sizeof r);
}

int
sim_mfit_add_vision (sim_mfit_t *self, const void *data, size_t len)
{
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, data);
    if (!w)
        return -1;
    const SSLDetectionFrame *f = w->detection;
    if (f && f->camera_id < S_CAMS) {
        int cam = (int) f->camera_id;
        for (int team = 0; team < 2; team++) {
            size_t n = team == 0 ? f->n_robots_yellow : f->n_robots_blue;
            SSLDetectionRobot **rs = team == 0 ? f->robots_yellow : f->robots_blue;
            for (size_t i = 0; i < n; i++)
                if (rs[i]->has_robot_id && rs[i]->robot_id < S_IDS)
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

/* Least squares of y on the columns of x (n rows of k <= 4 values):
   solves the normal equations in place. Returns the residual sum of
   squares, or INFINITY when singular. */
static double
s_lsq (const double *x, const double *y, size_t n, int k, double *beta)
{
    double m[4][5] = { { 0 } };
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++)
                m[a][b] += x[i * 4 + a] * x[i * 4 + b];
            m[a][k] += x[i * 4 + a] * y[i];
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
            e -= beta[a] * x[i * 4 + a];
        sse += e * e;
    }
    return sse;
}

static int
s_cmp_d (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static int
s_cmp_t (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b; /* t is every sample's first field */
    return x < y ? -1 : x > y;
}

/* Quantile q of v (n values, sorted in place). */
static double
s_quantile (double *v, size_t n, double q)
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
static void
s_param (const double *v, int n, sim_mfit_param_t *out)
{
    memset (out, 0, sizeof *out);
    out->events = n;
    if (n == 0)
        return;
    double *s = malloc ((size_t) n * sizeof *s);
    if (!s)
        return;
    memcpy (s, v, (size_t) n * sizeof *s);
    out->value = s_quantile (s, (size_t) n, 0.5);
    double h = 0.98 * sqrt ((double) n);
    int lo = (int) floor (n / 2.0 - h), hi = (int) ceil (n / 2.0 + h);
    out->lo = s[lo < 0 ? 0 : lo];
    out->hi = s[hi > n - 1 ? n - 1 : hi];
    free (s);
}

/* A growable list of event estimates. */
typedef struct {
    double *v;
    int n, cap;
} s_list_t;

static void
s_list_push (s_list_t *l, double x)
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

/* Sorted copies of every robot's samples (all cameras). */
typedef struct {
    s_rs_t *r[2][S_IDS];
    size_t n[2][S_IDS];
} s_robots_t;

static void
s_robots_sorted (const sim_mfit_t *self, s_robots_t *out)
{
    memset (out, 0, sizeof *out);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < S_IDS; i++) {
            const s_arr_t *a = &self->robot[t][i];
            if (a->n == 0)
                continue;
            out->r[t][i] = malloc (a->n * sizeof (s_rs_t));
            if (!out->r[t][i])
                continue;
            memcpy (out->r[t][i], a->v, a->n * sizeof (s_rs_t));
            qsort (out->r[t][i], a->n, sizeof (s_rs_t), s_cmp_t);
            out->n[t][i] = a->n;
        }
}

static void
s_robots_free (s_robots_t *rb)
{
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < S_IDS; i++)
            free (rb->r[t][i]);
}

/* The distance from (x, y) at time t to the nearest robot seen within
   S_GAP of t, and its team (-1 when none). */
static double
s_nearest_robot (const s_robots_t *rb, double t, double x, double y, int *team)
{
    double best = INFINITY;
    *team = -1;
    for (int tm = 0; tm < 2; tm++)
        for (int i = 0; i < S_IDS; i++) {
            const s_rs_t *r = rb->r[tm][i];
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
                if (fabs (r[k].t - t) <= S_GAP) {
                    double d = hypot (r[k].x - x, r[k].y - y);
                    if (d < best) {
                        best = d;
                        *team = tm;
                    }
                }
        }
    return best;
}

/* ---- flat kicks -------------------------------------------------------------- */

typedef struct {
    s_list_t slide, roll, k, kick[2];
    double period; /* median frame period seen, s */
    int runs;
    const double *air; /* [take-off, landing] of every flight the heights showed */
    int n_air;
} s_ball_acc_t;

/* Velocity of a line fitted to p[a..b] (inclusive), and when rms is
   not NULL the samples' rms distance from it; false when too short. */
static bool
s_line (const s_pt_t *p, size_t a, size_t b, double *vx, double *vy, double *rms)
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
s_line_vel (const s_pt_t *p, size_t a, size_t b, double *vx, double *vy)
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
s_fit_run (const s_pt_t *p, size_t a, size_t e, double ux, double uy, double b, s_ball_acc_t *acc, int kicker)
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
    double sse1 = s_lsq (x, y, n, 3, one);
    double sse2 = INFINITY;
    for (double sw = 0.02; sw <= T - 0.1; sw += 0.002) {
        for (size_t i = 0; i < n; i++)
            s_columns (p[a + i].t - p[a].t, sw, &x[i * 4]);
        double beta[4], sse = s_lsq (x, y, n, 4, beta);
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
        s_list_push (&acc->kick[kicker], V0);
    /* one phase alone is a slide cut short or a roll (a rebound, a ball
       that already turned with the carpet): the same parabola, so it
       tells neither deceleration */
    if (!split)
        return;
    s_list_push (&acc->slide, A);
    double ar = two[3], vsw = V0 - A * sw2, vend = vsw - ar * (T - sw2);
    if (vsw > 0 && sw2 > 0.03)
        s_list_push (&acc->k, vsw / V0);
    if (T - sw2 >= 0.2 && ar > -0.05 && ar < A && vend > 0)
        s_list_push (&acc->roll, ar - b * (vsw + vend) / 2);
}

/* Whether p[a..b] follow each other with no pause above S_BALL_GAP. */
static bool
s_ball_contiguous (const s_pt_t *p, size_t a, size_t b)
{
    for (size_t i = a + 1; i <= b; i++)
        if (!(p[i].t - p[i - 1].t > 0 && p[i].t - p[i - 1].t <= S_BALL_GAP))
            return false;
    return true;
}

/* Whether a kick (or a launch) lies just before p[i]: the five samples
   from i lie on a line at 0.3 m/s or more, and just before them the ball
   rested, went slower or elsewhere, or stood somewhere else. Where the
   track begins or breaks off nothing is known, so no run starts there. */
static bool
s_kick_before (const s_pt_t *p, size_t n, size_t i, double *vx, double *vy)
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
static void
s_ball_track (const s_pt_t *p, size_t n, const s_robots_t *rb, double b, s_ball_acc_t *acc)
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
            && s_nearest_robot (rb, p[i - 1].t, p[i - 1].x, p[i - 1].y, &kteam) <= S_KICKR)
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
            if (!(p[j].t - p[j - 1].t > 0 && p[j].t - p[j - 1].t <= S_BALL_GAP))
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
            bool near = s_nearest_robot (rb, p[j].t, p[j].x, p[j].y, &tm) < S_NEAR;
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

typedef struct {
    double ta, tb, vz_up, vz_down, vxy, x, y; /* take-off, landing; ground speed; take-off point */
} s_flight_t;

static bool
s_flight (const s_pt_t *p, size_t a, size_t e, double r, s_flight_t *out)
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
            y[m] = p[i].z + S_G * tau * tau / 2;
        }
        n = m;
    } else
        for (size_t i = 0; i < n; i++) {
            double tau = p[a + i].t - p[a].t;
            x[i * 4] = 1;
            x[i * 4 + 1] = tau;
            y[i] = p[a + i].z + S_G * tau * tau / 2;
        }
    if (!isfinite (s_lsq (x, y, n, 2, beta)))
        return false;
    double z0 = beta[0] - r, vz = beta[1];
    double disc = vz * vz + 2 * S_G * z0;
    if (!(disc > 0) || vz * vz / (2 * S_G) + z0 < 0.02)
        return false; /* apex below 2 cm: the last rattles */
    double ta = (vz - sqrt (disc)) / S_G, tb = (vz + sqrt (disc)) / S_G;
    double vx, vy;
    if (!s_line_vel (p, a, e, &vx, &vy))
        return false;
    out->ta = p[a].t + ta;
    out->tb = p[a].t + tb;
    out->vz_up = vz - S_G * ta;
    out->vz_down = vz - S_G * tb;
    out->vxy = hypot (vx, vy);
    out->x = p[a].x + vx * ta;
    out->y = p[a].y + vy * ta;
    return true;
}

typedef struct {
    s_list_t z_first, z_other, xy_first, xy_other, chip[2];
    s_list_t air; /* take-off and landing of each flight, in turn */
    int flights;
} s_chip_acc_t;

static void
s_heights (const s_pt_t *p, size_t n, double r, const s_robots_t *rb, s_chip_acc_t *acc)
{
    const double air = r + 0.005;
    bool have_prev = false;
    bool prev_first = false;
    s_flight_t prev = { 0 };
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
        while (e + 1 < n && p[e + 1].z > air && p[e + 1].t - p[e].t <= S_GAP
               && !(e > i && e + 2 < n && p[e + 1].z < p[e].z && p[e + 1].z < p[e + 2].z))
            e++;
        next = e + 1;
        if (e + 2 < n && p[e + 1].z > air && p[e + 1].z < p[e].z && p[e + 1].z < p[e + 2].z)
            next = e + 2;
        s_flight_t f;
        if (s_flight (p, i, e, r, &f)) {
            acc->flights++;
            s_list_push (&acc->air, f.ta);
            s_list_push (&acc->air, f.tb);
            /* a bounce: this flight took off where the last one landed */
            bool bounce = have_prev && fabs (f.ta - prev.tb) < 0.03;
            if (bounce && prev.vz_down < 0 && prev.vxy > 0.05) {
                double dz = f.vz_up / -prev.vz_down, dxy = f.vxy / prev.vxy;
                s_list_push (prev_first ? &acc->z_first : &acc->z_other, dz);
                s_list_push (prev_first ? &acc->xy_first : &acc->xy_other, dxy);
            }
            if (!bounce) {
                int tm;
                if (s_nearest_robot (rb, f.ta, f.x, f.y, &tm) <= S_KICKR + 0.05 && tm >= 0)
                    s_list_push (&acc->chip[tm], hypot (f.vxy, f.vz_up));
            }
            prev_first = !bounce;
            prev = f;
            have_prev = true;
        } else
            have_prev = false;
        i = next;
    }
}

/* ---- robot limits ------------------------------------------------------------ */

/* Per sample of one camera's track: speed, acceleration along the
   motion, turn rate and its change along the turn (NAN: no fit). */
typedef struct {
    double v, at, w, aw;
    bool ok;
} s_kin_t;

static void
s_kinematics (const s_rs_t *r, const size_t *idx, size_t n, s_kin_t *out)
{
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        const s_rs_t *c = &r[idx[i]];
        out[i].ok = false;
        while (lo < i && c->t - r[idx[lo]].t > S_WIN)
            lo++;
        if (hi < i)
            hi = i;
        while (hi + 1 < n && r[idx[hi + 1]].t - c->t <= S_WIN)
            hi++;
        size_t m = hi - lo + 1;
        if (m < 7 || c->t - r[idx[lo]].t < 0.7 * S_WIN || r[idx[hi]].t - c->t < 0.7 * S_WIN || m > 128)
            continue;
        /* a pause, or a jump no robot drives (a teleport, a swapped id) */
        bool gap = false;
        for (size_t k = lo + 1; k <= hi; k++) {
            const s_rs_t *a = &r[idx[k - 1]], *b = &r[idx[k]];
            double dt = b->t - a->t, dphi = b->phi - a->phi;
            gap = gap || dt > S_GAP || hypot (b->x - a->x, b->y - a->y) > 0.01 + S_JUMP_V * dt
               || fabs (atan2 (sin (dphi), cos (dphi))) > 0.05 + S_JUMP_W * dt;
        }
        if (gap)
            continue;
        double x[4 * 128], yx[128], yy[128], yp[128], bx[4], by[4], bp[4];
        double phi = c->phi;
        for (size_t k = 0; k < m; k++) {
            const s_rs_t *s = &r[idx[lo + k]];
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
        if (!isfinite (s_lsq (x, yx, m, 3, bx)) || !isfinite (s_lsq (x, yy, m, 3, by))
            || !isfinite (s_lsq (x, yp, m, 3, bp)))
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
    double top = s_quantile (tmp, m, 0.99);
    s_list_t ev = { 0 };
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
                s_list_push (&ev, s_quantile (tmp, k, 0.5));
            }
            i = e + 1;
        }
    }
    s_param (ev.v, ev.n, out);
    free (ev.v);
    free (tmp);
}

static void
s_team (const s_robots_t *rb, int team, sim_mfit_team_t *out)
{
    s_series_t v = { 0 }, acc = { 0 }, brk = { 0 }, w = { 0 }, accw = { 0 }, brkw = { 0 };
    for (int id = 0; id < S_IDS; id++) {
        const s_rs_t *r = rb->r[team][id];
        size_t n = rb->n[team][id];
        if (n == 0)
            continue;
        out->robots++;
        size_t *idx = malloc (n * sizeof *idx);
        s_kin_t *k = malloc (n * sizeof *k);
        for (int cam = 0; idx && k && cam < S_CAMS; cam++) {
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
static void
s_cap (const s_list_t *l, double slide, double period, sim_mfit_param_t *out)
{
    memset (out, 0, sizeof *out);
    out->events = l->n;
    for (int i = 0; i < l->n; i++)
        if (l->v[i] > out->value)
            out->value = l->v[i];
    out->lo = out->value;
    out->hi = out->value + slide * period;
}

void
sim_mfit_fit (const sim_mfit_t *self, double roll_speed_coefficient, double ball_radius,
              sim_mfit_result_t *out)
{
    memset (out, 0, sizeof *out);
    out->roll_speed_coefficient = roll_speed_coefficient;
    out->truncated = self->truncated;
    s_robots_t rb;
    s_robots_sorted (self, &rb);

    s_chip_acc_t ca = { 0 };
    const s_arr_t *h = &self->height;
    out->has_heights = h->n > 0;
    if (h->n > 0) {
        s_pt_t *p = malloc (h->n * sizeof *p);
        if (p) {
            memcpy (p, h->v, h->n * sizeof *p);
            qsort (p, h->n, sizeof *p, s_cmp_t);
            s_heights (p, h->n, ball_radius, &rb, &ca);
            free (p);
        }
    }
    out->flights = ca.flights;
    s_param (ca.z_first.v, ca.z_first.n, &out->z_first);
    s_param (ca.z_other.v, ca.z_other.n, &out->z_other);
    s_param (ca.xy_first.v, ca.xy_first.n, &out->xy_first);
    s_param (ca.xy_other.v, ca.xy_other.n, &out->xy_other);

    s_ball_acc_t ba = { 0 };
    ba.air = ca.air.v;
    ba.n_air = ca.air.n / 2;
    s_list_t periods = { 0 };
    for (int c = 0; c < S_CAMS; c++) {
        const s_arr_t *a = &self->ball[c];
        if (a->n == 0)
            continue;
        s_pt_t *p = malloc (a->n * sizeof *p);
        if (!p)
            continue;
        memcpy (p, a->v, a->n * sizeof *p);
        qsort (p, a->n, sizeof *p, s_cmp_t);
        for (size_t i = 1; i < a->n && i < 200; i++)
            s_list_push (&periods, p[i].t - p[i - 1].t);
        s_ball_track (p, a->n, &rb, roll_speed_coefficient, &ba);
        free (p);
    }
    ba.period = periods.n ? s_quantile (periods.v, (size_t) periods.n, 0.5) : 0;
    free (periods.v);
    out->runs = ba.runs;
    s_param (ba.slide.v, ba.slide.n, &out->slide);
    s_param (ba.roll.v, ba.roll.n, &out->roll);
    s_param (ba.k.v, ba.k.n, &out->k_switch);

    for (int t = 0; t < 2; t++) {
        s_team (&rb, t, &out->team[t]);
        s_cap (&ba.kick[t], out->slide.value, ba.period, &out->team[t].kick);
        s_cap (&ca.chip[t], 0, 0, &out->team[t].chip);
    }
    s_list_t *lists[] = { &ba.slide,   &ba.roll,     &ba.k,        &ba.kick[0], &ba.kick[1], &ca.z_first,
                          &ca.z_other, &ca.xy_first, &ca.xy_other, &ca.chip[0], &ca.chip[1], &ca.air };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        free (lists[i]->v);
    s_robots_free (&rb);
}
