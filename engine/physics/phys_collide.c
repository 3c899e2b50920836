/*  phys_collide.c - ball contacts (physics.md §7): the ball sweep against
    robot hulls (disc with a flat front chord, height-gated, landing on
    tops), walls and the room box; the contact response kernel;
    depenetration; the supporting floor. Robot-robot and robot-wall
    contacts are in phys_collide_robots.c.
*/
#include <math.h>
#include <string.h>

#include "phys_internal.h"
#include "common/base/sim_math.h"

enum { S_ROBOT = 0, S_WALL, S_ROOM };
enum { S_HULL = 0, S_FACE, S_RIM, S_TOP };

typedef struct {
    double t;
    int kind, index, feature;
    double nx, ny, nz; /* world normal, surface -> ball */
    double rho;        /* horizontal contact radius */
} s_contact_t;

/* Signed distance from the cut-disc footprint of r to local point q, with
   the outward normal and whether the nearest feature is the flat face. */
static double
s_footprint (const phys_robot_t *r, double qx, double qy, double *nx, double *ny, bool *face)
{
    double R = r->specs.radius, c2d = r->specs.center_to_dribbler, w = r->half_w;
    double d = sqrt (qx * qx + qy * qy);
    if (qx > 0 && qx > d * r->cos_m) {
        if (qx >= c2d) {
            if (fabs (qy) <= w) {
                *nx = 1;
                *ny = 0;
                *face = true;
                return qx - c2d;
            }
            double cy = qy > 0 ? w : -w;
            double ex = qx - c2d, ey = qy - cy;
            double e = sqrt (ex * ex + ey * ey);
            *nx = e > 0 ? ex / e : 1;
            *ny = e > 0 ? ey / e : 0;
            *face = false;
            return e;
        }
        *nx = 1;
        *ny = 0;
        *face = true;
        return qx - c2d;
    }
    *face = false;
    if (d > 0) {
        *nx = qx / d;
        *ny = qy / d;
    } else {
        *nx = 1;
        *ny = 0;
    }
    return d - R;
}

/* Entry time into the circle of radius rad around the origin for a point
   q moving with d, within [0, tmax]; -1 if none. */
static double
s_circle_entry (double qx, double qy, double dx, double dy, double rad, double tmax)
{
    double a = dx * dx + dy * dy;
    double b = qx * dx + qy * dy;
    double c = qx * qx + qy * qy - rad * rad;
    if (!(a > 0) || b >= 0 || c <= 0)
        return -1;
    double disc = b * b - a * c;
    if (disc < 0)
        return -1;
    double t = (-b - sqrt (disc)) / a;
    if (t < 0)
        t = 0;
    return t <= tmax ? t : -1;
}

/* Horizontal sweep of a disc of radius rho (local q, d) against the hull:
   earliest contact time within tmax, local normal, face flag; -1 if none. */
static double
s_hull_sweep (const phys_robot_t *r, double qx, double qy, double dx, double dy, double rho, double tmax,
              double *nx, double *ny, bool *face)
{
    double R = r->specs.radius, c2d = r->specs.center_to_dribbler, w = r->half_w;
    double dist = s_footprint (r, qx, qy, nx, ny, face);
    if (dist <= rho + 1e-9)
        return dx * *nx + dy * *ny < 0 ? 0 : -1;
    double best = -1;
    double t = s_circle_entry (qx, qy, dx, dy, R + rho, tmax);
    if (t >= 0) {
        double hx = qx + dx * t, hy = qy + dy * t;
        double h = sqrt (hx * hx + hy * hy);
        if (!(hx > 0 && hx > h * r->cos_m)) {
            best = t;
            *nx = hx / h;
            *ny = hy / h;
            *face = false;
        }
    }
    if (qx >= c2d + rho && dx < 0) {
        t = (c2d + rho - qx) / dx;
        double hy = qy + dy * t;
        if (t <= tmax && fabs (hy) <= w && (best < 0 || t < best)) {
            best = t;
            *nx = 1;
            *ny = 0;
            *face = true;
        }
    }
    for (int side = -1; side <= 1; side += 2) {
        double cy = side * w;
        t = s_circle_entry (qx - c2d, qy - cy, dx, dy, rho, tmax);
        if (t < 0 || (best >= 0 && !(t < best)))
            continue;
        double hx = qx + dx * t, hy = qy + dy * t;
        double h = sqrt (hx * hx + hy * hy);
        if (hx >= c2d && fabs (hy) >= w && hx > 0 && hx > h * r->cos_m) {
            best = t;
            *nx = (hx - c2d) / rho;
            *ny = (hy - cy) / rho;
            *face = false;
        }
    }
    return best;
}

