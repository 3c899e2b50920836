/*  vis_ball.c - ball occlusion, floor projection and area term. */
#include "vis_ball.h"

#include <math.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Does the segment a -> b pass through the vertical cylinder at (ox, oy)
   with radius rad and height h standing on the floor? The horizontal
   projection gives the parameter range inside the disc; the segment's
   height over that range must overlap [0, h]. */
static bool
s_segment_hits (const double a[3], const double b[3], double ox, double oy, double rad, double h)
{
    double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    double fx = a[0] - ox, fy = a[1] - oy;
    double qa = dx * dx + dy * dy;
    double qc = fx * fx + fy * fy - rad * rad;
    double s0, s1;
    if (qa < 1e-18) {
        if (qc > 0)
            return false;
        s0 = 0;
        s1 = 1;
    } else {
        double qb = 2 * (fx * dx + fy * dy);
        double disc = qb * qb - 4 * qa * qc;
        if (disc < 0)
            return false;
        double sq = sqrt (disc);
        s0 = (-qb - sq) / (2 * qa);
        s1 = (-qb + sq) / (2 * qa);
        if (s0 < 0)
            s0 = 0;
        if (s1 > 1)
            s1 = 1;
        if (s0 > s1)
            return false;
    }
    double z0 = a[2] + s0 * dz, z1 = a[2] + s1 * dz;
    double zmin = z0 < z1 ? z0 : z1, zmax = z0 < z1 ? z1 : z0;
    return zmin <= h && zmax >= 0;
}

/* Keep of the candidates cand[0..nc) those that can block a sight line;
   returns how many (kept in order). Every sample point lies within r of
   the centre, so each sample's line stays within r of the centre's line
   to the camera at the same parameter; a robot that the centre's line
   passes farther than its radius + r (+ a margin far above rounding)
   from, over the part of it below the robot's top + r, blocks no
   sample. The exact test still decides for the others, so the answer is
   the same; the samples are still summed when none is left. */
static int
s_on_sight_line (const sim_snapshot_t *snap, int *cand, int nc, double bx, double by, double bz, double r,
                 const sim_camera_cfg_t *cam)
{
    const double margin = 1e-5;
    double ux = cam->x - bx, uy = cam->y - by, rise = cam->z - bz;
    double run2 = ux * ux + uy * uy;
    if (!(rise > 1e-3) || !(run2 > 1e-12))
        return nc; /* a camera level with or below the ball, or straight above */
    int kept = 0;
    for (int c = 0; c < nc; c++) {
        const sim_robot_state_t *rb = &snap->robots[cand[c]];
        double s_top = (rb->height + r + margin - bz) / rise;
        if (!(s_top >= 0)) {
            /* the line starts above the robot; rounding may not decide */
            if (s_top > -1e-6)
                cand[kept++] = cand[c];
            continue;
        }
        if (s_top > 1)
            s_top = 1;
        /* nearest point of the centre's horizontal run over [0, s_top] */
        double fx = rb->x - bx, fy = rb->y - by;
        double s = (fx * ux + fy * uy) / run2;
        s = s < 0 ? 0 : s > s_top ? s_top : s;
        double gx = fx - s * ux, gy = fy - s * uy;
        double reach = rb->radius + r + margin;
        if (!(gx * gx + gy * gy > reach * reach))
            cand[kept++] = cand[c];
    }
    return kept;
}

