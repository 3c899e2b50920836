"""embed.py - the Python side of bench/embed.c: a learner's loop over an
sslsim.Batch (commands from a numpy array, one batch step, every world's
truth into a numpy array), the same work bench/embed.c times in C.

usage: /usr/bin/python3 bench/embed.py --batch N --threads T --steps S
prints "seconds X cpu Y": wall and process CPU seconds of the timed
steps (after 20 untimed ones).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import sslsim  # noqa: E402


def fill(cmds, step):
    """bench/embed.c s_commands for every world (k = world index)."""
    n = cmds.shape[0]
    ids = np.arange(11)
    k = np.arange(n)[:, None]
    for team in (0, 1):
        sl = slice(11 * team, 11 * team + 11)
        cmds["team"][:, sl] = team
        cmds["id"][:, sl] = ids
        cmds["forward"][:, sl] = 1.5 * np.sin(step * 0.04 + ids + k)
        cmds["left"][:, sl] = 0.3 * np.cos(step * 0.02 + ids)
        cmds["angular"][:, sl] = np.sin(step * 0.05 - ids)
        cmds["kick_speed"][:, sl] = np.where(step % 25 == ids, 5.0, 0.0)
        cmds["dribbler_speed"][:, sl] = np.where(ids == 3, 500.0, 0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    b = sslsim.Batch(a.batch, threads=a.threads)
    # the script's commands worked out beforehand, as bench/embed.c does
    plan = np.zeros((a.steps + 20, a.batch, 22), dtype=sslsim.COMMAND)
    for step in range(-20, a.steps):
        fill(plan[step + 20], step)
    truth = np.zeros(a.batch, dtype=sslsim.TRUTH)
    t0 = c0 = 0.0
    for step in range(-20, a.steps):
        if step == 0:
            t0, c0 = time.perf_counter(), time.process_time()
        b.set_commands(plan[step + 20])
        b.step(0.016)
        b.truth_records(out=truth)
    print("seconds %.6f cpu %.6f" % (time.perf_counter() - t0, time.process_time() - c0))
    b.close()


if __name__ == "__main__":
    main()
