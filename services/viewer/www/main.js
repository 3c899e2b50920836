// main.js - the viewer page: keeps the newest state the service sent,
// draws it at the browser's frame rate, turns mouse and keys into the
// service's ops, shows every refusal, and exposes what it drew to tests
// as window.sslsimView and data- attributes on the canvas
// (docs/viewer.md, "The page").

import { Conn } from './conn.js';
import { DEFAULT_FIELD, Transform, drawField } from './field.js';
import * as draw from './draw.js';
import { Plot } from './plot.js';

const SHOT_GAIN = 2.5;         // shot speed, m/s per metre dragged
const DRAG_SEND_MS = 50;       // while dragging, at most one teleport per this
const DRAG_START_PX = 3;       // a press that moves less is a click
const FLASH_MS = 450;          // kick flash duration
const ROTATE_STEP = Math.PI / 12;
const MAX_ROBOT_ID = 15;       // the league's ids per team: 0..15
const CAMERA_PALETTE = ['#e6550d', '#3182bd', '#31a354', '#756bb1', '#e7298a', '#17becf', '#bcbd22', '#8c564b'];
const ERROR_SHOW_MS = 8000;

const $ = (id) => document.getElementById(id);
const canvas = $('field');
const ctx = canvas.getContext('2d');
const tf = new Transform();
const plot = new Plot($('plot'));
const speedInput = $('speed');

const state = {
    field: { ...DEFAULT_FIELD },
    cameras: [],
    world: null,
    status: null,
    hello: null,
    connected: false,
    layers: { truth: true, velocity: true, nadirs: true, fov: false, regions: false },
    hiddenCameras: new Set(),
    flashes: new Map(),        // "team/id" -> wall ms of the kick
    selected: null,            // "team/id"
    hover: null,               // {kind:'ball'} or {kind:'robot', key}
    drag: null,
    addTeam: null,             // 'blue' | 'yellow' while placing a robot
    turn: null,                // {key, o, until}: wheel turns not yet seen in a world
    speedEditUntil: 0,
    selectEditUntil: 0,
    dirty: true,
    cssW: 0,
    cssH: 0,
};

// ---- the test hooks (docs/viewer.md, "The page") -----------------
const view = {
    field: { length: state.field.length, width: state.field.width },
    robots: [],
    ball: null,
    vision_cameras: [],
    frames_drawn: 0,
    paused: false,
    last_result: null,          // the newest "result" of any op (with its op name)
    last_error: null,           // the newest one with ok:false
    results: [],                // the last 50 results
    t: null,                    // sim time of the world drawn
    geometry_count: 0,          // "geometry" messages applied
    plot: { window_s: 30, rtf: [], latency_ms: [] }, // the series the plot drew
    connected: false,
    toCanvas: (x, y) => {
        const p = tf.toCanvas(x, y);
        return { x: p.x, y: p.y };
    },
    toField: (px, py) => tf.toField(px, py),
    // send an op as the controls do; resolves with its result (for tests
    // and the console)
    request: (op, fields) => conn.request(op, fields),
};
window.sslsimView = view;

// ---- connection ------------------------------------------------------------
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const conn = new Conn(wsUrl, {
    message: onMessage,
    state: (up, text) => {
        state.connected = up;
        view.connected = up;
        const el = $('conn');
        el.textContent = text;
        el.className = `conn ${up ? 'conn-up' : 'conn-down'}`;
        updateHint();
    },
    result: onResult,
});

function onMessage (msg) {
    switch (msg.type) {
    case 'hello':
        state.hello = msg;
        break;
    case 'geometry':
        applyGeometry(msg);
        break;
    case 'world':
        applyWorld(msg);
        break;
    case 'status':
        applyStatus(msg);
        break;
    default:
        break;
    }
}

function applyGeometry (msg) {
    if (msg.field && typeof msg.field === 'object')
        state.field = { ...DEFAULT_FIELD, ...msg.field };
    state.cameras = Array.isArray(msg.cameras) ? msg.cameras.map((c, i) => ({
        ...c, color: c.color || CAMERA_PALETTE[i % CAMERA_PALETTE.length] })) : [];
    view.geometry_count++;
    buildCameraLayers();
    fit();
    state.dirty = true;
}

