/*  test_vis_determinism.c - the same seed gives the same bytes, another
    seed other bytes, and a vision process that starts late (a restart)
    emits exactly what the old one would have (ARCHITECTURE.md §3-§4).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/config/config.h"
#include "engine/world/vis_codec.h"
#include "tests/support/sim_from_config.h"
#include "common/base/sim_hash.h"

#define MS 1000000ull

static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    double t = (double) t_ns * 1e-9;
    s.ball = (sim_ball_state_t) { .x = 2 * sin (t), .y = 0.5, .z = 0.0215 };
    for (int i = 0; i < 22; i++)
        s.robots[s.robot_count++] = (sim_robot_state_t) {
            .team = i / 11,
            .id = i % 11,
            .x = -5 + 0.45 * i + 0.1 * sin (t + i),
            .y = (i % 3 - 1) * 1.5,
            .orientation = 0.3 * i,
            .radius = 0.09,
            .height = 0.15,
        };
    return s;
}

/* FNV-1a over every released packet of `seconds` of the scene. */
static uint64_t
s_hash_run (const sim_config_t *cfg, double seconds)
{
    vis_model_t *m = sim_fc_model_new (cfg);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    uint64_t h = SIM_FNV1A_BASIS;
    for (uint64_t t = MS; t <= (uint64_t) (seconds * 1e9); t += MS) {
        sim_snapshot_t s = s_scene (t);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            size_t len = vis_codec_wrapper (m, vis_model_released (m, i), buf, sizeof buf);
            cr_assert (len > 0);
            h = sim_fnv1a (h, buf, len);
        }
    }
    vis_model_destroy (&m);
    return h;
}

Test (vis_determinism, same_seed_same_bytes)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.seed = 5;
    uint64_t a = s_hash_run (&cfg, 3);
    uint64_t b = s_hash_run (&cfg, 3);
    cr_assert_eq (a, b);
    cfg.sim.seed = 6;
    cr_assert_neq (s_hash_run (&cfg, 3), a, "another seed differs");
    cfg.sim.seed = 5;
    cfg.rig_generation = 1;
    cr_assert_neq (s_hash_run (&cfg, 3), a, "another rig generation draws another calibration");
}

static void
s_late_start (bool explicit_resume)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.seed = 77;
    vis_model_t *a = sim_fc_model_new (&cfg);
    vis_model_t *b = NULL;
    static uint8_t ba[VIS_CODEC_MAX_PACKET], bb[VIS_CODEC_MAX_PACKET];
    uint64_t join = 2000 * MS;
    int compared = 0;
    for (uint64_t t = MS; t <= 4000 * MS; t += MS) {
        sim_snapshot_t s = s_scene (t);
        int na = vis_model_advance (a, &s);
        if (t == join) {
            b = sim_fc_model_new (&cfg);
            if (explicit_resume)
                vis_model_resume (b, t);
        }
        if (!b)
            continue;
        int nb = vis_model_advance (b, &s);
        /* b holds no frames captured before it joined */
        int skip = 0;
        for (int i = 0; i < na; i++)
            if (vis_model_released (a, i)->capture_ns < join)
                skip++;
        cr_assert_eq (na - skip, nb);
        for (int i = 0; i < nb; i++) {
            vis_frame_t fa = *vis_model_released (a, skip + i);
            vis_frame_t fb = *vis_model_released (b, i);
            cr_assert_eq (fa.frame_number, fb.frame_number);
            /* the restarted one re-sends geometry at once; compare the rest */
            fa.geometry = fb.geometry = false;
            size_t la = vis_codec_wrapper (a, &fa, ba, sizeof ba);
            size_t lb = vis_codec_wrapper (b, &fb, bb, sizeof bb);
            cr_assert_eq (la, lb);
            cr_assert (memcmp (ba, bb, la) == 0, "frame %u camera %d", fa.frame_number, fa.camera_index);
            compared++;
        }
    }
    cr_assert (compared > 250);
    vis_model_destroy (&a);
    vis_model_destroy (&b);
}

