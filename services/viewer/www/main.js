// main.js - the viewer page, as a table of contents: keeps the newest state
// the service sent and draws it at the browser's frame rate (state.js),
// turns mouse and keys into the service's ops (interaction.js), shows the
// status, the panels and every refusal (status.js), and exposes what it
// drew to tests as window.sslsimView and data- attributes on the canvas
// (docs/viewer.md, "The page"). The drawing is in field.js, draw.js and
// plot.js, the WebSocket in conn.js.

import { state, connect, applyGeometry, applyWorld, startFrames } from './state.js';
import * as status from './status.js';
import * as interaction from './interaction.js';
import { installTimeline, applyTimeline, applyMarks, showTimelineTime } from './timeline.js';

// what the service sends (docs/viewer.md, "Server to page")
function onMessage (msg) {
    switch (msg.type) {
    case 'hello':
        state.hello = msg;
        break;
    case 'geometry':
        applyGeometry(msg);
        status.buildCameraLayers();
        break;
    case 'world':
        applyWorld(msg);
        break;
    case 'marks':
        applyMarks(msg);
        break;
    case 'status':
        status.applyStatus(msg);
        applyTimeline(msg.player);
        state.dirty = true; // the placement target is drawn from it, also while no world comes (a paused log)
        break;
    default:
        break;
    }
}

connect({ message: onMessage, state: status.showConnection, result: status.onResult });
status.installLayers();
interaction.installPointer();
interaction.installControls();
interaction.installKeys();
status.updateHint();
installTimeline();
startFrames({ overlay: interaction.drawInteraction,
              drawn: (w) => { status.showDrawn(w); showTimelineTime(w); } });
