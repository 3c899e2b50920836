/*  sslsim_decode.c - a packed SSL_WrapperPacket decoded into
    sslsim_detection_t (sslsim.h, sslsim_detection_decode): the vision
    observation decodes every frame of every step with it.

    Two readers, one answer. The fast one walks the wire format of the
    packets ssl-sim's encoder writes (a detection once, each field with its
    declared wire type, every required field there, no geometry) straight
    into the output, without building protobuf-c's tree of messages; it
    gives up on anything else, and then protobuf-c's unpack decides,
    with its checks and its rules for repeated and merged fields. A packet
    the fast reader accepts means the same to both: every field is read
    the way protobuf-c reads it (the last value of a repeated scalar wins,
    submessages are appended in order, unknown fields are skipped), which
    a unit test checks on thousands of frames with every kind of realism.
    It reads the detection in one pass (the robots' submessages noted,
    then read blue first), each ball and robot straight where its bytes
    are laid out as the encoder writes them.

    The observer reads with geometry skipped rather than checked: it
    decodes only the world's own frames and uses only their detections,
    and a second of geometry through protobuf-c cost as much as fifteen
    detection frames.
*/
#include "sslsim_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ssl_vision_wrapper.pb-c.h"

/* ---- the fast reader -------------------------------------------------- */

typedef struct {
    const uint8_t *p, *end;
} s_wire_t;

/* A varint of at most `bytes` bytes; false at the end of the bytes or
   past them. */