function applyWorld (msg) {
    state.world = msg;
    const now = performance.now();
    for (const k of msg.kicks || [])
        state.flashes.set(`${k.team}/${k.id}`, now);
    if (state.turn && now > state.turn.until)
        state.turn = null;
    state.dirty = true;
}

function cameraColour (id) {
    const cam = state.cameras.find((c) => c.id === id);
    return cam ? cam.color : CAMERA_PALETTE[((id % CAMERA_PALETTE.length) + CAMERA_PALETTE.length) % CAMERA_PALETTE.length];
}

const cameraVisible = (id) => !state.hiddenCameras.has(id);

// ---- drawing ---------------------------------------------------------------
function fit () {
    tf.fit(state.field, state.cssW, state.cssH);
}

function resize () {
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (w === state.cssW && h === state.cssH && canvas.width === Math.round(w * dpr))
        return;
    state.cssW = w;
    state.cssH = h;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    fit();
    state.dirty = true;
}

function frame (now) {
    requestAnimationFrame(frame);
    conn.frameTick();
    resize();
    let flashing = false;
    for (const [key, t0] of state.flashes) {
        if (now - t0 > FLASH_MS)
            state.flashes.delete(key);
        else
            flashing = true;
    }
    if (!state.dirty && !flashing)
        return;
    state.dirty = false;
    render(now);
}

function render (now) {
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, state.cssW, state.cssH);
    const f = state.field;
    drawField(ctx, tf, f);
    draw.drawCameraAreas(ctx, tf, state.cameras, state.layers, cameraVisible);

    const w = state.world;
    const robots = w && Array.isArray(w.robots) ? w.robots : [];
    const flashes = new Map();
    for (const [key, t0] of state.flashes)
        flashes.set(key, Math.max(0, 1 - (now - t0) / FLASH_MS));
    const drawnRobots = [];
    let drawnBall = null;
    if (state.layers.truth && w) {
        draw.drawRobots(ctx, tf, robots, { flashes, selected: state.selected, velocity: state.layers.velocity });
        for (const r of robots)
            drawnRobots.push({ team: r.team, id: r.id, x: r.x, y: r.y, o: r.o });
    }
    const drawnCameras = [];
    for (const frameMsg of (w && w.vision) || []) {
        if (!cameraVisible(frameMsg.camera))
            continue;
        draw.drawDetections(ctx, tf, frameMsg, cameraColour(frameMsg.camera), f.ball_radius);
        drawnCameras.push(frameMsg.camera);
    }
    // the true ball over the detections: it is small and the rings hide it
    if (state.layers.truth && w && w.ball) {
        draw.drawBall(ctx, tf, w.ball, f.ball_radius, { velocity: state.layers.velocity });
        drawnBall = { x: w.ball.x, y: w.ball.y, z: w.ball.z };
    }
    if (state.layers.nadirs)
        draw.drawNadirs(ctx, tf, state.cameras, cameraVisible);
    drawInteraction();

    // what was drawn, for tests
    view.field = { length: f.length, width: f.width };
    view.robots = drawnRobots;
    view.ball = drawnBall;
    view.vision_cameras = drawnCameras;
    view.paused = !!(w && w.paused);
    view.t = w ? w.t : null;
    view.frames_drawn++;
    canvas.dataset.robots = String(drawnRobots.length);
    canvas.dataset.field = `${num(f.length)}x${num(f.width)}`;
    canvas.dataset.frames = String(view.frames_drawn);
    canvas.dataset.paused = String(view.paused);

    updatePaused();
    updateSelected();
    $('st-t').textContent = w && Number.isFinite(w.t) ? `${w.t.toFixed(2)} s` : '–';
}

