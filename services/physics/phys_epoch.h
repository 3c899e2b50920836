/*  phys_epoch.h - the base of the wire timestamps (sim_snapshot_t
    epoch_us): Unix time at sim time 0 when they follow the wall clock
    ([vision] timestamp_base: unix, or auto in realtime mode), else 0 so
    they count from zero. It moves with the realtime clock: over what a
    stall dropped, and to now after a pause or a sync hold, during which
    no sim time was owed.
*/
#ifndef PHYS_EPOCH_H_INCLUDED
#define PHYS_EPOCH_H_INCLUDED

#include "physics_internal.h"

/* True when cfg's timestamps follow the wall clock. */
bool phys_epoch_unix (const sim_config_t *cfg);

/* Put sim time now at Unix time now (or the base back to 0). */
void phys_epoch_rebase (phys_service_t *self);

/* After the free-running clock's turn (phys_clock_owed), `running` at
   this turn: follow a stall's skip (logged) or a restart of the clock. */
void phys_epoch_follow (phys_service_t *self, bool running);

#endif
