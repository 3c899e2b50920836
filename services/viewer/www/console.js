// console.js - what a team debugging a match looks at beside the field:
// the game state from the referee (status bar, panel, the placement target
// on the field), trails of the ball and robots over the last seconds, and
// the inspector of the selected robot or ball (what its team last told it,
// how often, and commanded against true velocity). Everything here is
// built from the messages the page already gets (docs/viewer.md).

const TRAIL_KEEP_S = 10;     // history kept for trails and the inspector plot
const PLOT_S = 5;            // the inspector plot's window
const RATE_WINDOW_S = 2;     // commands per second over this many wall seconds

export const consoleState = {
    trails: { on: false, seconds: 3 },
    ballSelected: false,
    lastTouch: null,         // {team, id, t, how}
    commands: new Map(),     // "team/id" -> newest command from the world
    counts: new Map(),       // "team/id" -> [{wall, count}] for the rate
    history: [],             // [{t, ball:{x,y}, robots: Map key -> {x,y,o,vx,vy,w}}]
    commanded: new Map(),    // "team/id" -> [{t, v:[f,l,w]}] local-velocity commands seen
};

// ---- from each world ---------------------------------------------------------
export function takeWorld (w) {
    const t = Number(w.t);
    const robots = new Map();
    for (const r of w.robots || []) {
        robots.set(`${r.team}/${r.id}`, r);
        if (r.contact)
            consoleState.lastTouch = { team: r.team, id: r.id, t, how: 'at its dribbler' };
    }
    for (const k of w.kicks || [])
        consoleState.lastTouch = { team: k.team, id: k.id, t: k.t, how: `kicked at ${Number(k.speed).toFixed(2)} m/s` };
    const h = consoleState.history;
    // a world older than the newest is a restart or a replay: start again
    if (h.length && t < h[h.length - 1].t)
        h.length = 0;
    if (!h.length || t > h[h.length - 1].t)
        h.push({ t, ball: w.ball ? { x: w.ball.x, y: w.ball.y } : null, robots });
    while (h.length && h[0].t < t - TRAIL_KEEP_S)
        h.shift();
    const wall = performance.now() / 1000;
    for (const c of w.commands || []) {
        const key = `${c.team}/${c.id}`;
        consoleState.commands.set(key, c);
        const counts = consoleState.counts.get(key) || [];
        counts.push({ wall, count: Number(c.count) });
        while (counts.length > 2 && counts[0].wall < wall - RATE_WINDOW_S)
            counts.shift();
        consoleState.counts.set(key, counts);
        if (c.move === 'local' && Array.isArray(c.v)) {
            const list = consoleState.commanded.get(key) || [];
            if (list.length && Number(c.t) < list[list.length - 1].t)
                list.length = 0;
            list.push({ t: Number(c.t), v: c.v.map(Number) });
            while (list.length && list[0].t < t - TRAIL_KEEP_S)
                list.shift();
            consoleState.commanded.set(key, list);
        }
    }
}

// commands per second the page saw arrive for a robot
export function commandRate (key) {
    const c = consoleState.counts.get(key);
    if (!c || c.length < 2)
        return null;
    const a = c[0];
    const b = c[c.length - 1];
    return b.wall > a.wall ? (b.count - a.count) / (b.wall - a.wall) : null;
}

// ---- drawing on the field ------------------------------------------------------
export function drawTrails (ctx, tf, teamColour) {
    if (!consoleState.trails.on)
        return;
    const h = consoleState.history;
    if (h.length < 2)
        return;
    const since = h[h.length - 1].t - consoleState.trails.seconds;
    const keep = h.filter((s) => s.t >= since);
    ctx.save();
    ctx.lineWidth = 2;
    ctx.lineJoin = 'round';
    const line = (pts, colour) => {
        if (pts.length < 2)
            return;
        ctx.strokeStyle = colour;
        ctx.beginPath();
        pts.forEach((p, i) => {
            const c = tf.toCanvas(p.x, p.y);
            if (i)
                ctx.lineTo(c.x, c.y);
            else
                ctx.moveTo(c.x, c.y);
        });
        ctx.stroke();
    };
    ctx.globalAlpha = 0.55;
    for (const key of keep[keep.length - 1].robots.keys()) {
        const team = key.split('/')[0];
        line(keep.map((s) => s.robots.get(key)).filter(Boolean), teamColour[team] || '#fff');
    }
    ctx.globalAlpha = 0.85;
    line(keep.map((s) => s.ball).filter(Boolean), '#ff8c1a');
    ctx.restore();
}

