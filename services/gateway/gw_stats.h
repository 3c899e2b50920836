/*  gw_stats.h - what the gateway reports (docs/viewer.md, "Stats"): each
    port's datagrams received, refused and lost, its rate since the last
    report and the sources heard on it lately, and the sync round trips;
    sent on the bus every GW_STATS_US for physics to publish.
*/
#ifndef GW_STATS_H_INCLUDED
#define GW_STATS_H_INCLUDED

#include <stdint.h>

#define GW_STATS_US       1000000  /* Stats to the bus this often */
#define GW_STAT_SOURCES   8        /* source addresses listed per port in Stats */
#define GW_SOURCE_SEEN_US 10000000 /* a source heard this recently is listed */

/* A port's counters, kept by the actor and its answers. */
typedef struct {
    uint64_t received, refused, lost;
    uint64_t last_received; /* at the last Stats, for the rate */
} gw_port_stats_t;

typedef struct gw_service_t gw_service_t;

/* Send the gateway's Stats at now (zclock_usecs) to the bus: every port's
   counters and its recent sources. The rates count from the last Stats. */
void gw_stats_publish (gw_service_t *self, int64_t now);

#endif
