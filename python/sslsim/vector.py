"""SslSimVectorEnv: n ssl-sim worlds (an sslsim.Batch) behind the
interface of Gymnasium 1.x's VectorEnv, with observations, rewards,
terminations and resets computed in C for the whole batch by one call
(sslsim_batch_env_step); Python does no work per world or per robot.

    env = sslsim.SslSimVectorEnv(64)                 # task "go_to_ball", truth
    obs, infos = env.reset(seed=1)                   # obs (64, D) float32
    obs, rewards, terminated, truncated, infos = env.step(actions)  # actions (64, k, 6)

Autoreset follows Gymnasium's next-step rule: a world that ends (terminated
or truncated) in step t is reset by step t+1, whose action for it is
ignored; that step returns the new episode's first observation, reward 0
and terminated = truncated = False for it.

Seeds: reset(seed=s) gives world k the seed s + k, reset(seed=[s0, s1, ...])
the listed ones, reset() the batch's (the configuration's seed plus k) at
first and otherwise each world's next episode. Episode e of a world with
seed s runs with seed s + e * 2**32 (mod 2**64), so a world's episodes,
and every byte of them, depend only on its seed: never on the batch size,
the thread count or the other worlds.
"""
from collections.abc import Mapping

import numpy as np

from . import _native as N
from .env import _box, _EnvBase
from .learn import Observer, action_bounds, cast, check_dt, check_env_args, check_task, task_args
from .rollout import rollout
from .world import Batch, SslSimError, number

_EPISODE_STRIDE = np.uint64(1 << 32)


def action_array(actions, shape):
    """actions as a C-contiguous float64 array of `shape`, or TypeError
    (not floats) or ValueError (another shape) naming the argument."""
    a = actions if type(actions) is np.ndarray else np.asarray(actions)
    if a.dtype.kind != "f":
        raise TypeError("actions must be a float array, not %s" % a.dtype)
    if a.shape != shape:
        raise ValueError("actions must have shape %s, not %s" % (shape, a.shape))
    if a.dtype != np.float64 or not a.flags.c_contiguous:
        a = np.ascontiguousarray(a, dtype=np.float64)
    return a


