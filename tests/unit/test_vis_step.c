/*  test_vis_step.c - vision's part of a step (engine/world/vis_step.c):
    the packets are those of advancing the model and encoding each released
    frame with vis_codec_wrapper, packed one after the other; a buffer too
    short loses frames and counts them, and the model advances all the
    same.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "engine/world/vis_codec.h"
#include "engine/world/vis_step.h"
#include "test_vis_support.h"
#include "tests/support/sim_from_config.h"

#define MS 1000000ull

static uint8_t s_buf[VIS_STEP_BYTES];

static sim_snapshot_t
s_scene (uint64_t t_ns)
{
    sim_snapshot_t s;
    memset (&s, 0, sizeof s);
    s.time_ns = t_ns;
    s.ball = (sim_ball_state_t) { .x = 1.0 + 1e-9 * (double) t_ns, .y = 0.5, .z = 0.0215 };
    vis_test_robot (&s, SIM_TEAM_BLUE, 3, 0.2, -2.0, -1.0);
    vis_test_robot (&s, SIM_TEAM_YELLOW, 1, -4.0, 1.0, 2.0);
    return s;
}

/* What vis_step_encode promises, done by hand on a twin model: advance,
   encode each released frame (at most VIS_STEP_MAX_RELEASED) with
   VIS_STEP_PACKET_MAX of room, leave out the empty ones. Checks *out
   against it. */
static void
s_expect_as_by_hand (vis_model_t *twin, const sim_snapshot_t *snap, const uint8_t *buf,
                     const vis_step_out_t *out)
{
    int released = vis_model_advance (twin, snap);
    cr_assert_eq (out->released, released, "at %llu ns", (unsigned long long) snap->time_ns);
    int n = released < VIS_STEP_MAX_RELEASED ? released : VIS_STEP_MAX_RELEASED;
    int k = 0;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        static uint8_t want[VIS_STEP_PACKET_MAX];
        const vis_frame_t *f = vis_model_released (twin, i);
        size_t len = vis_codec_wrapper (twin, f, want, sizeof want);
        if (len == 0)
            continue;
        cr_assert_lt (k, out->count);
        const vis_step_packet_t *p = &out->packet[k++];
        cr_assert_eq (p->off, used, "packets follow one another");
        cr_assert_eq (p->len, len);
        cr_assert_eq (memcmp (buf + p->off, want, len), 0, "packet %d at %llu ns", i,
                      (unsigned long long) snap->time_ns);
        cr_assert_eq (p->frame->camera_id, f->camera_id);
        cr_assert_eq (p->frame->frame_number, f->frame_number);
        used += len;
    }
    cr_assert_eq (out->count, k);
    cr_assert_eq (out->used, used);
    cr_assert_eq (out->lost, 0);
}

/* Two models of the `realism` preset's defaults: one for vis_step, one
   for the twin done by hand. */
static void
s_models (const char *realism, vis_model_t **model, vis_model_t **twin)
{
    sim_config_t cfg = vis_test_cfg (realism);
    *model = sim_fc_model_new (&cfg);
    *twin = sim_fc_model_new (&cfg);
    cr_assert (*model && *twin);
}

/* The scene at `t_ms` through vis_step_encode with the first `cap` bytes
   of s_buf. Returns the snapshot. */
static sim_snapshot_t
s_step (vis_model_t *model, uint64_t t_ms, size_t cap, vis_step_out_t *out)
{
    sim_snapshot_t snap = s_scene (t_ms * MS);
    int rc = vis_step_encode (model, &snap, cap ? s_buf : NULL, cap, out);
    cr_assert_eq (rc, out->released);
    return snap;
}

Test (vis_step, packets_are_advance_then_encode_of_every_released_frame)
{
    vis_model_t *model, *twin;
    s_models ("realistic", &model, &twin);
    int packets = 0, geometry = 0;
    for (uint64_t t = 1; t <= 2000; t++) {
        vis_step_out_t out;
        sim_snapshot_t snap = s_step (model, t, sizeof s_buf, &out);
        s_expect_as_by_hand (twin, &snap, s_buf, &out);
        packets += out.count;
        for (int i = 0; i < out.count; i++)
            geometry += out.packet[i].frame->geometry;
    }
    /* two cameras at ~73 Hz for 2 s, geometry every ~73 frames */
    cr_expect (packets > 250 && packets < 320, "%d packets", packets);
    cr_expect_geq (geometry, 2);
    vis_model_destroy (&model);
    vis_model_destroy (&twin);
}

Test (vis_step, a_short_buffer_loses_frames_counts_them_and_still_advances)
{
    vis_model_t *model, *twin;
    s_models ("none", &model, &twin);
    int lost = 0, kept = 0;
    for (uint64_t t = 1; t <= 1000; t++) {
        vis_step_out_t out;
        size_t cap = t < 500 ? VIS_STEP_PACKET_MAX : 0; /* one packet's room, then none */
        sim_snapshot_t snap = s_step (model, t, cap, &out);
        vis_model_advance (twin, &snap);
        cr_assert_geq (out.released, 0);
        cr_assert_eq (out.count + out.lost, out.released, "every released frame encodes here");
        cr_assert_leq (out.count, cap ? 1 : 0);
        cr_assert_leq (out.used, cap);
        lost += out.lost;
        kept += out.count;
    }
    cr_expect_gt (kept, 0);
    cr_expect_gt (lost, 70, "the second half alone loses ~73 frames (%d lost)", lost);
    /* the model went on as if every packet had been made */
    vis_step_out_t out;
    sim_snapshot_t snap = s_step (model, 1001, sizeof s_buf, &out);
    s_expect_as_by_hand (twin, &snap, s_buf, &out);
    vis_model_destroy (&model);
    vis_model_destroy (&twin);
}
