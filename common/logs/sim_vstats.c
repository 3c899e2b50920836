/*  sim_vstats.c - measure a vision stream (sim_vstats.h); the realism keys
    fitted to a report are sim_vstats_fit.c. */
#include "sim_vstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_team.h"
#include "ssl_vision_wrapper.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"

#define S_IDS         16              /* robot ids per team */
#define S_SLOTS       (2 * S_IDS + 1) /* robots of both teams, then the ball */
#define S_BALL        (2 * S_IDS)
#define S_NPAIR       (SIM_VSTATS_CAMERAS * (SIM_VSTATS_CAMERAS - 1) / 2)
#define S_PAIR_WINDOW 0.020 /* s: "frames captured within a period" */

/* Samples for percentiles: every one up to S_KEEP, then a uniform
   reservoir of S_KEEP of them (a day-long log's residuals would not fit
   in memory; a million samples put a median within a fraction of a
   percent). The reservoir's draws come from a fixed xorshift, so the same
   input gives the same output. */
#define S_KEEP (1u << 20)

typedef struct {
    double *v;
    size_t n, cap;
    uint64_t seen, state;
} s_vec_t;

static void
s_push (s_vec_t *self, double x)
{
    if (!isfinite (x))
        return; /* from a broken stream: it would break the percentiles' sort */
    self->seen++;
    if (self->n == S_KEEP) {
        if (!self->state)
            self->state = 0x9e3779b97f4a7c15u;
        self->state ^= self->state << 13;
        self->state ^= self->state >> 7;
        self->state ^= self->state << 17;
        uint64_t j = self->state % self->seen;
        if (j < S_KEEP)
            self->v[j] = x;
        return;
    }
    if (self->n == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 256;
        double *v = realloc (self->v, cap * sizeof *v);
        if (!v)
            return; /* a sample lost to memory pressure changes no statistic much */
        self->v = v;
        self->cap = cap;
    }
    self->v[self->n++] = x;
}

typedef struct {
    bool valid;
    uint32_t frame;
    double t, x, y, phi;
} s_sight_t;

/* One object as one camera follows it. */
typedef struct {
    s_sight_t prev, last;
    uint64_t seen, missed;
    /* the sum of (detection - truth) for static robots, mm and rad */
    double ex, ey, ephi;
    uint64_t en;
} s_track_t;

typedef struct {
    double dx, dy;
    uint64_t n;
} s_mean2_t;

typedef struct {
    s_vec_t dist, dphi;
    double sx, sy;
    s_mean2_t robot[2 * S_IDS];
} s_pair_acc_t;

typedef struct {
    bool seen, has_last;
    uint32_t last_frame;
    double first_t, last_t;
    uint64_t frames, duplicates;
    s_vec_t periods;
    bool has_nadir;
    double nx, ny, nz;
    s_track_t track[S_SLOTS];
} s_cam_t;

typedef struct {
    bool valid, moving;
    double x, y; /* mm */
    double phi;  /* rad */
} s_truth_t;

struct sim_vstats_t {
    s_cam_t cam[SIM_VSTATS_CAMERAS];
    s_pair_acc_t pair[S_NPAIR];
    uint64_t frames, geometry, undecodable, truth_frames;
    int64_t geo_first, geo_last;
    s_vec_t latency, robot_res, phi_res, ball_res;
    double rconf, rconf_min, bconf, bconf_min;
    uint64_t rconf_n, bconf_n;
    uint64_t robot_gaps, robot_gaps_single, ball_gaps, ball_gaps_single, ball_gap_frames;
    uint64_t robot_duplicates, balls_per_frame[6], false_balls;
    s_truth_t truth[2 * S_IDS];
    /* the last sighting of each robot by any camera, for the FOV edge */
    double any_t[2 * S_IDS], any_x[2 * S_IDS], any_y[2 * S_IDS];
    uint64_t fov_expected[SIM_VSTATS_FOV_BINS], fov_seen[SIM_VSTATS_FOV_BINS];
};

