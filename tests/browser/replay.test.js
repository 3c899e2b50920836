// replay.test.js BUILD - `ssl-sim replay JOURNAL` in a real browser, as a
// user gets there: runs the simulator (BUILD/bin/ssl-sim run --journal,
// docs/logs.md) on free loopback ports and, with its page, puts the ball
// at A and later moves it to B; then replays the journal with
// `ssl-sim replay JOURNAL` and opens the page it serves. Checks that the
// replay's vision goes on the wire, that the timeline is there with the
// run's length, that seeking while paused shows the field at that time
// (the ball at A, then at B, then at A again, the same world and the same
// packets on the wire both times; the page draws the frames the wire
// carried, whether the newest of them caught the ball or lost it),
// that a step moves one frame, that the replay cannot be changed, and
// that after the seeks the packets on the wire show the field of the new
// time; saves BUILD/viewer-replay.png (docs/viewer-replay.png) and prints
// how long each seek took from the op to the frame drawn.
//
// Every wait watches a condition with a bound; none sleeps to let
// something happen. Exit status 0 when every check passed.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { START_MS, TOLERANCE_M, WAIT_MS, check, must, writeIni, Vision, stopSimulator, waitHttp, runTest, spawnLogged,
         openPage, simTime, waitSimTime, seekBar, setUp } from './support.js';

const BUILD = path.resolve(process.argv[2] || path.join(import.meta.dirname, '..', '..', 'build'));
const SIM = path.join(BUILD, 'bin', 'ssl-sim');
const PROBE = path.join(BUILD, 'tests', 'browser', 'sim_probe');
const SCREENSHOT = path.join(BUILD, 'viewer-replay.png');
const A = [-2.0, -1.0];
const B = [2.0, 1.5];
const HOLD_S = 1.5;        // sim seconds the ball stays at each place while recording
// where the page's time may be after a seek: the snapshot published at the
// seek is of the substep asked for (1 ms); the bar moves in steps of 10 ms,
// so the times sought are on that grid
const SEEK_TOLERANCE_S = 0.001;
const onBar = (t) => Math.round(t * 100) / 100;
// The replay's pace while the test opens its page: a quarter of the run's,
// so a loaded machine's browser connects long before the end (a replay
// with no page open ends at its end, as `ssl-sim replay` always did)
const SPEED = 0.25;
const ALONE_MS = 3000;     // a pause with no page plays on after this (VW_ALONE_US, services/viewer/vw_pages.h)
// how far the default realism's cameras may put the ball from the truth
// (calibration warp, marker parallax, noise): the system tests' bound
const CAMERA_TOLERANCE_M = Number(execFileSync(PROBE, ['tolerance'], { encoding: 'utf8' }));

const cleanups = [];

const dist = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
// the truth is checked to 1 cm; a camera's ball to CAMERA_TOLERANCE_M
const near = (p, q) => p && dist(p, q) <= TOLERANCE_M;
const seenAt = (balls, p) => balls.some((b) => dist(b, p) <= CAMERA_TOLERANCE_M);
const ballOf = (page) => page.evaluate(() => {
    const b = window.sslsimView.ball;
    return b ? [b.x, b.y] : null;
});

// ---- recording ----------------------------------------------------------------
// Returns {journal, atA, atB}: the journal's path and the sim times at
// which the page saw the ball at A and at B.
async function recordJournal (dir, ports, browser) {
    const ini = writeIni(dir, ports);
    const journal = path.join(dir, 'match.journal');
    const sim = spawnLogged(SIM, dir, 'run', ['run', '--config', ini, '--localhost', '--local-multicast',
                                              '--vision-addr', `224.5.23.2:${ports[7]}`,
                                              '--viewer-addr', `127.0.0.1:${ports[8]}`, '--journal', journal]);
    cleanups.push(async () => stopSimulator(sim));
    await waitHttp(`http://127.0.0.1:${ports[8]}/`, START_MS, sim.exited);
    const page = await openPage(browser, `http://127.0.0.1:${ports[8]}/`);
    await page.waitForFunction(() => window.sslsimView.robots.length === 22, null, { timeout: START_MS });
    const place = async (p, name) => {
        const r = await page.evaluate((q) => window.sslsimView.request('teleport_ball', { x: q[0], y: q[1] }), p);
        must(`the ball is put at ${name} while the journal is kept`, r && r.ok, JSON.stringify(r));
        await page.waitForFunction((q) => {
            const b = window.sslsimView.ball;
            return b && Math.hypot(b.x - q[0], b.y - q[1]) < 0.001;
        }, p);
        return simTime(page);
    };
    const atA = await place(A, 'A');
    await waitSimTime(page, atA + HOLD_S);
    const atB = await place(B, 'B');
    await waitSimTime(page, atB + HOLD_S);
    await page.close();
    must('the simulator ends cleanly on SIGTERM', await stopSimulator(sim) === 0);
    return { journal, atA, atB };
}