static bool
s_varint_n (s_wire_t *w, uint64_t *v, int bytes)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 7 * bytes; shift += 7) {
        if (w->p >= w->end)
            return false;
        uint8_t b = *w->p++;
        x |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* A value's varint: protobuf-c reads up to 10 bytes. */
static bool
s_varint (s_wire_t *w, uint64_t *v)
{
    return s_varint_n (w, v, 10);
}

/* A key's or a length's: protobuf-c refuses one of more than 5 bytes. */
static bool
s_varint5 (s_wire_t *w, uint64_t *v)
{
    return s_varint_n (w, v, 5);
}

static bool
s_fixed (s_wire_t *w, void *out, size_t n)
{
    if ((size_t) (w->end - w->p) < n)
        return false;
    memcpy (out, w->p, n); /* little-endian on the wire and on every target we build for */
    w->p += n;
    return true;
}

/* Skip one field of wire type `type`; false for a group or bad bytes. */
static bool
s_skip (s_wire_t *w, unsigned type)
{
    uint64_t v;
    switch (type) {
    case 0:
        return s_varint (w, &v);
    case 1:
        return (size_t) (w->end - w->p) >= 8 ? (w->p += 8, true) : false;
    case 2:
        if (!s_varint5 (w, &v) || v > (uint64_t) (w->end - w->p))
            return false;
        w->p += v;
        return true;
    case 5:
        return (size_t) (w->end - w->p) >= 4 ? (w->p += 4, true) : false;
    default:
        return false;
    }
}

/* The next field's key; false at the end (ok stays true) or on bad bytes. */
static bool
s_key (s_wire_t *w, uint32_t *field, unsigned *type, bool *ok)
{
    uint64_t key;
    if (w->p >= w->end)
        return false;
    if (!s_varint5 (w, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) {
        *ok = false;
        return false;
    }
    *field = (uint32_t) (key >> 3);
    *type = (unsigned) (key & 7);
    return true;
}

/* A length-delimited field's bytes as a reader of their own. */
static bool
s_sub (s_wire_t *w, s_wire_t *sub)
{
    uint64_t n;
    if (!s_varint5 (w, &n) || n > (uint64_t) (w->end - w->p))
        return false;
    *sub = (s_wire_t) { w->p, w->p + n };
    w->p += n;
    return true;
}

/* A ball's or a robot's fields: the floats 1 and 3..last into f[], the
   uint32 2 into *id, each seen field's bit in *seen; false on bad bytes
   or a known field of another wire type. */
static bool
s_fields_general (s_wire_t w, uint32_t last, float f[9], uint64_t *id, unsigned *seen)
{
    unsigned type;
    uint32_t field;
    bool ok = true;
    while (s_key (&w, &field, &type, &ok)) {
        if (field == 2) {
            if (type != 0 || !s_varint (&w, id))
                return false;
        } else if (field <= last) {
            if (type != 5 || !s_fixed (&w, &f[field], 4))
                return false;
        } else if (!s_skip (&w, type)) {
            return false;
        }
        if (field <= last)
            *seen |= 1u << field;
    }
    return ok;
}

/* s_fields_general's answer, taken straight where the bytes are what
   ssl-sim's encoder writes (vis_wire.c): one-byte tags, the known floats
   whole, an id below 128. At the first field of any other kind the
   general loop starts afresh on the same bytes, so the result is its
   result whatever the bytes. */
static bool
s_fields (s_wire_t w, uint32_t last, float f[9], uint64_t *id, unsigned *seen)
{
    float g[9];
    uint64_t gid = *id;
    unsigned gseen = *seen;
    memcpy (g, f, sizeof g);
    const uint8_t *p = w.p;
    while (p < w.end) {
        unsigned key = *p, field = key >> 3;
        if (key == (2u << 3 | 0u) && w.end - p >= 2 && p[1] < 0x80) {
            gid = p[1];
            p += 2;
        } else if ((key & 7u) == 5u && field >= 1 && field <= last && field != 2 && w.end - p >= 5) {
            memcpy (&g[field], p + 1, 4);
            p += 5;
        } else {
            return s_fields_general (w, last, f, id, seen);
        }
        gseen |= 1u << field;
    }
    memcpy (f, g, sizeof g);
    *id = gid;
    *seen = gseen;
    return true;
}

/* what SSL_DetectionBall and SSL_DetectionRobot both require:
   confidence, x, y, pixel_x, pixel_y */
#define S_REQUIRED (1u << 1 | 1u << 3 | 1u << 4 | 1u << 6 | 1u << 7)

static bool
s_ball (s_wire_t w, sslsim_det_ball_t *out)
{
    float f[9] = { 0 };
    uint64_t area = 0;
    unsigned seen = 0;
    if (!s_fields (w, 7, f, &area, &seen) || (seen & S_REQUIRED) != S_REQUIRED)
        return false;
    *out = (sslsim_det_ball_t) {
        .x = f[3] / 1000.0,
        .y = f[4] / 1000.0,
        .z = seen & 1u << 5 ? f[5] / 1000.0 : 0.0,
        .confidence = f[1],
        .area = seen & 1u << 2 ? (double) (uint32_t) area : 0.0,
    };
    return true;
}

static bool
s_robot (s_wire_t w, int team, sslsim_det_robot_t *out)
{
    float f[9] = { 0 };
    uint64_t id = 0;
    unsigned seen = 0;
    if (!s_fields (w, 8, f, &id, &seen) || (seen & S_REQUIRED) != S_REQUIRED)
        return false;
    *out = (sslsim_det_robot_t) {
        .team = team,
        .id = seen & 1u << 2 ? (int) (uint32_t) id : -1,
        .x = f[3] / 1000.0,
        .y = f[4] / 1000.0,
        .orientation = seen & 1u << 5 ? f[5] : 0.0,
        .confidence = f[1],
    };
    return true;
}

/* One team's robot submessages, in the order of the bytes. */
typedef struct {
    int n;
    s_wire_t sub[SSLSIM_MAX_DET_ROBOTS];
} s_team_t;

/* The detection frame in one pass: its scalars and balls into out as
   they come, the robots' submessages noted by team and read after it,
   blue (field 7) then yellow (6), as sslsim_detection_t lists them.
   False (the packet left to protobuf-c) on anything but what the fast
   reader knows, or more robots of a team than out can hold. */
static bool
s_frame (s_wire_t w, sslsim_detection_t *out)
{
    s_team_t team[2]; /* blue, yellow */
    team[0].n = team[1].n = 0;
    unsigned type, seen = 0;
    uint32_t field;
    bool ok = true;
    while (s_key (&w, &field, &type, &ok)) {
        uint64_t v;
        s_wire_t sub;
        if ((field == 5 || field == 6 || field == 7) && type != 2)
            return false;
        switch (field) {
        case 1:
        case 4:
            if (type != 0 || !s_varint (&w, &v))
                return false;
            if (field == 1)
                out->frame_number = (uint32_t) v;
            else
                out->camera_id = (int) (uint32_t) v;
            break;
        case 2:
        case 3:
            if (type != 1 || !s_fixed (&w, field == 2 ? &out->t_capture : &out->t_sent, 8))
                return false;
            break;
        case 5:
            if (!s_sub (&w, &sub))
                return false;
            if (out->ball_count < SSLSIM_MAX_DET_BALLS) {
                if (!s_ball (sub, &out->balls[out->ball_count]))
                    return false;
                out->ball_count++;
            } else {
                sslsim_det_ball_t spare; /* past the cap, still checked as protobuf-c would */
                if (!s_ball (sub, &spare))
                    return false;
            }
            break;
        case 6:
        case 7: {
            s_team_t *t = &team[field == 6];
            if (t->n == SSLSIM_MAX_DET_ROBOTS || !s_sub (&w, &t->sub[t->n]))
                return false;
            t->n++;
            break;
        }
        case 8:
            if (type != 1)
                return false; /* t_capture_camera of another wire type: protobuf-c's to judge */
            if (!s_skip (&w, type))
                return false;
            break;
        default:
            if (!s_skip (&w, type))
                return false;
        }
        if (field >= 1 && field <= 5)
            seen |= 1u << field;
    }
    const unsigned required = 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4;
    if (!ok || (seen & required) != required)
        return false;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < team[k].n; i++) {
            sslsim_det_robot_t spare;
            bool room = out->robot_count < SSLSIM_MAX_DET_ROBOTS;
            if (!s_robot (team[k].sub[i], k, room ? &out->robots[out->robot_count] : &spare))
                return false;
            out->robot_count += room;
        }
    return true;
}

/* The fast reader: true with *out filled, false to leave the packet to
   protobuf-c. With `geometry` false a geometry field is skipped unread
   (the observer's reading: it takes only the detection). */
static bool
s_decode_fast (const uint8_t *bytes, size_t len, sslsim_detection_t *out, bool geometry)
{
    s_wire_t w = { bytes, bytes + len }, det = { NULL, NULL };
    unsigned type;
    uint32_t field;
    bool ok = true, has_det = false;
    while (s_key (&w, &field, &type, &ok)) {
        if (field == 1) {
            if (type != 2 || has_det || !s_sub (&w, &det))
                return false; /* a second detection merges: protobuf-c's rule */
            has_det = true;
        } else if (field == 2) {
            if (geometry || type != 2 || !s_skip (&w, type))
                return false; /* geometry: protobuf-c checks it */
        } else if (field == 3) {
            uint64_t v;
            if (type != 0 || !s_varint (&w, &v))
                return false;
        } else if (!s_skip (&w, type)) {
            return false;
        }
    }
    if (!ok)
        return false;
    memset (out, 0, offsetof (sslsim_detection_t, balls));
    return !has_det || s_frame (det, out);
}

/* ---- protobuf-c ---------------------------------------------------------- */

static void
s_det_robots (sslsim_detection_t *out, int team, SSLDetectionRobot **robots, size_t n)
{
    for (size_t i = 0; i < n && out->robot_count < SSLSIM_MAX_DET_ROBOTS; i++) {
        const SSLDetectionRobot *r = robots[i];
        out->robots[out->robot_count++] = (sslsim_det_robot_t) {
            .team = team,
            .id = r->has_robot_id ? (int) r->robot_id : -1,
            .x = r->x / 1000.0,
            .y = r->y / 1000.0,
            .orientation = r->has_orientation ? r->orientation : 0.0,
            .confidence = r->confidence,
        };
    }
}

/* Decoding a frame unpacks a submessage per detection, each with its
   malloc and free; serving them from one block on the stack (the heap
   past it) spares those. */
typedef struct {
    ProtobufCAllocator base;
    size_t used;
    _Alignas(16) uint8_t block[16384];
} s_scratch_t;

static void *
s_scratch_alloc (void *data, size_t size)
{
    s_scratch_t *self = data;
    size_t at = (self->used + 15) & ~(size_t) 15;
    if (size > sizeof self->block || at > sizeof self->block - size)
        return malloc (size);
    self->used = at + size;
    return self->block + at;
}

static void
s_scratch_free (void *data, void *ptr)
{
    s_scratch_t *self = data;
    if ((uint8_t *) ptr < self->block || (uint8_t *) ptr >= self->block + sizeof self->block)
        free (ptr);
}

/* The general path: protobuf-c's unpack, its checks and its merging
   rules, for whatever the fast reader leaves to it. */
static sslsim_status_t
s_decode_protobuf (const uint8_t *bytes, size_t len, sslsim_detection_t *out)
{
    s_scratch_t scratch;
    scratch.base = (ProtobufCAllocator) { s_scratch_alloc, s_scratch_free, &scratch };
    scratch.used = 0;
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (&scratch.base, len, bytes);
    if (!w)
        return SSLSIM_EDECODE;
    memset (out, 0, sizeof *out);
    const SSLDetectionFrame *d = w->detection;
    if (d) {
        out->camera_id = (int) d->camera_id;
        out->frame_number = d->frame_number;
        out->t_capture = d->t_capture;
        out->t_sent = d->t_sent;
        for (size_t k = 0; k < d->n_balls && out->ball_count < SSLSIM_MAX_DET_BALLS; k++) {
            const SSLDetectionBall *b = d->balls[k];
            out->balls[out->ball_count++] = (sslsim_det_ball_t) {
                .x = b->x / 1000.0,
                .y = b->y / 1000.0,
                .z = b->has_z ? b->z / 1000.0 : 0.0,
                .confidence = b->confidence,
                .area = b->has_area ? b->area : 0.0,
            };
        }
        s_det_robots (out, 0, d->robots_blue, d->n_robots_blue);
        s_det_robots (out, 1, d->robots_yellow, d->n_robots_yellow);
    }
    ssl__wrapper_packet__free_unpacked (w, &scratch.base);
    return SSLSIM_OK;
}

/* The fast reader where it answers, protobuf-c where it gives up. */
static sslsim_status_t
s_read (const uint8_t *bytes, size_t len, sslsim_detection_t *out, bool geometry)
{
    if (!out || (!bytes && len > 0))
        return SSLSIM_EINVAL;
    if (s_decode_fast (bytes, len, out, geometry))
        return SSLSIM_OK;
    return s_decode_protobuf (bytes, len, out);
}

sslsim_status_t
sslsim_detection_read (const uint8_t *bytes, size_t len, sslsim_detection_t *out)
{
    return s_read (bytes, len, out, true);
}

sslsim_status_t
sslsim_detection_read_detection (const uint8_t *bytes, size_t len, sslsim_detection_t *out)
{
    return s_read (bytes, len, out, false);
}

sslsim_status_t
sslsim_detection_decode_general (const uint8_t *bytes, size_t len, sslsim_detection_t *out)
{
    if (!out || (!bytes && len > 0))
        return SSLSIM_EINVAL;
    return s_decode_protobuf (bytes, len, out);
}

sslsim_status_t
sslsim_detection_decode (const uint8_t *bytes, size_t len, sslsim_detection_t *out)
{
    sslsim_status_t rc = sslsim_detection_read (bytes, len, out);
    if (rc == SSLSIM_OK) {
        /* the entries past the counts read as zeros, whatever *out held */
        memset (out->balls + out->ball_count, 0,
                (size_t) (SSLSIM_MAX_DET_BALLS - out->ball_count) * sizeof out->balls[0]);
        memset (out->robots + out->robot_count, 0,
                (size_t) (SSLSIM_MAX_DET_ROBOTS - out->robot_count) * sizeof out->robots[0]);
    }
    return rc;
}
