/*  test_phys_collide.c - contacts (physics.md §7): wall bounce, chips over
    the goal frame, robots face to face, ball on a robot top, energy never
    growing, bounded penetration, room box, field events.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "common/config/config.h"
#include "engine/physics/phys_world.h"
#include "tests/support/sim_from_config.h"

static phys_world_t *
s_world (sim_config_t *cfg)
{
    cfg->sim.initial_robots_per_team = 0;
    phys_world_t *w = sim_fc_world_new (cfg);
    cr_assert_not_null (w);
    return w;
}

static void
s_add_robot (phys_world_t *w, sim_team_t team, unsigned id, double x, double y, double th)
{
    phys_robot_teleport_t t = { .team = team,
                                .id = id,
                                .has_x = true,
                                .has_y = true,
                                .has_orientation = true,
                                .x = x,
                                .y = y,
                                .orientation = th,
                                .has_present = true,
                                .present = true };
    cr_assert_eq (phys_world_teleport_robot (w, &t), PHYS_OK);
}

static void
s_ball (phys_world_t *w, double x, double y, double z, double vx, double vy, double vz)
{
    phys_ball_teleport_t b = { .has_x = true,
                               .has_y = true,
                               .has_z = true,
                               .x = x,
                               .y = y,
                               .z = z,
                               .has_vx = true,
                               .has_vy = true,
                               .has_vz = true,
                               .vx = vx,
                               .vy = vy,
                               .vz = vz };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
}

/* Highest ball y over n substeps. */
static double
s_max_y (phys_world_t *w, int n)
{
    double m = -INFINITY;
    for (int k = 0; k < n; k++) {
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        m = b.y > m ? b.y : m;
    }
    return m;
}

/* Ball 4 m/s at the +y board: never penetrates, comes back slower than
   4 (1 - 0.5) + 1e-6 and faster than 1 m/s. */
Test (phys_collide, wall_bounce)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    double wall = 4.5 + 0.3;
    s_ball (w, 1.0, wall - 0.5, 0, 0, 4, 0);
    double vy_back = 0;
    for (int k = 0; k < 1000; k++) {
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        cr_assert_leq (b.y, wall - 0.0215 + 1e-9, "penetrated at %d: %g", k, b.y);
        if (b.vy < 0 && vy_back == 0)
            vy_back = -b.vy;
    }
    cr_log_info ("wall bounce: back at %g m/s", vy_back);
    cr_expect_lt (vy_back, 4 * (1 - 0.5) + 1e-6, "back at %g", vy_back);
    cr_expect_gt (vy_back, 1.0);
    phys_world_destroy (&w);
}

/* A chip landing at 3 m passes over the 0.155 m goal back plate 1.5 m
   away; a flat 3 m/s ball bounces back from it. */
Test (phys_collide, chip_over_goal_frame)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    double plate = 6.0 + 0.18, x0 = plate - 1.5;
    double th = 45 * M_PI / 180, v = sqrt (3.0 * 9.81 / (2 * sin (th) * cos (th)));
    s_ball (w, x0, 0, 0, v * cos (th), 0, v * sin (th));
    double maxx = 0;
    for (int k = 0; k < 2000; k++) {
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        maxx = b.x > maxx ? b.x : maxx;
    }
    cr_expect_gt (maxx - x0, 2.5, "chip reached %g m", maxx - x0);

    s_ball (w, x0, 0, 0, 3, 0, 0);
    maxx = 0;
    double last_vx = 0;
    for (int k = 0; k < 2000; k++) {
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        maxx = b.x > maxx ? b.x : maxx;
        last_vx = b.vx;
    }
    cr_expect_leq (maxx, plate - 0.0215 + 1e-9);
    cr_expect_lt (last_vx, 0, "flat ball bounced back");
    phys_world_destroy (&w);
}

static double
s_face_to_face (bool chord, bool *event)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.contact.robot_hull_chord_contacts = chord;
    phys_world_t *w = s_world (&cfg);
    s_add_robot (w, SIM_TEAM_BLUE, 0, -0.5, 0, 0);
    s_add_robot (w, SIM_TEAM_YELLOW, 0, 0.5, 0, M_PI);
    phys_command_t c = { .move = PHYS_MOVE_LOCAL, .v = { 0.5, 0, 0 } };
    *event = false;
    for (int k = 0; k < 3000; k++) {
        if (k % 50 == 0) {
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
            phys_world_command (w, SIM_TEAM_YELLOW, 0, &c);
        }
        phys_world_step (w);
        const phys_event_t *ev;
        int n = phys_world_events (w, &ev);
        for (int i = 0; i < n; i++)
            if (ev[i].kind == PHYS_EVENT_ROBOT_COLLISION && ev[i].team == SIM_TEAM_BLUE
                && ev[i].other_team == SIM_TEAM_YELLOW)
                *event = true;
    }
    sim_robot_state_t a, b;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &a);
    phys_world_robot (w, SIM_TEAM_YELLOW, 0, &b);
    phys_world_destroy (&w);
    return hypot (a.x - b.x, a.y - b.y);
}

