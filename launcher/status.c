/*  status.c - `ssl-sim status`: each service's process from its pid file
    and /proc, and one second of the bus for the rates (control.h). */
#include "control.h"
#include "control_internal.h"

#include <czmq.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "services.h"
#include "services/viewer/viewer.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_curve.h"
#include "common/bus/sim_link.h"
#include "common/base/sim_log.h"

#define CTL_SAMPLE_MS 1000 /* bus and CPU sampling window */
#define CTL_STATS_MS  2500 /* longest wait for the gateway's Stats */

/* What the bus shows during one window: physics's clock and snapshots,
   vision's released frames, the newest Stats of the gateway and
   legacy-grsim (their ports) and of vision (the command->vision
   latency): the numbers the viewer's /metrics shows. */
typedef struct {
    int clocks, snapshots, frames, packets;
    uint64_t first_ns, last_ns;
    int64_t first_ms, last_ms;
    uint32_t robots, mode;
    bool running;
    Simbus__Envelope *gateway, *legacy, *vision; /* owned, NULL until one came */
} ctl_bus_t;

static bool
s_on_sample (void *arg, Simbus__Envelope *env, const sim_link_from_t *from)
{
    ctl_bus_t *out = arg;
    (void) from;
    if (env->body_case == SIMBUS__ENVELOPE__BODY_CLOCK) {
        int64_t now = zclock_mono ();
        if (out->clocks++ == 0) {
            out->first_ns = env->clock->time_ns;
            out->first_ms = now;
        }
        out->last_ns = env->clock->time_ns;
        out->last_ms = now;
        out->robots = env->clock->robots;
        out->mode = env->clock->mode;
        out->running = env->clock->running;
    } else if (env->body_case == SIMBUS__ENVELOPE__BODY_SNAPSHOT)
        out->snapshots++;
    else if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES) {
        out->frames++;
        out->packets += (int) env->frames->n_wrapper;
    } else if (env->body_case == SIMBUS__ENVELOPE__BODY_STATS && env->stats->service) {
        int id = sim_service_find (env->stats->service);
        Simbus__Envelope **slot = id == SIM_SERVICE_GATEWAY ? &out->gateway
                                : id == SIM_SERVICE_LEGACY  ? &out->legacy
                                : id == SIM_SERVICE_VISION  ? &out->vision
                                                            : NULL;
        if (slot) {
            if (*slot)
                simbus__envelope__free_unpacked (*slot, NULL);
            *slot = env;
            return true;
        }
    }
    return false;
}

/* Sample the bus into *out for CTL_SAMPLE_MS. Returns 0, or -1 when this
   tool cannot join the bus at all (its CURVE certificate cannot be
   loaded, say: sim_link_new logged why). */
static int
s_bus_sample (const sim_config_t *cfg, bool gateway_up, ctl_bus_t *out)
{
    memset (out, 0, sizeof *out);
    sim_link_t *link = sim_link_new (cfg, SIM_LINK_TOOL);
    sim_loop_t *loop = sim_loop_new ();
    int rc = link ? 0 : -1;
    if (link && loop && sim_link_subscribe (link, SIMBUS__ENVELOPE__BODY_CLOCK) == 0
        && sim_link_subscribe (link, SIMBUS__ENVELOPE__BODY_SNAPSHOT) == 0
        && sim_link_subscribe (link, SIMBUS__ENVELOPE__BODY_FRAMES) == 0
        && sim_link_subscribe (link, SIMBUS__ENVELOPE__BODY_STATS) == 0
        && sim_link_attach (link, loop, 0, s_on_sample, out) == 0) {
        int64_t start = zclock_mono ();
        int64_t end = start + CTL_SAMPLE_MS;
        while (!zsys_interrupted) {
            /* the gateway's Stats come once a second: wait a little longer
               for them when the window closed before one came */
            if (zclock_mono () >= end && !out->gateway && gateway_up && end < start + CTL_STATS_MS)
                end = start + CTL_STATS_MS;
            int64_t left = end - zclock_mono ();
            if (left <= 0 || sim_loop_wait (loop, (int) left) < 0)
                break;
            sim_loop_dispatch (loop);
        }
    }
    sim_loop_destroy (&loop);
    sim_link_destroy (&link);
    return rc;
}

