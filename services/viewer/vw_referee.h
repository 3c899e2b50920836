/*  vw_referee.h - the game state on the page: the viewer joins the
    referee multicast itself ([network] referee_addr, by the same route
    rule as --record and `ssl-sim record`), and the newest packet, decoded
    by sim_referee, goes into the status the pages get (docs/viewer.md
    "Game state"). No bus message: the game controller's packets are on
    the network for anyone, and a viewer run alone on a laptop hears them
    there too.

    Only a multicast group is joined: every socket joined gets its own
    copy, while a unicast datagram goes to one of the sockets bound to its
    port, so listening to a unicast referee address would take the packets
    from vision's --record or a team's program. While no page watches,
    packets are read and dropped undecoded; a referee silent for
    VW_REFEREE_FRESH_US is taken as gone and the status carries none.
    Runs on the actor's thread.
*/
#ifndef VW_REFEREE_H_INCLUDED
#define VW_REFEREE_H_INCLUDED

#include "viewer_internal.h"

#define VW_REFEREE_FRESH_US 3000000 /* a game controller sends about ten a second */

/* Listen to the referee on the loop. 0; a referee that cannot be heard
   (the address is not HOST:PORT, the port is taken) is logged once and
   the page shows no game state. -1 only when out of memory. */
int vw_referee_open (vw_service_t *self);

/* Stop listening (safe when not open). */
void vw_referee_close (vw_service_t *self);

/* With the hub locked: the referee into hub->status (none when stale). */
void vw_referee_status (vw_service_t *self, int64_t now_us);

#endif
