// state.js - the page's state and its frame loop: the connection to the
// viewer service, the newest geometry and world it sent, the field
// transform, and the loop that draws the world at the browser's frame rate
// and records what it drew for tests in window.sslsimView and the canvas's
// data- attributes (docs/viewer.md, "The page"). The status and interaction
// modules read and change `state`; main.js wires the three together.

import { Conn } from './conn.js';
import { DEFAULT_FIELD, Transform, drawField } from './field.js';
import * as draw from './draw.js';
import { consoleState, takeWorld, drawTrails, drawPlacement } from './console.js';

const FLASH_MS = 450;          // kick flash duration
const CAMERA_PALETTE = ['#e6550d', '#3182bd', '#31a354', '#756bb1', '#e7298a', '#17becf', '#bcbd22', '#8c564b'];
export const MAX_ROBOT_ID = 15; // the league's ids per team: 0..15

export const $ = (id) => document.getElementById(id);
export const canvas = $('field');
const ctx = canvas.getContext('2d');
export const tf = new Transform();

export const state = {
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
export const view = {
    field: { length: state.field.length, width: state.field.width },
    robots: [],
    ball: null,
    vision_cameras: [],
    vision_balls: [],           // [x, y] of each ball detection drawn
    vision_frames: [],          // {camera, frame, t_capture} of each camera frame drawn
    player: null,               // the status's "player" while `ssl-sim play` serves the page, or null
    frames_drawn: 0,
    paused: false,
    last_result: null,          // the newest "result" of any op (with its op name)
    last_error: null,           // the newest one with ok:false
    results: [],                // the last 50 results
    t: null,                    // sim time of the world drawn
    geometry_count: 0,          // "geometry" messages applied
    status_count: 0,            // "status" messages applied
    status_ports: [],           // the newest status's ports
    viewer_port: null,          // the UDP port the viewer's actions leave from
    referee: null,              // the game state shown: {stage, command, blue, yellow, placement} or null
    placement_drawn: null,      // {x, y} of the placement target drawn, or null
    trails: null,               // {seconds, points}: the trails drawn, or null when off
    inspector: null,            // {kind: 'robot'|'ball', key, text, command, plot}: the panel shown
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
let conn = null;

// The viewer's token (docs/viewer.md "The door"): the address ssl-sim
// prints carries it once as #token=HEX; the page keeps it in this
// origin's localStorage (so reloads and new tabs of the same address act
// too) and takes it off the address bar, so a shared screenshot or link
// does not carry it. A viewer on loopback needs none and sends none.
const TOKEN_KEY = 'sslsim.token';

function pageToken () {
    const m = /(?:^#|&)token=([0-9a-fA-F]{64})(?:&|$)/.exec(location.hash);
    let token = null;
    try {
        if (m)
            localStorage.setItem(TOKEN_KEY, m[1].toLowerCase());
        token = localStorage.getItem(TOKEN_KEY);
    } catch (err) {
        token = m ? m[1].toLowerCase() : null; // storage off: this visit only
    }
    if (m)
        history.replaceState(null, '', location.pathname + location.search);
    return token;
}

// Opens the WebSocket to the service that served the page; handlers as
// Conn's: {message(msg), state(up, text), result(result, request)}.
export function connect (handlers) {
    const token = pageToken();
    const query = token ? `?token=${token}` : '';
    const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws${query}`;
    conn = new Conn(wsUrl, handlers);
}

// Sends an op; resolves with its result (Conn.request).
export function send (op, fields) {
    return conn.request(op, fields);
}

export function applyGeometry (msg) {
    if (msg.field && typeof msg.field === 'object')
        state.field = { ...DEFAULT_FIELD, ...msg.field };
    state.cameras = Array.isArray(msg.cameras) ? msg.cameras.map((c, i) => ({
        ...c, color: c.color || CAMERA_PALETTE[i % CAMERA_PALETTE.length] })) : [];
    view.geometry_count++;
    fit();
    state.dirty = true;
}

export function applyWorld (msg) {
    state.world = msg;
    takeWorld(msg);
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

export const cameraVisible = (id) => !state.hiddenCameras.has(id);

// ---- what the world holds ----------------------------------------------------
export function robotKey (r) {
    return `${r.team}/${r.id}`;
}

export function findRobot (key) {
    const robots = (state.world && state.world.robots) || [];
    return robots.find((r) => robotKey(r) === key) || null;
}

// the lowest id of `team` not on the field, or -1
export function freeId (team) {
    const used = new Set(((state.world && state.world.robots) || []).filter((r) => r.team === team).map((r) => r.id));
    for (let id = 0; id <= MAX_ROBOT_ID; id++)
        if (!used.has(id))
            return id;
    return -1;
}

export function isPaused () {
    if (state.world)
        return !!state.world.paused;
    return !!(state.status && state.status.paused);
}

// ---- drawing ---------------------------------------------------------------
export function fit () {
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

// hooks.overlay(ctx): draws over the world (the drag in progress);
// hooks.drawn(world): after each frame drawn (the panels that follow it)
let hooks = null;

// Starts the frame loop: redraws whenever something changed or a kick
// flash is fading, at most once per animation frame.
export function startFrames (frameHooks) {
    hooks = frameHooks;
    new ResizeObserver(() => { state.dirty = true; }).observe(canvas);
    resize();
    requestAnimationFrame(frame);
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
    const drawnField = drawField(ctx, tf, f);
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
    const ref = state.status && state.status.referee;
    drawPlacement(ctx, tf, ref, draw.TEAM_FILL);
    view.placement_drawn = ref && ref.placement ? { x: ref.placement.x, y: ref.placement.y } : null;
    drawTrails(ctx, tf, draw.TEAM_FILL);
    view.trails = consoleState.trails.on
        ? { seconds: consoleState.trails.seconds, points: consoleState.history.length } : null;
    const drawnCameras = [];
    const drawnBalls = [];
    const drawnFrames = [];
    for (const frameMsg of (w && w.vision) || []) {
        if (!cameraVisible(frameMsg.camera))
            continue;
        draw.drawDetections(ctx, tf, frameMsg, cameraColour(frameMsg.camera), f.ball_radius);
        drawnCameras.push(frameMsg.camera);
        drawnFrames.push({ camera: frameMsg.camera, frame: frameMsg.frame, t_capture: frameMsg.t_capture });
        for (const b of frameMsg.balls || [])
            drawnBalls.push([b.x, b.y]);
    }
    // the true ball over the detections: it is small and the rings hide it
    if (state.layers.truth && w && w.ball && Number.isFinite(w.ball.x)) {
        draw.drawBall(ctx, tf, w.ball, f.ball_radius, { velocity: state.layers.velocity,
                                                        selected: consoleState.ballSelected });
        drawnBall = { x: w.ball.x, y: w.ball.y, z: w.ball.z };
    }
    if (state.layers.nadirs)
        draw.drawNadirs(ctx, tf, state.cameras, cameraVisible);
    hooks.overlay(ctx);

    // what was drawn, for tests
    view.field = { length: f.length, width: f.width, walls: drawnField.walls,
                   substitution_areas: drawnField.substitution_areas };
    view.robots = drawnRobots;
    view.ball = drawnBall;
    view.vision_cameras = drawnCameras;
    view.vision_balls = drawnBalls;
    view.vision_frames = drawnFrames;
    view.paused = !!(w && w.paused);
    view.t = w ? w.t : null;
    view.frames_drawn++;
    canvas.dataset.robots = String(drawnRobots.length);
    canvas.dataset.field = `${num(f.length)}x${num(f.width)}`;
    canvas.dataset.frames = String(view.frames_drawn);
    canvas.dataset.paused = String(view.paused);

    hooks.drawn(w);
}

// 12 -> "12", 10.4 -> "10.4"
function num (v) {
    return String(Number(Number(v).toFixed(3)));
}
