/*  sim_player.h - a league log as a timeline (docs/logs.md "Playing a
    log"): the one place that decides which record of a log goes out when,
    for `ssl-sim play` at the terminal and for the viewer's player page.

    Opening reads the log once and keeps an index in memory: each vision,
    tracker and referee record's offset and its time on the timeline, the
    log's clock made monotonic (a clock that goes back, two recordings
    joined, continues from where it was; a jump forward of more than
    SIM_PLAYER_GAP_MAX_NS, a recording continued hours later or one bad
    timestamp, counts as one frame: sim_player_advance), so a seek is a
    binary search and one jump of the reader. The same pass notes the
    referee's marks: each new command (its counter changed) and each goal
    (a score went up).
    When a plain log ends with the league's index record (sim_logindex.h)
    the pass goes through it: each record's header at its offset, the
    message bytes of the referee records only (for the marks). An index
    that does not hold is said in the log (a warning, by sim_player_say)
    and the log is read record by record instead; both passes give the
    same timeline.

    The pace is a pure rule of the caller's clock (monotonic ns passed in,
    never read here): a record is due at the wall time its timeline time
    is reached at `speed` since the last anchor (a play, seek or speed
    change). Records go on the wire as `ssl-sim play` always sent them
    (common/bus/sim_route: vision, tracker and referee addresses), and to a
    callback so a viewer can keep what it draws.
*/
#ifndef SIM_PLAYER_H_INCLUDED
#define SIM_PLAYER_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"
#include "sim_logfile.h"

typedef struct sim_player_t sim_player_t;

/* The longest step of the log's clock between two consecutive records
   that the timeline keeps (5 s): far above what a log holds while
   anything sends (vision some 73 times a second per camera, the referee
   at least once a second, a paused ssl-sim run's geometry once a
   second), far below a recording continued hours later. */
#define SIM_PLAYER_GAP_MAX_NS 5000000000LL

/* One frame at the league's 73.3 Hz (13.6 ms): what a longer jump of the
   log's clock counts as on the timeline, and the shortest pass of a log
   played round with --loop (sim_player_rewind). */
#define SIM_PLAYER_FRAME_NS 13642565LL

typedef enum {
    SIM_PLAYER_MARK_COMMAND, /* the referee gave a new command */
    SIM_PLAYER_MARK_GOAL,    /* a team's score went up */
} sim_player_mark_kind_t;

typedef struct {
    double t; /* timeline s */
    sim_player_mark_kind_t kind;
    int command;           /* the league's command value (for a goal: the one in force) */
    uint32_t blue, yellow; /* the score from that referee packet on */
} sim_player_mark_t;

/* A record played: `primed` when it is not sent on the wire but handed
   over so the viewer shows the state at a seek's target (the last
   referee packet and the vision frames just before it). */
typedef void (sim_player_fn) (void *arg, const sim_logfile_msg_t *msg, bool primed);

/* The rule of the timeline (docs/logs.md "Playing a log"): how far it
   moves from a record at log time last_ns to the next one at time_ns.
   The difference, when it is 0..SIM_PLAYER_GAP_MAX_NS; 0 when the clock
   goes back (two recordings joined); SIM_PLAYER_FRAME_NS when it jumps
   further forward, with the jump's length in *jump_ns (0 otherwise;
   jump_ns may be NULL). Any two int64_t times, no overflow. */
int64_t sim_player_advance (int64_t last_ns, int64_t time_ns, uint64_t *jump_ns);

/* The log's clock made the timeline, record by record, by the rule above:
   what the player's index holds and `ssl-sim stats` measures by. */
typedef struct {
    int64_t last_ns; /* the log time of the record before */
    int64_t tl_ns;   /* its time on the timeline */
    bool started;    /* false: no record yet (zero the struct to start) */
} sim_player_clock_t;

/* The timeline time of the next record, at log time time_ns: 0 for the
   first, then sim_player_advance from the one before (*jump_ns as
   there; may be NULL). */
int64_t sim_player_clock_next (sim_player_clock_t *c, int64_t time_ns, uint64_t *jump_ns);

/* Open the log at `path` and index it (paused at its start, speed 1).
   A log damaged part-way plays up to the damage (sim_player_damage says
   where). NULL when it cannot be read at all (err says why). */
sim_player_t *sim_player_new (const char *path, char *err, size_t errlen);

void sim_player_destroy (sim_player_t **self_p);

