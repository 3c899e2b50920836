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

/* Whether the configuration wants this service at all (legacy-grsim and
   the viewer can be switched off). */
bool launch_service_wanted (const launch_service_t *service, const sim_config_t *cfg);

#endif
