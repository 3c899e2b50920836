/*  gw_strip.c - unknown fields out of unpacked messages (see gw_strip.h). */
#include "gw_strip.h"

#include <stdlib.h>

/* Free memory the way `allocator` gave it out: protobuf-c's default
   allocator is malloc and free. */
static void
s_free (ProtobufCAllocator *allocator, void *data)
{
    if (!data)
        return;
    if (allocator)
        allocator->free (allocator->allocator_data, data);
    else
        free (data);
}

/* The submessages of field `f` of msg: *count of them at the returned
   array (NULL when the field holds none). */
static ProtobufCMessage **
s_submessages (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f, size_t *count)
{
    char *base = (char *) msg;
    *count = 0;
    if (f->type != PROTOBUF_C_TYPE_MESSAGE)
        return NULL;
    /* a oneof's storage is shared: only its set member is a message */
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(uint32_t *) (base + f->quantifier_offset) != f->id)
        return NULL;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        *count = *(size_t *) (base + f->quantifier_offset);
        return *(ProtobufCMessage ***) (base + f->offset);
    }
    ProtobufCMessage **one = (ProtobufCMessage **) (base + f->offset);
    /* a default instance is shared, not unpacked: never touched */
    if (!*one || *one == f->default_value)
        return NULL;
    *count = 1;
    return one;
}

size_t
gw_strip_unknown (ProtobufCMessage *msg, ProtobufCAllocator *allocator)
{
    if (!msg)
        return 0;
    size_t dropped = msg->n_unknown_fields;
    for (unsigned i = 0; i < msg->n_unknown_fields; i++)
        s_free (allocator, msg->unknown_fields[i].data);
    s_free (allocator, msg->unknown_fields);
    msg->unknown_fields = NULL;
    msg->n_unknown_fields = 0;
    const ProtobufCMessageDescriptor *d = msg->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        size_t n;
        ProtobufCMessage **subs = s_submessages (msg, &d->fields[i], &n);
        for (size_t k = 0; subs && k < n; k++)
            dropped += gw_strip_unknown (subs[k], allocator);
    }
    return dropped;
}

bool
gw_strip_field_zero (ProtobufCMessage *msg)
{
    if (!msg)
        return false;
    for (unsigned i = 0; i < msg->n_unknown_fields; i++)
        if (msg->unknown_fields[i].tag == 0)
            return true;
    const ProtobufCMessageDescriptor *d = msg->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        size_t n;
        ProtobufCMessage **subs = s_submessages (msg, &d->fields[i], &n);
        for (size_t k = 0; subs && k < n; k++)
            if (gw_strip_field_zero (subs[k]))
                return true;
    }
    return false;
}
