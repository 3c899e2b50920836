/*  sim_schedule.h - the camera rig and the capture/release schedule of the
    vision cameras (spec/vision.md §2, §6, §7) as a pure function of the
    schedule's definition and the seed.

    Physics uses it to know at which sim times it must publish a snapshot
    (ARCHITECTURE.md §2); the vision model uses the same code to decide which
    camera captures when, with which frame number, and when each captured
    frame is released from the delay queue. Both therefore agree without
    talking to each other.
*/
#ifndef SIM_SCHEDULE_H_INCLUDED
#define SIM_SCHEDULE_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>
#include "sim_params.h"
#include "sim_rng.h"

/* Number of uniforms the calibration draw takes per camera (vision.md §3.1):
   free fraction, offset angle, orientation sign, 3 bases x 3 waves x
   (direction angle, phase). */
#define SIM_CALIB_UNIFORMS_PER_CAMERA 21

typedef struct {
    int count;
    sim_camera_cfg_t cams[SIM_MAX_CAMERAS];
} sim_rig_t;

/* Everything the schedule reads, filled at a service's edge from the
   configuration (sim_schedule_def_from_config in sim_schedule_config.h). */
typedef struct {
    sim_rig_t rig;     /* the cameras in force */
    double frame_rate; /* Hz per camera; <= 0 means 60 */
    sim_camera_phase_t camera_phase;
    int phase_offset_count; /* locked phase: capture offsets, s */
    double phase_offsets[SIM_MAX_PHASE_OFFSETS];
    int outage_count;
    sim_outage_cfg_t outages[SIM_MAX_OUTAGES];
    double substep;          /* s, physics substep (skip_to); <= 0 means 1 ms */
    uint64_t seed;           /* with rig_generation, keys the calibration draw */
    uint32_t rig_generation; /* bumped when the rig is replaced at runtime */
    /* capture jitter (docs/vision.md): all 0 keeps the instants on the grid */
    double capture_jitter;        /* s, normal per instant, clamped to +-0.15 T */
    double capture_late_rate;     /* chance an instant comes late */
    double capture_late_fraction; /* by this many periods, clamped to 0..0.5 */
} sim_schedule_def_t;

/* Fill every field with the configuration's documented default: the
   division A rig of two cameras, 73.3 Hz, locked phase without offsets,
   no outages, 1 ms substep, seed 0, generation 0, the realistic capture
   jitter (0.14 ms, no late frames). */
void sim_schedule_def_default (sim_schedule_def_t *def);

/* Auto-placement of `count` cameras (1, 2 or 4; vision.md §2.1) at
   `height` over `field`, at x = +- x_fraction x field length. */
void sim_rig_place (sim_rig_t *out, int count, const sim_field_t *field, double height, double x_fraction);

/* Capture period in ns: max(1, round(1e9 * (1 / frame_rate))), 60 Hz when
   frame_rate <= 0 (vision.md §2.2). */
uint64_t sim_schedule_period_ns (double frame_rate);

/* The release delay of a capture taken now: round(vision_delay * 1e9) ns,
   0 for a negative or non-finite delay (vision.md §7). Physics and vision
   both call this so their queues agree. */
uint64_t sim_schedule_delay_ns (double vision_delay);

/* Seed the keyed `calibration` generator of a rig generation
   (ARCHITECTURE.md §4): keyed by (seed, rig_generation). The vision model
   draws the whole static calibration state from it (vision.md §3.1). */
void sim_schedule_calibration_rng (uint64_t seed, uint32_t rig_generation, sim_rng_t *rng);

/* Capture offset of camera `index` in ns, in [0, period): locked phase
   offsets reduced modulo the period, or the free-running fraction (uniform
   number 21*index of the calibration draw) times the period. */
uint64_t sim_schedule_offset_ns (const sim_schedule_def_t *def, int index);

/* True when a capture at sim time t_ns falls in a scripted outage
   (vision.md §6: start <= t < start + duration, duration > 0). */
bool sim_schedule_in_outage (const sim_schedule_def_t *def, uint64_t t_ns);

typedef struct sim_schedule_t sim_schedule_t;

/* A schedule for `def` (copied), started at sim time 0. Returns NULL on
   allocation failure. The caller owns it. */
sim_schedule_t *sim_schedule_new (const sim_schedule_def_t *def);

/* Free the schedule and null *self_p; safe on NULL and twice. */
void sim_schedule_destroy (sim_schedule_t **self_p);

