/*  sslsim_obs.c - observation vectors for learning (sslsim.h): the true
    state or the newest detections of the ball and of chosen robots, as
    floats within finite bounds.

    One home for the layout: the Python environment (one world) and the
    vector environment (a batch) both call sslsim_obs_write, so the two
    cannot disagree. The vision kind keeps, per slot, the newest detection
    of each observed object (capture time and pose) across steps, since a
    frame may miss an object that the previous ones saw; its age is read
    against the newest capture of any camera so far.

    The frame (sslsim_obs_set_frame) is applied here, to the finished
    vector, so both kinds and every caller get the same turn.
*/
#include "sslsim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SSLSIM_OBS_G 9.81 /* m/s^2, for the highest a ball at the speed bound flies */

/* The newest detection of one object: capture time (-inf: none), pose. */
typedef struct {
    double t, x, y, orientation;
} s_seen_t;

struct sslsim_obs_t {
    sslsim_obs_kind_t kind;
    int count, slots, size;
    int turned;            /* 1: the yellow team's frame, half a turn about the centre */
    int16_t index[2][256]; /* (team, id) -> place among the observed, -1 */
    float *low, *high;
    s_seen_t *seen; /* slots * (1 + count): the ball, then each robot */
    double *newest; /* per slot, the newest capture of any camera */
};

/* Per quantity (low, high), from the field and the robots' limits:
   positions to the walls, robot speeds twice the faster team's limit (a
   robot pushed by another at full speed), ball speed the fastest kick
   (flat or chip) plus that, height what a ball thrown up at that speed reaches. */
typedef struct {
    double x, y, z, ball_v, robot_v, omega;
} s_reach_t;

static s_reach_t
s_reach (const sslsim_limits_t *l)
{
    s_reach_t r;
    r.x = l->field_length / 2 + fmax (l->boundary_width_goal_line, l->goal_depth);
    r.y = l->field_width / 2 + l->boundary_width;
    r.robot_v = 2.0 * fmax (l->robot_speed_max[0], l->robot_speed_max[1]);
    r.omega = 2.0 * fmax (l->robot_angular_max[0], l->robot_angular_max[1]);
    r.ball_v = fmax (fmax (l->kick_speed_max[0], l->chip_speed_max[0]),
                     fmax (l->kick_speed_max[1], l->chip_speed_max[1]))
             + r.robot_v;
    r.z = r.ball_v * r.ball_v / (2 * SSLSIM_OBS_G);
    return r;
}

static void
s_put (float *low, float *high, int *at, double lo, double hi)
{
    low[*at] = (float) lo;
    high[*at] = (float) hi;
    (*at)++;
}

static void
s_fill_bounds (sslsim_obs_t *self, const sslsim_limits_t *limits)
{
    s_reach_t r = s_reach (limits);
    float *lo = self->low, *hi = self->high;
    int at = 0;
    if (self->kind == SSLSIM_OBS_TRUTH) {
        s_put (lo, hi, &at, -r.x, r.x);
        s_put (lo, hi, &at, -r.y, r.y);
        s_put (lo, hi, &at, 0.0, r.z);
        for (int i = 0; i < 3; i++)
            s_put (lo, hi, &at, -r.ball_v, r.ball_v);
        for (int k = 0; k < self->count; k++) {
            s_put (lo, hi, &at, 0.0, 1.0);
            s_put (lo, hi, &at, -r.x, r.x);
            s_put (lo, hi, &at, -r.y, r.y);
            s_put (lo, hi, &at, -M_PI, M_PI);
            s_put (lo, hi, &at, -r.robot_v, r.robot_v);
            s_put (lo, hi, &at, -r.robot_v, r.robot_v);
            s_put (lo, hi, &at, -r.omega, r.omega);
        }
    } else {
        s_put (lo, hi, &at, -1.0, SSLSIM_OBS_MAX_AGE);
        s_put (lo, hi, &at, -r.x, r.x);
        s_put (lo, hi, &at, -r.y, r.y);
        for (int k = 0; k < self->count; k++) {
            s_put (lo, hi, &at, -1.0, SSLSIM_OBS_MAX_AGE);
            s_put (lo, hi, &at, -r.x, r.x);
            s_put (lo, hi, &at, -r.y, r.y);
            s_put (lo, hi, &at, -M_PI, M_PI);
        }
    }
}

