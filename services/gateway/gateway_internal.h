/*  gateway_internal.h - the gateway actor's state, private to
    services/gateway/: the actor (gateway.c) owns it; the glue of its
    features (gw_answers, gw_clientlog, gw_fairness, gw_gate, gw_stats)
    reads and counts in it, on the actor's thread only.
*/
#ifndef GATEWAY_INTERNAL_H_INCLUDED
#define GATEWAY_INTERNAL_H_INCLUDED

#include <czmq.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "gw_loss.h"
#include "gw_pace.h"
#include "gw_pending.h"
#include "gw_port.h"
#include "gw_sources.h"
#include "gw_stats.h"
#include "common/bus/sim_trust.h"
#include "common/bus/sim_tournament.h"
#include "common/base/sim_errors.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"
#include "common/config/sim_config.h"

/* a plain request physics did not answer this long is answered
   UNAVAILABLE: long enough for a crashed physics to be restarted and
   answer what waited for it (docs/protocol.md) */
#define GW_PLAIN_TTL_US 4000000

typedef struct gw_service_t gw_service_t;

/* One UDP port: its handler's argument. */
typedef struct {
    gw_service_t *service;
    gw_port_kind_t kind;
} gw_port_t;

struct gw_service_t {
    sim_config_t own, cfg;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    int fds[3];
    gw_port_t ports[3];
    uint8_t *buf;
    gw_pending_t *pending;
    sim_trust_t *trust;           /* who gets full answers; read at start */
    gw_pace_t *pace;              /* sync requests waiting for their turn */
    uint64_t sync_running;        /* bus id of the sync step physics has (0: none; gw_pace) */
    gw_sources_t *sources;        /* clients each port has heard, for the log */
    char last_change[256];        /* the latest configuration change logged, */
    struct sockaddr_in last_from; /* its source */
    int64_t last_change_us;       /* and when */
    int64_t news_window_us;       /* start of the window of new-source lines */
    int news_logged;              /* new-source lines in that window */
    uint64_t news_unlogged;       /* new sources past the window's share */
    sim_tournament_t *tournament; /* read at start: [tournament] */
    uint64_t sim_time_ns;         /* last time physics told us */
    gw_loss_t loss;               /* the packet-loss draws' position */
    bool warned_no_vision;
    uint64_t unreadable, lost_commands, lost_responses, frames_dropped;
    uint64_t stripped;          /* unknown fields dropped before forwarding */
    uint64_t unavailable;       /* plain requests physics did not answer in time */
    uint64_t sync_refused;      /* sync requests refused ([network] sync_takeover) */
    uint64_t answers_cut;       /* answers cut to an untrusted source's cap (gw_answers) */
    uint64_t answers_withheld;  /* of those, ones where not even an error's code fitted */
    int64_t rx_us;              /* zclock_usecs when the datagram being handled was read */
    size_t rx_cap;              /* the largest answer its source may get (sim_trust_cap) */
    bool rx_first;              /* the port had not heard from its source before (gw_sources) */
    sim_errors_t cut_errors;    /* a cut answer's errors, reused per answer */
    sim_errors_t answer_errors; /* a sync answer's errors, reused per answer */
    uint64_t config_serial;     /* of the configuration from physics; 0: none yet */
    gw_port_stats_t stats[3];
    uint64_t sync_answers;
    int64_t started_us, last_stats_us;
    int64_t expiry_us;  /* the earliest deadline of a pending request, or SIM_LOOP_NEVER */
    bool lane_deferred; /* the lane's replies wait for the next turn (gw_defer) */
};

#endif
