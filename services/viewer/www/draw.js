// draw.js - what stands on the field: robots (a circle with the flat front
// where the dribbler is), the ball with its height and velocity, each
// camera's raw detections in the camera's colour, and the cameras
// themselves (nadir, field-of-view circle, region border).

import { arrow } from './field.js';

export const TEAM_FILL = { blue: '#2f72e0', yellow: '#f4cc2a' };
const TEAM_TEXT = { blue: '#ffffff', yellow: '#1b1b1b' };
const TEAM_EDGE = { blue: '#0f2f66', yellow: '#6b5400' };

// The league's robot: radius 0.09 m, front flattened 0.075 m ahead of the
// centre (physics spec: center_to_dribbler); scaled with the radius sent.
const C2D_RATIO = 0.075 / 0.09;
const BALL_MIN_PX = 4;
// velocity arrows show where the object would be in this many seconds
const ARROW_S = 0.25;

// the robot outline (closed path) at pixel centre (px, py), radius rp px,
// orientation o (field radians; the canvas y axis points down)
function robotPath (ctx, px, py, rp, o) {
    const half = Math.acos(C2D_RATIO);
    const a = -o; // canvas angles run clockwise
    ctx.beginPath();
    ctx.arc(px, py, rp, a + half, a - half + 2 * Math.PI);
    ctx.closePath();
}

function robotRadiusPx (tf, r) {
    return Math.max(5, tf.px(r || 0.09));
}

// The true robots. flashes: Map "team/id" -> 0..1 (kick flash strength);
// selected: "team/id" or null; ghosts: robots being dragged.
export function drawRobots (ctx, tf, robots, opts) {
    for (const r of robots) {
        const key = `${r.team}/${r.id}`;
        const p = tf.toCanvas(r.x, r.y);
        const rp = robotRadiusPx(tf, r.r);
        const o = r.o || 0;
        const flash = opts.flashes.get(key) || 0;

        if (flash > 0) {
            ctx.fillStyle = `rgba(255, 236, 150, ${0.55 * flash})`;
            ctx.beginPath();
            ctx.arc(p.x, p.y, rp * (1.4 + 0.9 * (1 - flash)), 0, 2 * Math.PI);
            ctx.fill();
        }
        if (key === opts.selected) {
            ctx.strokeStyle = '#ffffff';
            ctx.lineWidth = 2;
            ctx.setLineDash([4, 3]);
            ctx.beginPath();
            ctx.arc(p.x, p.y, rp + 5, 0, 2 * Math.PI);
            ctx.stroke();
            ctx.setLineDash([]);
        }

        // body with a soft shadow
        ctx.save();
        ctx.shadowColor = 'rgba(0,0,0,0.45)';
        ctx.shadowBlur = 4;
        ctx.shadowOffsetY = 1.5;
        robotPath(ctx, p.x, p.y, rp, o);
        ctx.fillStyle = TEAM_FILL[r.team] || '#888';
        ctx.fill();
        ctx.restore();
        ctx.strokeStyle = TEAM_EDGE[r.team] || '#333';
        ctx.lineWidth = 1.5;
        robotPath(ctx, p.x, p.y, rp, o);
        ctx.stroke();

        // dribbler bar along the flat front; bright while it touches the ball
        const c2d = rp * C2D_RATIO;
        const halfFlat = Math.sqrt(rp * rp - c2d * c2d);
        const fx = Math.cos(-o);
        const fy = Math.sin(-o);
        const bx = p.x + fx * c2d;
        const by = p.y + fy * c2d;
        ctx.lineCap = 'round';
        ctx.lineWidth = r.contact ? Math.max(4, rp * 0.3) : Math.max(2, rp * 0.16);
        ctx.strokeStyle = r.contact ? '#ff4d2e' : 'rgba(20,20,20,0.8)';
        ctx.beginPath();
        ctx.moveTo(bx - fy * halfFlat * 0.85, by + fx * halfFlat * 0.85);
        ctx.lineTo(bx + fy * halfFlat * 0.85, by - fx * halfFlat * 0.85);
        ctx.stroke();
        if (r.contact) {
            ctx.strokeStyle = 'rgba(255, 77, 46, 0.45)';
            ctx.lineWidth = Math.max(8, rp * 0.55);
            ctx.stroke();
        }
        ctx.lineCap = 'butt';

        // id, upright whatever the orientation
        ctx.fillStyle = TEAM_TEXT[r.team] || '#fff';
        ctx.font = `600 ${Math.max(9, Math.round(rp * 0.95))}px system-ui, sans-serif`;
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText(String(r.id), p.x - fx * rp * 0.12, p.y - fy * rp * 0.12 + 0.5);

        if (opts.velocity)
            velocityArrow(ctx, tf, r.x, r.y, r.vx, r.vy, 'rgba(255,255,255,0.7)', rp);
    }
}