function drawInteraction () {
    const d = state.drag;
    if (!d || !d.moved)
        return;
    const f = state.field;
    if (d.kind === 'ball')
        draw.drawGhostBall(ctx, tf, d.x, d.y, f.ball_radius);
    else if (d.kind === 'shot')
        draw.drawShot(ctx, tf, d.from, d.to, shotVelocity(d).speed);
    else if (d.kind === 'robot' || d.kind === 'rotate')
        draw.drawGhostRobot(ctx, tf, d.team, d.x, d.y, d.o, d.r);
}

// 12 -> "12", 10.4 -> "10.4"
function num (v) {
    return String(Number(Number(v).toFixed(3)));
}

// ---- status ----------------------------------------------------------------
function applyStatus (s) {
    state.status = s;
    plot.add(performance.now() / 1000, Number(s.rtf), s.latency_ms === undefined ? NaN : Number(s.latency_ms));
    plot.draw(performance.now() / 1000);
    view.plot = plot.model();

    const paused = s.paused ? ' (paused)' : '';
    $('st-mode').textContent = `${s.mode ?? '–'}${paused}`;
    $('st-speed').textContent = Number.isFinite(s.speed) ? `${s.speed.toFixed(2)}×` : '–';
    $('st-rtf').textContent = Number.isFinite(s.rtf) ? s.rtf.toFixed(2) : '–';
    $('st-substep').textContent = Number.isFinite(s.substep_us) ? `${s.substep_us.toFixed(1)} µs` : '–';
    $('st-vision').textContent = (s.cameras || []).length
        ? s.cameras.map((c) => `cam ${c.id} ${Number(c.pps).toFixed(1)}`).join(' · ') + ' pps' : 'none';
    $('st-ports').textContent = (s.ports || []).length
        ? s.ports.map((p) => `${p.name} ${Number(p.rate).toFixed(0)}/s`).join(' · ') : '–';
    $('st-loss').textContent = Number.isFinite(s.loss) ? `${(s.loss * 100).toFixed(1)} %` : '–';
    $('st-latency').textContent = Number.isFinite(s.latency_ms)
        ? `${s.latency_ms.toFixed(1)} ms (p90 ${Number(s.latency_p90_ms).toFixed(1)}, max ${Number(s.latency_max_ms).toFixed(1)})`
        : '–';
    const services = s.services && typeof s.services === 'object' ? Object.entries(s.services) : [];
    const sv = $('st-services');
    sv.classList.toggle('muted', !services.length);
    sv.replaceChildren(...services.map(([name, up], i) => {
        const span = document.createElement('span');
        span.className = up ? 'good' : 'bad';
        const restarts = s.restarts && Number(s.restarts[name]) > 0 ? ` (${s.restarts[name]} restarts)` : '';
        span.textContent = `${up ? '●' : '○'} ${name}${restarts}`;
        return span;
    }));


    const ports = $('ports');
    ports.classList.toggle('muted', !(s.ports || []).length);
    ports.replaceChildren(...(s.ports || []).map((p) => {
        const div = document.createElement('div');
        const name = document.createElement('span');
        name.className = 'port-name';
        name.textContent = p.name;
        div.append(name, ` :${p.port}  ${Number(p.rate).toFixed(1)} /s`);
        const counts = ['received', 'refused', 'lost'].filter((k) => Number.isFinite(p[k]))
            .map((k) => `${k} ${p[k]}`);
        if (counts.length) {
            const c = document.createElement('span');
            c.className = 'src';
            c.textContent = counts.join(' · ');
            div.append(c);
        }
        const sources = p.sources || [];
        for (const src of sources.slice(0, 4)) {
            const s2 = document.createElement('span');
            s2.className = 'src';
            s2.textContent = `from ${src}`;
            div.append(s2);
        }
        if (sources.length > 4) {
            const s2 = document.createElement('span');
            s2.className = 'src';
            s2.textContent = `and ${sources.length - 4} more`;
            s2.title = sources.slice(4).join('\n');
            div.append(s2);
        }
        if (!sources.length) {
            const s2 = document.createElement('span');
            s2.className = 'src';
            s2.textContent = 'no sender seen';
            div.append(s2);
        }
        return div;
    }));
    if (!(s.ports || []).length)
        ports.textContent = 'no ports reported';

    // controls follow the simulator unless the user is changing them
    // (a status report sent before the change took effect must not undo it)
    const now = performance.now();
    if (document.activeElement !== $('realism') && s.realism && now > state.selectEditUntil)
        setSelect($('realism'), String(s.realism));
    if (document.activeElement !== $('cameras') && s.camera_count && now > state.selectEditUntil)
        setSelect($('cameras'), String(s.camera_count));
    // in sync mode the clients' steps set the pace, not a speed
    speedInput.disabled = s.mode === 'sync';
    if (Number.isFinite(s.speed) && s.speed > 0 && performance.now() > state.speedEditUntil) {
        $('speed').value = String(Math.round(100 * Math.log10(s.speed)));
        $('speed-value').textContent = `${s.speed.toFixed(2)}×`;
    }
    if (!state.world)
        updatePaused();
}

