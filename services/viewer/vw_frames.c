/*  vw_frames.c - the vision packets the viewer draws, kept raw and decoded
    on demand (vw_frames.h). */
#include "vw_frames.h"

#include <stdlib.h>
#include <string.h>

#include "common/bus/sim_bus_codec.h"
#include "ssl_vision_wrapper.pb-c.h"

/* A vision packet as it came, decoded only when a page gets a "world". */
typedef struct {
    uint8_t *data;
    size_t len, cap;
} vw_raw_t;

/* A block that only grows, for sim_bus_arena_t: every struct of a decoded
   vision packet comes from it and all go together when the block is
   reused, instead of some forty mallocs and frees per packet. */
typedef struct {
    uint8_t *buf;
    size_t cap;
} vw_arena_t;

struct vw_frames_t {
    SSLWrapperPacket *frames[SIM_MAX_CAMERAS]; /* each camera's newest decoded detection, in arena[] */
    vw_arena_t arena[SIM_MAX_CAMERAS];         /* what frames[i] lives in */
    vw_arena_t scratch;                        /* the packet being decoded */
    uint64_t frame_seq[SIM_MAX_CAMERAS];       /* its packet's number (raw_seq at its arrival + 1) */
    vw_raw_t raw[VW_FRAMES_RAW];
    uint64_t raw_seq;     /* packets kept in all; the newest is raw[(raw_seq - 1) % VW_FRAMES_RAW] */
    uint64_t decoded_seq; /* packets up to this one were looked at */
};

vw_frames_t *
vw_frames_new (void)
{
    return calloc (1, sizeof (vw_frames_t));
}

void
vw_frames_destroy (vw_frames_t **self_p)
{
    vw_frames_t *self = *self_p;
    if (!self)
        return;
    vw_frames_forget (self);
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        free (self->arena[i].buf);
    free (self->scratch.buf);
    for (int i = 0; i < VW_FRAMES_RAW; i++)
        free (self->raw[i].data);
    free (self);
    *self_p = NULL;
}

int
vw_frames_keep (vw_frames_t *self, const uint8_t *data, size_t len)
{
    vw_raw_t *r = &self->raw[self->raw_seq % VW_FRAMES_RAW];
    if (len > r->cap) {
        uint8_t *grown = realloc (r->data, len);
        if (!grown)
            return -1;
        r->data = grown;
        r->cap = len;
    }
    if (len) /* an empty frame may come with no buffer at all */
        memcpy (r->data, data, len);
    r->len = len;
    self->raw_seq++;
    return 0;
}

void
vw_frames_forget (vw_frames_t *self)
{
    for (int i = 0; i < SIM_MAX_CAMERAS; i++) {
        self->frames[i] = NULL; /* the arenas are reused, not freed */
        self->frame_seq[i] = 0;
    }
    self->decoded_seq = self->raw_seq; /* what is kept is older than any page's world */
}

/* Decode `len` bytes into self->scratch; NULL when they are no packet (or
   need more than VW_FRAMES_ARENA_MAX). */
static SSLWrapperPacket *
s_unpack (vw_frames_t *self, const uint8_t *data, size_t len)
{
    vw_arena_t *a = &self->scratch;
    size_t want = len * 4 > VW_FRAMES_ARENA_MIN ? len * 4 : VW_FRAMES_ARENA_MIN;
    if (a->cap > VW_FRAMES_ARENA_MIN && want == VW_FRAMES_ARENA_MIN) {
        /* a block one large packet grew goes back to the usual size, so
           a peer cannot leave every camera's block at the maximum */
        uint8_t *shrunk = realloc (a->buf, VW_FRAMES_ARENA_MIN);
        if (shrunk) {
            a->buf = shrunk;
            a->cap = VW_FRAMES_ARENA_MIN;
        }
    }
    for (;;) {
        if (a->cap < want) {
            if (want > VW_FRAMES_ARENA_MAX)
                return NULL;
            uint8_t *grown = realloc (a->buf, want);
            if (!grown)
                return NULL;
            a->buf = grown;
            a->cap = want;
        }
        sim_bus_arena_t arena;
        sim_bus_arena_init (&arena, a->buf, a->cap);
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (&arena.base, len, data);
        if (!w || !arena.spilled)
            return w;                                        /* not a packet, or all of it in the block */
        ssl__wrapper_packet__free_unpacked (w, &arena.base); /* frees what spilled */
        want = a->cap * 2;
    }
}

/* Decode the packets that came since the last look, newest first, until
   every camera of the rig has its newest: a page at 60 Hz costs about one
   decode per camera per world, a page that asks seldom far fewer than one
   per packet. */
static void
s_decode (vw_frames_t *self, int camera_count)
{
    uint64_t oldest = self->raw_seq > VW_FRAMES_RAW ? self->raw_seq - VW_FRAMES_RAW : 0;
    if (self->decoded_seq > oldest)
        oldest = self->decoded_seq;
    int found = 0;
    for (uint64_t k = self->raw_seq; k > oldest && found < camera_count; k--) {
        const vw_raw_t *r = &self->raw[(k - 1) % VW_FRAMES_RAW];
        SSLWrapperPacket *w = s_unpack (self, r->data, r->len);
        if (!w || !w->detection || w->detection->camera_id >= SIM_MAX_CAMERAS
            || self->frame_seq[w->detection->camera_id] >= k)
            continue; /* the scratch block is simply reused */
        uint32_t cam = w->detection->camera_id;
        /* the camera's block now holds this packet; its old one is the next scratch */
        vw_arena_t old = self->arena[cam];
        self->arena[cam] = self->scratch;
        self->scratch = old;
        self->frames[cam] = w;
        self->frame_seq[cam] = k;
        found++;
    }
    self->decoded_seq = self->raw_seq;
}

void
vw_frames_newest (vw_frames_t *self, int camera_count, const void *frames[SIM_MAX_CAMERAS])
{
    s_decode (self, camera_count);
    for (int i = 0; i < SIM_MAX_CAMERAS; i++)
        frames[i] = self->frames[i];
}