static bool
s_inside_footprint (const phys_robot_t *r, double qx, double qy)
{
    double R = r->specs.radius;
    return qx * qx + qy * qy <= R * R && qx <= r->specs.center_to_dribbler;
}

double
phys_collide_support (const phys_world_t *self, const phys_ball_state_t *b)
{
    double best = 0;
    for (int k = 0; k < self->robot_count; k++) {
        const phys_robot_t *r = &self->robots[k];
        double h = r->specs.height;
        if (!(b->z >= h) || h <= best)
            continue;
        double dx = b->x - r->x, dy = b->y - r->y;
        double qx = r->ct * dx + r->st * dy, qy = -r->st * dx + r->ct * dy;
        if (s_inside_footprint (r, qx, qy))
            best = h;
    }
    return best;
}

/* Broad phase of the ball against robot r within tmax: false when the
   ball is out of reach of r's bounding circle (r->specs.radius + the
   ball's radius + their relative travel). The reach is never below
   radius + ball radius, so a ball out of it is clear of r for the
   depenetration too. */
static inline bool
s_in_reach (const phys_robot_t *r, double bx, double by, double bvx, double bvy, double rb, double tmax)
{
    double px = bx - r->x, py = by - r->y;
    double rvx = bvx - r->vx, rvy = bvy - r->vy;
    double reach = r->specs.radius + rb + sqrt (rvx * rvx + rvy * rvy) * tmax + 1e-6;
    return !(px * px + py * py > reach * reach);
}

/* Earliest contact of the ball with robot k within tmax; fills *c. */
static void
s_sweep_robot (const phys_world_t *self, int k, double tmax, double z_deep, s_contact_t *c)
{
    const phys_robot_t *r = &self->robots[k];
    const phys_ball_state_t *b = &self->ball;
    double rb = self->ball_cfg.radius, h = r->specs.height;
    if (!s_in_reach (r, b->x, b->y, b->vx, b->vy, rb, tmax))
        return;
    double px = b->x - r->x, py = b->y - r->y;
    double rvx = b->vx - r->vx, rvy = b->vy - r->vy;
    double qx = r->ct * px + r->st * py, qy = -r->st * px + r->ct * py;
    double dx = r->ct * rvx + r->st * rvy, dy = -r->st * rvx + r->ct * rvy;
    double bottom = b->z - rb;
    double t, nx, ny, nz = 0, rho = rb;
    bool face;
    int feature;
    if (bottom >= h - 1e-9) {
        double dz = bottom - h > 0 ? bottom - h : 0;
        if (dz == 0 && b->vz >= 0)
            return;
        t = (b->vz + sqrt (b->vz * b->vz + 2 * PHYS_GRAVITY * dz)) / PHYS_GRAVITY;
        if (t > tmax || !s_inside_footprint (r, qx + dx * t, qy + dy * t))
            return;
        if (!(t < c->t))
            return;
        *c = (s_contact_t) {
            .t = t, .kind = S_ROBOT, .index = k, .feature = S_TOP, .nx = 0, .ny = 0, .nz = 1, .rho = 0
        };
        return;
    }
    if (b->z >= h) {
        if (s_inside_footprint (r, qx, qy))
            return;
        double zc = (z_deep > h ? z_deep : h) - h;
        if (zc > rb)
            zc = rb;
        rho = sqrt (rb * rb - zc * zc);
        t = s_hull_sweep (r, qx, qy, dx, dy, rho, tmax, &nx, &ny, &face);
        if (t < 0 || !(t < c->t))
            return;
        feature = S_RIM;
        nx *= rho / rb;
        ny *= rho / rb;
        nz = zc / rb;
    } else {
        t = s_hull_sweep (r, qx, qy, dx, dy, rho, tmax, &nx, &ny, &face);
        if (t < 0 || !(t < c->t))
            return;
        feature = face ? S_FACE : S_HULL;
    }
    *c = (s_contact_t) { .t = t,
                         .kind = S_ROBOT,
                         .index = k,
                         .feature = feature,
                         .nx = r->ct * nx - r->st * ny,
                         .ny = r->st * nx + r->ct * ny,
                         .nz = nz,
                         .rho = rho };
}

