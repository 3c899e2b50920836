/*  phys_field.c - walls, room box, event regions and formations. */
#include "phys_field.h"

#include "common/base/sim_field.h"

#include <math.h>

static void
s_wall (phys_wall_t *w, double ax, double ay, double bx, double by, double nx, double ny, double height,
        bool is_goal)
{
    double dx = bx - ax, dy = by - ay;
    double len = sqrt (dx * dx + dy * dy);
    *w = (phys_wall_t) {
        .ax = ax,
        .ay = ay,
        .bx = bx,
        .by = by,
        .nx = nx,
        .ny = ny,
        .tx = len > 0 ? dx / len : 1,
        .ty = len > 0 ? dy / len : 0,
        .len = len,
        .height = height,
        .is_goal = is_goal,
        .minx = ax < bx ? ax : bx,
        .maxx = ax < bx ? bx : ax,
        .miny = ay < by ? ay : by,
        .maxy = ay < by ? by : ay,
    };
}

void
phys_geom_build (phys_geom_t *g, const sim_field_t *f, double wall_height)
{
    double hl = f->length / 2, hw = f->width / 2, bw = f->boundary_width;
    double bx = sim_field_goal_line_margin (f);
    double gw2 = f->goal_width / 2, gd = f->goal_depth, th2 = f->goal_wall_thickness / 2;
    double gh = f->goal_height, wh = wall_height;
    /* the rules (2026): the goal side walls extend to the outside wall */
    double side = gd > bx ? gd : bx;
    g->field = *f;
    g->wall_height = wall_height;
    int k = 0;
    s_wall (&g->walls[k++], -(hl + bx), hw + bw, hl + bx, hw + bw, 0, -1, wh, false);
    s_wall (&g->walls[k++], -(hl + bx), -(hw + bw), hl + bx, -(hw + bw), 0, 1, wh, false);
    for (int s = -1; s <= 1; s += 2) {
        double x = s * (hl + bx);
        s_wall (&g->walls[k++], x, -(hw + bw), x, -gw2, -s, 0, wh, false);
        s_wall (&g->walls[k++], x, gw2, x, hw + bw, -s, 0, wh, false);
    }
    for (int s = -1; s <= 1; s += 2) {
        for (int sy = -1; sy <= 1; sy += 2) {
            double y = sy * (gw2 + th2);
            s_wall (&g->walls[k++], s * hl, y, s * (hl + side), y, 0, -sy, gh, true);
            s_wall (&g->walls[k++], s * hl, y, s * (hl + side), y, 0, sy, gh, true);
        }
        double x = s * (hl + gd);
        s_wall (&g->walls[k++], x, -(gw2 + th2), x, gw2 + th2, -s, 0, gh, true);
    }
    g->room_hx = hl + bx + gd + 1.0;
    g->room_hy = hw + bw + 1.0;
    /* Goal frames start at |x| = hl, the boards are at hl + bx / hw + bw. */
    g->inner_x = hl < hl + bx ? hl : hl + bx;
    g->inner_y = hw + bw;
}

bool
phys_geom_outside_field (const phys_geom_t *g, double x, double y)
{
    return fabs (x) > g->field.length / 2 || fabs (y) > g->field.width / 2;
}

int
phys_geom_goal_region (const phys_geom_t *g, double x, double y)
{
    double hl = g->field.length / 2;
    double ax = fabs (x);
    if (ax > hl && ax < hl + g->field.goal_depth && fabs (y) < g->field.goal_width / 2)
        return x < 0 ? SIM_TEAM_BLUE : SIM_TEAM_YELLOW;
    return -1;
}

int
phys_formation (const sim_field_t *field, sim_team_t team, int n, double *x, double *y, double *theta)
{
    /* clang-format off */
    static const double table[16][2] = {
        { 0, 0 },       { -4.0, 0.0 },  { -4.0, 1.0 },  { -4.0, -1.0 },
        { -4.0, 2.0 },  { -4.0, -2.0 }, { -2.5, 0.5 },  { -2.5, -0.5 },
        { -2.5, 1.5 },  { -2.5, -1.5 }, { -2.5, 2.5 },  { -2.5, -2.5 },
        { -1.2, 1.0 },  { -1.2, -1.0 }, { -1.2, 2.0 },  { -1.2, -2.0 },
    };
    /* clang-format on */
    if (n < 0 || n >= 16)
        return -1;
    double hl = field->length / 2, hw = field->width / 2;
    double px, py;
    if (n == 0) {
        px = -hl + 0.3;
        py = 0;
    } else {
        px = table[n][0] * (hl / 6.0);
        py = table[n][1] * (hw / 4.5);
    }
    if (team == SIM_TEAM_BLUE) {
        *x = -fabs (px);
        *theta = 0;
    } else {
        *x = fabs (px);
        *theta = M_PI;
    }
    *y = py;
    return 0;
}
