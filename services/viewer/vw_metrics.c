/*  vw_metrics.c - the status the page and /metrics show, from the services'
    Stats, and its Prometheus text (vw_json.h). One struct feeds both, so
    the status bar, /metrics and `ssl-sim status` show the same numbers. */
#include "vw_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_out.h"
#include "common/config/config.h"
#include "common/config/sim_schedule_config.h"

/* The protocol ports of one service's Stats (NULL: none) after those
   already in out: the gateway's, then legacy-grsim's grSim port. */
static void
s_ports (vw_status_t *out, const Simbus__Stats *st)
{
    for (size_t i = 0; st && i < st->n_ports && out->n_ports < VW_PORTS_MAX; i++) {
        const Simbus__PortStats *p = st->ports[i];
        vw_port_rate_t *o = &out->ports[out->n_ports++];
        snprintf (o->name, sizeof o->name, "%s", p->name ? p->name : "?");
        o->port = p->port;
        o->rate = p->rate;
        o->received = p->received;
        o->refused = p->refused;
        o->lost = p->lost;
        for (size_t k = 0; k < p->n_sources && o->n_sources < VW_SOURCES_MAX; k++)
            snprintf (o->sources[o->n_sources++], sizeof o->sources[0], "%s", p->sources[k]);
    }
}

void
vw_status_from_stats (vw_status_t *out, const sim_config_t *cfg, const Simbus__Stats *physics,
                      const Simbus__Stats *vision, const Simbus__Stats *gateway, const Simbus__Stats *legacy,
                      const bool alive[VW_SERVICES], double viewer_uptime_s)
{
    memset (out, 0, sizeof *out);
    out->mode = cfg->run.mode;
    out->speed = cfg->run.speed;
    out->paused = cfg->run.mode == SIM_MODE_REALTIME && !(cfg->run.speed > 0);
    out->loss = cfg->realism.robot_command_loss;
    sim_config_realism_label (cfg, out->realism, sizeof out->realism);
    sim_rig_t rig;
    sim_rig_resolve (cfg, &rig);
    out->camera_count = rig.count;
    const Simbus__Stats *by_service[VW_SERVICES] = { physics, vision, gateway, legacy, NULL };
    for (int i = 0; i < VW_SERVICES; i++) {
        out->alive[i] = alive[i];
        if (by_service[i]) {
            out->restarts[i] = by_service[i]->restarts;
            out->uptime_s[i] = by_service[i]->uptime_s;
        }
    }
    out->alive[VW_SERVICES - 1] = true;
    out->uptime_s[VW_SERVICES - 1] = viewer_uptime_s;
    if (physics) {
        out->have_physics = true;
        out->t = (double) physics->time_ns / 1e9;
        out->rtf = physics->rtf;
        out->substep_us = physics->substep_us;
        for (size_t i = 0; i < physics->n_substep_buckets && i < SIM_STATS_SUBSTEP_BUCKETS; i++)
            out->substep_buckets[i] = physics->substep_buckets[i];
        out->substeps = physics->substeps;
        out->substep_sum_us = physics->substep_sum_us;
        if (physics->has_running)
            out->paused = out->mode == SIM_MODE_REALTIME && !physics->running && !(cfg->run.speed > 0);
    }
    if (vision) {
        out->have_vision = true;
        for (size_t i = 0; i < vision->n_cameras && out->n_cameras < SIM_MAX_CAMERAS; i++) {
            /* vision counts every camera it ever sent for; a rig of 2
               after one of 4 has cameras 0 and 1 only */
            if ((int) vision->cameras[i]->id >= rig.count)
                continue;
            vw_camera_rate_t *c = &out->cameras[out->n_cameras++];
            c->id = (int) vision->cameras[i]->id;
            c->pps = vision->cameras[i]->pps;
            c->packets = vision->cameras[i]->packets;
        }
        out->has_latency = vision->has_latency_p50_ms && vision->latency_period_count > 0;
        out->latency_p50_ms = vision->latency_p50_ms;
        out->latency_p90_ms = vision->latency_p90_ms;
        out->latency_max_ms = vision->latency_max_ms;
        out->latency_period_count = vision->latency_period_count;
        out->latency_count = vision->latency_count;
        out->latency_sum_ms = vision->latency_sum_ms;
    }
    if (gateway) {
        out->have_gateway = true;
        out->sync_round_trips = gateway->sync_round_trips;
    }
    s_ports (out, gateway);
    s_ports (out, legacy);
}