Test (vis_determinism, late_start_emits_the_same_bytes)
{
    s_late_start (false); /* the first advance catches up by itself */
    s_late_start (true);
}

Test (vis_determinism, captures_keyed_not_running)
{
    /* capture k of camera c draws the same numbers whenever it is computed */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    vis_model_t *m = sim_fc_model_new (&cfg);
    sim_snapshot_t s = s_scene (MS);
    vis_frame_t f1, f2, other;
    vis_model_capture (m, 1, 17, &s, &f1);
    vis_model_capture (m, 1, 18, &s, &other);
    vis_model_capture (m, 0, 17, &s, &other);
    vis_model_capture (m, 1, 17, &s, &f2);
    static uint8_t b1[VIS_CODEC_MAX_PACKET], b2[VIS_CODEC_MAX_PACKET];
    size_t l1 = vis_codec_wrapper (m, &f1, b1, sizeof b1);
    size_t l2 = vis_codec_wrapper (m, &f2, b2, sizeof b2);
    cr_assert_eq (l1, l2);
    cr_assert (memcmp (b1, b2, l1) == 0);
    vis_model_destroy (&m);
}

/* The scene with the ball swinging across the middle four times a second:
   each camera sees it for runs of a few frames and misses it for runs of
   a few more, so the model's ball-loss memo is asked after gaps. */
static sim_snapshot_t
s_scene_swinging (uint64_t t_ns)
{
    sim_snapshot_t s = s_scene (t_ns);
    double t = (double) t_ns * 1e-9;
    s.ball.x = 0.8 * sin (2 * M_PI * 2 * t) + 0.3 * sin (2 * M_PI * 0.13 * t);
    return s;
}

/* Run `cfg` for 8 s with a new seed every second, comparing every frame
   the schedule released with a fresh capture of the same frame; returns
   the frames compared, *lost those without a ball. */
static int
s_scheduled_against_fresh (sim_config_t *cfg, sim_snapshot_t (*scene) (uint64_t), int *lost)
{
    vis_model_t *m = sim_fc_model_new (cfg);
    static uint8_t b1[VIS_CODEC_MAX_PACKET], b2[VIS_CODEC_MAX_PACKET];
    uint64_t change = 0;
    int compared = 0;
    *lost = 0;
    for (uint64_t t = MS; t <= 8000 * MS; t += MS) {
        if (t % (1000 * MS) == 0) {
            change = t;
            cfg->sim.seed++;
            vis_model_def_t def;
            vis_model_def_from_config (&def, cfg);
            vis_model_set_def (m, &def);
        }
        sim_snapshot_t s = scene (t);
        int n = vis_model_advance (m, &s);
        for (int i = 0; i < n; i++) {
            vis_frame_t f = *vis_model_released (m, i);
            if (f.capture_ns < change && f.due_ns >= change)
                continue; /* drawn with the old seed, encoded with the new one */
            sim_snapshot_t at = scene (f.capture_ns);
            vis_frame_t fresh;
            vis_model_capture (m, f.camera_index, f.frame_number, &at, &fresh);
            fresh.capture_ns = f.capture_ns;
            fresh.due_ns = f.due_ns;
            fresh.geometry = f.geometry;
            size_t l1 = vis_codec_wrapper (m, &f, b1, sizeof b1);
            size_t l2 = vis_codec_wrapper (m, &fresh, b2, sizeof b2);
            cr_assert_eq (l1, l2, "frame %u camera %d", f.frame_number, f.camera_index);
            cr_assert (memcmp (b1, b2, l1) == 0, "frame %u camera %d", f.frame_number, f.camera_index);
            *lost += f.ball_count == 0;
            compared++;
        }
    }
    vis_model_destroy (&m);
    return compared;
}

