// viewer.test.js BUILD - the viewer page in a real browser against a real
// simulator: starts BUILD/bin/ssl-sim run on free loopback ports (from the
// system tests' shared port counter), opens the page in Debian's chromium
// through playwright-core, checks through the page's test hooks that the
// field and 22 robots are drawn, drags the ball with the mouse to
// (1.0, 1.0) m and checks over UDP (real SSL_WrapperPackets, decoded by
// sim_probe with the project's protobuf-c code) that vision shows it there
// within 0.01 m, pauses and checks that t_capture stops, steps, resumes,
// checks a refusal is shown, kills the viewer and sees the page reconnect
// to its restarted successor, and saves BUILD/viewer.png.
//
// Every wait watches a condition (a page state, a vision frame, a process
// exit) with a generous bound for a loaded 2-core machine; none sleeps to
// let something happen. Exit status 0 when every check passed.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, START_MS, WAIT_MS, TOLERANCE_M, results, check, must, writeIni, Vision, ballNear,
         stopSimulator, waitHttp, launchBrowser, runTest } from './support.js';

const BUILD = path.resolve(process.argv[2] || path.join(import.meta.dirname, '..', '..', 'build'));
const SIM = path.join(BUILD, 'bin', 'ssl-sim');
const PROBE = path.join(BUILD, 'tests', 'browser', 'sim_probe');
const SCREENSHOT = path.join(BUILD, 'viewer.png');
const SHOT_GAME = path.join(BUILD, 'viewer-game.png');
const SHOT_INSPECTOR = path.join(BUILD, 'viewer-inspector.png');
const PAUSE_WATCH_MS = 2000; // how long t_capture must stand still
// command->vision latency: at most the configured vision delay (35 ms with
// realism none) plus a frame period (13.6 ms at 73.3 Hz), with generous
// slack for the bus hops and scheduling of a loaded machine
const LATENCY_MAX_MS = 35 + 13.6 + 500;

const cleanups = [];

// ---- the simulator ---------------------------------------------------------
function startSimulator (dir, ports) {
    const [vision, viewer] = [ports[7], ports[8]];
    const ini = writeIni(dir, ports);
    // realism none (in the file, since --realism would replace the file's
    // realism keys), one key away from the preset (a key that moves no
    // position): the page must say the run is "none+custom" and not offer
    // that as a choice (below)
    fs.appendFileSync(ini, '[run]\nrealism = none\n[realism]\nreport_ball_area = false\n');
    const log = fs.openSync(path.join(dir, 'log.txt'), 'a');
    // realism none: no calibration offset or noise, so vision shows exactly
    // where the ball was put; --local-multicast: the probe listens as a
    // league tool does, joined to the group (docs/league-tools.md), which
    // plain --localhost (unicast to 127.0.0.1) does not reach
    const args = ['run', '--config', ini, '--localhost', '--local-multicast', '--vision-addr', `224.5.23.2:${vision}`,
                  '--viewer-addr', `127.0.0.1:${viewer}`];
    const proc = spawn(SIM, args, { stdio: ['ignore', log, log], env: { ...process.env, XDG_RUNTIME_DIR: dir } });
    fs.closeSync(log);
    proc.exited = new Promise((resolve) => proc.once('exit', (code, sig) => resolve(sig || code)));
    return proc;
}

