/*  sim_config.h - the effective configuration of ssl-sim as plain structs.

    Every section and key of spec/config.md §3 has a field here, in SI units
    (seconds, metres, radians). The structs carry no behaviour: defaults,
    parsing, ranges, presets and the INI dump live in config*.c, driven by
    one table (config_keys.c). The model parameter tables (ball, contacts, robot specs, cameras,
    realism, field) are defined in sim_params.h; the pure cores take them
    in their own definition structs, filled at each service's edge.
*/
#ifndef SIM_CONFIG_H_INCLUDED
#define SIM_CONFIG_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_params.h"

#define SIM_STRING_MAX 256

typedef enum { SIM_MODE_REALTIME = 0, SIM_MODE_FAST = 1, SIM_MODE_SYNC = 2 } sim_mode_t;

/* What the wire timestamps (t_capture, t_sent, TrackedFrame.timestamp)
   count from: auto = Unix time in realtime mode, zero in fast and sync
   (so those runs stay byte-identical); unix = Unix time at start plus sim
   time in every mode; zero = sim time. timestamp_epoch_offset is added on
   top of each. */
typedef enum { SIM_TS_AUTO = 0, SIM_TS_UNIX = 1, SIM_TS_ZERO = 2 } sim_timestamp_base_t;

/* How --localhost reaches local programs: multicast to the vision group
   through the loopback interface (every local listener of the port and
   every group member gets a copy), or unicast to 127.0.0.1 (one listener). */
typedef enum { SIM_LOCAL_MULTICAST = 0, SIM_LOCAL_UNICAST = 1 } sim_local_vision_t;

/* [sim] */
typedef struct {
    double substep; /* s */
    uint64_t seed;
    double command_timeout;      /* s */
    double wall_height;          /* m */
    int initial_robots_per_team; /* 0..16 */
} sim_sim_cfg_t;

/* [vision] plus the numbered camera and outage sections */
typedef struct {
    int default_camera_count; /* 0 = by division */
    double default_camera_height;
    double default_camera_x_fraction;
    double fov_radius;
    sim_camera_phase_t camera_phase;
    int phase_offset_count;
    double phase_offsets[SIM_MAX_PHASE_OFFSETS];
    double area_at_nadir_px, spurious_ball_area_px;
    double spurious_ball_forward, spurious_ball_lateral_stddev;
    double robot_confidence_mean, ball_confidence_mean, confidence_stddev;
    double duplicate_robot_rate;
    double frame_rate;
    int geometry_every_n_frames;
    bool report_ball_z;
    double timestamp_epoch_offset;
    sim_timestamp_base_t timestamp_base;
    char truth_uuid[64]; /* "" = from seed, port offset, control port, host name */
    double focal_length_px;
    int image_width, image_height; /* px, cameras without their own sensor */
    int camera_count;              /* explicit [camera N] sections; 0 = auto */
    sim_camera_cfg_t cameras[SIM_MAX_CAMERAS];
    int outage_count;
    sim_outage_cfg_t outages[SIM_MAX_OUTAGES];
} sim_vision_cfg_t;

/* [run] */
typedef struct {
    sim_division_t division;
    sim_mode_t mode;
    double speed;
    char realism[SIM_STRING_MAX]; /* "" = unset */
    char ball_preset[SIM_STRING_MAX];
    char robot_limits[SIM_STRING_MAX];
    char team_robot_limits[2][SIM_STRING_MAX]; /* sim_team_t order; after robot_limits */
    char vision_addr[SIM_STRING_MAX];          /* HOST:PORT */
    bool localhost;
    bool truth;
    bool legacy_grsim;
    double duration; /* 0 = forever */
    char log_level[32];
    char record[SIM_STRING_MAX];  /* log file of every released vision packet; "" = off */
    char journal[SIM_STRING_MAX]; /* journal of every input physics applies; "" = off */
} sim_run_cfg_t;

/* [network] */
typedef struct {
    char bind_address[SIM_STRING_MAX];        /* gateway ports (control, blue, yellow) */
    char legacy_bind_address[SIM_STRING_MAX]; /* grSim port; "" = bind_address */
    char trusted_sources[SIM_STRING_MAX];     /* IPv4 list that gets full answers (sim_trust.h) */
    bool sync_takeover;                       /* sync requests accepted in realtime and fast mode */
    int control_port, blue_port, yellow_port;
    int legacy_port, legacy_status_port_blue, legacy_status_port_yellow;
    int truth_port;
    char referee_addr[SIM_STRING_MAX]; /* the game controller's multicast, HOST:PORT */
    int multicast_ttl;
    char multicast_interface[64]; /* IPv4 address; "" = system's choice */
    sim_local_vision_t local_vision;
    int port_offset;
} sim_network_cfg_t;

/* [bus] */
typedef struct {
    char cmd_bind[SIM_STRING_MAX], cmd_connect[SIM_STRING_MAX];
    char world_bind[SIM_STRING_MAX], world_connect[SIM_STRING_MAX];
    char frames_bind[SIM_STRING_MAX], frames_connect[SIM_STRING_MAX];
    double sync_timeout; /* s */
    bool lanes;          /* same-host datagram lanes (sim_lane.h) */
    /* CURVE on tcp endpoints (sim_curve.h); files are zcert_save pairs */
    bool curve;
    char curve_cert[SIM_STRING_MAX];          /* this process's certificate (FILE and FILE_secret) */
    char curve_allow[SIM_STRING_MAX];         /* directory of public certificates a binder accepts */
    char curve_server[SIM_STRING_MAX];        /* physics' public certificate (cmd, world) */
    char curve_frames_server[SIM_STRING_MAX]; /* vision's (frames); "" = curve_server */
} sim_bus_cfg_t;

/* [viewer]: the browser viewer and its /metrics (docs/viewer.md) */
typedef struct {
    bool enabled;                 /* ssl-sim run starts it */
    char addr[SIM_STRING_MAX];    /* HTTP HOST:PORT; the port moves with port_offset */
    char www_dir[SIM_STRING_MAX]; /* the page's files; "" = found (docs/viewer.md) */
} sim_viewer_cfg_t;

/* [tournament]: which source addresses may use which gateway port
   (docs/protocol.md "Tournament mode"); comma-separated IPv4 lists */
#define SIM_TOURNAMENT_ADDRS_MAX 8  /* addresses per list */
#define SIM_TRUSTED_ADDRS_MAX    16 /* [network] trusted_sources */

/* the largest real-time factor: [run] speed and a SimulatorControl's
   simulation_speed (docs/protocol.md); beyond it realtime pacing means
   nothing (fast mode runs as fast as it can) */
#define SIM_SPEED_MAX 1000.0
typedef struct {
    bool enabled;
    char blue[SIM_STRING_MAX], yellow[SIM_STRING_MAX], control[SIM_STRING_MAX];
} sim_tournament_cfg_t;

typedef struct {
    sim_sim_cfg_t sim;
    sim_ball_cfg_t ball;
    sim_contact_cfg_t contact;
    sim_robot_specs_t team[2]; /* indexed by sim_team_t */
    sim_vision_cfg_t vision;
    sim_realism_t realism;
    sim_field_t field;
    sim_run_cfg_t run;
    sim_network_cfg_t network;
    sim_bus_cfg_t bus;
    sim_tournament_cfg_t tournament;
    sim_viewer_cfg_t viewer;
    /* Runtime state carried with the effective configuration (not in files):
       bumped by physics when the camera rig is replaced at runtime. */
    uint32_t rig_generation;
} sim_config_t;

#endif
