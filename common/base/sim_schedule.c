/*  sim_schedule.c - camera rig, capture instants, outages and the release
    queue (spec/vision.md §2, §6, §7). Pure: no clock, no I/O; the only
    randomness is the keyed calibration draw for free-running phases.
*/
#include "sim_schedule.h"
#include "sim_field.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S_MEMO 4

struct sim_schedule_t {
    uint64_t period;                                          /* ns */
    uint64_t substep;                                         /* ns, for skip_to */
    uint64_t start;                                           /* captures only at t > start */
    int count;                                                /* cameras */
    uint64_t next[SIM_MAX_CAMERAS];                           /* next scheduled instant */
    uint64_t grid[SIM_MAX_CAMERAS];                           /* its index k on the camera's grid */
    uint64_t taken[SIM_MAX_CAMERAS], before[SIM_MAX_CAMERAS]; /* last two captures */
    uint64_t offset[SIM_MAX_CAMERAS];
    /* Jittered instants already drawn, by k mod S_MEMO: an advance asks
       for the same two or three instants up to five times, and each costs
       a keyed seed and a normal draw. UINT64_MAX marks an empty slot. */
    uint64_t memo_k[SIM_MAX_CAMERAS][S_MEMO], memo_t[SIM_MAX_CAMERAS][S_MEMO];
    sim_schedule_def_t def;          /* for the jittered instants */
    uint32_t frame[SIM_MAX_CAMERAS]; /* next frame number */
    uint32_t suppressed;
    int outage_count;
    sim_outage_cfg_t outages[SIM_MAX_OUTAGES];
    /* FIFO of release due times, a ring that grows on demand */
    uint64_t *queue;
    int q_cap, q_head, q_len;
};

void
sim_schedule_def_default (sim_schedule_def_t *def)
{
    memset (def, 0, sizeof *def);
    sim_field_t field;
    sim_field_division (SIM_DIVISION_A, &field);
    sim_rig_place (&def->rig, 2, &field, 6.4, 0.20);
    def->frame_rate = 73.3;
    def->camera_phase = SIM_PHASE_LOCKED;
    def->substep = 0.001;
    /* the realistic preset's capture jitter ([realism] defaults) */
    def->capture_jitter = 0.00014;
    def->capture_late_fraction = 0.5;
}

void
sim_rig_place (sim_rig_t *out, int count, const sim_field_t *field, double height, double x_fraction)
{
    memset (out, 0, sizeof *out);
    double h = height;
    double fx = x_fraction * field->length;
    double qy = field->width / 4;
    if (count == 1) {
        out->count = 1;
        out->cams[0] = (sim_camera_cfg_t) { .id = 0, .x = 0, .y = 0, .z = h };
    } else if (count == 2) {
        out->count = 2;
        out->cams[0] = (sim_camera_cfg_t) { .id = 0, .x = +fx, .y = 0, .z = h };
        out->cams[1] = (sim_camera_cfg_t) { .id = 1, .x = -fx, .y = 0, .z = h };
    } else {
        out->count = 4;
        out->cams[0] = (sim_camera_cfg_t) { .id = 0, .x = +fx, .y = +qy, .z = h };
        out->cams[1] = (sim_camera_cfg_t) { .id = 1, .x = -fx, .y = +qy, .z = h };
        out->cams[2] = (sim_camera_cfg_t) { .id = 2, .x = -fx, .y = -qy, .z = h };
        out->cams[3] = (sim_camera_cfg_t) { .id = 3, .x = +fx, .y = -qy, .z = h };
    }
}

uint64_t
sim_schedule_period_ns (double frame_rate)
{
    double rate = frame_rate;
    if (!(rate > 0))
        rate = 60.0;
    /* The reciprocal first, as the spec says, so the rounding matches. */
    double period = (1.0 / rate) * 1e9;
    if (!(period < 1.8e19))
        return UINT64_MAX / 2;
    uint64_t ns = (uint64_t) llround (period);
    return ns < 1 ? 1 : ns;
}

uint64_t
sim_schedule_delay_ns (double vision_delay)
{
    double d = vision_delay;
    if (!(d > 0))
        return 0;
    /* a million seconds is "never" and keeps the cast defined */
    if (d > 1e6)
        d = 1e6;
    return (uint64_t) llround (d * 1e9);
}

void
sim_schedule_calibration_rng (uint64_t seed, uint32_t rig_generation, sim_rng_t *rng)
{
    sim_rng_seed_keyed (rng, seed, SIM_STREAM_CALIBRATION, rig_generation, 0);
}

