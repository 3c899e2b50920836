/*  sim_player_internal.h - the player's state, shared by sim_player.c
    (playing, the wire) and sim_player_timeline.c (the timeline built at
    open). Not a public header.
*/
#ifndef SIM_PLAYER_INTERNAL_H_INCLUDED
#define SIM_PLAYER_INTERNAL_H_INCLUDED

#include "common/bus/sim_route.h"
#include "sim_player.h"

/* One playable record. */
typedef struct {
    int64_t tl_ns;   /* timeline ns since the first record */
    uint64_t offset; /* in the stream */
    int32_t type;
} sim_player_entry_t;

struct sim_player_t {
    sim_logfile_reader_t *reader;
    sim_player_entry_t *entries;
    size_t n, cap;
    sim_player_mark_t *marks;
    size_t n_marks, marks_cap;
    char *damage; /* NULL: the log ends cleanly */
    size_t next;  /* the next entry to play */
    int64_t pos_ns;
    bool paused;
    double speed;
    int64_t anchor_tl_ns, anchor_wall_ns;
    int fds[3]; /* vision, tracker, referee; -1: not on the wire */
    sim_route_t route[3];
    uint64_t sent[3];
    uint64_t skipped; /* records of other types */
    bool indexed;     /* the league's index served the pass */
    /* the clock's jumps forward not waited out (sim_player_advance): how
       many, and the first one's record (from 1), byte and length */
    uint64_t jumps, jump_record, jump_offset, jump_ns;
    char jump_note[SIM_STRING_MAX + 256]; /* said by sim_player_say, or "" */
    int64_t pass_wall_ns;                 /* when the first record of this pass was due */
    bool passed;                          /* a first record was played: pass_wall_ns holds */
    /* why it did not, or "" (sim_player_index_trouble) */
    char index_trouble[SIM_LOGFILE_ERROR_MAX + SIM_STRING_MAX + 64];
};

/* The sender slot of a record type: 0 vision, 1 tracker, 2 referee, -1
   not played. */
static inline int
sim_player_slot (int32_t type)
{
    return type == SIM_LOGFILE_VISION  ? 0
         : type == SIM_LOGFILE_TRACKER ? 1
         : type == SIM_LOGFILE_REFEREE ? 2
                                       : -1;
}

/* Fill self's entries, marks, damage, index and jump notes from the log
   at path (self->reader open). 0, or -1 with err set (out of memory). */
int sim_player_timeline_build (sim_player_t *self, const char *path, char *err, size_t errlen);

#endif
