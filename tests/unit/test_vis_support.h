/*  test_vis_support.h - helpers shared by the vision unit tests: a default
    configuration with a named realism preset, and robots for hand-made
    snapshots.
*/
#ifndef TEST_VIS_SUPPORT_H_INCLUDED
#define TEST_VIS_SUPPORT_H_INCLUDED

#include <criterion/criterion.h>
#include <string.h>

#include "common/config/config.h"
#include "common/base/sim_snapshot.h"

/* The built-in defaults with the whole [realism] table of `realism`. */
static inline sim_config_t
vis_test_cfg (const char *realism)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char err[256];
    cr_assert_eq (sim_config_apply_realism (&cfg, realism, err, sizeof err), 0, "%s", err);
    return cfg;
}

/* Append a standard robot (radius 0.09 m, height 0.15 m) to s. */
static inline void
vis_test_robot (sim_snapshot_t *s, int team, int id, double x, double y, double th)
{
    cr_assert (s->robot_count < SIM_SNAPSHOT_MAX_ROBOTS);
    sim_robot_state_t *r = &s->robots[s->robot_count++];
    memset (r, 0, sizeof *r);
    r->team = team;
    r->id = id;
    r->x = x;
    r->y = y;
    r->orientation = th;
    r->radius = 0.09;
    r->height = 0.15;
}

#endif
