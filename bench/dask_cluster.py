"""bench/dask_cluster.py (not dask.py: that name would shadow the dask package) - what spreading worlds over Dask workers buys and costs
(a benchmark, not a test; docs/dask.md "Speed").

Starts a LocalCluster of worker processes (one thread each) over TCP on
127.0.0.1 and measures, in wall-clock world-steps per second, the
go_to_ball task with the chosen observation (16 ms steps):

  scaling    DaskVectorEnv(N) on two workers against one worker;
  (the client talks to the workers directly, Client(direct_to_workers=True),
  as docs/dask.md advises; --proxy measures a default Client)
  rollouts   the same two envs, each call env.rollout(policy, R) (R =
             --rollout steps; a linear policy of the observation run in
             the workers): one round trip per R steps instead of per step
  round trip a DaskVectorEnv(n) on one worker against the same
             SslSimVectorEnv(n, threads=1) stepped in this process: the
             extra time per step is the cluster's round trip (actions
             out, arrays back, the actor call), for n from 1 up, and the
             smallest n at which it is under 10 % of the cluster step.

Runs are interleaved and the medians reported, since the machine is
shared. Usage:

    SSLSIM_LIBRARY=build/lib/libsslsim.so.1 PYTHONPATH=python \\
        /usr/bin/python3 bench/dask_cluster.py [--observation vision] [--runs 5] [--steps 100] [--worlds 1024] [--proxy]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import sslsim  # noqa: E402
from sslsim.dask import DaskVectorEnv  # noqa: E402


def seconds_per_step(env, steps, cpu=None):
    """Wall seconds per step over `steps` steps after a reset and a
    warm-up, and the median step's; with cpu (a function returning
    {process: CPU seconds}), the first and each process's CPU seconds
    per step over the same steps."""
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    acts = rng.uniform(env.action_space.low, env.action_space.high, size=(8,) + env.action_space.shape)
    for i in range(10):
        env.step(acts[i % 8])
    before = cpu() if cpu else None
    t0 = time.perf_counter()
    each = []
    for i in range(steps):
        t = time.perf_counter()
        env.step(acts[i % 8])
        each.append(time.perf_counter() - t)
    wall = (time.perf_counter() - t0) / steps
    if cpu is None:
        return wall, statistics.median(each)
    after = cpu()
    return wall, {k: (after[k] - before[k]) / steps for k in after}


class Linear:
    """The rollouts' policy: tanh of a fixed linear map of each world's
    observation (pickled to the workers by value: this file is __main__)."""

    def __init__(self, dim, k):
        self.w = np.random.default_rng(0).normal(0, 0.3, size=(dim, k * 6))
        self.k = k

    def __call__(self, obs, worlds):
        return np.tanh(obs @ self.w).reshape(len(obs), self.k, 6)


def seconds_per_rollout_step(env, policy, steps):
    """Wall seconds per step of env.rollout(policy, steps), after a reset and a warm-up rollout."""
    env.reset(seed=1)
    env.rollout(policy, 10)
    t0 = time.perf_counter()
    env.rollout(policy, steps)
    return (time.perf_counter() - t0) / steps


def pair_ratio(one, two):
    """The median over interleaved runs of (one's time / two's): each pair
    ran back to back, so a slow spell of the shared machine meets both."""
    return statistics.median(a / b for a, b in zip(one, two))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--observation", default="vision", choices=("truth", "vision"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--worlds", type=int, default=1024, help="worlds for the scaling figure")
    ap.add_argument("--sizes", default="1,16,64,256,1024,2048", help="batch sizes for the round trip")
    ap.add_argument("--rollout", type=int, default=100, help="steps a rollout call (0: no rollout figure)")
    ap.add_argument("--proxy", action="store_true",
                    help="a default Client (calls pass through the scheduler) instead of direct_to_workers=True")
    o = ap.parse_args()
    kw = dict(observation=o.observation, max_steps=500)
    sizes = [int(s) for s in o.sizes.split(",")]
    print("# bench/dask_cluster.py --observation %s --runs %d --steps %d --worlds %d --sizes %s --rollout %d%s"
          % (o.observation, o.runs, o.steps, o.worlds, o.sizes, o.rollout, " --proxy" if o.proxy else ""))
    print("# cores %d, load %.1f %.1f %.1f at start" % ((os.cpu_count(),) + os.getloadavg()))
    # every port on 127.0.0.1, the HTTP servers' too
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                      silence_logs=50) as cluster, \
            Client(cluster, direct_to_workers=not o.proxy) as client:
        workers = sorted(client.scheduler_info()["workers"])
        one = DaskVectorEnv(client, o.worlds, workers=workers[:1], **kw)
        two = DaskVectorEnv(client, o.worlds, workers=workers, **kw)
        def cpu():
            out = dict(client.run(time.process_time))
            out["client"] = time.process_time()
            return out

        t1, t2, c1, c2 = [], [], [], []
        for _ in range(o.runs):
            wall, c = seconds_per_step(one, o.steps, cpu)
            t1.append(wall)
            c1.append(c)
            wall, c = seconds_per_step(two, o.steps, cpu)
            t2.append(wall)
            c2.append(c)
        r1, r2 = [], []
        if o.rollout:
            policy = Linear(one.single_observation_space.shape[0], len(one.controlled))
            for _ in range(o.runs):
                r1.append(seconds_per_rollout_step(one, policy, o.rollout))
                r2.append(seconds_per_rollout_step(two, policy, o.rollout))
        one.close()
        two.close()
        if r1:
            q1, q2 = o.worlds / statistics.median(r1), o.worlds / statistics.median(r2)
            print("rollouts of %d steps, %d worlds, wall clock: one worker %.0f world-steps/s, two workers %.0f,"
                  " %.2fx, median of the runs' pairs %.2fx (runs one %s, two %s)"
                  % (o.rollout, o.worlds, q1, q2, q2 / q1, pair_ratio(r1, r2),
                     " ".join("%.0f" % (o.worlds / t) for t in r1), " ".join("%.0f" % (o.worlds / t) for t in r2)))
        s1, s2 = o.worlds / statistics.median(t1), o.worlds / statistics.median(t2)
        print("scaling, %d worlds, wall clock: one worker %.0f world-steps/s, two workers %.0f, %.2fx,"
              " median of the runs' pairs %.2fx (runs one %s, two %s)" % (o.worlds, s1, s2, s2 / s1, pair_ratio(t1, t2),
                                          " ".join("%.0f" % (o.worlds / t) for t in t1),
                                          " ".join("%.0f" % (o.worlds / t) for t in t2)))
        # CPU seconds per step of each process (medians over runs): what the
        # wall clock would show with a core per worker and one for the client
        med = lambda runs, k: statistics.median(r[k] for r in runs)  # noqa: E731
        w1 = med(c1, workers[0])
        w2 = max(med(c2, w) for w in workers)
        print("scaling, CPU ms per step: one worker %.3f (client %.3f); two workers %s (client %.3f);"
              " one / busiest of two %.2fx"
              % (w1 * 1e3, med(c1, "client") * 1e3, " ".join("%.3f" % (med(c2, w) * 1e3) for w in workers),
                 med(c2, "client") * 1e3, w1 / w2))
        print("round trip (median steps): n, local ms/step, cluster ms/step, extra ms, extra / cluster step"
              + ("; then the same for rollouts of %d steps, per step" % o.rollout if o.rollout else ""))
        under = under_r = None
        for n in sizes:
            remote = DaskVectorEnv(client, n, workers=workers[:1], **kw)
            local = sslsim.SslSimVectorEnv(n, threads=1, **kw)
            tl, tr, ql, qr = [], [], [], []
            steps = max(o.steps, 2000 // n)
            policy = Linear(local.single_observation_space.shape[0], len(local.controlled))
            for _ in range(o.runs):  # the median step of each run: a step descheduled by the load is no round trip
                tl.append(seconds_per_step(local, steps)[1])
                tr.append(seconds_per_step(remote, steps)[1])
                if o.rollout:
                    ql.append(seconds_per_rollout_step(local, policy, o.rollout))
                    qr.append(seconds_per_rollout_step(remote, policy, o.rollout))
            remote.close()
            local.close()
            ml, mr = statistics.median(tl), statistics.median(tr)
            share = (mr - ml) / mr
            if under is None and share < 0.10:
                under = n
            line = "  %4d  %8.3f  %8.3f  %7.3f  %5.1f %%" % (n, ml * 1e3, mr * 1e3, (mr - ml) * 1e3, share * 100)
            if ql:
                ml, mr = statistics.median(ql), statistics.median(qr)
                share = (mr - ml) / mr
                if under_r is None and share < 0.10:
                    under_r = n
                line += "   rollouts %8.3f  %8.3f  %7.3f  %5.1f %%" % (ml * 1e3, mr * 1e3, (mr - ml) * 1e3,
                                                                        share * 100)
            print(line)
        print("round trip under 10 %% of the step from batch %s" % (under if under else "> %d" % sizes[-1]))
        if o.rollout:
            print("in rollouts of %d steps, from batch %s" % (o.rollout, under_r if under_r else "> %d" % sizes[-1]))


if __name__ == "__main__":
    main()
