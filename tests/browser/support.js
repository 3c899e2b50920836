// support.js - what the browser tests share (viewer.test.js, player.test.js,
// replay.test.js): the ok/FAIL lines and their count, the simulator's test
// configuration on free loopback ports, vision over UDP through sim_probe,
// ssl-sim started with its log in the test's directory, a process stopped
// by SIGTERM, an HTTP wait, Debian's chromium through playwright-core and
// a page opened in it.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const START_MS = 60000;      // simulator and browser up, on a loaded machine
export const WAIT_MS = 30000;       // any one thing the test waits for
export const TOLERANCE_M = 0.01;    // the issue's: vision shows the ball within 1 cm

export const results = { passed: 0, failed: 0 };

export function check (name, ok, detail = '') {
    if (ok) {
        results.passed++;
        console.log(`ok   ${name}`);
    } else {
        results.failed++;
        console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`);
    }
    return ok;
}

// a test step that must hold for the rest to make sense
export function must (name, ok, detail) {
    if (!check(name, ok, detail))
        throw new Error(`cannot go on after: ${name}`);
}

// The test configuration in DIR/test.ini from ten free ports (control, blue,
// yellow, legacy, its two status ports, truth, vision, viewer, referee); its path.
export function writeIni (dir, ports) {
    const [control, blue, yellow, legacy, statusBlue, statusYellow, truth, , , referee] = ports;
    const ini = path.join(dir, 'test.ini');
    fs.writeFileSync(ini, ['[network]', 'bind_address = 127.0.0.1', `control_port = ${control}`,
                           `blue_port = ${blue}`, `yellow_port = ${yellow}`, `legacy_port = ${legacy}`,
                           `legacy_status_port_blue = ${statusBlue}`,
                           `legacy_status_port_yellow = ${statusYellow}`, `truth_port = ${truth}`,
                           // the league's referee group on a port of this test's own, so a
                           // game controller (or another test) elsewhere on the machine is
                           // not heard; --localhost keeps it on the loopback interface
                           `referee_addr = 224.5.23.1:${referee}`,
                           // t_capture in sim seconds, comparable with the page's sim time
                           '[vision]', 'timestamp_base = zero', ''].join('\n'));
    return ini;
}

// ---- the simulator's vision, through sim_probe ------------------------------
export class Vision {
    constructor (probe, port) {
        this.proc = spawn(probe, ['vision', String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
        this.frames = [];
        this.waiters = new Set();
        this.ready = new Promise((resolve, reject) => {
            this.proc.once('exit', (code) => reject(new Error(`sim_probe exited (${code})`)));
            readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
                let msg;
                try {
                    msg = JSON.parse(line);
                } catch {
                    return;
                }
                if (msg.listening) {
                    resolve();
                    return;
                }
                this.frames.push(msg);
                if (this.frames.length > 5000)
                    this.frames.splice(0, 1000);
                for (const w of [...this.waiters])
                    w(msg);
            });
        });
    }

    // the first frame from now on for which pred holds, or an error after ms
    waitFor (what, pred, ms = WAIT_MS) {
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiters.delete(onFrame);
                reject(new Error(`no vision frame ${what} within ${ms} ms`));
            }, ms);
            const onFrame = (f) => {
                if (!pred(f))
                    return;
                clearTimeout(timer);
                this.waiters.delete(onFrame);
                resolve(f);
            };
            this.waiters.add(onFrame);
        });
    }

    // every frame that arrives in the next ms
    collect (ms) {
        return new Promise((resolve) => {
            const got = [];
            const onFrame = (f) => got.push(f);
            this.waiters.add(onFrame);
            setTimeout(() => {
                this.waiters.delete(onFrame);
                resolve(got);
            }, ms);
        });
    }

    newestCapture () {
        return this.frames.reduce((t, f) => Math.max(t, f.t_capture), 0);
    }

    close () {
        this.proc.stdin.end();
    }
}

export const ballNear = (x, y) => (f) => f.balls.some((b) => Math.hypot(b[0] - x, b[1] - y) <= TOLERANCE_M);

// ---- ssl-sim and its pages ---------------------------------------------------
// `sim ARGS` with its stderr in DIR/NAME.txt and the runtime directory in
// DIR; proc.exited resolves with its signal or status, proc.lines reads stdout.
export function spawnLogged (sim, dir, name, args) {
    const log = fs.openSync(path.join(dir, `${name}.txt`), 'a');
    const proc = spawn(sim, args, { stdio: ['ignore', 'pipe', log], env: { ...process.env, XDG_RUNTIME_DIR: dir } });
    fs.closeSync(log);
    proc.exited = new Promise((resolve) => proc.once('exit', (code, sig) => resolve(sig || code)));
    proc.lines = readline.createInterface({ input: proc.stdout });
    return proc;
}

// the first line of proc's stdout that matches re, or an error after ms
export function waitLine (proc, re, ms) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line ${re} within ${ms} ms`)), ms);
        proc.lines.on('line', (line) => {
            if (re.test(line)) {
                clearTimeout(timer);
                resolve(line);
            }
        });
        proc.exited.then((how) => reject(new Error(`exited (${how}) before ${re}`)));
    });
}