uint64_t
sim_schedule_offset_ns (const sim_schedule_def_t *def, int index)
{
    uint64_t period = sim_schedule_period_ns (def->frame_rate);
    if (def->camera_phase == SIM_PHASE_FREE_RUNNING) {
        sim_rng_t rng;
        sim_schedule_calibration_rng (def->seed, def->rig_generation, &rng);
        for (int k = 0; k < SIM_CALIB_UNIFORMS_PER_CAMERA * index; k++)
            sim_rng_next (&rng);
        double fraction = sim_rng_uniform01 (&rng);
        uint64_t off = (uint64_t) llround (fraction * (double) period);
        return off >= period ? 0 : off;
    }
    double seconds = 0;
    if (index < def->phase_offset_count && index < SIM_MAX_PHASE_OFFSETS)
        seconds = def->phase_offsets[index];
    if (!isfinite (seconds))
        return 0;
    /* Reduce in seconds first so huge offsets cannot overflow the ns cast. */
    double period_s = (double) period * 1e-9;
    double r = fmod (seconds, period_s);
    if (r < 0)
        r += period_s;
    int64_t ns = llround (r * 1e9);
    if (ns < 0)
        ns = 0;
    return (uint64_t) ns >= period ? (uint64_t) ns - period : (uint64_t) ns;
}

bool
sim_schedule_def_jittered (const sim_schedule_def_t *def)
{
    return def->capture_jitter > 0 || def->capture_late_rate > 0;
}

/* Instant k of camera `index` on the grid `base` = offset + k T, moved by
   its keyed jitter draw; period and offset come from the caller, which
   may have them cached. */
static uint64_t
s_jittered (const sim_schedule_def_t *def, uint64_t period, uint64_t base, int index, uint64_t k)
{
    sim_rng_t rng;
    uint64_t key = ((uint64_t) def->rig_generation << 32) | (uint64_t) index;
    sim_rng_seed_keyed (&rng, def->seed, SIM_STREAM_CAPTURE_JITTER, key, k);
    /* the clamps keep two instants of a camera at least 0.2 T apart */
    double cap = 0.15 * (double) period;
    double j = sim_rng_normal (&rng, def->capture_jitter * 1e9);
    j = j < -cap ? -cap : j > cap ? cap : j;
    if (sim_rng_chance (&rng, def->capture_late_rate)) {
        double late = def->capture_late_fraction;
        j += (late < 0 ? 0 : late > 0.5 ? 0.5 : late) * (double) period;
    }
    int64_t off = llround (j);
    if (off < 0)
        return (uint64_t) (-off) > base ? 0 : base - (uint64_t) (-off);
    return base + (uint64_t) off;
}

uint64_t
sim_schedule_instant_ns (const sim_schedule_def_t *def, int index, uint64_t k)
{
    uint64_t period = sim_schedule_period_ns (def->frame_rate);
    uint64_t base = sim_schedule_offset_ns (def, index) + k * period;
    if (!sim_schedule_def_jittered (def))
        return base;
    return s_jittered (def, period, base, index, k);
}

/* Instant k of camera i, from the period and offset cached at load, and
   when jittered from the memo (the same value sim_schedule_instant_ns
   gives: the memo only saves drawing it again). */
static uint64_t
s_instant (sim_schedule_t *self, int i, uint64_t k)
{
    uint64_t base = self->offset[i] + k * self->period;
    if (!sim_schedule_def_jittered (&self->def))
        return base;
    int slot = (int) (k % S_MEMO);
    if (self->memo_k[i][slot] != k) {
        self->memo_t[i][slot] = s_jittered (&self->def, self->period, base, i, k);
        self->memo_k[i][slot] = k;
    }
    return self->memo_t[i][slot];
}

/* Number of instants of camera i at or before t: the grid estimate, then
   corrected by at most a step either way (a jittered instant is within
   0.65 T of its grid point). */
static uint64_t
s_count_until (sim_schedule_t *self, int i, uint64_t t)
{
    uint64_t k = t >= self->offset[i] ? (t - self->offset[i]) / self->period : 0;
    while (k > 0 && s_instant (self, i, k - 1) > t)
        k--;
    while (s_instant (self, i, k) <= t)
        k++;
    return k;
}

/* Is t_ns inside one of the n outages (start <= t < start + duration)? */
static bool
s_in_outages (const sim_outage_cfg_t *outages, int n, uint64_t t_ns)
{
    double t = (double) t_ns * 1e-9;
    for (int i = 0; i < n; i++) {
        const sim_outage_cfg_t *o = &outages[i];
        if (o->duration > 0 && o->start <= t && t < o->start + o->duration)
            return true;
    }
    return false;
}