def reset_mask(options, n, started):
    """The worlds a reset(options=...) resets, a bool array of n: all of
    them without options, or options["reset_mask"] (Gymnasium 1.x's
    option; the only one known). ValueError naming the option otherwise:
    another option, a mask that is not a bool array of n, one with no True,
    or one that leaves a world out before the first reset."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError("options must be None or a dict, not %r" % (options,))
    options = dict(options or {})
    m = options.pop("reset_mask", None)
    if options:
        raise ValueError("options: only reset_mask is known (got %r)" % (sorted(options),))
    if m is None:
        return np.ones(n, dtype=bool)
    a = m if type(m) is np.ndarray else np.asarray(m)
    if a.dtype != np.bool_ or a.shape != (n,):
        raise ValueError("options['reset_mask'] must be a bool array of shape (%d,), not %s %s"
                         % (n, a.dtype, a.shape))
    if not a.any():
        raise ValueError("options['reset_mask'] resets no world")
    if not started and not a.all():
        raise ValueError("options['reset_mask'] leaves worlds out before the first reset")
    return a.copy()


class SslSimVectorEnv:
    """SslSimVectorEnv(num_envs=64, observation="truth", task="go_to_ball",
    dt=0.016, max_steps=500, controlled=None, observed=None, threads=0,
    ini=None, args=None, seed=None).

    observation: "truth" or "vision" (the layouts of SslSimEnv, then the
    task's own floats, if any); task: a name in sslsim.TASKS or None
    (reward 0, never terminated, a reset is the configuration's scene);
    controlled: the robots the actions drive (default the task's driven
    robots, centred on blue 0, or every blue robot without a task; the
    first one is the task's robot); observed: the robots in the
    observation (default the controlled ones then the rest of the task's
    scene, every robot without a task); threads: the Batch's (0: one per
    core). A game task's division is added to args."""

    metadata = {"autoreset_mode": "NextStep", "render_modes": []}
    render_mode = None
    spec = None

    def __init__(self, num_envs=64, observation="truth", task="go_to_ball", dt=0.016, max_steps=500,
                 controlled=None, observed=None, threads=0, ini=None, args=None, seed=None):
        check_env_args(observation, max_steps)
        check_task(task)
        self.observation = observation
        self.dt = number(dt, "dt")
        self.max_steps = int(max_steps)
        self._batch = Batch(num_envs, threads=threads, ini=ini, args=task_args(task, args), seed=seed,
                            vision=observation == "vision")
        self.num_envs = n = self._batch.n
        w0 = self._batch.world(0)
        check_dt(w0, self.dt)
        t = w0.truth()
        present = list(zip(t["team"].tolist(), t["id"].tolist()))
        self._task, self.controlled, self.observed = cast(task, n, present, controlled, observed)
        limits = w0.limits()
        self._observer = Observer(observation, self.observed, n, limits)
        self.task = task
        self.task_size = self._task.size if self._task is not None else 0
        d = self._observer.size + self.task_size
        olow, ohigh = self._observer.low, self._observer.high
        if self.task_size:
            tlow, thigh = self._task.bounds(limits)
            olow, ohigh = np.concatenate([olow, tlow]), np.concatenate([ohigh, thigh])
        self.single_observation_space = _box(olow, ohigh)
        self.observation_space = _box(np.tile(olow, (n, 1)), np.tile(ohigh, (n, 1)))
        low, high = action_bounds(limits, [r[0] for r in self.controlled])
        self.single_action_space = _box(low, high)
        self.action_space = _box(np.tile(low, (n, 1, 1)), np.tile(high, (n, 1, 1)))
        # buffers the C step writes; the step returns copies
        self._obs = np.zeros((n, d), dtype=np.float32)
        self._rewards = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.uint8)
        self._reset = np.zeros(n, dtype=np.uint8)
        self._seeds = np.zeros(n, dtype=np.uint64)
        self._base = np.array([self._batch.world(k).seed for k in range(n)], dtype=np.uint64)
        self._episode = np.zeros(n, dtype=np.uint64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._done = np.zeros(n, dtype=bool)
        self._teams = np.array([r[0] for r in self.controlled], dtype=np.int32)
        self._ids = np.array([r[1] for r in self.controlled], dtype=np.int32)
        self._started = False
        self._np_random = None
        req = N.BatchEnv()
        req.dt = self.dt
        req.teams, req.ids, req.per_world = self._teams.ctypes.data, self._ids.ctypes.data, len(self.controlled)
        req.reset, req.seeds = self._reset.ctypes.data, self._seeds.ctypes.data
        req.obs, req.obs_out = self._observer._h, self._obs.ctypes.data
        req.task = self._task._h if self._task is not None else None
        req.rewards, req.terminated = self._rewards.ctypes.data, self._terminated.ctypes.data
        self._req = req
        self._req_ref = N.ctypes.byref(req)
        self._env_step, self._bh = N.lib.sslsim_batch_env_step, self._batch._handle()
        self._action_shape = self.action_space.shape
        self._resetting = False

    # the episode RNG (seeded by reset(seed=int)) and unwrapped, as SslSimEnv has them
    np_random = _EnvBase.np_random
    unwrapped = _EnvBase.unwrapped

    @property
    def batch(self):
        """The sslsim.Batch inside (its worlds for teleports, saves, raw vision)."""
        return self._batch

    def _run(self, actions):
        if self._bh is None:
            raise ValueError("the vector env is closed")
        self._req.actions = actions.ctypes.data if actions is not None else None
        status = self._env_step(self._bh, self._req_ref)
        if status < 0:
            if actions is not None and not np.isfinite(actions).all():
                raise ValueError("actions must be finite (NaN or infinity for world %d)"
                                 % int(np.argwhere(~np.isfinite(actions))[0][0]))
            raise SslSimError(status, self._batch._reason())

    def reset(self, *, seed=None, options=None):
        """Reset every world, or with options={"reset_mask": m} (a bool
        array of num_envs, at least one True) only the worlds where m is
        True, as Gymnasium 1.x's reset_mask: the others keep their
        episode, step count and observation row. seed: None, an int or a
        list of num_envs ints (see the module's text); with a mask only
        the masked worlds take theirs. Returns obs (num_envs, D) and infos
        {"seed": (num_envs,) the episodes' seeds}."""
        mask = reset_mask(options, self.num_envs, self._started)
        if seed is not None:
            if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
                base = (np.uint64(N.seed64(seed)) + np.arange(self.num_envs, dtype=np.uint64))
                self._np_random = np.random.default_rng(N.seed64(seed))
            else:
                base = N.seed_array(seed, self.num_envs, "seed")
            self._base[mask] = base[mask]
            self._episode[mask] = 0
        elif self._started:
            self._episode[mask] += np.uint64(1)
        self._seeds[mask] = self._base[mask] + self._episode[mask] * _EPISODE_STRIDE
        self._reset[:] = np.where(mask, N.ENV_RESET, N.ENV_HOLD)
        self._resetting = True
        self._run(None)
        self._steps[mask] = 0
        self._done[mask] = False
        self._started = True
        return self._obs.copy(), {"seed": self._seeds.copy()}

    def step(self, actions):
        """actions (num_envs, k, 6) float32 or float64, k = len(controlled),
        rows in sslsim.ACTION_FIELDS order. Returns obs (num_envs, D)
        float32, rewards (num_envs,) float64, terminated and truncated
        (num_envs,) bool, infos {"seed": the episodes' seeds} (a world reset
        by this step shows its new episode's seed)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = action_array(actions, self._action_shape)
        done = self._done
        any_done = done.any()
        if any_done or self._resetting:
            # the NaN check of the C call refuses the whole step, so these
            # can be set before it: nothing has moved when it raises
            self._reset[:] = done
            self._resetting = any_done
        if any_done:
            self._seeds[done] = self._base[done] + (self._episode[done] + np.uint64(1)) * _EPISODE_STRIDE
        self._run(a)
        self._steps += 1
        if any_done:  # counted once the step went through
            self._episode[done] += np.uint64(1)
            self._steps[done] = 0
        terminated = self._terminated.view(bool).copy()
        truncated = self._steps >= self.max_steps
        self._done = terminated | truncated
        return (self._obs.copy(), self._rewards.astype(np.float64), terminated, truncated,
                {"seed": self._seeds.copy()})

    def rollout(self, policy, steps, worlds=None):
        """`steps` steps in one call with actions = policy(obs, worlds)
        (sslsim.rollout's text): the same as calling step that often.
        worlds: the indices the policy is told (default 0..num_envs-1; a
        cluster env's shard passes its worlds' indices in the whole env).
        Returns the trajectory's arrays, (steps, num_envs, ...)."""
        if not self._started:
            raise RuntimeError("call reset() before rollout()")
        return rollout(self, policy, steps, self._obs.copy(), worlds)

    def close(self):
        """Free the batch, the observer and the task; twice is fine."""
        self._bh = None
        if self._task is not None:
            self._task.close()
        self._observer.close()
        self._batch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