// every DIR/*.txt (the logs spawnLogged wrote) on stdout
export function showLogs (dir) {
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.txt')))
        process.stdout.write(`---- ${f} ----\n${fs.readFileSync(path.join(dir, f), 'utf8')}\n`);
}

// a new page at url, its script errors collected in page.errors
export async function openPage (browser, url) {
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.errors = [];
    page.on('pageerror', (err) => page.errors.push(err.message));
    page.on('console', (m) => m.type() === 'error' && page.errors.push(m.text()));
    await page.goto(url, { timeout: START_MS });
    return page;
}

// the time of the world the page drew, and a wait until it reaches t
export const simTime = (page) => page.evaluate(() => window.sslsimView.t);

export async function waitSimTime (page, t) {
    await page.waitForFunction((want) => window.sslsimView.t >= want, t, { timeout: WAIT_MS });
}

// Seek with the timeline's bar as a user drags it, then wait in the page
// until a world within `tolerance` s of t is drawn (at most ms); resolves
// with the milliseconds from the op to that frame (the page's clock).
export async function seekBar (page, t, tolerance, ms = WAIT_MS) {
    return page.evaluate(async ([v, tol, limit]) => {
        const bar = document.getElementById('tl-seek');
        const t0 = performance.now();
        bar.value = String(v);
        bar.dispatchEvent(new Event('input'));
        bar.dispatchEvent(new Event('change'));
        await new Promise((resolve, reject) => {
            const look = () => {
                if (Math.abs(window.sslsimView.t - v) <= tol)
                    resolve();
                else if (performance.now() - t0 > limit)
                    reject(new Error(`the page shows ${window.sslsimView.t} s ${limit} ms after a seek to ${v} s`));
                else
                    requestAnimationFrame(look);
            };
            look();
        });
        return performance.now() - t0;
    }, [t, tolerance, ms]);
}

export async function stopSimulator (proc) {
    if (proc.exitCode !== null || proc.signalCode !== null)
        return proc.signalCode || proc.exitCode;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10000);
    const how = await proc.exited;
    clearTimeout(timer);
    return how;
}

// GET url until it answers 200 or ms pass (the viewer binds a moment after
// the launcher starts); resolves with the body
export async function waitHttp (url, ms, simExited) {
    const end = Date.now() + ms;
    let last = '';
    while (Date.now() < end) {
        const got = await new Promise((resolve) => {
            const req = http.get(url, (res) => {
                let body = '';
                res.on('data', (d) => { body += d; });
                res.on('end', () => resolve({ status: res.statusCode, body }));
            });
            req.on('error', (err) => resolve({ error: err.message }));
            req.setTimeout(5000, () => req.destroy(new Error('timeout')));
        });
        if (got.status === 200)
            return got.body;
        last = got.error || `HTTP ${got.status}`;
        // a refused connection answers at once: wait for the simulator to
        // exit or a short while before asking again
        const exited = await Promise.race([simExited.then(() => true),
                                           new Promise((r) => setTimeout(() => r(false), 100))]);
        if (exited)
            throw new Error(`ssl-sim exited before the viewer answered (${last})`);
    }
    throw new Error(`${url} did not answer within ${ms} ms (${last})`);
}

// Debian's chromium, headless, with a fresh profile (removed by the cleanup
// this returns with the browser).
export async function launchBrowser (os) {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ssl-sim-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1600, height: 1000 },
        timeout: START_MS,
    });
    const close = async () => {
        await browser.close();
        fs.rmSync(profile, { recursive: true, force: true });
    };
    return { browser, close };
}

// What a test that records and plays something needs first: the
// programs (sim, probe, the browser), eleven free test ports, a fresh
// directory (its logs shown at a failure or with SIM_TEST_LOG=1, then
// removed) and the browser, their cleanups pushed on `cleanups`.
export async function setUp (sim, probe, cleanups) {
    for (const f of [sim, probe, CHROMIUM])
        must(`${f} exists`, fs.existsSync(f), 'build first (make all) / install chromium (scripts/deps.sh)');
    const ports = execFileSync(probe, ['ports', '11'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    must('eleven free test ports', ports.length === 11 && ports.every((p) => p > 0), ports.join(' '));
    const dir = fs.mkdtempSync('/tmp/ssl-sim-test-');
    cleanups.push(async () => {
        if (results.failed || process.env.SIM_TEST_LOG)
            showLogs(dir);
        fs.rmSync(dir, { recursive: true, force: true });
    });
    const { browser, close } = await launchBrowser(os);
    cleanups.push(close);
    return { ports, dir, browser };
}

// Run main, then every cleanup (last pushed first, also on SIGINT and
// SIGTERM); print "browser: N passed, N failed" and exit non-zero on any
// failure.
export async function runTest (main, cleanups, name) {
    const cleanup = async () => {
        while (cleanups.length) {
            try {
                await cleanups.pop()();
            } catch (err) {
                check('clean up', false, err.message);
            }
        }
    };
    for (const sig of ['SIGINT', 'SIGTERM'])
        process.on(sig, async () => {
            results.failed++;
            await cleanup();
            process.exit(1);
        });
    try {
        await main();
    } catch (err) {
        check(name, false, err.stack || err.message);
    }
    await cleanup();
    console.log(`browser: ${results.passed} passed, ${results.failed} failed`);
    process.exit(results.failed ? 1 : 0);
}
