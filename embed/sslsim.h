/*  sslsim.h - libsslsim: the ssl-sim world stepped in-process, from C or
    from any language with a C foreign-function interface.

    A world is the physics core, the camera model and the vision encoder of
    ssl-sim in one object, without sockets, threads or a clock: the caller
    steps it. Commands are the SSL simulation protocol's own messages as
    packed protobuf bytes (SimulatorCommand, a team's RobotControl), applied
    by the same code the physics service runs; vision comes out as the
    packed SSL_WrapperPacket bytes the vision service would send. With the
    same configuration, seed and inputs a world gives the same bytes as
    `ssl-sim run --mode sync` stepped with the same SimulationSyncRequests.

    A batch holds n independent worlds and steps all of them with one call
    on a pool of threads (one per core by default); world k always runs on
    the same thread, and its bytes do not depend on n or on the thread
    count.

    Rules of the API:
      - every object is an opaque handle; there is no global state, so two
        worlds (or batches) can live side by side, each used by one thread
        at a time;
      - functions that can fail return an sslsim_status_t (0 or a negative
        code), or NULL; sslsim_world_last_error / sslsim_batch_last_error
        give a sentence saying why (borrowed, valid until the next call on
        the same handle);
      - pointers returned into a world are borrowed and valid until the next
        call that changes that world (step, command, reset, load, free);
      - a NULL handle or pointer is refused (SSLSIM_EINVAL, NULL or 0, as
        the function returns) where the call needs it, and a function that
        returns nothing then does nothing: it is never followed;
      - units are SI (m, m/s, rad, s); vision bytes carry the wire's mm.

    The tasks for learning are declared in sslsim_task.h, which this
    header includes at its end.
*/
#ifndef SSLSIM_H_INCLUDED
#define SSLSIM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SSLSIM_API_VERSION 1

/* Status codes; every failure also sets the handle's last error. */
typedef enum {
    SSLSIM_OK = 0,
    SSLSIM_EINVAL = -1,  /* an argument is out of range (NULL, NaN, bad kind, bad dt) */
    SSLSIM_EDECODE = -2, /* bytes that are not the message they claim to be */
    SSLSIM_ENOMEM = -3,  /* out of memory */
    SSLSIM_EIO = -4,     /* a file could not be written or read */
    SSLSIM_ECONFIG = -5  /* the configuration (or a checkpoint's) is refused */
} sslsim_status_t;

/* The most robots a world holds (both teams together). */
#define SSLSIM_MAX_ROBOTS 64
/* The most detections one vision frame carries: the ball, one false ball
   per robot's dribbler and up to 8 ghosts. */
#define SSLSIM_MAX_DET_BALLS  (1 + SSLSIM_MAX_ROBOTS + 8)
#define SSLSIM_MAX_DET_ROBOTS 128

/* How a world is made. Fill with sslsim_config_init, change what differs. */
typedef struct {
    /* INI text in ssl-sim's configuration format (the same keys as
       `ssl-sim run --config FILE`); NULL: built-in defaults */
    const char *ini;
    /* `ssl-sim run` flags after the INI text, NULL-terminated (for
       example { "--realism", "none", NULL }); NULL: none */
    const char *const *args;
    /* when has_seed, replaces [sim] seed */
    uint64_t seed;
    int has_seed;
    /* 0: no vision at all (truth only, cheaper); 1 (default): vision */
    int vision;
} sslsim_config_t;

/* Fill *config with the defaults: no INI, no flags, the configuration's
   seed, vision on. */
void sslsim_config_init (sslsim_config_t *config);

/* ---- one world ---------------------------------------------------------- */

typedef struct sslsim_world_t sslsim_world_t;

/* A new world for *config (read, not kept). Returns NULL on failure with a
   sentence in err (err_len bytes; err may be NULL). The caller frees it
   with sslsim_world_free. */
sslsim_world_t *sslsim_world_new (const sslsim_config_t *config, char *err, size_t err_len);

/* Free the world; NULL is fine. */
void sslsim_world_free (sslsim_world_t *world);

