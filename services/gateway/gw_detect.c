/*  gw_detect.c - top-level tag scan of protocol.md §3. */
#include "gw_detect.h"

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

bool
gw_detect_sync_candidate (const uint8_t *data, size_t len, gw_port_kind_t port)
{
    bool field1_fixed32 = false, field2 = false, field3 = false;
    size_t pos = 0;
    while (pos < len) {
        uint64_t key;
        size_t used = s_varint (data + pos, len - pos, &key);
        if (!used)
            break;
        pos += used;
        uint64_t field = key >> 3;
        unsigned wire = (unsigned) (key & 7);
        if (field == 0)
            break;
        uint64_t skip;
        if (wire == 0) {
            uint64_t ignored;
            used = s_varint (data + pos, len - pos, &ignored);
            if (!used)
                break;
            skip = used;
        } else if (wire == 1)
            skip = 8;
        else if (wire == 5)
            skip = 4;
        else if (wire == 2) {
            uint64_t n;
            used = s_varint (data + pos, len - pos, &n);
            if (!used || n > len - pos - used)
                break;
            skip = used + n;
        } else
            break;
        if (skip > len - pos)
            break;
        pos += skip;
        /* the field counts once its value was whole */
        if (field == 1 && wire == 5)
            field1_fixed32 = true;
        if (field == 2)
            field2 = true;
        if (field == 3)
            field3 = true;
    }
    if (port == GW_PORT_CONTROL)
        return field1_fixed32 || field3;
    return field1_fixed32 || field2 || field3;
}