bool
sim_schedule_in_outage (const sim_schedule_def_t *def, uint64_t t_ns)
{
    int n = def->outage_count < SIM_MAX_OUTAGES ? def->outage_count : SIM_MAX_OUTAGES;
    return s_in_outages (def->outages, n, t_ns);
}

/* Load the rig-dependent part: cameras, offsets, frame numbers. */
static void
s_load_rig (sim_schedule_t *self, const sim_schedule_def_t *def, uint64_t start)
{
    const sim_rig_t *rig = &def->rig;
    self->period = sim_schedule_period_ns (def->frame_rate);
    double dt = def->substep > 0 ? def->substep : 0.001;
    self->substep = (uint64_t) llround (dt * 1e9);
    if (self->substep < 1)
        self->substep = 1;
    self->start = start;
    self->def = *def;
    self->count = rig->count < SIM_MAX_CAMERAS ? rig->count : SIM_MAX_CAMERAS;
    for (int i = 0; i < self->count; i++) {
        self->offset[i] = sim_schedule_offset_ns (def, i);
        for (int m = 0; m < S_MEMO; m++)
            self->memo_k[i][m] = UINT64_MAX;
        self->grid[i] = 0;
        self->next[i] = s_instant (self, i, 0);
        self->taken[i] = self->before[i] = 0;
        self->frame[i] = 0;
    }
    self->suppressed = 0;
    self->outage_count = def->outage_count < SIM_MAX_OUTAGES ? def->outage_count : SIM_MAX_OUTAGES;
    if (self->outage_count < 0)
        self->outage_count = 0;
    memcpy (self->outages, def->outages, sizeof self->outages);
}

sim_schedule_t *
sim_schedule_new (const sim_schedule_def_t *def)
{
    assert (def);
    sim_schedule_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->q_cap = 64;
    self->queue = malloc (sizeof (uint64_t) * (size_t) self->q_cap);
    if (!self->queue) {
        free (self);
        return NULL;
    }
    s_load_rig (self, def, 0);
    return self;
}

void
sim_schedule_destroy (sim_schedule_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        free ((*self_p)->queue);
        free (*self_p);
        *self_p = NULL;
    }
}

uint64_t
sim_schedule_next_due (const sim_schedule_t *self)
{
    assert (self);
    uint64_t due = UINT64_MAX;
    for (int i = 0; i < self->count; i++) {
        uint64_t n = self->next[i] > self->start ? self->next[i] : self->start + 1;
        if (n < due)
            due = n;
    }
    if (self->q_len > 0 && self->queue[self->q_head] < due)
        due = self->queue[self->q_head];
    return due;
}

uint64_t
sim_schedule_next_release (const sim_schedule_t *self, uint64_t delay_ns)
{
    assert (self);
    uint64_t due = UINT64_MAX;
    for (int i = 0; i < self->count; i++) {
        uint64_t n = self->next[i] > self->start ? self->next[i] : self->start + 1;
        if (n <= UINT64_MAX - delay_ns && n + delay_ns < due)
            due = n + delay_ns;
    }
    if (self->q_len > 0 && self->queue[self->q_head] < due)
        due = self->queue[self->q_head];
    return due;
}

/* Returns 0, or -1 when the queue could not grow (the capture is then
   dropped rather than corrupting the order). */
static int
s_push (sim_schedule_t *self, uint64_t due)
{
    if (self->q_len == self->q_cap) {
        int cap = self->q_cap * 2;
        uint64_t *q = malloc (sizeof (uint64_t) * (size_t) cap);
        if (!q)
            return -1;
        for (int i = 0; i < self->q_len; i++)
            q[i] = self->queue[(self->q_head + i) % self->q_cap];
        free (self->queue);
        self->queue = q;
        self->q_cap = cap;
        self->q_head = 0;
    }
    self->queue[(self->q_head + self->q_len) % self->q_cap] = due;
    self->q_len++;
    return 0;
}

