"""substep.py - what a coarser physics substep buys a learner and what it
costs (docs/embedding.md, "A coarser substep"); a benchmark, not a test.

  speed:    build/bench/embed --core (64 worlds on one thread, 22 robots
            commanded every 16 ms step, truth only and realistic vision,
            world-steps per CPU second) at each substep, the substeps
            interleaved run by run, medians;
  fidelity: the scenes of python/tests/substep_cases.py (the public
            sslsim API, --realism none) at each substep, and each
            scene's difference from the default 1 ms.

usage: /usr/bin/python3 bench/substep.py [RESULTS_FILE] [--runs 5] [--steps 3000]
       [--substeps 0.5,1,2,4] [--build build]
RESULTS_FILE defaults to bench/results/substep.txt (written, and printed).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tests import substep_cases  # noqa: E402


def core(build, ms, steps):
    """(truth, vision) world-steps per CPU second of one --core run."""
    out = subprocess.run([os.path.join(ROOT, build, "bench", "embed"), "--core", "--runs", "1", "--steps",
                          str(steps), "--step-ms", ms], cwd=ROOT, capture_output=True, text=True, check=True)
    m = re.search(r"median: truth (\d+), vision (\d+)", out.stdout)
    if not m:
        sys.exit("bench/substep.py: no median line from embed --core --step-ms %s:\n%s" % (ms, out.stdout))
    return int(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="?", default=os.path.join(ROOT, "bench", "results", "substep.txt"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--substeps", default="0.5,1,2,4")
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    substeps = a.substeps.split(",")
    lines = []
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                         text=True).stdout.strip()
    lines.append("substep benchmark: %s, %s, %d cores, load average %.1f at the start (bench/substep.py)"
                 % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), rev or "?", os.cpu_count(),
                    os.getloadavg()[0]))
    lines.append("$ /usr/bin/python3 bench/substep.py --runs %d --steps %d --substeps %s"
                 % (a.runs, a.steps, a.substeps))
    lines.append("")
    lines.append("speed: build/bench/embed --core --steps %d --step-ms MS (64 worlds, 1 thread, 22 robots commanded "
                 "every 16 ms step), world-steps per CPU second, median of %d runs interleaved across substeps"
                 % (a.steps, a.runs))
    runs = {ms: [] for ms in substeps}
    for _ in range(a.runs):
        for ms in substeps:
            runs[ms].append(core(a.build, ms, a.steps))
    base = statistics.median(t for t, _ in runs["1"]) if "1" in runs else None
    base_v = statistics.median(v for _, v in runs["1"]) if "1" in runs else None
    for ms in substeps:
        t = statistics.median(x for x, _ in runs[ms])
        v = statistics.median(x for _, x in runs[ms])
        rel = "   (%.2fx and %.2fx the 1 ms figures)" % (t / base, v / base_v) if base else ""
        lines.append("  substep %-4s ms   truth only %7.0f   realistic vision %7.0f%s" % (ms, t, v, rel))
        lines.append("      runs: truth %s; vision %s" % (" ".join(str(x) for x, _ in runs[ms]),
                                                       " ".join(str(x) for _, x in runs[ms])))
    lines.append("")
    lines.append("fidelity: python/tests/substep_cases.py's scenes (--realism none), each value at each substep "
                 "and its difference from 1 ms")
    for name, scene in substep_cases.SCENES:
        values = {ms: substep_cases.flat(scene(float(ms))) for ms in substeps}
        lines.append("  %s: %s" % (name, " ".join(scene.__doc__.split())))
        for ms in substeps:
            d = (" diff " + " ".join("%+.2e" % (x - y) for x, y in zip(values[ms], values["1"]))
                 if "1" in values and ms != "1" else "")
            lines.append("    %-4s ms %s%s" % (ms, " ".join("%.6f" % x for x in values[ms]), d))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(a.results, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