function setSelect (sel, value) {
    if (![...sel.options].some((o) => o.value === value)) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = value;
        sel.append(o);
    }
    sel.value = value;
}

function isPaused () {
    if (state.world)
        return !!state.world.paused;
    return !!(state.status && state.status.paused);
}

function updatePaused () {
    const paused = isPaused();
    if (paused !== state.shownPaused) {
        state.shownPaused = paused;
        updateHint();
    }
    const btn = $('btn-pause');
    const text = paused ? 'Resume' : 'Pause';
    if (btn.textContent !== text)
        btn.textContent = text;
    btn.classList.toggle('paused', paused);
    $('btn-step').disabled = !paused;
}

// ---- results ---------------------------------------------------------------
function onResult (result, request) {
    const entry = { ...result, op: request ? request.op : undefined };
    view.last_result = entry;
    view.results.push(entry);
    if (view.results.length > 50)
        view.results.shift();
    if (result.ok === false) {
        view.last_error = entry;
        showError(entry);
    }
}

function showError (e) {
    const box = $('errors');
    const text = `${e.code || 'ERROR'}|${e.op || ''}|${e.message || ''}`;
    // the same refusal again (a drag repeats its teleports) counts up instead
    for (const el of box.children) {
        if (el.dataset.key === text) {
            const n = Number(el.dataset.count) + 1;
            el.dataset.count = String(n);
            el.querySelector('.count').textContent = ` ×${n}`;
            clearTimeout(Number(el.dataset.timer));
            el.dataset.timer = String(setTimeout(() => el.remove(), ERROR_SHOW_MS));
            return;
        }
    }
    const el = document.createElement('div');
    el.className = 'error';
    el.dataset.key = text;
    el.dataset.count = '1';
    el.title = 'click to dismiss';
    const code = document.createElement('span');
    code.className = 'code';
    code.textContent = e.code || 'ERROR';
    const op = document.createElement('span');
    op.className = 'op';
    op.textContent = e.op || '';
    const msg = document.createElement('span');
    msg.className = 'message';
    msg.textContent = e.message || '(no message)';
    const count = document.createElement('span');
    count.className = 'count';
    el.append(code, op, msg, count);
    el.addEventListener('click', () => el.remove());
    el.dataset.timer = String(setTimeout(() => el.remove(), ERROR_SHOW_MS));
    box.prepend(el);
    while (box.children.length > 5)
        box.lastElementChild.remove();
}

function send (op, fields) {
    return conn.request(op, fields);
}

// ---- layers ----------------------------------------------------------------
function buildCameraLayers () {
    const box = $('camera-layers');
    const ids = state.cameras.map((c) => c.id);
    for (const id of [...state.hiddenCameras])
        if (!ids.includes(id))
            state.hiddenCameras.delete(id);
    box.replaceChildren(...state.cameras.map((cam) => {
        const label = document.createElement('label');
        const input = document.createElement('input');
        input.type = 'checkbox';
        input.checked = cameraVisible(cam.id);
        input.dataset.camera = String(cam.id);
        input.addEventListener('change', () => {
            if (input.checked)
                state.hiddenCameras.delete(cam.id);
            else
                state.hiddenCameras.add(cam.id);
            state.dirty = true;
        });
        const sw = document.createElement('span');
        sw.className = 'swatch';
        sw.style.background = cam.color;
        label.title = 'this camera\'s detections, nadir, field-of-view circle and region';
        label.append(input, sw, ` Camera ${cam.id}`);
        return label;
    }));
}

