/*  test_phys_lanes.c - every lane width of the robot phase the CPU runs
    (phys_lanes.h: four lanes on AVX2, eight on AVX-512) gives the scalar
    path's bits: mixed wheels and ideal drives, per-robot specs, every
    move kind, timeouts, by_force movers, robots turning across ±π and
    short registers of every fill (sim_sincos4/8's own bits are
    test_sim_math's). On a CPU without AVX2 both worlds take the scalar
    path; under valgrind (CPUID without AVX-512) only four lanes run.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "engine/physics/phys_internal.h"
#include "engine/physics/phys_lanes.h"
#include "engine/physics/phys_world.h"
#include "common/base/sim_math.h"

/* xorshift64: the same script for both worlds */
static double
s_u (uint64_t *r)
{
    *r ^= *r << 13;
    *r ^= *r >> 7;
    *r ^= *r << 17;
    return (double) (*r >> 11) * (1.0 / 9007199254740992.0);
}

static double
s_rng (uint64_t *r, double a, double b)
{
    return a + (b - a) * s_u (r);
}

static void
s_command (phys_world_t *w, sim_team_t team, unsigned id, uint64_t *r)
{
    phys_command_t c = { 0 };
    double p = s_u (r);
    c.move = p < 0.3 ? PHYS_MOVE_LOCAL
           : p < 0.6 ? PHYS_MOVE_GLOBAL
           : p < 0.9 ? PHYS_MOVE_WHEELS
                     : PHYS_MOVE_NONE;
    for (int i = 0; i < 4; i++)
        c.v[i] = s_rng (r, -6, 6);
    if (c.move != PHYS_MOVE_WHEELS)
        c.v[2] = s_rng (r, -14, 14); /* beyond vel_angular_max: the clamp */
    if (s_u (r) < 0.3)
        c.dribbler_rpm = s_rng (r, -1000, 20000);
    phys_err_t e = phys_world_command (w, team, id, &c);
    cr_assert (e == PHYS_OK || e == PHYS_ERR_UNKNOWN_ROBOT, "%d", (int) e); /* yellow 0 may be gone */
}

/* One scripted world: `per_team` robots a team, blue on wheels and yellow
   ideal unless `ideal` says both, some robots with specs of their own. */
static phys_world_t *
s_world (int per_team, bool ideal, bool scalar)
{
    phys_world_def_t def;
    phys_world_def_default (&def);
    def.robots_per_team = per_team < 16 ? per_team : 16;
    def.team[SIM_TEAM_YELLOW].drive.model = SIM_DRIVE_IDEAL;
    if (ideal)
        def.team[SIM_TEAM_BLUE].drive.model = SIM_DRIVE_IDEAL;
    phys_world_t *w = phys_world_new (&def, NULL, 0);
    cr_assert_not_null (w);
    /* beyond the formation's 16 a team, placed on a grid */
    for (int t = 0; t < 2; t++)
        for (unsigned id = 16; id < (unsigned) per_team; id++) {
            phys_robot_teleport_t c = { .team = (sim_team_t) t,
                                        .id = id,
                                        .has_x = true,
                                        .has_y = true,
                                        .has_present = true,
                                        .present = true };
            c.x = -4.0 + 0.5 * (id - 16);
            c.y = t ? 2.5 : -2.5;
            cr_assert_eq (phys_world_teleport_robot (w, &c), PHYS_OK);
        }
    phys_world_set_scalar_robots (w, scalar);
    for (unsigned id = 0; id < (unsigned) per_team; id += 3) {
        phys_spec_update_t u = { .mask = PHYS_SPEC_ALL };
        u.v = *phys_world_robot_specs (w, SIM_TEAM_BLUE, id);
        u.v.mass = 2.0 + 0.1 * id;
        u.v.limits.acc_speedup_absolute_max = 2.5 + 0.5 * id;
        u.v.limits.vel_absolute_max = 2.0 + 0.2 * id;
        u.v.wheel_angles.front_right = -0.9 - 0.01 * id;
        u.v.drive.max_wheel_speed = 3.0 + 0.3 * id;
        u.v.drive.coast_decel = id % 2 ? 0 : 6.0;
        u.v.drive.model = id % 6 == 3 ? SIM_DRIVE_IDEAL : SIM_DRIVE_WHEELS;
        cr_assert_eq (phys_world_update_specs (w, SIM_TEAM_BLUE, id, &u, NULL, 0), PHYS_OK);
    }
    if (per_team % 2) {
        /* an odd robot count: registers filled with 1 and 3 robots too */
        phys_robot_teleport_t t = { .team = SIM_TEAM_YELLOW, .id = 0, .has_present = true, .present = false };
        cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
    }
    return w;
}

/* Substeps of the script on w; returns the hash of every substep's state
   (positions, orientations, velocities; the setpoints and cached cos/sin
   are compared in the images at the end). */
