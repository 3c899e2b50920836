/*  phys_world_def.c - a world's definition: what each value may be (the
    checks name the refused value, for a new world, a loaded image and a
    runtime change of field or realism) and the defaults. The world itself
    lives in phys_world.c.
*/
#include "phys_world.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "phys_check.h"
#include "phys_internal.h"
#include "common/base/sim_field.h"
#include "common/base/sim_team.h"

static void
s_check_ball (phys_check_t *c, const sim_ball_cfg_t *b)
{
    PHYS_CHECK_POS (c, "ball.radius", b->radius, "m");
    PHYS_CHECK_POS (c, "ball.mass", b->mass, "kg");
    PHYS_CHECK_ANY (c, "ball.acc_slide", b->acc_slide, "m/s^2");
    PHYS_CHECK_ANY (c, "ball.acc_roll", b->acc_roll, "m/s^2");
    PHYS_CHECK_ANY (c, "ball.roll_speed_coefficient", b->roll_speed_coefficient, "1/s");
    PHYS_CHECK_ANY (c, "ball.advertise_roll_speed", b->advertise_roll_speed, "m/s");
    PHYS_CHECK_POS (c, "ball.inertia_distribution", b->inertia_distribution, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_xy_first_hop", b->chip_damping_xy_first_hop, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_xy_other_hops", b->chip_damping_xy_other_hops, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_z", b->chip_damping_z, "");
    PHYS_CHECK_NONNEG (c, "ball.chip_damping_z_other_hops", b->chip_damping_z_other_hops, "");
    PHYS_CHECK_NONNEG (c, "ball.min_hop_height", b->min_hop_height, "m");
    PHYS_CHECK_NONNEG (c, "ball.rest_speed", b->rest_speed, "m/s");
}

static void
s_check_contact (phys_check_t *c, const sim_contact_cfg_t *k)
{
    PHYS_CHECK_UNIT (c, "contact.ball_robot_normal", k->ball_robot_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_tangent", k->ball_robot_tangent);
    PHYS_CHECK_UNIT (c, "contact.ball_kicker_normal", k->ball_kicker_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_kicker_tangent", k->ball_kicker_tangent);
    PHYS_CHECK_UNIT (c, "contact.ball_wall_normal", k->ball_wall_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_wall_tangent", k->ball_wall_tangent);
    PHYS_CHECK_UNIT (c, "contact.spin_retention", k->spin_retention);
    PHYS_CHECK_ANY (c, "contact.robot_robot_restitution", k->robot_robot_restitution, "");
    PHYS_CHECK_ANY (c, "contact.robot_robot_friction", k->robot_robot_friction, "");
    PHYS_CHECK_UNIT (c, "contact.robot_wall_restitution", k->robot_wall_restitution);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_top_normal", k->ball_robot_top_normal);
    PHYS_CHECK_UNIT (c, "contact.ball_robot_top_tangent", k->ball_robot_top_tangent);
}

static void
s_check_field (phys_check_t *c, const sim_field_t *f)
{
    PHYS_CHECK_POS (c, "field.length", f->length, "m");
    PHYS_CHECK_POS (c, "field.width", f->width, "m");
    PHYS_CHECK_POS (c, "field.goal_width", f->goal_width, "m");
    PHYS_CHECK_POS (c, "field.goal_depth", f->goal_depth, "m");
    PHYS_CHECK_POS (c, "field.goal_height", f->goal_height, "m");
    PHYS_CHECK_POS (c, "field.goal_wall_thickness", f->goal_wall_thickness, "m");
    PHYS_CHECK_POS (c, "field.boundary_width", f->boundary_width, "m");
    PHYS_CHECK_NONNEG (c, "field.boundary_width_goal_line", f->boundary_width_goal_line, "m");
    PHYS_CHECK_POS (c, "field.penalty_area_depth", f->penalty_area_depth, "m");
    PHYS_CHECK_POS (c, "field.penalty_area_width", f->penalty_area_width, "m");
    PHYS_CHECK_POS (c, "field.center_circle_radius", f->center_circle_radius, "m");
    PHYS_CHECK_POS (c, "field.line_thickness", f->line_thickness, "m");
}

static void
s_check_realism (phys_check_t *c, const phys_realism_def_t *r)
{
    PHYS_CHECK_ANY (c, "realism.kick_direction_stddev", r->kick_direction_stddev, "rad");
    PHYS_CHECK_ANY (c, "realism.chip_angle_stddev", r->chip_angle_stddev, "rad");
    PHYS_CHECK_ANY (c, "realism.kick_speed_factor_stddev", r->kick_speed_factor_stddev, "");
}

bool
phys_def_field_ok (const sim_field_t *f)
{
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_field (&c, f);
    return c.ok;
}

bool
phys_def_realism_ok (const phys_realism_def_t *r)
{
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_realism (&c, r);
    return c.ok;
}

bool
phys_def_check (const phys_world_def_t *def, char *err, size_t err_len)
{
    phys_check_t c;
    phys_check_init (&c, err, err_len, NULL);
    phys_check_range (&c, "substep", def->substep, 0, true, 1.0, false, "s");
    /* llround only on a value the range check let through */
    phys_check_that (&c, !c.ok || llround (def->substep * 1e9) > 0, "substep", def->substep,
                     "s rounds to 0 ns");
    PHYS_CHECK_NONNEG (&c, "command_timeout", def->command_timeout, "s");
    PHYS_CHECK_NONNEG (&c, "wall_height", def->wall_height, "m");
    s_check_ball (&c, &def->ball);
    s_check_contact (&c, &def->contact);
    s_check_realism (&c, &def->realism);
    for (int t = 0; t < 2 && c.ok; t++) {
        char prefix[16];
        snprintf (prefix, sizeof prefix, "%s.", sim_team_name ((sim_team_t) t));
        if (phys_specs_check (&def->team[t], prefix, err, err_len) != 0)
            c.ok = false;
    }
    s_check_field (&c, &def->field);
    return c.ok;
}

bool
phys_def_parts_ok (const sim_ball_cfg_t *ball, const sim_contact_cfg_t *contact,
                   const phys_realism_def_t *realism, const sim_field_t *field)
{
    phys_check_t c;
    phys_check_init (&c, NULL, 0, NULL);
    s_check_ball (&c, ball);
    s_check_contact (&c, contact);
    s_check_realism (&c, realism);
    s_check_field (&c, field);
    return c.ok;
}

void
phys_realism_def_pick (phys_realism_def_t *def, const sim_realism_t *realism)
{
    memset (def, 0, sizeof *def);
    def->simulate_dribbling = realism->simulate_dribbling;
    def->kick_direction_stddev = realism->kick_direction_stddev;
    def->chip_angle_stddev = realism->chip_angle_stddev;
    def->kick_speed_factor_stddev = realism->kick_speed_factor_stddev;
}

void
phys_realism_def_default (phys_realism_def_t *def)
{
    sim_realism_t realism;
    sim_realism_default (&realism);
    phys_realism_def_pick (def, &realism);
}

void
phys_world_def_default (phys_world_def_t *def)
{
    /* zero first, so two defaults compare equal byte for byte */
    memset (def, 0, sizeof *def);
    def->substep = 0.001;
    def->seed = 0;
    def->command_timeout = 0.1;
    def->wall_height = 0.10;
    def->robots_per_team = 11;
    sim_field_division (SIM_DIVISION_A, &def->field);
    sim_ball_default (&def->ball);
    def->contact = (sim_contact_cfg_t) {
        .ball_robot_normal = 0.5,
        .ball_robot_tangent = 0.3,
        .ball_kicker_normal = 0.8,
        .ball_kicker_tangent = 0.4,
        .ball_wall_normal = 0.5,
        .ball_wall_tangent = 0.0,
        .spin_retention = 0.6,
        .robot_robot_restitution = 0.2,
        .robot_robot_friction = 0.1,
        .robot_wall_restitution = 0.1,
        .ball_robot_top_normal = 0.54,
        .ball_robot_top_tangent = 0.3,
        .robot_hull_chord_contacts = true,
    };
    for (int t = 0; t < 2; t++)
        phys_robot_def_default (&def->team[t]);
    phys_realism_def_default (&def->realism);
}