int
sim_schedule_advance (sim_schedule_t *self, uint64_t t_ns, uint64_t delay_ns, uint32_t *capture_mask,
                      uint32_t frame_numbers[SIM_MAX_CAMERAS])
{
    assert (self);
    assert (capture_mask);
    uint32_t mask = 0;
    self->suppressed = 0;
    if (t_ns > self->start) {
        bool outage = s_in_outages (self->outages, self->outage_count, t_ns);
        for (int i = 0; i < self->count; i++) {
            if (t_ns < self->next[i])
                continue;
            /* skip every instant up to t: one capture however many passed,
               taken at the latest of them, numbered by it */
            uint64_t k = s_count_until (self, i, t_ns);
            if (k <= self->grid[i])
                k = self->grid[i] + 1;
            /* instants a substep end before t passed unseen (a consumer that
               missed snapshots: vision behind a realtime clock) keep their
               frame numbers, as skip_to gives them, so the frames after
               are numbered as for a consumer that saw every snapshot (a
               replay); those of t's own substep are one capture, as ever */
            self->before[i] = self->taken[i];
            /* next[i] is instant grid[i]: none passed unseen unless it lies
               before t's own substep (the common case counts nothing) */
            if (self->frame[i] > 0 && t_ns > self->substep && self->next[i] <= t_ns - self->substep) {
                uint64_t seen = s_count_until (self, i, t_ns - self->substep);
                if (seen > k - 1)
                    seen = k - 1;
                if (seen > self->grid[i]) {
                    self->frame[i] += (uint32_t) (seen - self->grid[i]);
                    self->before[i] = s_instant (self, i, k - 2);
                }
            }
            self->taken[i] = s_instant (self, i, k - 1);
            self->grid[i] = k;
            self->next[i] = s_instant (self, i, k);
            if (frame_numbers)
                frame_numbers[i] = self->frame[i];
            self->frame[i]++;
            if (outage)
                self->suppressed |= 1u << i;
            else {
                uint64_t due = delay_ns > UINT64_MAX - t_ns ? UINT64_MAX : t_ns + delay_ns;
                if (s_push (self, due) == 0)
                    mask |= 1u << i;
            }
        }
    }
    *capture_mask = mask;
    int released = 0;
    while (self->q_len > 0 && self->queue[self->q_head] <= t_ns) {
        self->q_head = (self->q_head + 1) % self->q_cap;
        self->q_len--;
        released++;
    }
    return released;
}

uint64_t
sim_schedule_capture_ns (const sim_schedule_t *self, int index)
{
    assert (self && index >= 0 && index < self->count);
    return self->taken[index];
}

uint64_t
sim_schedule_previous_capture_ns (const sim_schedule_t *self, int index)
{
    assert (self && index >= 0 && index < self->count);
    return self->before[index];
}

bool
sim_schedule_missed_in_outage (sim_schedule_t *self, int index, uint32_t back)
{
    assert (self && index >= 0 && index < self->count && back >= 1);
    if (self->outage_count == 0 || self->grid[index] < 1 + (uint64_t) back)
        return false;
    uint64_t at = s_instant (self, index, self->grid[index] - 1 - back);
    /* captured at the first substep end at or after the instant */
    uint64_t t = (at + self->substep - 1) / self->substep * self->substep;
    return s_in_outages (self->outages, self->outage_count, t);
}

uint32_t
sim_schedule_suppressed_mask (const sim_schedule_t *self)
{
    assert (self);
    return self->suppressed;
}

void
sim_schedule_reset_rig (sim_schedule_t *self, const sim_schedule_def_t *def, uint64_t t_ns)
{
    assert (self && def);
    s_load_rig (self, def, t_ns);
}

void
sim_schedule_set_jitter (sim_schedule_t *self, const sim_schedule_def_t *def)
{
    assert (self && def);
    self->def.capture_jitter = def->capture_jitter;
    self->def.capture_late_rate = def->capture_late_rate;
    self->def.capture_late_fraction = def->capture_late_fraction;
    for (int i = 0; i < self->count; i++) {
        for (int m = 0; m < S_MEMO; m++)
            self->memo_k[i][m] = UINT64_MAX;
        self->next[i] = s_instant (self, i, self->grid[i]);
    }
}

void
sim_schedule_skip_to (sim_schedule_t *self, uint64_t t_ns)
{
    assert (self);
    uint64_t dt = self->substep;
    if (t_ns <= self->start + dt)
        return;
    /* The last substep end strictly before t; instants up to it were
       captured (each at its own substep end when the period exceeds the
       substep). */
    uint64_t m = ((t_ns - 1) / dt) * dt;
    for (int i = 0; i < self->count; i++) {
        uint64_t count = s_count_until (self, i, m);
        self->frame[i] = (uint32_t) count;
        self->grid[i] = count;
        self->next[i] = s_instant (self, i, count);
        self->taken[i] = count > 0 ? s_instant (self, i, count - 1) : 0;
        self->before[i] = count > 1 ? s_instant (self, i, count - 2) : 0;
    }
}

int
sim_schedule_camera_count (const sim_schedule_t *self)
{
    assert (self);
    return self->count;
}

int
sim_schedule_queued (const sim_schedule_t *self)
{
    assert (self);
    return self->q_len;
}
