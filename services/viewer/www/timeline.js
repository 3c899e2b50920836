// timeline.js - the timeline of a log `ssl-sim play` serves, or of a journal
// `ssl-sim replay` serves (docs/viewer.md, "Playing a log", "Replaying a
// journal"): shown only when the status carries "player"; the seek
// bar follows the time of the world drawn, dragging it seeks, and the two
// jump buttons go to the next referee command or goal. Play, pause, step
// and speed are the toolbar's own controls: the service hands their ops
// to the player instead of a gateway.

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
    duration = Number(player.duration) || 0;
    bar.max = String(duration);
    $('tl-next-command').disabled = !Number.isFinite(player.next_command);
    $('tl-next-goal').disabled = !Number.isFinite(player.next_goal);
    $('tl-state').textContent = player.ended ? 'end of the log' : player.paused ? 'paused' : `${Number(player.speed).toFixed(2)}×`;
}

// each world drawn: its time on the bar
export function showTimelineTime (w) {
    if (!view.player || !w || !Number.isFinite(w.t) || seeking)
        return;
    bar.value = String(w.t);
    $('tl-time').textContent = `${fmt(w.t)} / ${fmt(duration)}`;
}