static void
s_sweep_wall (const phys_world_t *self, int i, double tmax, s_contact_t *c)
{
    const phys_wall_t *w = &self->geom.walls[i];
    const phys_ball_state_t *b = &self->ball;
    double r = self->ball_cfg.radius;
    if (!(b->z - r < w->height))
        return;
    double px = b->x - w->ax, py = b->y - w->ay;
    double s = px * w->nx + py * w->ny;
    double vn = b->vx * w->nx + b->vy * w->ny;
    double proj = px * w->tx + py * w->ty;
    double vt = b->vx * w->tx + b->vy * w->ty;
    /* Broad phase: far from the segment's stadium. */
    double sp = sqrt (b->vx * b->vx + b->vy * b->vy) * tmax + r + 1e-6;
    if (fabs (s) > sp || proj < -sp || proj > w->len + sp)
        return;
    double best = -1, bnx = 0, bny = 0;
    if (vn < 0 && s - r > -2 * r && s - r <= 1e-9 && proj >= 0 && proj <= w->len) {
        best = 0;
        bnx = w->nx;
        bny = w->ny;
    } else if (vn < 0 && s >= r) {
        double t = (s - r) / -vn;
        double hp = proj + vt * t;
        if (t <= tmax && hp >= 0 && hp <= w->len) {
            best = t;
            bnx = w->nx;
            bny = w->ny;
        }
    }
    for (int e = 0; e < 2; e++) {
        double ex = b->x - (e ? w->bx : w->ax), ey = b->y - (e ? w->by : w->ay);
        double d2 = ex * ex + ey * ey, t;
        double nx, ny;
        if (d2 <= (r + 1e-9) * (r + 1e-9)) {
            double d = sqrt (d2);
            if (!(d > 0))
                continue;
            nx = ex / d;
            ny = ey / d;
            if (nx * w->nx + ny * w->ny < 0 || b->vx * nx + b->vy * ny >= 0)
                continue;
            t = 0;
        } else {
            t = s_circle_entry (ex, ey, b->vx, b->vy, r, tmax);
            if (t < 0)
                continue;
            nx = (ex + b->vx * t) / r;
            ny = (ey + b->vy * t) / r;
            if (nx * w->nx + ny * w->ny < 0)
                continue;
        }
        if (best < 0 || t < best) {
            best = t;
            bnx = nx;
            bny = ny;
        }
    }
    if (best >= 0 && best < c->t)
        *c = (s_contact_t) { .t = best, .kind = S_WALL, .index = i, .nx = bnx, .ny = bny, .rho = r };
}

