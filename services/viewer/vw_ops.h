/*  vw_ops.h - the page's actions as SSL simulation protocol requests
    (docs/viewer.md "Actions"): each op becomes the datagram a team's
    program would send to the gateway's control port, and the gateway's
    answer its "result", so the page is checked and refused exactly like
    any client.

    vw_ops_encode and vw_ops_decode are pure; vw_ops_call does the UDP
    round trip on a socket of its own.
*/
#ifndef VW_OPS_H_INCLUDED
#define VW_OPS_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "common/base/sim_snapshot.h"
#include "vw_json.h"

#define VW_OPS_DATAGRAM_MAX 65507

/* What an op needs to know of the simulation: the configuration in
   force, the speed to resume at, the robots on the field now. */
typedef struct {
    sim_config_t cfg;
    double resume_speed; /* the last speed above 0 */
    int robot_count;
    struct {
        int team, id;
    } robots[SIM_SNAPSHOT_MAX_ROBOTS];
} vw_ops_ctx_t;

/* The request for `op` in `ctx`, packed into buf[cap]: a SimulatorCommand,
   or for "step" a SimulationSyncRequest (*sync set). Returns its length,
   or -1 with the reason in why (an op that has no request, a preset that
   does not exist, a step that is not a whole number of substeps). */
int vw_ops_encode (const vw_op_t *op, const vw_ops_ctx_t *ctx, uint8_t *buf, size_t cap, bool *sync,
                   char *why, size_t whylen);

/* The gateway's answer `buf[len]` to a request (a SimulatorResponse, or a
   SimulationSyncResponse when `sync`): 0 when it carries no error, 1 with
   the first error's code (never empty: "UNKNOWN" when it has none) and
   message copied out, -1 when it does not parse. */
int vw_ops_decode (const uint8_t *buf, size_t len, bool sync, char *code, size_t code_len, char *message,
                   size_t message_len);

/* Send `req` to `to` from `fd` (vw_ops_socket) and wait up to timeout_ms
   for the answer from that address, decoded as vw_ops_decode; answers
   that came late for an earlier op are dropped first. One op at a time
   per socket (the caller serialises). Returns 0 / 1 like vw_ops_decode,
   or -1 with code "UNAVAILABLE" when no answer came. */
int vw_ops_call (int fd, const struct sockaddr_in *to, const uint8_t *req, size_t len, bool sync,
                 int timeout_ms, char *code, size_t code_len, char *message, size_t message_len);

/* The non-blocking UDP socket the viewer sends every op from, so the
   gateway hears the viewer as one sender: bound to 127.0.0.1 when `to` is
   on loopback. The fd, or -1. */
int vw_ops_socket (const struct sockaddr_in *to);

int vw_ops_control_addr (const sim_config_t *cfg, struct sockaddr_in *out);

#endif
