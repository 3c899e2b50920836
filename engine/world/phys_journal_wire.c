/*  phys_journal_wire.c - an input journaled from the bytes it came in
    (phys_journal_input_wire): the Request cut out of its packed Envelope
    and the fields a journal keeps copied, by protobuf's wire format alone,
    so a journal holds what the sender packed rather than a second packing
    of what this build decoded (phys_journal_internal.h). */
#include "phys_journal_internal.h"

#include <string.h>

#include "bus/sim_bus.pb-c.h"

/* Protobuf's wire format as far as cutting out fields needs it. A varint
   at *p (before end), at most 10 bytes; false when it is not whole. */
static bool
s_varint (const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* The field at *p (before end): its number, wire type and the bytes of its
   value (a length-delimited one's without its length); *p moves past it.
   False when it is not whole or of a wire type our messages do not use
   (groups). */
static bool
s_field (const uint8_t **p, const uint8_t *end, uint32_t *number, int *type, const uint8_t **value,
         size_t *len)
{
    uint64_t key, n;
    if (!s_varint (p, end, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
        return false;
    *number = (uint32_t) (key >> 3);
    *type = (int) (key & 7);
    *value = *p;
    switch (*type) {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
        if (!s_varint (p, end, &n))
            return false;
        break;
    case PROTOBUF_C_WIRE_TYPE_64BIT:
    case PROTOBUF_C_WIRE_TYPE_32BIT:
        n = *type == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;
        if ((uint64_t) (end - *p) < n)
            return false;
        *p += n;
        break;
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
        if (!s_varint (p, end, &n) || n > (uint64_t) (end - *p))
            return false;
        *value = *p;
        *p += n;
        break;
    default:
        return false;
    }
    *len = (size_t) (*p - *value);
    return true;
}

/* The packed Request inside the packed Envelope wire[len]: its request
   field, when there is exactly one; NULL otherwise (two would be merged
   by a decoder: only packing the message physics decoded says what it
   got). */
const uint8_t *
phys_journal_request_of (const uint8_t *wire, size_t len, size_t *request_len)
{
    const ProtobufCFieldDescriptor *body =
        protobuf_c_message_descriptor_get_field_by_name (&simbus__envelope__descriptor, "request");
    const uint8_t *p = wire, *end = wire + len, *found = NULL;
    while (p < end) {
        uint32_t number;
        int type;
        const uint8_t *value;
        size_t n;
        if (!s_field (&p, end, &number, &type, &value, &n))
            return NULL;
        if (number != body->id)
            continue;
        if (found || type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
            return NULL;
        found = value;
        *request_len = n;
    }
    return found;
}

/* The fields of the packed Request req[len] a journal keeps, copied in
   order to out (room for len bytes): every one but received_us and those
   this build does not know, as phys_journal_input leaves them out. Returns
   0 with their length in *out_len, or -1 when req is not whole. */
int
phys_journal_kept_fields (const uint8_t *req, size_t len, uint8_t *out, size_t *out_len)
{
    const ProtobufCFieldDescriptor *wall =
        protobuf_c_message_descriptor_get_field_by_name (&simbus__request__descriptor, "received_us");
    const uint8_t *p = req, *end = req + len;
    *out_len = 0;
    while (p < end) {
        const uint8_t *start = p, *value;
        uint32_t number;
        int type;
        size_t n;
        if (!s_field (&p, end, &number, &type, &value, &n))
            return -1;
        if (number == wall->id
            || !protobuf_c_message_descriptor_get_field (&simbus__request__descriptor, number))
            continue;
        memcpy (out + *out_len, start, (size_t) (p - start));
        *out_len += (size_t) (p - start);
    }
    return 0;
}