/* The first field of *l that cannot bound an observation (a NaN, an
   infinity, a negative value, a field of no length or width), NULL when
   all can: limits filled by hand, or never filled, give no bounds. */
static const char *
s_bad_limit (const sslsim_limits_t *l, double *value)
{
    const struct {
        const char *name;
        double v;
        bool positive;
    } f[] = {
        { "field_length", l->field_length, true },
        { "field_width", l->field_width, true },
        { "boundary_width", l->boundary_width, false },
        { "boundary_width_goal_line", l->boundary_width_goal_line, false },
        { "goal_depth", l->goal_depth, false },
        { "robot_speed_max[0]", l->robot_speed_max[0], false },
        { "robot_speed_max[1]", l->robot_speed_max[1], false },
        { "robot_angular_max[0]", l->robot_angular_max[0], false },
        { "robot_angular_max[1]", l->robot_angular_max[1], false },
        { "kick_speed_max[0]", l->kick_speed_max[0], false },
        { "kick_speed_max[1]", l->kick_speed_max[1], false },
        { "chip_speed_max[0]", l->chip_speed_max[0], false },
        { "chip_speed_max[1]", l->chip_speed_max[1], false },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite (f[i].v) || f[i].v < 0 || (f[i].positive && f[i].v == 0)) {
            *value = f[i].v;
            return f[i].name;
        }
    return NULL;
}

sslsim_obs_t *
sslsim_obs_new (sslsim_obs_kind_t kind, const int *teams, const int *ids, int count, int slots,
                const sslsim_limits_t *limits, char *err, size_t err_len)
{
    char scratch[160];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    if ((kind != SSLSIM_OBS_TRUTH && kind != SSLSIM_OBS_VISION) || count < 0 || count > SSLSIM_MAX_ROBOTS
        || (count > 0 && (!teams || !ids)) || slots < 1 || slots > 65536 || !limits) {
        snprintf (err, err_len, "an observer needs kind 0/1, 0..%d robots, 1..65536 slots and limits",
                  SSLSIM_MAX_ROBOTS);
        return NULL;
    }
    sslsim_obs_t *self = calloc (1, sizeof *self);
    if (!self) {
        snprintf (err, err_len, "out of memory");
        return NULL;
    }
    self->kind = kind;
    self->count = count;
    self->slots = slots;
    self->size = kind == SSLSIM_OBS_TRUTH ? 6 + 7 * count : 3 + 4 * count;
    memset (self->index, 0xff, sizeof self->index);
    for (int i = 0; i < count; i++) {
        if ((teams[i] != 0 && teams[i] != 1) || ids[i] < 0 || ids[i] > 255
            || self->index[teams[i]][ids[i]] >= 0) {
            snprintf (err, err_len, "observed robot %d (team %d, id %d): team 0/1, id 0..255, each once", i,
                      teams[i], ids[i]);
            sslsim_obs_free (self);
            return NULL;
        }
        self->index[teams[i]][ids[i]] = (int16_t) i;
    }
    double value;
    const char *bad = s_bad_limit (limits, &value);
    if (bad) {
        snprintf (err, err_len, "limits: %s = %g bounds no observation (sslsim_world_limits fills them)", bad,
                  value);
        sslsim_obs_free (self);
        return NULL;
    }
    self->low = calloc ((size_t) self->size, sizeof *self->low);
    self->high = calloc ((size_t) self->size, sizeof *self->high);
    self->newest = calloc ((size_t) slots, sizeof *self->newest);
    self->seen = calloc ((size_t) slots * (size_t) (1 + count), sizeof *self->seen);
    if (!self->low || !self->high || !self->newest || !self->seen) {
        snprintf (err, err_len, "out of memory");
        sslsim_obs_free (self);
        return NULL;
    }
    s_fill_bounds (self, limits);
    for (int k = 0; k < slots; k++)
        sslsim_obs_forget (self, k);
    return self;
}