// ---- the test --------------------------------------------------------------
async function main () {
    for (const f of [SIM, PROBE, CHROMIUM])
        must(`${f} exists`, fs.existsSync(f), 'build first (make all) / install chromium (scripts/deps.sh)');

    const ports = execFileSync(PROBE, ['ports', '10'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    must('ten free test ports', ports.length === 10 && ports.every((p) => p > 0), ports.join(' '));
    const viewerPort = ports[8];
    const dir = fs.mkdtempSync('/tmp/ssl-sim-test-');
    const sim = startSimulator(dir, ports);
    cleanups.push(async () => {
        const how = await stopSimulator(sim);
        if (!check('ssl-sim exits cleanly on SIGTERM', how === 0, `exit ${how}`) || results.failed || process.env.SIM_TEST_LOG)
            process.stdout.write(`---- ssl-sim log ----\n${fs.readFileSync(path.join(dir, 'log.txt'), 'utf8')}\n`);
        fs.rmSync(dir, { recursive: true, force: true });
    });

    const vision = new Vision(PROBE, ports[7]);
    cleanups.push(async () => vision.close());
    await vision.ready;

    const url = `http://127.0.0.1:${viewerPort}/`;
    const html = await waitHttp(url, START_MS, sim.exited);
    check('the viewer serves the page', html.includes('id="field"'));

    const { browser, close: closeBrowser } = await launchBrowser(os);
    cleanups.push(closeBrowser);
    const page = browser.pages()[0] || await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const scriptErrors = [];
    page.on('pageerror', (err) => scriptErrors.push(err.message));
    page.on('console', (m) => {
        if (m.type() === 'error')
            scriptErrors.push(m.text());
    });
    await page.goto(url, { timeout: START_MS });

    // ---- the field and 22 robots are drawn --------------------------------
    await page.waitForFunction(() => {
        const v = window.sslsimView;
        return v && v.geometry_count > 0 && v.robots.length === 22 && v.ball;
    }, null, { timeout: START_MS });
    const canvas = page.locator('canvas#field');
    must('data-robots is 22', await canvas.getAttribute('data-robots') === '22',
         await canvas.getAttribute('data-robots'));
    check('data-field is 12x9 (division A)', await canvas.getAttribute('data-field') === '12x9',
          await canvas.getAttribute('data-field'));
    const model = await page.evaluate(() => window.sslsimView);
    // the 2026 Division A field: walls 0.6 m behind the goal lines and 0.3 m
    // off the touch lines, a goal substitution area in the outer 0.3 m
    // behind each goal line
    const fw = model.field;
    check('walls at |x| 6.6 and |y| 4.8 (division A, 2026 rules)',
          Math.abs(fw.walls.x - 6.6) < 1e-9 && Math.abs(fw.walls.y - 4.8) < 1e-9, JSON.stringify(fw.walls));
    check('a goal substitution area from 6.3 to 6.6 m behind each goal line',
          fw.substitution_areas.length === 2
          && fw.substitution_areas.some(([a, b]) => Math.abs(a + 6.6) < 1e-9 && Math.abs(b + 6.3) < 1e-9)
          && fw.substitution_areas.some(([a, b]) => Math.abs(a - 6.3) < 1e-9 && Math.abs(b - 6.6) < 1e-9),
          JSON.stringify(fw.substitution_areas));
    check('11 blue and 11 yellow robots', model.robots.filter((r) => r.team === 'blue').length === 11
          && model.robots.filter((r) => r.team === 'yellow').length === 11);
    // the plot has RTF points and, with no team command sent yet, no latency
    await page.waitForFunction(() => window.sslsimView.plot.rtf.length >= 2);
    const plot0 = await page.evaluate(() => window.sslsimView.plot);
    check('the plot has an RTF series and no latency without team commands',
          plot0.rtf.length >= 2 && plot0.latency_ms.length === 0, JSON.stringify(plot0.latency_ms.slice(0, 3)));
    const frames0 = Number(await canvas.getAttribute('data-frames'));
    await page.waitForFunction((n) => Number(document.getElementById('field').dataset.frames) > n + 10, frames0);
    check('the page keeps drawing new worlds', true);
    const help = await page.evaluate(() => document.querySelector('.help').innerText);
    check('the help lists the edits a simulator takes', help.includes('move it there') && help.includes('add a blue')
          && help.includes('Del') && help.includes('cancel adding'), help);
    await page.waitForFunction(() => window.sslsimView.vision_cameras.length >= 1);
    check('camera detections are drawn', true);

    // ---- a preset changed by single keys: shown, not offered ---------------
    await page.waitForFunction(() => document.getElementById('realism').value === 'none+custom', null,
                               { timeout: START_MS });
    const shown = await page.evaluate(() => [...document.getElementById('realism').options]
        .filter((o) => o.value.includes('+')).map((o) => ({ value: o.value, disabled: o.disabled })));
    check('a preset changed by single keys is shown as "none+custom" and cannot be chosen',
          shown.length === 1 && shown[0].disabled, JSON.stringify(shown));
    // choosing the preset applies all of it: the label is the name again
    // and the entry that was only shown is gone
    await page.selectOption('#realism', 'none');
    await page.evaluate(() => document.activeElement.blur()); // the page follows the simulator again
    await page.waitForFunction(() => ![...document.getElementById('realism').options].some((o) => o.value.includes('+'))
                               && document.getElementById('realism').value === 'none');
    check('choosing the preset applies it whole: the label is its name again', true);

    // ---- no game controller: no game state ------------------------------
    check('without a referee the page shows no game state',
          await page.evaluate(() => window.sslsimView.referee === null && !window.sslsimView.placement_drawn)
          && (await page.textContent('#st-referee')) === 'no referee', await page.textContent('#st-referee'));

    // ---- drag the ball to (1, 1) m with the mouse -------------------------
    const box = await canvas.boundingBox();
    const at = await page.evaluate(() => {
        const v = window.sslsimView;
        return { from: v.toCanvas(v.ball.x, v.ball.y), to: v.toCanvas(1.0, 1.0) };
    });
    const seen = vision.waitFor('with the ball at (1.0, 1.0)', ballNear(1.0, 1.0));
    await page.mouse.move(box.x + at.from.x, box.y + at.from.y);
    await page.mouse.down();
    await page.mouse.move(box.x + at.to.x, box.y + at.to.y, { steps: 15 });
    await page.mouse.up();
    let frame = null;
    try {
        frame = await seen;
    } catch (err) {
        const last = vision.frames.slice(-2).map((f) => JSON.stringify(f.balls)).join(' ');
        check('vision shows the dragged ball at (1.0, 1.0) within 0.01 m', false, `${err.message}; last: ${last}`);
    }
    if (frame) {
        const b = frame.balls.find((q) => Math.hypot(q[0] - 1, q[1] - 1) <= TOLERANCE_M);
        check('vision shows the dragged ball at (1.0, 1.0) within 0.01 m', true,
              `(${b[0].toFixed(4)}, ${b[1].toFixed(4)}) camera ${frame.camera}`);
        console.log(`     ball seen at (${b[0].toFixed(4)}, ${b[1].toFixed(4)}) by camera ${frame.camera}`);
        // and it stays there: the next frames of every camera that sees it
        const later = await vision.collect(500);
        const balls = later.flatMap((f) => f.balls);
        check('the ball rests there', balls.length > 0 && balls.every((q) => Math.hypot(q[0] - 1, q[1] - 1) <= TOLERANCE_M),
              JSON.stringify(balls.slice(0, 4)));
    }
    await page.waitForFunction(() => {
        const b = window.sslsimView.ball;
        return b && Math.hypot(b.x - 1, b.y - 1) <= 0.01;
    });
    check('the page draws the ball at (1.0, 1.0)', true);

    // ---- pause: t_capture stops -----------------------------------------
    const before = vision.newestCapture();
    const moving = await vision.waitFor('newer than before the pause', (f) => f.t_capture > before + 0.05);
    check('t_capture advances while running', moving.t_capture > before);
    await page.click('#btn-pause');
    await page.waitForFunction(() => document.getElementById('field').dataset.paused === 'true');
    const tPause = await page.evaluate(() => window.sslsimView.t);
    const during = await vision.collect(PAUSE_WATCH_MS);
    const newest = during.reduce((t, f) => Math.max(t, f.t_capture), 0);
    check(`t_capture stops while paused (${during.length} frames in ${PAUSE_WATCH_MS} ms)`,
          during.every((f) => f.t_capture <= tPause + 1e-3),
          `paused at t=${tPause}, newest t_capture ${newest}`);
    check('the page\'s sim time stands still', await page.evaluate(() => window.sslsimView.t) === tPause);
    check('the pause button offers Resume', (await page.textContent('#btn-pause')).trim() === 'Resume');

    // ---- step: one frame period further -----------------------------------
    // vision releases a frame a little after its capture instant, so the
    // frame a step brings may have been captured just before the pause: it
    // is newer than any seen, and then vision stands still again
    const seenBefore = vision.newestCapture();
    const stepped = vision.waitFor('after the step', (f) => f.t_capture > seenBefore);
    await page.click('#btn-step');
    try {
        const f = await stepped;
        check('a step brings the next frame', f.t_capture <= tPause + 0.05,
              `newest before ${seenBefore}, paused at ${tPause}, then ${f.t_capture}`);
        const after = await vision.collect(PAUSE_WATCH_MS / 2);
        const last = after.reduce((t, g) => Math.max(t, g.t_capture), f.t_capture);
        check('and t_capture stops again after it', last <= f.t_capture + 0.02,
              `${after.length} frames, t_capture up to ${last} after ${f.t_capture}`);
    } catch (err) {
        check('a step brings the next frame', false, err.message);
    }
    await page.waitForFunction((t) => window.sslsimView.t > t && window.sslsimView.paused, tPause);
    check('the page shows the step, still paused', true);

    // ---- resume ------------------------------------------------------------
    const tStep = await page.evaluate(() => window.sslsimView.t);
    const resumed = vision.waitFor('after resuming', (f) => f.t_capture > tStep + 0.5);
    await page.click('#btn-pause');
    await page.waitForFunction(() => document.getElementById('field').dataset.paused === 'false');
    try {
        await resumed;
        check('t_capture runs again after resume', true);
    } catch (err) {
        check('t_capture runs again after resume', false, err.message);
    }

    // ---- a refusal is shown ------------------------------------------------
    const refused = await page.evaluate(() => window.sslsimView.request('speed', { value: -1 }));
    check('a negative speed is refused', refused && refused.ok === false, JSON.stringify(refused));
    await page.waitForFunction(() => {
        const e = window.sslsimView.last_error;
        return e && e.op === 'speed' && [...document.querySelectorAll('#errors .error')]
            .some((el) => el.textContent.includes(e.code));
    });
    check('the refusal is on the page with its code', true);

    // ---- the page comes back by itself when the viewer restarts ----------
    const pidFile = path.join(dir, 'ssl-sim', 'viewer.pid');
    const viewerPid = fs.existsSync(pidFile) ? parseInt(fs.readFileSync(pidFile, 'utf8'), 10) : 0;
    if (check('the viewer wrote its pid file', viewerPid > 0, pidFile)) {
        const g0 = await page.evaluate(() => window.sslsimView.geometry_count);
        process.kill(viewerPid, 'SIGKILL');
        await page.waitForFunction((g) => window.sslsimView.geometry_count > g && window.sslsimView.connected
                                   && window.sslsimView.robots.length === 22, g0, { timeout: START_MS });
        check('after the viewer is killed and restarted the page reconnects and draws 22 robots', true);
    }
    // a restart asked for (the old viewer stops, telling its pages: close
    // code 1001, docs/viewer.md) brings the page back the same way
    {
        const g0 = await page.evaluate(() => window.sslsimView.geometry_count);
        const out = execFileSync(SIM, ['restart', 'viewer', '--config', path.join(dir, 'test.ini')],
                                 { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: dir } });
        check('ssl-sim restart viewer restarts it', /viewer restarted: pid \d+ -> \d+/.test(out), out.trim());
        await page.waitForFunction((g) => window.sslsimView.geometry_count > g && window.sslsimView.connected
                                   && window.sslsimView.robots.length === 22, g0, { timeout: START_MS });
        check('after `ssl-sim restart viewer` the page reconnects and draws 22 robots', true);
    }

    // ---- the status bar is filled ------------------------------------------
    await page.waitForFunction(() => document.getElementById('st-rtf').textContent !== '–'
                               && document.getElementById('st-vision').textContent.includes('pps'));
    check('the status bar shows RTF and vision rates', true);

    // ---- the protocol ports: the gateway's three and legacy-grsim's grSim port
    const grsim = ports[3];
    try {
        await page.waitForFunction((n) => [...document.querySelectorAll('#ports > div')].some(
            (d) => d.querySelector('.port-name')?.textContent === 'grsim' && d.textContent.includes(`:${n} `)),
        grsim, { timeout: WAIT_MS });
        const names = await page.$$eval('#ports .port-name', (els) => els.map((e) => e.textContent));
        check(`the port panel shows the grSim port ${grsim} beside the gateway's (${names.join(', ')})`,
              ['control', 'blue', 'yellow', 'grsim'].every((n) => names.includes(n)));
    } catch (err) {
        check(`the port panel shows the grSim port ${grsim}`, false,
              `${err.message}: ${await page.textContent('#ports')}`);
    }
    const metrics = await (await fetch(`${url}metrics`)).text();
    check(`/metrics counts the grSim port ${grsim}`,
          metrics.includes(`ssl_sim_datagrams_received_total{port="grsim",number="${grsim}"}`),
          metrics.split('\n').filter((l) => l.startsWith('ssl_sim_datagrams_received_total')).join(' | '));

    // ---- command->vision latency on the plot --------------------------------
    // a team's program: RobotControl to the blue port every 20 ms over UDP
    const team = spawn(PROBE, ['commands', String(ports[1])], { stdio: ['pipe', 'ignore', 'inherit'] });
    cleanups.push(async () => team.stdin.end());
    try {
        await page.waitForFunction(() => window.sslsimView.plot.latency_ms.length >= 2, null, { timeout: WAIT_MS });
        const lat = (await page.evaluate(() => window.sslsimView.plot)).latency_ms.map((s) => s.v);
        check(`the plot shows the command->vision latency (${lat.map((v) => v.toFixed(1)).join(', ')} ms)`,
              lat.every((v) => v > 0 && v < LATENCY_MAX_MS));
        check('the status bar shows the latency',
              (await page.textContent('#st-latency')).includes('ms'), await page.textContent('#st-latency'));
    } catch (err) {
        check('the plot shows the command->vision latency', false, err.message);
    }

    // ---- the inspector shows what the team sent ----------------------------
    // the probe above sends blue 0: forward 0.2 m/s, angular 1 rad/s, kick
    // 3 m/s at 0 degrees, dribbler 150 rpm, every 20 ms (floats on the wire:
    // compared to 1e-6)
    await page.evaluate(() => { document.getElementById('trails').click(); });
    const blue0 = await page.evaluate(() => {
        const r = window.sslsimView.robots.find((q) => q.team === 'blue' && q.id === 0);
        return r ? window.sslsimView.toCanvas(r.x, r.y) : null;
    });
    if (check('blue 0 is on the field', !!blue0)) {
        await page.mouse.click(box.x + blue0.x, box.y + blue0.y);
        try {
            await page.waitForFunction(() => {
                const i = window.sslsimView.inspector;
                return i && i.key === 'blue/0' && i.command && i.plot && i.plot.commanded >= 2 && i.plot.true >= 2
                    && /commands\/s/.test(i.text) && !/^– commands/m.test(i.text);
            }, null, { timeout: WAIT_MS });
            const ins = await page.evaluate(() => window.sslsimView.inspector);
            const c = ins.command;
            const near = (a, b) => Math.abs(a - b) <= 1e-6;
            check('the inspector shows the command blue sent robot 0 (local 0.2, 0, 1; kick 3 m/s at 0°; dribbler 150)',
                  c.move === 'local' && near(c.v[0], 0.2) && near(c.v[1], 0) && near(c.v[2], 1)
                  && near(c.kick_speed, 3) && near(c.kick_angle, 0) && near(c.dribbler, 150),
                  JSON.stringify(c));
            const rate = Number((/([0-9.]+) commands\/s/.exec(ins.text) || [])[1]);
            // the probe sends every 20 ms: 50 a second, counted over the page's last 2 s of worlds
            check(`the inspector counts the commands per second (${rate})`, rate > 25 && rate < 75, ins.text);
            check('the inspector plots commanded against true velocity', ins.plot.commanded >= 2 && ins.plot.true >= 2,
                  JSON.stringify(ins.plot));
            // three seconds of history: a picture with a trail and a plot worth showing
            await page.waitForFunction(() => window.sslsimView.trails && window.sslsimView.trails.points > 30
                                       && window.sslsimView.inspector?.plot?.span_s >= 3);
            check('trails are drawn over the last seconds', true);
            await page.screenshot({ path: SHOT_INSPECTOR });
        } catch (err) {
            check('the inspector shows the command blue sent robot 0', false,
                  `${err.message}: ${JSON.stringify(await page.evaluate(() => window.sslsimView.inspector))}`);
        }
    }

    // ---- the ball can be selected -------------------------------------------
    const ballAt = await page.evaluate(() => {
        const b = window.sslsimView.ball;
        return b ? window.sslsimView.toCanvas(b.x, b.y) : null;
    });
    if (check('the ball is drawn', !!ballAt)) {
        await page.mouse.click(box.x + ballAt.x, box.y + ballAt.y);
        try {
            await page.waitForFunction(() => {
                const i = window.sslsimView.inspector;
                return i && i.kind === 'ball' && /speed [0-9.]+ m\/s/.test(i.text) && /height/.test(i.text);
            }, null, { timeout: WAIT_MS });
            check('a click on the ball shows its position, speed and height', true);
        } catch (err) {
            check('a click on the ball shows its position, speed and height', false,
                  JSON.stringify(await page.evaluate(() => window.sslsimView.inspector)));
        }
    }

    // ---- the game state from a game controller on this machine -----------
    const gc = spawn(PROBE, ['referee', String(ports[9])], { stdio: ['pipe', 'ignore', 'inherit'] });
    cleanups.push(async () => gc.stdin.end());
    try {
        await page.waitForFunction(() => {
            const r = window.sslsimView.referee;
            return r && r.stage === 'NORMAL_FIRST_HALF' && r.command === 'BALL_PLACEMENT_BLUE'
                && r.blue.score === 2 && r.yellow.score === 1 && window.sslsimView.placement_drawn;
        }, null, { timeout: WAIT_MS });
        const bar = await page.textContent('#st-referee');
        check(`the status bar shows stage, command and score (${bar})`,
              bar.includes('NORMAL_FIRST_HALF') && bar.includes('BALL_PLACEMENT_BLUE') && bar.includes('blue 2 : 1 yellow'));
        const game = await page.textContent('#game');
        check('the game panel names the teams and the yellow card', game.includes('Blue Probes')
              && game.includes('Yellow Probes') && game.includes('yellow card 1:30'), game);
        const target = await page.evaluate(() => window.sslsimView.placement_drawn);
        // the target travels as float millimetres: 1500 and -1000 are exact
        check('the placement target is drawn at (1.5, -1.0) m', target.x === 1.5 && target.y === -1, JSON.stringify(target));
        await page.screenshot({ path: SHOT_GAME });
    } catch (err) {
        check('the page shows the referee\'s stage, command and score', false,
              `${err.message}: ${JSON.stringify(await page.evaluate(() => window.sslsimView.referee))}`);
    }

    // ---- 4 cameras, then 2: the old cameras' counts go -------------------
    const four = await page.evaluate(() => window.sslsimView.request('cameras', { count: 4 }));
    check('the page switches to 4 cameras', four && four.ok, JSON.stringify(four));
    try {
        await page.waitForFunction(() => document.getElementById('st-vision').textContent.includes('cam 3'));
        const two = await page.evaluate(() => window.sslsimView.request('cameras', { count: 2 }));
        check('and back to 2', two && two.ok, JSON.stringify(two));
        await page.waitForFunction(() => {
            const t = document.getElementById('st-vision').textContent;
            return t.includes('cam 1') && !t.includes('cam 2') && !t.includes('cam 3');
        });
        check('after 4 cameras then 2 the status bar counts cameras 0 and 1 only', true);
    } catch (err) {
        check('after 4 cameras then 2 the status bar counts cameras 0 and 1 only', false,
              `${err.message}: ${await page.textContent('#st-vision')}`);
    }

    // ---- the viewer is one sender on the control port ----------------------
    // The gateway lists the senders of its last 10 s; an op every status
    // keeps the viewer's fresh while the viewer killed above (a sender of
    // its own) ages out. A viewer sending each op from a new port would
    // fill the list instead.
    let control = null;
    for (let i = 0; i < 40; i++) {
        const n = await page.evaluate(() => window.sslsimView.status_count);
        await page.evaluate(() => window.sslsimView.request('teleport_ball', { x: 0, y: 0 }));
        await page.waitForFunction((k) => window.sslsimView.status_count > k + 1, n);
        control = (await page.evaluate(() => window.sslsimView.status_ports)).find((p) => p.name === 'control');
        if (control && control.sources.length === 1 && i >= 3)
            break;
    }
    check('the viewer\'s actions count as one sender on the control port',
          control && control.sources.length === 1, JSON.stringify(control));
    const vport = await page.evaluate(() => window.sslsimView.viewer_port);
    check(`and the port table marks it as this viewer (port ${vport})`,
          control && control.sources.length === 1 && control.sources[0] === `127.0.0.1:${vport}`
          && (await page.textContent('#ports')).includes(`127.0.0.1:${vport} (this viewer)`),
          await page.textContent('#ports'));

    // ---- the address with the token, as ssl-sim prints it ----------------
    // A viewer on loopback needs no token (docs/viewer.md "The door"), so
    // the page must still act with one; what is checked is that the page
    // takes it off the address bar, keeps it for this origin, and that
    // the viewer still takes its actions.
    const token = 'ab'.repeat(32);
    await page.goto('about:blank'); // else only the fragment changes, and the page is not loaded again
    await page.goto(`${url}#token=${token}`, { timeout: START_MS });
    await page.waitForFunction(() => window.sslsimView && window.sslsimView.connected, null, { timeout: START_MS });
    const kept = await page.evaluate(() => ({ hash: location.hash, stored: localStorage.getItem('sslsim.token') }));
    check('the page takes the token off the address and keeps it', kept.hash === '' && kept.stored === token,
          JSON.stringify(kept));
    const moved = await page.evaluate(() => window.sslsimView.request('teleport_ball', { x: -1, y: 0.5 }));
    check('the page with a token still acts', moved && moved.ok === true, JSON.stringify(moved));

    // a picture of the running simulator, not of the moment after resume
    await page.waitForFunction(() => Number(document.getElementById('st-rtf').textContent) > 0.5, null,
                               { timeout: 10000 }).catch(() => {});
    await page.screenshot({ path: SCREENSHOT });
    check(`screenshot saved (${SCREENSHOT})`, fs.existsSync(SCREENSHOT));
    check('no script errors on the page', scriptErrors.length === 0, scriptErrors.join(' | '));
}

await runTest(main, cleanups, 'the browser test ran to its end');