/* Advance by dt seconds, a whole number of substeps ([sim] substep, 1 ms
   by default) and at most 10 s, the same rule as a SimulationSyncRequest's
   sim_step; dt = 0 does nothing. The vision frames released during the
   step replace the previous step's. Returns SSLSIM_OK or SSLSIM_EINVAL. */
sslsim_status_t sslsim_world_step (sslsim_world_t *world, double dt);

/* How many substeps a step of dt seconds is (0 for dt = 0), or
   SSLSIM_EINVAL, with the reason as the last error, for a dt
   sslsim_world_step refuses. Nothing else changes: a binding checks a
   learner's dt with it when the environment is made. */
int64_t sslsim_world_substeps (sslsim_world_t *world, double dt);

/* The kind of message sslsim_world_command takes. */
typedef enum {
    SSLSIM_MSG_SIMULATOR_COMMAND = 0, /* SimulatorCommand (the control port's message) */
    SSLSIM_MSG_ROBOT_CONTROL_BLUE,    /* RobotControl of the blue team */
    SSLSIM_MSG_ROBOT_CONTROL_YELLOW,  /* RobotControl of the yellow team */
    SSLSIM_MSG_SIMULATOR_CONFIG       /* SimulatorConfig (as SimulatorCommand.config) */
} sslsim_msg_t;

/* Apply one packed protocol message now (between steps), in the order
   the physics service applies a request's parts. Returns the number of
   protocol errors it produced (0..; each is a SimulatorError the service
   would answer, readable with sslsim_world_error), or SSLSIM_EINVAL /
   SSLSIM_EDECODE when the bytes are not such a message (nothing applied).
   A message with errors still applies its valid parts, as the service
   does. */
int sslsim_world_command (sslsim_world_t *world, sslsim_msg_t kind, const void *bytes, size_t len);

/* Protocol error i (0 <= i < the last command's return) as "CODE: detail"
   (borrowed), NULL when out of range. */
const char *sslsim_world_error (const sslsim_world_t *world, int i);

/* One robot's command without protobuf: the fields of a RobotCommand with
   a MoveLocalVelocity, applied by building that RobotControl message and
   handing it to the same code as sslsim_world_command. */
typedef struct {
    int team;              /* 0 blue, 1 yellow */
    int id;                /* 0..15 */
    double forward;        /* m/s, robot frame */
    double left;           /* m/s */
    double angular;        /* rad/s, counter-clockwise */
    double kick_speed;     /* m/s, 0 none */
    double kick_angle;     /* degrees, 0 flat kick, > 0 chip */
    double dribbler_speed; /* rpm, 0 off */
} sslsim_robot_command_t;

/* Apply n robot commands (any mix of teams; each team's go as one
   RobotControl, blue first). Non-finite values are refused before
   anything applies (SSLSIM_EINVAL); otherwise returns the protocol error
   count as sslsim_world_command does. A finite value beyond the float
   range of RobotCommand is sent as the largest float of its sign, a
   command too large like any other. */
int sslsim_world_robot_commands (sslsim_world_t *world, const sslsim_robot_command_t *cmds, int n);

/* n robots' actions as commands: robot (teams[j], ids[j]) takes the row
   actions[6j .. 6j+6) = forward, left, angular, kick_speed, kick_angle,
   dribbler_speed (the fields of sslsim_robot_command_t, n <= 256).
   Returns as sslsim_world_robot_commands. */
int sslsim_world_actions (sslsim_world_t *world, const int *teams, const int *ids, int n,
                          const double *actions);

/* Teleports without protobuf: a SimulatorCommand with one TeleportBall
   (at rest on the ground at (x, y) with velocity (vx, vy)) or one
   TeleportRobot (present = 0 removes the robot, 1 places or creates it at
   rest), applied as sslsim_world_command applies one. Non-finite values:
   SSLSIM_EINVAL, nothing applied; else the protocol error count. */
int sslsim_world_teleport_ball (sslsim_world_t *world, double x, double y, double vx, double vy);
int sslsim_world_teleport_robot (sslsim_world_t *world, int team, int id, double x, double y,
                                 double orientation, int present);

/* The vision frames released during the last step, oldest first: count,
   and packet i as packed SSL_WrapperPacket bytes (borrowed). */
int sslsim_world_vision_count (const sslsim_world_t *world);
sslsim_status_t sslsim_world_vision (const sslsim_world_t *world, int i, const uint8_t **bytes, size_t *len);

