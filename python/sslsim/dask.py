"""sslsim.dask: ssl-sim worlds spread over a Dask cluster (Debian's
python3-distributed), behind the interface of SslSimVectorEnv.

    from distributed import Client
    from sslsim.dask import DaskVectorEnv

    client = Client("tcp://scheduler:8786")       # or a LocalCluster
    env = DaskVectorEnv(client, 256)              # SslSimVectorEnv's arguments
    obs, infos = env.reset(seed=1)                # obs (256, D), gathered
    obs, rewards, terminated, truncated, infos = env.step(actions)

Each worker holds a shard: a contiguous run of the worlds in an
SslSimVectorEnv, as a Dask actor (so the worlds stay in the worker's
memory between steps and only actions and results cross the network). A
step sends every shard its slice of the actions at once and gathers the
numpy arrays back in world order.

Seeds are global: world k of the cluster env gets the seed a single
SslSimVectorEnv of the same size would give it (the configuration's seed,
or seed=, plus k; reset(seed=s) s + k; reset(seed=[...]) the listed one),
and autoreset and episode seeds are SslSimVectorEnv's own, run inside each
shard. A world's bytes therefore depend only on its seed and actions,
never on the number of workers or where its shard starts.

A worker that dies (or stops answering within `timeout` seconds) makes the
next step or reset raise sslsim.dask.WorkerLost naming the worker and its
worlds; the env is then unusable (its worlds are gone) and says so on
every later call.
"""
import numpy as np

try:
    import distributed  # noqa: F401
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("sslsim.dask needs Dask's distributed package (Debian: python3-distributed)") from e

from . import _native as N
from .env import _box, _EnvBase
from .rollout import check_steps, join
from .vector import SslSimVectorEnv, action_array, reset_mask
from .world import World


# Actor calls on the step path run in the worker's event loop rather than
# handed to its actor thread (distributed pops this keyword before the
# call): one thread hand-off less per call, measured at 0.85-0.9 ms against
# 1.0 ms and more per round trip on this machine (bench/results/dask.txt).
# A shard's step is short (milliseconds) and needs nothing from the loop
# while it runs; the loop's heartbeats wait that long at most.
_IN_LOOP = {"separate_thread": False}


class WorkerLost(RuntimeError):
    """A worker holding worlds of a DaskVectorEnv died or stopped answering."""


class Shard:
    """The actor on a worker: worlds [offset, offset + num_envs) of a
    cluster env, as an SslSimVectorEnv whose world i has the seed the
    cluster's world offset + i would have in one SslSimVectorEnv."""

    def __init__(self, num_envs, offset, kwargs):
        kwargs = dict(kwargs)
        seed = kwargs.pop("seed", None)
        if seed is None:  # the configuration's, as a Batch would take it
            with World(ini=kwargs.get("ini"), args=kwargs.get("args"), vision=False) as w:
                seed = w.seed
        kwargs["seed"] = N.seed64(N.seed64(seed) + int(offset))
        self.env = SslSimVectorEnv(num_envs, **kwargs)
        self.worlds = np.arange(offset, offset + num_envs, dtype=np.int64)

    def spaces(self):
        e = self.env
        return {"low": e.single_observation_space.low, "high": e.single_observation_space.high,
                "action_low": e.single_action_space.low, "action_high": e.single_action_space.high,
                "controlled": e.controlled, "observed": e.observed, "metadata": e.metadata}

    def reset(self, seed, mask):
        obs, infos = self.env.reset(seed=seed, options={"reset_mask": mask})
        return obs, infos["seed"]

    def step(self, actions):
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        return obs, rewards, terminated, truncated, infos["seed"]

    def rollout(self, policy, steps):
        try:
            return self.env.rollout(policy, steps, self.worlds)
        except (ValueError, TypeError, RuntimeError):
            raise
        except Exception as e:  # the policy's own error: an answer, not a lost worker (see _gather)
            raise RuntimeError("the policy raised %s in the worker: %s" % (type(e).__name__, e)) from e

    def close(self):
        self.env.close()


def _split(n, parts):
    """[(offset, count), ...]: n worlds over `parts` shards, in order, sizes differing by at most one."""
    out, at = [], 0
    for j in range(parts):
        count = n // parts + (1 if j < n % parts else 0)
        out.append((at, count))
        at += count
    return [(o, c) for o, c in out if c > 0]


