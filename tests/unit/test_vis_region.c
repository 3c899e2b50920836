/*  test_vis_region.c - the region rule (engine/vision/vis_region.h)
    against the 17 ER-Force vectors and the FOV vectors of spec/vision.md §4.
*/
#include <criterion/criterion.h>

#include "engine/vision/vis_region.h"

static sim_rig_t
s_four (void)
{
    sim_rig_t rig = { .count = 4 };
    rig.cams[0] = (sim_camera_cfg_t) { .id = 0, .x = +3, .y = +3, .z = 4 };
    rig.cams[1] = (sim_camera_cfg_t) { .id = 1, .x = -3, .y = +3, .z = 4 };
    rig.cams[2] = (sim_camera_cfg_t) { .id = 2, .x = +3, .y = -3, .z = 4 };
    rig.cams[3] = (sim_camera_cfg_t) { .id = 3, .x = -3, .y = -3, .z = 4 };
    return rig;
}

/* bit i set = camera i sees the point */
static unsigned
s_seen (const sim_rig_t *rig, double x, double y, double overlap, double fov)
{
    unsigned mask = 0;
    for (int i = 0; i < rig->count; i++)
        if (vis_region_visible (rig, i, x, y, overlap, fov))
            mask |= 1u << i;
    return mask;
}

Test (vis_region, erforce_vectors)
{
    sim_rig_t rig = s_four ();
    /* clang-format off */
    struct { double x, y; unsigned seen; } v[] = {
        { 0, 0, 0xF }, { 0, 2, 0x3 }, { 0, 0.4, 0xF },
        { 2, 0, 0x5 }, { 0.51, 2, 0x1 }, { 0, 0.51, 0x3 },
        { 2, 0.51, 0x1 }, { 0.49, 2, 0x3 }, { 0.51, 0.51, 0x1 },
        { 2, 0.49, 0x5 }, { -0.51, 2, 0x2 }, { 0.2, 0.2, 0xF },
        { 2, -0.51, 0x4 }, { 3, 3, 0x1 }, { 5, 0, 0x5 },
        { 2, -0.49, 0x5 }, { -3, -3, 0x8 },
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cr_assert_eq (s_seen (&rig, v[i].x, v[i].y, 0.5, 6.6), v[i].seen,
                      "(%g, %g) seen by 0x%x, expected 0x%x", v[i].x, v[i].y,
                      s_seen (&rig, v[i].x, v[i].y, 0.5, 6.6), v[i].seen);
}

Test (vis_region, fov_disc)
{
    sim_rig_t rig = { .count = 1 };
    rig.cams[0] = (sim_camera_cfg_t) { .id = 0, .x = 0, .y = 0, .z = 4 };
    cr_assert (vis_region_visible (&rig, 0, 1.9, 0, 100, 2.0));
    cr_assert (vis_region_visible (&rig, 0, 0, -1.99, 100, 2.0));
    cr_assert (!vis_region_visible (&rig, 0, 2.01, 0, 100, 2.0));
    cr_assert (!vis_region_visible (&rig, 0, 1.5, 1.5, 100, 2.0));
    cr_assert (vis_region_visible (&rig, 0, 5.9, 4.4, 100, 0), "fov 0 disables the disc");
}

Test (vis_region, default_pair_band)
{
    /* the default Division A pair at +-2.4 m with the realistic 0.8 m overlap */
    sim_rig_t rig = { .count = 2 };
    rig.cams[0] = (sim_camera_cfg_t) { .id = 0, .x = 2.4, .y = 0, .z = 6.4 };
    rig.cams[1] = (sim_camera_cfg_t) { .id = 1, .x = -2.4, .y = 0, .z = 6.4 };
    cr_assert_eq (s_seen (&rig, 0.79, 1, 0.8, 6.6), 0x3u);
    cr_assert_eq (s_seen (&rig, -0.79, -3, 0.8, 6.6), 0x3u);
    cr_assert_eq (s_seen (&rig, 0.81, 0, 0.8, 6.6), 0x1u);
    cr_assert_eq (s_seen (&rig, -0.81, 0, 0.8, 6.6), 0x2u);
    /* 6.86 m from camera 0's nadir: beyond the 6.6 m FOV */
    cr_assert_eq (s_seen (&rig, 6.5, 5.5, 0.8, 6.6), 0x0u);
    cr_assert_eq (s_seen (&rig, 6.5, 5.5, 0.8, 0), 0x1u);
}

/* The model tests a capture's robots together (two lanes at a time): the
   same answers as one point at a time, on the vectors' exact borders, odd
   counts, NaN and with the disc on and off. */
Test (vis_region, many_points_match_one_at_a_time)
{
    sim_rig_t rig = s_four ();
    enum { N = 45 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = -7 + 0.5 * (i % 29);
        y[i] = 0.5 * (i % 7) - 0.5 * (i % 3);
    }
    x[3] = NAN;
    y[8] = NAN;
    x[10] = 0.5; /* on the band's border with overlap 0.25 */
    y[10] = 0;
    for (int fov = 0; fov < 2; fov++)
        for (int cam = 0; cam < rig.count; cam++)
            for (int n = 0; n <= N; n += n < 5 ? 1 : 8) {
                bool seen[N];
                vis_region_visible_n (&rig, cam, x, y, n, 0.25, fov ? 6.6 : 0, seen);
                for (int i = 0; i < n; i++)
                    cr_assert_eq (seen[i], vis_region_visible (&rig, cam, x[i], y[i], 0.25, fov ? 6.6 : 0),
                                  "camera %d point %d (%g, %g) fov %d", cam, i, x[i], y[i], fov);
            }
}
