/*  sslsim_internal.h - what the world (sslsim_world.c and its request
    handling, sslsim_world_request.c) and the batch of libsslsim share
    (not installed): the world's struct, its last error and the steps of
    a command.
*/
#ifndef SSLSIM_INTERNAL_H_INCLUDED
#define SSLSIM_INTERNAL_H_INCLUDED

#include <stdbool.h>

#include "sslsim.h"
#include "common/config/sim_config.h"
#include "common/base/sim_schedule.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_policy.h"
#include "engine/physics/phys_world.h"
#include "engine/vision/vis_model.h"

/* One encoded vision packet inside the world's byte buffer. */
typedef struct {
    size_t off, len;
} sslsim_frame_t;

struct sslsim_world_t {
    sim_config_t base; /* as made: what a reset starts from */
    sim_config_t cfg;  /* in force (SimulatorConfig changes it) */
    bool vision;
    phys_world_t *phys;
    sim_schedule_t *schedule;
    vis_model_t *model;      /* NULL without vision */
    phys_policy_t published; /* the last snapshot the camera model saw */
    /* the last step's packets */
    uint8_t *bytes;
    size_t used, cap;
    sslsim_frame_t *frames;
    int frame_count, frame_cap;
    uint64_t frames_lost;          /* out of memory while encoding */
    phys_journal_result_t applied; /* the last command's errors */
    char last_error[256];
};

/* The world's last error from fmt, and `status` to return with it. */
sslsim_status_t sslsim_world_fail (sslsim_world_t *self, sslsim_status_t status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* *cfg from *config: defaults, INI text, flags (with presets and checks),
   seed. Returns 0 or -1 with the reason in err. */
int sslsim_config_resolve (const sslsim_config_t *config, sim_config_t *cfg, char *err, size_t err_len);

/* Non-finite values, bad teams or ids in cmds[0..n): -1 with the reason in
   err, else 0. */
int sslsim_robot_commands_check (const sslsim_robot_command_t *cmds, int n, char *err, size_t err_len);

/* cmds[0..n) from robots (teams[j], ids[j]) and their action rows
   actions[6j .. 6j+6) (sslsim_world_actions). */
void sslsim_actions_commands (const int *teams, const int *ids, int n, const double *actions,
                              sslsim_robot_command_t *cmds);

/* Apply checked commands (per team one RobotControl, blue first).
   Returns the protocol error count. */
int sslsim_world_apply_commands (sslsim_world_t *self, const sslsim_robot_command_t *cmds, int n);

/* One request as the physics service applies it: the command, then the
   team's control. Returns the protocol error count. */
int sslsim_world_apply_request (sslsim_world_t *self, const SimulatorCommand *cmd, int team,
                                const RobotControl *rc);

/* A batch's work on world k (on world k's thread): its status. */
typedef sslsim_status_t (*sslsim_batch_job_t) (void *arg, int k, sslsim_world_t *world);

/* Run job on every world of the batch, world k on its own thread, and
   return when all are done: SSLSIM_OK, or the first failing world's
   status with "world K: reason" as the batch's last error. */
sslsim_status_t sslsim_batch_run (sslsim_batch_t *batch, sslsim_batch_job_t job, void *arg);

/* The slots of an observer and of a task. */
int sslsim_obs_slots (const sslsim_obs_t *obs);
int sslsim_task_slots (const sslsim_task_t *task);

/* Whether the task's slot has an episode (sslsim_task_reset was called
   for it): a step of a slot without one has nothing to judge. */
bool sslsim_task_started (const sslsim_task_t *task, int slot);

/* sslsim_obs_write and sslsim_task_evaluate with the world's truth
   already read (one snapshot serves both in a batch's step); the
   arguments are the caller's to check. The task's returns whether its
   rules moved anything (the truth is then stale). */
void sslsim_obs_write_with (sslsim_obs_t *obs, int slot, const sslsim_world_t *world,
                            const sslsim_truth_t *truth, float *out);
bool sslsim_task_evaluate_with (sslsim_task_t *task, int slot, sslsim_world_t *world,
                                const sslsim_truth_t *truth, float *reward, uint8_t *terminated);

/* Why `obs` cannot observe `world` (a vision observer of a world made
   without vision), NULL when it can. */
const char *sslsim_obs_refuses (const sslsim_obs_t *obs, const sslsim_world_t *world);

/* The frame an observer writes in (sslsim_obs_set_frame). */
int sslsim_obs_frame (const sslsim_obs_t *obs);

/* sslsim_detection_decode without zeroing the entries past the counts
   (what the observer needs, ~9 kB of stores less per frame). */
sslsim_status_t sslsim_detection_read (const uint8_t *bytes, size_t len, sslsim_detection_t *out);

/* sslsim_detection_read of the detection alone: a geometry field the
   wrapper carries is skipped, not checked (the observer's reading of the
   world's own frames, whose geometry it does not use). On bytes that
   sslsim_detection_read accepts, the same answer. */
sslsim_status_t sslsim_detection_read_detection (const uint8_t *bytes, size_t len, sslsim_detection_t *out);

/* sslsim_detection_decode by protobuf-c's unpack alone (the fast
   reader's reference, for its test). */
sslsim_status_t sslsim_detection_decode_general (const uint8_t *bytes, size_t len, sslsim_detection_t *out);

/* Set the batch's last error to `why`. */
void sslsim_batch_fail (sslsim_batch_t *batch, const char *why);

#endif
