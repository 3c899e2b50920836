/*  sim_retry.h - a client that retries, as a real team's software does:
    one request at a time to one gateway port, sent again every retry_ms
    until an answer comes, for the fault and flood tests.

    Each request goes out from a socket of its own (a fresh source port on
    127.0.0.1), kept until its answer is accepted. An answer of the SSL
    simulation protocol names no request, so with one socket a late answer
    to the first copy of request N (physics was restarting, the client had
    already sent it again) would be taken for the answer to request N + 1;
    with a socket per request every datagram on it answers that request.
    Answers still on their way to a closed socket are dropped by the kernel.

    All storage is in the caller's struct; sim_retry_close releases it.
*/
#ifndef SIM_RETRY_H_INCLUDED
#define SIM_RETRY_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <protobuf-c/protobuf-c.h>

#define SIM_RETRY_MAX_LEN 4096

typedef struct {
    int port;     /* the gateway port on 127.0.0.1 */
    int retry_ms; /* resend period of an unanswered request */
    int fd;       /* the current request's socket; -1 between requests */
    unsigned id;  /* the current (or last) request's id, from 1 */
    uint8_t data[SIM_RETRY_MAX_LEN];
    size_t len;
    int64_t first_ms, last_ms; /* the current request's first and latest send */
    /* totals over the client's life */
    int requests;       /* requests started */
    int done;           /* requests whose answer was accepted */
    int datagrams;      /* datagrams sent (requests and their copies) */
    int answers;        /* datagrams received */
    int64_t longest_ms; /* longest time from a first send to its accepted answer */
} sim_retry_t;

/* An idle client of 127.0.0.1:port. */
void sim_retry_init (sim_retry_t *self, int port, int retry_ms);

/* Start the next request: pack `msg`, open its socket and send it.
   Returns 0, or -1 (the client stays idle). Only when idle. */
int sim_retry_start (sim_retry_t *self, const ProtobufCMessage *msg, int64_t now_ms);

/* Take one answer to the current request into buf (returns its size),
   else send the request again if retry_ms passed since the latest send
   and return -1. Idle: -1. The caller decides whether the answer is
   accepted (sim_retry_accept) or the request goes on being retried. */
ssize_t sim_retry_poll (sim_retry_t *self, int64_t now_ms, void *buf, size_t cap);

/* The current request is answered: count it and close its socket. */
void sim_retry_accept (sim_retry_t *self, int64_t now_ms);

/* Give the current request up (counted by the caller as lost). */
void sim_retry_abandon (sim_retry_t *self);

/* Whether a request is outstanding. */
bool sim_retry_waiting (const sim_retry_t *self);

/* Close the current request's socket, if any. */
void sim_retry_close (sim_retry_t *self);

#endif