for (const input of document.querySelectorAll('#layers input[data-layer]')) {
    input.checked = !!state.layers[input.dataset.layer];
    input.addEventListener('change', () => {
        state.layers[input.dataset.layer] = input.checked;
        state.dirty = true;
    });
}

// ---- pointer: drag, shoot, turn, add ----------------------------------------
function eventPos (e) {
    const rect = canvas.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    return { px, py, ...tf.toField(px, py) };
}

// millimetres are as fine as anyone places things by hand
const mm = (v) => Math.round(v * 1000) / 1000;

function robotKey (r) {
    return `${r.team}/${r.id}`;
}

function findRobot (key) {
    const robots = (state.world && state.world.robots) || [];
    return robots.find((r) => robotKey(r) === key) || null;
}

// what is under pixel (px, py): the ball first (it is small and often
// touches a robot), then the nearest robot
function hitTest (px, py) {
    const w = state.world;
    if (!w || !state.layers.truth)
        return null;
    if (w.ball) {
        const b = tf.toCanvas(w.ball.x, w.ball.y);
        const reach = Math.max(tf.px(state.field.ball_radius), 4) + 6;
        if (Math.hypot(b.x - px, b.y - py) <= reach)
            return { kind: 'ball' };
    }
    let best = null;
    let bestD = Infinity;
    for (const r of w.robots || []) {
        const p = tf.toCanvas(r.x, r.y);
        const d = Math.hypot(p.x - px, p.y - py);
        if (d <= Math.max(5, tf.px(r.r || 0.09)) + 2 && d < bestD) {
            best = r;
            bestD = d;
        }
    }
    return best ? { kind: 'robot', key: robotKey(best), robot: best } : null;
}

canvas.addEventListener('contextmenu', (e) => e.preventDefault());

canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 && e.button !== 2)
        return;
    const pos = eventPos(e);
    if (state.addTeam) {
        if (e.button === 0)
            addRobot(state.addTeam, pos.x, pos.y, e.shiftKey);
        else
            setAddTeam(null);
        return;
    }
    const hit = hitTest(pos.px, pos.py);
    const w = state.world;
    if (hit && hit.kind === 'ball') {
        const from = { x: w.ball.x, y: w.ball.y };
        if (e.shiftKey || e.button === 2)
            state.drag = { kind: 'shot', from, to: { x: pos.x, y: pos.y }, moved: false, start: pos };
        else
            state.drag = { kind: 'ball', x: from.x, y: from.y, dx: from.x - pos.x, dy: from.y - pos.y,
                           moved: false, start: pos, lastSend: 0, inflight: false };
    } else if (hit && hit.kind === 'robot') {
        const r = hit.robot;
        state.selected = hit.key;
        const base = { team: r.team, id: r.id, x: r.x, y: r.y, o: r.o || 0, r: r.r, moved: false, start: pos,
                       lastSend: 0, inflight: false };
        if (e.altKey || e.button === 2)
            state.drag = { kind: 'rotate', ...base };
        else
            state.drag = { kind: 'robot', ...base, dx: r.x - pos.x, dy: r.y - pos.y };
    } else {
        state.selected = null;
        // an empty spot: pan the zoomed view
        state.drag = e.button === 0 && tf.zoom > 1
            ? { kind: 'pan', moved: false, start: pos, centre: { ...tf.centre } } : null;
    }
    if (state.drag)
        canvas.setPointerCapture(e.pointerId);
    state.dirty = true;
    updateCursor();
    e.preventDefault();
});

