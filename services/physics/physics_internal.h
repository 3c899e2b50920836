/*  physics_internal.h - the physics service's state, shared by the actor
    (physics.c: the loop, the handler table, life) and the files of its
    features (phys_publish, phys_step, phys_answer, phys_recovery,
    phys_playback, phys_hold, phys_epoch, phys_report). Private to this
    folder: one actor thread owns the struct and every function that takes
    it runs on that thread.
*/
#ifndef PHYSICS_INTERNAL_H_INCLUDED
#define PHYSICS_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "common/base/sim_schedule.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_link.h"
#include "common/bus/sim_loop.h"
#include "common/config/sim_config.h"
#include "common/logs/sim_stats.h"
#include "engine/physics/phys_world.h"
#include "engine/world/phys_checkpoint.h"
#include "engine/world/phys_journal.h"
#include "engine/world/phys_policy.h"
#include "engine/world/phys_replay.h"
#include "phys_clock.h"

#define PHYS_STATUS_PERIOD_US 1000000                  /* status line */
#define PHYS_HOLD_US          5000000                  /* --journal: the clock waits this long for vision */
#define PHYS_HELD_MAX         64                       /* requests kept while the clock waits for vision */
#define PHYS_ONCE_KEEP        PHYS_CHECKPOINT_ONCE_MAX /* request ids remembered for SIM_BUS_ID_ONCE */

typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_schedule_t *schedule;
    phys_clock_t clock;
    sim_link_t *link;
    sim_loop_t *loop; /* sim_service_run's */

    /* checkpoints and the journal: empty path / NULL = off (single
       process: nothing to restart) */
    char checkpoint_path[SIM_STRING_MAX];
    char journal_path[SIM_STRING_MAX];
    char run_key[80];
    phys_journal_t *journal;

    /* --journal FILE: every input of the run from its first substep, with
       the configuration; NULL = off. Written beside the restart journal
       with the same records (docs/logs.md). */
    phys_journal_t *user_journal;
    char last_source[64];

    /* the newest request ids applied that asked to be applied once
       (SIM_BUS_ID_ONCE; phys_recovery_repeat): a ring, 0 = empty */
    uint64_t once_ids[PHYS_ONCE_KEEP];
    size_t once_next;
    uint64_t once_scratch[PHYS_ONCE_KEEP]; /* their list for a checkpoint */

    /* `ssl-sim replay`: the inputs come from a journal, not the bus */
    phys_replay_t *replay;
    size_t replay_next;
    uint64_t replay_end; /* substep to stop at */
    bool replay_started; /* vision listens: the script runs */
    /* --journal on a fresh world: the clock waits for vision (at most
       PHYS_HOLD_US), so the run's vision is reproducible from frame one */
    bool hold_clock;
    int64_t hold_until_us;
    /* requests that came while the clock was held: applied, in order,
       when it starts (a lock-step client's first steps included) */
    struct {
        Simbus__Envelope *env;
        sim_link_from_t *from;
        uint8_t *wire; /* the bytes it came in (sim_link_received), to journal; NULL: none */
        size_t wire_len;
    } held[PHYS_HELD_MAX];
    int held_count;
    bool replay_done;
    uint64_t replay_start_frame;
    int64_t replay_start_us;
    /* a replay with its page (phys_seeking.h); NULL and unused otherwise */
    struct phys_seeking_t *seeking;
    bool replay_paused;
    uint64_t replay_step_to; /* paused: run on to this substep (a step) */
    double replay_speed;     /* realtime pace, > 0 */

    uint64_t config_serial;
    bool config_due;
    int config_timer, clock_timer; /* sim_loop timers: a joiner makes them due at once */
    phys_policy_t published;       /* the last published snapshot (phys_policy.h) */

    /* what a request collects for its reply; kept here, not allocated per
       request, because sync clients send thousands a second */
    phys_journal_result_t applied;
    sim_bus_snapshot_msg_t snapshot_msg;

    /* the wire timestamps' base (sim_snapshot_t epoch_us): Unix time at
       sim time 0, 0 when the timestamps count from zero */
    int64_t epoch_us;
    double epoch_speed;       /* the speed at the last re-base */
    size_t replay_epoch_next; /* a replay: the journal's next base (phys_epoch_replay) */
    /* the newest team command's gateway receive time (sim_snapshot_t) */
    int64_t command_us;
    bool was_running;        /* the free-running clock advanced at the last tick */
    bool lane_deferred;      /* the last wait left the lane's requests for its end (phys_defer) */
    bool catching_up;        /* reading them: each applied at its arrival */
    int64_t lane_request_us; /* the last request from the lane came (phys_defer) */
    int lane_caught;         /* requests the catch-up under way read from the lane */
    int64_t lane_busy_us;    /* a catch-up last found the lane near full (phys_defer) */
    bool paused;             /* speed 0 outside sync mode, as last logged */

    /* status line window */
    int64_t status_wall_us;
    uint64_t status_sim_ns;
    uint64_t status_substeps;
    double status_cost_us; /* this thread's CPU time in substeps (phys_report_cpu_us) */
    double last_rtf, last_cost_us;

    /* Stats (sim_stats.h): counted since start */
    int64_t started_us;
    uint64_t substep_buckets[SIM_STATS_SUBSTEP_BUCKETS];
    uint64_t substeps_timed;
    double substep_sum_us;
} phys_service_t;

#endif
