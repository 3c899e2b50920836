/*  vis_wire.c - the detection-only SSL_WrapperPacket written directly
    (vis_wire.h). protobuf-c's pack walks each message's descriptor field
    by field; a detection wrapper is some sixty small fields, and that
    walk was the larger part of encoding a frame. The writer below puts
    down the bytes protobuf-c puts down for the same SSLWrapperPacket
    (fields in number order, proto2 required fields always, optional ones
    when set, floats and doubles as their little-endian bits, varints as
    protobuf-c writes them); test_vis_codec compares the two on real and
    edge-case frames.
*/
#include "vis_wire.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "common/base/sim_varint.h"

#define S_VARINT  0
#define S_FIXED64 1
#define S_LEN     2
#define S_FIXED32 5

/* every field number of the detection wrapper is below 16: one-byte tags */
static uint8_t *
s_put_tag (uint8_t *p, unsigned field, unsigned wire)
{
    *p++ = (uint8_t) (field << 3 | wire);
    return p;
}

/* A fixed32 or fixed64 field: the tag, then `bytes` bytes of bits,
   least significant first. */
static uint8_t *
s_put_fixed (uint8_t *p, unsigned field, unsigned wire, uint64_t bits, int bytes)
{
    p = s_put_tag (p, field, wire);
    for (int i = 0; i < bytes; i++)
        *p++ = (uint8_t) (bits >> (8 * i));
    return p;
}

static uint8_t *
s_put_float (uint8_t *p, unsigned field, float v)
{
    uint32_t bits;
    memcpy (&bits, &v, sizeof bits);
    return s_put_fixed (p, field, S_FIXED32, bits, 4);
}

static uint8_t *
s_put_double (uint8_t *p, unsigned field, double v)
{
    uint64_t bits;
    memcpy (&bits, &v, sizeof bits);
    return s_put_fixed (p, field, S_FIXED64, bits, 8);
}

static uint8_t *
s_put_uint32 (uint8_t *p, unsigned field, uint32_t v)
{
    return sim_varint_put (s_put_tag (p, field, S_VARINT), v);
}

/* An enum is an int32: a negative value goes out sign-extended to ten
   bytes, as protobuf-c writes it. */
static uint8_t *
s_put_enum (uint8_t *p, unsigned field, int32_t v)
{
    return sim_varint_put (s_put_tag (p, field, S_VARINT), (uint64_t) (int64_t) v);
}

static size_t
s_ball_size (const SSLDetectionBall *b)
{
    return 5 * 5 + (b->has_area ? 1 + sim_varint_size (b->area) : 0) + (b->has_z ? 5 : 0);
}

static uint8_t *
s_put_ball (uint8_t *p, const SSLDetectionBall *b)
{
    p = s_put_float (p, 1, b->confidence);
    if (b->has_area)
        p = s_put_uint32 (p, 2, b->area);
    p = s_put_float (p, 3, b->x);
    p = s_put_float (p, 4, b->y);
    if (b->has_z)
        p = s_put_float (p, 5, b->z);
    p = s_put_float (p, 6, b->pixel_x);
    return s_put_float (p, 7, b->pixel_y);
}

static size_t
s_robot_size (const SSLDetectionRobot *r)
{
    return 5 * 5 + (r->has_robot_id ? 1 + sim_varint_size (r->robot_id) : 0) + (r->has_orientation ? 5 : 0)
         + (r->has_height ? 5 : 0);
}

static uint8_t *
s_put_robot (uint8_t *p, const SSLDetectionRobot *r)
{
    p = s_put_float (p, 1, r->confidence);
    if (r->has_robot_id)
        p = s_put_uint32 (p, 2, r->robot_id);
    p = s_put_float (p, 3, r->x);
    p = s_put_float (p, 4, r->y);
    if (r->has_orientation)
        p = s_put_float (p, 5, r->orientation);
    p = s_put_float (p, 6, r->pixel_x);
    p = s_put_float (p, 7, r->pixel_y);
    if (r->has_height)
        p = s_put_float (p, 8, r->height);
    return p;
}

/* One repeated message field's elements: tag, length, body each. */
static size_t
s_robots_size (SSLDetectionRobot *const *r, size_t n)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++) {
        size_t one = s_robot_size (r[i]);
        size += 1 + sim_varint_size (one) + one;
    }
    return size;
}

static uint8_t *
s_put_robots (uint8_t *p, unsigned field, SSLDetectionRobot *const *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p = sim_varint_put (s_put_tag (p, field, S_LEN), s_robot_size (r[i]));
        p = s_put_robot (p, r[i]);
    }
    return p;
}

static size_t
s_frame_size (const SSLDetectionFrame *f)
{
    size_t size = 1 + sim_varint_size (f->frame_number) + 2 * 9 + (f->has_t_capture_camera ? 9 : 0) + 1
                + sim_varint_size (f->camera_id);
    for (size_t i = 0; i < f->n_balls; i++) {
        size_t one = s_ball_size (f->balls[i]);
        size += 1 + sim_varint_size (one) + one;
    }
    return size + s_robots_size (f->robots_yellow, f->n_robots_yellow)
         + s_robots_size (f->robots_blue, f->n_robots_blue);
}

size_t
vis_wire_detection (const SSLWrapperPacket *w, uint8_t *buf, size_t cap)
{
    const SSLDetectionFrame *f = w->detection;
    size_t frame = s_frame_size (f);
    size_t size = 1 + sim_varint_size (frame) + frame;
    if (w->has_source)
        size += 1 + sim_varint_size ((uint64_t) (int64_t) w->source);
    if (!buf || size > cap)
        return 0;
    uint8_t *p = sim_varint_put (s_put_tag (buf, 1, S_LEN), frame);
    p = s_put_uint32 (p, 1, f->frame_number);
    p = s_put_double (p, 2, f->t_capture);
    p = s_put_double (p, 3, f->t_sent);
    p = s_put_uint32 (p, 4, f->camera_id);
    for (size_t i = 0; i < f->n_balls; i++) {
        p = sim_varint_put (s_put_tag (p, 5, S_LEN), s_ball_size (f->balls[i]));
        p = s_put_ball (p, f->balls[i]);
    }
    p = s_put_robots (p, 6, f->robots_yellow, f->n_robots_yellow);
    p = s_put_robots (p, 7, f->robots_blue, f->n_robots_blue);
    if (f->has_t_capture_camera)
        p = s_put_double (p, 8, f->t_capture_camera);
    if (w->has_source)
        p = s_put_enum (p, 3, (int32_t) w->source);
    assert ((size_t) (p - buf) == size);
    return size;
}