double
vis_ball_visibility (const sim_snapshot_t *snap, double bx, double by, double bz, double r,
                     const sim_camera_cfg_t *cam, double *cx, double *cy, double *cz)
{
    *cx = bx;
    *cy = by;
    *cz = bz;
    /* Only robots that the sight lines can reach below their top matter:
       a sight line starting at height >= z_low climbs to the camera, so it
       is below h only over the first s_max of its horizontal run. */
    int cand[SIM_SNAPSHOT_MAX_ROBOTS];
    int nc = 0;
    int n = snap->robot_count < SIM_SNAPSHOT_MAX_ROBOTS ? snap->robot_count : SIM_SNAPSHOT_MAX_ROBOTS;
    double z_low = bz - r;
    double hrun = hypot (cam->x - bx, cam->y - by) + r;
    int k = 0;
#ifdef __SSE2__
    /* two robots at a time, the scalar loop's operations per lane (both
       branches of the reach computed, one kept); a lane the squares cannot
       decide is asked of hypot as below */
    const __m128d zero = _mm_setzero_pd (), czv = _mm_set1_pd (cam->z), zlv = _mm_set1_pd (z_low);
    const __m128d hrv = _mm_set1_pd (hrun), rv = _mm_set1_pd (r), bxv = _mm_set1_pd (bx),
                  byv = _mm_set1_pd (by);
    const __m128d abs = _mm_castsi128_pd (_mm_set1_epi64x (0x7fffffffffffffffll));
    for (; k + 1 < n; k += 2) {
        const sim_robot_state_t *r0 = &snap->robots[k], *r1 = &snap->robots[k + 1];
        __m128d rad = _mm_set_pd (r1->radius, r0->radius), h = _mm_set_pd (r1->height, r0->height);
        __m128d valid = _mm_and_pd (_mm_cmpgt_pd (rad, zero), _mm_cmpgt_pd (h, zero));
        __m128d above = _mm_and_pd (_mm_cmpgt_pd (czv, h), _mm_cmpgt_pd (czv, zlv));
        valid = _mm_andnot_pd (_mm_and_pd (above, _mm_cmpgt_pd (zlv, h)), valid);
        __m128d slope = _mm_mul_pd (_mm_div_pd (_mm_sub_pd (h, zlv), _mm_sub_pd (czv, zlv)), hrv);
        __m128d reach = _mm_or_pd (_mm_and_pd (above, slope), _mm_andnot_pd (above, hrv));
        __m128d dx = _mm_sub_pd (_mm_set_pd (r1->x, r0->x), bxv),
                dy = _mm_sub_pd (_mm_set_pd (r1->y, r0->y), byv);
        __m128d bound = _mm_add_pd (_mm_add_pd (_mm_add_pd (rad, rv), reach), _mm_set1_pd (1e-9));
        __m128d q = _mm_sqrt_pd (_mm_add_pd (_mm_mul_pd (dx, dx), _mm_mul_pd (dy, dy)));
        __m128d slack = _mm_add_pd (
            _mm_set1_pd (1e-6),
            _mm_mul_pd (_mm_set1_pd (1e-12), _mm_add_pd (_mm_and_pd (abs, dx), _mm_and_pd (abs, dy))));
        int in = _mm_movemask_pd (_mm_cmple_pd (_mm_add_pd (q, slack), bound));
        int out = _mm_movemask_pd (_mm_cmpgt_pd (_mm_sub_pd (q, slack), bound));
        int ok = _mm_movemask_pd (valid);
        if (!(ok & ~out))
            continue; /* the usual case: neither robot near */
        double dxl[2], dyl[2], bl[2];
        _mm_storeu_pd (dxl, dx);
        _mm_storeu_pd (dyl, dy);
        _mm_storeu_pd (bl, bound);
        for (int l = 0; l < 2; l++) {
            int bit = 1 << l;
            if (!(ok & bit) || (out & bit))
                continue;
            if ((in & bit) || hypot (dxl[l], dyl[l]) <= bl[l])
                cand[nc++] = k + l;
        }
    }
#endif
    for (; k < n; k++) {
        const sim_robot_state_t *rb = &snap->robots[k];
        if (!(rb->radius > 0) || !(rb->height > 0))
            continue;
        double reach;
        if (cam->z > rb->height && cam->z > z_low) {
            if (z_low > rb->height)
                continue;
            reach = (rb->height - z_low) / (cam->z - z_low) * hrun;
        } else
            reach = hrun;
        /* hypot (dx, dy) <= bound, asked of hypot only where the squares
           are too close to tell */
        double dx = rb->x - bx, dy = rb->y - by, bound = rb->radius + r + reach + 1e-9;
        double q = sqrt (dx * dx + dy * dy), slack = vis_ball_hypot_slack (dx, dy);
        bool near = q + slack <= bound ? true : q - slack > bound ? false : hypot (dx, dy) <= bound;
        if (near)
            cand[nc++] = k;
    }
    if (nc == 0)
        return 1.0;
    nc = s_on_sight_line (snap, cand, nc, bx, by, bz, r, cam);

    /* Rotate the flat disc about z x d by the angle between z and d so it
       faces the camera (Rodrigues with k = (-dy, dx, 0) / |.|). */
    double d[3] = { cam->x - bx, cam->y - by, cam->z - bz };
    double dn = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double cos_t = 1, sin_t = 0, kx = 0, ky = 0;
    if (dn > 0) {
        double hx = d[0] / dn, hy = d[1] / dn;
        sin_t = sqrt (hx * hx + hy * hy);
        cos_t = d[2] / dn;
        if (sin_t > 1e-12) {
            kx = -hy / sin_t;
            ky = hx / sin_t;
        } else
            sin_t = 0;
    }
    double cam_p[3] = { cam->x, cam->y, cam->z };
    double step = r / 7;
    int total = 0, seen = 0;
    double sx = 0, sy = 0;
    for (int i = -7; i <= 7; i++) {
        for (int j = -7; j <= 7; j++) {
            if (i * i + j * j >= 49)
                continue;
            total++;
            double vx = i * step, vy = j * step;
            /* k has no z part and v lies in the plane: k x v = (0, 0,
               kx vy - ky vx), k . v = kx vx + ky vy */
            double kv = kx * vx + ky * vy;
            double a[3] = {
                bx + vx * cos_t + kx * kv * (1 - cos_t),
                by + vy * cos_t + ky * kv * (1 - cos_t),
                bz + (kx * vy - ky * vx) * sin_t,
            };
            bool blocked = false;
            for (int c = 0; c < nc && !blocked; c++) {
                const sim_robot_state_t *rb = &snap->robots[cand[c]];
                blocked = s_segment_hits (a, cam_p, rb->x, rb->y, rb->radius, rb->height);
            }
            if (!blocked) {
                seen++;
                sx += vx;
                sy += vy;
            }
        }
    }
    if (seen == 0)
        return 0;
    *cx = bx + sx / seen;
    *cy = by + sy / seen;
    return (double) seen / total;
}

void
vis_ball_project (double cx, double cy, double cz, double r, const sim_camera_cfg_t *cam, double *px,
                  double *py, double *zp)
{
    *px = cx;
    *py = cy;
    *zp = 0;
    if (!(cam->z > 0))
        return;
    double z = cz - r;
    if (z < 0)
        z = 0;
    if (z > 0.9 * cam->z)
        z = 0.9 * cam->z;
    *zp = z;
    double k = cam->z / (cam->z - z);
    *px = cam->x + (cx - cam->x) * k;
    *py = cam->y + (cy - cam->y) * k;
}

double
vis_ball_area_term (double cam_z, double zp, double focal_length_px)
{
    if (!(focal_length_px > 0))
        return 1;
    double f0 = 1000 * cam_z / focal_length_px - 1;
    double f1 = 1000 * (cam_z - zp) / focal_length_px - 1;
    if (f0 > 1e-9 && f1 > 1e-9)
        return (f0 / f1) * (f0 / f1);
    return 1;
}