/* One vision frame decoded from its packed bytes (what a receiver of the
   wire sees: float precision, the realism's noise and dropouts), in SI
   units. */
typedef struct {
    double x, y, z; /* m (z 0 unless the configuration reports it) */
    double confidence;
    double area; /* px, 0 when not reported */
} sslsim_det_ball_t;

typedef struct {
    int team; /* 0 blue, 1 yellow */
    int id;
    double x, y, orientation; /* m, rad */
    double confidence;
} sslsim_det_robot_t;

typedef struct {
    int camera_id;
    uint32_t frame_number;
    double t_capture, t_sent; /* s, as on the wire */
    int ball_count;
    int robot_count;
    sslsim_det_ball_t balls[SSLSIM_MAX_DET_BALLS];
    sslsim_det_robot_t robots[SSLSIM_MAX_DET_ROBOTS];
} sslsim_detection_t;

/* Decode vision frame i of the last step into *out. Returns SSLSIM_OK,
   SSLSIM_EINVAL for a bad index. */
sslsim_status_t sslsim_world_detection (const sslsim_world_t *world, int i, sslsim_detection_t *out);

/* Decode one packed SSL_WrapperPacket (from any source) into *out as
   sslsim_world_detection does. Returns SSLSIM_OK, SSLSIM_EDECODE for
   bytes that are no such packet, SSLSIM_EINVAL for NULL. */
sslsim_status_t sslsim_detection_decode (const uint8_t *bytes, size_t len, sslsim_detection_t *out);

/* Every vision frame of the last step in one call: *bytes (borrowed) and
   *used its bytes, frame i at bytes + offsets[i] of lengths[i] for the
   first `max` frames. Returns the frame count (may exceed max) or
   SSLSIM_EINVAL. */
int sslsim_world_vision_all (const sslsim_world_t *world, const uint8_t **bytes, size_t *used,
                             size_t *offsets, size_t *lengths, int max);

/* The world's true state after the last step, SI units. */
typedef struct {
    int team; /* 0 blue, 1 yellow */
    int id;
    double x, y, orientation; /* m, rad in (-pi, pi] */
    double vx, vy, omega;     /* world frame */
    int ball_contact;         /* break-beam */
    int pad_;
} sslsim_truth_robot_t;

typedef struct {
    uint64_t time_ns;
    double ball[6]; /* x, y, z, vx, vy, vz */
    int robot_count;
    int pad_;
    sslsim_truth_robot_t robots[SSLSIM_MAX_ROBOTS]; /* blue by id, then yellow by id */
} sslsim_truth_t;

/* Fill *out with the true state. */
void sslsim_world_truth (const sslsim_world_t *world, sslsim_truth_t *out);

/* Simulation time in ns. */
uint64_t sslsim_world_time_ns (const sslsim_world_t *world);

/* The [sim] seed in force (the configuration's, or the last reset's). */
uint64_t sslsim_world_seed (const sslsim_world_t *world);

/* Start again from the configuration the world was made with (runtime
   changes by SimulatorConfig are dropped), with `seed` as [sim] seed.
   Returns SSLSIM_OK, or SSLSIM_ECONFIG (out of memory, or a seed the
   configuration refuses) with the world as it was. */
sslsim_status_t sslsim_world_reset (sslsim_world_t *world, uint64_t seed);

/* Write the world (physics state, random stream, effective
   configuration) to `path` as an ssl-sim physics checkpoint. Returns
   SSLSIM_OK or SSLSIM_EIO. */
sslsim_status_t sslsim_world_save (const sslsim_world_t *world, const char *path);

/* Replace the world's state by the checkpoint at `path` (written by
   sslsim_world_save of the same build). Physics continues exactly; vision
   continues as a restarted vision service does (frame numbers from the
   sim time, geometry at once, frames captured before the save and not
   yet released are not sent). Returns SSLSIM_OK, SSLSIM_EIO (the file
   cannot be read) or SSLSIM_ECONFIG (another build's or another run's
   checkpoint, or corrupt; which, in the last error): the world is then
   unchanged. */
sslsim_status_t sslsim_world_load (sslsim_world_t *world, const char *path);

