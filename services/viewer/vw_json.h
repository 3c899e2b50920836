/*  vw_json.h - what the viewer says to the page and what the page asks, as
    JSON text (docs/viewer.md): the server's messages from plain structs,
    and the page's ops parsed into one struct that trusts nothing.

    Every encoder returns a heap string the caller frees with free(), or
    NULL when out of memory. Pure: no clock, no socket, no lock.
*/
#ifndef VW_JSON_H_INCLUDED
#define VW_JSON_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/base/sim_out.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_service.h"
#include "common/config/sim_config.h"
#include "common/base/sim_snapshot.h"
#include "common/logs/sim_referee.h"
#include "engine/physics/phys_world.h"

#define VW_PROTOCOL_VERSION 1
#define VW_SOURCES_MAX      8  /* source addresses listed per port */
#define VW_KICKS_MAX        32 /* kicks carried by one "world" */
#define VW_OP_NESTING_MAX   8  /* arrays and objects an op may nest (vw_json_parse_op) */
/* The services the status and /metrics report, named and ordered as
   sim_service_names (vw_status_t.alive and .restarts) */
#define VW_SERVICES SIM_SERVICE_COUNT

/* The protocol ports the status shows: the gateway's three (control,
   blue, yellow) and legacy-grsim's one (grsim). */
#define VW_PORTS_MAX 4

typedef struct {
    int id;
    double pps;       /* packets/s over vision's last second */
    uint64_t packets; /* since vision started */
} vw_camera_rate_t;

typedef struct {
    char name[16]; /* control, blue, yellow */
    unsigned port;
    double rate; /* datagrams/s over the gateway's last second */
    uint64_t received, refused, lost;
    int n_sources;
    char sources[VW_SOURCES_MAX][48];
} vw_port_rate_t;

/* Everything the status bar and /metrics show: the newest Stats of each
   service (vw_status_from_stats), and the configuration in force. */
typedef struct {
    double t; /* sim s */
    sim_mode_t mode;
    double speed;
    bool paused;
    double rtf, substep_us;
    double loss; /* robot command loss in force, 0..1 */
    char realism[64];
    int camera_count;
    int n_cameras;
    vw_camera_rate_t cameras[SIM_MAX_CAMERAS];
    int n_ports;
    vw_port_rate_t ports[VW_PORTS_MAX]; /* the gateway's, then legacy-grsim's */
    bool alive[VW_SERVICES];
    uint32_t restarts[VW_SERVICES];
    double uptime_s[VW_SERVICES];
    uint64_t substep_buckets[SIM_STATS_SUBSTEP_BUCKETS];
    uint64_t substeps;
    double substep_sum_us;
    uint64_t sync_round_trips;
    /* command->vision latency (vision's Stats): over its last second when
       has_latency, ms; the totals since vision started */
    bool has_latency;
    double latency_p50_ms, latency_p90_ms, latency_max_ms;
    uint32_t latency_period_count;
    uint64_t latency_count;
    double latency_sum_ms;
    bool have_physics, have_gateway, have_vision; /* their Stats arrived at least once */
    int viewer_port;                              /* the UDP port the viewer's ops leave from; 0: none */
    /* the game controller's newest packet, when one came lately */
    bool has_referee;
    sim_referee_t referee;
    double referee_age_s;
    /* `ssl-sim play`: the log's timeline (docs/viewer.md "Playing a log") */
    bool has_player;
    double player_t, player_duration, player_speed;
    bool player_paused, player_ended;
    double player_next_command, player_next_goal; /* timeline s, or -1: none after t */
    bool player_journal;                          /* `ssl-sim replay`: a journal, not a log */
    double player_built;                          /* a journal: seeking up to here is fast (s) */
} vw_status_t;

/* A kick since the page's previous "world". */
typedef struct {
    int team, id;
    double speed, t;
} vw_kick_t;

/* The last command a team sent one robot (vw_commands.c keeps them). */
typedef struct {
    int team, id;
    uint64_t seq;       /* vw_commands' count of Commands messages when it came */
    uint64_t count;     /* commands this robot was sent since the page began watching */
    double t;           /* sim s it applied at */
    phys_command_t cmd; /* as physics reads it (phys_apply_robot_command_of) */
    bool has_kick_speed, has_kick_angle, has_dribbler; /* which the team set */
    bool has_contact, contact;                         /* the feedback sent back: ball at the dribbler */
} vw_command_t;

