// replay_page.js BUILD [RESULTS_FILE] [--seconds N] [--journal FILE] - how
// long a jump in `ssl-sim replay JOURNAL` takes through the whole path
// (issue 27: "a jump into a 30-minute journal takes under a second"): the
// page's seek op, the viewer, the ReplayControl request on the replay's
// bus, physics taking the world from its checkpoints and running the
// pre-roll, vision's frames, the world sent to the page and drawn.
//
// Records a journal as a user would (`ssl-sim run --mode fast --journal F
// --duration N`, N wall seconds of fast mode: tens of sim minutes, a team's
// program, build/tests/browser/sim_probe commands, driving blue robot 0 the
// whole time), or takes --journal FILE; replays it with its page in
// Debian's chromium (headless, playwright-core from tests/browser), pauses,
// jumps once at once (while the checkpoints are still being built), waits
// for the checkpoints, then jumps to 20 places (seeded) and measures each
// from the op to the frame of that time drawn (the page's clock; the page
// draws at the browser's frame rate, so this includes up to one frame of
// it). Writes bench/results/replay-page.txt (or RESULTS_FILE), prints it.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeIni, waitHttp, stopSimulator, launchBrowser, spawnLogged, openPage,
         seekBar } from '../tests/browser/support.js';

const args = process.argv.slice(2);
const BUILD = path.resolve(args[0] || 'build');
const RESULTS = args[1] && !args[1].startsWith('--') ? args[1]
    : path.join(import.meta.dirname, 'results', 'replay-page.txt');
const opt = (name, def) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : def);
const SECONDS = Number(opt('--seconds', 12));
const GIVEN = opt('--journal', null);
const SIM = path.join(BUILD, 'bin', 'ssl-sim');
const PROBE = path.join(BUILD, 'tests', 'browser', 'sim_probe');
const JUMPS = 20;

const ports = execFileSync(PROBE, ['ports', '10'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
const dir = fs.mkdtempSync('/tmp/ssl-sim-bench-');
const ini = writeIni(dir, ports);
let journal = GIVEN ? path.resolve(GIVEN) : path.join(dir, 'match.journal');
if (!GIVEN) {
    const rec = spawnLogged(SIM, dir, 'run', ['run', '--mode', 'fast', '--config', ini, '--localhost', '--no-viewer',
                                              '--vision-addr', `127.0.0.1:${ports[7]}`, '--journal', journal,
                                              '--duration', String(SECONDS)]);
    const team = spawn(PROBE, ['commands', String(ports[1])], { stdio: ['pipe', 'ignore', 'inherit'] });
    const how = await rec.exited;
    team.stdin.end();
    if (how !== 0)
        throw new Error(`the recording run failed: ${fs.readFileSync(path.join(dir, 'run.txt'), 'utf8')}`);
}

const replay = spawnLogged(SIM, dir, 'replay', ['replay', journal, '--config', ini, '--localhost',
                                                '--vision-addr', `127.0.0.1:${ports[7]}`,
                                                '--viewer-addr', `127.0.0.1:${ports[8]}`]);
const t0 = Date.now();
await waitHttp(`http://127.0.0.1:${ports[8]}/`, 60000, replay.exited);
const { browser, close } = await launchBrowser(os);
const page = await openPage(browser, `http://127.0.0.1:${ports[8]}/`);
await page.waitForFunction(() => window.sslsimView.player && window.sslsimView.robots.length > 0, null,
                           { timeout: 60000 });
await page.click('#btn-pause');
await page.waitForFunction(() => window.sslsimView.player.paused);
const duration = await page.evaluate(() => window.sslsimView.player.duration);
const onBar = (t) => Math.round(t * 100) / 100;
const TOL = 0.001; // the snapshot of the substep asked for

// one jump at once, near the end, while the checkpoints are being built
const builtCold = await page.evaluate(() => window.sslsimView.player.built);
const cold = await seekBar(page, onBar(duration * 0.95), TOL, 120000);

// the checkpoints to the end (the status says how far they go)
await page.waitForFunction((d) => window.sslsimView.player.built >= d - 0.01, duration, { timeout: 600000 });
const builtS = (Date.now() - t0) / 1000;

// 20 jumps to places a seeded generator picks (the same on every run)
let seed = 27;
const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
};
const took = [];
for (let i = 0; i < JUMPS; i++)
    took.push(await seekBar(page, onBar(rand() * duration * 0.99), TOL, 60000));
took.sort((a, b) => a - b);
const median = (took[JUMPS / 2 - 1] + took[JUMPS / 2]) / 2;
const rss = (() => {
    try {
        const status = fs.readFileSync(`/proc/${replay.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
    } catch {
        return NaN;
    }
})();
await close();
await stopSimulator(replay);
const inputs = (/replaying (\d+) inputs/.exec(fs.readFileSync(path.join(dir, 'replay.txt'), 'utf8')) || [])[1];
const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const lines = [
    `replay page: a jump in \`ssl-sim replay JOURNAL\` from the page's seek op to the frame of that time drawn (headless chromium)`,
    GIVEN ? `journal: ${GIVEN}` : `journal: \`ssl-sim run --mode fast --journal F --duration ${SECONDS}\`, blue robot 0 driven by sim_probe commands`,
    `  ${duration.toFixed(1)} s of sim time (${(duration / 60).toFixed(1)} min), ${inputs} inputs; load average ${load} at the end (2 shared cores)`,
    `first jump, to 95 %, at once (checkpoints built to ${Number(builtCold).toFixed(0)} s then): ${(cold / 1000).toFixed(3)} s`,
    `checkpoints (every 10 s of sim time) to the end ${builtS.toFixed(1)} s after the replay started`,
    `${JUMPS} jumps after that: median ${(median / 1000).toFixed(3)} s, max ${(took[JUMPS - 1] / 1000).toFixed(3)} s, min ${(took[0] / 1000).toFixed(3)} s`,
    `the replay's process (physics, vision, viewer, checkpoints) at the end: ${rss.toFixed(0)} MiB resident`,
    `command: node bench/replay_page.js BUILD [RESULTS_FILE] [--seconds N] [--journal FILE]  (${new Date().toISOString().slice(0, 10)})`,
];
fs.writeFileSync(RESULTS, lines.join('\n') + '\n');
console.log(lines.join('\n'));
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
