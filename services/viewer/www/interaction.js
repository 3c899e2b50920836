// interaction.js - what the user does to the simulator: the mouse on the
// field (select, drag the ball or a robot, shoot, turn, add, remove, zoom
// and pan), the toolbar and panel buttons, the speed, realism and camera
// controls and the keys; each becomes one of the service's ops (teleports
// while dragging are paced by sendDrag). docs/viewer.md, "What you can do".

import { $, canvas, tf, state, send, fit, findRobot, freeId, isPaused, robotKey, MAX_ROBOT_ID } from './state.js';
import { onResult, updateHint } from './status.js';
import * as draw from './draw.js';
import { consoleState } from './console.js';

const SHOT_GAIN = 2.5;         // shot speed, m/s per metre dragged
const DRAG_SEND_MS = 50;       // while dragging, at most one teleport per this
const DRAG_START_PX = 3;       // a press that moves less is a click
const ROTATE_STEP = Math.PI / 12;

const speedInput = $('speed');

// The pointer on the field, the wheel and double-click.
export function installPointer () {
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    canvas.addEventListener('pointerdown', onPointerDown);
    canvas.addEventListener('pointermove', onPointerMove);
    canvas.addEventListener('pointerup', (e) => endDrag(e, false));
    canvas.addEventListener('pointercancel', (e) => endDrag(e, true));
    canvas.addEventListener('pointerleave', () => showCursor(null));
    canvas.addEventListener('wheel', onWheel, { passive: false });
    canvas.addEventListener('dblclick', onDoubleClick);
}

// The buttons, the speed slider and the realism and camera selects.
export function installControls () {
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
}

// The keys (the "Mouse and keys" panel).
export function installKeys () {
    window.addEventListener('keydown', onKey);
}

// The drag in progress, drawn over the world (the frame loop calls it).
export function drawInteraction (ctx) {
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

// ---- pointer: drag, shoot, turn, add ----------------------------------------
function eventPos (e) {
    const rect = canvas.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    return { px, py, ...tf.toField(px, py) };
}

// millimetres are as fine as anyone places things by hand
const mm = (v) => Math.round(v * 1000) / 1000;

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

function onPointerDown (e) {
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
    consoleState.ballSelected = !!(hit && hit.kind === 'ball');
    if (hit && hit.kind === 'ball') {
        state.selected = null;
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
}

function onPointerMove (e) {
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
}

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

function onWheel (e) {
    const pos = eventPos(e);
    const hit = hitTest(pos.px, pos.py);
    e.preventDefault();
    if (!hit || hit.kind !== 'robot') {
        zoomAt(pos, Math.pow(1.0015, -e.deltaY));
        return;
    }
    const steps = Math.sign(e.deltaY) * (e.shiftKey ? 1 / 3 : 1);
    turnRobot(hit.key, -steps * ROTATE_STEP);
}

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

function onDoubleClick (e) {
    const pos = eventPos(e);
    if (hitTest(pos.px, pos.py) || state.addTeam)
        return;
    tf.zoom = 1;
    fit();
    state.dirty = true;
}

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

// ---- buttons, controls, keys -----------------------------------------------
function togglePause () {
    send(isPaused() ? 'resume' : 'pause');
}

function step () {
    if (isPaused())
        send('step');
}

let speedTimer = 0;
function speedValue () {
    const s = Number(speedInput.value);
    return Number(Math.pow(10, (Math.abs(s) < 4 ? 0 : s) / 100).toFixed(2));
}
function sendSpeed () {
    clearTimeout(speedTimer);
    speedTimer = setTimeout(() => send('speed', { value: speedValue() }), 120);
}

function onKey (e) {
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
        consoleState.ballSelected = false;
        state.dirty = true;
        break;
    default:
        return;
    }
    e.preventDefault();
}
