#!/usr/bin/env python3
"""wakeups.py - where a realtime run's CPU goes: wake-ups and CPU per thread.

    bench/wakeups.py [BUILD] [LAYOUT] [SECONDS]
      BUILD    the build directory whose bench/pipeline and bin/ssl-sim run (build)
      LAYOUT   bench/pipeline's PIPELINE_ONLY layout: 3 = realtime, four
               processes, 22 robots commanded at 100 Hz (default); 4 = the
               same, vision only
      SECONDS  the window (6), taken 4 s after the start

Starts BUILD/bench/pipeline for that one layout, and over the window reads
every ssl-sim thread's voluntary and involuntary context switches
(/proc/PID/task/TID/status) and CPU time (schedstat, ns); prints per
service and thread name the wake-ups (voluntary switches) per second, the
preemptions per second and the cores used, then the totals. On a virtual
machine a wake-up costs tens of microseconds of CPU whatever the work in
it, so the first column says where to look (docs/design.md, "The cost of
a default run"). A measurement, not a test.
"""
import os
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
layout = sys.argv[2] if len(sys.argv) > 2 else "3"
secs = float(sys.argv[3]) if len(sys.argv) > 3 else 6.0
exe = build + "/bin/ssl-sim"


def snap():
    """Per thread id: (service, thread name, voluntary, involuntary, cpu ns)."""
    d = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cl = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
            if cl[0].decode() != exe:
                continue
            name = cl[2].decode() if cl[1] == b"service" else "run"
            for t in os.listdir("/proc/%s/task" % p):
                base = "/proc/%s/task/%s/" % (p, t)
                v = n = 0
                for line in open(base + "status"):
                    if line.startswith("voluntary_ctxt"):
                        v = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt"):
                        n = int(line.split()[1])
                c = int(open(base + "schedstat").read().split()[0])
                comm = open(base + "comm").read().strip()
                d[t] = (name, comm, v, n, c)
        except (OSError, IndexError, ValueError):
            pass  # a thread or process that ended meanwhile
    return d


env = dict(os.environ, PIPELINE_ONLY=layout)
bench = subprocess.Popen([build + "/bench/pipeline", "--runs", "1", "--seconds", str(secs + 6)], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(4)
a = snap()
t0 = time.time()
time.sleep(secs)
b = snap()
s = time.time() - t0
rows = {}
for k, x in b.items():
    if k not in a:
        continue
    y = a[k]
    # the viewer's idle web worker threads, as one row
    key = (x[0], "civetweb-worker*" if x[1].startswith("civetweb-worker") else x[1])
    r = rows.setdefault(key, [0.0, 0.0, 0.0])
    r[0] += (x[2] - y[2]) / s
    r[1] += (x[3] - y[3]) / s
    r[2] += (x[4] - y[4]) / s / 1e9
tv = tc = 0.0
for k in sorted(rows):
    r = rows[k]
    tv += r[0]
    tc += r[2]
    if r[0] > 0.5 or r[2] > 0.0001:
        print("%-13s %-18s wake-ups/s %7.1f  preempted/s %6.1f  cores %.4f" % (k[0], k[1], r[0], r[1], r[2]))
print("total         wake-ups/s %.1f  cores %.4f" % (tv, tc))
bench.wait()
