/*  physics.h - the physics service: owns the world, the clock and the
    effective configuration (ARCHITECTURE.md §1-§2, protocol.md §8).

    Runs as a CZMQ actor: sim_service_start (phys_service_actor, args) with
    a resolved configuration (bus endpoints filled by sim_bus_resolve); the
    actor copies it, binds `cmd` and `world`, reports its status and runs
    until $TERM.
*/
#ifndef PHYS_SERVICE_H_INCLUDED
#define PHYS_SERVICE_H_INCLUDED

#include <czmq.h>

void phys_service_actor (zsock_t *pipe, void *args);

#endif