/* With a CURVE tcp bus that showed nothing: ask physics' world socket
   whether it admits this tool's certificate, by one handshake watched on
   its monitor. Returns true, with the reason in why, when physics
   refused it (or it broke off the handshake); false when it admitted it
   or nothing answered (then the bus is elsewhere, not refusing). */
static bool
s_curve_refused (const sim_config_t *cfg, char *why, size_t len)
{
    const char *endpoint = cfg->bus.world_connect;
    if (!cfg->bus.curve || !sim_curve_applies (endpoint))
        return false;
    char err[SIM_STRING_MAX + 128];
    sim_curve_t *curve = sim_curve_new (&cfg->bus, SIM_CURVE_PHYSICS, "status", err, sizeof err);
    if (!curve) {
        snprintf (why, len, "cannot see the bus: %s", err);
        return true;
    }
    bool refused = false;
    zsock_t *sub = zsock_new (ZMQ_SUB);
    zactor_t *monitor = sub ? zactor_new (zmonitor, sub) : NULL;
    if (monitor) {
        zstr_sendx (monitor, "LISTEN", "HANDSHAKE_SUCCEEDED", "HANDSHAKE_FAILED_PROTOCOL",
                    "HANDSHAKE_FAILED_AUTH", "HANDSHAKE_FAILED_NO_DETAIL", NULL);
        zstr_sendx (monitor, "START", NULL);
        zsock_wait (monitor);
        sim_curve_client (curve, sub, false);
        zsock_set_rcvtimeo (monitor, CTL_SAMPLE_MS);
        zmsg_t *msg = zsock_connect (sub, "%s", endpoint) == 0 ? zmsg_recv (monitor) : NULL;
        char *event = msg ? zmsg_popstr (msg) : NULL;
        if (event && strcmp (event, "HANDSHAKE_SUCCEEDED") != 0) {
            refused = true;
            snprintf (
                why, len,
                "cannot see the bus: physics at %s refused this tool's CURVE handshake (%s): its [bus] curve_allow must "
                "hold the public half of [bus] curve_cert %s, and curve_server must be physics' key",
                endpoint,
                strcmp (event, "HANDSHAKE_FAILED_AUTH") == 0 ? "certificate not allowed"
                                                             : "keys do not match",
                cfg->bus.curve_cert);
        }
        zstr_free (&event);
        zmsg_destroy (&msg);
    }
    zactor_destroy (&monitor);
    zsock_destroy (&sub);
    sim_curve_destroy (&curve);
    return refused;
}

static void
s_format_uptime (double s, char *buf, size_t len)
{
    if (s < 120)
        snprintf (buf, len, "%.0fs", s);
    else if (s < 7200)
        snprintf (buf, len, "%.0fm%02.0fs", floor (s / 60), fmod (s, 60));
    else
        snprintf (buf, len, "%.0fh%02.0fm", floor (s / 3600), floor (fmod (s, 3600) / 60));
}

/* The protocol ports from the gateway's (and legacy-grsim's) Stats:
   commands/s over its last second, counters since it started, and the
   source addresses heard in the last 10 s (docs/viewer.md). */
