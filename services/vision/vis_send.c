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

void
vis_send_flush (vis_service_t *self)
{
    vis_sendq_t *q = &self->sendq;
    size_t done = 0;
    while (done < q->count) {
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

void
vis_send_add (vis_service_t *self, const uint8_t *buf, size_t len, const struct sockaddr_in *to, bool counted)
{
    vis_sendq_t *q = &self->sendq;
    if (len > VIS_SENDQ_BYTES)
        return; /* cannot happen: a packet is at most VIS_STEP_PACKET_MAX */
    if (q->count == VIS_SENDQ_MAX || q->used + len > VIS_SENDQ_BYTES)
        vis_send_flush (self);
    size_t i = q->count++;
    memcpy (q->bytes + q->used, buf, len);
    q->iov[i] = (struct iovec) { q->bytes + q->used, len };
    q->to[i] = *to;
    q->counted[i] = counted;
    q->msg[i] = (struct mmsghdr) { .msg_hdr = { .msg_name = &q->to[i],
                                                .msg_namelen = sizeof q->to[i],
                                                .msg_iov = &q->iov[i],
                                                .msg_iovlen = 1 } };
    q->used += len;
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
    vis_send_add (self, buf, len, &self->dest, true);
}
