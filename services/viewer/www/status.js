// status.js - what the page tells the user: the connection pill, the status
// bar, the side panels (layers, selected robot, the 30 s plot, services,
// ports), the mode hint over the field and every refusal of an op
// (docs/viewer.md, "What you see"). Reads the state in state.js; sends
// nothing.

import { $, state, view, findRobot, freeId, isPaused, cameraVisible } from './state.js';
import { Plot } from './plot.js';
import { consoleState, refereeText, inspectorText, drawInspectorPlot } from './console.js';

const ERROR_SHOW_MS = 8000;

const plot = new Plot($('plot'));
const speedInput = $('speed');

// ---- connection ------------------------------------------------------------
export function showConnection (up, text) {
    state.connected = up;
    view.connected = up;
    const el = $('conn');
    el.textContent = text;
    el.className = `conn ${up ? 'conn-up' : 'conn-down'}`;
    updateHint();
}

// ---- status ----------------------------------------------------------------
export function applyStatus (s) {
    state.status = s;
    view.status_count++;
    view.status_ports = Array.isArray(s.ports) ? s.ports : [];
    view.viewer_port = Number.isFinite(s.viewer_port) ? s.viewer_port : null;
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
    showReferee(s.referee || null);
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
            const mine = s.viewer_port && src.endsWith(`:${s.viewer_port}`) && p.name === 'control';
            s2.textContent = `from ${src}${mine ? ' (this viewer)' : ''}`;
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

// Shows a value the select does not offer (a preset changed by single keys,
// "realistic+custom", or a camera count the page has no entry for) as a
// disabled entry: it says what runs, but choosing it would send a value the
// simulator refuses. The entry goes once the value is one the page offers.
function setSelect (sel, value) {
    for (const o of [...sel.options]) {
        if (o.dataset.shown && o.value !== value)
            o.remove();
    }
    if (![...sel.options].some((o) => o.value === value)) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = value;
        o.disabled = true;
        o.dataset.shown = '1';
        sel.append(o);
    }
    sel.value = value;
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

// After each frame drawn: what follows the world drawn, w.
export function showDrawn (w) {
    updatePaused();
    updateSelected();
    $('st-t').textContent = w && Number.isFinite(w.t) ? `${w.t.toFixed(2)} s` : '–';
}

// ---- results ---------------------------------------------------------------
export function onResult (result, request) {
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

// ---- layers ----------------------------------------------------------------
// One checkbox per camera of the geometry in force.
export function buildCameraLayers () {
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

// The fixed layer checkboxes of index.html.
export function installLayers () {
    for (const input of document.querySelectorAll('#layers input[data-layer]')) {
        input.checked = !!state.layers[input.dataset.layer];
        input.addEventListener('change', () => {
            state.layers[input.dataset.layer] = input.checked;
            state.dirty = true;
        });
    }
    const trails = $('trails');
    const seconds = $('trail-seconds');
    const apply = () => {
        consoleState.trails.on = trails.checked;
        consoleState.trails.seconds = Number(seconds.value) || 3;
        state.dirty = true;
    };
    trails.addEventListener('change', apply);
    seconds.addEventListener('change', apply);
    apply();
}

// ---- the game state ----------------------------------------------------------
function showReferee (ref) {
    const text = refereeText(ref);
    view.referee = ref ? { stage: ref.stage, command: ref.command, blue: ref.blue, yellow: ref.yellow,
                           placement: ref.placement || null } : null;
    const bar = $('st-referee');
    bar.textContent = text ? text.line : 'no referee';
    bar.parentElement.classList.toggle('muted', !text);
    const panel = $('game');
    panel.classList.toggle('muted', !text);
    const body = text ? text.panel : 'No game controller heard on the referee address.';
    if (panel.textContent !== body)
        panel.textContent = body;
}

// ---- the mode hint and the selected robot ----------------------------------
export function updateHint () {
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

function updateSelected () {
    const r = state.selected ? findRobot(state.selected) : null;
    if (state.selected && !r && state.world)
        state.selected = null;
    const ball = consoleState.ballSelected && state.world ? state.world.ball : null;
    const el = $('selected');
    $('selected-actions').hidden = !r;
    el.classList.toggle('muted', !r && !ball);
    const text = r
        ? `${r.team} ${r.id}   x ${r.x.toFixed(3)}  y ${r.y.toFixed(3)} m\n`
          + `facing ${(r.o * 180 / Math.PI).toFixed(1)}°   ${Math.hypot(r.vx || 0, r.vy || 0).toFixed(2)} m/s`
          + (r.contact ? '   ball at dribbler' : '')
        : ball ? 'the ball' : 'Click a robot or the ball to select it.';
    if (el.textContent !== text) {
        el.textContent = text;
        el.style.whiteSpace = 'pre-line';
    }
    const ins = inspectorText(r, ball, state.status && state.status.ports);
    const box = $('inspector');
    box.hidden = !ins;
    if (ins && $('inspector-text').textContent !== ins)
        $('inspector-text').textContent = ins;
    const plotBox = $('inspector-plot-box');
    plotBox.hidden = !r;
    const drawn = r ? drawInspectorPlot($('inspector-plot'), state.selected) : null;
    const c = r ? consoleState.commands.get(state.selected) : null;
    view.inspector = r || ball ? { kind: r ? 'robot' : 'ball', key: r ? state.selected : 'ball', text: ins,
                                  command: c || null, plot: drawn } : null;
}