sim_vstats_t *
sim_vstats_new (void)
{
    sim_vstats_t *self = calloc (1, sizeof *self);
    if (self) {
        self->rconf_min = self->bconf_min = 1;
        for (int i = 0; i < 2 * S_IDS; i++)
            self->any_t[i] = -1e300;
    }
    return self;
}

void
sim_vstats_destroy (sim_vstats_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    sim_vstats_t *self = *self_p;
    for (int c = 0; c < SIM_VSTATS_CAMERAS; c++)
        free (self->cam[c].periods.v);
    for (int p = 0; p < S_NPAIR; p++) {
        free (self->pair[p].dist.v);
        free (self->pair[p].dphi.v);
    }
    free (self->latency.v);
    free (self->robot_res.v);
    free (self->phi_res.v);
    free (self->ball_res.v);
    free (self);
    *self_p = NULL;
}

static int
s_pair_index (int a, int b)
{
    /* a < b: the rows of a strictly upper triangle */
    return a * (2 * SIM_VSTATS_CAMERAS - a - 1) / 2 + (b - a - 1);
}

static double
s_wrap (double a)
{
    return atan2 (sin (a), cos (a));
}

/* The new sighting s of an object a camera follows: dropouts, and the
   residual of the previous sighting when the three frames are
   consecutive. */
static void
s_track_sight (sim_vstats_t *self, s_track_t *tr, const s_sight_t *s, bool ball)
{
    if (tr->last.valid) {
        uint32_t gap = s->frame - tr->last.frame - 1;
        if (s->frame > tr->last.frame && gap > 0 && gap <= SIM_VSTATS_GAP_MAX) {
            tr->missed += gap;
            if (ball) {
                self->ball_gaps++;
                self->ball_gaps_single += gap == 1;
                self->ball_gap_frames += gap;
            } else {
                self->robot_gaps++;
                self->robot_gaps_single += gap == 1;
            }
        }
        if (tr->prev.valid && tr->prev.frame + 1 == tr->last.frame && tr->last.frame + 1 == s->frame) {
            double span = s->t - tr->prev.t;
            if (span > 0) {
                double b = (tr->last.t - tr->prev.t) / span, a = 1 - b;
                double norm = sqrt (1 + a * a + b * b);
                double rx = tr->last.x - (a * tr->prev.x + b * s->x);
                double ry = tr->last.y - (a * tr->prev.y + b * s->y);
                s_vec_t *v = ball ? &self->ball_res : &self->robot_res;
                s_push (v, fabs (rx) / norm);
                s_push (v, fabs (ry) / norm);
                if (!ball) {
                    double pp = tr->prev.phi, pn = pp + s_wrap (s->phi - pp);
                    double pl = pp + s_wrap (tr->last.phi - pp);
                    s_push (&self->phi_res, fabs (pl - (a * pp + b * pn)) / norm);
                }
            }
        }
    }
    tr->seen++;
    tr->prev = tr->last;
    tr->last = *s;
}

