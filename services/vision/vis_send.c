/*  vis_send.c - the vision actor's UDP edge: destinations and the turn's
    sendmmsg queue (vis_send.h). */
#include "vis_send.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"
#include "common/logs/sim_logfile.h"

/* ---- t_sent at the send -------------------------------------------------- */

/* A protobuf varint at p[*at .. end); false when cut off. */
static bool
s_varint (const uint8_t *p, size_t end, size_t *at, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *at < end && shift < 64; shift += 7) {
        uint8_t b = p[(*at)++];
        *v |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* The field `number` of wire type `type` in the message p[at .. end): the
   offset of its payload (for a length-delimited one, *len its length),
   or 0 when absent or the bytes do not parse. */
static size_t
s_field (const uint8_t *p, size_t at, size_t end, uint64_t number, uint64_t type, size_t *len)
{
    while (at < end) {
        uint64_t tag, n = 0;
        if (!s_varint (p, end, &at, &tag))
            return 0;
        uint64_t t = tag & 7;
        if (t == 0 && !s_varint (p, end, &at, &n))
            return 0;
        size_t size = t == 1 ? 8 : t == 5 ? 4 : 0;
        if (t == 2 && (!s_varint (p, end, &at, &n) || n > end - at))
            return 0;
        if (t == 2)
            size = (size_t) n;
        else if (t != 0 && t != 1 && t != 5)
            return 0;
        if (size > end - at)
            return 0;
        if (tag >> 3 == number && t == type) {
            *len = size;
            return at;
        }
        at += size;
    }
    return 0;
}

static double
s_get_double (const uint8_t *p)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t) p[i] << (8 * i);
    double v;
    memcpy (&v, &bits, sizeof v);
    return v;
}

static void
s_put_double (uint8_t *p, double v)
{
    uint64_t bits;
    memcpy (&bits, &v, sizeof bits);
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t) (bits >> (8 * i));
}

/* Where an SSL_WrapperPacket's detection t_sent (field 3, a double) sits
   in buf, and its t_capture (field 2); 0 when it holds no detection. */
static size_t
s_t_sent_at (const uint8_t *buf, size_t len, double *t_capture)
{
    size_t det_len = 0, n = 0;
    size_t det = s_field (buf, 0, len, 1, 2, &det_len);
    if (!det)
        return 0;
    size_t capture = s_field (buf, det, det + det_len, 2, 1, &n);
    size_t sent = s_field (buf, det, det + det_len, 3, 1, &n);
    if (!capture || !sent)
        return 0;
    *t_capture = s_get_double (buf + capture);
    return sent;
}

/* A live realtime run whose timestamps follow the wall clock. */
static bool
s_stamping (const vis_service_t *self)
{
    return self->cfg.run.mode == SIM_MODE_REALTIME && self->epoch_us != 0 && !self->replaying;
}

/* Stamp t_sent of the queued packets from `from` on: now, never before
   their t_capture. */
static void
s_stamp (vis_sendq_t *q, size_t from, double offset)
{
    double now = -1;
    for (size_t i = from; i < q->count; i++) {
        if (!q->stamp[i])
            continue;
        if (now < 0)
            now = (double) sim_logfile_now_ns () * 1e-9 + offset;
        s_put_double ((uint8_t *) q->iov[i].iov_base + q->stamp[i],
                      now > q->t_capture[i] ? now : q->t_capture[i]);
    }
}

void
vis_send_flush (vis_service_t *self)
{
    vis_sendq_t *q = &self->sendq;
    size_t done = 0;
    while (done < q->count) {
        s_stamp (q, done, self->cfg.vision.timestamp_epoch_offset);
        int n = sendmmsg (self->out, q->msg + done, (unsigned) (q->count - done), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            char a[64];
            sim_debug ("send to %s failed: %s", sim_udp_addr_str (&q->to[done], a, sizeof a),
                       strerror (errno));
            if (q->counted[done])
                self->send_failures++;
            done++;
            continue;
        }
        for (size_t i = done; i < done + (size_t) n; i++)
            if (q->counted[i])
                self->sent++;
        done += (size_t) n;
    }
    q->count = q->used = 0;
}

