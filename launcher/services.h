/*  services.h - the five services' actors, by service (sim_service.h). */
#ifndef LAUNCH_SERVICES_H_INCLUDED
#define LAUNCH_SERVICES_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/bus/sim_service.h"
#include "common/config/sim_config.h"

#define LAUNCH_SERVICE_COUNT SIM_SERVICE_COUNT

typedef struct {
    const char *name; /* sim_service_names' */
    zactor_fn *actor;
} launch_service_t;

/* Indexed by sim_service_id_t, in its (start) order. */
extern const launch_service_t launch_services[LAUNCH_SERVICE_COUNT];

/* The service called `name`, or NULL. */
const launch_service_t *launch_service_find (const char *name);

/* Whether the configuration wants this service at all
   (sim_service_wanted). */
bool launch_service_wanted (const launch_service_t *service, const sim_config_t *cfg);

/* Whether `ssl-sim restart` may restart this service as a thread of a
   single-process simulator (single.h): true for the services that only
   connect to the bus. Physics binds cmd and world and vision binds frames
   on inproc endpoints, and an inproc connection does not come back to a
   new binder, so the other threads would go deaf; physics also keeps no
   checkpoint in that mode, so its world would start again. */
bool launch_service_thread_restart (const launch_service_t *service);

#endif