Test (phys_collide, robots_face_to_face)
{
    bool ev;
    double d = s_face_to_face (true, &ev);
    cr_log_info ("face to face: %g m", d);
    cr_expect_float_eq (d, 0.15, 0.002, "chord on: %g", d);
    cr_expect (ev, "RobotCollision fired");
    d = s_face_to_face (false, &ev);
    cr_expect_float_eq (d, 0.18, 0.002, "chord off: %g", d);
    cr_expect (ev);
}

/* Drop a ball from 0.25 m onto a robot: first bounce keeps 1 - 0.54 of
   the vertical speed, it settles on top; pushed off it falls and ends
   outside the hull without gaining energy. */
Test (phys_collide, ball_on_robot_top)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    s_add_robot (w, SIM_TEAM_BLUE, 0, 0, 0, 0);
    s_ball (w, -0.02, 0.01, 0.25 + 0.0215, 0, 0, 0);
    double prev_vz = 0, v_in = 0, v_out = 0;
    for (int k = 0; k < 3000; k++) {
        phys_world_step (w);
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        if (v_in == 0 && prev_vz < 0 && b.vz >= 0) {
            v_in = prev_vz - 9.81 * 0.001;
            v_out = b.vz;
        }
        prev_vz = b.vz;
    }
    double expect_in = -sqrt (2 * 9.81 * (0.25 - 0.15));
    cr_log_info ("top landing: in %g out %g", v_in, v_out);
    cr_expect_float_eq (v_in, expect_in, 0.03, "impact %g", v_in);
    cr_expect_float_eq (v_out, -expect_in * (1 - 0.54), 0.03, "bounce %g", v_out);
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    cr_expect_float_eq (b.z, 0.15 + 0.0215, 1e-9, "settled on top");
    cr_expect_lt (hypot (b.vx, b.vy) + fabs (b.vz), 1e-6);

    /* roll it off the back */
    phys_ball_teleport_t t = { .has_vx = true, .has_vy = true, .vx = -0.5, .roll = true };
    phys_world_teleport_ball (w, &t);
    double e0 = 0.5 * 0.25 + 9.81 * (0.15 + 0.0215);
    for (int k = 0; k < 3000; k++) {
        phys_world_step (w);
        phys_world_ball (w, &b);
        double e = 0.5 * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz) + 9.81 * b.z;
        cr_assert_leq (e, e0 + 1e-9, "energy grew at %d", k);
    }
    cr_expect_float_eq (b.z, 0.0215, 1e-9);
    cr_expect_gt (hypot (b.x, b.y), 0.09 + 0.0215 - 1e-6, "ends outside the hull");
    phys_world_destroy (&w);
}

static double
s_energy (phys_world_t *w)
{
    sim_ball_state_t b;
    phys_world_ball (w, &b);
    double e = 0.5 * 0.046 * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz);
    sim_snapshot_t s;
    phys_world_snapshot (w, &s);
    for (int i = 0; i < s.robot_count; i++) {
        const sim_robot_state_t *r = &s.robots[i];
        e += 0.5 * 2.5 * (r->vx * r->vx + r->vy * r->vy) + 0.5 * 0.010125 * r->omega * r->omega;
    }
    return e;
}

/* Balls fired at a free robot from many directions: the total kinetic
   energy never grows across a substep. */
Test (phys_collide, contact_energy_never_grows)
{
    for (int a = 0; a < 24; a++) {
        sim_config_t cfg;
        sim_config_defaults (&cfg);
        cfg.team[0].drive.coast_decel = 0;
        cfg.team[0].drive.coast_angular_decel = 0;
        cfg.team[0].drive.mu_lateral = 0;
        cfg.team[0].drive.velocity_gain = 0;
        phys_world_t *w = s_world (&cfg);
        s_add_robot (w, SIM_TEAM_BLUE, 0, 0, 0, 0.3);
        double ang = a * 2 * M_PI / 24, off = 0.03 * ((a % 5) - 2);
        double dx = cos (ang), dy = sin (ang);
        s_ball (w, -dx * 0.5 - dy * off, -dy * 0.5 + dx * off, 0, dx * 5, dy * 5, 0);
        double e = s_energy (w);
        for (int k = 0; k < 300; k++) {
            phys_world_step (w);
            double e2 = s_energy (w);
            cr_assert_leq (e2, e + 1e-12, "angle %d step %d: %g -> %g", a, k, e, e2);
            e = e2;
        }
        sim_robot_state_t r;
        phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
        cr_expect_gt (hypot (r.vx, r.vy), 1e-3, "angle %d: the ball hit the robot", a);
        phys_world_destroy (&w);
    }
}