/* The sizes and limits of the configuration in force (after any
   SimulatorConfig): what a binding needs to bound its observations and
   actions. Per-team arrays are indexed 0 blue, 1 yellow. */
typedef struct {
    double field_length, field_width; /* m, goal line to goal line, touch line to touch line */
    double boundary_width;            /* m, run-off from the touch lines to the walls */
    double goal_width, goal_depth;    /* m, inside the posts; goal line to back wall */
    double wall_height;               /* m, a ball whose bottom is higher passes the walls */
    double robot_speed_max[2];        /* m/s, [TEAM.limits] vel_absolute_max */
    double robot_angular_max[2];      /* rad/s, [TEAM.limits] vel_angular_max */
    double kick_speed_max[2];         /* m/s, [TEAM.kicker] max_linear_speed */
    double chip_speed_max[2];         /* m/s, [TEAM.kicker] max_chip_speed */
    double dribbler_rpm_max[2];       /* rpm, [TEAM.dribbler] max_speed_rpm */
    double boundary_width_goal_line;  /* m, run-off from the goal lines to the walls (0.6 in Division A) */
} sslsim_limits_t;

/* Fill *out with the world's sizes and limits. Returns SSLSIM_OK, or
   SSLSIM_EINVAL for a NULL argument. */
sslsim_status_t sslsim_world_limits (const sslsim_world_t *world, sslsim_limits_t *out);

/* sizeof of the public struct `name` ("sslsim_truth_t",
   "sslsim_detection_t", "sslsim_robot_command_t", "sslsim_config_t",
   "sslsim_limits_t", "sslsim_batch_env_t"), 0
   for another name: lets a foreign-function binding check its layout. */
size_t sslsim_sizeof (const char *name);

/* Why the last failing call on this world failed (borrowed; "" if none). */
const char *sslsim_world_last_error (const sslsim_world_t *world);

/* ---- many worlds -------------------------------------------------------- */

typedef struct sslsim_batch_t sslsim_batch_t;

/* n independent worlds of *config stepped together on `threads` threads
   (0: one per online core, at most n). World k's seed is seeds[k] when
   seeds is not NULL, else the configuration's seed plus k (wrapping), so
   world 0 of a batch is the world sslsim_world_new makes. Returns NULL on
   failure with a sentence in err. Free with sslsim_batch_free. */
sslsim_batch_t *sslsim_batch_new (int n, const sslsim_config_t *config, int threads, const uint64_t *seeds,
                                  char *err, size_t err_len);

/* Stop the threads and free every world; NULL is fine. */
void sslsim_batch_free (sslsim_batch_t *batch);

int sslsim_batch_size (const sslsim_batch_t *batch);
int sslsim_batch_threads (const sslsim_batch_t *batch);

/* World k (borrowed, owned by the batch): use it freely between batch
   steps, never during one. NULL when k is out of range. */
sslsim_world_t *sslsim_batch_world (sslsim_batch_t *batch, int k);

/* Queue robot commands for the next batch step: per_world commands for
   each world, world k's at cmds[k * per_world ...]. They are checked
   here (SSLSIM_EINVAL for a non-finite value, nothing queued) and applied
   by world k's thread at the start of the step, as
   sslsim_world_robot_commands would. */
sslsim_status_t sslsim_batch_robot_commands (sslsim_batch_t *batch, const sslsim_robot_command_t *cmds,
                                             int per_world);

/* Step every world by dt (the rule of sslsim_world_step), in parallel;
   returns when all are done. SSLSIM_OK or SSLSIM_EINVAL. */
sslsim_status_t sslsim_batch_step (sslsim_batch_t *batch, double dt);

/* Every world's truth into out[0..n). */
void sslsim_batch_truth (const sslsim_batch_t *batch, sslsim_truth_t *out);

/* Reset world k with `seed` (sslsim_world_reset). */
sslsim_status_t sslsim_batch_reset (sslsim_batch_t *batch, int k, uint64_t seed);

const char *sslsim_batch_last_error (const sslsim_batch_t *batch);

/* ---- observations (for learning) ---------------------------------------- */

/* What an observation holds: the true state, or what the cameras
   reported (docs/embedding.md, "Observations", gives the layout). */
