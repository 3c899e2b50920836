/*  test_phys_def.c - the world's definition: phys_world_def_default gives
    the configuration table's defaults (engine/world/phys_def.c fills a
    def from a default configuration, byte for byte the same), the
    schedule's default matches too, and phys_world_new says which value it
    refuses.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/config/config.h"
#include "engine/physics/phys_robot.h"
#include "engine/world/phys_def.h"
#include "common/config/sim_schedule_config.h"

/* Offset of the first differing byte, -1 when equal. */
static long
s_first_difference (const void *a, const void *b, size_t len)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < len; i++)
        if (x[i] != y[i])
            return (long) i;
    return -1;
}

static void
s_config_def (phys_world_def_t *def)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_def_from_config (def, &cfg);
}

Test (phys_def, default_is_the_config_tables_default)
{
    phys_world_def_t mine, table;
    phys_world_def_default (&mine);
    s_config_def (&table);
    cr_expect_eq (mine.substep, table.substep);
    cr_expect_eq (mine.robots_per_team, table.robots_per_team);
    cr_expect_eq (mine.ball.radius, table.ball.radius);
    cr_expect_eq (mine.team[1].radius, table.team[1].radius);
    cr_expect_eq (mine.field.length, table.field.length);
    cr_expect_eq (mine.realism.chip_angle_stddev, table.realism.chip_angle_stddev);
    long at = s_first_difference (&mine, &table, sizeof mine);
    cr_expect_eq (at, -1, "phys_world_def_default differs at byte %ld", at);
}

Test (phys_def, realism_default_is_the_config_tables_default)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    sim_realism_t mine;
    sim_realism_default (&mine);
    long at = s_first_difference (&mine, &cfg.realism, sizeof mine);
    cr_expect_eq (at, -1, "sim_realism_default differs at byte %ld", at);
    sim_ball_cfg_t ball;
    sim_ball_default (&ball);
    cr_expect_eq (memcmp (&ball, &cfg.ball, sizeof ball), 0);
    sim_robot_specs_t specs;
    phys_robot_def_default (&specs);
    cr_expect_eq (memcmp (&specs, &cfg.team[SIM_TEAM_YELLOW], sizeof specs), 0);
}

Test (phys_def, schedule_default_is_the_config_tables_default)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    sim_schedule_def_t mine, table;
    sim_schedule_def_default (&mine);
    sim_schedule_def_from_config (&table, &cfg);
    cr_expect_eq (mine.rig.count, 2);
    long at = s_first_difference (&mine, &table, sizeof mine);
    cr_expect_eq (at, -1, "sim_schedule_def_default differs at byte %ld", at);
}

Test (phys_def, both_defaults_make_the_same_world)
{
    phys_world_def_t mine, table;
    phys_world_def_default (&mine);
    s_config_def (&table);
    phys_world_t *a = phys_world_new (&mine, NULL, 0);
    phys_world_t *b = phys_world_new (&table, NULL, 0);
    cr_assert (a && b);
    for (int i = 0; i < 200; i++) {
        phys_world_step (a);
        phys_world_step (b);
    }
    cr_expect_eq (phys_world_hash (a), phys_world_hash (b));
    phys_world_destroy (&a);
    phys_world_destroy (&b);
}

/* phys_world_new refuses def and writes a message that contains `name`. */
static void
s_expect_refused (const phys_world_def_t *def, const char *name)
{
    char err[192] = "untouched";
    phys_world_t *w = phys_world_new (def, err, sizeof err);
    cr_expect_null (w, "%s accepted", name);
    phys_world_destroy (&w);
    cr_expect (strstr (err, name) != NULL, "\"%s\" does not name %s", err, name);
    cr_expect (strstr (err, "out of range") || strstr (err, "rounds to") || strstr (err, "is no"),
               "\"%s\" says not why", err);
}

