/*  gw_answers.h - every answer the gateway sends a client leaves here
    (protocol.md §6-§7): physics' replies as the port's response, a sync
    step's SimulationSyncResponse (gw_sync), and the gateway's own errors
    (UNREADABLE, REFUSED, UNAVAILABLE) in the port's response. Each answer
    is counted, and kept within its source's cap (sim_trust): an answer
    over it goes as its errors and an UNTRUSTED notice cut to the cap
    (gw_cap), or not at all when not even an error's code fits.

    Glue of the actor (gateway_internal.h): what other features answer
    (BUSY in gw_fairness, FORBIDDEN in gw_gate) goes through
    gw_answer_errors.
*/
#ifndef GW_ANSWERS_H_INCLUDED
#define GW_ANSWERS_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>

#include "gw_pending.h"
#include "gw_port.h"
#include "common/base/sim_errors.h"
#include "bus/sim_bus.pb-c.h"

typedef struct gw_service_t gw_service_t;

/* The gateway's own answer to a datagram on `port` from `to`, carrying
   `errors`: the port's response, or for a sync request a
   SimulationSyncResponse with them in its RobotControlResponse, within
   the cap of the datagram being handled (self->rx_cap). Counted as
   refused. */
void gw_answer_errors (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, bool sync,
                       const sim_errors_t *errors);

/* A datagram that is none of the port's messages (or was cut short):
   UNREADABLE. */
void gw_answer_unreadable (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from);

/* A sync request while the simulator does not run in sync mode and
   [network] sync_takeover is off: REFUSED. */
void gw_answer_refused (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from);

/* Physics' reply to plain request p: the SimulatorResponse of a command,
   or a team's RobotControlResponse (or, by [realism]
   robot_response_loss, nothing). p stays pending. */
void gw_answer_plain (gw_service_t *self, const gw_request_t *p, const Simbus__Reply *reply);

/* A plain request physics did not answer in time (physics is down, or
   lost it): UNAVAILABLE. It may still be applied later; the client hears
   that it is not known to be. p stays pending. */
void gw_answer_unavailable (gw_service_t *self, const gw_request_t *p);

/* Sync request p's SimulationSyncResponse from what came back so far;
   then p is released. */
void gw_answer_sync (gw_service_t *self, gw_request_t *p);

#endif
