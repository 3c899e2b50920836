/*  vw_json_game.h - the game state in the viewer's JSON (docs/viewer.md
    "Game state", "Playing a log"): the game controller's newest packet in
    the status, and the referee's marks of a log played for the page's
    timeline. Pure: no clock, no socket, no lock.
*/
#ifndef VW_JSON_GAME_H_INCLUDED
#define VW_JSON_GAME_H_INCLUDED

#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/logs/sim_player.h"
#include "common/logs/sim_referee.h"

/* Add "referee" to the status object `root`: the packet *r, times in
   seconds, names as the league spells them, and its age in s. Nothing is
   added when out of memory; `root` stays the caller's. */
void vw_json_referee (cJSON *root, const sim_referee_t *r, double age_s);

/* {"type":"marks",...}: the referee's marks of a log played (its
   commands and goals, at most VW_MARKS_MAX, the first ones, with the
   total), sent once to each page for the ticks on its timeline. Returns a
   heap string the caller frees with free(), or NULL when out of memory. */
#define VW_MARKS_MAX 2000
char *vw_json_marks (const sim_player_mark_t *marks, size_t count);

#endif