def _check_workers(workers, known):
    """ValueError naming the first of `workers` that is none of the
    scheduler's `known` workers by address, name or host (what Dask's
    workers= takes): a shard pinned to it would wait out the timeout."""
    names = set(known)
    for info in known.values():
        names.update((str(info.get("name")), str(info.get("host"))))
    for w in workers:
        if str(w) not in names:
            raise ValueError("workers: %r is not a worker of this cluster (its workers: %s)"
                             % (w, ", ".join(sorted(known)) or "none"))


class DaskVectorEnv:
    """DaskVectorEnv(client, num_envs=64, workers=None, threads=1,
    timeout=60.0, **kwargs): num_envs worlds over the cluster of
    `client` (a distributed.Client), split evenly over `workers` (their
    addresses; default every worker the scheduler knows now, in address
    order). kwargs are SslSimVectorEnv's (observation, task, dt,
    max_steps, controlled, observed, ini, args, seed); threads is each
    shard's Batch threads (1: a Dask worker is the unit of parallelism;
    give each worker process one thread, `dask worker --nthreads 1`).
    timeout (s): the longest a step or reset waits for a shard before
    raising WorkerLost (a rollout: that per step)."""

    def __init__(self, client, num_envs=64, workers=None, threads=1, timeout=60.0, **kwargs):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError("num_envs must be a positive integer, not %r" % (num_envs,))
        known = client.scheduler_info()["workers"]
        if workers is None:
            workers = sorted(known)
        workers = list(workers)
        if not workers:
            raise ValueError("workers: the cluster has no worker")
        _check_workers(workers, known)
        self.client = client
        self.num_envs = int(num_envs)
        self.timeout = float(timeout)
        self._lost = None
        kwargs = dict(kwargs, threads=threads)
        plan = _split(self.num_envs, len(workers))
        self.shards = []  # (worker address, offset, count)
        self._actors = []
        futures = []
        for (offset, count), address in zip(plan, workers):
            futures.append(client.submit(Shard, count, offset, kwargs, actor=True, pure=False,
                                         workers=[address], allow_other_workers=False))
            self.shards.append((address, offset, count))
        self._futures = futures
        try:
            self._actors = [f.result(timeout=self.timeout) for f in futures]
        except Exception:
            for f in futures:
                f.cancel()
            raise
        sp = self._gather(self._ask("spaces", [()] * len(self._actors), {}))[0]
        self.controlled, self.observed, self.metadata = sp["controlled"], sp["observed"], sp["metadata"]
        n = self.num_envs
        self.single_observation_space = _box(sp["low"], sp["high"])
        self.observation_space = _box(np.tile(sp["low"], (n, 1)), np.tile(sp["high"], (n, 1)))
        self.single_action_space = _box(sp["action_low"], sp["action_high"])
        self.action_space = _box(np.tile(sp["action_low"], (n, 1, 1)), np.tile(sp["action_high"], (n, 1, 1)))
        self._action_shape = self.action_space.shape
        self._started = False
        # the last rows returned: a reset with a mask asks only the shards it names
        self._obs = np.zeros((n, len(sp["low"])), dtype=np.float32)
        self._seeds = np.zeros(n, dtype=np.uint64)

    render_mode = None
    spec = None
    _np_random = None
    # the episode RNG (seeded by reset(seed=int)) and unwrapped, as SslSimVectorEnv has them
    np_random = _EnvBase.np_random
    unwrapped = _EnvBase.unwrapped

    def _check_usable(self):
        if self._lost is not None:
            raise WorkerLost(self._lost)
        if not self._actors:
            raise ValueError("the vector env is closed")

    def _lose(self, j, e):
        """Mark the env broken by the loss of shard j's worker; the WorkerLost to raise."""
        address, offset, count = self.shards[j]
        self._lost = ("worker %s holding worlds %d..%d is lost (%s: %s); the cluster env cannot go on"
                      % (address, offset, offset + count - 1, type(e).__name__, e))
        return WorkerLost(self._lost)

    def _ask(self, method, args, kwargs, shards=None):
        """[(j, future)]: `method` called on shard j's actor with args[i]
        for the i-th of `shards` (default all). Nothing reaches a shard
        when the call itself fails: distributed refuses a call to an
        actor whose worker the scheduler knows is gone ("Worker holding
        Actor was lost", a ValueError), so any failure here is a lost
        worker, not the shard's answer."""
        shards = range(len(self._actors)) if shards is None else shards
        pending = []
        for j, a in zip(shards, args):
            try:
                pending.append((j, getattr(self._actors[j], method)(*a, **kwargs)))
            except Exception as e:
                raise self._lose(j, e) from e
        return pending

    def _gather(self, pending, steps=1):
        """Each shard's answer to _ask, in order; a shard whose worker is
        gone or silent past the timeout (per step: `steps` of them) raises
        WorkerLost (and breaks the env)."""
        out = []
        for j, f in pending:
            try:
                out.append(f.result(timeout=self.timeout * steps))
            except (ValueError, TypeError, RuntimeError):
                raise  # the shard's own answer to bad input: the worker lives on
            except Exception as e:  # OSError, comm errors, timeouts: the worker is gone
                raise self._lose(j, e) from e
        return out

    def reset(self, *, seed=None, options=None):
        """As SslSimVectorEnv.reset (options={"reset_mask": m} too), with
        global seeds: seed s gives world k the seed s + k whichever shard
        holds it."""
        self._check_usable()
        mask = reset_mask(options, self.num_envs, self._started)
        if seed is None:
            per = [None] * len(self.shards)
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            per = [[N.seed64(N.seed64(seed) + o + i) for i in range(c)] for _, o, c in self.shards]
            self._np_random = np.random.default_rng(N.seed64(seed))
        else:
            seeds = N.seed_array(seed, self.num_envs, "seed").tolist()
            per = [seeds[o:o + c] for _, o, c in self.shards]
        # a shard none of whose worlds the mask names is not asked: its rows stay as last returned
        asked = [j for j, (_, o, c) in enumerate(self.shards) if mask[o:o + c].any()]
        parts = self._gather(self._ask("reset", [(per[j], mask[o:o + c]) for j, (_, o, c) in
                                                 ((j, self.shards[j]) for j in asked)], _IN_LOOP, asked))
        for j, (obs, seeds) in zip(asked, parts):
            _, o, c = self.shards[j]
            self._obs[o:o + c], self._seeds[o:o + c] = obs, seeds
        self._started = True
        return self._obs.copy(), {"seed": self._seeds.copy()}

    def step(self, actions):
        """As SslSimVectorEnv.step: actions (num_envs, k, 6) floats; each
        shard gets its rows. Bad actions are refused here, naming the
        world by its index in this env, before any shard moves."""
        self._check_usable()
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = action_array(actions, self._action_shape)
        finite = np.isfinite(a).reshape(self.num_envs, -1).all(axis=1)
        if not finite.all():
            raise ValueError("actions must be finite (NaN or infinity for world %d)" % int(np.argmin(finite)))
        parts = self._gather(self._ask("step", [(a[o:o + c],) for _, o, c in self.shards], _IN_LOOP))
        obs, rew, term, trunc, seeds = (np.concatenate([p[i] for p in parts]) for i in range(5))
        self._obs, self._seeds = obs, seeds
        return obs.copy(), rew, term, trunc, {"seed": seeds.copy()}

    def rollout(self, policy, steps):
        """`steps` steps in one call: every worker steps its shard with
        actions = policy(obs, worlds) for its own worlds (sslsim.rollout's
        text; the policy is pickled to the workers) and sends the whole
        trajectory back, so the cluster's round trip is paid once, not
        once a step. Returns the trajectory's arrays in world order,
        (steps, num_envs, ...), the same as a local SslSimVectorEnv's
        rollout with that policy; the env goes on from its last step."""
        self._check_usable()
        if not self._started:
            raise RuntimeError("call reset() before rollout()")
        check_steps(steps)
        # a rollout is long (a whole trajectory): it runs on the actor's
        # thread, not in the worker's event loop, which keeps answering
        # heartbeats meanwhile
        traj = join(self._gather(self._ask("rollout", [(policy, steps)] * len(self._actors), {}), int(steps)))
        self._obs, self._seeds = traj["last_obs"].copy(), traj["seeds"][-1].copy()
        return traj

    def close(self):
        """Free every shard's worlds (those of live workers) and the actors; twice is fine."""
        actors, self._actors = self._actors, []
        if actors and self._lost is None:
            pending = []
            for a in actors:
                try:
                    pending.append(a.close())
                except Exception:  # its worker is gone: nothing to free there
                    pass
            for f in pending:
                try:
                    f.result(timeout=self.timeout)
                except Exception:
                    pass
        for f in getattr(self, "_futures", []):
            f.release()
        self._futures = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
