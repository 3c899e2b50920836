// field.js - the mapping between field metres and canvas pixels, and the
// drawing of the field itself (boundary, lines, goals, penalty areas,
// goal substitution areas, centre circle) from the "geometry" in force.

// Division A (the 2026 rules: 0.3 m margin along the touch lines, 0.6 m
// behind the goal lines), used until the first "geometry" arrives
export const DEFAULT_FIELD = {
    length: 12.0, width: 9.0, goal_width: 1.8, goal_depth: 0.18, boundary_width: 0.3,
    boundary_width_goal_line: 0.6, goal_substitution_area_width: 0.3,
    penalty_area_depth: 1.8, penalty_area_width: 3.6, center_circle_radius: 0.5,
    line_thickness: 0.01, ball_radius: 0.0215,
};

const MARGIN_PX = 14;

// What the canvas shows, in metres: the field plus its boundary (wider
// behind the goal lines when the geometry says so).
export function fieldExtent (f) {
    const side = f.boundary_width ?? 0.3;
    const end = Math.max(f.boundary_width_goal_line ?? side, (f.goal_depth ?? 0) + 0.05);
    return { halfX: f.length / 2 + end, halfY: f.width / 2 + side, end, side };
}

// x to the right, y up; the whole field (with its boundary) fits the
// canvas at zoom 1, and `centre` (field metres) sits in the canvas's
// centre; all in CSS pixels
export class Transform {
    constructor () {
        this.scale = 1;
        this.cx = 0;
        this.cy = 0;
        this.widthPx = 1;
        this.heightPx = 1;
        this.zoom = 1;
        this.centre = { x: 0, y: 0 };
    }

    fit (field, widthPx, heightPx) {
        const ext = fieldExtent(field);
        this.widthPx = widthPx;
        this.heightPx = heightPx;
        const base = Math.max(1e-3, Math.min((widthPx - 2 * MARGIN_PX) / (2 * ext.halfX),
                                             (heightPx - 2 * MARGIN_PX) / (2 * ext.halfY)));
        this.scale = base * this.zoom;
        // never pan the field out of sight
        this.centre.x = Math.max(-ext.halfX, Math.min(ext.halfX, this.centre.x));
        this.centre.y = Math.max(-ext.halfY, Math.min(ext.halfY, this.centre.y));
        if (this.zoom === 1)
            this.centre = { x: 0, y: 0 };
        this.cx = widthPx / 2 - this.centre.x * this.scale;
        this.cy = heightPx / 2 + this.centre.y * this.scale;
    }

    toCanvas (x, y) {
        return { x: this.cx + x * this.scale, y: this.cy - y * this.scale };
    }

    toField (px, py) {
        return { x: (px - this.cx) / this.scale, y: (this.cy - py) / this.scale };
    }

    // a length in metres as pixels
    px (metres) {
        return metres * this.scale;
    }
}