static void
s_print_ports (const ctl_bus_t *bus)
{
    const Simbus__Envelope *envs[] = { bus->gateway, bus->legacy };
    bool header = false;
    for (int e = 0; e < 2; e++) {
        if (!envs[e])
            continue;
        const Simbus__Stats *st = envs[e]->stats;
        for (size_t i = 0; i < st->n_ports; i++) {
            const Simbus__PortStats *p = st->ports[i];
            if (!header) {
                printf ("\n%-8s %6s %10s %10s %8s %8s  %s\n", "PORT", "NUMBER", "CMDS/S", "RECEIVED",
                        "REFUSED", "LOST", "SOURCES (last 10 s)");
                header = true;
            }
            char sources[512] = "";
            size_t used = 0;
            for (size_t k = 0; k < p->n_sources && used < sizeof sources; k++) {
                int n =
                    snprintf (sources + used, sizeof sources - used, "%s%s", k ? ", " : "", p->sources[k]);
                if (n < 0)
                    break;
                used += (size_t) n;
            }
            printf ("%-8s %6u %10.1f %10llu %8llu %8llu  %s\n", p->name ? p->name : "?", p->port,
                    p->has_rate ? p->rate : 0.0, (unsigned long long) p->received,
                    (unsigned long long) p->refused, (unsigned long long) p->lost,
                    p->n_sources ? sources : "-");
        }
    }
    if (!header && !bus->gateway)
        printf ("\nno port counters on the bus (the gateway sends them once a second)\n");
}

/* Vision's row: packets/s, and the command->vision latency of its last
   Stats when commands were measured in that second (docs/viewer.md). */
static void
s_vision_rates (const ctl_bus_t *bus, double wall, char *buf, size_t len)
{
    int n = snprintf (buf, len, "%.0f packets/s", bus->packets / wall);
    const Simbus__Stats *st = bus->vision ? bus->vision->stats : NULL;
    if (n > 0 && (size_t) n < len && st && st->has_latency_p50_ms && st->latency_period_count)
        snprintf (buf + n, len - (size_t) n,
                  ", command->vision latency p50 %.1f ms, p90 %.1f ms, max %.1f ms", st->latency_p50_ms,
                  st->latency_p90_ms, st->latency_max_ms);
}

