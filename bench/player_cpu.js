// player_cpu.js BUILD [RESULTS_FILE] [--seconds N] - what `ssl-sim play`
// with its page costs the viewer (issue 27: "measure the viewer's CPU with
// a page open during a 10x play of a log").
//
// Records a log as a user would (`ssl-sim run --mode fast --record LOG
// --duration N`: N wall seconds of fast mode, a log of some hundred sim
// seconds; 22 robots, 2 cameras), then plays it
// at --speed 10 twice on free loopback ports: once with no page, once with
// Debian's chromium showing the page (headless, through playwright-core
// from tests/browser), and reads the play process's CPU time (utime +
// stime from /proc/PID/stat; in play the process is the viewer: its loop
// sends the log and feeds the page) from the first record to the end of
// the log. Writes bench/results/player.txt (or RESULTS_FILE) and prints it.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeIni, waitHttp, stopSimulator, launchBrowser } from '../tests/browser/support.js';

const args = process.argv.slice(2);
const BUILD = path.resolve(args[0] || 'build');
const RESULTS = args[1] && !args[1].startsWith('--') ? args[1]
    : path.join(import.meta.dirname, 'results', 'player.txt');
const si = args.indexOf('--seconds');
const SECONDS = si >= 0 ? Number(args[si + 1]) : 0.5;
const SIM = path.join(BUILD, 'bin', 'ssl-sim');
const PROBE = path.join(BUILD, 'tests', 'browser', 'sim_probe');

function cpuSeconds (pid) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in USER_HZ ticks (100 on Linux)
}

function run (dir, name, argv) {
    const log = fs.openSync(path.join(dir, `${name}.txt`), 'a');
    const proc = spawn(SIM, argv, { stdio: ['ignore', log, log], env: { ...process.env, XDG_RUNTIME_DIR: dir } });
    fs.closeSync(log);
    proc.exited = new Promise((resolve) => proc.once('exit', (code, sig) => resolve(sig || code)));
    return proc;
}

// play LOG at 10x; page: open the page first. CPU seconds over the wall
// seconds from the page's (or the process's) start to the log's end.
async function play (dir, ini, ports, logFile, withPage) {
    const proc = run(dir, withPage ? 'play-page' : 'play', ['play', logFile, '--speed', '10', '--config', ini,
                                                             '--localhost', '--vision-addr', `127.0.0.1:${ports[7]}`,
                                                             '--viewer-addr', `127.0.0.1:${ports[8]}`]);
    let browser = null;
    let worlds = 0;
    await waitHttp(`http://127.0.0.1:${ports[8]}/`, 60000, proc.exited);
    const cpu0 = cpuSeconds(proc.pid);
    const t0 = Date.now();
    if (withPage) {
        browser = await launchBrowser(os);
        const page = await browser.browser.newPage();
        await page.goto(`http://127.0.0.1:${ports[8]}/`);
        await page.waitForFunction(() => window.sslsimView.player !== null, null, { timeout: 60000 });
        const f0 = await page.evaluate(() => window.sslsimView.frames_drawn);
        const fT = Date.now();
        // the log's end, then the page's close ends play
        await page.waitForFunction(() => window.sslsimView.player && window.sslsimView.player.ended, null,
                                   { timeout: 600000 });
        worlds = ((await page.evaluate(() => window.sslsimView.frames_drawn)) - f0) / ((Date.now() - fT) / 1000);
    }
    let cpu = 0;
    let wall = 0;
    if (withPage) {
        cpu = cpuSeconds(proc.pid) - cpu0;
        wall = (Date.now() - t0) / 1000;
        await browser.close();
    } else {
        // no page: the process ends with its log; read it just before
        let last = cpu0;
        while (proc.exitCode === null && proc.signalCode === null) {
            try {
                last = cpuSeconds(proc.pid);
            } catch {
                break;
            }
            wall = (Date.now() - t0) / 1000;
            await new Promise((r) => setTimeout(r, 50));
        }
        cpu = last - cpu0;
    }
    await stopSimulator(proc);
    return { cpu, wall, worlds };
}

const ports = execFileSync(PROBE, ['ports', '10'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
const dir = fs.mkdtempSync('/tmp/ssl-sim-bench-');
const ini = writeIni(dir, ports);
const logFile = path.join(dir, 'match.log');
const rec = run(dir, 'run', ['run', '--mode', 'fast', '--config', ini, '--localhost', '--no-viewer',
                             '--vision-addr', `127.0.0.1:${ports[7]}`, '--record', logFile, '--duration', String(SECONDS)]);
if (await rec.exited !== 0)
    throw new Error(`the recording run failed: ${fs.readFileSync(path.join(dir, 'run.txt'), 'utf8')}`);
const size = fs.statSync(logFile).size;
const played = () => {
    const m = /playing .*: ([0-9.]+) s, ([0-9]+) records/.exec(fs.readFileSync(path.join(dir, 'play.txt'), 'utf8'));
    return m ? `${m[1]} s of log, ${m[2]} records` : '?';
};
const bare = await play(dir, ini, ports, logFile, false);
const paged = await play(dir, ini, ports, logFile, true);
const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const lines = [
    `player: CPU of \`ssl-sim play LOG --speed 10\` (the viewer's process: it sends the log and feeds the page), utime+stime from /proc`,
    `log: \`ssl-sim run --mode fast --record LOG --duration ${SECONDS}\` (22 robots, 2 cameras): ${played()}, ${(size / 1048576).toFixed(1)} MiB; load average ${load} at the end`,
    `no page           ${(bare.cpu / bare.wall).toFixed(4)} cores over ${bare.wall.toFixed(1)} s`,
    `one page (chromium) ${(paged.cpu / paged.wall).toFixed(4)} cores over ${paged.wall.toFixed(1)} s; the page drew ${paged.worlds.toFixed(1)} frames/s`,
    `command: node bench/player_cpu.js BUILD [RESULTS_FILE] [--seconds N]  (${new Date().toISOString().slice(0, 10)})`,
];
fs.writeFileSync(RESULTS, lines.join('\n') + '\n');
console.log(lines.join('\n'));
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
