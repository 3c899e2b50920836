/*  vw_replay.h - `ssl-sim replay JOURNAL` in the page (docs/viewer.md
    "Replaying a journal"): the world comes from physics and vision on the
    replay's private bus as in a run (snapshots, frames), and the page's
    timeline ops (pause, resume, speed, step, seek) go to physics as a
    ReplayControl request instead of to a gateway (there is none). Physics
    answers each with the timeline's state and sends it with its Stats
    once a second; the status's "player" part is made from it, the time
    from the newest snapshot.

    A journal holds no referee, so there is no command or goal to jump to.
    When the replay is over and no page is open the viewer ends its loop,
    and with it the run (the launcher waits on it), as `ssl-sim replay`
    without the page ends with its journal.
*/
#ifndef VW_REPLAY_H_INCLUDED
#define VW_REPLAY_H_INCLUDED

#include <stdbool.h>

#include "viewer_internal.h"

/* Take the timeline ops from the hub from now on. 0, or -1. */
int vw_replay_open (vw_service_t *self);

void vw_replay_close (vw_service_t *self);

/* Send the ops the pages queued (after a wake); `pages`: whether any page
   is connected (none, and the replay over: the loop ends). */
void vw_replay_wake (vw_service_t *self, bool pages);

/* Physics' answer to a ReplayControl, or its Stats' timeline. */
void vw_replay_take (vw_service_t *self, const Simbus__ReplayState *state);

/* With the hub locked: the timeline into hub->status. */
void vw_replay_status (vw_service_t *self);

#endif