Test (phys_def, a_refused_value_is_named)
{
    phys_world_def_t def;
    phys_world_def_default (&def);
    def.team[SIM_TEAM_BLUE].radius = 0;
    s_expect_refused (&def, "blue.radius 0 out of range (0.02, ");

    phys_world_def_default (&def);
    def.team[SIM_TEAM_YELLOW].center_to_dribbler = 0.2;
    s_expect_refused (&def, "yellow.center_to_dribbler 0.2");

    phys_world_def_default (&def);
    def.team[SIM_TEAM_BLUE].limits.vel_absolute_max = -1;
    s_expect_refused (&def, "blue.limits.vel_absolute_max -1");

    phys_world_def_default (&def);
    def.team[SIM_TEAM_YELLOW].drive.model = (sim_drive_model_t) 7;
    s_expect_refused (&def, "yellow.drive.model 7");

    phys_world_def_default (&def);
    def.substep = NAN;
    s_expect_refused (&def, "substep nan");

    phys_world_def_default (&def);
    def.substep = 1e-10;
    s_expect_refused (&def, "substep 1e-10 s rounds to 0 ns");

    phys_world_def_default (&def);
    def.ball.radius = -1;
    s_expect_refused (&def, "ball.radius -1 out of range (0, 1000000] m");

    phys_world_def_default (&def);
    def.contact.ball_wall_normal = 1.5;
    s_expect_refused (&def, "contact.ball_wall_normal 1.5 out of range [0, 1]");

    phys_world_def_default (&def);
    def.field.penalty_area_width = 0;
    s_expect_refused (&def, "field.penalty_area_width 0");

    phys_world_def_default (&def);
    def.realism.kick_speed_factor_stddev = INFINITY;
    s_expect_refused (&def, "realism.kick_speed_factor_stddev inf");

    phys_world_def_default (&def);
    def.command_timeout = -0.5;
    s_expect_refused (&def, "command_timeout -0.5");
}

Test (phys_def, the_first_refusal_is_the_one_named)
{
    phys_world_def_t def;
    phys_world_def_default (&def);
    def.wall_height = -1;
    def.team[SIM_TEAM_BLUE].mass = 0;
    def.field.width = 0;
    s_expect_refused (&def, "wall_height -1");
}

Test (phys_def, error_buffer_is_optional_and_bounded)
{
    phys_world_def_t def;
    phys_world_def_default (&def);
    def.team[SIM_TEAM_YELLOW].dribbler.hold_accel_min = -3;
    cr_expect_null (phys_world_new (&def, NULL, 0));
    char tiny[8];
    memset (tiny, 'x', sizeof tiny);
    cr_expect_null (phys_world_new (&def, tiny, sizeof tiny));
    cr_expect_eq (tiny[sizeof tiny - 1], '\0');
    cr_expect_eq (strncmp (tiny, "yellow.", 7), 0);
    char err[64] = "x";
    cr_expect_null (phys_world_new (NULL, err, sizeof err));
    cr_expect_str_eq (err, "no definition");
    /* an accepted definition leaves an empty message */
    phys_world_def_default (&def);
    phys_world_t *w = phys_world_new (&def, err, sizeof err);
    cr_assert_not_null (w);
    cr_expect_str_eq (err, "");
    phys_world_destroy (&w);
}

Test (phys_def, spec_check_names_the_field)
{
    sim_robot_specs_t s;
    phys_robot_def_default (&s);
    char err[128];
    cr_expect_eq (phys_specs_check (&s, NULL, err, sizeof err), 0);
    s.kicker.incoming_damping = 2;
    cr_expect_eq (phys_specs_check (&s, NULL, err, sizeof err), -1);
    cr_expect_str_eq (err, "kicker.incoming_damping 2 out of range [0, 1]");
    cr_expect_eq (phys_specs_validate (&s), -1);
}

Test (phys_def, from_config_takes_the_field_in_force_and_the_division)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.division = SIM_DIVISION_B;
    cfg.field.length = 10.0;
    cfg.sim.initial_robots_per_team = 3;
    cfg.realism.simulate_dribbling = false;
    phys_world_def_t def;
    phys_world_def_from_config (&def, &cfg);
    cr_expect_eq (def.field.length, 10.0);
    cr_expect_eq (def.field.width, 6.0);
    cr_expect_eq (def.robots_per_team, 3);
    cr_expect_not (def.realism.simulate_dribbling);
    phys_world_t *w = phys_world_new (&def, NULL, 0);
    cr_assert_not_null (w);
    cr_expect (phys_world_team_specs (w, SIM_TEAM_BLUE)->dribbler.glue);
    cr_expect_eq (phys_world_robot_count (w), 6);
    phys_world_destroy (&w);
}