typedef enum {
    SSLSIM_OBS_TRUTH = 0, /* ball x y z vx vy vz, per robot present x y orientation vx vy omega */
    SSLSIM_OBS_VISION = 1 /* ball age x y, per robot age x y orientation */
} sslsim_obs_kind_t;

/* The largest age a vision observation reports (s). */
#define SSLSIM_OBS_MAX_AGE 10.0

/* An observer: the kind, the robots observed (in the order they appear in
   the vector) and, for vision, each slot's memory of the newest
   detections. A slot is one world's memory: slot k goes with world k of a
   batch (or with the one world of an environment). */
typedef struct sslsim_obs_t sslsim_obs_t;

/* A new observer of `count` robots (teams[i] 0 blue / 1 yellow, ids[i]
   0..255, no robot twice) with `slots` slots, whose bounds come from
   *limits (sslsim_world_limits). Returns NULL with a sentence in err for
   a bad argument (limits with a NaN, an infinity, a negative value or a
   field of no size among them). Free with sslsim_obs_free. */
sslsim_obs_t *sslsim_obs_new (sslsim_obs_kind_t kind, const int *teams, const int *ids, int count, int slots,
                              const sslsim_limits_t *limits, char *err, size_t err_len);

/* Free the observer; NULL is fine. */
void sslsim_obs_free (sslsim_obs_t *obs);

/* The length D of one observation vector (floats). */
int sslsim_obs_size (const sslsim_obs_t *obs);

/* The finite bounds every observation keeps: low[0..D) and high[0..D)
   (a value beyond them is written as the nearest bound). */
void sslsim_obs_bounds (const sslsim_obs_t *obs, float *low, float *high);

/* Forget slot k's detections (at the start of an episode). */
void sslsim_obs_forget (sslsim_obs_t *obs, int slot);

/* The frame the observer writes in, named by the team it is for: team 0
   (blue, the default) the world's own frame; team 1 (yellow) the world
   turned half a turn about the field's centre, so that each team sees
   its own goal at -x as blue does and one policy can play either side.
   The turn negates x, y, vx and vy and adds pi to the orientation (z,
   vz, omega and ages stay); being a rotation, not a reflection, it keeps
   left and right, so a robot's own action rows (forward, left, angular)
   need no change. Objects not seen or not present keep their zeros. The
   bounds are symmetric, so they do not change. Returns SSLSIM_OK or
   SSLSIM_EINVAL (NULL, or a team other than 0 or 1). */
sslsim_status_t sslsim_obs_set_frame (sslsim_obs_t *obs, int team);

/* Write the observation of `world` after its last step into out[0..D),
   updating slot k's memory with the step's vision frames. Returns
   SSLSIM_OK, or SSLSIM_EINVAL for a bad slot or NULL, or for a vision
   observer and a world made without vision (sslsim_config_t.vision = 0),
   which would read as never seeing anything. */
sslsim_status_t sslsim_obs_write (sslsim_obs_t *obs, int slot, const sslsim_world_t *world, float *out);

/* One world's part of a learner's step in one call: robots (teams[j],
   ids[j]) for j < n take the rows actions[6j .. 6j+6) (sslsim_world_actions),
   the world steps dt, then, when obs is not NULL, slot's observation goes
   into obs_out, and when truth is not NULL the true state into *truth.
   Returns the actions' protocol error count, or SSLSIM_EINVAL (a bad or
   non-finite argument, a vision observer of a world without vision:
   nothing applied, nothing stepped). */
int sslsim_world_env_step (sslsim_world_t *world, const int *teams, const int *ids, int n,
                           const double *actions, double dt, sslsim_obs_t *obs, int slot, float *obs_out,
                           sslsim_truth_t *truth);

/* Observations of every world after its last step into out[k * D ...],
   on the batch's threads (sslsim_obs_write per world). */
sslsim_status_t sslsim_batch_observe (sslsim_batch_t *batch, sslsim_obs_t *obs, float *out);

#ifdef __cplusplus
}
#endif

/* Tasks for learning and the learner's batch step: sslsim_task.h, part
   of this API (included here, so <sslsim.h> is all a user names). */
#include "sslsim_task.h"

#endif
