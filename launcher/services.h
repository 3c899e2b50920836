/*  services.h - the table of the five services the launcher knows. */
#ifndef LAUNCH_SERVICES_H_INCLUDED
#define LAUNCH_SERVICES_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>

#include "common/config/sim_config.h"

#define LAUNCH_SERVICE_COUNT 5

typedef struct {
    const char *name;
    zactor_fn *actor;
} launch_service_t;

extern const launch_service_t launch_services[LAUNCH_SERVICE_COUNT];

/* The service called `name`, or NULL. */
const launch_service_t *launch_service_find (const char *name);

/* Whether the configuration wants this service at all (legacy-grsim and
   the viewer can be switched off). */
bool launch_service_wanted (const launch_service_t *service, const sim_config_t *cfg);

#endif
