/*  vw_player.h - `ssl-sim play FILE` in the page (docs/viewer.md "Playing
    a log"): the viewer plays the league log itself (common/logs/sim_player:
    the index, the pace, the wire), and each record it sends goes into the
    stores the page is fed from: vision packets into the frames
    (vw_frames), referee packets into the game state (sim_referee). A world
    of a log carries vision and no truth; its time is the log's.

    The page's timeline ops (pause, resume, speed, step, seek, jump) come
    from the server's threads through the hub's queue and are applied
    here, on the actor's thread, instead of going to a gateway (there is
    none). At the end of the log the player pauses while a page is open,
    starts again with --loop, and ends the viewer's loop when no page is
    open, so `ssl-sim play` in a script still ends with its log; a pause a
    page left behind plays on after a while with no page (vw_pages_alone).
*/
#ifndef VW_PLAYER_H_INCLUDED
#define VW_PLAYER_H_INCLUDED

#include <stdbool.h>

#include "viewer_internal.h"

/* Open the log at `path`, its senders and the timer that plays it, and
   start playing at the configuration's speed. 0, or -1 (logged). */
int vw_player_open (vw_service_t *self, const char *path, bool loop);

/* Say what was played (as `ssl-sim play` does) and free it. Safe when
   not open. */
void vw_player_close (vw_service_t *self);

/* Apply the ops the pages queued (after a wake); `pages`: whether any
   page is connected (none, and the log over: the loop ends). */
void vw_player_wake (vw_service_t *self, bool pages);

/* With the hub locked: the timeline into hub->status. */
void vw_player_status (vw_service_t *self);

/* The log's referee marks as the page's "marks" message (yours to
   free; NULL when out of memory). */
char *vw_player_marks (const vw_service_t *self);

/* The service's exit status: 1 when the log ended in damage, else 0. */
int vw_player_exit_code (const vw_service_t *self);

#endif
