/*  grs_service_internal.h - the legacy-grsim actor's state, private to
    services/legacy-grsim/: the actor (grs_service.c) owns it; the glue of
    its features (grs_status, grs_stats) reads and counts in it, on the
    actor's thread only.
*/
#ifndef GRS_SERVICE_INTERNAL_H_INCLUDED
#define GRS_SERVICE_INTERNAL_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "grs_status.h"
#include "grs_translate.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"
#include "common/bus/sim_tournament.h"
#include "common/bus/sim_trust.h"
#include "common/config/sim_config.h"

typedef struct grs_service_t grs_service_t;

struct grs_service_t {
    sim_config_t own, cfg;
    uint64_t config_serial; /* of cfg, from physics; 0: none yet */
    char source[64];        /* --journal: the sender of the datagram being handled */
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    int fd;
    uint8_t *buf;
    uint64_t next_id;
    uint64_t frame_counter; /* released frames of any camera */
    uint64_t snapshot_ns;   /* time of the newest snapshot */
    bool have_snapshot;
    bool status_due; /* a Robots_Status is owed for status_due_ns */
    uint64_t status_due_ns;
    uint64_t step_frames; /* frames of the sync step in progress */
    bool have_peer[2];
    bool following; /* subscribed to snapshots, events, frames */
    struct sockaddr_in peer[2];
    sim_trust_t *trust;                  /* who gets all of its status; read at start */
    sim_trust_budget_t status_budget[2]; /* what each peer may still be sent */
    uint64_t status_withheld;            /* statuses over an untrusted peer's budget */
    int64_t withheld_logged_us;          /* the last line about them */
    grs_robot_t robots[2][SIM_MAX_ROBOT_ID + 1];
    uint64_t dropped;             /* undecodable datagrams */
    uint64_t forbidden;           /* packet parts tournament mode refused (grs_gate) */
    sim_tournament_t *tournament; /* read at start: [tournament] */
    uint64_t received, last_received;
    int64_t started_us, last_stats_us;
    grs_commands_t commands;       /* the packet's commands, as sent */
    grs_replacement_t replacement; /* the packet's replacement, as sent */
};

#endif