/* Queue a packet; returns its slot, or -1 when it cannot be queued. */
static int
s_add (vis_service_t *self, const uint8_t *buf, size_t len, const struct sockaddr_in *to, bool counted)
{
    vis_sendq_t *q = &self->sendq;
    if (len > VIS_SENDQ_BYTES)
        return -1; /* cannot happen: a packet is at most VIS_STEP_PACKET_MAX */
    if (q->count == VIS_SENDQ_MAX || q->used + len > VIS_SENDQ_BYTES)
        vis_send_flush (self);
    size_t i = q->count++;
    memcpy (q->bytes + q->used, buf, len);
    q->iov[i] = (struct iovec) { q->bytes + q->used, len };
    q->to[i] = *to;
    q->counted[i] = counted;
    q->stamp[i] = 0;
    q->msg[i] = (struct mmsghdr) { .msg_hdr = { .msg_name = &q->to[i],
                                                .msg_namelen = sizeof q->to[i],
                                                .msg_iov = &q->iov[i],
                                                .msg_iovlen = 1 } };
    q->used += len;
    return (int) i;
}

void
vis_send_add (vis_service_t *self, const uint8_t *buf, size_t len, const struct sockaddr_in *to, bool counted)
{
    s_add (self, buf, len, to, counted);
}

/* The loopback multicast sender for `group`, made or re-joined on demand.
   Returns 0, or -1 (logged) when the loopback interface cannot carry it. */
static int
s_local_sender (vis_service_t *self, struct in_addr group)
{
    if (self->local_udp >= 0 && self->local_group.s_addr == group.s_addr)
        return 0;
    if (self->local_udp >= 0)
        close (self->local_udp);
    self->local_udp = sim_udp_local_sender (group);
    self->local_group = group;
    return self->local_udp >= 0 ? 0 : -1;
}

/* The route is common/bus/sim_route's rule, which `ssl-sim record` and
   `play` follow too. A local group the loopback interface cannot carry
   falls back to unicast to 127.0.0.1, with a warning. */
void
vis_send_update_destination (vis_service_t *self)
{
    sim_route_t vision, truth;
    if (sim_route_vision (&self->cfg, &vision, &truth)) {
        sim_warn ("vision_addr '%s' is not HOST:PORT; keeping the previous destination",
                  self->cfg.run.vision_addr);
        return;
    }
    int out = self->udp;
    if (sim_route_unrouted_to_lo (&vision)) {
        sim_warn ("no network interface routes %s: sending it through the loopback interface",
                  self->cfg.run.vision_addr);
        sim_route_unrouted_to_lo (&truth);
    }
    if (vision.way == SIM_ROUTE_LOCAL_GROUP) {
        if (s_local_sender (self, vision.group) == 0)
            out = self->local_udp;
        else {
            sim_warn ("multicast through the loopback interface is not possible here; "
                      "falling back to unicast to 127.0.0.1 (one local listener)");
            vision.way = truth.way = SIM_ROUTE_LOCAL_UNICAST;
            vision.addr.sin_addr.s_addr = truth.addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
        }
    }
    static const char *const ways[] = { [SIM_ROUTE_NETWORK] = "",
                                        [SIM_ROUTE_LOCAL_UNICAST] = " (local: unicast)",
                                        [SIM_ROUTE_LOCAL_GROUP] =
                                            " (local: through the loopback interface)" };
    char a[64], b[64], who[512];
    if (memcmp (&vision.addr, &self->dest, sizeof vision.addr) != 0 || out != self->out) {
        sim_info ("vision to %s%s%s: %s", sim_udp_addr_str (&vision.addr, a, sizeof a), ways[vision.way],
                  self->cfg.run.truth ? "" : " (no truth)", sim_route_receivers (&vision, who, sizeof who));
        if (self->cfg.run.truth)
            sim_info ("truth to %s, uuid %s", sim_udp_addr_str (&truth.addr, b, sizeof b), self->truth_uuid);
    }
    self->dest = vision.addr;
    self->truth_dest = truth.addr;
    self->out = out;
}

void
vis_send_packet (vis_service_t *self, const uint8_t *buf, size_t len)
{
    int i = s_add (self, buf, len, &self->dest, true);
    vis_sendq_t *q = &self->sendq;
    if (i >= 0 && s_stamping (self))
        q->stamp[i] = s_t_sent_at (buf, len, &q->t_capture[i]);
}
