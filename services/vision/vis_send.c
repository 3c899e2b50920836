/*  vis_send.c - the vision actor's UDP edge: destinations and the turn's
    sendmmsg queue (vis_send.h). */
#include "vis_send.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/base/sim_log.h"
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

/* With --localhost a multicast group is kept but sent through the
   loopback interface (every local listener of the port gets a copy,
   nothing leaves the machine), or with local_vision = unicast (or a
   unicast vision_addr) 127.0.0.1. */
void
vis_send_update_destination (vis_service_t *self)
{
    struct sockaddr_in addr;
    if (sim_udp_parse_addr (self->cfg.run.vision_addr, &addr)) {
        sim_warn ("vision_addr '%s' is not HOST:PORT; keeping the previous destination",
                  self->cfg.run.vision_addr);
        return;
    }
    const char *how = "";
    int out = self->udp;
    if (self->cfg.run.localhost) {
        bool group = IN_MULTICAST (ntohl (addr.sin_addr.s_addr));
        if (group && self->own.network.local_vision == SIM_LOCAL_MULTICAST
            && s_local_sender (self, addr.sin_addr) == 0) {
            out = self->local_udp;
            how = " through the loopback interface (local mode: every local listener of the port and "
                  "every member of the group gets a copy)";
        } else {
            if (group && self->own.network.local_vision == SIM_LOCAL_MULTICAST)
                sim_warn ("multicast through the loopback interface is not possible here; "
                          "falling back to unicast to 127.0.0.1 (one local listener)");
            addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
            how = " (local mode: unicast, one local listener)";
        }
    }
    addr.sin_port = htons ((uint16_t) sim_config_port (&self->cfg, ntohs (addr.sin_port)));
    char a[64], b[64];
    if (memcmp (&addr, &self->dest, sizeof addr) != 0 || out != self->out) {
        self->truth_dest = addr;
        self->truth_dest.sin_port =
            htons ((uint16_t) sim_config_port (&self->cfg, self->cfg.network.truth_port));
        sim_info ("vision to %s%s%s", sim_udp_addr_str (&addr, a, sizeof a), how,
                  self->cfg.run.truth ? "" : " (no truth)");
        if (self->cfg.run.truth)
            sim_info ("truth to %s, uuid %s", sim_udp_addr_str (&self->truth_dest, b, sizeof b),
                      self->truth_uuid);
    }
    self->dest = addr;
    self->out = out;
}

void
vis_send_packet (vis_service_t *self, const uint8_t *buf, size_t len)
{
    vis_send_add (self, buf, len, &self->dest, true);
}