canvas.addEventListener('pointermove', (e) => {
    const pos = eventPos(e);
    showCursor(pos);
    const d = state.drag;
    if (!d) {
        const hit = hitTest(pos.px, pos.py);
        const before = state.hover ? `${state.hover.kind}${state.hover.key || ''}` : '';
        state.hover = hit;
        if (before !== (hit ? `${hit.kind}${hit.key || ''}` : ''))
            updateCursor();
        return;
    }
    if (!d.moved && Math.hypot(pos.px - d.start.px, pos.py - d.start.py) < DRAG_START_PX)
        return;
    d.moved = true;
    if (d.kind === 'ball') {
        d.x = mm(pos.x + d.dx);
        d.y = mm(pos.y + d.dy);
    } else if (d.kind === 'robot') {
        d.x = mm(pos.x + d.dx);
        d.y = mm(pos.y + d.dy);
    } else if (d.kind === 'rotate') {
        d.o = Math.atan2(pos.y - d.y, pos.x - d.x);
    } else if (d.kind === 'shot') {
        d.to = { x: pos.x, y: pos.y };
    } else if (d.kind === 'pan') {
        tf.centre = { x: d.centre.x - (pos.px - d.start.px) / tf.scale,
                      y: d.centre.y + (pos.py - d.start.py) / tf.scale };
        fit();
    }
    if (d.kind !== 'shot' && d.kind !== 'pan')
        sendDrag(d, false);
    state.dirty = true;
    updateHint();
});

function endDrag (e, cancelled) {
    const d = state.drag;
    if (!d)
        return;
    state.drag = null;
    if (canvas.hasPointerCapture(e.pointerId))
        canvas.releasePointerCapture(e.pointerId);
    if (!cancelled && d.moved) {
        if (d.kind === 'shot') {
            const v = shotVelocity(d);
            send('teleport_ball', { x: mm(d.from.x), y: mm(d.from.y), z: 0, vx: v.vx, vy: v.vy, vz: 0 });
        } else if (d.kind !== 'pan') {
            sendDrag(d, true);
        }
    }
    state.dirty = true;
    updateCursor();
    updateHint();
}

canvas.addEventListener('pointerup', (e) => endDrag(e, false));
canvas.addEventListener('pointercancel', (e) => endDrag(e, true));
canvas.addEventListener('pointerleave', () => showCursor(null));

// While dragging, a teleport at most every DRAG_SEND_MS and never two
// unanswered, so the thing follows the mouse without flooding the
// simulator; the last one, on release, always goes.
function sendDrag (d, final) {
    const now = performance.now();
    if (!final && (d.inflight || now - d.lastSend < DRAG_SEND_MS))
        return;
    d.lastSend = now;
    d.inflight = true;
    let p;
    if (d.kind === 'ball')
        p = send('teleport_ball', { x: d.x, y: d.y, z: 0, vx: 0, vy: 0, vz: 0 });
    else
        p = send('teleport_robot', { team: d.team, robot: d.id, x: mm(d.x), y: mm(d.y), o: round4(d.o) });
    p.then(() => { d.inflight = false; });
}

const round4 = (v) => Math.round(v * 1e4) / 1e4;

function shotVelocity (d) {
    const vx = round4((d.to.x - d.from.x) * SHOT_GAIN);
    const vy = round4((d.to.y - d.from.y) * SHOT_GAIN);
    return { vx, vy, speed: Math.hypot(vx, vy) };
}

canvas.addEventListener('wheel', (e) => {
    const pos = eventPos(e);
    const hit = hitTest(pos.px, pos.py);
    e.preventDefault();
    if (!hit || hit.kind !== 'robot') {
        zoomAt(pos, Math.pow(1.0015, -e.deltaY));
        return;
    }
    const steps = Math.sign(e.deltaY) * (e.shiftKey ? 1 / 3 : 1);
    turnRobot(hit.key, -steps * ROTATE_STEP);
}, { passive: false });

// Zoom by `factor` keeping the field point under the pointer in place.
function zoomAt (pos, factor) {
    const zoom = Math.max(1, Math.min(16, tf.zoom * factor));
    if (zoom === tf.zoom)
        return;
    tf.zoom = zoom;
    fit();
    tf.centre = { x: pos.x - (pos.px - state.cssW / 2) / tf.scale,
                  y: pos.y + (pos.py - state.cssH / 2) / tf.scale };
    fit();
    state.dirty = true;
}

