/*  grs_stats.h - what the legacy-grsim actor reports (docs/viewer.md,
    "Stats"): the grSim port's datagrams received and refused (undecodable),
    its rate since the last report, and the teams' peers. Sent on the bus
    each time physics re-publishes the configuration (once a second), so
    the actor needs no timer of its own.
*/
#ifndef GRS_STATS_H_INCLUDED
#define GRS_STATS_H_INCLUDED

typedef struct grs_service_t grs_service_t;

/* Send the actor's Stats to the bus; the rate counts from the last Stats. */
void grs_stats_publish (grs_service_t *self);

#endif