// ---- the test ------------------------------------------------------------------
async function main () {
    const { ports, dir, browser } = await setUp(SIM, PROBE, cleanups);

    const { journal, atA, atB } = await recordJournal(dir, ports, browser);
    console.log(`     recorded ${journal}: the ball at A from ${atA.toFixed(3)} s, at B from ${atB.toFixed(3)} s`);

    // ---- replay it as a user does, with its page --------------------------
    const vision = new Vision(PROBE, ports[7]);
    cleanups.push(async () => vision.close());
    await vision.ready;
    const ini = path.join(dir, 'test.ini');
    const replay = spawnLogged(SIM, dir, 'replay', ['replay', journal, '--config', ini, '--localhost',
                                                    '--local-multicast', '--vision-addr', `224.5.23.2:${ports[7]}`,
                                                    '--viewer-addr', `127.0.0.1:${ports[10]}`,
                                                    '--speed', String(SPEED)]);
    cleanups.push(async () => {
        check('ssl-sim replay ends cleanly on SIGTERM', await stopSimulator(replay) === 0);
    });
    const wire = vision.waitFor('replayed', (f) => f.balls.length > 0);
    await waitHttp(`http://127.0.0.1:${ports[10]}/`, START_MS, replay.exited);
    const page = await openPage(browser, `http://127.0.0.1:${ports[10]}/`);
    await page.waitForFunction(() => window.sslsimView.player && window.sslsimView.robots.length === 22,
                               null, { timeout: START_MS });
    await page.click('#btn-pause');
    await page.waitForFunction(() => window.sslsimView.player.paused && window.sslsimView.paused);
    check('pause stops the replay', true);
    const got = await wire;
    check('the replay sends its vision on the wire, as without the page', got.balls.length > 0,
          JSON.stringify(got.balls));
    const player = await page.evaluate(() => window.sslsimView.player);
    const total = atB + HOLD_S;
    check('the timeline shows the run\'s length', player.duration >= total - 0.2 && player.duration < total + 2,
          `${player.duration} s, the run went to about ${total.toFixed(2)} s`);
    check('the timeline is shown', await page.isVisible('#timeline'));
    check('a journal has no referee command or goal to jump to',
          await page.isDisabled('#tl-next-command') && await page.isDisabled('#tl-next-goal'));

    // seek with the bar, as a user drags it: the op, then the world of
    // that time drawn with the cameras' frames of that time. `mark` is
    // where the wire's frames of this seek begin (the replay is paused, so
    // nothing else is sent meanwhile); the page is done when it draws, for
    // every camera that sent something since, a frame the wire carried too,
    // captured no later than the time sought.
    const seek = async (t) => {
        const mark = vision.frames.length;
        const took = await seekBar(page, t, SEEK_TOLERANCE_S);
        const wire = () => vision.frames.slice(mark).filter((f) => f.t_capture <= t + SEEK_TOLERANCE_S);
        const end = Date.now() + WAIT_MS;
        for (;;) {
            const drawn = await page.evaluate(() => window.sslsimView.vision_frames);
            const sent = wire();
            const cameras = new Set(sent.map((f) => f.camera));
            const onWire = (d) => sent.find((f) => f.camera === d.camera && f.frame === d.frame);
            if (sent.length && drawn.length === cameras.size && drawn.every(onWire))
                break;
            if (Date.now() > end)
                throw new Error(`the page draws ${JSON.stringify(drawn)} ${WAIT_MS} ms after a seek to ${t} s, `
                                + `the wire carried ${JSON.stringify(sent.map((f) => [f.camera, f.frame]))}`);
            await page.waitForTimeout(10); // a poll of the condition above, bounded by WAIT_MS
        }
        const w = await page.evaluate(() => ({ t: window.sslsimView.t, ball: window.sslsimView.ball,
                                               seen: window.sslsimView.vision_balls,
                                               drawn: window.sslsimView.vision_frames,
                                               robots: window.sslsimView.robots.map((r) => [r.x, r.y]) }));
        return { ...w, took, wire: wire() };
    };
    // the cameras saw the ball at p: a detection within the default
    // realism's calibration bound of it in a frame of the seek's pre-roll
    // (a ghost ball lands uniformly anywhere on the field)
    const camerasSaw = (s, p) => s.wire.some((f) => seenAt(f.balls, p));
    // the page draws what the cameras sent: each frame's balls as on the wire
    const drawsTheWire = (s) => {
        const sent = s.drawn.flatMap((d) => s.wire.find((f) => f.camera === d.camera && f.frame === d.frame).balls);
        return sent.length === s.seen.length && sent.every((b, i) => dist(b, s.seen[i]) < 1e-4);
    };
    // A seek near t0 whose pre-roll the cameras saw the ball in: the
    // default realism loses the ball in bursts (mean 2.6 frames, starting
    // at 1.55 % of frames), and the pre-roll's six or seven frames of the
    // camera over p are all lost about once in a thousand seeks. Each seek
    // restarts the cameras, so the next candidate, 50 ms on, is a fresh
    // draw; five misses in a row is a broken replay, not bad luck.
    const seekSeeing = async (t0, p) => {
        let s;
        for (let k = 0; k < 5; k++) {
            const t = onBar(t0 + 0.05 * k);
            s = { ...(await seek(t)), sought: t };
            if (camerasSaw(s, p))
                return s;
        }
        return s;
    };
    const first = await seekSeeing((atA + atB) / 2, A);
    const tA = first.sought;
    check(`seeking to ${tA.toFixed(2)} s shows the field then: the ball at A, as the cameras saw it`,
          Math.abs(first.t - tA) <= SEEK_TOLERANCE_S && near([first.ball.x, first.ball.y], A)
          && camerasSaw(first, A) && drawsTheWire(first), JSON.stringify(first));
    const second = await seekSeeing(atB + HOLD_S / 2, B);
    const tB = second.sought;
    check(`seeking on to ${tB.toFixed(2)} s shows the ball at B, as the cameras saw it`,
          Math.abs(second.t - tB) <= SEEK_TOLERANCE_S && near([second.ball.x, second.ball.y], B)
          && camerasSaw(second, B) && drawsTheWire(second), JSON.stringify(second));
    const again = await seek(tA);
    // every frame both seeks' pre-rolls carried, the same packet both times
    // (the page may be done a frame earlier one time than the other)
    const both = first.wire.filter((f) => again.wire.some((g) => g.camera === f.camera && g.frame === f.frame));
    const same = both.every((f) => JSON.stringify(f) === JSON.stringify(
        again.wire.find((g) => g.camera === f.camera && g.frame === f.frame)));
    check('seeking back sends the same packets on the wire as the first time',
          same && both.length >= 4 && camerasSaw(again, A),
          `${both.length} frames in both: ${JSON.stringify(first.wire)} then ${JSON.stringify(again.wire)}`);
    const sameFrames = JSON.stringify(again.drawn) === JSON.stringify(first.drawn);
    check('seeking back shows A again, the same world as the first time',
          again.t === first.t && JSON.stringify(again.ball) === JSON.stringify(first.ball)
          && JSON.stringify(again.robots) === JSON.stringify(first.robots)
          && (!sameFrames || JSON.stringify(again.seen) === JSON.stringify(first.seen)) && drawsTheWire(again),
          `${JSON.stringify(again)}`);
    console.log(`     seek, op to frame drawn: ${[first, second, again].map((s) => s.took.toFixed(0)).join(', ')} ms`);
    const early = await seek(onBar(atA / 2));
    check('before the ball was put at A, it is not there', !near([early.ball.x, early.ball.y], A),
          JSON.stringify(early.ball));
    await seek(tA);

    // step: one camera frame, still paused
    const before = await simTime(page);
    await page.click('#btn-step');
    await page.waitForFunction((t) => window.sslsimView.t > t, before);
    const after = await page.evaluate(() => ({ t: window.sslsimView.t, paused: window.sslsimView.player.paused }));
    check('step moves one frame and stays paused', after.t - before < 0.05 && after.paused,
          `${before} -> ${JSON.stringify(after)}`);

    const teleport = await page.evaluate(() => window.sslsimView.request('teleport_ball', { x: 0, y: 0 }));
    check('a replay cannot be changed', teleport && !teleport.ok && teleport.code === 'UNSUPPORTED',
          JSON.stringify(teleport));
    const jump = await page.evaluate(() => window.sslsimView.request('jump', { to: 'command' }));
    check('a jump to a referee command is refused', jump && !jump.ok && jump.code === 'NOT_FOUND',
          JSON.stringify(jump));

    // a seek outside the journal is clamped to it, as a log's is: before
    // the start to the start, far past the end (1e300 s) to the end
    const seekTo = async (t, where, landedFn) => {
        const r = await page.evaluate((t) => window.sslsimView.request('seek', { t }), t);
        const landed = !!(r && r.ok) && await page.waitForFunction(landedFn, null, { timeout: WAIT_MS })
            .then(() => true, () => false);
        const player = await page.evaluate(() => window.sslsimView.player);
        check(`a seek to ${t} s lands at ${where} of the journal`, landed,
              `${JSON.stringify(r)} ${JSON.stringify(player)}`);
    };
    await seekTo(-5, 'the start', () => window.sslsimView.player.t < 0.01);
    await seekTo(1e300, 'the end',
                 () => Math.abs(window.sslsimView.player.t - window.sslsimView.player.duration) < 0.01);
    await seek(tA);
    await page.waitForFunction(() => window.sslsimView.vision_cameras.length > 0);
    await page.screenshot({ path: SCREENSHOT });
    check(`screenshot saved (${SCREENSHOT})`, fs.existsSync(SCREENSHOT));

    // play on from A at twice the run's pace: the wire shows A at the new time
    const speed = await page.evaluate(() => window.sslsimView.request('speed', { value: 2 }));
    check('the speed is set', speed && speed.ok, JSON.stringify(speed));
    const fromT = await simTime(page);
    const onWire = vision.waitFor('of the time sought', (f) => f.t_capture >= fromT && seenAt(f.balls, A));
    await page.click('#btn-pause');
    await page.waitForFunction(() => !window.sslsimView.player.paused);
    const sent = await onWire;
    check('after the seeks the wire carries the field of the time sought', sent.t_capture < fromT + 1,
          `t_capture ${sent.t_capture}, resumed at ${fromT}`);
    await page.waitForFunction((t) => window.sslsimView.t > t + 0.2, fromT);
    const state = await page.evaluate(() => window.sslsimView.player);
    check('resume plays on at the speed set', !state.paused && state.speed === 2, JSON.stringify(state));
    check('no script errors on the page', page.errors.length === 0, page.errors.join(' | '));

    // a pause the page leaves behind (paused, then the tab closed): after
    // ALONE_MS with no page the replay plays on, as it would have without
    // one, and ends with its journal by itself (a script is not left hanging)
    await page.click('#btn-pause');
    await page.waitForFunction(() => window.sslsimView.player.paused);
    const left = await page.evaluate(() => window.sslsimView.player);
    await page.close();
    const limit = ALONE_MS + 1000 * (left.duration - left.t) / left.speed + WAIT_MS;
    const ended = await Promise.race([replay.exited, new Promise((resolve) => setTimeout(resolve, limit, 'still running'))]);
    check('a replay the page paused and left plays on and ends by itself (status 0)', ended === 0,
          `${ended} after ${limit} ms; the page left it at ${JSON.stringify(left)}`);
}

await runTest(main, cleanups, 'the browser test of the replay ran to its end');