/* Penetration of the ball into a robot hull, m (<= 0 when apart). */
static double
s_penetration (const sim_ball_state_t *b, const sim_robot_state_t *r)
{
    double dx = b->x - r->x, dy = b->y - r->y;
    double c = cos (r->orientation), s = sin (r->orientation);
    double qx = c * dx + s * dy, qy = -s * dx + c * dy;
    double R = 0.09, c2d = 0.075, w = sqrt (R * R - c2d * c2d), d = hypot (qx, qy), dist;
    if (qx > 0 && qx > d * c2d / R)
        dist = qx >= c2d && fabs (qy) > w ? hypot (qx - c2d, fabs (qy) - w) : qx - c2d;
    else
        dist = d - R;
    return 0.0215 - dist;
}

/* Robots driving into a loose ball (pushing it ahead, hitting it with
   the round hull and the face) and balls shot at robots: the ball never
   sits inside a hull deeper than the 2 mm depenetration step. */
Test (phys_collide, penetration_bounded)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    double worst = -1;
    int touching = 0;
    for (int run = 0; run < 12; run++) {
        double th = run * M_PI / 6;
        s_add_robot (w, SIM_TEAM_BLUE, 0, -0.6, 0, th);
        s_add_robot (w, SIM_TEAM_YELLOW, 1, 0.6, 0.03 * (run % 3), M_PI);
        s_ball (w, 0, 0.02 * (run % 4), 0, run % 2 ? -4.0 : 0, 0, 0);
        for (int k = 0; k < 1500; k++) {
            if (k % 50 == 0) {
                phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { 2.0, 0, run % 3 - 1.0 } };
                phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
                c.v[0] = -1.0;
                phys_world_command (w, SIM_TEAM_YELLOW, 1, &c);
            }
            phys_world_step (w);
            sim_snapshot_t s;
            phys_world_snapshot (w, &s);
            for (int i = 0; i < s.robot_count; i++) {
                double p = s_penetration (&s.ball, &s.robots[i]);
                worst = p > worst ? p : worst;
                touching += p > -0.001;
            }
        }
    }
    cr_log_info ("worst penetration %g m, %d robot-steps within 1 mm", worst, touching);
    cr_expect_gt (touching, 100, "the scenes make contact");
    cr_expect_leq (worst, 0.002 + 1e-9, "worst penetration %g", worst);
    phys_world_destroy (&w);
}

Test (phys_collide, ball_stays_in_room_and_events)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    /* into the -x goal: BallLeftField then Goal for blue (conceding) */
    s_ball (w, -5.5, 0.1, 0, -3, 0, 0);
    bool left = false, goal = false;
    int goals = 0;
    for (int k = 0; k < 2000; k++) {
        phys_world_step (w);
        const phys_event_t *ev;
        int n = phys_world_events (w, &ev);
        for (int i = 0; i < n; i++) {
            if (ev[i].kind == PHYS_EVENT_BALL_LEFT_FIELD)
                left = true;
            if (ev[i].kind == PHYS_EVENT_GOAL) {
                goal = ev[i].team == SIM_TEAM_BLUE;
                goals++;
            }
        }
        sim_ball_state_t b;
        phys_world_ball (w, &b);
        cr_assert_geq (b.x, -6.18 + 0.0215 - 1e-9, "through the back plate");
    }
    cr_expect (left && goal);
    cr_expect_eq (goals, 1, "edge-triggered");
    /* a high ball over the boards is kept in by the room box */
    s_ball (w, 0, 4.0, 0.5, 0, 6, 6);
    cr_expect_leq (s_max_y (w, 3000), 5.8 - 0.0215 + 1e-9);
    phys_world_destroy (&w);
}

