// player.test.js BUILD - `ssl-sim play FILE` in a real browser, as a user
// gets there: runs the simulator (BUILD/bin/ssl-sim run) on free loopback
// ports, records its vision and a game controller's referee packets
// (sim_probe referee) with `ssl-sim record`, the ball moved by the
// simulator's page from A to B half-way; then plays the log with
// `ssl-sim play LOG` and opens the page it serves. Checks that the played
// packets still go on the wire, that the timeline is there with the log's
// length, that seeking while paused shows the ball where the log had it at
// that time (A before the move, B after), that jumping to the referee's
// next command shows the log's game state, that a step moves one frame,
// that the referee's marks (the placement, and the goal the probe is told
// to score half-way through the hold at B) are ticks under the bar at
// their fractions of the timeline and a click on one goes there, and
// saves BUILD/viewer-player.png (docs/viewer-player.png).
//
// Every wait watches a condition with a bound; none sleeps to let
// something happen. Exit status 0 when every check passed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { START_MS, TOLERANCE_M, WAIT_MS, check, must, writeIni, Vision, ballNear, stopSimulator, waitHttp, runTest,
         spawnLogged as spawnSim, waitLine, openPage, simTime, waitSimTime, setUp } from './support.js';

const BUILD = path.resolve(process.argv[2] || path.join(import.meta.dirname, '..', '..', 'build'));
const SIM = path.join(BUILD, 'bin', 'ssl-sim');
const PROBE = path.join(BUILD, 'tests', 'browser', 'sim_probe');
const SCREENSHOT = path.join(BUILD, 'viewer-player.png');
const A = [-2.0, -1.0];
const B = [2.0, 1.5];
const HOLD_S = 1.5;        // sim seconds the ball stays at each place while recording
// where the page's time may be after a seek: a frame period (13.6 ms) and
// the record's arrival stamps; the ball rests, so its place does not depend on it
const SEEK_TOLERANCE_S = 0.05;

const ALONE_MS = 3000; // a pause with no page plays on after this (VW_ALONE_US, services/viewer/vw_pages.h)
const cleanups = [];

// ssl-sim with its log in the test's directory (support.js)
const spawnLogged = (dir, name, args) => spawnSim(SIM, dir, name, args);

// ---- recording ----------------------------------------------------------------
// Returns {log, movedS, refereeS, goalS}: the log's path and, on its
// timeline (0 = its first record, about when the recorder said it
// listens), when the ball was moved to B, when the first referee packet
// was sent and when the game controller said blue scored.
async function recordLog (dir, ports, browser) {
    const ini = writeIni(dir, ports);
    const vision = `224.5.23.2:${ports[7]}`;
    const sim = spawnLogged(dir, 'run', ['run', '--config', ini, '--localhost', '--local-multicast',
                                         '--vision-addr', vision, '--viewer-addr', `127.0.0.1:${ports[8]}`,
                                         '--realism', 'none']);
    cleanups.push(async () => stopSimulator(sim));
    await waitHttp(`http://127.0.0.1:${ports[8]}/`, START_MS, sim.exited);
    const page = await openPage(browser, `http://127.0.0.1:${ports[8]}/`);
    await page.waitForFunction(() => window.sslsimView.robots.length === 22, null, { timeout: START_MS });
    const toA = await page.evaluate((p) => window.sslsimView.request('teleport_ball', { x: p[0], y: p[1] }), A);
    must('the ball is put at A before recording', toA && toA.ok, JSON.stringify(toA));
    await page.waitForFunction((p) => {
        const b = window.sslsimView.ball;
        return b && Math.hypot(b.x - p[0], b.y - p[1]) < 0.01;
    }, A);

    const log = path.join(dir, 'match.log');
    const rec = spawnLogged(dir, 'record', ['record', log, '--config', ini, '--localhost', '--local-multicast',
                                            '--vision-addr', vision]);
    cleanups.push(async () => stopSimulator(rec));
    await waitLine(rec, /^recording /, START_MS);
    const t0 = Date.now();
    await waitSimTime(page, (await simTime(page)) + HOLD_S);
    const toB = await page.evaluate((p) => window.sslsimView.request('teleport_ball', { x: p[0], y: p[1] }), B);
    must('the ball is moved to B while recording', toB && toB.ok, JSON.stringify(toB));
    const movedS = (Date.now() - t0) / 1000;
    const gc = spawn(PROBE, ['referee', String(ports[9])], { stdio: ['pipe', 'pipe', 'inherit'] });
    cleanups.push(async () => gc.stdin.end());
    const gcLines = readline.createInterface({ input: gc.stdout });
    await new Promise((resolve) => gcLines.once('line', resolve));
    const refereeS = (Date.now() - t0) / 1000;
    // half-way through the hold at B, blue scores: the game controller
    // says STOP with a new command counter and the score 3 : 1
    await waitSimTime(page, (await simTime(page)) + HOLD_S / 2);
    const scored = new Promise((resolve) => gcLines.once('line', resolve));
    gc.stdin.write('goal\n');
    const said = await scored;
    must('the game controller sent the goal', JSON.parse(said).goal === 3, said);
    const goalS = (Date.now() - t0) / 1000;
    await waitSimTime(page, (await simTime(page)) + HOLD_S / 2);
    gc.stdin.end();
    must('ssl-sim record ends cleanly on SIGTERM', await stopSimulator(rec) === 0);
    must('the simulator ends cleanly on SIGTERM', await stopSimulator(sim) === 0);
    await page.close();
    return { log, movedS, refereeS, goalS };
}

