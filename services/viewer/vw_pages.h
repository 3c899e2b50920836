/*  vw_pages.h - the viewer's loop feeding the pages (docs/viewer.md, "The
    WebSocket protocol"): hello, geometry and status to each new page, a
    "world" (the newest truth, the kicks it has not had, each camera's
    newest detection) to each page that asked and has not seen the newest
    state, the status when due; and watching the world (snapshots, events,
    frames) only while a page is connected.

    Runs on the actor's thread; reaches the server's threads only through
    the hub (vw_hub.h), locking it where it says so.
*/
#ifndef VW_PAGES_H_INCLUDED
#define VW_PAGES_H_INCLUDED

#include "viewer_internal.h"

/* Subscribe to snapshots, events and frames (on), or stop and forget the
   truth and the frames kept (off); nothing when already so. The first
   page makes the viewer watch, the last one leaving stops it, so an
   unwatched simulator costs the viewer nothing per frame. */
void vw_pages_watch (vw_service_t *self, bool on);

/* Greet new pages, send a "world" to each that asked and has not seen the
   newest state, and `status` (borrowed; NULL: none due) to each greeted
   page that asked for something lately. Locks the hub. */
void vw_pages_serve (vw_service_t *self, const char *status);

/* Send `text` (borrowed) to every greeted page. With the hub locked. */
void vw_pages_broadcast (vw_service_t *self, const char *text);

#define VW_ALONE_US 3000000 /* a timeline paused with no page plays on after this */

/* Whether a timeline (`ssl-sim play`, `replay`) that a page paused and
   then left (closed, or navigated away) should play on now, as it would
   have without a page, so the run still ends with its log or journal:
   after VW_ALONE_US with no page, long enough for a page that reloads to
   come back first. *since_us (0 at first) tracks when it was left alone,
   *left whether a page ever came (a replay started paused with
   --speed 0 waits for its first page); paused: paused and not at the
   end (the end with no page already ends the run). */
bool vw_pages_alone (int64_t *since_us, bool *left, bool pages, bool paused, int64_t now_us);

/* Before the server stops: tell every page that is still reading that
   the viewer is going away (close code 1001). A page answers with its own
   close, which ends the server thread serving it at once; a page not
   told keeps that thread until its next read timeout (civetweb's, up to
   2 s), which a stop waits for. A page reconnects by itself. The telling
   ends after a quarter of a second, since a page that stopped
   reading just now can hold one write for the server's write timeout.
   Locks the hub (a closing page's handler clears its slot under it). */
void vw_pages_close (vw_hub_t *hub);

#endif
