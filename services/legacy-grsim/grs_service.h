/*  grs_service.h - the legacy grSim adapter (protocol.md §9): grSim_Packet on
    UDP 20011 becomes bus requests to physics; Robots_Status goes to each
    team's legacy peer on 30011 (blue) / 30012 (yellow) whenever vision
    released frames and a robot's (infrared, flat_kick, chip_kick) changed.

    Actor: sim_service_start (grs_service_actor, args).
*/
#ifndef GRS_SERVICE_H_INCLUDED
#define GRS_SERVICE_H_INCLUDED

#include <czmq.h>

void grs_service_actor (zsock_t *pipe, void *args);

#endif