// ---- the test ------------------------------------------------------------------
async function main () {
    const { ports, dir, browser } = await setUp(SIM, PROBE, cleanups);

    const { log, movedS, refereeS, goalS } = await recordLog(dir, ports, browser);
    console.log(`     recorded ${log}: ball moved at ${movedS.toFixed(2)} s, referee from ${refereeS.toFixed(2)} s, `
                + `goal at ${goalS.toFixed(2)} s`);

    // ---- play it as a user does, with its page ---------------------------
    const vision = new Vision(PROBE, ports[7]);
    cleanups.push(async () => vision.close());
    await vision.ready;
    const ini = path.join(dir, 'test.ini');
    // --loop: the log is a few seconds long, and the page of a loaded
    // machine may open after its end (with no page open, play ends there)
    const play = spawnLogged(dir, 'play', ['play', log, '--loop', '--config', ini, '--localhost', '--local-multicast',
                                           '--vision-addr', `224.5.23.2:${ports[7]}`,
                                           '--viewer-addr', `127.0.0.1:${ports[10]}`]);
    cleanups.push(async () => {
        check('ssl-sim play ends cleanly on SIGTERM', await stopSimulator(play) === 0);
    });
    const wire = vision.waitFor('played from the log', (f) => f.balls.length > 0);
    await waitHttp(`http://127.0.0.1:${ports[10]}/`, START_MS, play.exited);
    const got = await wire;
    check('play sends the log\'s vision on the wire as before', ballNear(...A)(got) || ballNear(...B)(got),
          JSON.stringify(got.balls));

    const page = await openPage(browser, `http://127.0.0.1:${ports[10]}/`);
    await page.waitForFunction(() => window.sslsimView.player && window.sslsimView.vision_cameras.length > 0,
                               null, { timeout: START_MS });
    const player = await page.evaluate(() => window.sslsimView.player);
    const total = movedS + HOLD_S; // the ball held at B after the move, then the recorder stopped
    check('the timeline shows the log\'s length', player.duration > total - 0.5 && player.duration < total + 2,
          `${player.duration} s, recorded about ${total.toFixed(2)} s`);
    check('the timeline is shown', await page.isVisible('#timeline'));
    // ssl-sim record ends a plain log with the league's index: play opens
    // it through the index (docs/logs.md "Seeking")
    const said = fs.readFileSync(path.join(dir, 'play.txt'), 'utf8');
    check('play opened the recorded log through its index', /records, \d+ referee marks, through its index/.test(said),
          said.split('\n').filter((l) => l.includes('playing')).join(' '));
    check('a log shows no truth, only what vision saw',
          await page.evaluate(() => window.sslsimView.robots.length === 0 && window.sslsimView.ball === null));

    await page.click('#btn-pause');
    await page.waitForFunction(() => window.sslsimView.player.paused && window.sslsimView.paused);
    check('pause stops the player', true);

    // seek with the bar, as a user drags it
    const seek = async (t) => {
        await page.evaluate((v) => {
            const bar = document.getElementById('tl-seek');
            bar.value = String(v);
            bar.dispatchEvent(new Event('input'));
            bar.dispatchEvent(new Event('change'));
        }, t);
        await page.waitForFunction((v) => Math.abs(window.sslsimView.t - v) <= 0.05
                                   && window.sslsimView.vision_balls.length > 0, t);
        return page.evaluate(() => ({ t: window.sslsimView.t, balls: window.sslsimView.vision_balls }));
    };
    const near = (balls, p) => balls.some((b) => Math.hypot(b[0] - p[0], b[1] - p[1]) <= TOLERANCE_M);
    const tA = movedS / 2;
    const atA = await seek(tA);
    check(`seeking to ${tA.toFixed(2)} s shows the ball at A, where the log had it`, near(atA.balls, A)
          && Math.abs(atA.t - tA) <= SEEK_TOLERANCE_S, JSON.stringify(atA));
    const tB = movedS + HOLD_S / 2;
    const atB = await seek(tB);
    check(`seeking to ${tB.toFixed(2)} s shows the ball at B`, near(atB.balls, B) && !near(atB.balls, A),
          JSON.stringify(atB));
    const tBack = await seek(tA);
    check('seeking back shows A again', near(tBack.balls, A), JSON.stringify(tBack));

    // step: one vision frame, still paused
    const before = await page.evaluate(() => window.sslsimView.t);
    await page.click('#btn-step');
    await page.waitForFunction((t) => window.sslsimView.t > t, before);
    const after = await page.evaluate(() => ({ t: window.sslsimView.t, paused: window.sslsimView.player.paused }));
    check('step moves one frame and stays paused', after.t - before < 0.05 && after.paused,
          `${before} -> ${JSON.stringify(after)}`);

    // the referee's next command, and the log's game state
    check('no game state before the first referee packet',
          await page.evaluate(() => window.sslsimView.referee === null));
    const jumped = await page.evaluate(() => window.sslsimView.request('jump', { to: 'command' }));
    check('jump to the next referee command is answered', jumped && jumped.ok, JSON.stringify(jumped));
    await page.waitForFunction(() => window.sslsimView.referee !== null);
    const state = await page.evaluate(() => ({ t: window.sslsimView.t, player: window.sslsimView.player,
                                               referee: window.sslsimView.referee,
                                               bar: document.getElementById('st-referee').textContent }));
    const r = state.referee;
    check('the log\'s referee state is shown: stage, command, score, placement',
          r.stage === 'NORMAL_FIRST_HALF' && r.command === 'BALL_PLACEMENT_BLUE' && r.blue.score === 2
          && r.yellow.score === 1 && r.placement && Math.abs(r.placement.x - 1.5) < 1e-6, JSON.stringify(r));
    check('the jump lands where the referee began', Math.abs(state.player.t - refereeS) < 1.0,
          `${state.player.t} s, the probe began at about ${refereeS.toFixed(2)} s`);
    await page.waitForFunction(() => window.sslsimView.vision_balls.length > 0);
    await page.screenshot({ path: SCREENSHOT });
    check(`screenshot saved (${SCREENSHOT})`, fs.existsSync(SCREENSHOT));
    const toGoal = await page.evaluate(() => window.sslsimView.request('jump', { to: 'goal' }));
    check('jump to the next goal is answered', toGoal && toGoal.ok, JSON.stringify(toGoal));
    await page.waitForFunction(() => window.sslsimView.referee && window.sslsimView.referee.blue.score === 3);
    check('the jump to the goal lands where the game controller said it',
          Math.abs(await page.evaluate(() => window.sslsimView.player.t) - goalS) < 1.0);
    const noGoal = await page.evaluate(() => window.sslsimView.request('jump', { to: 'goal' }));
    check('a jump to a goal the log does not have is refused', noGoal && !noGoal.ok && noGoal.code === 'NOT_FOUND',
          JSON.stringify(noGoal));

    // the referee's marks as ticks under the bar: where on it, what they
    // say, and a click goes there
    await page.waitForFunction(() => document.querySelectorAll('#tl-marks .tl-mark').length >= 3);
    const ticks = await page.evaluate(() => {
        const bar = document.getElementById('tl-seek').getBoundingClientRect();
        return { duration: window.sslsimView.player.duration, bar: { left: bar.left, width: bar.width },
                 inset: parseFloat(getComputedStyle(document.getElementById('tl-marks')).marginLeft),
                 marks: [...document.querySelectorAll('#tl-marks .tl-mark')].map((e) => {
                     const r = e.getBoundingClientRect();
                     return { t: Number(e.dataset.t), title: e.title, goal: e.classList.contains('goal'),
                              x: r.left + r.width / 2 };
                 }) };
    });
    const expected = [{ t: refereeS, goal: false, says: 'BALL_PLACEMENT_BLUE' },
                      { t: goalS, goal: false, says: 'STOP' },
                      { t: goalS, goal: true, says: 'goal: blue 3 : 1 yellow' }];
    check('three ticks: the placement, the STOP of the goal and the goal', ticks.marks.length === 3,
          JSON.stringify(ticks.marks));
    // a tick sits where the bar's thumb centre is at its time: the track
    // of the thumb's centre is the bar less the inset at each end
    const track = ticks.bar.width - 2 * ticks.inset;
    expected.forEach((want, i) => {
        const m = ticks.marks[i];
        if (!m)
            return;
        const frac = (m.x - ticks.bar.left - ticks.inset) / track;
        check(`tick ${i} (${want.says}) is at ${(100 * m.t / ticks.duration).toFixed(1)}% of the timeline, `
              + `within half a pixel`, Math.abs(frac - m.t / ticks.duration) * track <= 0.5,
              `${(100 * frac).toFixed(2)}% of a ${track.toFixed(0)} px track`);
        check(`tick ${i} is when the test saw it happen (${want.t.toFixed(2)} s)`, Math.abs(m.t - want.t) < 1.0,
              `${m.t} s`);
        check(`tick ${i} says "${want.says}"`, m.goal === want.goal && m.title.includes(want.says), m.title);
    });
    const clickTick = async (sel, score) => {
        await page.click(sel);
        await page.waitForFunction((s) => window.sslsimView.referee && window.sslsimView.referee.blue.score === s
                                   && window.sslsimView.vision_balls.length > 0, score);
        return page.evaluate(() => ({ t: window.sslsimView.player.t, referee: window.sslsimView.referee }));
    };
    // from after the goal back to the placement, then forward to the goal
    const atPlacement = await clickTick('#tl-marks .tl-mark:first-child', 2);
    check('clicking the first tick goes to the placement', Math.abs(atPlacement.t - ticks.marks[0].t) <= SEEK_TOLERANCE_S
          && atPlacement.referee.command === 'BALL_PLACEMENT_BLUE', JSON.stringify(atPlacement));
    const atGoal = await clickTick('#tl-marks .tl-mark.goal', 3);
    check('clicking the goal\'s tick goes to the goal', Math.abs(atGoal.t - ticks.marks[2].t) <= SEEK_TOLERANCE_S
          && atGoal.referee.command === 'STOP', JSON.stringify(atGoal));
    const teleport = await page.evaluate(() => window.sslsimView.request('teleport_ball', { x: 0, y: 0 }));
    check('a log cannot be changed', teleport && !teleport.ok && teleport.code === 'UNSUPPORTED',
          JSON.stringify(teleport));
    // so the help lists only what works on a log: select, pause, step, zoom
    const help = await page.evaluate(() => document.querySelector('.help').innerText);
    check('the help lists no edit a log refuses', !help.includes('move it there') && !help.includes('turn it')
          && !help.includes('add a blue') && !help.includes('Del') && !help.includes('cancel adding')
          && help.includes('select and inspect') && help.includes('pause or resume') && help.includes('zoom'), help);

    // play on at 10x from the start, and see it move
    await seek(0.1);
    await page.click('#btn-pause');
    await page.waitForFunction(() => !window.sslsimView.player.paused);
    const t1 = await page.evaluate(() => window.sslsimView.t);
    await page.waitForFunction((t) => window.sslsimView.t > t + 0.5, t1);
    check('resume plays on', true);
    await page.click('#btn-pause');
    await page.waitForFunction(() => window.sslsimView.player.paused);
    await seek(tB);
    await page.waitForFunction(() => window.sslsimView.referee !== null);
    check('a seek shows the referee state at that time', true);
    check('no script errors on the page', page.errors.length === 0, page.errors.join(' | '));

    // the page leaves its pause behind (the tab closed): after ALONE_MS
    // with no page the log plays on, as it would have without one (here
    // looping; without --loop it would end), so a script is not left hanging
    await page.close();
    const closed = Date.now();
    let frames = 0;
    const flowing = await vision.waitFor('after the page left', () => ++frames >= 10, ALONE_MS + WAIT_MS)
        .then(() => true, () => false);
    check('a log the page paused and left plays on after a while with no page', flowing
          && Date.now() - closed >= ALONE_MS - 500, `${frames} frames in ${Date.now() - closed} ms`);
}

await runTest(main, cleanups, 'the browser test of the player ran to its end');
