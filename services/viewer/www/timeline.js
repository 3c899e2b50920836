// timeline.js - the timeline of a log `ssl-sim play` serves, or of a journal
// `ssl-sim replay` serves (docs/viewer.md, "Playing a log", "Replaying a
// journal"): shown only when the status carries "player"; the seek
// bar follows the time of the world drawn, dragging it seeks, and the two
// jump buttons go to the next referee command or goal. Play, pause, step
// and speed are the toolbar's own controls: the service hands their ops
// to the player instead of a gateway. Under the bar, a tick for each of
// the referee's marks (the "marks" message): its command or goal as its
// tooltip, a click goes there.

import { $, send, view } from './state.js';

const bar = $('tl-seek');
let seeking = false;    // the bar is held: the worlds do not move it
let duration = 0;

function fmt (t) {
    const m = Math.floor(t / 60);
    const s = t - 60 * m;
    return `${m}:${s.toFixed(1).padStart(4, '0')}`;
}

export function installTimeline () {
    bar.addEventListener('input', () => {
        seeking = true;
        $('tl-time').textContent = `${fmt(Number(bar.value))} / ${fmt(duration)}`;
    });
    bar.addEventListener('change', () => {
        seeking = false;
        send('seek', { t: Number(bar.value) });
    });
    $('tl-next-command').addEventListener('click', () => send('jump', { to: 'command' }));
    $('tl-next-goal').addEventListener('click', () => send('jump', { to: 'goal' }));
}

// the "player" part of a status: the bar's length and the jump buttons
export function applyTimeline (player) {
    view.player = player || null;
    $('timeline').hidden = !player;
    document.body.classList.toggle('playing-log', !!player);
    if (!player)
        return;
    $('tl-label').textContent = player.journal ? 'Replay' : 'Log';
    const length = Number(player.duration) || 0;
    if (length !== duration) {
        duration = length;
        placeMarks();
    }
    bar.max = String(duration);
    $('tl-next-command').disabled = !Number.isFinite(player.next_command);
    $('tl-next-goal').disabled = !Number.isFinite(player.next_goal);
    $('tl-state').textContent = player.ended ? 'end of the log' : player.paused ? 'paused' : `${Number(player.speed).toFixed(2)}×`;
}

// a "marks" message: one tick per mark, at its fraction of the timeline
let marks = [];

function markLabel (m) {
    return m.kind === 'goal' ? `${fmt(m.t)} goal: blue ${m.blue} : ${m.yellow} yellow`
                             : `${fmt(m.t)} ${m.command}`;
}

function placeMarks () {
    const box = $('tl-marks');
    box.replaceChildren();
    if (!(duration > 0))
        return;
    for (const m of marks) {
        const tick = document.createElement('button');
        tick.className = `tl-mark ${m.kind}`;
        tick.style.left = `${(100 * Math.min(1, Math.max(0, m.t / duration))).toFixed(4)}%`;
        tick.title = markLabel(m);
        tick.setAttribute('aria-label', tick.title);
        tick.dataset.t = String(m.t);
        // just after the mark, as the jump buttons land (vw_player.c): its
        // referee packet is the one shown; 10 us as the times are rounded to 1 us
        tick.addEventListener('click', (e) => {
            send('seek', { t: m.t + 1e-5 });
            if (e.detail > 0)
                tick.blur(); // a mouse click: Space goes on pausing, not clicking the tick again
        });
        box.append(tick);
    }
}

export function applyMarks (msg) {
    marks = Array.isArray(msg.marks) ? msg.marks.filter((m) => Number.isFinite(m.t)) : [];
    view.marks = marks;
    placeMarks();
}

// each world drawn: its time on the bar
export function showTimelineTime (w) {
    if (!view.player || !w || !Number.isFinite(w.t) || seeking)
        return;
    bar.value = String(w.t);
    $('tl-time').textContent = `${fmt(w.t)} / ${fmt(duration)}`;
}
