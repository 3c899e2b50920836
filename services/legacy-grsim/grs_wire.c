/*  grs_wire.c - a grSim_Packet read the way grSim reads it (see
    grs_wire.h). */
#include "grs_wire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_varint.h"

#define S_BAD       (-1)       /* no protobuf */
#define S_FIELD_MAX 0x1fffffff /* protobuf's largest field number */

/* Where a completed message goes: bytes at p (NULL: only counted), n so far. */
typedef struct {
    uint8_t *p;
    size_t n;
} s_out_t;

static void
s_put (s_out_t *o, const void *data, size_t len)
{
    if (o->p && len)
        memcpy (o->p + o->n, data, len);
    o->n += len;
}

static void
s_put_varint (s_out_t *o, uint64_t v)
{
    uint8_t b[10];
    s_put (o, b, (size_t) (sim_varint_put (b, v) - b));
}

static bool
s_varint (const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static int s_message (const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t len, s_out_t *o);

/* Field f with its zero value, as grSim reads a missing one. */
static int
s_zero (s_out_t *o, const ProtobufCFieldDescriptor *f)
{
    static const uint8_t zeros[8];
    uint64_t key = (uint64_t) f->id << 3;
    switch (f->type) {
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
        s_put_varint (o, key | 5);
        s_put (o, zeros, 4);
        return 0;
    case PROTOBUF_C_TYPE_DOUBLE:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
        s_put_varint (o, key | 1);
        s_put (o, zeros, 8);
        return 0;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
        s_put_varint (o, key | 2);
        s_put_varint (o, 0);
        return 0;
    case PROTOBUF_C_TYPE_MESSAGE: {
        s_out_t size = { NULL, 0 };
        if (s_message (f->descriptor, NULL, 0, &size) < 0)
            return S_BAD;
        s_put_varint (o, key | 2);
        s_put_varint (o, size.n);
        return s_message (f->descriptor, NULL, 0, o);
    }
    default: /* the varints: integers, bool, enum */
        s_put_varint (o, key);
        s_put_varint (o, 0);
        return 0;
    }
}

/* Message d in data[len] to o, every message field of it completed in
   turn, then each required field it lacks as its zero; S_BAD when data is
   no protobuf. Each occurrence of a message field is completed on its
   own: a message split over several (legal, and merged by the reader)
   could have a later part's zeros hide an earlier value; no grSim sender
   splits one. */
static int
s_message (const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t len, s_out_t *o)
{
    if (d->n_fields > 64)
        return S_BAD;  /* grSim's messages have at most 12 */
    uint64_t seen = 0; /* required fields by index in d->fields */
    const uint8_t *p = data, *end = len ? data + len : data;
    while (p < end) {
        const uint8_t *field = p;
        uint64_t key, vlen = 0;
        if (!s_varint (&p, end, &key) || (key >> 3) == 0 || (key >> 3) > S_FIELD_MAX)
            return S_BAD;
        const uint8_t *value = p;
        switch (key & 7) {
        case 0:
            if (!s_varint (&p, end, &vlen))
                return S_BAD;
            break;
        case 1:
            if (end - p < 8)
                return S_BAD;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return S_BAD;
            p += 4;
            break;
        case 2:
            if (!s_varint (&p, end, &vlen) || vlen > (uint64_t) (end - p))
                return S_BAD;
            value = p;
            p += vlen;
            break;
        default: /* groups: no grSim field is one */
            return S_BAD;
        }
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field (d, (unsigned) (key >> 3));
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && (key & 7) == 2) {
            s_out_t size = { NULL, 0 };
            if (s_message (f->descriptor, value, (size_t) vlen, &size) < 0)
                return S_BAD;
            s_put_varint (o, key);
            s_put_varint (o, size.n);
            s_message (f->descriptor, value, (size_t) vlen, o);
        } else
            s_put (o, field, (size_t) (p - field));
        if (f && f->label == PROTOBUF_C_LABEL_REQUIRED)
            seen |= 1ull << (f - d->fields);
    }
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->label != PROTOBUF_C_LABEL_REQUIRED || (seen & (1ull << i)))
            continue;
        if (s_zero (o, f) < 0)
            return S_BAD;
    }
    return 0;
}

GrSimPacket *
grs_wire_unpack (const uint8_t *data, size_t len)
{
    GrSimPacket *packet = gr_sim__packet__unpack (NULL, len, data);
    if (packet)
        return packet;
    s_out_t size = { NULL, 0 };
    if (s_message (&gr_sim__packet__descriptor, data, len, &size) < 0)
        return NULL;
    s_out_t out = { malloc (size.n ? size.n : 1), 0 };
    if (!out.p)
        return NULL;
    s_message (&gr_sim__packet__descriptor, data, len, &out);
    packet = gr_sim__packet__unpack (NULL, out.n, out.p);
    free (out.p);
    return packet;
}
