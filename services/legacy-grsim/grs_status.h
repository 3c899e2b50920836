/*  grs_status.h - the legacy-grsim actor's Robots_Status feedback
    (protocol.md §9.5): each team's legacy peer (the sender of its last
    commands) hears, on its team's status port, the robots whose
    (infrared, flat_kick, chip_kick) changed since the last message to it.

    A status is owed after every simulator instant that released vision
    frames, or once per sync step (the state at the end of the step,
    protocol.md §8.5). Frames and snapshots arrive on different sockets, so
    an owed status waits until the snapshot of its instant is here:
    infrared is then the state of that instant, not an older one. A kick
    shows for GRS_KICK_FRAMES released frames (of any camera) after it.
*/
#ifndef GRS_STATUS_H_INCLUDED
#define GRS_STATUS_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_params.h"
#include "bus/sim_bus.pb-c.h"

#define GRS_KICK_FRAMES 10 /* protocol.md §9.5 */

/* One robot as its team's peer hears of it. */
typedef struct {
    bool present;
    bool infrared;
    bool kicked, chip;
    uint64_t kick_counter;
    bool sent; /* last sent state is valid */
    bool sent_infrared, sent_flat, sent_chip;
} grs_robot_t;

typedef struct grs_service_t grs_service_t;

/* `team`'s commands, in a datagram of len bytes, came from `from`: it is
   the team's peer now (a new address starts with a full status), and the
   world is followed from here on. A peer that is not trusted (sim_trust:
   not loopback, [network] trusted_sources or the match's machines) is
   sent at most SIM_TRUST_RATIO times the bytes of the commands it sent
   (a forged source must not make the port a reflector): a status over
   that budget waits, unsent, for more commands. */
void grs_status_peer (grs_service_t *self, sim_team_t team, const struct sockaddr_in *from, size_t len);

/* The bus's world, as the status needs it: a snapshot (presence and
   infrared), kick events, released frames and the end of a sync step's
   frames. */
void grs_status_on_snapshot (grs_service_t *self, const Simbus__Snapshot *msg);
void grs_status_on_events (grs_service_t *self, const Simbus__Events *msg);
void grs_status_on_frames (grs_service_t *self, const Simbus__Frames *frames);
void grs_status_on_frames_done (grs_service_t *self, const Simbus__FramesDone *done);

/* Send the owed Robots_Status to both peers once the world state of its
   instant is known; nothing otherwise. */
void grs_status_flush (grs_service_t *self);

#endif