// the ball placement target: a cross in a circle in the placing team's colour
export function drawPlacement (ctx, tf, referee, teamColour) {
    if (!referee || !referee.placement)
        return;
    const p = tf.toCanvas(referee.placement.x, referee.placement.y);
    const team = /BLUE$/.test(referee.command) ? 'blue' : /YELLOW$/.test(referee.command) ? 'yellow' : null;
    const r = Math.max(8, tf.px(0.15));
    ctx.save();
    ctx.strokeStyle = team ? teamColour[team] : '#ffffff';
    ctx.lineWidth = 3;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(p.x - r * 0.6, p.y - r * 0.6);
    ctx.lineTo(p.x + r * 0.6, p.y + r * 0.6);
    ctx.moveTo(p.x + r * 0.6, p.y - r * 0.6);
    ctx.lineTo(p.x - r * 0.6, p.y + r * 0.6);
    ctx.stroke();
    ctx.fillStyle = '#ffffff';
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillText('placement', p.x + r + 4, p.y - r);
    ctx.restore();
}

// ---- the game state in text ------------------------------------------------------
const clock = (s) => {
    if (!Number.isFinite(s))
        return '';
    const neg = s < 0;
    const a = Math.abs(s);
    return `${neg ? '-' : ''}${Math.floor(a / 60)}:${String(Math.floor(a % 60)).padStart(2, '0')}`;
};

// yellow cards running (with their time left) and red cards, in words
const cards = (t) => {
    const running = (t.yellow_card_times || []).map((s) => clock(s));
    return [running.length ? `yellow card${running.length > 1 ? 's' : ''} ${running.join(' ')}` : '',
            t.red_cards ? `red ${t.red_cards}` : ''].filter(Boolean).join('  ');
};

// the status bar's one line and the panel's lines; null when no referee
export function refereeText (ref) {
    if (!ref)
        return null;
    const b = ref.blue || {};
    const y = ref.yellow || {};
    const line = `${ref.stage} · ${ref.command} · blue ${b.score ?? 0} : ${y.score ?? 0} yellow`
        + (Number.isFinite(ref.stage_time_left) ? ` · ${clock(ref.stage_time_left)} left` : '');
    const panel = [
        `${ref.stage}${Number.isFinite(ref.stage_time_left) ? `  ${clock(ref.stage_time_left)} left` : ''}`,
        `${ref.command}${ref.next_command ? `  → next ${ref.next_command}` : ''}`
            + (Number.isFinite(ref.action_time_left) ? `  (${clock(ref.action_time_left)})` : ''),
        `blue ${b.name ? `"${b.name}" ` : ''}${b.score ?? 0}   ${cards(b)}${cards(b) ? '   ' : ''}timeouts ${b.timeouts ?? 0}`,
        `yellow ${y.name ? `"${y.name}" ` : ''}${y.score ?? 0}   ${cards(y)}${cards(y) ? '   ' : ''}timeouts ${y.timeouts ?? 0}`,
    ];
    if (ref.placement)
        panel.push(`placement at (${ref.placement.x.toFixed(3)}, ${ref.placement.y.toFixed(3)}) m`);
    if (ref.message)
        panel.push(ref.message);
    return { line, panel: panel.join('\n') };
}

// ---- the inspector ------------------------------------------------------------------
const f2 = (v) => Number(v).toFixed(2);

