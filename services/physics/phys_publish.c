/*  phys_publish.c - snapshots, events, configuration and clock to the bus
    (see phys_publish.h). */
#include "phys_publish.h"

void
phys_publish_snapshot (phys_service_t *self, bool has_step, uint64_t step_id)
{
    sim_snapshot_t snap;
    phys_world_snapshot (self->world, &snap);
    snap.epoch_us = self->epoch_us;
    snap.command_us = self->command_us;
    if (sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_SNAPSHOT))
        sim_link_send (self->link, sim_bus_snapshot_encode (&self->snapshot_msg, &snap, has_step, step_id));
    phys_policy_published (&self->published, snap.time_ns);
}

void
phys_publish_events (phys_service_t *self)
{
    const phys_event_t *events;
    int n = phys_world_events (self->world, &events);
    if (n <= 0 || !sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_EVENTS))
        return;
    sim_event_t items[SIM_BUS_EVENTS_MAX];
    if (n > SIM_BUS_EVENTS_MAX)
        n = SIM_BUS_EVENTS_MAX;
    for (int i = 0; i < n; i++) {
        const phys_event_t *e = &events[i];
        items[i] = (sim_event_t) { (sim_event_kind_t) e->kind,
                                   e->time_ns,
                                   e->team,
                                   e->id,
                                   e->other_team,
                                   e->other_id,
                                   e->speed,
                                   e->elevation_deg };
    }
    sim_bus_events_msg_t msg;
    sim_link_send (self->link, sim_bus_events_encode (&msg, items, n));
}

void
phys_publish_config (phys_service_t *self)
{
    sim_bus_config_msg_t msg;
    Simbus__Envelope *env = sim_bus_config_encode (&msg, &self->cfg, self->config_serial);
    if (env)
        sim_link_send (self->link, env);
    sim_bus_config_msg_release (&msg);
    self->config_due = false;
}

void
phys_publish_clock (phys_service_t *self, int64_t now)
{
    sim_bus_clock_msg_t msg;
    sim_link_send (self->link,
                   sim_bus_clock_encode (&msg, phys_world_time_ns (self->world), self->cfg.run.mode,
                                         phys_clock_running (&self->clock, now),
                                         phys_world_robot_count (self->world)));
}

void
phys_publish_commands (phys_service_t *self, Simbus__TeamControl *control)
{
    if (!sim_link_wanted (self->link, SIMBUS__ENVELOPE__BODY_COMMANDS))
        return;
    Simbus__Commands msg = SIMBUS__COMMANDS__INIT;
    msg.time_ns = phys_world_time_ns (self->world);
    msg.control = control;
    msg.n_feedback = self->applied.feedback.count;
    msg.feedback = self->applied.feedback.ptrs;
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_COMMANDS, &msg);
    sim_link_send (self->link, &env);
}
