/*  test_sslsim_decode.c - embed/sslsim_decode.c: the fast reader gives
    what protobuf-c's unpack gives, byte for byte, on every frame of
    driven worlds with the realistic and a noisy-venue realism (noise,
    dropouts, false and ghost balls, disagreeing cameras, geometry), and on
    those frames cut short or with bytes changed: the same status, and
    the same detections whenever both accept. The observer's reading
    (sslsim_detection_read_detection, geometry skipped) gives the same
    detections wherever the checking reader accepts.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "embed/sslsim.h"
#include "embed/sslsim_internal.h"
#include "common/base/sim_rng.h"
#include "ssl_vision_wrapper.pb-c.h"

#define TD_STEPS 400

/* A venue of the kind configs/realism/noisy-venue.ini sketches, louder:
   many false balls, dropouts, disagreeing cameras. */
static const char s_noisy[] = "[realism]\n"
                              "dribbler_ball_detections = 0.5\n"
                              "missing_ball_detections = 0.1\n"
                              "missing_robot_detections = 0.05\n"
                              "object_position_offset = 0.03\n"
                              "calibration_warp_stddev = 0.02\n";

static sslsim_world_t *
s_world (const char *ini, uint64_t seed)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    config.ini = ini;
    config.has_seed = 1;
    config.seed = seed;
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    return w;
}

/* Both decoders on bytes; asserts they agree. Returns the status. */
static sslsim_status_t
s_agree (const uint8_t *bytes, size_t len, sslsim_detection_t *fast, sslsim_detection_t *general)
{
    memset (fast, 0xa5, sizeof *fast); /* the decoder must write every byte it promises */
    sslsim_status_t a = sslsim_detection_decode (bytes, len, fast);
    sslsim_status_t b = sslsim_detection_decode_general (bytes, len, general);
    cr_assert_eq (a, b, "fast %d, protobuf-c %d on %zu bytes", a, b, len);
    if (a == SSLSIM_OK)
        cr_assert (memcmp (fast, general, sizeof *fast) == 0, "the decoders disagree on %zu bytes", len);
    /* the observer's reading: what the checking reader read, detection
       entries past the counts aside (it does not clear them) */
    if (a == SSLSIM_OK) {
        memcpy (general, fast, sizeof *general);
        cr_assert_eq (sslsim_detection_read_detection (bytes, len, general), SSLSIM_OK, "on %zu bytes", len);
        cr_assert (memcmp (general, fast, sizeof *fast) == 0, "the observer's reading differs on %zu bytes",
                   len);
    }
    return a;
}

/* Whether the wrapper carries geometry (protobuf-c's reading). */
static bool
s_has_geometry (const uint8_t *bytes, size_t len)
{
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, len, bytes);
    bool yes = w && w->geometry;
    if (w)
        ssl__wrapper_packet__free_unpacked (w, NULL);
    return yes;
}

static void
s_drive (sslsim_world_t *w, int step)
{
    sslsim_robot_command_t c[22];
    int n = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id < 11; id++)
            c[n++] = (sslsim_robot_command_t) { team,
                                                id,
                                                1.5 * sin (step * 0.04 + id),
                                                0.3,
                                                sin (step * 0.05 - id),
                                                step % 25 == id ? 5.0 : 0.0,
                                                0.0,
                                                id == 3 ? 500.0 : 0.0 };
    cr_assert_geq (sslsim_world_robot_commands (w, c, n), 0);
    cr_assert_eq (sslsim_world_step (w, 0.016), SSLSIM_OK);
}

Test (sslsim_decode, the_fast_reader_gives_what_protobuf_c_gives_on_every_frame)
{
    const char *configs[] = { NULL /* the realistic defaults */, s_noisy };
    sslsim_detection_t *fast = malloc (sizeof *fast), *general = malloc (sizeof *general);
    int frames = 0, balls_seen_many = 0, geometry = 0;
    for (int c = 0; c < 2; c++) {
        sslsim_world_t *w = s_world (configs[c], 11 + (uint64_t) c);
        for (int step = 0; step < TD_STEPS; step++) {
            s_drive (w, step);
            for (int i = 0; i < sslsim_world_vision_count (w); i++) {
                const uint8_t *bytes;
                size_t len;
                cr_assert_eq (sslsim_world_vision (w, i, &bytes, &len), SSLSIM_OK);
                cr_assert_eq (s_agree (bytes, len, fast, general), SSLSIM_OK);
                frames++;
                balls_seen_many += fast->ball_count > 1;
                geometry += s_has_geometry (bytes, len);
            }
        }
        sslsim_world_free (w);
    }
    cr_assert_gt (frames, 1000, "%d frames", frames);
    cr_assert_gt (balls_seen_many, 0,
                  "no frame with a false or ghost ball: the realism did not reach the test");
    cr_assert_gt (geometry, 0, "no frame with geometry: the skip of the observer's reading went untried");
    free (fast);
    free (general);
}

Test (sslsim_decode, cut_and_changed_frames_get_the_same_answer_from_both)
{
    sslsim_detection_t *fast = malloc (sizeof *fast), *general = malloc (sizeof *general);
    sslsim_world_t *w = s_world (s_noisy, 3);
    sim_rng_t rng;
    sim_rng_seed_keyed (&rng, 42, 1, 0, 0);
    uint8_t copy[16384];
    int accepted = 0, refused = 0;
    for (int step = 0; step < 120; step++) {
        s_drive (w, step);
        for (int i = 0; i < sslsim_world_vision_count (w); i++) {
            const uint8_t *bytes;
            size_t len;
            cr_assert_eq (sslsim_world_vision (w, i, &bytes, &len), SSLSIM_OK);
            if (len > sizeof copy)
                continue;
            for (size_t cut = 0; cut < len; cut += 1 + len / 40)
                (s_agree (bytes, cut, fast, general) == SSLSIM_OK ? accepted++ : refused++);
            for (int k = 0; k < 40; k++) {
                memcpy (copy, bytes, len);
                size_t at = (size_t) (sim_rng_next (&rng) % len);
                copy[at] ^= (uint8_t) (1u << (sim_rng_next (&rng) % 8));
                (s_agree (copy, len, fast, general) == SSLSIM_OK ? accepted++ : refused++);
            }
        }
    }
    cr_assert_gt (accepted, 100);
    cr_assert_gt (refused, 100);
    sslsim_world_free (w);
    free (fast);
    free (general);
}

/* Keys and lengths of more varint bytes than protobuf-c takes (five):
   the fast reader leaves them to it, so both refuse (fuzz_detection found
   the key; tests/fuzz/corpus/detection/key-six-bytes). */
Test (sslsim_decode, keys_and_lengths_past_five_bytes_are_refused_by_both)
{
    sslsim_detection_t *fast = malloc (sizeof *fast), *general = malloc (sizeof *general);
    /* field 0x0f1ff3850 (fixed64) in a six-byte key, then its eight bytes */
    static const uint8_t key[] = { 0x81, 0x85, 0xe7, 0xff, 0xf8, 0x00, 0x2a,
                                   0x18, 0x00, 0x18, 0x18, 0xe2, 0x18, 0x04 };
    /* an unknown field 9 (length-delimited) whose length 1 takes six bytes */
    static const uint8_t len[] = { 0x4a, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00 };
    cr_expect_eq (s_agree (key, sizeof key, fast, general), SSLSIM_EDECODE);
    cr_expect_eq (s_agree (len, sizeof len, fast, general), SSLSIM_EDECODE);
    free (fast);
    free (general);
}
