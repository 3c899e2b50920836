/*  phys_collide_robots.c - robot contacts (physics.md §7.6): robot-robot
    pairs (hull chords by separating axes, or discs) and robots against
    the walls and the room box, solved by sequential impulses with a broad
    phase that changes no result (sweep and prune along x, near pairs kept
    across substeps).
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "phys_internal.h"

static double
s_support (const phys_robot_t *r, double dx, double dy)
{
    double dh = dx * r->ct + dy * r->st;
    if (dh > r->cos_m)
        return r->specs.center_to_dribbler * dh + r->half_w * fabs (dx * r->st - dy * r->ct);
    return r->specs.radius;
}

/* Contact normal (a -> b) and depth of two robots; false if apart. */
static bool
s_pair_test (const phys_world_t *self, const phys_robot_t *a, const phys_robot_t *b, double *nx, double *ny,
             double *depth)
{
    double ex = b->x - a->x, ey = b->y - a->y;
    double dist2 = ex * ex + ey * ey, lim = a->specs.radius + b->specs.radius;
    if (dist2 >= lim * lim)
        return false;
    double dist = sqrt (dist2);
    double cx = 1, cy = 0;
    if (dist > 0) {
        cx = ex / dist;
        cy = ey / dist;
    }
    if (!self->contact.robot_hull_chord_contacts) {
        *nx = cx;
        *ny = cy;
        *depth = lim - dist;
        return true;
    }
    double ax[10][2];
    int n = 0;
    ax[n][0] = cx, ax[n][1] = cy, n++;
    ax[n][0] = a->ct, ax[n][1] = a->st, n++;
    ax[n][0] = -a->ct, ax[n][1] = -a->st, n++;
    ax[n][0] = b->ct, ax[n][1] = b->st, n++;
    ax[n][0] = -b->ct, ax[n][1] = -b->st, n++;
    const phys_robot_t *rr[2] = { a, b };
    for (int which = 0; which < 2; which++) {
        const phys_robot_t *o = rr[which];
        double c2d = o->specs.center_to_dribbler, w = o->half_w;
        for (int side = 1; side >= -1; side -= 2) {
            double kx = o->x + c2d * o->ct - side * w * o->st;
            double ky = o->y + c2d * o->st + side * w * o->ct;
            /* a's corners toward b's centre; a's centre toward b's corners */
            double vx = which == 0 ? b->x - kx : kx - a->x;
            double vy = which == 0 ? b->y - ky : ky - a->y;
            double l = sqrt (vx * vx + vy * vy);
            if (l < 1e-9)
                continue;
            ax[n][0] = vx / l, ax[n][1] = vy / l, n++;
        }
    }
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        double dx = ax[i][0], dy = ax[i][1];
        double pen = s_support (a, dx, dy) + s_support (b, -dx, -dy) - (ex * dx + ey * dy);
        if (pen <= 0)
            return false;
        if (pen < best) {
            best = pen;
            *nx = dx;
            *ny = dy;
        }
    }
    *depth = best;
    return true;
}

