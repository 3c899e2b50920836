/*  test_sim_team.c - common/base/sim_team.h: a team's forms (sim_team_t,
    the bus's number, the league's Team enum, grSim's flag, its name) turn
    into each other and back, and what is not a team is said so.
*/
#include <criterion/criterion.h>

#include "common/base/sim_team.h"

Test (sim_team, every_form_round_trips)
{
    const sim_team_t teams[2] = { SIM_TEAM_BLUE, SIM_TEAM_YELLOW };
    for (int i = 0; i < 2; i++) {
        sim_team_t t = teams[i];
        cr_expect_eq (sim_team_from_number (sim_team_number (t)), t);
        cr_expect_eq (sim_team_from_league (sim_team_league (t)), (int) t);
        cr_expect_eq (sim_team_parse (sim_team_name (t)), (int) t);
        cr_expect_eq (sim_team_from_yellow (t == SIM_TEAM_YELLOW), t);
    }
}

Test (sim_team, the_forms_have_their_own_numbers)
{
    cr_expect_eq (sim_team_number (SIM_TEAM_BLUE), 0);
    cr_expect_eq (sim_team_number (SIM_TEAM_YELLOW), 1);
    cr_expect_eq (sim_team_league (SIM_TEAM_BLUE), TEAM__BLUE);
    cr_expect_eq (sim_team_league (SIM_TEAM_YELLOW), TEAM__YELLOW);
    cr_expect_eq (TEAM__YELLOW, 1, "the league numbers yellow first");
    cr_expect_str_eq (sim_team_name (SIM_TEAM_BLUE), "blue");
    cr_expect_str_eq (sim_team_name (SIM_TEAM_YELLOW), "yellow");
}

Test (sim_team, what_is_not_a_team_is_refused_or_blue)
{
    cr_expect_eq (sim_team_from_league (TEAM__UNKNOWN), -1);
    cr_expect_eq (sim_team_from_league (3), -1);
    cr_expect_eq (sim_team_parse ("Blue"), -1, "names are exact");
    cr_expect_eq (sim_team_parse ("yellowish"), -1);
    cr_expect_eq (sim_team_parse (""), -1);
    /* the bus decoders refuse numbers above 1 before they ask */
    cr_expect_eq (sim_team_from_number (0), SIM_TEAM_BLUE);
    cr_expect_eq (sim_team_from_number (2), SIM_TEAM_BLUE);
}
