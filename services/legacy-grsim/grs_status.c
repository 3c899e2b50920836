/*  grs_status.c - Robots_Status to each team's legacy peer (see
    grs_status.h). */
#include "grs_status.h"

#include <czmq.h>
#include <string.h>

#include "grs_service_internal.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_bus_codec.h"
#include "common/base/sim_team.h"
#include "common/bus/sim_udp.h"
#include "common/config/config.h"
#include "grSim_Robotstatus.pb-c.h"

#define GRS_WITHHELD_LOG_US 1000000 /* a line about withheld statuses at most once a second */

/* Snapshots, events and frames matter only to a legacy peer's status;
   until the first grSim client speaks, not receiving them saves the cost
   of unpacking every snapshot and frame of a run that has no such client. */
static void
s_follow_world (grs_service_t *self)
{
    if (self->following)
        return;
    if (sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_EVENTS)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES)
        || sim_link_subscribe (self->link, SIMBUS__ENVELOPE__BODY_FRAMES_DONE))
        sim_error ("cannot follow the world; Robots_Status will not be sent");
    self->following = true;
}

void
grs_status_peer (grs_service_t *self, sim_team_t team, const struct sockaddr_in *from, size_t len)
{
    if (self->have_peer[team] && (self->peer[team].sin_addr.s_addr != from->sin_addr.s_addr)) {
        /* a new peer starts with a full status, like the first one did,
           and with nothing earned: the old peer's budget is not its */
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++)
            self->robots[team][id].sent = false;
        self->status_budget[team] = (sim_trust_budget_t) { 0 };
    }
    sim_trust_earn (&self->status_budget[team], self->trust, from, len);
    self->peer[team] = *from;
    self->have_peer[team] = true;
    s_follow_world (self);
}

/* A status over an untrusted peer's budget: counted, and a line at most
   every GRS_WITHHELD_LOG_US that names the setting to trust it. */
static void
s_withheld (grs_service_t *self, sim_team_t team, size_t len)
{
    self->status_withheld++;
    int64_t now = zclock_usecs ();
    if (self->withheld_logged_us && now - self->withheld_logged_us < GRS_WITHHELD_LOG_US)
        return;
    self->withheld_logged_us = now;
    char addr[32];
    sim_warn (
        "grSim port: a %zu-byte Robots_Status for %s's peer %s withheld: an untrusted source is sent at "
        "most %dx the bytes of its commands (add it to [network] trusted_sources to send it all; "
        "%llu withheld in all)",
        len, sim_team_name (team), sim_udp_addr_str (&self->peer[team], addr, sizeof addr), SIM_TRUST_RATIO,
        (unsigned long long) self->status_withheld);
}

/* Robots_Status for one team: the robots whose state changed since the
   last message to that team's peer (protocol.md §9.5). */
static void
s_send (grs_service_t *self, sim_team_t team)
{
    if (!self->have_peer[team])
        return;
    RobotStatus items[SIM_MAX_ROBOT_ID + 1];
    RobotStatus *ptrs[SIM_MAX_ROBOT_ID + 1];
    grs_robot_t *changed[SIM_MAX_ROBOT_ID + 1];
    size_t n = 0;
    for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++) {
        grs_robot_t *r = &self->robots[team][id];
        if (!r->present)
            continue;
        bool kick = r->kicked && self->frame_counter - r->kick_counter < GRS_KICK_FRAMES;
        bool flat = kick && !r->chip, chip = kick && r->chip;
        if (r->sent && r->sent_infrared == r->infrared && r->sent_flat == flat && r->sent_chip == chip)
            continue;
        robot__status__init (&items[n]);
        items[n].robot_id = id;
        items[n].infrared = r->infrared;
        items[n].flat_kick = flat;
        items[n].chip_kick = chip;
        ptrs[n] = &items[n];
        changed[n] = r;
        n++;
    }
    if (n == 0)
        return;
    RobotsStatus status = ROBOTS__STATUS__INIT;
    status.n_robots_status = n;
    status.robots_status = ptrs;
    size_t len = robots__status__get_packed_size (&status);
    if (len > SIM_UDP_MAX)
        return;
    if (!sim_trust_spend (&self->status_budget[team], len)) {
        s_withheld (self, team, len);
        return; /* unsent: the changes stay owed until the peer earns them */
    }
    for (size_t i = 0; i < n; i++) {
        changed[i]->sent = true;
        changed[i]->sent_infrared = items[i].infrared;
        changed[i]->sent_flat = items[i].flat_kick;
        changed[i]->sent_chip = items[i].chip_kick;
    }
    robots__status__pack (&status, self->buf);
    struct sockaddr_in to = self->peer[team];
    int base = team == SIM_TEAM_BLUE ? self->own.network.legacy_status_port_blue
                                     : self->own.network.legacy_status_port_yellow;
    to.sin_port = htons ((uint16_t) sim_config_port (&self->own, base));
    sim_udp_send (self->fd, self->buf, len, &to);
}

void
grs_status_on_snapshot (grs_service_t *self, const Simbus__Snapshot *msg)
{
    sim_snapshot_t snap;
    if (sim_bus_snapshot_decode (msg, &snap))
        return;
    if (!self->have_snapshot || snap.time_ns >= self->snapshot_ns)
        self->snapshot_ns = snap.time_ns;
    self->have_snapshot = true;
    for (int t = 0; t < 2; t++)
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++)
            self->robots[t][id].present = false;
    for (int i = 0; i < snap.robot_count; i++) {
        const sim_robot_state_t *r = &snap.robots[i];
        self->robots[r->team][r->id].present = true;
        self->robots[r->team][r->id].infrared = r->ball_contact;
    }
}

void
grs_status_on_events (grs_service_t *self, const Simbus__Events *msg)
{
    for (size_t i = 0; i < msg->n_events; i++) {
        sim_event_t e;
        if (sim_bus_event_decode (msg->events[i], &e) || e.kind != SIM_EVENT_KICK || e.team < 0 || e.id < 0)
            continue;
        grs_robot_t *r = &self->robots[e.team][e.id];
        r->kicked = true;
        r->chip = e.elevation_deg > 0.001;
        r->kick_counter = self->frame_counter;
    }
}

void
grs_status_flush (grs_service_t *self)
{
    if (!self->status_due || !self->have_snapshot || self->snapshot_ns < self->status_due_ns)
        return;
    self->status_due = false;
    s_send (self, SIM_TEAM_BLUE);
    s_send (self, SIM_TEAM_YELLOW);
}

/* A status is owed for the instant time_ns (the latest one owed). */
static void
s_due (grs_service_t *self, uint64_t time_ns)
{
    if (!self->status_due || time_ns > self->status_due_ns)
        self->status_due_ns = time_ns;
    self->status_due = true;
}

void
grs_status_on_frames (grs_service_t *self, const Simbus__Frames *frames)
{
    if (frames->n_wrapper == 0)
        return;
    /* every released frame of every camera ticks the kick counter */
    self->frame_counter += frames->n_wrapper;
    if (frames->has_step_id)
        self->step_frames += frames->n_wrapper; /* status at the end of the step */
    else
        s_due (self, frames->time_ns);
}

void
grs_status_on_frames_done (grs_service_t *self, const Simbus__FramesDone *done)
{
    if (self->step_frames > 0)
        s_due (self, done->time_ns);
    self->step_frames = 0;
}