void
sslsim_obs_free (sslsim_obs_t *obs)
{
    if (!obs)
        return;
    free (obs->low);
    free (obs->high);
    free (obs->seen);
    free (obs->newest);
    free (obs);
}

int
sslsim_obs_size (const sslsim_obs_t *obs)
{
    return obs ? obs->size : 0;
}

void
sslsim_obs_bounds (const sslsim_obs_t *obs, float *low, float *high)
{
    if (!obs || !low || !high)
        return;
    memcpy (low, obs->low, (size_t) obs->size * sizeof *low);
    memcpy (high, obs->high, (size_t) obs->size * sizeof *high);
}

sslsim_status_t
sslsim_obs_set_frame (sslsim_obs_t *obs, int team)
{
    if (!obs || (team != 0 && team != 1))
        return SSLSIM_EINVAL;
    obs->turned = team;
    return SSLSIM_OK;
}

void
sslsim_obs_forget (sslsim_obs_t *obs, int slot)
{
    if (!obs || slot < 0 || slot >= obs->slots)
        return;
    obs->newest[slot] = -INFINITY;
    s_seen_t *seen = &obs->seen[(size_t) slot * (size_t) (1 + obs->count)];
    for (int i = 0; i <= obs->count; i++)
        seen[i] = (s_seen_t) { -INFINITY, 0.0, 0.0, 0.0 };
}

static void
s_write_truth (const sslsim_obs_t *self, const sslsim_truth_t *truth, float *out)
{
    memset (out, 0, (size_t) self->size * sizeof *out);
    for (int i = 0; i < 6; i++)
        out[i] = (float) truth->ball[i];
    for (int k = 0; k < truth->robot_count; k++) {
        const sslsim_truth_robot_t *r = &truth->robots[k];
        int i =
            (r->team == 0 || r->team == 1) && r->id >= 0 && r->id < 256 ? self->index[r->team][r->id] : -1;
        if (i < 0)
            continue;
        float *o = out + 6 + 7 * i;
        o[0] = 1.0f;
        o[1] = (float) r->x;
        o[2] = (float) r->y;
        o[3] = (float) r->orientation;
        o[4] = (float) r->vx;
        o[5] = (float) r->vy;
        o[6] = (float) r->omega;
    }
}

/* Fold frame d into the slot's memory: the most confident ball (the first
   of equals) and each observed robot, when at least as new as what the
   slot holds. */
static void
s_fold (const sslsim_obs_t *self, s_seen_t *seen, const sslsim_detection_t *d)
{
    double tc = d->t_capture;
    if (d->ball_count > 0 && tc >= seen[0].t) {
        int best = 0;
        for (int b = 1; b < d->ball_count; b++)
            if (d->balls[b].confidence > d->balls[best].confidence)
                best = b;
        seen[0] = (s_seen_t) { tc, d->balls[best].x, d->balls[best].y, 0.0 };
    }
    for (int k = 0; k < d->robot_count; k++) {
        const sslsim_det_robot_t *r = &d->robots[k];
        int i = r->id >= 0 && r->id < 256 ? self->index[r->team][r->id] : -1;
        if (i >= 0 && tc >= seen[1 + i].t)
            seen[1 + i] = (s_seen_t) { tc, r->x, r->y, r->orientation };
    }
}

/* An orientation turned half a turn, kept in [-pi, pi] (the float pi of
   the bounds, so a robot at pi turns to exactly 0 and back). */
static float
s_turn_angle (float o)
{
    const float pi = (float) M_PI;
    return o > 0.0f ? o - pi : o + pi;
}

/* The vector turned half a turn about the centre (sslsim_obs_set_frame):
   per object the fields that change sign, and the orientation. An object
   absent (present 0) or never seen (age -1) keeps its zeros. */