static uint64_t
s_script (phys_world_t *w, int per_team, uint64_t seed)
{
    uint64_t r = seed, acc = 0xcbf29ce484222325ull;
    for (int k = 0; k < 4000; k++) {
        bool quiet = (k / 900) % 2 == 1; /* commands stop: the timeout, coasting */
        if (k % 7 == 0 && !quiet)
            for (int t = 0; t < 2; t++)
                for (unsigned id = 0; id < (unsigned) per_team; id++)
                    if (s_u (&r) < 0.6)
                        s_command (w, (sim_team_t) t, id, &r);
        if (k % 97 == 0 && per_team > 0) {
            /* a robot placed near ±π, spinning, sometimes moved by force */
            phys_robot_teleport_t t = { .team = (sim_team_t) (s_u (&r) < 0.5),
                                        .id = (unsigned) (s_u (&r) * per_team) % (unsigned) per_team,
                                        .has_x = true,
                                        .has_y = true,
                                        .has_orientation = true,
                                        .has_omega = true };
            t.x = s_rng (&r, -4, 4);
            t.y = s_rng (&r, -3, 3);
            t.orientation = (s_u (&r) < 0.5 ? -1 : 1) * s_rng (&r, 3.1, 3.1416);
            t.omega = s_rng (&r, -10, 10);
            t.by_force = s_u (&r) < 0.3;
            t.has_omega = !t.by_force; /* a mover takes no velocity */
            phys_err_t e = phys_world_teleport_robot (w, &t);
            cr_assert (e == PHYS_OK || e == PHYS_ERR_UNKNOWN_ROBOT, "%d", (int) e);
        }
        phys_world_step (w);
        acc = (acc ^ phys_world_hash (w)) * 0x100000001b3ull;
    }
    return acc;
}

/* The scripts on a world with the lanes at `width` and one on the scalar
   path: every substep's hash and the final images equal. */
static void
s_compare (int width)
{
    /* 1 to 42 robots: full registers and short ones of every fill, one
       batch and (with the scalar movers) robots on both paths, and a full
       batch of 32 run in the middle of the robots (21 a team) */
    const int per_team[] = { 1, 2, 3, 4, 5, 6, 7, 11, 16, 21 };
    for (size_t c = 0; c < sizeof per_team / sizeof per_team[0]; c++)
        for (int ideal = 0; ideal < 2; ideal++) {
            phys_world_t *a = s_world (per_team[c], ideal, false);
            phys_world_t *b = s_world (per_team[c], ideal, true);
            uint64_t seed = 0x9e3779b97f4a7c15ull + c;
            uint64_t ha = s_script (a, per_team[c], seed), hb = s_script (b, per_team[c], seed);
            cr_expect_eq (ha, hb, "width %d, %d robots a team, ideal %d", width, per_team[c], ideal);
            size_t len = phys_world_image_size ();
            void *ia = malloc (len), *ib = malloc (len);
            cr_assert (ia && ib);
            phys_world_set_scalar_robots (b, false); /* the flag is no state */
            phys_world_save (a, ia);
            phys_world_save (b, ib);
            cr_expect_eq (memcmp (ia, ib, len), 0, "width %d, %d robots a team, ideal %d: images", width,
                          per_team[c], ideal);
            free (ia);
            free (ib);
            phys_world_destroy (&a);
            phys_world_destroy (&b);
        }
}

Test (phys_lanes, four_lanes_give_the_scalar_bits)
{
    phys_lanes_set_width (4);
    cr_assert (phys_lanes_width () == 4 || !phys_lanes_supported ());
    s_compare (4);
    phys_lanes_set_width (0);
}

Test (phys_lanes, eight_lanes_give_the_scalar_bits)
{
    if (phys_lanes_width () != 8)
        return; /* no AVX-512 here (or valgrind): four_lanes covers the CPU */
    s_compare (8);
}

Test (phys_lanes, width_is_the_widest_the_cpu_runs)
{
    int w = phys_lanes_width ();
    cr_assert (w == 0 || w == 4 || w == 8);
#ifdef SIM_MATH_AVX512
    cr_assert_eq (w == 8, sim_math_have_avx512 () != 0);
#endif
    cr_assert_eq (w >= 4, phys_lanes_supported ());
}

/* A wheels-driven robot told to stand still comes to exactly zero on every
   path: the drive alone would take a fixed fraction off its velocity every
   substep for ever, into subnormal numbers after ~20 s (each operation on
   them a slow microcode assist on x86). */
Test (phys_lanes, a_robot_at_rest_reaches_zero_not_subnormals)
{
    static const int widths[] = { -1, 4, 8 };
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        if (widths[wi] > 0 && phys_lanes_width () < widths[wi])
            continue;
        phys_world_def_t def;
        phys_world_def_default (&def);
        def.robots_per_team = 11;
        def.command_timeout = 1000; /* the zero command holds all along */
        phys_world_t *w = phys_world_new (&def, NULL, 0);
        cr_assert (w);
        phys_world_set_scalar_robots (w, widths[wi] < 0);
        phys_lanes_set_width (widths[wi] > 0 ? widths[wi] : 0);
        for (unsigned id = 0; id < 11; id++) {
            phys_command_t go = { .move = PHYS_MOVE_LOCAL, .v = { 1.0 + 0.1 * id, -0.5, 2.0 } };
            cr_assert_eq (phys_world_command (w, SIM_TEAM_YELLOW, id, &go), PHYS_OK);
        }
        for (int k = 0; k < 40000; k++) {
            if (k == 1000)
                for (unsigned id = 0; id < 11; id++) {
                    phys_command_t stop = { .move = PHYS_MOVE_LOCAL };
                    phys_world_command (w, SIM_TEAM_YELLOW, id, &stop);
                }
            phys_world_step (w);
        }
        for (unsigned id = 0; id < 11; id++) {
            sim_robot_state_t s;
            cr_assert_eq (phys_world_robot (w, SIM_TEAM_YELLOW, id, &s), 0);
            cr_expect (s.vx == 0 && s.vy == 0 && s.omega == 0, "width %d robot %u: v (%g, %g) omega %g",
                       widths[wi], id, s.vx, s.vy, s.omega);
        }
        phys_lanes_set_width (0);
        phys_world_destroy (&w);
    }
}