static void
s_sweep_room (const phys_world_t *self, double tmax, s_contact_t *c)
{
    const phys_ball_state_t *b = &self->ball;
    double r = self->ball_cfg.radius;
    double lim[2] = { self->geom.room_hx - r, self->geom.room_hy - r };
    double p[2] = { b->x, b->y }, v[2] = { b->vx, b->vy };
    for (int axis = 0; axis < 2; axis++) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            if (!(v[axis] * sgn > 0))
                continue;
            double t = (sgn * lim[axis] - p[axis]) / v[axis];
            if (t < 0)
                t = 0;
            if (t <= tmax && t < c->t)
                *c = (s_contact_t) { .t = t,
                                     .kind = S_ROOM,
                                     .index = axis * 2 + (sgn > 0),
                                     .nx = axis == 0 ? -sgn : 0,
                                     .ny = axis == 1 ? -sgn : 0,
                                     .rho = r };
        }
    }
}

/* The walls [*first, *last) a ball within `reach` of its centre may touch:
   the walls' own broad phases (s_sweep_wall, the depenetration) reject
   every wall farther than that, so skipping them changes no result. The
   goal frames and goal-line boards (walls 2 on) all lie at |x| >=
   inner_x, the touch-line boards (walls 0 and 1) at |y| = inner_y; the
   1e-9 m slack covers the rounding of the walls' own distance sums. */
static void
s_walls_in_reach (const phys_world_t *self, double reach, int *first, int *last)
{
    const phys_geom_t *g = &self->geom;
    const phys_ball_state_t *b = &self->ball;
    *first = 0;
    *last = PHYS_WALL_COUNT;
    if (self->exhaustive_contacts || !(fabs (b->x) < g->inner_x - reach - 1e-9))
        return;
    *last = 2;
    if (fabs (b->y) < g->inner_y - reach - 1e-9)
        *last = 0;
}

#define S_MASK_WORDS ((PHYS_MAX_ROBOTS + 63) / 64)

/* The earliest contact within tmax; false if none. `swept`, when not NULL,
   holds the robots (bit k of word k / 64) that s_in_reach admits for
   this very ball and tmax, the holder left out: only they are swept. */
static bool
s_find_contact (const phys_world_t *self, int holder, double tmax, const uint64_t *swept, s_contact_t *c)
{
    const phys_ball_state_t *b = &self->ball;
    c->t = INFINITY;
    double r = self->ball_cfg.radius;
    bool airborne = b->z > r + 1e-9 || b->vz != 0;
    double z_deep = b->z;
    if (airborne) {
        double zl = b->z + b->vz * tmax - 0.5 * PHYS_GRAVITY * tmax * tmax;
        if (zl < z_deep)
            z_deep = zl;
    }
    if (swept) {
        for (int w = 0; w * 64 < self->robot_count; w++)
            for (uint64_t bits = swept[w]; bits; bits &= bits - 1)
                s_sweep_robot (self, w * 64 + __builtin_ctzll (bits), tmax, z_deep, c);
    } else {
        for (int k = 0; k < self->robot_count; k++)
            if (k != holder)
                s_sweep_robot (self, k, tmax, z_deep, c);
    }
    int w0, w1;
    s_walls_in_reach (self, sqrt (b->vx * b->vx + b->vy * b->vy) * tmax + r + 1e-6, &w0, &w1);
    for (int i = w0; i < w1; i++)
        s_sweep_wall (self, i, tmax, c);
    /* a ball at rest reaches no side of the room (s_sweep_room) */
    if (b->vx != 0 || b->vy != 0)
        s_sweep_room (self, tmax, c);
    return c->t <= tmax;
}

