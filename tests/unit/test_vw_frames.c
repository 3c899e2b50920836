/*  test_vw_frames.c - services/viewer/vw_frames.c: the vision packets kept
    raw give each camera's newest detection, decoded on demand, within the
    ring of the newest VW_FRAMES_RAW, and forgotten when asked. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "services/viewer/vw_frames.h"
#include "ssl_vision_wrapper.pb-c.h"

typedef struct {
    uint8_t *data;
    size_t len;
} s_bytes_t;

/* A wrapper packet of camera `camera` with frame number `number` and
   `balls` balls, packed (the caller frees data). */
static s_bytes_t
s_packet (uint32_t camera, uint32_t number, size_t balls)
{
    SSLDetectionBall ball = SSL__DETECTION_BALL__INIT;
    ball.confidence = 1.0f;
    ball.x = 100.0f;
    ball.y = -200.0f;
    SSLDetectionBall **list = calloc (balls ? balls : 1, sizeof *list);
    cr_assert_not_null (list);
    for (size_t i = 0; i < balls; i++)
        list[i] = &ball;
    SSLDetectionFrame det = SSL__DETECTION_FRAME__INIT;
    det.frame_number = number;
    det.camera_id = camera;
    det.t_capture = 1.0;
    det.t_sent = 1.0;
    det.n_balls = balls;
    det.balls = list;
    SSLWrapperPacket w = SSL__WRAPPER_PACKET__INIT;
    w.detection = &det;
    s_bytes_t b = { .len = ssl__wrapper_packet__get_packed_size (&w) };
    b.data = malloc (b.len);
    cr_assert_not_null (b.data);
    ssl__wrapper_packet__pack (&w, b.data);
    free (list);
    return b;
}

static void
s_keep (vw_frames_t *f, uint32_t camera, uint32_t number)
{
    s_bytes_t b = s_packet (camera, number, 1);
    cr_assert_eq (vw_frames_keep (f, b.data, b.len), 0);
    free (b.data);
}

/* frame_number of camera `camera`'s newest detection, or -1 for none */
static long
s_number (const void *frames[SIM_MAX_CAMERAS], int camera)
{
    const SSLWrapperPacket *w = frames[camera];
    if (!w)
        return -1;
    cr_assert_not_null (w->detection);
    cr_assert_eq (w->detection->camera_id, (uint32_t) camera);
    return (long) w->detection->frame_number;
}

Test (vw_frames, nothing_kept_gives_no_camera_a_detection)
{
    vw_frames_t *f = vw_frames_new ();
    cr_assert_not_null (f);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 4, frames);
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        cr_assert_null (frames[i]);
    vw_frames_destroy (&f);
    cr_assert_null (f);
    vw_frames_destroy (&f);
}

Test (vw_frames, each_camera_gets_its_newest_packet)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 0, 1);
    s_keep (f, 1, 7);
    s_keep (f, 0, 2);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), 2);
    cr_assert_eq (s_number (frames, 1), 7);
    cr_assert_eq (s_number (frames, 2), -1);
    vw_frames_destroy (&f);
}

Test (vw_frames, a_camera_keeps_its_detection_while_only_others_send)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 0, 1);
    s_keep (f, 1, 1);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 2, frames);
    s_keep (f, 0, 2);
    s_keep (f, 0, 3);
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), 3);
    cr_assert_eq (s_number (frames, 1), 1);
    vw_frames_destroy (&f);
}

Test (vw_frames, decoding_stops_once_every_camera_of_the_rig_has_one)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 1, 5);
    s_keep (f, 0, 9);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 1, frames); /* a one-camera rig: the newest packet is enough */
    cr_assert_eq (s_number (frames, 0), 9);
    cr_assert_eq (s_number (frames, 1), -1);
    vw_frames_destroy (&f);
}

Test (vw_frames, only_the_newest_packets_are_kept)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 1, 1);
    for (uint32_t k = 0; k < VW_FRAMES_RAW; k++)
        s_keep (f, 0, 100 + k);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), 100 + VW_FRAMES_RAW - 1);
    cr_assert_eq (s_number (frames, 1), -1, "camera 1's packet fell out of the ring");
    vw_frames_destroy (&f);
}

Test (vw_frames, what_is_not_a_detection_of_a_known_camera_is_skipped)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 0, 4);
    s_keep (f, SIM_MAX_CAMERAS, 5); /* no such camera */
    static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff };
    cr_assert_eq (vw_frames_keep (f, junk, sizeof junk), 0);
    SSLWrapperPacket empty = SSL__WRAPPER_PACKET__INIT; /* geometry only, or nothing */
    uint8_t none[4];
    size_t n = ssl__wrapper_packet__pack (&empty, none);
    cr_assert_eq (vw_frames_keep (f, none, n), 0);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), 4);
    for (int i = 1; i < SIM_MAX_CAMERAS; i++)
        cr_assert_null (frames[i]);
    vw_frames_destroy (&f);
}

Test (vw_frames, forget_drops_the_detections_and_the_packets_kept)
{
    vw_frames_t *f = vw_frames_new ();
    s_keep (f, 0, 1);
    s_keep (f, 1, 1);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 2, frames);
    s_keep (f, 1, 2); /* kept but not looked at: older than the next world */
    vw_frames_forget (f);
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), -1);
    cr_assert_eq (s_number (frames, 1), -1);
    s_keep (f, 1, 3);
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 1), 3);
    vw_frames_destroy (&f);
}

Test (vw_frames, a_large_packet_decodes_whole_and_a_huge_one_is_not_drawn)
{
    vw_frames_t *f = vw_frames_new ();
    /* 3000 balls need a block larger than the usual one: it grows */
    s_bytes_t large = s_packet (0, 1, 3000);
    cr_assert_gt (large.len * 4, (size_t) VW_FRAMES_ARENA_MIN);
    cr_assert_eq (vw_frames_keep (f, large.data, large.len), 0);
    free (large.data);
    const void *frames[SIM_MAX_CAMERAS];
    vw_frames_newest (f, 1, frames);
    cr_assert_eq (s_number (frames, 0), 1);
    cr_assert_eq (((const SSLWrapperPacket *) frames[0])->detection->n_balls, 3000);
    /* one that needs more than VW_FRAMES_ARENA_MAX is left out */
    s_bytes_t huge = s_packet (1, 2, VW_FRAMES_ARENA_MAX / 4 / 16);
    cr_assert_gt (huge.len * 4, (size_t) VW_FRAMES_ARENA_MAX);
    cr_assert_eq (vw_frames_keep (f, huge.data, huge.len), 0);
    free (huge.data);
    s_keep (f, 0, 3); /* and the block goes back to the usual size */
    vw_frames_newest (f, 2, frames);
    cr_assert_eq (s_number (frames, 0), 3);
    cr_assert_eq (s_number (frames, 1), -1);
    vw_frames_destroy (&f);
}
