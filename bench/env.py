"""env.py - what the Python environments cost over the C step they wrap
(issue 26's speed targets; a benchmark, not a test).

  single: SslSimEnv.step (one world, its robots commanded, the
          observation written) against the world's own step from Python
          (World.robot_commands is not timed there: the same work as the
          env's action, timed as sslsim_world_actions + sslsim_world_step
          by direct ctypes calls), per observation kind;
  vector: SslSimVectorEnv(64).step against the same Batch stepped by
          Batch.step with the same commands, world-steps per CPU second
          of the process (all threads; on a shared machine CPU time
          holds still where wall time does not), per kind.

  tasks:  SslSimVectorEnv(64, task=name, threads=1) per task of the task
          library, CPU us per world-step with the task on and with its
          pointer switched off (the task's own cost in C), truth.
  reset:  SslSimVectorEnv(64, threads=1).reset(seed=...) per kind, CPU us
          per world: what each episode's start costs (an autoreset in
          step runs the same C reset).

usage: /usr/bin/python3 bench/env.py [--what single|vector|both|parts|tasks|reset] [--runs 5]
       [--steps N] [--threads 2] [--before DIR]
Runs are interleaved (env, base, env, base, ...); medians are printed.
Times are the process's CPU time (the machine this was written on is
shared, and its wall time swings by 2x from run to run).
--before DIR also times SslSimEnv.step of the sslsim module in DIR (the
tree before a change: its python/ directory) against the same library,
each run in a fresh process, interleaved with the others.
"""
import argparse
import os
import subprocess
import sys
import time

if "--module-dir" in sys.argv:
    sys.path.insert(0, sys.argv[sys.argv.index("--module-dir") + 1])
else:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import sslsim  # noqa: E402
from sslsim import _native as N  # noqa: E402


def _actions(rng, shape, steps):
    a = rng.uniform(-1.0, 1.0, size=(steps,) + shape)
    return np.ascontiguousarray(a)


def _timed(env, steps, clock):
    """Seconds (by clock) of `steps` env.step calls with reproducible actions."""
    env.reset(seed=1)
    acts = _actions(np.random.default_rng(1), env.action_space.shape, steps)
    t0 = clock()
    for a in acts:
        env.step(a)
    dt = clock() - t0
    env.close()
    return dt


def single_env(kind, steps):
    return _timed(sslsim.SslSimEnv(observation=kind, max_steps=10 ** 9), steps, time.process_time) / steps


def single_base(kind, steps):
    """The C world step the env wraps: the same actions and step, by ctypes."""
    env = sslsim.SslSimEnv(observation=kind, max_steps=10 ** 9)
    env.reset(seed=1)
    h = env.world._handle()
    teams, ids = env._teams, env._ids
    acts = _actions(np.random.default_rng(1), env.action_space.shape, steps)
    f_act, f_step, n, tp, ip = N.lib.sslsim_world_actions, N.lib.sslsim_world_step, len(teams), \
        teams.ctypes.data, ids.ctypes.data
    t0 = time.process_time()
    for a in acts:
        f_act(h, tp, ip, n, a.ctypes.data)
        f_step(h, 0.016)
    dt = time.process_time() - t0
    env.close()
    return dt / steps


def vector_env(kind, steps, threads, n=64):
    env = sslsim.SslSimVectorEnv(n, observation=kind, threads=threads, max_steps=10 ** 9)
    return n * steps / _timed(env, steps, time.process_time)


def vector_base(kind, steps, threads, n=64):
    """The C batch the vector env wraps: one robot per world commanded
    (as the env's default task), Batch.step, no observation."""
    env = sslsim.SslSimVectorEnv(n, observation=kind, threads=threads, max_steps=10 ** 9)
    env.reset(seed=1)
    b = env.batch
    acts = _actions(np.random.default_rng(1), env.action_space.shape, steps)
    cmds = np.zeros((steps, n, acts.shape[2]), dtype=sslsim.COMMAND)
    for i, f in enumerate(sslsim.ACTION_FIELDS):
        cmds[f] = acts[..., i]
    h = b._handle()
    f_cmd, f_step = N.lib.sslsim_batch_robot_commands, N.lib.sslsim_batch_step
    per = acts.shape[2]
    t0 = time.process_time()
    for c in cmds:
        f_cmd(h, c.ctypes.data, per)
        f_step(h, 0.016)
    dt = time.process_time() - t0
    env.close()
    return n * steps / dt


def vector_parts(kind, steps, runs):
    """CPU us per world-step of SslSimVectorEnv(64, threads=1) with its
    C step's observer and task switched off in turn (the request's
    pointers), against Batch.step: where the vector env's time goes."""
    env = sslsim.SslSimVectorEnv(64, observation=kind, threads=1, max_steps=10 ** 9)
    env.reset(seed=1)
    acts = _actions(np.random.default_rng(1), env.action_space.shape, steps)
    cmds = np.zeros((steps, 64, acts.shape[2]), dtype=sslsim.COMMAND)
    for i, f in enumerate(sslsim.ACTION_FIELDS):
        cmds[f] = acts[..., i]
    h = env.batch._handle()
    obs, task = env._req.obs, env._req.task
    out = {}
    ended = 0  # episodes ended by the task, each reset on the next step
    for _ in range(runs):
        for mode in ("full", "no observation", "neither", "Batch.step"):
            env._req.obs = None if mode in ("no observation", "neither") else obs
            env._req.task = None if mode == "neither" else task
            t0 = time.process_time()
            if mode == "Batch.step":
                for c in cmds:
                    N.lib.sslsim_batch_robot_commands(h, c.ctypes.data, acts.shape[2])
                    N.lib.sslsim_batch_step(h, 0.016)
            else:
                for a in acts:
                    ended += int(env.step(a)[2].sum())
            out.setdefault(mode, []).append((time.process_time() - t0) / steps / 64 * 1e6)
    env._req.obs, env._req.task = obs, task
    env.close()
    print("parts %-6s CPU us per world-step, batch 64, 1 thread (median of %d runs of %d steps): %s   "
          "(%d episodes ended in all, each reset once)"
          % (kind, runs, steps, "   ".join("%s %.2f" % (k, np.median(v)) for k, v in out.items()), ended))


