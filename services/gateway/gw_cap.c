/*  gw_cap.c - an errors-only answer cut to a byte budget (see gw_cap.h). */
#include "gw_cap.h"

#include <string.h>

#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

size_t
gw_cap_errors_size (const sim_errors_t *errors, gw_port_kind_t port, bool sync)
{
    SimulatorError **ptrs = (SimulatorError **) errors->ptrs;
    RobotControlResponse rr = ROBOT_CONTROL_RESPONSE__INIT;
    rr.n_errors = errors->count;
    rr.errors = ptrs;
    if (sync) {
        SimulationSyncResponse r = SIMULATION_SYNC_RESPONSE__INIT;
        r.robot_control_response = &rr;
        return simulation_sync_response__get_packed_size (&r);
    }
    if (port == GW_PORT_CONTROL) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = errors->count;
        r.errors = ptrs;
        return simulator_response__get_packed_size (&r);
    }
    return robot_control_response__get_packed_size (&rr);
}

ssize_t
gw_cap_errors (sim_errors_t *errors, gw_port_kind_t port, bool sync, size_t cap)
{
    for (;;) {
        size_t len = gw_cap_errors_size (errors, port, sync);
        if (errors->count == 0)
            return -1;
        if (len <= cap)
            return (ssize_t) len;
        /* the last error that still has a message gives up what is too
           much (the length's own varint may shrink too: measure again) */
        size_t i = errors->count;
        while (i > 0 && !errors->ptrs[i - 1]->message)
            i--;
        if (i > 0) {
            char *message = errors->ptrs[i - 1]->message;
            size_t have = strlen (message), excess = len - cap;
            if (excess >= have)
                errors->ptrs[i - 1]->message = NULL;
            else
                message[have - excess] = '\0';
        } else if (errors->count > 1)
            errors->count--;
        else
            return -1;
    }
}
