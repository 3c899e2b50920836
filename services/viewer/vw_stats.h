/*  vw_stats.h - the services' Stats on the bus into the status the pages,
    /metrics and /healthz show (vw_status_from_stats in vw_metrics.c does
    the arithmetic; this is the actor's glue): the newest Stats of each
    service kept, when each was heard, the viewer's own restarts and the
    newest truth's time laid over it (the realism preset in force is the
    effective configuration's [run] realism, which physics sets when a
    preset is switched to).

    Runs on the actor's thread; the status lives in the hub (vw_hub.h).
*/
#ifndef VW_STATS_H_INCLUDED
#define VW_STATS_H_INCLUDED

#include "viewer_internal.h"

/* Keep `env` (a Stats envelope; owned: kept, or freed when it is of no
   service the status shows) as its service's newest, note that the
   service was heard, and recompute the status. Locks the hub. */
void vw_stats_keep (vw_service_t *self, Simbus__Envelope *env);

/* Recompute the hub's status from the newest Stats. With the hub locked. */
void vw_stats_refresh (vw_service_t *self);

/* Free the Stats kept. */
void vw_stats_release (vw_service_t *self);

#endif
