/*  services.c - service names to actors. */
#include "services.h"

#include <string.h>

#include "services/gateway/gateway.h"
#include "services/legacy-grsim/grs_service.h"
#include "services/physics/physics.h"
#include "services/viewer/viewer.h"
#include "services/vision/vision.h"

/* Start order matters only for logs: the binders come first. */
const launch_service_t launch_services[LAUNCH_SERVICE_COUNT] = {
    { "physics", phys_service_actor },     { "vision", vis_service_actor }, { "gateway", gw_service_actor },
    { "legacy-grsim", grs_service_actor }, { "viewer", vw_service_actor },
};

const launch_service_t *
launch_service_find (const char *name)
{
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        if (strcmp (launch_services[i].name, name) == 0)
            return &launch_services[i];
    return NULL;
}

bool
launch_service_wanted (const launch_service_t *service, const sim_config_t *cfg)
{
    if (strcmp (service->name, "legacy-grsim") == 0)
        return cfg->run.legacy_grsim;
    if (strcmp (service->name, "viewer") == 0)
        return cfg->viewer.enabled;
    return true;
}