/* Contact response kernel (§7.4); returns the impulse on the surface. */
static void
s_respond (phys_world_t *self, const s_contact_t *c, double ux, double uy, double kn, double kt, double J[3])
{
    phys_ball_state_t *b = &self->ball;
    double nx = c->nx, ny = c->ny, nz = c->nz;
    double nu = nx * ux + ny * uy;
    double nv = nx * b->vx + ny * b->vy + nz * b->vz;
    J[0] = J[1] = J[2] = 0;
    if (nu <= nv)
        return;
    double vn = nu + (nu - nv) * (1 - kn);
    double vtx = b->vx - nx * nv, vty = b->vy - ny * nv, vtz = b->vz - nz * nv;
    double utx = ux - nx * nu, uty = uy - ny * nu, utz = -nz * nu;
    double nvx = nx * vn + kt * utx + (1 - kt) * vtx;
    double nvy = ny * vn + kt * uty + (1 - kt) * vty;
    double nvz = nz * vn + kt * utz + (1 - kt) * vtz;
    double m = self->ball_cfg.mass;
    J[0] = m * (b->vx - nvx);
    J[1] = m * (b->vy - nvy);
    J[2] = m * (b->vz - nvz);
    b->vx = nvx;
    b->vy = nvy;
    b->vz = nvz;
    double hn = sqrt (nx * nx + ny * ny);
    if (hn < 1e-12) {
        b->sx = nvx;
        b->sy = nvy;
    } else {
        double mx = nx / hn, my = ny / hn;
        double sm = b->sx * mx + b->sy * my;
        double ret = self->contact.spin_retention;
        b->sx = (b->sx - 2 * sm * mx) * ret;
        b->sy = (b->sy - 2 * sm * my) * ret;
    }
}

static void
s_resolve (phys_world_t *self, const s_contact_t *c)
{
    const sim_contact_cfg_t *cc = &self->contact;
    phys_ball_state_t *b = &self->ball;
    double J[3];
    if (c->kind != S_ROBOT) {
        s_respond (self, c, 0, 0, cc->ball_wall_normal, cc->ball_wall_tangent, J);
        return;
    }
    phys_robot_t *r = &self->robots[c->index];
    double kn, kt;
    /* clang-format off */
    switch (c->feature) {
    case S_FACE: kn = cc->ball_kicker_normal; kt = cc->ball_kicker_tangent; break;
    case S_TOP: kn = cc->ball_robot_top_normal; kt = cc->ball_robot_top_tangent; break;
    default: kn = cc->ball_robot_normal; kt = cc->ball_robot_tangent; break;
    }
    /* clang-format on */
    /* The robot does not move in the ball phase, so its centre "at the hit"
       is its current centre. */
    double cpx = b->x - c->nx * self->ball_cfg.radius;
    double cpy = b->y - c->ny * self->ball_cfg.radius;
    if (c->feature == S_TOP) {
        cpx = b->x;
        cpy = b->y;
    }
    double rx = cpx - r->x, ry = cpy - r->y;
    double ux = r->vx - r->omega * ry, uy = r->vy + r->omega * rx;
    s_respond (self, c, ux, uy, kn, kt, J);
    r->vx += J[0] * r->inv_mass;
    r->vy += J[1] * r->inv_mass;
    r->omega += (rx * J[1] - ry * J[0]) * r->inv_inertia;
}

/* Pushes the ball (its bottom at `bottom`) out of robot r, which
   s_in_reach admitted; returns whether it moved the ball. */
static bool
s_push_out (phys_ball_state_t *b, const phys_robot_t *r, double rb, double bottom)
{
    double h = r->specs.height;
    if (bottom >= h)
        return false;
    double px = b->x - r->x, py = b->y - r->y;
    double reach = r->specs.radius + rb;
    if (px * px + py * py > reach * reach)
        return false;
    double qx = r->ct * px + r->st * py, qy = -r->st * px + r->ct * py;
    double nx, ny;
    bool face;
    double dist = s_footprint (r, qx, qy, &nx, &ny, &face);
    double rho = rb;
    if (b->z >= h) {
        if (dist <= 0)
            return false;
        double dz = b->z - h;
        rho = sqrt (rb * rb - dz * dz);
    }
    if (!(dist < rho - 1e-9))
        return false;
    double push = rho - dist;
    if (push > 0.002)
        push = 0.002;
    b->x += (r->ct * nx - r->st * ny) * push;
    b->y += (r->st * nx + r->ct * ny) * push;
    return true;
}