int
launch_status (const sim_config_t *cfg)
{
    ctl_proc_t procs[LAUNCH_SERVICE_COUNT];
    int running = 0, wanted = 0;
    /* a service switched off (--no-legacy-grsim, --no-viewer) is not missing */
    bool want[LAUNCH_SERVICE_COUNT];
    launch_services_started (cfg, want);
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++) {
        ctl_proc_find (cfg, launch_services[i].name, &procs[i]);
        running += procs[i].alive;
        wanted += want[i] || procs[i].alive;
    }
    char dir[SIM_STRING_MAX] = "?";
    sim_bus_runtime_dir_find (cfg, dir, sizeof dir); /* a query makes none */
    if (running == 0) {
        const char *units = getenv ("SSL_SIM_UNITS_RUNTIME");
        printf ("no ssl-sim services running (runtime directory %s; the systemd units' %s/ssl-sim has none "
                "either)\n",
                dir, units && *units ? units : LAUNCH_UNITS_RUNTIME);
        return 3;
    }
    double cpu0[LAUNCH_SERVICE_COUNT];
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        cpu0[i] = procs[i].cpu_s;
    int64_t t0 = zclock_mono ();
    ctl_bus_t bus;
    bool gateway_up = false;
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        gateway_up |= procs[i].alive && i == SIM_SERVICE_GATEWAY;
    bool joined = s_bus_sample (cfg, gateway_up, &bus) == 0;
    double wall = (double) (zclock_mono () - t0) / 1000.0;

    /* nothing at all in a second while physics runs: the services use
       another bus (a tcp [bus] from their --config), or it is stuck. Say
       so rather than print rates of zero. */
    bool blind = bus.clocks == 0 && bus.frames == 0 && bus.snapshots == 0 && procs[SIM_SERVICE_PHYSICS].alive
              && strcmp (procs[SIM_SERVICE_PHYSICS].supervisor, "single") != 0;
    char blind_why[2 * SIM_STRING_MAX + 256] = "";
    bool refused = false;
    if (blind) {
        const char *ep = cfg->bus.world_connect;
        struct stat st;
        if (!joined) {
            refused = true;
            snprintf (blind_why, sizeof blind_why,
                      "cannot see the bus: cannot join it (the reason is above)");
        } else if (s_curve_refused (cfg, blind_why, sizeof blind_why))
            refused = true;
        else if (strncmp (ep, "ipc://", 6) == 0 && stat (ep + 6, &st) != 0)
            snprintf (blind_why, sizeof blind_why,
                      "cannot see the bus: nothing serves %s, so the services use another [bus] (tcp?); "
                      "run status with their --config",
                      ep);
        else
            snprintf (blind_why, sizeof blind_why, "cannot see the bus: no message on %s in %d ms", ep,
                      CTL_SAMPLE_MS);
    }
    printf ("runtime directory %s\n", dir);
    printf ("%-13s %8s %9s %-9s %6s %8s  %s\n", "SERVICE", "PID", "UPTIME", "BY", "CPU", "RSS", "RATES");
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++) {
        const char *name = launch_services[i].name;
        ctl_proc_t *p = &procs[i];
        if (!p->alive && !want[i])
            continue;
        if (!p->alive) {
            printf ("%-13s %8s %9s %-9s %6s %8s  %s\n", name, "-", "-", "-", "-", "-",
                    p->pid ? "not running (stale pid file)" : "not running");
            continue;
        }
        ctl_proc_sample (p);
        char up[32], rates[160] = "";
        s_format_uptime (p->uptime_s, up, sizeof up);
        double cpu = wall > 0 ? (p->cpu_s - cpu0[i]) / wall : 0;
        if (strcmp (p->supervisor, "single") == 0)
            /* its bus is inproc, inside the process: no tool can sample it */
            snprintf (rates, sizeof rates, "%s",
                      i == SIM_SERVICE_PHYSICS
                          ? "single-process: its bus is inside it, the rates are in its log"
                          : "");
        else if (blind && (i == SIM_SERVICE_PHYSICS || i == SIM_SERVICE_VISION))
            snprintf (rates, sizeof rates, "cannot see the bus");
        else if (i == SIM_SERVICE_PHYSICS && bus.clocks >= 2 && bus.last_ms > bus.first_ms)
            snprintf (rates, sizeof rates, "sim %.2fs, rtf %.2fx, %.0f snapshots/s, %u robots, %s",
                      (double) bus.last_ns / 1e9,
                      (double) (bus.last_ns - bus.first_ns) / 1e6 / (double) (bus.last_ms - bus.first_ms),
                      bus.snapshots / wall, bus.robots,
                      bus.mode == 1   ? "fast"
                      : bus.mode == 2 ? "sync"
                      : bus.running   ? "realtime"
                                      : "paused");
        else if (i == SIM_SERVICE_PHYSICS)
            snprintf (rates, sizeof rates, "no clock on the bus");
        else if (i == SIM_SERVICE_VISION)
            s_vision_rates (&bus, wall, rates, sizeof rates);
        /* a single-process simulator runs every service in one process:
           its CPU and memory are shown once, on the first row */
        bool shared = false;
        for (int j = 0; j < i; j++)
            shared |= procs[j].alive && procs[j].pid == p->pid;
        if (shared)
            printf ("%-13s %8d %9s %-9s %6s %8s  %s\n", name, p->pid, up, p->supervisor, "\"", "\"", rates);
        else
            printf ("%-13s %8d %9s %-9s %5.1f%% %5.1fMiB  %s\n", name, p->pid, up, p->supervisor, 100.0 * cpu,
                    p->rss_mib, rates);
    }
    s_print_ports (&bus);
    char page[SIM_STRING_MAX + 128];
    if (procs[SIM_SERVICE_VIEWER].alive && vw_viewer_url (cfg, page, sizeof page) == 0)
        printf ("viewer page: %s\n", page);
    if (blind)
        printf ("%s\n", blind_why);
    if (bus.gateway)
        simbus__envelope__free_unpacked (bus.gateway, NULL);
    if (bus.legacy)
        simbus__envelope__free_unpacked (bus.legacy, NULL);
    if (bus.vision)
        simbus__envelope__free_unpacked (bus.vision, NULL);
    if (refused)
        return 4; /* the processes run, but this tool may not see them */
    return running >= wanted ? 0 : 1;
}
