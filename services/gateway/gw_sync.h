/*  gw_sync.h - the lock-step part of the gateway that needs no socket:
    how many substeps a SimulationSyncRequest asks for (protocol.md §7
    step 4), and the SimulationSyncResponse of a finished (or timed-out)
    step assembled from what came back (step 6).
*/
#ifndef GW_SYNC_H_INCLUDED
#define GW_SYNC_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "gw_pending.h"
#include "common/base/sim_errors.h"
#include "engine/world/sim_step.h"
#include "ssl_simulation_synchronous.pb-c.h"

#define GW_MAX_STEP_S   SIM_STEP_MAX_S /* longest sync step accepted (docs/protocol.md) */
#define GW_DATAGRAM_MAX 65507          /* largest IPv4 UDP payload */

/* Substeps of substep_s seconds for the request's sim_step
   (sim_step_substeps): 0 for none, -1 when it is negative, not finite,
   longer than GW_MAX_STEP_S or not a whole number of substeps
   (INVALID_STEP), with the reason in why[why_len] (may be NULL/0). */
int64_t gw_sync_substeps (const SimulationSyncRequest *req, double substep_s, char *why, size_t why_len);

/* Pack the answer to sync request `req` into buf[cap] (cap >=
   GW_DATAGRAM_MAX): the step's detection frames in release order (spliced
   as they are, gw_wire.h), and a RobotControlResponse when robot_control
   came on a team port or when there is an error to carry. Errors: the
   team's own (robot_control), then the simulator_command's, then the
   gateway's (UNSUPPORTED, INVALID_STEP), i.e. processing order. A step
   with more frames than a datagram holds keeps its newest (the
   RobotControlResponse is always sent); *left_out gets how many were
   left out. The source's cap (req->answer_cap) is the caller's. `errors` is scratch space. Returns 0 with
   the size in *len (an empty answer has none), or -1 when even the answer
   without frames does not fit (logged). */
int gw_sync_answer (const gw_request_t *req, sim_errors_t *errors, uint8_t *buf, size_t cap, size_t *len,
                    size_t *left_out);

#endif
