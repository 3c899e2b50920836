/*  vis_send.h - the vision actor's UDP edge: where its packets go (the
    effective configuration's vision_addr and truth port, --localhost
    multicast through the loopback interface or unicast) and the turn's
    queue that hands them to the kernel with one sendmmsg(2).
*/
#ifndef VIS_SEND_H_INCLUDED
#define VIS_SEND_H_INCLUDED

#include "vision_internal.h"

/* Queue one datagram to `to` (copied); a full queue is sent first.
   `counted`: a vision packet (sent/send_failures), not truth. */
void vis_send_add (vis_service_t *self, const uint8_t *buf, size_t len, const struct sockaddr_in *to,
                   bool counted);

/* Queue one vision packet to the vision destination. In a live realtime
   run whose timestamps follow the wall clock (not `ssl-sim replay`, not
   fast or sync mode) a detection's t_sent is stamped with the wall clock
   (plus [vision] timestamp_epoch_offset) when the packet is handed to the
   kernel, as ssl-vision stamps it just before sending, and never earlier
   than its t_capture; elsewhere it keeps the model's value
   (docs/vision.md, "Timestamps"), so sync, fast and library output stay
   deterministic. Only the wire is stamped: the bus and --record keep the
   packet as the model made it. */
void vis_send_packet (vis_service_t *self, const uint8_t *buf, size_t len);

/* Send every queued packet, in order, on self->out. A packet the kernel
   refuses (a full buffer) is dropped and counted, as a lone sendto's
   would be, and the ones after it still go. */
void vis_send_flush (vis_service_t *self);

/* Destination from the effective config (self->cfg): vision_addr, the
   port shifted by the port offset; truth on the same host at truth_port.
   Logs a change. */
void vis_send_update_destination (vis_service_t *self);

#endif