/* Robot against every wall and the room box; returns whether it moved. */
static bool
s_robot_walls (phys_world_t *self, phys_robot_t *r, double k, double ew)
{
    const phys_geom_t *g = &self->geom;
    double R = r->specs.radius;
    bool changed = false;
    bool all = self->exhaustive_contacts;
    bool inner = fabs (r->x) < g->inner_x - R && fabs (r->y) < g->inner_y - R;
    /* the room box lies outside the boards (room_hx > inner_x, room_hy >
       inner_y): a robot clear of the boards is clear of the room too */
    if (inner && !all)
        return false;
    /* away from the goal lines only the two touch-line boards (the
       first two walls) can be reached */
    int nw = !all && fabs (r->x) < g->inner_x - R ? 2 : PHYS_WALL_COUNT;
    for (int i = 0; i < nw; i++) {
        const phys_wall_t *w = &g->walls[i];
        if (!all && (r->x < w->minx - R || r->x > w->maxx + R || r->y < w->miny - R || r->y > w->maxy + R))
            continue;
        double px = r->x - w->ax, py = r->y - w->ay;
        double proj = px * w->tx + py * w->ty;
        proj = proj < 0 ? 0 : proj > w->len ? w->len : proj;
        double qx = w->ax + w->tx * proj, qy = w->ay + w->ty * proj;
        double dx = r->x - qx, dy = r->y - qy;
        double d2 = dx * dx + dy * dy;
        if (d2 >= R * R)
            continue;
        double d = sqrt (d2), nx, ny;
        if (d < 1e-9) {
            nx = w->nx;
            ny = w->ny;
        } else {
            nx = dx / d;
            ny = dy / d;
        }
        if (nx * w->nx + ny * w->ny < 0)
            continue;
        r->x = qx + nx * R;
        r->y = qy + ny * R;
        changed = true;
        double vn = r->vx * nx + r->vy * ny;
        if (vn < 0) {
            double tx = -ny, ty = nx;
            double vt = r->vx * tx + r->vy * ty;
            r->vx = nx * (-ew * vn) + tx * (vt * (1 - k));
            r->vy = ny * (-ew * vn) + ty * (vt * (1 - k));
        }
    }
    double lx = g->room_hx - R, ly = g->room_hy - R;
    if (r->x > lx || r->x < -lx) {
        r->x = r->x > lx ? lx : -lx;
        r->vx = 0;
        changed = true;
    }
    if (r->y > ly || r->y < -ly) {
        r->y = r->y > ly ? ly : -ly;
        r->vy = 0;
        changed = true;
    }
    return changed;
}

/* The pairs whose collision event fired this substep: bit j of bits[i]
   (i < j), bits[i] valid only where bit i of rows is set (the substep
   clears no row it does not use). */
typedef struct {
    uint32_t rows;
    uint32_t bits[PHYS_CONTACT_ROBOTS];
} s_fired_t;

/* One pair (i < j): test, event, positional correction, impulse. Returns
   whether they touched. */
static bool
s_robot_pair (phys_world_t *self, int i, int j, double e, double k, s_fired_t *fired)
{
    phys_robot_t *a = &self->robots[i], *b = &self->robots[j];
    double nx = 0, ny = 0, pen = 0;
    if (!s_pair_test (self, a, b, &nx, &ny, &pen))
        return false;
    double vn = (b->vx - a->vx) * nx + (b->vy - a->vy) * ny;
    if (vn < -0.02 && !(fired->rows & (1u << i))) {
        fired->rows |= 1u << i;
        fired->bits[i] = 0;
    }
    if (vn < -0.02 && !(fired->bits[i] & (1u << j))) {
        fired->bits[i] |= 1u << j;
        phys_world_emit (self, PHYS_EVENT_ROBOT_COLLISION, a->team, a->id, b->team, b->id, -vn, 0);
    }
    double wsum = a->inv_mass + b->inv_mass;
    a->x -= nx * pen * a->inv_mass / wsum;
    a->y -= ny * pen * a->inv_mass / wsum;
    b->x += nx * pen * b->inv_mass / wsum;
    b->y += ny * pen * b->inv_mass / wsum;
    if (vn < 0) {
        double tx = -ny, ty = nx;
        double jn = -(1 + e) * vn / wsum;
        double jt = -k * ((b->vx - a->vx) * tx + (b->vy - a->vy) * ty) / wsum;
        double Jx = nx * jn + tx * jt, Jy = ny * jn + ty * jt;
        a->vx -= Jx * a->inv_mass;
        a->vy -= Jy * a->inv_mass;
        b->vx += Jx * b->inv_mass;
        b->vy += Jy * b->inv_mass;
    }
    return true;
}

#define S_NEAR_MARGIN 0.1 /* m, near-pair slack of the broad phase */

/* Near pairs by sweep and prune along x: bit j of near[i] (i < j) is set
   when robots i and j, at positions (px, py), are closer than rad[i] +
   rad[j]. `order` is a cache of the indices sorted by x (any permutation
   is accepted; insertion sort is cheap on the nearly sorted order of the
   last substep). The result depends only on the positions. Returns the
   rows: bit i set when near[i] is not empty. */