def tasks(steps, runs):
    """Per task: CPU us per world-step of SslSimVectorEnv(64, task,
    threads=1), with the task and with the request's task pointer off."""
    for name in sslsim.TASKS:
        env = sslsim.SslSimVectorEnv(64, task=name, threads=1, max_steps=10 ** 9)
        env.reset(seed=1)
        acts = _actions(np.random.default_rng(1), env.action_space.shape, steps)
        task = env._req.task
        out = {}
        for _ in range(runs):
            for mode in ("task", "no task"):
                env._req.task = task if mode == "task" else None
                t0 = time.process_time()
                for a in acts:
                    env.step(a)
                out.setdefault(mode, []).append((time.process_time() - t0) / steps / 64 * 1e6)
        env._req.task = task
        env.close()
        t, n = np.median(out["task"]), np.median(out["no task"])
        print("tasks %-12s CPU us per world-step, batch 64, 1 thread, truth (median of %d runs of %d steps): "
              "with the task %.2f   without %.2f   task %+.2f" % (name, runs, steps, t, n, t - n))
        sys.stdout.flush()


def resets(runs):
    """CPU us per world of SslSimVectorEnv(64, threads=1).reset, a new
    seed each run, per observation kind."""
    for kind in ("truth", "vision"):
        env = sslsim.SslSimVectorEnv(64, observation=kind, threads=1)
        env.reset(seed=0)
        us = []
        for r in range(runs):
            t0 = time.process_time()
            env.reset(seed=1 + 64 * r)
            us.append((time.process_time() - t0) / 64 * 1e6)
        env.close()
        print("reset  %-6s CPU us per world, SslSimVectorEnv(64, threads=1).reset (median of %d resets): %.1f"
              % (kind, runs, np.median(us)))
        sys.stdout.flush()


def _child(what, kind, steps, module_dir):
    """Seconds per step of `what` in a fresh process with sslsim from module_dir."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", what, "--kind", kind,
                          "--steps", str(steps), "--module-dir", module_dir],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=None)
    ap.add_argument("--one", default=None, choices=("env", "base"))
    ap.add_argument("--kind", default="truth")
    ap.add_argument("--module-dir", default=None)
    ap.add_argument("--what", default="both", choices=("single", "vector", "both", "parts", "tasks", "reset"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=0, help="0: 3000 single, 300 vector")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    if a.one:
        f = single_env if a.one == "env" else single_base
        print("seconds/step %.9f" % f(a.kind, a.steps or 3000))
        return
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
    if a.what == "tasks":
        tasks(a.steps or 300, a.runs)
        return
    if a.what == "reset":
        resets(a.runs)
        return
    if a.what == "parts":
        for kind in ("vision", "truth"):
            vector_parts(kind, a.steps or 300, a.runs)
        return
    if a.before:
        steps = a.steps or 3000
        for kind in ("truth", "vision"):
            new, old, base = [], [], []
            for _ in range(a.runs):
                new.append(_child("env", kind, steps, here))
                old.append(_child("env", kind, steps, a.before))
                base.append(_child("base", kind, steps, here))
            print("single %-6s before: SslSimEnv.step %6.1f us (%.2fx)   after: %6.1f us (%.2fx)   "
                  "world actions+step %6.1f us (median of %d interleaved runs of %d steps, fresh processes)"
                  % (kind, 1e6 * np.median(old), np.median(old) / np.median(base), 1e6 * np.median(new),
                     np.median(new) / np.median(base), 1e6 * np.median(base), a.runs, steps))
            sys.stdout.flush()
        return
    for kind in ("truth", "vision"):
        if a.what in ("single", "both"):
            steps = a.steps or 3000
            env, base = [], []
            for _ in range(a.runs):
                env.append(single_env(kind, steps))
                base.append(single_base(kind, steps))
            ratio = [e / b for e, b in zip(env, base)]
            print("single %-6s SslSimEnv.step %6.1f us   world actions+step %6.1f us   ratio %.2fx "
                  "(median of %d interleaved runs of %d steps; ratios %s)"
                  % (kind, 1e6 * np.median(env), 1e6 * np.median(base), np.median(ratio), a.runs, steps,
                     " ".join("%.2f" % r for r in ratio)))
        if a.what in ("vector", "both"):
            steps = a.steps or 300
            env, base = [], []
            for _ in range(a.runs):
                env.append(vector_env(kind, steps, a.threads))
                base.append(vector_base(kind, steps, a.threads))
            ratio = [e / b for e, b in zip(env, base)]
            print("vector %-6s batch 64, %d threads: SslSimVectorEnv %8.0f world-steps per CPU s   Batch.step %8.0f   "
                  "env/batch %.1f%% (median of %d interleaved runs of %d steps; ratios %s)"
                  % (kind, a.threads, np.median(env), np.median(base), 100 * np.median(ratio), a.runs, steps,
                     " ".join("%.2f" % r for r in ratio)))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