Test (vis_determinism, scheduled_captures_draw_what_fresh_ones_do)
{
    /* the model keeps draws one frame shares with the next (ball-loss
       bursts, processing times); a capture from the schedule must still be
       the one a fresh capture of the same frame gives, also after a new
       seed arrives at runtime (every second here, with long and frequent
       bursts, so a draw kept from the old seed would show), and when the
       ball comes back into a camera's part after a few frames or many.
       Without capture jitter both see the world at the snapshot. */
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    cr_assert (sim_config_apply_realism (&cfg, "rc26", err, sizeof err) == 0, "%s", err);
    cfg.realism.capture_jitter = 0;
    cfg.realism.capture_late_rate = 0;
    cfg.realism.ball_loss_burst_rate = 0.2;
    cfg.realism.ball_loss_burst_length = 5;
    cfg.sim.seed = 12;
    int lost;
    int compared = s_scheduled_against_fresh (&cfg, s_scene, &lost);
    cr_assert (compared > 1000, "%d frames compared", compared);
    cr_assert (lost > 50, "the bursts were exercised (%d frames without a ball)", lost);
    compared = s_scheduled_against_fresh (&cfg, s_scene_swinging, &lost);
    cr_assert (compared > 1000, "%d frames compared", compared);
    cr_assert (lost > 200, "the ball was away and the bursts exercised (%d frames without a ball)", lost);
}

/* A vision that misses snapshots (behind a realtime clock, which does not
   wait for it) and one that sees them all (a replay) number every later
   capture alike and send it with the same bytes, geometry included; only
   each camera's first capture after the gap, taken from a later
   snapshot, may differ (docs/logs.md: what never reached vision). */
static void
s_missed_snapshots (const sim_config_t *cfg)
{
    enum { S_FRAMES = 400 };
    vis_model_t *all = sim_fc_model_new (cfg);
    vis_model_t *gap = sim_fc_model_new (cfg);
    static uint8_t buf[VIS_CODEC_MAX_PACKET];
    static uint64_t sent[2][S_FRAMES], capture[2][S_FRAMES];
    /* camera 0's frame 73, which carries the geometry, falls in the gap */
    const uint64_t from = 950 * MS, to = 1080 * MS;
    bool first_after[2] = { true, true };
    int compared = 0, geometry = 0;
    for (uint64_t t = MS; t <= 5000 * MS; t += MS) {
        sim_snapshot_t s = s_scene (t);
        int n = vis_model_advance (all, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (all, i);
            cr_assert (f->camera_index < 2 && f->frame_number < S_FRAMES);
            size_t len = vis_codec_wrapper (all, f, buf, sizeof buf);
            sent[f->camera_index][f->frame_number] = sim_fnv1a (SIM_FNV1A_BASIS, buf, len);
            capture[f->camera_index][f->frame_number] = f->capture_ns;
        }
        if (t >= from && t < to)
            continue;
        n = vis_model_advance (gap, &s);
        for (int i = 0; i < n; i++) {
            const vis_frame_t *f = vis_model_released (gap, i);
            int c = f->camera_index;
            if (f->capture_ns < from)
                continue;
            if (first_after[c]) {
                first_after[c] = false;
                continue;
            }
            cr_assert_eq (f->capture_ns, capture[c][f->frame_number], "camera %d frame %u: another instant",
                          c, f->frame_number);
            size_t len = vis_codec_wrapper (gap, f, buf, sizeof buf);
            cr_assert_eq (sim_fnv1a (SIM_FNV1A_BASIS, buf, len), sent[c][f->frame_number],
                          "camera %d frame %u: other bytes", c, f->frame_number);
            geometry += f->geometry;
            compared++;
        }
    }
    cr_assert (compared > 500, "%d frames compared", compared);
    cr_assert_geq (geometry, 3, "%d frames with geometry compared", geometry);
    vis_model_destroy (&all);
    vis_model_destroy (&gap);
}

Test (vis_determinism, a_model_that_missed_snapshots_numbers_as_one_that_did_not)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_missed_snapshots (&cfg);
}

