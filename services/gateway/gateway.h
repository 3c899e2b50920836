/*  gateway.h - the SSL simulation protocol service (protocol.md §1-§7):
    UDP control, blue and yellow ports; every datagram becomes a bus
    request to physics and every reply goes back to that datagram's exact
    source; lock-step sync answers carry exactly the frames vision released
    during the step (ARCHITECTURE.md §2).

    Actor: sim_service_start (gw_service_actor, args).
*/
#ifndef GW_SERVICE_H_INCLUDED
#define GW_SERVICE_H_INCLUDED

#include <czmq.h>

void gw_service_actor (zsock_t *pipe, void *args);

#endif
