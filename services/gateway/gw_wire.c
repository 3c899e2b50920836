/*  gw_wire.c - top-level protobuf wire scans (see gw_wire.h). */
#include "gw_wire.h"
#include "common/base/sim_varint.h"

#include <string.h>

/* Read a varint; returns bytes used, 0 when truncated or longer than 10. */
static size_t
s_varint (const uint8_t *p, size_t len, uint64_t *value)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < 10; i++) {
        v |= (uint64_t) (p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *value = v;
            return i + 1;
        }
    }
    return 0;
}

typedef struct {
    uint64_t number;
    unsigned wire;
    const uint8_t *payload; /* wire type 2 only */
    size_t payload_len;
} s_field_t;

/* The whole field at data[*pos], moving *pos past it. False at the end of
   the message or at a field that is malformed or runs past `len`. */
static bool
s_next_field (const uint8_t *data, size_t len, size_t *pos, s_field_t *f)
{
    uint64_t key;
    size_t used = s_varint (data + *pos, len - *pos, &key);
    if (!used || (key >> 3) == 0)
        return false;
    size_t at = *pos + used;
    f->number = key >> 3;
    f->wire = (unsigned) (key & 7);
    f->payload = NULL;
    f->payload_len = 0;
    uint64_t skip;
    if (f->wire == 0) {
        uint64_t ignored;
        used = s_varint (data + at, len - at, &ignored);
        if (!used)
            return false;
        skip = used;
    } else if (f->wire == 1)
        skip = 8;
    else if (f->wire == 5)
        skip = 4;
    else if (f->wire == 2) {
        uint64_t n;
        used = s_varint (data + at, len - at, &n);
        if (!used || n > len - at - used)
            return false;
        f->payload = data + at + used;
        f->payload_len = (size_t) n;
        skip = used + n;
    } else
        return false;
    if (skip > len - at)
        return false;
    *pos = at + skip;
    return true;
}

bool
gw_wire_sync_candidate (const uint8_t *data, size_t len, gw_port_kind_t port)
{
    bool field1_fixed32 = false, field2 = false, field3 = false;
    size_t pos = 0;
    s_field_t f;
    /* a field counts once its value was whole */
    while (pos < len && s_next_field (data, len, &pos, &f)) {
        if (f.number == 1 && f.wire == 5)
            field1_fixed32 = true;
        if (f.number == 2)
            field2 = true;
        if (f.number == 3)
            field3 = true;
    }
    if (port == GW_PORT_CONTROL)
        return field1_fixed32 || field3;
    return field1_fixed32 || field2 || field3;
}

bool
gw_wire_bytes_field (const uint8_t *data, size_t len, uint32_t field, const uint8_t **out, size_t *out_len)
{
    bool found = false;
    size_t pos = 0;
    s_field_t f;
    while (pos < len && s_next_field (data, len, &pos, &f))
        if (f.number == field && f.wire == 2) {
            *out = f.payload;
            *out_len = f.payload_len;
            found = true;
        }
    return found;
}

/* The varint at buf; its byte count. */
static size_t
s_put_varint (uint8_t *buf, uint64_t v)
{
    return (size_t) (sim_varint_put (buf, v) - buf);
}

size_t
gw_wire_bytes_size (uint32_t field, size_t n)
{
    return sim_varint_size ((uint64_t) field << 3 | 2) + sim_varint_size (n) + n;
}

size_t
gw_wire_put_bytes (uint8_t *buf, uint32_t field, const uint8_t *data, size_t n)
{
    size_t used = s_put_varint (buf, (uint64_t) field << 3 | 2);
    used += s_put_varint (buf + used, n);
    memmove (buf + used, data, n); /* data may already sit there */
    return used + n;
}