// the selected robot's command lines, or the ball's; text
export function inspectorText (robot, ball, ports) {
    if (ball) {
        const speed = Math.hypot(ball.vx || 0, ball.vy || 0, ball.vz || 0);
        const touch = consoleState.lastTouch;
        return `ball   x ${ball.x.toFixed(3)}  y ${ball.y.toFixed(3)} m   height ${(ball.z || 0).toFixed(3)} m\n`
            + `speed ${speed.toFixed(2)} m/s (ground ${Math.hypot(ball.vx || 0, ball.vy || 0).toFixed(2)})\n`
            + (touch ? `last touched by ${touch.team} ${touch.id} (${touch.how}, t ${Number(touch.t).toFixed(2)} s)`
                : 'no touch seen yet');
    }
    if (!robot)
        return null;
    const key = `${robot.team}/${robot.id}`;
    const c = consoleState.commands.get(key);
    const port = (ports || []).find((p) => p.name === robot.team);
    const lost = port ? `   ${robot.team} port lost ${port.lost}` : '';
    if (!c)
        return `no command from ${robot.team} to robot ${robot.id} yet${lost}`;
    const rate = commandRate(key);
    const v = c.v || [];
    const move = c.move === 'local' ? `local  forward ${f2(v[0])}  left ${f2(v[1])} m/s  angular ${f2(v[2])} rad/s`
        : c.move === 'global' ? `global  x ${f2(v[0])}  y ${f2(v[1])} m/s  angular ${f2(v[2])} rad/s`
            : c.move === 'wheels' ? `wheels  ${v.map(f2).join(' ')} rad/s` : 'no move';
    return `command at t ${Number(c.t).toFixed(2)} s: ${move}\n`
        + `kick ${c.kick_speed !== undefined ? `${f2(c.kick_speed)} m/s` : '–'}`
        + ` at ${c.kick_angle !== undefined ? `${f2(c.kick_angle)}°` : '–'}`
        + `   dribbler ${c.dribbler !== undefined ? `${Number(c.dribbler).toFixed(0)} rpm` : '–'}\n`
        + `${rate === null ? '–' : rate.toFixed(1)} commands/s   ${c.count} seen${lost}`
        + (c.contact !== undefined ? `\nfeedback: ball ${c.contact ? 'at' : 'not at'} the dribbler` : '');
}

// commanded local velocity against the true one (in the robot's frame)
// over the last PLOT_S seconds; returns the series drawn
export function drawInspectorPlot (canvas, key) {
    const ctx = canvas.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const hgt = canvas.clientHeight;
    if (!w || !hgt)
        return null;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(hgt * dpr)) {
        canvas.width = Math.round(w * dpr);
        canvas.height = Math.round(hgt * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    const h = consoleState.history;
    if (!key || !h.length)
        return null;
    const now = h[h.length - 1].t;
    const truth = h.filter((s) => s.t >= now - PLOT_S && s.robots.get(key)).map((s) => {
        const r = s.robots.get(key);
        const c = Math.cos(r.o || 0);
        const sn = Math.sin(r.o || 0);
        return { t: s.t, v: [c * (r.vx || 0) + sn * (r.vy || 0), -sn * (r.vx || 0) + c * (r.vy || 0), r.w || 0] };
    });
    const cmd = (consoleState.commanded.get(key) || []).filter((s) => s.t >= now - PLOT_S);
    const all = [...truth, ...cmd].flatMap((s) => s.v).filter(Number.isFinite);
    const span = Math.max(0.5, ...all.map(Math.abs));
    const x = (t) => 4 + (w - 8) * (1 - (now - t) / PLOT_S);
    const y = (v) => hgt / 2 - (hgt / 2 - 4) * v / span;
    ctx.strokeStyle = '#555';
    ctx.beginPath();
    ctx.moveTo(0, hgt / 2);
    ctx.lineTo(w, hgt / 2);
    ctx.stroke();
    const colours = ['#57c77a', '#6aa9ff', '#e6a03b']; // forward, left, angular
    const series = (list, i, dashed, step) => {
        if (!list.length)
            return;
        ctx.strokeStyle = colours[i];
        ctx.setLineDash(dashed ? [4, 3] : []);
        ctx.beginPath();
        list.forEach((s, k) => {
            if (k === 0)
                ctx.moveTo(x(s.t), y(s.v[i]));
            else if (step) {
                ctx.lineTo(x(s.t), y(list[k - 1].v[i]));
                ctx.lineTo(x(s.t), y(s.v[i]));
            } else
                ctx.lineTo(x(s.t), y(s.v[i]));
        });
        if (step)
            ctx.lineTo(x(now), y(list[list.length - 1].v[i]));
        ctx.stroke();
    };
    ctx.lineWidth = 1.5;
    for (let i = 0; i < 3; i++) {
        series(cmd, i, true, true);
        series(truth, i, false, false);
    }
    ctx.setLineDash([]);
    ctx.fillStyle = '#aaa';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(`±${span.toFixed(2)}`, 4, 10);
    return { commanded: cmd.length, true: truth.length,
             span_s: cmd.length ? cmd[cmd.length - 1].t - cmd[0].t : 0 };
}