static void
s_robot (sim_vstats_t *self, int cam, const SSLDetectionFrame *f, const SSLDetectionRobot *r, int team,
         bool *in_frame)
{
    self->rconf += r->confidence;
    self->rconf_n++;
    if (r->confidence < self->rconf_min)
        self->rconf_min = r->confidence;
    if (!r->has_robot_id || r->robot_id >= S_IDS)
        return;
    int slot = team * S_IDS + (int) r->robot_id;
    if (in_frame[slot]) {
        self->robot_duplicates++;
        return;
    }
    in_frame[slot] = true;
    s_sight_t s = {
        true, f->frame_number, f->t_capture, r->x, r->y, r->has_orientation ? r->orientation : 0
    };
    s_cam_t *c = &self->cam[cam];
    s_track_t *tr = &c->track[slot];
    s_track_sight (self, tr, &s, false);
    if (self->truth[slot].valid && !self->truth[slot].moving) {
        tr->ex += r->x - self->truth[slot].x;
        tr->ey += r->y - self->truth[slot].y;
        tr->ephi += s_wrap (s.phi - self->truth[slot].phi);
        tr->en++;
    }
    /* the same robot in another camera's frame captured within 20 ms */
    for (int o = 0; o < SIM_VSTATS_CAMERAS; o++) {
        const s_sight_t *os = &self->cam[o].track[slot].last;
        if (o == cam || !os->valid || fabs (os->t - s.t) > S_PAIR_WINDOW)
            continue;
        int lo = o < cam ? o : cam, hi = o < cam ? cam : o;
        const s_sight_t *sl = o < cam ? os : &s, *sh = o < cam ? &s : os;
        s_pair_acc_t *p = &self->pair[s_pair_index (lo, hi)];
        double dx = sh->x - sl->x, dy = sh->y - sl->y;
        s_push (&p->dist, hypot (dx, dy));
        s_push (&p->dphi, s_wrap (sh->phi - sl->phi));
        p->sx += dx;
        p->sy += dy;
        p->robot[slot].dx += dx;
        p->robot[slot].dy += dy;
        p->robot[slot].n++;
    }
    self->any_t[slot] = s.t;
    self->any_x[slot] = s.x;
    self->any_y[slot] = s.y;
}

static void
s_balls (sim_vstats_t *self, int cam, const SSLDetectionFrame *f)
{
    size_t n = f->n_balls;
    self->balls_per_frame[n < 5 ? n : 5]++;
    if (n > 1)
        self->false_balls += n - 1;
    for (size_t i = 0; i < n; i++) {
        self->bconf += f->balls[i]->confidence;
        self->bconf_n++;
        if (f->balls[i]->confidence < self->bconf_min)
            self->bconf_min = f->balls[i]->confidence;
    }
    if (n == 0)
        return;
    /* follow the ball nearest to where this camera saw it last */
    s_track_t *tr = &self->cam[cam].track[S_BALL];
    size_t best = 0;
    if (tr->last.valid) {
        double bd = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double d = hypot (f->balls[i]->x - tr->last.x, f->balls[i]->y - tr->last.y);
            if (d < bd) {
                bd = d;
                best = i;
            }
        }
    }
    s_sight_t s = { true, f->frame_number, f->t_capture, f->balls[best]->x, f->balls[best]->y, 0 };
    s_track_sight (self, tr, &s, true);
}

/* Which robots known to be in the field this camera should see, by their
   distance to its nadir. */
static void
s_fov (sim_vstats_t *self, const s_cam_t *c, double t, const bool *in_frame)
{
    if (!c->has_nadir)
        return;
    for (int slot = 0; slot < 2 * S_IDS; slot++) {
        if (!in_frame[slot] && !(fabs (self->any_t[slot] - t) < 0.1))
            continue;
        double d = hypot (self->any_x[slot] - c->nx, self->any_y[slot] - c->ny) / 1000;
        /* tested in double before the cast: a NaN or huge coordinate from
           the stream must not become a bin */
        if (!(d >= 0 && d < SIM_VSTATS_FOV_BINS * SIM_VSTATS_FOV_BIN))
            continue;
        int bin = (int) (d / SIM_VSTATS_FOV_BIN);
        self->fov_expected[bin]++;
        self->fov_seen[bin] += in_frame[slot];
    }
}

static void
s_detection (sim_vstats_t *self, const SSLDetectionFrame *f)
{
    if (f->camera_id >= SIM_VSTATS_CAMERAS)
        return;
    s_cam_t *c = &self->cam[f->camera_id];
    if (c->has_last && f->frame_number == c->last_frame) {
        c->duplicates++;
        return;
    }
    self->frames++;
    if (!c->seen) {
        c->seen = true;
        c->first_t = f->t_capture;
    } else if (c->has_last && f->frame_number == c->last_frame + 1 && f->t_capture > c->last_t)
        s_push (&c->periods, f->t_capture - c->last_t);
    c->has_last = true;
    c->last_frame = f->frame_number;
    c->last_t = f->t_capture;
    c->frames++;
    s_push (&self->latency, (f->t_sent - f->t_capture) * 1000);

    bool in_frame[2 * S_IDS] = { false };
    for (size_t i = 0; i < f->n_robots_yellow; i++)
        s_robot (self, (int) f->camera_id, f, f->robots_yellow[i], 0, in_frame);
    for (size_t i = 0; i < f->n_robots_blue; i++)
        s_robot (self, (int) f->camera_id, f, f->robots_blue[i], 1, in_frame);
    s_balls (self, (int) f->camera_id, f);
    s_fov (self, c, f->t_capture, in_frame);
}

