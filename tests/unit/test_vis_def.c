/*  test_vis_def.c - the camera model's definition: vis_model_def_default
    gives the configuration table's defaults (engine/world/vis_def.c
    fills a def from a default configuration, byte for byte the same), and
    a def from the configuration carries what the model reads.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "engine/world/vis_def.h"

Test (vis_def, default_is_the_config_tables_default)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    vis_model_def_t mine, table;
    vis_model_def_default (&mine);
    vis_model_def_from_config (&table, &cfg);
    cr_expect_eq (mine.schedule.rig.count, table.schedule.rig.count);
    cr_expect_eq (mine.focal_length_px, table.focal_length_px);
    cr_expect_eq (mine.max_robot_radius, table.max_robot_radius);
    const unsigned char *a = (const void *) &mine, *b = (const void *) &table;
    long at = -1;
    for (size_t i = 0; i < sizeof mine && at < 0; i++)
        if (a[i] != b[i])
            at = (long) i;
    cr_expect_eq (at, -1, "vis_model_def_default differs at byte %ld", at);
}

Test (vis_def, from_config_carries_what_the_model_reads)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.run.division = SIM_DIVISION_B;
    cfg.sim.seed = 99;
    cfg.rig_generation = 4;
    cfg.team[SIM_TEAM_YELLOW].radius = 0.1;
    cfg.vision.geometry_every_n_frames = 5;
    cfg.realism.vision_delay = 0.05;
    vis_model_def_t def;
    vis_model_def_from_config (&def, &cfg);
    cr_expect_eq (def.schedule.rig.count, 1, "division B: one camera");
    cr_expect_eq (def.schedule.seed, 99);
    cr_expect_eq (def.schedule.rig_generation, 4);
    cr_expect_eq (def.field.length, 9.0);
    cr_expect_eq (def.max_robot_radius, 0.1);
    cr_expect_eq (def.geometry_every_n_frames, 5);
    cr_expect_eq (def.realism.vision_delay, 0.05);
    vis_model_t *m = vis_model_new (&def);
    cr_assert_not_null (m);
    cr_expect_eq (vis_model_rig (m)->count, 1);
    cr_expect_eq (memcmp (vis_model_def (m), &def, sizeof def), 0);
    vis_model_destroy (&m);
}

Test (vis_def, truth_uuid_is_per_instance_and_stable)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    char a[64], b[64];
    vis_truth_uuid (&cfg, "lab-pc", a, sizeof a);
    cr_expect_eq (strlen (a), 36u, "'%s' is not a uuid", a);
    cr_expect (a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-' && a[14] == '8', "'%s'", a);
    cr_expect_str_eq (vis_truth_uuid (&cfg, "lab-pc", b, sizeof b), a, "the same instance, the same id");
    cr_expect_str_neq (vis_truth_uuid (&cfg, "other-pc", b, sizeof b), a, "another host");
    cfg.network.port_offset = 100;
    cr_expect_str_neq (vis_truth_uuid (&cfg, "lab-pc", b, sizeof b), a, "another port offset");
    cfg.network.port_offset = 0;
    cfg.network.control_port = 20300;
    cr_expect_str_neq (vis_truth_uuid (&cfg, "lab-pc", b, sizeof b), a, "another control port");
    cfg.network.control_port = 10300;
    cfg.sim.seed = 7;
    cr_expect_str_neq (vis_truth_uuid (&cfg, "lab-pc", b, sizeof b), a, "another seed");
    snprintf (cfg.vision.truth_uuid, sizeof cfg.vision.truth_uuid, "%s", "my-truth");
    cr_expect_str_eq (vis_truth_uuid (&cfg, "lab-pc", b, sizeof b), "my-truth", "the key wins");
}
