/*  vision_internal.h - the vision actor's state, shared by the actor
    (vision.c: the loop, the handlers, life) and the files of its features:
    vis_send (UDP), vis_sync (a sync step's packets and answer), vis_record
    (--record) and vis_report (Stats). Private to services/vision/; only
    the actor's thread touches it.
*/
#ifndef VISION_INTERNAL_H_INCLUDED
#define VISION_INTERNAL_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"
#include "common/config/config.h"
#include "common/logs/sim_logfile.h"
#include "common/logs/sim_stats.h"
#include "engine/vision/vis_model.h"

#define VIS_TURN_MAX     256          /* world messages handled per loop turn */
#define VIS_HELD_FRAMES  256          /* packets of one sync step kept for the gateway (the newest) */
#define VIS_HELD_BYTES   (192 * 1024) /* ... and at most this many bytes (< SIM_LINK_MESSAGE_MAX) */
#define VIS_FLUSH_US     10000        /* a sync step's UDP packets go out at most this late */
#define VIS_PAUSED_US    1000000      /* while paused, geometry this often */
#define VIS_LOG_FLUSH_US 1000000      /* --record: the log file is pushed to disk this often */
#define VIS_STATS_US     1000000      /* Stats to the bus this often */
#define VIS_SENDQ_MAX    64           /* UDP packets handed to the kernel in one sendmmsg */
#define VIS_SENDQ_BYTES  (512 * 1024) /* ... holding at most this many bytes */

/* The UDP packets of one loop turn, sent together with sendmmsg(2) at its
   end (or when full): in fast mode one lane datagram brings vision dozens
   of snapshots, and a sendto per packet was most of the system calls of
   the whole simulator. The packets keep their order and bytes; only the
   number of kernel entries changes, and, in a realtime run whose
   timestamps follow the wall clock, each detection's t_sent is written
   just before the sendmmsg that hands it to the kernel (vis_send.h). */
typedef struct {
    size_t count, used;
    struct mmsghdr msg[VIS_SENDQ_MAX];
    struct iovec iov[VIS_SENDQ_MAX];
    struct sockaddr_in to[VIS_SENDQ_MAX];
    bool counted[VIS_SENDQ_MAX];     /* a vision packet (sent/send_failures), not truth */
    size_t stamp[VIS_SENDQ_MAX];     /* where its t_sent's 8 bytes sit, stamped at the send; 0: none */
    double t_capture[VIS_SENDQ_MAX]; /* of a packet to stamp: t_sent is never before it */
    uint8_t *bytes;                  /* VIS_SENDQ_BYTES */
} vis_sendq_t;

/* A sync step's packets, handed to the gateway in one message with the
   step's end, and sent by UDP after it (with the next step's first
   packets, or VIS_FLUSH_US later; a short poll timeout costs as much as
   the sends on a virtual machine): a loopback send costs ~10 us there,
   which the sync answer need not wait for.
   Only the newest are kept (an older one goes out by UDP when it leaves):
   the answer is one UDP datagram, which holds the newest ~90 frames, far
   below these bounds (and the bytes bound keeps the message within what
   every bus carrier takes). */
_Static_assert(VIS_HELD_BYTES + 4096 < SIM_LINK_MESSAGE_MAX, "a step's end must fit one bus message");

typedef struct {
    uint64_t step_id;
    size_t count, used;
    size_t off[VIS_HELD_FRAMES], len[VIS_HELD_FRAMES];
    uint8_t *bytes; /* VIS_HELD_BYTES */
} vis_held_t;

typedef struct {
    sim_config_t own; /* this process's parse: endpoints, ports */
    sim_config_t cfg; /* effective configuration from physics */
    bool have_config;
    uint64_t config_serial;
    vis_model_t *model;
    sim_link_t *link;
    sim_loop_t *loop;
    vis_held_t step;
    int flush_timer;            /* the kept packets' UDP sends are due */
    int udp;                    /* multicast by [network] multicast_interface, or unicast */
    int local_udp;              /* --localhost multicast through the loopback interface; -1 = none yet */
    struct in_addr local_group; /* the group local_udp joined on the loopback interface */
    int out;                    /* the socket in use: udp or local_udp */
    struct sockaddr_in dest, truth_dest;
    char truth_uuid[64];
    int64_t epoch_us;      /* the Unix base physics sends with the snapshots */
    bool paused;           /* speed 0 outside sync: geometry once a second */
    int geometry_timer;    /* while paused */
    bool advanced;         /* the model has seen a snapshot */
    uint64_t last_time_ns; /* of the last snapshot fed to the model */
    uint8_t *packets;      /* VIS_STEP_BYTES of engine/world/vis_step.h: one instant's packets */
    uint64_t sent, send_failures;
    vis_sendq_t sendq; /* this turn's UDP packets, for self->out */

    /* --record FILE (docs/logs.md): every packet as it is released, here
       where it is made, so nothing between release and file can lose one
       (fast mode included); the referee multicast is recorded beside it.
       Log times: vis_record.h. */
    sim_logfile_writer_t *log;
    int referee; /* the referee multicast, -1 when not recording */
    bool log_origin_set;
    int64_t log_origin_ns;
    bool replaying; /* `ssl-sim replay`: end with the replay */
    uint8_t *referee_buf;
    /* Stats (sim_stats.h): detection packets made per camera id since start */
    uint64_t camera_packets[SIM_MAX_CAMERAS], camera_last[SIM_MAX_CAMERAS];
    bool camera_seen[SIM_MAX_CAMERAS];
    int64_t started_us, last_stats_us;
    sim_latency_t latency; /* command->vision, for Stats only: never on the wire */
} vis_service_t;

#endif