int
sim_vstats_add_vision (sim_vstats_t *self, int64_t recv_ns, const void *data, size_t len)
{
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, data);
    if (!w) {
        self->undecodable++;
        return -1;
    }
    if (w->detection)
        s_detection (self, w->detection);
    if (w->geometry) {
        if (self->geometry == 0)
            self->geo_first = recv_ns;
        self->geo_last = recv_ns;
        self->geometry++;
        for (size_t i = 0; i < w->geometry->n_calib; i++) {
            const SSLGeometryCameraCalibration *k = w->geometry->calib[i];
            if (k->camera_id >= SIM_VSTATS_CAMERAS || !k->has_derived_camera_world_tx
                || !k->has_derived_camera_world_ty)
                continue;
            s_cam_t *c = &self->cam[k->camera_id];
            c->has_nadir = true;
            c->nx = k->derived_camera_world_tx;
            c->ny = k->derived_camera_world_ty;
            c->nz = k->has_derived_camera_world_tz ? k->derived_camera_world_tz : 0;
        }
    }
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return 0;
}

int
sim_vstats_add_truth (sim_vstats_t *self, const void *data, size_t len)
{
    TrackerWrapperPacket *w = tracker_wrapper_packet__unpack (NULL, len, data);
    if (!w) {
        self->undecodable++;
        return -1;
    }
    if (w->tracked_frame) {
        self->truth_frames++;
        for (size_t i = 0; i < w->tracked_frame->n_robots; i++) {
            const TrackedRobot *r = w->tracked_frame->robots[i];
            if (!r->robot_id || !r->robot_id->has_id || r->robot_id->id >= S_IDS || !r->pos)
                continue;
            int known = sim_team_from_league (r->robot_id->team);
            if (known < 0)
                continue;
            int team = known == SIM_TEAM_YELLOW ? 0 : 1; /* yellow's slots first, as s_detection's */
            s_truth_t *t = &self->truth[team * S_IDS + (int) r->robot_id->id];
            t->valid = true;
            t->x = r->pos->x * 1000;
            t->y = r->pos->y * 1000;
            t->phi = r->orientation;
            /* only a robot at rest has a truth that matches every frame */
            t->moving = !r->vel || hypot (r->vel->x, r->vel->y) > 0.01;
        }
    }
    tracker_wrapper_packet__free_unpacked (w, NULL);
    return 0;
}

static int
s_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* A sorted copy's quantile q (linear between order statistics); 0 when
   empty. */
static void
s_dist (const s_vec_t *v, sim_vstats_dist_t *out)
{
    memset (out, 0, sizeof *out);
    out->n = (size_t) v->seen;
    if (v->n == 0)
        return;
    double *s = malloc (v->n * sizeof *s);
    if (!s)
        return;
    memcpy (s, v->v, v->n * sizeof *s);
    qsort (s, v->n, sizeof *s, s_cmp);
    double sum = 0;
    for (size_t i = 0; i < v->n; i++)
        sum += s[i];
    out->mean = sum / (double) v->n;
    double q[4] = { 0.5, 0.9, 0.99, 0.1 }, *dst[4] = { &out->p50, &out->p90, &out->p99, &out->p10 };
    for (int k = 0; k < 4; k++) {
        double pos = q[k] * (double) (v->n - 1);
        size_t i = (size_t) pos;
        double f = pos - (double) i;
        *dst[k] = i + 1 < v->n ? s[i] * (1 - f) + s[i + 1] * f : s[i];
    }
    free (s);
}