canvas.addEventListener('dblclick', (e) => {
    const pos = eventPos(e);
    if (hitTest(pos.px, pos.py) || state.addTeam)
        return;
    tf.zoom = 1;
    fit();
    state.dirty = true;
});

// Turn by `delta` rad from the last orientation asked for (the world may
// not show the previous turn yet).
function turnRobot (key, delta) {
    const r = findRobot(key);
    if (!r)
        return;
    const now = performance.now();
    const base = state.turn && state.turn.key === key ? state.turn.o : (r.o || 0);
    const o = Math.atan2(Math.sin(base + delta), Math.cos(base + delta));
    state.turn = { key, o, until: now + 1000 };
    send('teleport_robot', { team: r.team, robot: r.id, x: mm(r.x), y: mm(r.y), o: round4(o) });
}

function removeRobot (key) {
    const r = findRobot(key);
    if (!r)
        return;
    send('teleport_robot', { team: r.team, robot: r.id, x: mm(r.x), y: mm(r.y), present: false });
    if (state.selected === key)
        state.selected = null;
    state.dirty = true;
}

function freeId (team) {
    const used = new Set(((state.world && state.world.robots) || []).filter((r) => r.team === team).map((r) => r.id));
    for (let id = 0; id <= MAX_ROBOT_ID; id++)
        if (!used.has(id))
            return id;
    return -1;
}

function addRobot (team, x, y, keepAdding) {
    const id = freeId(team);
    if (id < 0) {
        onResult({ type: 'result', ok: false, code: 'BAD_REQUEST',
                   message: `every ${team} id 0-${MAX_ROBOT_ID} is on the field` }, { op: 'teleport_robot' });
    } else {
        send('teleport_robot', { team, robot: id, x: mm(x), y: mm(y), o: team === 'blue' ? 0 : round4(Math.PI),
                                 present: true });
    }
    if (!keepAdding)
        setAddTeam(null);
}

function setAddTeam (team) {
    state.addTeam = team;
    $('btn-add-blue').classList.toggle('active', team === 'blue');
    $('btn-add-yellow').classList.toggle('active', team === 'yellow');
    updateCursor();
    updateHint();
}

function updateCursor () {
    canvas.classList.toggle('cursor-add', !!state.addTeam);
    canvas.classList.toggle('cursor-grabbing', !state.addTeam && !!state.drag);
    canvas.classList.toggle('cursor-grab', !state.addTeam && !state.drag && !!state.hover);
}

function updateHint () {
    const el = $('mode-hint');
    let text = '';
    if (!state.connected)
        text = 'Not connected to the simulator, retrying…';
    else if (state.addTeam)
        text = `Click on the field to place ${state.addTeam} robot ${freeId(state.addTeam)} · Shift-click places more · Esc or right-click cancels`;
    else if (state.drag && state.drag.moved && state.drag.kind === 'shot')
        text = 'Release to shoot · Esc cancels';
    else if (state.drag && state.drag.moved && state.drag.kind === 'rotate')
        text = 'Point where the robot should face';
    else if (isPaused())
        text = 'Paused · N or Step advances one frame · Space resumes';
    el.hidden = !text;
    el.textContent = text;
}

function showCursor (pos) {
    const el = $('cursor-pos');
    if (!pos) {
        el.textContent = '';
        return;
    }
    let text = `x ${pos.x.toFixed(3)}  y ${pos.y.toFixed(3)} m`;
    if (tf.zoom > 1)
        text += `  ·  zoom ${tf.zoom.toFixed(1)}× (double-click fits)`;
    const hover = state.hover;
    if (hover && hover.kind === 'robot')
        text += `  ·  ${hover.key.replace('/', ' ')}`;
    else if (hover && hover.kind === 'ball')
        text += '  ·  ball (Shift-drag to shoot)';
    el.textContent = text;
}