/* One "world": the newest truth, its kicks, each camera's newest frame
   (decoded wrapper packets, borrowed; NULL entries skipped), the robot
   commands that came since the page's previous world. */
typedef struct {
    const sim_snapshot_t *truth; /* NULL: vision only (a log played) */
    bool paused;
    int n_kicks;
    const vw_kick_t *kicks;
    int n_frames;
    const void *const *frames; /* SSLWrapperPacket * */
    int n_commands;
    const vw_command_t *const *commands;
    double t; /* the time shown when there is no truth (a log's) */
} vw_world_t;

/* The page's requests (docs/viewer.md "Page -> server"). */
typedef enum {
    VW_OP_NEXT,
    VW_OP_TELEPORT_BALL,
    VW_OP_TELEPORT_ROBOT,
    VW_OP_RESET,
    VW_OP_PAUSE,
    VW_OP_RESUME,
    VW_OP_STEP,
    VW_OP_SPEED,
    VW_OP_REALISM,
    VW_OP_CAMERAS,
    VW_OP_SEEK, /* a log's timeline: to "t" s */
    VW_OP_JUMP  /* a log's timeline: to the next "to": "command" or "goal" */
} vw_op_kind_t;

typedef struct {
    vw_op_kind_t kind;
    int64_t id;
    bool has_id;
    double x, y, z, vx, vy, vz, o, value;
    bool has_x, has_y, has_z, has_v, has_o, has_present, present;
    int team; /* sim_team_t */
    int robot;
    int count;
    char preset[64];
    bool to_goal; /* VW_OP_JUMP: the next goal, else the next command */
} vw_op_t;

/* {"type":"hello",...}: protocol version, mode, seed. */
char *vw_json_hello (sim_mode_t mode, uint64_t seed);

/* {"type":"geometry",...}: the field of `cfg` (resolved for its division)
   and its camera rig with nadirs, field-of-view radius and regions. */
char *vw_json_geometry (const sim_config_t *cfg);

/* A text buffer reused from one message to the next (zero it to start;
   vw_text_free frees it): the project's growing buffer. */
typedef sim_out_t vw_text_t;

void vw_text_free (vw_text_t *text);

/* {"type":"world",...} into *text (what it held is replaced). Returns
   text->buf, borrowed until the next use of *text, or NULL when out of
   memory. */
const char *vw_json_world_into (const vw_world_t *world, vw_text_t *text);

/* The same as a heap string: yours to free(), NULL when out of memory. */
char *vw_json_world (const vw_world_t *world);

/* {"type":"status",...}. */
char *vw_json_status (const vw_status_t *status);

/* The "marks" of a log played: vw_json_game.h. */

/* {"type":"result",...}: ok when code is NULL, else the error's code and
   message. */
char *vw_json_result (int64_t id, const char *code, const char *message);

/* Parse one text frame from the page into *op. Returns 0, or -1 with the
   reason in why (the frame is not an object, has no known "op", a field
   has the wrong type or is out of range); op->id and has_id are set
   whenever the frame carried an integer "id", so the refusal can be
   answered. */
int vw_json_parse_op (const char *text, size_t len, vw_op_t *op, char *why, size_t whylen);

/* Fill *out from the newest Stats of each service (NULL: none yet), the
   configuration in force `cfg` and whether each service was heard from
   recently (alive, in sim_service_names order). */
void vw_status_from_stats (vw_status_t *out, const sim_config_t *cfg, const Simbus__Stats *physics,
                           const Simbus__Stats *vision, const Simbus__Stats *gateway,
                           const Simbus__Stats *legacy, const bool alive[VW_SERVICES],
                           double viewer_uptime_s);

/* The Prometheus text exposition (format 0.0.4) of *status: every metric
   with the ssl_sim_ prefix, HELP and TYPE lines (docs/viewer.md). */
char *vw_metrics_text (const vw_status_t *status);

#endif