static double
s_median (const s_vec_t *v)
{
    sim_vstats_dist_t d;
    s_dist (v, &d);
    return d.p50;
}

void
sim_vstats_report (const sim_vstats_t *self, sim_vstats_report_t *out)
{
    memset (out, 0, sizeof *out);
    out->frames = self->frames;
    out->geometry = self->geometry;
    out->undecodable = self->undecodable;
    out->truth_frames = self->truth_frames;
    if (self->geometry > 1)
        out->geometry_period_s =
            (double) (self->geo_last - self->geo_first) / 1e9 / (double) (self->geometry - 1);
    s_dist (&self->latency, &out->latency_ms);
    out->robot_noise_mm = 1.4826 * s_median (&self->robot_res);
    out->robot_noise_n = (size_t) self->robot_res.seen;
    out->robot_phi_noise_mrad = 1.4826 * s_median (&self->phi_res) * 1000;
    out->ball_noise_mm = 1.4826 * s_median (&self->ball_res);
    out->ball_noise_n = (size_t) self->ball_res.seen;
    out->robot_conf_mean = self->rconf_n ? self->rconf / (double) self->rconf_n : 0;
    out->robot_conf_min = self->rconf_n ? self->rconf_min : 0;
    out->ball_conf_mean = self->bconf_n ? self->bconf / (double) self->bconf_n : 0;
    out->ball_conf_min = self->bconf_n ? self->bconf_min : 0;

    uint64_t rseen = 0, rmiss = 0, bseen = 0, bmiss = 0;
    double off_sum = 0, warp_sum = 0, phi_warp_sum = 0;
    int off_n = 0, warp_n = 0;
    for (int i = 0; i < SIM_VSTATS_CAMERAS; i++) {
        const s_cam_t *c = &self->cam[i];
        sim_vstats_camera_t *o = &out->camera[i];
        o->seen = c->seen;
        if (!c->seen)
            continue;
        o->frames = c->frames;
        o->duplicates = c->duplicates;
        if (c->last_t > c->first_t)
            o->rate_hz = (double) (c->frames - 1) / (c->last_t - c->first_t);
        double med = s_median (&c->periods);
        o->period_ms = med * 1000;
        double s = 0, s2 = 0;
        size_t n = 0, late = 0;
        for (size_t k = 0; k < c->periods.n; k++) {
            double p = c->periods.v[k];
            if (p > 1.25 * med) {
                late++;
                continue;
            }
            s += p;
            s2 += p * p;
            n++;
        }
        if (n > 1) {
            double m = s / (double) n;
            o->jitter_ms = sqrt (fmax (0, s2 / (double) n - m * m)) * 1000;
        }
        o->late_share = c->periods.n ? (double) late / (double) c->periods.n : 0;
        o->has_nadir = c->has_nadir;
        o->nadir_x = c->nx / 1000;
        o->nadir_y = c->ny / 1000;
        o->height = c->nz / 1000;
        for (int slot = 0; slot < 2 * S_IDS; slot++) {
            rseen += c->track[slot].seen;
            rmiss += c->track[slot].missed;
        }
        bseen += c->track[S_BALL].seen;
        bmiss += c->track[S_BALL].missed;
        /* truth: the camera's mean error is its offset; the spread of the
           per-robot mean errors around it is the warp */
        double mx = 0, my = 0;
        int nr = 0;
        for (int slot = 0; slot < 2 * S_IDS; slot++)
            if (c->track[slot].en > 0) {
                mx += c->track[slot].ex / (double) c->track[slot].en;
                my += c->track[slot].ey / (double) c->track[slot].en;
                nr++;
            }
        if (nr >= 2) {
            mx /= nr;
            my /= nr;
            double v = 0;
            for (int slot = 0; slot < 2 * S_IDS; slot++)
                if (c->track[slot].en > 0) {
                    double dx = c->track[slot].ex / (double) c->track[slot].en - mx;
                    double dy = c->track[slot].ey / (double) c->track[slot].en - my;
                    v += dx * dx + dy * dy;
                }
            off_sum += hypot (mx, my);
            off_n++;
            warp_sum += v / (2.0 * (nr - 1));
            warp_n++;
            /* the same for the orientation: a camera sees its robots
               turned by its offset plus its warp where each stands (the
               camera pairs see it only where robots stand in an overlap,
               and the default formation has none there) */
            double mp = 0, vp = 0;
            for (int slot = 0; slot < 2 * S_IDS; slot++)
                if (c->track[slot].en > 0)
                    mp += c->track[slot].ephi / (double) c->track[slot].en;
            mp /= nr;
            for (int slot = 0; slot < 2 * S_IDS; slot++)
                if (c->track[slot].en > 0) {
                    double d = c->track[slot].ephi / (double) c->track[slot].en - mp;
                    vp += d * d;
                }
            phi_warp_sum += vp / (nr - 1);
        }
    }
    if (off_n > 0) {
        out->has_truth = true;
        out->truth_offset_mm = off_sum / off_n;
        out->truth_warp_mm = sqrt (warp_sum / warp_n);
        out->truth_phi_warp_mrad = sqrt (phi_warp_sum / warp_n) * 1000;
    }
    out->robot_missing = rseen + rmiss ? (double) rmiss / (double) (rseen + rmiss) : 0;
    out->ball_missing = bseen + bmiss ? (double) bmiss / (double) (bseen + bmiss) : 0;
    out->robot_gaps = self->robot_gaps;
    out->robot_gaps_single = self->robot_gaps_single;
    out->ball_gaps = self->ball_gaps;
    out->ball_gaps_single = self->ball_gaps_single;
    out->ball_gap_mean = self->ball_gaps ? (double) self->ball_gap_frames / (double) self->ball_gaps : 0;
    out->robot_duplicates = self->robot_duplicates;
    memcpy (out->balls_per_frame, self->balls_per_frame, sizeof out->balls_per_frame);
    out->false_balls = self->false_balls;
    memcpy (out->fov_expected, self->fov_expected, sizeof out->fov_expected);
    memcpy (out->fov_seen, self->fov_seen, sizeof out->fov_seen);

    for (int a = 0; a < SIM_VSTATS_CAMERAS; a++)
        for (int b = a + 1; b < SIM_VSTATS_CAMERAS; b++) {
            const s_pair_acc_t *p = &self->pair[s_pair_index (a, b)];
            if (p->dist.n == 0)
                continue;
            sim_vstats_pair_t *o = &out->pair[out->pairs++];
            o->a = a;
            o->b = b;
            o->n = (size_t) p->dist.seen;
            sim_vstats_dist_t d;
            s_dist (&p->dist, &d);
            o->mean_mm = d.mean;
            o->p50_mm = d.p50;
            o->p90_mm = d.p90;
            o->p99_mm = d.p99;
            o->const_mm = hypot (p->sx, p->sy) / (double) p->dist.seen;
            double mx = 0, my = 0, v = 0;
            int nr = 0;
            for (int r = 0; r < 2 * S_IDS; r++)
                if (p->robot[r].n > 0) {
                    mx += p->robot[r].dx / (double) p->robot[r].n;
                    my += p->robot[r].dy / (double) p->robot[r].n;
                    nr++;
                }
            if (nr >= 2) {
                mx /= nr;
                my /= nr;
                for (int r = 0; r < 2 * S_IDS; r++)
                    if (p->robot[r].n > 0) {
                        double dx = p->robot[r].dx / (double) p->robot[r].n - mx;
                        double dy = p->robot[r].dy / (double) p->robot[r].n - my;
                        v += dx * dx + dy * dy;
                    }
                o->spread_mm = sqrt (v / (2.0 * (nr - 1)));
            }
            double s2 = 0;
            for (size_t k = 0; k < p->dphi.n; k++)
                s2 += p->dphi.v[k] * p->dphi.v[k];
            o->phi_sigma_mrad = sqrt (s2 / (double) p->dphi.n) * 1000;
        }
}