/* The same where the missed snapshots hold a scripted outage that
   suppressed camera 0's geometry frame: an outage's frames only count
   towards the next geometry, which comes right after it (a frame the
   stalled model never sees), and later geometry goes with the same
   frames as in the model that saw every snapshot. */
Test (vis_determinism, a_stall_over_an_outage_sends_geometry_with_the_same_frames)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.vision.outage_count = 1;
    cfg.vision.outages[0] = (sim_outage_cfg_t) { 0.97, 0.1 };
    s_missed_snapshots (&cfg);
}

/* The truth stream is numbered by the cameras' periods, not by the
   packets this process sent: a model that missed snapshots and one that
   first saw the world late (a restarted vision) send each truth packet
   with the number a model that saw every snapshot (a replay) gave its
   packet of that period, at the same snapshot; numbers only grow
   (docs/vision.md). Only the packets that go with frames released late
   (those queued before the gap, and the capture taken after it from a
   later snapshot) come after the replay's of their period. */
Test (vis_determinism, truth_frame_numbers_survive_a_stall_and_a_restart)
{
    enum { S_MS = 6000, S_PERIODS = 500 };
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    vis_model_t *all = sim_fc_model_new (&cfg);
    vis_model_t *gap = sim_fc_model_new (&cfg);
    vis_model_t *late = sim_fc_model_new (&cfg);
    cr_assert (all && gap && late);
    static uint64_t at[S_PERIODS]; /* the replay's packet of each period: its snapshot, ms */
    /* the gap ends 8 ms past an instant, more than half a period: the
       capture taken then lies nearer the next period's start */
    const uint64_t from = 950, to = 1086, start = 2500;
    int64_t last[2] = { -1, -1 };
    int same[2] = { 0, 0 }, later[2] = { 0, 0 }, due = 0;
    for (uint64_t ms = 1; ms <= S_MS; ms++) {
        sim_snapshot_t s = s_scene (ms * MS);
        vis_model_advance (all, &s);
        if (vis_model_truth_due (all)) {
            /* where nothing is missed, one packet a period: they count by one */
            uint32_t n = vis_model_truth_frame_number (all);
            cr_assert_eq (n, (uint32_t) due, "replay: truth frame %u", n);
            cr_assert_lt (n, S_PERIODS);
            at[due++] = ms;
        }
        for (int v = 0; v < 2; v++) {
            vis_model_t *m = v == 0 ? gap : late;
            const char *what = v ? "late" : "stalled";
            if (v == 0 ? ms >= from && ms < to : ms < start)
                continue;
            vis_model_advance (m, &s);
            if (!vis_model_truth_due (m))
                continue;
            int64_t n = vis_model_truth_frame_number (m);
            cr_assert_gt (n, last[v], "%s model: truth frame %lld after %lld", what, (long long) n,
                          (long long) last[v]);
            last[v] = n;
            cr_assert (n < due, "%s model at %llu ms: truth frame %lld, the replay has none yet", what,
                       (unsigned long long) ms, (long long) n);
            if (at[n] == ms)
                same[v]++;
            else {
                cr_assert_lt (at[n], ms, "%s model: truth frame %lld at %llu ms, the replay's at %llu ms",
                              what, (long long) n, (unsigned long long) ms, (unsigned long long) at[n]);
                later[v]++;
            }
        }
    }
    cr_log_info ("stalled: %d packets as the replay's, %d later; late start: %d as the replay's, %d later",
                 same[0], later[0], same[1], later[1]);
    cr_assert (same[0] > 300 && same[1] > 200, "%d stalled and %d late packets as the replay's", same[0],
               same[1]);
    /* the queued frames released at once (one packet) and the first
       capture after the gap */
    cr_assert_leq (later[0], 2, "%d stalled packets after the replay's", later[0]);
    cr_assert_eq (later[1], 0, "%d late-start packets after the replay's", later[1]);
    cr_assert_gt (last[1], 180, "the late model numbered from %lld, not from its instant",
                  (long long) last[1]);
    vis_model_destroy (&all);
    vis_model_destroy (&gap);
    vis_model_destroy (&late);
}
