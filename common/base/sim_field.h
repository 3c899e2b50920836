/*  sim_field.h - field sizes by division and the line/arc set of the
    geometry packet (physics.md §3.1-§3.2). Shared by the physics core
    (collision walls) and the vision model (geometry packet).
*/
#ifndef SIM_FIELD_H_INCLUDED
#define SIM_FIELD_H_INCLUDED

#include "sim_params.h"

#define SIM_FIELD_LINE_COUNT 12

typedef struct {
    const char *name;      /* SSL_FieldShapeType name, e.g. "TopTouchLine" */
    double x1, y1, x2, y2; /* m */
    double thickness;      /* m */
} sim_field_line_t;

typedef struct {
    const char *name;      /* "CenterCircle" */
    double cx, cy, radius; /* m */
    double a1, a2;         /* rad */
    double thickness;      /* m */
} sim_field_arc_t;

/* The sizes of a division (physics.md §3.1). */
void sim_field_division (sim_division_t division, sim_field_t *out);

/* The field in force: the configured size where it is > 0, the
   division's size where it is 0. */
void sim_field_resolve (const sim_field_t *configured, sim_division_t division, sim_field_t *out);

/* The margin behind the goal lines, where the goal-line walls stand:
   boundary_width_goal_line, or boundary_width where that is 0 (a field
   described without it). */
double sim_field_goal_line_margin (const sim_field_t *field);

/* The 12 lines in spec order into lines[SIM_FIELD_LINE_COUNT], and the
   centre circle into *arc. Names are static strings. */
void sim_field_lines (const sim_field_t *field, sim_field_line_t *lines, sim_field_arc_t *arc);

#endif
