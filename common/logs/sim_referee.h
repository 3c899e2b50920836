/*  sim_referee.h - the game controller's referee message (the league's
    Referee, proto/ssl_gc_referee_message.proto) decoded into plain data:
    the one place ssl-sim reads a referee packet, for the viewer's game
    state and for anything that shows a log's referee records.

    The packet comes from the network or a file, so nothing in it is
    trusted: names are cut to fit, a placement target that is not a finite
    number is left out, enums outside the league's lists are named
    "UNKNOWN". Pure: no clock, no socket.
*/
#ifndef SIM_REFEREE_H_INCLUDED
#define SIM_REFEREE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_REFEREE_NAME_MAX 64 /* a team name, with its NUL */
#define SIM_REFEREE_TEXT_MAX 128
#define SIM_REFEREE_CARDS    8 /* running yellow cards kept per team */

typedef struct {
    char name[SIM_REFEREE_NAME_MAX];
    uint32_t score, red_cards, yellow_cards, timeouts, goalkeeper;
    int64_t timeout_time_us; /* timeout time left */
    int n_yellow_running;    /* yellow cards still running (at most SIM_REFEREE_CARDS kept) */
    int64_t yellow_left_us[SIM_REFEREE_CARDS]; /* their time left, smallest first */
} sim_referee_team_t;

typedef struct {
    uint64_t packet_us; /* the game controller's send time, Unix us */
    int stage, command; /* the league's enum values */
    uint32_t command_counter;
    uint64_t command_us;
    bool has_stage_time;
    int64_t stage_time_left_us; /* negative once the stage overruns */
    sim_referee_team_t team[2]; /* sim_team_t order: [0] blue, [1] yellow */
    bool has_placement;
    double placement_x, placement_y; /* m, vision coordinates */
    bool has_next_command;
    int next_command;
    bool has_action_time;
    int64_t action_time_left_us;
    bool has_blue_positive, blue_positive; /* blue defends the +x goal */
    char status_message[SIM_REFEREE_TEXT_MAX];
} sim_referee_t;

/* Decode one referee packet into *out. Returns 0, or -1 when the bytes
   are not a Referee message (*out is then unspecified). */
int sim_referee_decode (const uint8_t *buf, size_t len, sim_referee_t *out);

/* The league's names of a stage and a command ("NORMAL_FIRST_HALF",
   "BALL_PLACEMENT_BLUE"); "UNKNOWN" for a value the league has not
   defined. Static strings. */
const char *sim_referee_stage_name (int stage);
const char *sim_referee_command_name (int command);

#endif
