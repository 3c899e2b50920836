/*  fuzz_detection.c - libFuzzer harness: bytes as an SSL_WrapperPacket
    for libsslsim's detection decoder (embed/sslsim_decode.c), which a
    program can hand any bytes (sslsim_detection_decode). Checks: the
    fast reader and protobuf-c's unpack (sslsim_detection_decode_general)
    give the same status and, where they accept, the same detection field
    by field, bit for bit; where they accept, the observer's reading
    (sslsim_detection_read_detection, geometry skipped) gives that
    detection too. */
#include <stdlib.h>
#include <string.h>

#include "embed/sslsim.h"
#include "embed/sslsim_internal.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static bool
s_same (const void *a, const void *b, size_t n)
{
    return memcmp (a, b, n) == 0;
}

/* The detection's fields (not its padding), every one bit for bit; the
   entries past the counts only where both were cleared (`tails`). */
static bool
s_equal (const sslsim_detection_t *a, const sslsim_detection_t *b, bool tails)
{
    if (a->camera_id != b->camera_id || a->frame_number != b->frame_number || a->ball_count != b->ball_count
        || a->robot_count != b->robot_count || !s_same (&a->t_capture, &b->t_capture, sizeof a->t_capture)
        || !s_same (&a->t_sent, &b->t_sent, sizeof a->t_sent))
        return false;
    int nb = tails ? SSLSIM_MAX_DET_BALLS : a->ball_count,
        nr = tails ? SSLSIM_MAX_DET_ROBOTS : a->robot_count;
    for (int i = 0; i < nb; i++) {
        const sslsim_det_ball_t *x = &a->balls[i], *y = &b->balls[i];
        if (!s_same (&x->x, &y->x, sizeof x->x) || !s_same (&x->y, &y->y, sizeof x->y)
            || !s_same (&x->z, &y->z, sizeof x->z)
            || !s_same (&x->confidence, &y->confidence, sizeof x->confidence)
            || !s_same (&x->area, &y->area, sizeof x->area))
            return false;
    }
    for (int i = 0; i < nr; i++) {
        const sslsim_det_robot_t *x = &a->robots[i], *y = &b->robots[i];
        if (x->team != y->team || x->id != y->id || !s_same (&x->x, &y->x, sizeof x->x)
            || !s_same (&x->y, &y->y, sizeof x->y)
            || !s_same (&x->orientation, &y->orientation, sizeof x->orientation)
            || !s_same (&x->confidence, &y->confidence, sizeof x->confidence))
            return false;
    }
    return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static sslsim_detection_t fast, general, observer;
    memset (&fast, 0xa5, sizeof fast); /* the decoder must write every field it promises */
    sslsim_status_t a = sslsim_detection_decode (data, size, &fast);
    sslsim_status_t b = sslsim_detection_decode_general (data, size, &general);
    if (a != b || (a == SSLSIM_OK && !s_equal (&fast, &general, true)))
        abort ();
    if (a == SSLSIM_OK) {
        memset (&observer, 0x5a, sizeof observer);
        if (sslsim_detection_read_detection (data, size, &observer) != SSLSIM_OK
            || !s_equal (&observer, &fast, false))
            abort ();
    }
    return 0;
}