/* Smallest sim time at which physics must publish a snapshot: the next
   capture instant of any camera or the due time of the oldest queued
   release; UINT64_MAX when there is nothing (an empty rig and an empty
   queue). Physics publishes at the first substep end >= this value. */
uint64_t sim_schedule_next_due (const sim_schedule_t *self);

/* Smallest sim time at which a queued or future capture is released: the
   oldest queued release, or the next capture instant plus delay_ns. Only
   a release is seen outside (a capture waits in the delay queue), so a
   free-running clock need not wake up before this; the snapshots of the
   captures on the way are still taken at their own instants. */
uint64_t sim_schedule_next_release (const sim_schedule_t *self, uint64_t delay_ns);

/* Advance to world time t_ns (the end of a substep; call for every t at
   which a snapshot exists, in increasing order; a t past several instants
   handles them all). Sets *capture_mask (bit i = camera index i captures at
   t and is not in an outage) and, when frame_numbers is not NULL,
   frame_numbers[i] for every camera whose instant came (including
   suppressed ones): the number of the latest instant up to t, counting
   the instants passed before t's own substep as frames too (a consumer
   that missed snapshots numbers as one that saw them all); queues each
   emitted capture for
   release at t + delay_ns (FIFO, vision.md §7); returns how many queued
   captures are released at t, oldest first. A time <= the start of the rig
   (0, or the time of the last rig reset) captures nothing. */
int sim_schedule_advance (sim_schedule_t *self, uint64_t t_ns, uint64_t delay_ns, uint32_t *capture_mask,
                          uint32_t frame_numbers[SIM_MAX_CAMERAS]);

/* True when the definition moves capture instants off the grid
   offset_i + k*T (capture_jitter or capture_late_rate above 0). */
bool sim_schedule_def_jittered (const sim_schedule_def_t *def);

/* Capture instant k of camera `index` in ns: offset_i + k*T plus, when
   jittered, a normal deviation of capture_jitter clamped to +-0.15 T and,
   with chance capture_late_rate, capture_late_fraction * T more; drawn
   from the keyed `capture_jitter` generator of (seed, rig_generation,
   index, k), so physics and vision agree without a message. Instants of
   one camera strictly increase with k. */
uint64_t sim_schedule_instant_ns (const sim_schedule_def_t *def, int index, uint64_t k);

/* The true instant of camera i's capture at the last advance that
   captured it (the advance's t is the first substep end at or after it),
   and of the capture before that one (0 when there was none). */
uint64_t sim_schedule_capture_ns (const sim_schedule_t *self, int index);
uint64_t sim_schedule_previous_capture_ns (const sim_schedule_t *self, int index);

/* Cameras whose capture at the last advance was suppressed by an outage
   (their frame numbers still advanced). */
uint32_t sim_schedule_suppressed_mask (const sim_schedule_t *self);

/* Was camera i's instant `back` instants before the one its last capture
   took (back >= 1: an instant a consumer that missed snapshots passed
   unseen) inside a scripted outage at the substep end that would have
   captured it? Then a consumer that saw every snapshot had it
   suppressed. */
bool sim_schedule_missed_in_outage (sim_schedule_t *self, int index, uint32_t back);

/* Rebuild for a runtime rig replacement at sim time t_ns (vision.md §2.1):
   frame numbers restart at 0, each camera captures at the first advance
   after t_ns and then on its grid offset_i + k*T; the release queue is
   kept. */
void sim_schedule_reset_rig (sim_schedule_t *self, const sim_schedule_def_t *def, uint64_t t_ns);

/* Take def's capture jitter (capture_jitter, capture_late_rate,
   capture_late_fraction; nothing else of it) from the next instant of
   each camera on: frame numbers, captures taken and the queue stay. On a
   schedule not yet advanced it is the schedule sim_schedule_new(def)
   makes; later, a next instant the new jitter moves before the time
   already reached is captured at the next advance. Physics and vision
   call it at the same point of the timeline (a realism change), so they
   still agree. */
void sim_schedule_set_jitter (sim_schedule_t *self, const sim_schedule_def_t *def);

/* Position a freshly made schedule as if it had been advanced at every
   substep end before t_ns (substep from the def): used by a restarted consumer
   so its frame numbers continue where the old one's were (ARCHITECTURE.md
   §3). Captures whose release would still be pending are not re-queued. */
void sim_schedule_skip_to (sim_schedule_t *self, uint64_t t_ns);

/* Number of cameras in the schedule's rig. */
int sim_schedule_camera_count (const sim_schedule_t *self);

/* Number of captures waiting in the release queue. */
int sim_schedule_queued (const sim_schedule_t *self);

#endif