// A robot being dragged: its outline where it will be put.
export function drawGhostRobot (ctx, tf, team, x, y, o, r) {
    const p = tf.toCanvas(x, y);
    const rp = robotRadiusPx(tf, r);
    ctx.globalAlpha = 0.55;
    robotPath(ctx, p.x, p.y, rp, o);
    ctx.fillStyle = TEAM_FILL[team] || '#888';
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([3, 3]);
    robotPath(ctx, p.x, p.y, rp, o);
    ctx.stroke();
    ctx.setLineDash([]);
}

function velocityArrow (ctx, tf, x, y, vx, vy, colour, startPx) {
    const speed = Math.hypot(vx || 0, vy || 0);
    if (!(speed > 0.05))
        return;
    const p = tf.toCanvas(x, y);
    const ux = vx / speed;
    const uy = -vy / speed;
    const len = tf.px(speed * ARROW_S);
    const x0 = p.x + ux * startPx;
    const y0 = p.y + uy * startPx;
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = 2;
    arrow(ctx, x0, y0, x0 + ux * len, y0 + uy * len, 6);
}

// The true ball: a shadow on the ground where it is, the ball itself
// raised (up the screen) and enlarged with its height, a label when in the
// air, and its velocity.
export function drawBall (ctx, tf, ball, radius, opts) {
    const z = Math.max(0, ball.z || 0);
    const lift = z - radius; // height of the ball's bottom above the ground
    const ground = tf.toCanvas(ball.x, ball.y);
    const rp = Math.max(BALL_MIN_PX, tf.px(radius));
    const airborne = lift > 0.01;

    ctx.fillStyle = 'rgba(0,0,0,0.38)';
    ctx.beginPath();
    const shadow = airborne ? 1 + Math.min(1.5, lift * 1.2) : 1;
    ctx.ellipse(ground.x + 1.5, ground.y + 1.5, rp * shadow, rp * shadow * 0.8, 0, 0, 2 * Math.PI);
    ctx.fill();

    const up = airborne ? tf.px(lift) * 0.6 + 2 : 0;
    const size = rp * (1 + Math.min(1.2, lift * 0.8));
    if (airborne) {
        ctx.strokeStyle = 'rgba(255,255,255,0.4)';
        ctx.lineWidth = 1;
        ctx.setLineDash([2, 2]);
        ctx.beginPath();
        ctx.moveTo(ground.x, ground.y);
        ctx.lineTo(ground.x, ground.y - up);
        ctx.stroke();
        ctx.setLineDash([]);
    }
    if (opts.selected) {
        // the selection ring, as a selected robot's
        ctx.strokeStyle = '#ffffff';
        ctx.lineWidth = 1.5;
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.arc(ground.x, ground.y - up, size + 6, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.setLineDash([]);
    }
    ctx.fillStyle = '#ff8a1c';
    ctx.strokeStyle = '#5a2600';
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    ctx.arc(ground.x, ground.y - up, size, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    if (airborne) {
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillStyle = '#ffffff';
        ctx.textAlign = 'left';
        ctx.textBaseline = 'middle';
        ctx.fillText(`z ${z.toFixed(2)} m`, ground.x + size + 5, ground.y - up);
    }
    if (opts.velocity)
        velocityArrow(ctx, tf, ball.x, ball.y, ball.vx, ball.vy, '#ffb266', rp + 2);
}

// A camera's raw detections: robot outlines with an orientation tick and
// ball rings, in the camera's colour.
export function drawDetections (ctx, tf, frame, colour, radius) {
    // each outline twice: a dark halo first, so a camera's colour shows
    // on a robot of a similar team colour too
    for (const [style, width] of [['rgba(0,0,0,0.55)', 3.5], [colour, 1.5]]) {
        ctx.strokeStyle = style;
        ctx.lineWidth = width;
        for (const r of frame.robots || []) {
            const p = tf.toCanvas(r.x, r.y);
            const rp = robotRadiusPx(tf, 0.09);
            robotPath(ctx, p.x, p.y, rp, r.o || 0);
            ctx.stroke();
            // the tick stays off the robot's centre, where its id is written
            const o = -(r.o || 0);
            ctx.beginPath();
            ctx.moveTo(p.x + Math.cos(o) * rp * 0.55, p.y + Math.sin(o) * rp * 0.55);
            ctx.lineTo(p.x + Math.cos(o) * rp * 1.25, p.y + Math.sin(o) * rp * 1.25);
            ctx.stroke();
        }
        // a ring around where the camera sees the ball, with four ticks
        // outside it, so the true ball inside stays visible
        const rp = Math.max(BALL_MIN_PX, tf.px(radius)) + 3;
        for (const b of frame.balls || []) {
            const p = tf.toCanvas(b.x, b.y);
            ctx.beginPath();
            ctx.arc(p.x, p.y, rp, 0, 2 * Math.PI);
            ctx.stroke();
            ctx.beginPath();
            for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
                ctx.moveTo(p.x + dx * rp, p.y + dy * rp);
                ctx.lineTo(p.x + dx * (rp + 4), p.y + dy * (rp + 4));
            }
            ctx.stroke();
        }
    }
}

// The cameras' layers that lie under the robots: field-of-view circles and
// region borders.
export function drawCameraAreas (ctx, tf, cameras, layers, visible) {
    for (const cam of cameras) {
        if (!visible(cam.id))
            continue;
        const colour = cam.color || '#ffffff';
        if (layers.fov && cam.fov_radius > 0) {
            const p = tf.toCanvas(cam.x, cam.y);
            ctx.strokeStyle = colour;
            ctx.globalAlpha = 0.75;
            ctx.lineWidth = 1.5;
            ctx.setLineDash([8, 6]);
            ctx.beginPath();
            ctx.arc(p.x, p.y, tf.px(cam.fov_radius), 0, 2 * Math.PI);
            ctx.stroke();
            ctx.setLineDash([]);
            ctx.globalAlpha = 1;
        }
        if (layers.regions && cam.region) {
            const g = cam.region;
            const a = tf.toCanvas(g.x_min, g.y_max);
            ctx.fillStyle = colour;
            ctx.globalAlpha = 0.035;
            ctx.fillRect(a.x, a.y, tf.px(g.x_max - g.x_min), tf.px(g.y_max - g.y_min));
            ctx.globalAlpha = 0.9;
            ctx.strokeStyle = colour;
            ctx.lineWidth = 1.5;
            ctx.setLineDash([2, 4]);
            // inset by a pixel per camera so shared borders show both colours
            const inset = 1 + (cam.id % 4);
            ctx.strokeRect(a.x + inset, a.y + inset, tf.px(g.x_max - g.x_min) - 2 * inset,
                           tf.px(g.y_max - g.y_min) - 2 * inset);
            ctx.setLineDash([]);
            ctx.globalAlpha = 1;
        }
    }
}

// Camera nadirs: a cross and the camera's name and height.
export function drawNadirs (ctx, tf, cameras, visible) {
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    for (const cam of cameras) {
        if (!visible(cam.id))
            continue;
        const p = tf.toCanvas(cam.x, cam.y);
        const colour = cam.color || '#ffffff';
        ctx.strokeStyle = 'rgba(0,0,0,0.6)';
        ctx.lineWidth = 4;
        cross(ctx, p.x, p.y, 8);
        ctx.strokeStyle = colour;
        ctx.lineWidth = 2;
        cross(ctx, p.x, p.y, 8);
        const label = `cam ${cam.id}  ${Number(cam.z).toFixed(1)} m`;
        ctx.fillStyle = 'rgba(0,0,0,0.55)';
        const w = ctx.measureText(label).width;
        ctx.fillRect(p.x + 8, p.y + 7, w + 8, 16);
        ctx.fillStyle = colour;
        ctx.fillText(label, p.x + 12, p.y + 9);
    }
}

function cross (ctx, x, y, s) {
    ctx.beginPath();
    ctx.moveTo(x - s, y - s);
    ctx.lineTo(x + s, y + s);
    ctx.moveTo(x - s, y + s);
    ctx.lineTo(x + s, y - s);
    ctx.stroke();
}

// The shot being aimed: from the ball to the pointer, with the speed.
export function drawShot (ctx, tf, from, to, speed) {
    const a = tf.toCanvas(from.x, from.y);
    const b = tf.toCanvas(to.x, to.y);
    ctx.strokeStyle = '#ffffff';
    ctx.fillStyle = '#ffffff';
    ctx.lineWidth = 2.5;
    ctx.setLineDash([6, 4]);
    arrow(ctx, a.x, a.y, b.x, b.y, 10);
    ctx.setLineDash([]);
    ctx.font = '600 12px system-ui, sans-serif';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    ctx.fillStyle = 'rgba(0,0,0,0.6)';
    const label = `${speed.toFixed(2)} m/s`;
    ctx.fillRect(b.x + 8, b.y - 22, ctx.measureText(label).width + 10, 18);
    ctx.fillStyle = '#ffffff';
    ctx.fillText(label, b.x + 13, b.y - 7);
}

// A ball being dragged.
export function drawGhostBall (ctx, tf, x, y, radius) {
    const p = tf.toCanvas(x, y);
    const rp = Math.max(BALL_MIN_PX, tf.px(radius));
    ctx.globalAlpha = 0.6;
    ctx.fillStyle = '#ff8a1c';
    ctx.beginPath();
    ctx.arc(p.x, p.y, rp, 0, 2 * Math.PI);
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.arc(p.x, p.y, rp + 3, 0, 2 * Math.PI);
    ctx.stroke();
}