static uint32_t
s_near_pairs (int n, const double *px, const double *py, const double *rad, uint8_t *order, uint32_t *near)
{
    for (int p = 1; p < n; p++) {
        uint8_t v = order[p];
        int q = p - 1;
        while (q >= 0 && px[order[q]] > px[v]) {
            order[q + 1] = order[q];
            q--;
        }
        order[q + 1] = v;
    }
    double rmax = 0;
    for (int i = 0; i < n; i++) {
        near[i] = 0;
        rmax = rad[i] > rmax ? rad[i] : rmax;
    }
    for (int p = 0; p < n; p++) {
        int a = order[p];
        double reach = px[a] + rad[a] + rmax;
        for (int q = p + 1; q < n && px[order[q]] < reach; q++) {
            int b = order[q];
            double ex = px[b] - px[a], ey = py[b] - py[a], lim = rad[a] + rad[b];
            if (ex * ex + ey * ey < lim * lim) {
                if (a < b)
                    near[a] |= 1u << b;
                else
                    near[b] |= 1u << a;
            }
        }
    }
    uint32_t rows = 0;
    for (int i = 0; i < n; i++)
        rows |= near[i] ? 1u << i : 0;
    return rows;
}

/* Robots at reference positions (px, py) that stay clear of the boards
   while within half the near margin of them: bit i set when robot i's
   wall test (s_robot_walls) then returns at its first line. The 1e-6 m
   covers the rounding of both sides' sums. */
static uint32_t
s_clear_of_walls (const phys_world_t *self, int n, const double *px, const double *py)
{
    const phys_geom_t *g = &self->geom;
    uint32_t clear = 0;
    for (int i = 0; i < n; i++) {
        double R = self->robots[i].specs.radius, h = 0.5 * S_NEAR_MARGIN + 1e-6;
        if (fabs (px[i]) < g->inner_x - R - h && fabs (py[i]) < g->inner_y - R - h)
            clear |= 1u << i;
    }
    return clear;
}

/* Whether any of robots rs[0..n) lies keep2 or more (4 d², d its
   distance) from its reference (px, py), NaN counting as more: two robots
   a time where SSE2 is there, each lane the scalar path's operations. */
static bool
s_left_margin (const phys_robot_t *rs, const double *px, const double *py, int n, double keep2)
{
    int i = 0;
#ifdef __SSE2__
    _Static_assert(offsetof (phys_robot_t, y) == offsetof (phys_robot_t, x) + sizeof (double),
                   "x, y in a row");
    const __m128d four = _mm_set1_pd (4), k2 = _mm_set1_pd (keep2);
    for (; i + 1 < n; i += 2) {
        __m128d a = _mm_loadu_pd (&rs[i].x), b = _mm_loadu_pd (&rs[i + 1].x);
        __m128d dx = _mm_sub_pd (_mm_unpacklo_pd (a, b), _mm_loadu_pd (px + i));
        __m128d dy = _mm_sub_pd (_mm_unpackhi_pd (a, b), _mm_loadu_pd (py + i));
        __m128d d2 = _mm_mul_pd (four, _mm_add_pd (_mm_mul_pd (dx, dx), _mm_mul_pd (dy, dy)));
        if (_mm_movemask_pd (_mm_cmplt_pd (d2, k2)) != 3)
            return true;
    }
#endif
    for (; i < n; i++) {
        double dx = rs[i].x - px[i], dy = rs[i].y - py[i];
        if (!(4 * (dx * dx + dy * dy) < keep2))
            return true;
    }
    return false;
}

