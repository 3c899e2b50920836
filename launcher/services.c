/*  services.c - service names to actors. */
#include "services.h"

#include "services/gateway/gateway.h"
#include "services/legacy-grsim/grs_service.h"
#include "services/physics/physics.h"
#include "services/viewer/viewer.h"
#include "services/vision/vision.h"

#define S_SERVICE(id, actor) [id] = { sim_service_names[id], actor }

/* Start order matters only for logs: the binders come first. */
const launch_service_t launch_services[LAUNCH_SERVICE_COUNT] = {
    S_SERVICE (SIM_SERVICE_PHYSICS, phys_service_actor), S_SERVICE (SIM_SERVICE_VISION, vis_service_actor),
    S_SERVICE (SIM_SERVICE_GATEWAY, gw_service_actor),   S_SERVICE (SIM_SERVICE_LEGACY, grs_service_actor),
    S_SERVICE (SIM_SERVICE_VIEWER, vw_service_actor),
};

const launch_service_t *
launch_service_find (const char *name)
{
    int id = sim_service_find (name);
    return id < 0 ? NULL : &launch_services[id];
}

bool
launch_service_wanted (const launch_service_t *service, const sim_config_t *cfg)
{
    return sim_service_wanted ((sim_service_id_t) (service - launch_services), cfg);
}

bool
launch_service_thread_restart (const launch_service_t *service)
{
    return service != &launch_services[SIM_SERVICE_PHYSICS]
        && service != &launch_services[SIM_SERVICE_VISION];
}
