/*  sim_field.c - division sizes and the geometry-packet lines. */
#include "sim_field.h"

#include <math.h>

void
sim_field_division (sim_division_t division, sim_field_t *out)
{
    bool a = division == SIM_DIVISION_A;
    *out = (sim_field_t) {
        .length = a ? 12.0 : 9.0,
        .width = a ? 9.0 : 6.0,
        .goal_width = a ? 1.8 : 1.0,
        .goal_depth = 0.18,
        .goal_height = 0.155,
        .goal_wall_thickness = 0.02,
        .boundary_width = 0.3,
        .penalty_area_depth = a ? 1.8 : 1.0,
        .penalty_area_width = a ? 3.6 : 2.0,
        .center_circle_radius = 0.5,
        .line_thickness = 0.01,
        /* the SSL rules, "Field Surface" (changed 2026-02-25, ssl-rules
           PR #103): the field margin, from the field lines to the walls,
           is 0.3 m along the touch lines in both divisions and 0.6 m
           behind the goal lines in Division A (0.3 m in B); a robot at
           least 0.3 m behind its own goal line is in the goal substitution
           area, so that area is the outer 0.3 m of the margin (the game
           controller sends 0.3 m for both divisions); the penalty mark
           8 m (A) or 6 m (B) from the goal centre */
        .boundary_width_goal_line = a ? 0.6 : 0.3,
        .goal_center_to_penalty_mark = a ? 8.0 : 6.0,
        .goal_substitution_area_width = 0.3,
    };
}

static double
s_pick (double configured, double fallback)
{
    return configured > 0 ? configured : fallback;
}

void
sim_field_resolve (const sim_field_t *configured, sim_division_t division, sim_field_t *out)
{
    sim_field_t d;
    sim_field_division (division, &d);
    const sim_field_t *f = configured;
    *out = (sim_field_t) {
        .length = s_pick (f->length, d.length),
        .width = s_pick (f->width, d.width),
        .goal_width = s_pick (f->goal_width, d.goal_width),
        .goal_depth = s_pick (f->goal_depth, d.goal_depth),
        .goal_height = s_pick (f->goal_height, d.goal_height),
        .goal_wall_thickness = s_pick (f->goal_wall_thickness, d.goal_wall_thickness),
        .boundary_width = s_pick (f->boundary_width, d.boundary_width),
        .penalty_area_depth = s_pick (f->penalty_area_depth, d.penalty_area_depth),
        .penalty_area_width = s_pick (f->penalty_area_width, d.penalty_area_width),
        .center_circle_radius = s_pick (f->center_circle_radius, d.center_circle_radius),
        .line_thickness = s_pick (f->line_thickness, d.line_thickness),
        .boundary_width_goal_line = s_pick (f->boundary_width_goal_line, d.boundary_width_goal_line),
        .goal_center_to_penalty_mark = s_pick (f->goal_center_to_penalty_mark, d.goal_center_to_penalty_mark),
        .goal_substitution_area_width =
            s_pick (f->goal_substitution_area_width, d.goal_substitution_area_width),
    };
}

double
sim_field_goal_line_margin (const sim_field_t *field)
{
    return field->boundary_width_goal_line > 0 ? field->boundary_width_goal_line : field->boundary_width;
}

void
sim_field_lines (const sim_field_t *field, sim_field_line_t *lines, sim_field_arc_t *arc)
{
    double hl = field->length / 2, hw = field->width / 2;
    double d = field->penalty_area_depth, pw = field->penalty_area_width / 2;
    double lt = field->line_thickness;
    const sim_field_line_t table[SIM_FIELD_LINE_COUNT] = {
        { "TopTouchLine", -hl, hw, hl, hw, lt },
        { "BottomTouchLine", -hl, -hw, hl, -hw, lt },
        { "LeftGoalLine", -hl, -hw, -hl, hw, lt },
        { "RightGoalLine", hl, -hw, hl, hw, lt },
        { "HalfwayLine", 0, -hw, 0, hw, lt },
        { "CenterLine", -hl, 0, hl, 0, lt },
        { "LeftPenaltyStretch", -hl + d, -pw, -hl + d, pw, lt },
        { "RightPenaltyStretch", hl - d, -pw, hl - d, pw, lt },
        { "LeftFieldLeftPenaltyStretch", -hl, -pw, -hl + d, -pw, lt },
        { "LeftFieldRightPenaltyStretch", -hl, pw, -hl + d, pw, lt },
        { "RightFieldLeftPenaltyStretch", hl, pw, hl - d, pw, lt },
        { "RightFieldRightPenaltyStretch", hl, -pw, hl - d, -pw, lt },
    };
    for (int i = 0; i < SIM_FIELD_LINE_COUNT; i++)
        lines[i] = table[i];
    *arc = (sim_field_arc_t) { "CenterCircle", 0, 0, field->center_circle_radius, 0, 2 * M_PI, lt };
}
