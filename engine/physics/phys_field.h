/*  phys_field.h - collision geometry of the field (physics.md §3.3): the 16
    wall segments with heights and one-sided normals, the room box, the
    event regions (§3.4) and the default formations (§4).
*/
#ifndef PHYS_FIELD_H_INCLUDED
#define PHYS_FIELD_H_INCLUDED

#include <stdbool.h>

#include "common/base/sim_params.h"

#define PHYS_WALL_COUNT 16

/* A vertical wall segment from a to b with a unit one-sided normal n (the
   side objects live on); t = unit direction a -> b, len its length. */
typedef struct {
    double ax, ay, bx, by;
    double nx, ny;
    double tx, ty, len;
    double height;
    bool is_goal;
    double minx, maxx, miny, maxy; /* bounding box (broad phase) */
} phys_wall_t;

typedef struct {
    sim_field_t field;
    double wall_height;
    phys_wall_t walls[PHYS_WALL_COUNT]; /* in the list order of §3.3 */
    double room_hx, room_hy;            /* room box half extents */
    /* A disc of radius R centred inside |x| < inner_x - R, |y| < inner_y - R
       touches no wall (broad phase for robot-wall contacts). */
    double inner_x, inner_y;
} phys_geom_t;

/* Build the walls and the room box for `field` (resolved sizes): the
   touch-line boards at |y| = hw + boundary_width, the goal-line boards at
   |x| = hl + the goal-line margin, the goal side walls from the goal line
   to those boards (the rules since 2026-02-25). */
void phys_geom_build (phys_geom_t *g, const sim_field_t *field, double wall_height);

/* Ball centre outside the field lines (§3.4). */
bool phys_geom_outside_field (const phys_geom_t *g, double x, double y);

/* Goal region holding (x, y): SIM_TEAM_BLUE for the -x goal (blue
   concedes), SIM_TEAM_YELLOW for +x, -1 for none. */
int phys_geom_goal_region (const phys_geom_t *g, double x, double y);

/* Default formation slot n (0..15) of `team` (§4): position and
   orientation. Returns -1 for n outside 0..15. */
int phys_formation (const sim_field_t *field, sim_team_t team, int n, double *x, double *y, double *theta);

#endif
