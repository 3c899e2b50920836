/*  test_field.c - the 2026 field as a user meets it (issue 25): started
    with the defaults, ssl-sim sends Division A's margins of the SSL rules
    of 2026-02-25 (0.3 m along the touch lines, 0.6 m behind the goal
    lines) and the goal substitution area in its geometry, and a robot
    driven over its goal line reaches that area and stops at the wall
    where the margin ends. Division B keeps 0.3 m all round.

    Every test runs with the defaults a user gets (the fixture sets only
    free ports and loopback binds, sim_test.h); `--division b` is the flag
    a Division B user gives.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_msg.h"
#include "ssl_vision_wrapper.pb-c.h"

/* The first geometry on the vision socket within ms, or NULL. Free with
   ssl__wrapper_packet__free_unpacked. */
static SSLWrapperPacket *
s_geometry (int fd, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        uint8_t buf[65536];
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, 100);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        if (w && w->geometry && w->geometry->field)
            return w;
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return NULL;
}

static void
s_expect_margins (const char *const *args, int touch_mm, int goal_mm, int substitution_mm)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION), 0);
    SSLWrapperPacket *w = s_geometry (f.vision, 4000);
    cr_assert_not_null (w, "no geometry within 4 s");
    const SSLGeometryFieldSize *fs = w->geometry->field;
    cr_expect_eq (fs->boundary_width, touch_mm, "boundary_width %d", fs->boundary_width);
    cr_expect (fs->has_boundary_width_goal_line && fs->boundary_width_goal_line == goal_mm,
               "boundary_width_goal_line %d", fs->boundary_width_goal_line);
    cr_expect (fs->has_goal_substitution_area_width && fs->goal_substitution_area_width == substitution_mm,
               "goal_substitution_area_width %d", fs->goal_substitution_area_width);
    ssl__wrapper_packet__free_unpacked (w, NULL);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

Test (field, geometry_has_the_2026_division_a_margins, .timeout = 60)
{
    s_expect_margins (NULL, 300, 600, 300);
}

Test (field, division_b_keeps_0_3_m_all_round, .timeout = 60)
{
    static const char *const args[] = { "--division", "b", NULL };
    s_expect_margins (args, 300, 300, 300);
}

/* A robot put just behind its goal line beside the goal and driven on
   towards its own end: it reaches the goal substitution area (at least
   0.3 m behind the goal line, rules "Robot Substitution") and stops with
   its 0.09 m radius against the wall 0.6 m behind the line. Vision is
   the user's (realistic: sub-millimetre noise, but a calibration error of
   a few cm), so positions are compared within sim_test_vision_tolerance,
   as sim_test_sees_blue0 does; the old 0.3 m margin would hold the robot
   0.3 m short of where it must be, far outside that. */
Test (field, a_robot_drives_behind_its_goal_line_to_the_wall, .timeout = 90)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_VISION), 0);
    const double y = 2.5, wall = -6.6, radius = 0.09, tol = sim_test_vision_tolerance ();
    cr_assert_eq (sim_test_teleport_blue0 (f.fd, f.proc.control_port, -6.2, y, 3000), 1,
                  "teleport behind the goal line refused");
    cr_assert (sim_test_sees_blue0 (f.vision, -6.2, y, 3000), "vision does not show it at (-6.2, %g)", y);

    sim_msg_robot_cmd_t cmd;
    RobotControl *rc = sim_msg_robot_cmd (&cmd, 0);
    sim_msg_global (&cmd, -1.0, 0, 0);
    /* drive on for 1.5 s of capture time after it first reads at the wall:
       a robot passing the wall would keep going, one held by it stays */
    double x = 0, ry = 0, t = 0, t_wall = -1, x_min = 0;
    int64_t end = sim_test_now_ms () + 20000;
    while (sim_test_now_ms () < end && !(t_wall >= 0 && t - t_wall > 1.5)) {
        cr_assert_eq (sim_test_send (f.fd, f.proc.blue_port, &rc->base), 0);
        if (!sim_test_blue0 (f.vision, 200, &x, &ry, &t))
            continue;
        if (t_wall < 0 && x < wall + radius + tol)
            t_wall = t;
        if (t_wall >= 0)
            x_min = x < x_min ? x : x_min;
    }
    cr_assert_geq (t_wall, 0, "never reached the wall: last seen at x %.3f", x);
    cr_expect_lt (x, -6.0 - 0.3 - radius, "not in the goal substitution area: x %.3f", x);
    cr_expect (fabs (x - (wall + radius)) < tol, "not held by the wall at %.2f: x %.4f", wall + radius, x);
    cr_expect (x_min > wall + radius - tol, "went through the wall: x %.4f", x_min);
    cr_expect (fabs (ry - y) < tol, "drifted along the wall: y %.3f", ry);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
