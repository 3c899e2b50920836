/*  gw_cap.h - an errors-only answer cut to a byte budget (docs/protocol.md,
    "Amplification"): what an untrusted source (common/bus/sim_trust.h) gets when its
    answer would be larger than its cap.

    The errors' messages are shortened first, from the last error on, down
    to their codes; then errors are dropped from the last, down to one.
    The caller puts the errors that matter most first.

    Pure: no socket, no clock, no log.
*/
#ifndef GW_CAP_H_INCLUDED
#define GW_CAP_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gw_port.h"
#include "common/base/sim_errors.h"

/* Bytes of the port's answer that carries `errors` and nothing else: a
   SimulatorResponse (control port), a RobotControlResponse (team port),
   or with sync a SimulationSyncResponse holding them in its
   RobotControlResponse. */
size_t gw_cap_errors_size (const sim_errors_t *errors, gw_port_kind_t port, bool sync);

/* Cut `errors` (in place) until that answer takes at most cap bytes.
   Returns its size, or -1 when not even the first error's code fits (or
   there is no error to send): then nothing is sent. */
ssize_t gw_cap_errors (sim_errors_t *errors, gw_port_kind_t port, bool sync, size_t cap);

#endif