static void
s_turn (const sslsim_obs_t *self, float *out)
{
    if (self->kind == SSLSIM_OBS_TRUTH) {
        out[0] = 0.0f - out[0];
        out[1] = 0.0f - out[1];
        out[3] = 0.0f - out[3];
        out[4] = 0.0f - out[4];
        for (int k = 0; k < self->count; k++) {
            float *o = out + 6 + 7 * k;
            if (o[0] == 0.0f)
                continue;
            o[1] = 0.0f - o[1];
            o[2] = 0.0f - o[2];
            o[3] = s_turn_angle (o[3]);
            o[4] = 0.0f - o[4];
            o[5] = 0.0f - o[5];
        }
        return;
    }
    for (int i = 0; i <= self->count; i++) {
        float *o = i == 0 ? out : out + 3 + 4 * (i - 1);
        if (o[0] < 0.0f)
            continue;
        o[1] = 0.0f - o[1];
        o[2] = 0.0f - o[2];
        if (i > 0)
            o[3] = s_turn_angle (o[3]);
    }
}

static void
s_write_vision (sslsim_obs_t *self, int slot, const sslsim_world_t *world, float *out)
{
    s_seen_t *seen = &self->seen[(size_t) slot * (size_t) (1 + self->count)];
    double *newest = &self->newest[slot];
    int frames = sslsim_world_vision_count (world);
    sslsim_detection_t d; /* 9 kB of stack: a worker thread has megabytes */
    for (int f = 0; f < frames; f++) {
        const uint8_t *bytes;
        size_t len;
        if (sslsim_world_vision (world, f, &bytes, &len) != SSLSIM_OK
            || sslsim_detection_read_detection (bytes, len, &d) != SSLSIM_OK)
            continue;
        if (d.t_capture > *newest)
            *newest = d.t_capture;
        s_fold (self, seen, &d);
    }
    for (int i = 0; i <= self->count; i++) {
        float *o = i == 0 ? out : out + 3 + 4 * (i - 1);
        bool never = !isfinite (seen[i].t);
        o[0] = never ? -1.0f : (float) (*newest - seen[i].t);
        o[1] = never ? 0.0f : (float) seen[i].x;
        o[2] = never ? 0.0f : (float) seen[i].y;
        if (i > 0)
            o[3] = never ? 0.0f : (float) seen[i].orientation;
    }
}

const char *
sslsim_obs_refuses (const sslsim_obs_t *obs, const sslsim_world_t *world)
{
    if (obs && world && obs->kind == SSLSIM_OBS_VISION && !world->vision)
        return "a vision observer needs a world made with vision (sslsim_config_t.vision = 1): this one "
               "has no cameras";
    return NULL;
}

sslsim_status_t
sslsim_obs_write (sslsim_obs_t *obs, int slot, const sslsim_world_t *world, float *out)
{
    if (!obs || !world || !out || slot < 0 || slot >= obs->slots || sslsim_obs_refuses (obs, world))
        return SSLSIM_EINVAL;
    sslsim_truth_t t;
    if (obs->kind == SSLSIM_OBS_TRUTH)
        sslsim_world_truth (world, &t);
    sslsim_obs_write_with (obs, slot, world, &t, out);
    return SSLSIM_OK;
}

void
sslsim_obs_write_with (sslsim_obs_t *obs, int slot, const sslsim_world_t *world, const sslsim_truth_t *truth,
                       float *out)
{
    if (obs->kind == SSLSIM_OBS_TRUTH)
        s_write_truth (obs, truth, out);
    else
        s_write_vision (obs, slot, world, out);
    /* the bounds hold what play produces; a ball over the walls or a
       teleport beyond them reads as the nearest bound */
    for (int i = 0; i < obs->size; i++)
        out[i] = out[i] < obs->low[i] ? obs->low[i] : out[i] > obs->high[i] ? obs->high[i] : out[i];
    /* after the clip: the bounds are symmetric, so the turned vector keeps
       them, and yellow's vector is exactly blue's rule turned */
    if (obs->turned)
        s_turn (obs, out);
}

int
sslsim_obs_frame (const sslsim_obs_t *obs)
{
    return obs ? obs->turned : 0;
}

int
sslsim_obs_slots (const sslsim_obs_t *obs)
{
    return obs ? obs->slots : 0;
}