#ifdef SIM_MATH_AVX2
/* The depenetration's robot pass four robots at a time, from robot 0
   while nothing pushes the ball: s_in_reach's operations in its order on
   each lane (the same bits), the heights folded into *hmin. Returns the
   first robot it has not visited: the end of the last whole four, or the
   robot after one that pushed the ball (*pushed set), whose reach the
   caller takes from the ball's new place. */
SIM_MATH_AVX2_TARGET static int
s_depenetrate4 (phys_world_t *self, int holder, uint64_t *swept, bool *pushed, double *hmin)
{
    phys_ball_state_t *b = &self->ball;
    double rb = self->ball_cfg.radius, bottom = b->z - rb;
    const __m256d bx = _mm256_set1_pd (b->x), by = _mm256_set1_pd (b->y);
    const __m256d bvx = _mm256_set1_pd (b->vx), bvy = _mm256_set1_pd (b->vy);
    const __m256d rb4 = _mm256_set1_pd (rb), dt = _mm256_set1_pd (self->dt), eps = _mm256_set1_pd (1e-6);
    __m256d hm = _mm256_set1_pd (INFINITY);
    int n = self->robot_count, k = 0;
    for (; k + 4 <= n; k += 4) {
        const phys_robot_t *r = &self->robots[k];
        /* (x, y) and (vx, vy) lie side by side */
        __m256d rx, ry, rvx0, rvy0;
        sim_load_pairs4 (&r[0].x, &r[1].x, &r[2].x, &r[3].x, &rx, &ry);
        sim_load_pairs4 (&r[0].vx, &r[1].vx, &r[2].vx, &r[3].vx, &rvx0, &rvy0);
        __m256d px = _mm256_sub_pd (bx, rx);
        __m256d py = _mm256_sub_pd (by, ry);
        __m256d rvx = _mm256_sub_pd (bvx, rvx0);
        __m256d rvy = _mm256_sub_pd (bvy, rvy0);
        __m256d R =
            _mm256_set_pd (r[3].specs.radius, r[2].specs.radius, r[1].specs.radius, r[0].specs.radius);
        __m256d h =
            _mm256_set_pd (r[3].specs.height, r[2].specs.height, r[1].specs.height, r[0].specs.height);
        hm = _mm256_min_pd (h, hm); /* a NaN height keeps hm */
        __m256d rv = _mm256_sqrt_pd (_mm256_add_pd (_mm256_mul_pd (rvx, rvx), _mm256_mul_pd (rvy, rvy)));
        __m256d reach = _mm256_add_pd (_mm256_add_pd (_mm256_add_pd (R, rb4), _mm256_mul_pd (rv, dt)), eps);
        __m256d d2 = _mm256_add_pd (_mm256_mul_pd (px, px), _mm256_mul_pd (py, py));
        unsigned bits =
            (unsigned) _mm256_movemask_pd (_mm256_cmp_pd (d2, _mm256_mul_pd (reach, reach), _CMP_NGT_UQ));
        if ((unsigned) (holder - k) < 4u) /* the holder is in these four */
            bits &= ~(1u << (holder - k));
        for (; bits; bits &= bits - 1) {
            int j = k + __builtin_ctz (bits);
            swept[j / 64] |= 1ull << (j % 64);
            if (s_push_out (b, &self->robots[j], rb, bottom)) {
                *pushed = true;
                k = j + 1;
                goto out;
            }
        }
    }
out:;
    double m[4];
    _mm256_storeu_pd (m, hm);
    for (int i = 0; i < 4; i++)
        *hmin = m[i] < *hmin ? m[i] : *hmin;
    return k;
}
#endif

/* Pushes the ball out of robots, walls and the room. Fills swept with
   the robots s_in_reach admits for the ball's first sweep (tmax = dt),
   and returns whether that still holds: false when a robot pushed the
   ball (the reach of the robots after it was taken from elsewhere) or
   the ball ends anywhere but where it started. *hmin gets the lowest
   robot height (NaN heights left out): a ball below it rests on no
   robot (phys_collide_support). */
