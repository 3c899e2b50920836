/*  sim_link_backlog.c - a link's requests to physics over its lane, and
    the backlog that keeps them in order while the lane is full (see
    sim_link_impl.h). */
#include "sim_link_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void
s_send_cmd_record (sim_link_t *self, const uint8_t *data, size_t len)
{
    size_t env_len;
    const void *env = sim_lane_envelope (data, len, &env_len);
    zframe_t *frame = zframe_new (env, env_len);
    if (frame && zframe_send (&frame, self->cmd, 0))
        zframe_destroy (&frame);
}

/* The backlog's oldest records, as many whole ones as fit S_FLUSH_MAX
   (at least one), into one datagram: its bytes (borrowed) and length, and
   how many records it holds in *count. */
static const void *
s_backlog_batch (sim_link_t *self, size_t *len, int *count)
{
    s_queued_t *first = &self->backlog[self->backlog_head];
    *len = first->len;
    *count = 1;
    if (first->len >= S_FLUSH_MAX || self->backlog_len == 1)
        return first->data;
    if (!self->flush_buf && !(self->flush_buf = malloc (S_FLUSH_MAX)))
        return first->data;
    memcpy (self->flush_buf, first->data, first->len);
    while (*count < self->backlog_len) {
        s_queued_t *q = &self->backlog[(self->backlog_head + *count) % S_BACKLOG];
        if (*len + q->len > S_FLUSH_MAX)
            break;
        memcpy (self->flush_buf + *len, q->data, q->len);
        *len += q->len;
        (*count)++;
    }
    return self->flush_buf;
}

/* Send what waits in the backlog while physics' lane takes it. A lane
   holds only a few datagrams (net.unix.max_dgram_qlen, 10 by default) and
   physics in realtime reads it at its own wake-ups (phys_defer.h), so one
   record per datagram let physics take ten requests per wake-up: behind a
   client that flooded one port with commands, another team's command
   waited its turn for most of a second. Many records per datagram (the
   lane's own format) hand physics the whole backlog at its next wake-up. */
void
sim_link_backlog_flush (sim_link_t *self)
{
    while (self->backlog_len > 0) {
        size_t len = 0;
        int count = 0;
        const void *data = s_backlog_batch (self, &len, &count);
        bool cmd = false;
        if (sim_lane_send_bytes (self->lane, SIM_LANE_PHYSICS, data, len, -1)) {
            if (errno == EAGAIN)
                return;
            cmd = true; /* physics is not running */
        }
        for (int i = 0; i < count; i++) {
            s_queued_t *q = &self->backlog[self->backlog_head];
            if (cmd)
                s_send_cmd_record (self, q->data, q->len);
            free (q->data);
            q->data = NULL;
            self->backlog_head = (self->backlog_head + 1) % S_BACKLOG;
            self->backlog_len--;
        }
    }
}

/* A request goes over physics' lane without waiting: the gateway never
   blocks (every other service's messages end at it, so it breaks any
   cycle of full queues). A full lane queues it in the backlog, in order;
   a physics that is not running gets it over ZeroMQ, which holds it
   until physics is back. */
int
sim_link_send_request (sim_link_t *self, Simbus__Envelope *env)
{
    self->cmd_idle = false; /* as in sim_link_reply */
    if (!self->lane)
        return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    if (self->backlog_len == 0) {
        if (sim_lane_send (self->lane, SIM_LANE_PHYSICS, "Q", env, -1) == 0)
            return 1;
        if (errno != EAGAIN)
            return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    }
    size_t len = 0;
    uint8_t *data = sim_lane_pack ("Q", env, &len);
    if (!data || self->backlog_len == S_BACKLOG) {
        free (data);
        return sim_bus_send (self->cmd, NULL, env) == 0 ? 1 : 0;
    }
    int tail = (self->backlog_head + self->backlog_len) % S_BACKLOG;
    self->backlog[tail] = (s_queued_t) { data, len };
    self->backlog_len++;
    return 1;
}
