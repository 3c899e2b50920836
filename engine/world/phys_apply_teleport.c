/*  phys_apply_teleport.c - TeleportBall and TeleportRobot of a
    SimulatorControl applied to the world, and the answer when one is
    refused: the missing half of a pair, or the coordinate that is no
    number (see phys_apply_internal.h). */
#include <stdio.h>
#include <string.h>

#include "engine/physics/phys_check.h"
#include "phys_apply_internal.h"

/* Append `name` to the comma-separated list in buf[len]. */
static void
s_list_add (char *buf, size_t len, const char *name)
{
    size_t used = strlen (buf);
    snprintf (buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* The coordinates a pair (a, b) and its optional third (c, which needs
   both) leave out: a given b, b given a, both given c. */
static void
s_missing_pair (char *buf, size_t len, bool has_a, bool has_b, bool has_c, const char *a, const char *b)
{
    if (!has_a && (has_b || has_c))
        s_list_add (buf, len, a);
    if (!has_b && (has_a || has_c))
        s_list_add (buf, len, b);
}

/* A teleport's field as the message spells it: given or not, its value. */
typedef struct {
    const char *name;
    bool has;
    double v;
} s_field_t;

/* The first given field of f[0..n) that is no acceptable value
   (phys_sane: NaN, an infinity, beyond PHYS_INPUT_LIMIT), NULL for none:
   what an UNSUPPORTED teleport names. */
static const char *
s_insane_teleport (const s_field_t *f, int n)
{
    for (int i = 0; i < n; i++)
        if (f[i].has && !phys_sane (f[i].v))
            return f[i].name;
    return NULL;
}

/* The answer to a refused teleport of `who` (PARTIAL_COORD is named by
   the caller): UNSUPPORTED names the field beyond the limit, anything
   else says `other`. */
static void
s_report_teleport (sim_errors_t *errors, phys_err_t err, const char *who, const char *other,
                   const s_field_t *f, int n)
{
    const char *field = err == PHYS_ERR_UNSUPPORTED ? s_insane_teleport (f, n) : NULL;
    if (field)
        sim_errors_add (errors, phys_err_code (err), "%s: %s is not a number within +-%g", who, field,
                        PHYS_INPUT_LIMIT);
    else
        phys_apply_report (errors, err, other);
}

void
phys_apply_teleport_ball (phys_world_t *world, const TeleportBall *tb, sim_errors_t *errors)
{
    /* clang-format off */
    phys_ball_teleport_t t = {
        .has_x = tb->has_x, .has_y = tb->has_y, .has_z = tb->has_z,
        .has_vx = tb->has_vx, .has_vy = tb->has_vy, .has_vz = tb->has_vz,
        .x = tb->x, .y = tb->y, .z = tb->z, .vx = tb->vx, .vy = tb->vy, .vz = tb->vz,
        .teleport_safely = tb->has_teleport_safely && tb->teleport_safely,
        .roll = tb->has_roll && tb->roll,
        .by_force = tb->has_by_force && tb->by_force,
    };
    /* clang-format on */
    phys_err_t err = phys_world_teleport_ball (world, &t);
    if (err == PHYS_ERR_PARTIAL_COORD) {
        char missing[64] = "";
        s_missing_pair (missing, sizeof missing, t.has_x, t.has_y, t.has_z, "x", "y");
        s_missing_pair (missing, sizeof missing, t.has_vx, t.has_vy, t.has_vz, "vx", "vy");
        sim_errors_add (errors, phys_err_code (err),
                        "teleport_ball: %s missing (x and y come together, vx and vy too; z needs x and y, "
                        "vz needs vx and vy)",
                        missing);
    } else {
        const s_field_t f[] = {
            { "x", t.has_x, t.x },    { "y", t.has_y, t.y },    { "z", t.has_z, t.z },
            { "vx", t.has_vx, t.vx }, { "vy", t.has_vy, t.vy }, { "vz", t.has_vz, t.vz }
        };
        s_report_teleport (errors, err, "teleport_ball", "teleport_ball rejected", f, 6);
    }
}

void
phys_apply_teleport_robot (phys_world_t *world, const TeleportRobot *tr, sim_errors_t *errors)
{
    /* clang-format off */
    phys_robot_teleport_t t = {
        .has_x = tr->has_x, .has_y = tr->has_y, .has_orientation = tr->has_orientation,
        .has_vx = tr->has_v_x, .has_vy = tr->has_v_y, .has_omega = tr->has_v_angular,
        .has_present = tr->has_present,
        .x = tr->x, .y = tr->y, .orientation = tr->orientation,
        .vx = tr->v_x, .vy = tr->v_y, .omega = tr->v_angular,
        .present = tr->present,
        .by_force = tr->has_by_force && tr->by_force,
    };
    /* clang-format on */
    if (!phys_apply_robot_id (tr->id, &t.team, &t.id, errors))
        return;
    char what[64];
    snprintf (what, sizeof what, "teleport_robot %s %u", sim_team_name (t.team), t.id);
    phys_err_t err = phys_world_teleport_robot (world, &t);
    if (err == PHYS_ERR_PARTIAL_COORD) {
        char missing[64] = "";
        s_missing_pair (missing, sizeof missing, t.has_x, t.has_y, false, "x", "y");
        s_missing_pair (missing, sizeof missing, t.has_vx, t.has_vy, false, "v_x", "v_y");
        sim_errors_add (errors, phys_err_code (err),
                        "%s: %s missing (x and y come together, v_x and v_y too)", what, missing);
    } else {
        const s_field_t f[] = { { "x", t.has_x, t.x },
                                { "y", t.has_y, t.y },
                                { "orientation", t.has_orientation, t.orientation },
                                { "v_x", t.has_vx, t.vx },
                                { "v_y", t.has_vy, t.vy },
                                { "v_angular", t.has_omega, t.omega } };
        s_report_teleport (errors, err, what, what, f, 6);
    }
}
