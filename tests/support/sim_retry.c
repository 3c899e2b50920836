/*  sim_retry.c - a retrying one-request-at-a-time client for system tests. */
#include "sim_retry.h"

#include <string.h>
#include <unistd.h>

#include "sim_test.h"

void
sim_retry_init (sim_retry_t *self, int port, int retry_ms)
{
    memset (self, 0, sizeof *self);
    self->port = port;
    self->retry_ms = retry_ms;
    self->fd = -1;
}

static int
s_send (sim_retry_t *self, int64_t now_ms)
{
    self->last_ms = now_ms;
    self->datagrams++;
    return sim_test_send_raw (self->fd, self->port, self->data, self->len);
}

int
sim_retry_start (sim_retry_t *self, const ProtobufCMessage *msg, int64_t now_ms)
{
    if (self->fd >= 0 || protobuf_c_message_get_packed_size (msg) > sizeof self->data)
        return -1;
    self->len = protobuf_c_message_pack (msg, self->data);
    self->fd = sim_test_udp (0);
    if (self->fd < 0)
        return -1;
    self->id++;
    self->requests++;
    self->first_ms = now_ms;
    /* a send that fails (a full socket buffer) is retried like a lost one */
    s_send (self, now_ms);
    return 0;
}

ssize_t
sim_retry_poll (sim_retry_t *self, int64_t now_ms, void *buf, size_t cap)
{
    if (self->fd < 0)
        return -1;
    ssize_t n = sim_test_recv (self->fd, buf, cap, 0);
    if (n >= 0) {
        self->answers++;
        return n;
    }
    if (now_ms - self->last_ms >= self->retry_ms)
        s_send (self, now_ms);
    return -1;
}

void
sim_retry_accept (sim_retry_t *self, int64_t now_ms)
{
    if (self->fd < 0)
        return;
    self->done++;
    if (now_ms - self->first_ms > self->longest_ms)
        self->longest_ms = now_ms - self->first_ms;
    sim_retry_close (self);
}

void
sim_retry_abandon (sim_retry_t *self)
{
    sim_retry_close (self);
}

bool
sim_retry_waiting (const sim_retry_t *self)
{
    return self->fd >= 0;
}

void
sim_retry_close (sim_retry_t *self)
{
    if (self->fd >= 0)
        close (self->fd);
    self->fd = -1;
}