// Draw the field into ctx (already scaled to CSS pixels). Returns what
// it drew, in field metres, for tests: the walls' half extents and the
// goal substitution areas as [x_min, x_max] behind each goal line.
export function drawField (ctx, tf, f) {
    const ext = fieldExtent(f);
    const L = f.length / 2;
    const W = f.width / 2;
    const line = Math.max(1.5, tf.px(f.line_thickness ?? 0.01));

    // turf, a little darker outside the field lines
    const outer = tf.toCanvas(-ext.halfX, ext.halfY);
    ctx.fillStyle = '#1c5a32';
    ctx.fillRect(outer.x, outer.y, tf.px(2 * ext.halfX), tf.px(2 * ext.halfY));
    const inner = tf.toCanvas(-L, W);
    ctx.fillStyle = '#23693b';
    ctx.fillRect(inner.x, inner.y, tf.px(2 * L), tf.px(2 * W));
    // mowing stripes help judge distances: one per metre
    ctx.fillStyle = 'rgba(255,255,255,0.025)';
    for (let x = -Math.floor(L); x < L; x += 2) {
        const a = tf.toCanvas(x, W);
        ctx.fillRect(a.x, a.y, tf.px(Math.min(1, L - x)), tf.px(2 * W));
    }

    // the goal substitution areas: the outer part of the margin behind
    // each goal line (the league's goal_substitution_area_width, measured
    // from the wall), where a team's robots may wait during play; lighter
    // turf and a dashed inner edge
    const subs = [];
    const sub = Math.min(f.goal_substitution_area_width ?? 0, ext.end);
    if (sub > 0) {
        for (const sign of [-1, 1]) {
            const x0 = sign * (L + ext.end - sub);
            const x1 = sign * (L + ext.end);
            const a = tf.toCanvas(Math.min(x0, x1), ext.halfY);
            ctx.fillStyle = 'rgba(255,255,255,0.07)';
            ctx.fillRect(a.x, a.y, tf.px(sub), tf.px(2 * ext.halfY));
            ctx.strokeStyle = 'rgba(255,255,255,0.35)';
            ctx.lineWidth = 1;
            ctx.setLineDash([4, 4]);
            segment(ctx, tf, x0, -ext.halfY, x0, ext.halfY);
            ctx.setLineDash([]);
            subs.push([Math.min(x0, x1), Math.max(x0, x1)]);
        }
    }

    // the boundary wall
    ctx.strokeStyle = '#0d2616';
    ctx.lineWidth = 3;
    ctx.strokeRect(outer.x, outer.y, tf.px(2 * ext.halfX), tf.px(2 * ext.halfY));

    ctx.strokeStyle = 'rgba(255,255,255,0.92)';
    ctx.lineWidth = line;
    ctx.lineCap = 'butt';
    // touch lines and goal lines
    ctx.strokeRect(inner.x, inner.y, tf.px(2 * L), tf.px(2 * W));
    // halfway line and centre line
    segment(ctx, tf, 0, -W, 0, W);
    segment(ctx, tf, -L, 0, L, 0);
    // centre circle and mark
    const c = tf.toCanvas(0, 0);
    ctx.beginPath();
    ctx.arc(c.x, c.y, tf.px(f.center_circle_radius), 0, 2 * Math.PI);
    ctx.stroke();
    ctx.fillStyle = 'rgba(255,255,255,0.92)';
    ctx.beginPath();
    ctx.arc(c.x, c.y, Math.max(2, line), 0, 2 * Math.PI);
    ctx.fill();

    // penalty areas and goals at both ends
    for (const sign of [-1, 1]) {
        const gx = sign * L;
        const pd = f.penalty_area_depth;
        const pw = f.penalty_area_width / 2;
        ctx.strokeStyle = 'rgba(255,255,255,0.92)';
        ctx.lineWidth = line;
        ctx.beginPath();
        moveTo(ctx, tf, gx, -pw);
        lineTo(ctx, tf, gx - sign * pd, -pw);
        lineTo(ctx, tf, gx - sign * pd, pw);
        lineTo(ctx, tf, gx, pw);
        ctx.stroke();

        // goal: the net's inside, then its walls (the league's 2 cm walls,
        // at least 3 px so they stay visible)
        const gw = f.goal_width / 2;
        const gd = f.goal_depth;
        const a = tf.toCanvas(Math.min(gx, gx + sign * gd), gw);
        ctx.fillStyle = 'rgba(0,0,0,0.28)';
        ctx.fillRect(a.x, a.y, tf.px(gd), tf.px(2 * gw));
        ctx.strokeStyle = '#d9dde3';
        ctx.lineWidth = Math.max(3, tf.px(0.02));
        ctx.lineJoin = 'miter';
        ctx.beginPath();
        moveTo(ctx, tf, gx, gw);
        lineTo(ctx, tf, gx + sign * gd, gw);
        lineTo(ctx, tf, gx + sign * gd, -gw);
        lineTo(ctx, tf, gx, -gw);
        ctx.stroke();
        // the goal's side walls run on to the boundary wall (rules, 2026)
        if (ext.end > gd) {
            ctx.strokeStyle = '#0d2616';
            ctx.lineWidth = Math.max(2, tf.px(0.02));
            segment(ctx, tf, gx + sign * gd, gw, gx + sign * ext.end, gw);
            segment(ctx, tf, gx + sign * gd, -gw, gx + sign * ext.end, -gw);
        }
    }

    // axis hint in a corner of the boundary: where +x and +y point
    const o = tf.toCanvas(-ext.halfX, -ext.halfY);
    const ax = o.x + 12;
    const ay = o.y - 12;
    ctx.strokeStyle = 'rgba(255,255,255,0.55)';
    ctx.fillStyle = 'rgba(255,255,255,0.55)';
    ctx.lineWidth = 1.5;
    arrow(ctx, ax, ay, ax + 26, ay, 5);
    arrow(ctx, ax, ay, ax, ay - 26, 5);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.fillText('x', ax + 30, ay);
    ctx.textAlign = 'center';
    ctx.fillText('y', ax, ay - 33);
    return { walls: { x: ext.halfX, y: ext.halfY }, substitution_areas: subs };
}

function moveTo (ctx, tf, x, y) {
    const p = tf.toCanvas(x, y);
    ctx.moveTo(p.x, p.y);
}

function lineTo (ctx, tf, x, y) {
    const p = tf.toCanvas(x, y);
    ctx.lineTo(p.x, p.y);
}

function segment (ctx, tf, x0, y0, x1, y1) {
    ctx.beginPath();
    moveTo(ctx, tf, x0, y0);
    lineTo(ctx, tf, x1, y1);
    ctx.stroke();
}

// an arrow from (x0, y0) to (x1, y1) in pixels with a head of `head` px
export function arrow (ctx, x0, y0, x1, y1, head) {
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - head * Math.cos(a - 0.45), y1 - head * Math.sin(a - 0.45));
    ctx.lineTo(x1 - head * Math.cos(a + 0.45), y1 - head * Math.sin(a + 0.45));
    ctx.closePath();
    ctx.fill();
}