/* ---- Prometheus text ---------------------------------------------------- */

static void
s_head (sim_out_t *o, const char *name, const char *type, const char *help)
{
    sim_out (o, "# HELP ssl_sim_%s %s\n# TYPE ssl_sim_%s %s\n", name, help, name, type);
}

/* A sample value as Prometheus reads it. */
static const char *
s_value (double v, char *buf, size_t len)
{
    if (isnan (v))
        return "NaN";
    if (isinf (v))
        return v > 0 ? "+Inf" : "-Inf";
    snprintf (buf, len, "%.9g", v);
    return buf;
}

char *
vw_metrics_text (const vw_status_t *st)
{
    sim_out_t o = { 0 };
    char v[64];
    s_head (&o, "up", "gauge", "1 while the service was heard from in the last 3 s");
    for (int i = 0; i < VW_SERVICES; i++)
        sim_out (&o, "ssl_sim_up{service=\"%s\"} %d\n", sim_service_names[i], st->alive[i] ? 1 : 0);
    s_head (&o, "service_restarts_total", "counter", "times the supervisor started the service again");
    for (int i = 0; i < VW_SERVICES; i++)
        sim_out (&o, "ssl_sim_service_restarts_total{service=\"%s\"} %u\n", sim_service_names[i],
                 st->restarts[i]);
    s_head (&o, "uptime_seconds", "gauge", "seconds since the service (process) started");
    for (int i = 0; i < VW_SERVICES; i++)
        if (st->alive[i])
            sim_out (&o, "ssl_sim_uptime_seconds{service=\"%s\"} %s\n", sim_service_names[i],
                     s_value (st->uptime_s[i], v, sizeof v));
    s_head (&o, "sim_time_seconds", "gauge", "simulation time");
    sim_out (&o, "ssl_sim_sim_time_seconds %s\n", s_value (st->t, v, sizeof v));
    s_head (&o, "speed", "gauge", "real-time scaling in force, 0 = paused");
    sim_out (&o, "ssl_sim_speed %s\n", s_value (st->speed, v, sizeof v));
    s_head (&o, "real_time_factor", "gauge", "simulated seconds per wall second over physics' last second");
    sim_out (&o, "ssl_sim_real_time_factor %s\n", s_value (st->rtf, v, sizeof v));
    s_head (&o, "substep_seconds", "histogram",
            "CPU time of physics' thread per substep (the mean of each run timed)");
    static const double bounds[] = SIM_STATS_SUBSTEP_BOUNDS_US;
    for (int i = 0; i < SIM_STATS_SUBSTEP_BUCKETS; i++) {
        if (i == SIM_STATS_SUBSTEP_BUCKETS - 1)
            sim_out (&o, "ssl_sim_substep_seconds_bucket{le=\"+Inf\"} %llu\n",
                     (unsigned long long) st->substep_buckets[i]);
        else
            sim_out (&o, "ssl_sim_substep_seconds_bucket{le=\"%g\"} %llu\n", bounds[i] / 1e6,
                     (unsigned long long) st->substep_buckets[i]);
    }
    sim_out (&o, "ssl_sim_substep_seconds_sum %s\n", s_value (st->substep_sum_us / 1e6, v, sizeof v));
    sim_out (&o, "ssl_sim_substep_seconds_count %llu\n", (unsigned long long) st->substeps);
    s_head (&o, "vision_packets_sent_total", "counter", "detection packets sent per camera");
    for (int i = 0; i < st->n_cameras; i++)
        sim_out (&o, "ssl_sim_vision_packets_sent_total{camera=\"%d\"} %llu\n", st->cameras[i].id,
                 (unsigned long long) st->cameras[i].packets);
    s_head (&o, "vision_packets_per_second", "gauge", "detection packets per second per camera");
    for (int i = 0; i < st->n_cameras; i++)
        sim_out (&o, "ssl_sim_vision_packets_per_second{camera=\"%d\"} %s\n", st->cameras[i].id,
                 s_value (st->cameras[i].pps, v, sizeof v));
    static const struct {
        const char *name, *help;
        size_t off;
    } counters[] = {
        { "datagrams_received_total", "datagrams read per protocol port (gateway and grSim)",
          offsetof (vw_port_rate_t, received) },
        { "datagrams_refused_total", "datagrams the gateway answered with its own error",
          offsetof (vw_port_rate_t, refused) },
        { "datagrams_lost_total", "commands and responses dropped by the configured packet loss",
          offsetof (vw_port_rate_t, lost) },
    };
    for (size_t c = 0; c < sizeof counters / sizeof counters[0]; c++) {
        s_head (&o, counters[c].name, "counter", counters[c].help);
        for (int i = 0; i < st->n_ports; i++) {
            const uint64_t *n = (const uint64_t *) ((const char *) &st->ports[i] + counters[c].off);
            sim_out (&o, "ssl_sim_%s{port=\"%s\",number=\"%u\"} %llu\n", counters[c].name, st->ports[i].name,
                     st->ports[i].port, (unsigned long long) *n);
        }
    }
    s_head (&o, "datagrams_per_second", "gauge",
            "datagrams per second per protocol port (gateway and grSim)");
    for (int i = 0; i < st->n_ports; i++)
        sim_out (&o, "ssl_sim_datagrams_per_second{port=\"%s\",number=\"%u\"} %s\n", st->ports[i].name,
                 st->ports[i].port, s_value (st->ports[i].rate, v, sizeof v));
    s_head (&o, "port_sources", "gauge", "source addresses heard on the port in the last 10 s");
    for (int i = 0; i < st->n_ports; i++)
        sim_out (&o, "ssl_sim_port_sources{port=\"%s\",number=\"%u\"} %d\n", st->ports[i].name,
                 st->ports[i].port, st->ports[i].n_sources);
    s_head (&o, "sync_round_trips_total", "counter", "lock-step sync requests answered");
    sim_out (&o, "ssl_sim_sync_round_trips_total %llu\n", (unsigned long long) st->sync_round_trips);
    /* a summary: quantiles over vision's last second (NaN when it measured
       none), count and sum since vision started */
    s_head (&o, "command_latency_seconds", "summary",
            "team command read by the gateway to the first detection packet sent that shows it");
    sim_out (&o, "ssl_sim_command_latency_seconds{quantile=\"0.5\"} %s\n",
             s_value (st->has_latency ? st->latency_p50_ms / 1e3 : NAN, v, sizeof v));
    sim_out (&o, "ssl_sim_command_latency_seconds{quantile=\"0.9\"} %s\n",
             s_value (st->has_latency ? st->latency_p90_ms / 1e3 : NAN, v, sizeof v));
    sim_out (&o, "ssl_sim_command_latency_seconds_sum %s\n", s_value (st->latency_sum_ms / 1e3, v, sizeof v));
    sim_out (&o, "ssl_sim_command_latency_seconds_count %llu\n", (unsigned long long) st->latency_count);
    s_head (&o, "command_latency_max_seconds", "gauge",
            "the longest command latency over vision's last second");
    sim_out (&o, "ssl_sim_command_latency_max_seconds %s\n",
             s_value (st->has_latency ? st->latency_max_ms / 1e3 : NAN, v, sizeof v));
    s_head (&o, "robot_command_loss", "gauge", "configured robot command loss, 0..1");
    sim_out (&o, "ssl_sim_robot_command_loss %s\n", s_value (st->loss, v, sizeof v));
    if (o.oom) {
        free (o.buf);
        return NULL;
    }
    return o.buf;
}
