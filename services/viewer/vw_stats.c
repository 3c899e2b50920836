/*  vw_stats.c - the services' Stats into the viewer's status (vw_stats.h). */
#include "vw_stats.h"

#include <stdio.h>
#include <string.h>

#include "common/logs/sim_stats.h"
#include "common/bus/sim_service.h"
#include "vw_player.h"
#include "vw_replay.h"
#include "vw_referee.h"

void
vw_stats_refresh (vw_service_t *self)
{
    vw_hub_t *hub = self->hub;
    const Simbus__Stats *st[VW_SERVICES] = { NULL };
    for (int i = 0; i < VW_SERVICES; i++)
        st[i] = self->stats[i] ? self->stats[i]->stats : NULL;
    bool alive[VW_SERVICES];
    vw_hub_alive (hub, zclock_usecs (), alive);
    vw_status_from_stats (&hub->status, &self->cfg, st[0], st[1], st[2], st[3], alive,
                          (double) (zclock_usecs () - self->started_us) / 1e6);
    Simbus__Stats own;
    sim_stats_begin (&own, sim_service_names[SIM_SERVICE_VIEWER], self->started_us);
    hub->status.restarts[VW_SERVICES - 1] = own.restarts;
    /* the newest truth is newer than physics' last Stats */
    if (self->have_truth)
        hub->status.t = (double) self->truth.time_ns / 1e9;
    hub->status.viewer_port = hub->ops_port;
    vw_referee_status (self, zclock_usecs ());
    if (self->player)
        vw_player_status (self);
    if (self->replay)
        vw_replay_status (self);
}

void
vw_stats_keep (vw_service_t *self, Simbus__Envelope *env)
{
    int i = sim_service_find (env->stats->service);
    if (i < 0 || i == VW_SERVICES - 1) {
        simbus__envelope__free_unpacked (env, NULL);
        return;
    }
    pthread_mutex_lock (&self->hub->lock);
    if (self->stats[i])
        simbus__envelope__free_unpacked (self->stats[i], NULL);
    self->stats[i] = env;
    self->hub->heard_us[i] = zclock_usecs ();
    vw_stats_refresh (self);
    pthread_mutex_unlock (&self->hub->lock);
}

void
vw_stats_release (vw_service_t *self)
{
    for (int i = 0; i < VW_SERVICES; i++)
        if (self->stats[i]) {
            simbus__envelope__free_unpacked (self->stats[i], NULL);
            self->stats[i] = NULL;
        }
}