/* Open the three senders of cfg's addresses (vision, tracker, referee,
   as `ssl-sim play` always sent them). Returns 0, or -1 (err says why). */
int sim_player_wire (sim_player_t *self, const sim_config_t *cfg, char *err, size_t errlen);

/* The damage that ended the log early, or NULL when it ends cleanly. */
const char *sim_player_damage (const sim_player_t *self);

/* The timeline's length and the position (s): the time of the last
   record played, or a seek's target. */
double sim_player_duration (const sim_player_t *self);
double sim_player_time (const sim_player_t *self);
size_t sim_player_records (const sim_player_t *self);

bool sim_player_paused (const sim_player_t *self);
double sim_player_speed (const sim_player_t *self);
bool sim_player_ended (const sim_player_t *self);

/* Pause (true) or play on from the position (false), at now_ns. */
void sim_player_pause (sim_player_t *self, bool paused, int64_t now_ns);

/* Play at `speed` (> 0; others are ignored) from the position. */
void sim_player_set_speed (sim_player_t *self, double speed, int64_t now_ns);

/* Go to timeline time t_s (clamped to the log): the next record played is
   the first at or after it. Hands `fn` (NULL: none) the last referee
   record and the vision records of the tenth of a second before it,
   primed. Returns 0, or -1 at damage. */
int sim_player_seek (sim_player_t *self, double t_s, int64_t now_ns, sim_player_fn *fn, void *arg);

/* Hand `fn` what shows the position, primed, as a seek does (for a
   viewer that starts to watch). Returns 0, or -1 at damage. */
int sim_player_prime (sim_player_t *self, sim_player_fn *fn, void *arg);

/* When the next record is due (now_ns's clock), INT64_MAX when paused or
   at the end. */
int64_t sim_player_due (const sim_player_t *self);

/* Play every record due at now_ns (at most `max`): on the wire and to
   `fn`. Returns how many, or -1 at damage (what came before it went). */
int sim_player_emit (sim_player_t *self, int64_t now_ns, int max, sim_player_fn *fn, void *arg);

/* Back to the start for another pass (--loop at the end), paused or
   playing as before: the first record is due now, or, when the pass
   before began less than SIM_PLAYER_FRAME_NS of log time ago (at the
   speed), at that instant, so a log of no length (one record, or all at
   one time) goes round once a frame, not as fast as the machine sends. */
void sim_player_rewind (sim_player_t *self, int64_t now_ns);

/* Play the records up to and including the next vision record, now,
   whatever the pace (a paused player stays paused). Returns how many, 0
   at the end, -1 at damage. */
int sim_player_step (sim_player_t *self, int64_t now_ns, sim_player_fn *fn, void *arg);

/* The referee's marks, in time order; borrowed. */
const sim_player_mark_t *sim_player_marks (const sim_player_t *self, size_t *count);

/* The time of the first mark of `kind` after the position, or -1. */
double sim_player_next_mark (const sim_player_t *self, sim_player_mark_kind_t kind);

/* Whether the league's index at the end of the log served the opening
   pass (false: the log was read record by record). */
bool sim_player_indexed (const sim_player_t *self);

/* Why the league's index at the end of the log did not serve (it is
   there but does not hold), or "": "PATH: what is off; reading the whole
   log instead". Borrowed. */
const char *sim_player_index_trouble (const sim_player_t *self);

/* The jumps forward of the log's clock that play does not wait out
   (sim_player_advance), or "": "PATH: the log's clock jumps 3.0 h forward
   at record 1204 (byte 388321) ...", the first one's record (from 1),
   byte and length, and how many more. Borrowed. */
const char *sim_player_jumps (const sim_player_t *self);

/* Say what opening found and kept quiet about, each as a warning: the
   index trouble and the jumps above. Opening says nothing, so a log
   opened twice (`ssl-sim play` checks it, then the viewer's player opens
   it) is not warned about twice: the one that plays it calls this. */
void sim_player_say (const sim_player_t *self);

/* Records sent on the wire, by type (SIM_LOGFILE_VISION, _TRACKER, _REFEREE). */
uint64_t sim_player_sent (const sim_player_t *self, int32_t type);

/* "played N vision, N tracker and N referee messages" (" (stopped)"
   when `stopped`) to stderr, as `ssl-sim play` ends. */
void sim_player_report (const sim_player_t *self, bool stopped);

#endif