function updateSelected () {
    const r = state.selected ? findRobot(state.selected) : null;
    if (state.selected && !r && state.world)
        state.selected = null;
    const el = $('selected');
    $('selected-actions').hidden = !r;
    el.classList.toggle('muted', !r);
    const text = r
        ? `${r.team} ${r.id}   x ${r.x.toFixed(3)}  y ${r.y.toFixed(3)} m\n`
          + `facing ${(r.o * 180 / Math.PI).toFixed(1)}°   ${Math.hypot(r.vx || 0, r.vy || 0).toFixed(2)} m/s`
          + (r.contact ? '   ball at dribbler' : '')
        : 'Click a robot to select it.';
    if (el.textContent !== text) {
        el.textContent = text;
        el.style.whiteSpace = 'pre-line';
    }
}

// ---- buttons, controls, keys -----------------------------------------------
function togglePause () {
    send(isPaused() ? 'resume' : 'pause');
}

function step () {
    if (isPaused())
        send('step');
}

$('btn-pause').addEventListener('click', togglePause);
$('btn-step').addEventListener('click', step);
$('btn-reset').addEventListener('click', () => send('reset'));
$('btn-add-blue').addEventListener('click', () => setAddTeam(state.addTeam === 'blue' ? null : 'blue'));
$('btn-add-yellow').addEventListener('click', () => setAddTeam(state.addTeam === 'yellow' ? null : 'yellow'));
$('btn-remove').addEventListener('click', () => state.selected && removeRobot(state.selected));
$('btn-rot-left').addEventListener('click', () => state.selected && turnRobot(state.selected, ROTATE_STEP));
$('btn-rot-right').addEventListener('click', () => state.selected && turnRobot(state.selected, -ROTATE_STEP));
// a clicked button keeps no focus, so Space means pause, not "click again"
for (const b of document.querySelectorAll('button'))
    b.addEventListener('mouseup', () => b.blur());

let speedTimer = 0;
function speedValue () {
    const s = Number(speedInput.value);
    return Number(Math.pow(10, (Math.abs(s) < 4 ? 0 : s) / 100).toFixed(2));
}
function sendSpeed () {
    clearTimeout(speedTimer);
    speedTimer = setTimeout(() => send('speed', { value: speedValue() }), 120);
}
speedInput.addEventListener('input', () => {
    state.speedEditUntil = performance.now() + 1500;
    $('speed-value').textContent = `${speedValue().toFixed(2)}×`;
    sendSpeed();
});
speedInput.addEventListener('dblclick', () => {
    speedInput.value = '0';
    speedInput.dispatchEvent(new Event('input'));
});
$('realism').addEventListener('change', (e) => {
    state.selectEditUntil = performance.now() + 3000;
    send('realism', { preset: e.target.value });
    e.target.blur();
});
$('cameras').addEventListener('change', (e) => {
    state.selectEditUntil = performance.now() + 3000;
    send('cameras', { count: Number(e.target.value) });
    e.target.blur();
});

window.addEventListener('keydown', (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' && e.target.type !== 'range' && e.target.type !== 'checkbox')
        return;
    if (tag === 'SELECT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey)
        return;
    switch (e.key) {
    case ' ':
        togglePause();
        break;
    case 'n':
    case 'N':
        step();
        break;
    case 'b':
    case 'B':
        setAddTeam(state.addTeam === 'blue' ? null : 'blue');
        break;
    case 'y':
    case 'Y':
        setAddTeam(state.addTeam === 'yellow' ? null : 'yellow');
        break;
    case 'Delete':
    case 'Backspace':
        if (state.selected)
            removeRobot(state.selected);
        break;
    case '[':
        if (state.selected)
            turnRobot(state.selected, ROTATE_STEP);
        break;
    case ']':
        if (state.selected)
            turnRobot(state.selected, -ROTATE_STEP);
        break;
    case 'Escape':
        if (state.drag) {
            state.drag = null;
            updateHint();
        }
        setAddTeam(null);
        state.selected = null;
        state.dirty = true;
        break;
    default:
        return;
    }
    e.preventDefault();
});

new ResizeObserver(() => { state.dirty = true; }).observe(canvas);
resize();
updateHint();
requestAnimationFrame(frame);