void
phys_collide_robots (phys_world_t *self)
{
    int n = self->robot_count < PHYS_CONTACT_ROBOTS ? self->robot_count : PHYS_CONTACT_ROBOTS;
    s_fired_t fired;
    fired.rows = 0;
    /* Broad phase that changes no result: every iteration visits pairs in
       the spec's order (i < j), but only pairs that can touch. Near pairs
       are those closer than their radii plus a margin at reference
       positions (px, py); a pair that is not near cannot touch while no
       robot is more than half the margin away from its reference, so
       once one is, the rest of the iteration visits every pair and the
       next one takes new references. The references outlive the substep
       (the world keeps them): a substep takes new ones only when a robot
       has left the half margin since (driven, pushed or teleported), the
       robots or their radii changed. Within an iteration after the first
       on the same references, move stamps also skip a near pair that was
       apart when last tested if neither robot moved since; robots that
       have not moved since their last wall test skip the walls. */
    uint32_t tested[PHYS_CONTACT_ROBOTS][PHYS_CONTACT_ROBOTS];
    uint32_t wall_tested[PHYS_CONTACT_ROBOTS];
    uint32_t mv[PHYS_CONTACT_ROBOTS]; /* stamp of each robot's last move */
    uint32_t *near = self->near_bits;
    double *px = self->near_px, *py = self->near_py, rad[PHYS_CONTACT_ROBOTS];
    uint32_t clock = 0;
    phys_robot_t *rs = self->robots;
    bool stale = !self->near_valid || self->sap_count != n; /* references must be (re)taken */
    if (self->sap_count != n) {
        for (int i = 0; i < n; i++)
            self->sap_order[i] = (uint8_t) i;
        self->sap_count = n;
    }
    /* 4 d² < (margin - 1e-9)² less a relative 1e-9 keeps 2 |d| below
       margin - 1e-9, the test the iterations make, whatever the rounding */
    const double keep2 = (S_NEAR_MARGIN - 1e-9) * (S_NEAR_MARGIN - 1e-9) * (1 - 1e-9);
    if (!stale)
        stale = s_left_margin (rs, px, py, n, keep2);
    for (int i = 0; i < n; i++)
        mv[i] = 0;
    double e = self->contact.robot_robot_restitution;
    double k = self->contact.robot_robot_friction;
    double ew = self->contact.robot_wall_restitution;
    e = e < 0 ? 0 : e > 1 ? 1 : e;
    k = k < 0 ? 0 : k > 1 ? 1 : k;
    uint32_t all = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
    for (int it = 0; it < 4; it++) {
        bool moved = false, fresh = it == 0 || stale, full = self->exhaustive_contacts;
        if (stale) {
            for (int i = 0; i < n; i++) {
                px[i] = rs[i].x;
                py[i] = rs[i].y;
                rad[i] = rs[i].specs.radius + 0.5 * S_NEAR_MARGIN;
            }
            self->near_rows = s_near_pairs (n, px, py, rad, self->sap_order, near);
            self->near_clear = s_clear_of_walls (self, n, px, py);
            stale = false;
        }
        /* rows without near pairs have nothing to visit until the scan
           turns full, and then every later row has */
        uint32_t rows = full ? all : self->near_rows;
        while (rows) {
            int i = __builtin_ctz (rows);
            rows &= rows - 1;
            uint32_t above = all & ~((2u << i) - 1u);
            uint32_t bits = full ? above : near[i];
            while (bits) {
                int j = __builtin_ctz (bits);
                bits &= bits - 1;
                if (!fresh && !full && mv[i] <= tested[i][j] && mv[j] <= tested[i][j])
                    continue;
                tested[i][j] = clock;
                if (!s_robot_pair (self, i, j, e, k, &fired))
                    continue;
                mv[i] = mv[j] = ++clock;
                moved = true;
                if (full)
                    continue;
                double dxa = rs[i].x - px[i], dya = rs[i].y - py[i];
                double dxb = rs[j].x - px[j], dyb = rs[j].y - py[j];
                if (2 * sqrt (dxa * dxa + dya * dya) >= S_NEAR_MARGIN - 1e-9
                    || 2 * sqrt (dxb * dxb + dyb * dyb) >= S_NEAR_MARGIN - 1e-9) {
                    /* a far pair might touch now: visit all the rest */
                    full = true;
                    stale = true;
                    bits = all & ~((2u << j) - 1u);
                    rows = above;
                }
            }
        }
        /* while the references hold (no robot left its half margin in
           the scan above), robots clear of the boards at them are clear
           now: their wall test would change nothing */
        uint32_t walls = all;
        if (!self->exhaustive_contacts && !stale)
            walls &= ~self->near_clear;
        while (walls) {
            int r = __builtin_ctz (walls);
            walls &= walls - 1;
            if (it > 0 && !self->exhaustive_contacts && mv[r] <= wall_tested[r])
                continue;
            wall_tested[r] = clock;
            if (s_robot_walls (self, &rs[r], k, ew)) {
                mv[r] = ++clock;
                moved = true;
                double dx = rs[r].x - px[r], dy = rs[r].y - py[r];
                if (2 * sqrt (dx * dx + dy * dy) >= S_NEAR_MARGIN - 1e-9)
                    stale = true;
            }
        }
        if (!moved)
            break;
    }
    self->near_valid = !stale;
}
