/*  viewer_internal.h - the viewer service's state, shared by the actor
    (viewer.c: the loop, the handler table, life) and the files of its
    features (vw_pages: feeding the pages, vw_stats: the services' Stats
    into the status). Private to this folder: the actor thread owns the
    struct and every function that takes it runs on that thread; what the
    server's threads may touch is in the hub (vw_hub.h), under its lock.
*/
#ifndef VIEWER_INTERNAL_H_INCLUDED
#define VIEWER_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_snapshot.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"
#include "common/config/sim_config.h"
#include "common/logs/sim_referee.h"
#include "vw_commands.h"
#include "vw_door.h"
#include "vw_frames.h"
#include "vw_http.h"
#include "vw_hub.h"
#include "vw_json.h"

#define VW_STATUS_US    500000   /* "status" to the pages twice a second */
#define VW_KICKS        64       /* kicks remembered for pages that have not had them */
#define VW_PAGE_IDLE_US 10000000 /* a page that asked for nothing this long gets no status */

typedef struct {
    sim_config_t own, cfg;
    uint64_t config_serial;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */
    vw_hub_t *hub;
    vw_http_t *http;
    vw_door_t *door; /* who may come in and act; the server borrows it */
    bool watching;   /* subscribed to snapshots, events and frames */

    sim_snapshot_t truth;
    bool have_truth;
    uint64_t serial;     /* bumped per snapshot */
    vw_frames_t *frames; /* the newest vision packets */
    int camera_count;    /* of the rig in force */
    vw_kick_t kicks[VW_KICKS];
    uint64_t kick_seq;      /* kicks seen in all; the newest is kicks[(kick_seq - 1) % VW_KICKS] */
    vw_text_t world_text;   /* the "world" being sent, its buffer reused */
    vw_commands_t commands; /* each robot's last command, while pages watch */

    int referee_fd;        /* the referee multicast, or -1 */
    uint8_t *referee_buf;  /* one datagram */
    sim_referee_t referee; /* the newest packet, while pages watch */
    int64_t referee_us;    /* when it came (zclock_usecs); 0: none */
    uint64_t referee_bad;  /* packets there that were no Referee */

    struct vw_player_t *player; /* `ssl-sim play`: the log played (vw_player.h); NULL otherwise */
    double player_t;            /* the time of the newest vision record it played */
    struct vw_replay_t *replay; /* `ssl-sim replay`: its timeline (vw_replay.h); NULL otherwise */

    Simbus__Envelope *stats[VW_SERVICES]; /* newest Stats per service, owned */
    int status_timer;                     /* armed while pages are connected */
    int64_t started_us;
} vw_service_t;

#endif