/* Replacing the geometry rebuilds the walls and moves nothing. */
Test (phys_collide, runtime_field_change)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.sim.initial_robots_per_team = 3;
    phys_world_t *w = sim_fc_world_new (&cfg);
    uint64_t h = phys_world_hash (w);
    sim_field_t f = *phys_world_field (w);
    f.length = 9.0;
    f.width = 6.0;
    cr_expect_eq (phys_world_set_field (w, &f), PHYS_OK);
    cr_expect_eq (phys_world_hash (w), h);
    cr_expect_float_eq (phys_world_field (w)->length, 9.0, 1e-12);
    f.width = NAN;
    cr_expect_eq (phys_world_set_field (w, &f), PHYS_ERR_UNSUPPORTED);
    cr_expect_float_eq (phys_world_field (w)->width, 6.0, 1e-12);
    /* the new +y board at 3.3 m stops the ball */
    phys_ball_teleport_t b = {
        .has_x = true, .has_y = true, .x = 0, .y = 2.5, .has_vx = true, .has_vy = true, .vy = 3
    };
    phys_world_teleport_ball (w, &b);
    cr_expect_leq (s_max_y (w, 1000), 3.3 - 0.0215 + 1e-9);
    phys_world_destroy (&w);
}

/* teleport_safely pushes an overlapping robot out and stops those near. */
Test (phys_collide, teleport_safely_evicts)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    s_add_robot (w, SIM_TEAM_BLUE, 0, 1.0, 0.0, 0);
    s_add_robot (w, SIM_TEAM_BLUE, 1, 2.0, 0.0, 0);
    phys_robot_teleport_t v = {
        .team = SIM_TEAM_BLUE, .id = 1, .has_vx = true, .has_vy = true, .vx = 1, .vy = 0
    };
    phys_world_teleport_robot (w, &v);
    phys_ball_teleport_t b = { .has_x = true, .has_y = true, .x = 0.95, .y = 0, .teleport_safely = true };
    cr_assert_eq (phys_world_teleport_ball (w, &b), PHYS_OK);
    sim_robot_state_t r;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &r);
    cr_expect_float_eq (hypot (r.x - 0.95, r.y), 0.09 + 0.0215, 1e-9);
    phys_world_robot (w, SIM_TEAM_BLUE, 1, &r);
    cr_expect_eq (r.vx, 0);
    phys_world_destroy (&w);
}

/* Sixteen robots teleported onto nearly one spot: the contact solver
   pushes them apart over a few substeps without blowing up. */
Test (phys_collide, pile_up_resolves)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    phys_world_t *w = s_world (&cfg);
    for (unsigned i = 0; i < 16; i++)
        s_add_robot (w, (sim_team_t) (i % 2), i, 0.001 * i, 0.0005 * i, 0.4 * i);
    for (int k = 0; k < 500; k++)
        phys_world_step (w);
    sim_snapshot_t s;
    phys_world_snapshot (w, &s);
    cr_assert_eq (s.robot_count, 16);
    double closest = INFINITY;
    for (int a = 0; a < 16; a++) {
        cr_assert (isfinite (s.robots[a].x) && isfinite (s.robots[a].vx));
        for (int b = a + 1; b < 16; b++) {
            double d = hypot (s.robots[a].x - s.robots[b].x, s.robots[a].y - s.robots[b].y);
            closest = d < closest ? d : closest;
        }
    }
    /* cut discs never get closer than two chords (2 c2d) */
    cr_expect_geq (closest, 2 * 0.075 - 0.002, "closest pair %g", closest);
    phys_world_destroy (&w);
}

/* RobotCollision only above 2 cm/s of approach. */
Test (phys_collide, slow_touch_raises_no_event)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    cfg.team[0].drive.model = SIM_DRIVE_IDEAL;
    cfg.team[1].drive.model = SIM_DRIVE_IDEAL;
    phys_world_t *w = s_world (&cfg);
    s_add_robot (w, SIM_TEAM_BLUE, 0, -0.1, 0, M_PI);
    s_add_robot (w, SIM_TEAM_YELLOW, 0, 0.1, 0, 0);
    phys_command_t c = { .move = PHYS_MOVE_GLOBAL, .v = { 0.015, 0, 0 } };
    int events = 0;
    for (int k = 0; k < 2500; k++) {
        if (k % 50 == 0)
            phys_world_command (w, SIM_TEAM_BLUE, 0, &c);
        phys_world_step (w);
        const phys_event_t *ev;
        int n = phys_world_events (w, &ev);
        for (int i = 0; i < n; i++)
            events += ev[i].kind == PHYS_EVENT_ROBOT_COLLISION;
    }
    sim_robot_state_t a, b;
    phys_world_robot (w, SIM_TEAM_BLUE, 0, &a);
    phys_world_robot (w, SIM_TEAM_YELLOW, 0, &b);
    cr_expect_lt (b.x - a.x, 0.18 + 1e-3, "they touched (backs, full discs)");
    cr_expect_eq (events, 0);
    phys_world_destroy (&w);
}
