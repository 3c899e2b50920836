/*  vision.h - the vision service: subscribes to `world`, runs the camera
    model at the snapshots physics publishes, sends every released
    SSL_WrapperPacket by UDP (multicast or --localhost) and republishes it
    on `frames`; optional ground truth (vision.md, ARCHITECTURE.md §1-§2).

    Actor: sim_service_start (vis_service_actor, args). It follows the
    effective configuration physics publishes; its own parse only gives the
    bus endpoints until then.
*/
#ifndef VIS_SERVICE_H_INCLUDED
#define VIS_SERVICE_H_INCLUDED

#include <czmq.h>

void vis_service_actor (zsock_t *pipe, void *args);

#endif