static bool
s_depenetrate (phys_world_t *self, int holder, uint64_t *swept, double *hmin)
{
    phys_ball_state_t *b = &self->ball;
    double rb = self->ball_cfg.radius, bottom = b->z - rb;
    double x0 = b->x, y0 = b->y;
    bool pushed = false;
    memset (swept, 0, S_MASK_WORDS * sizeof *swept);
    *hmin = INFINITY;
    int k = 0;
#ifdef SIM_MATH_AVX2
    if (!self->exhaustive_contacts && sim_math_have_avx2 ())
        k = s_depenetrate4 (self, holder, swept, &pushed, hmin);
#endif
    /* the ball in locals: the loop stores only on a push (rare) */
    double bx = b->x, by = b->y, bvx = b->vx, bvy = b->vy, dt = self->dt;
    for (; k < self->robot_count; k++) {
        const phys_robot_t *r = &self->robots[k];
        double h = r->specs.height;
        *hmin = h < *hmin ? h : *hmin;
        if (k == holder)
            continue;
        if (!s_in_reach (r, bx, by, bvx, bvy, rb, dt))
            continue;
        swept[k / 64] |= 1ull << (k % 64);
        if (s_push_out (b, r, rb, bottom)) {
            bx = b->x;
            by = b->y;
            pushed = true; /* later robots' reach was taken from here */
        }
    }
    /* the robots above moved the ball: reach from where it is now */
    int w0, w1;
    s_walls_in_reach (self, rb, &w0, &w1);
    for (int i = w0; i < w1; i++) {
        const phys_wall_t *w = &self->geom.walls[i];
        if (!(bottom < w->height))
            continue;
        double px = b->x - w->ax, py = b->y - w->ay;
        double s = px * w->nx + py * w->ny;
        double proj = px * w->tx + py * w->ty;
        if (s > -rb && s < rb && proj >= 0 && proj <= w->len) {
            b->x += w->nx * (rb - s);
            b->y += w->ny * (rb - s);
            continue;
        }
        for (int e = 0; e < 2; e++) {
            double ex = b->x - (e ? w->bx : w->ax), ey = b->y - (e ? w->by : w->ay);
            double d = sqrt (ex * ex + ey * ey);
            if (d < rb && d > 0 && ex * w->nx + ey * w->ny >= 0) {
                b->x += ex / d * (rb - d);
                b->y += ey / d * (rb - d);
            }
        }
    }
    double lx = self->geom.room_hx - rb, ly = self->geom.room_hy - rb;
    b->x = b->x > lx ? lx : b->x < -lx ? -lx : b->x;
    b->y = b->y > ly ? ly : b->y < -ly ? -ly : b->y;
    return !pushed && b->x == x0 && b->y == y0;
}

/* The ball's flight for t; hmin is the lowest robot height (a ball below
   it has the floor under it: phys_collide_support would return 0). */
static void
s_advance (phys_world_t *self, double t, double hmin)
{
    double floor = self->ball.z >= hmin ? phys_collide_support (self, &self->ball) : 0;
    phys_ball_advance (&self->ball_cfg, &self->ball, floor, t);
}

void
phys_collide_ball (phys_world_t *self, int holder)
{
    uint64_t swept[S_MASK_WORDS];
    double hmin;
    bool still = s_depenetrate (self, holder, swept, &hmin);
    double remaining = self->dt;
    for (int it = 0; it < 4; it++) {
        s_contact_t c;
        if (!s_find_contact (self, holder, remaining, it == 0 && still ? swept : NULL, &c))
            break;
        if (c.t > 0) {
            s_advance (self, c.t, hmin);
            remaining -= c.t;
        }
        s_resolve (self, &c);
    }
    if (remaining > 0)
        s_advance (self, remaining, hmin);
}
