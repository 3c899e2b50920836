/*  gw_defer.c - realtime: the replies to a team's commands read at the
    gateway's next wake-up (see gw_defer.h). */
#include "gw_defer.h"

#include "gw_pace.h"

int64_t
gw_defer_plan (gw_service_t *self, int64_t now)
{
    int robots = gw_pending_kind_count (self->pending, GW_REQ_ROBOTS);
    bool defer = self->cfg.run.mode == SIM_MODE_REALTIME && self->cfg.run.speed > 0 && robots > 0
              && robots == gw_pending_count (self->pending) && gw_pace_count (self->pace) == 0;
    int64_t until = SIM_LOOP_NEVER;
    if (defer) {
        /* a RobotControl's deadline is its read time plus GW_PLAIN_TTL_US:
           the oldest one waiting sets the bound */
        const gw_request_t *oldest = gw_pending_oldest_of (self->pending, GW_REQ_ROBOTS);
        until = oldest ? oldest->deadline_us - GW_PLAIN_TTL_US + GW_DEFER_US : SIM_LOOP_NEVER;
        defer = oldest && now < until;
    }
    if (defer != self->lane_deferred)
        self->lane_deferred = sim_link_defer_lane (self->link, defer) && defer;
    return self->lane_deferred ? until : SIM_LOOP_NEVER;
}

void
gw_defer_catch_up (gw_service_t *self)
{
    if (self->lane_deferred)
        sim_link_receive_spun (self->link);
}
