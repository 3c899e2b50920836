"""SslSimEnv: one ssl-sim world behind the Gymnasium interface.

reset(seed=None, options=None) -> obs, info and step(action) -> obs,
reward, terminated, truncated, info, whether Gymnasium is installed or not
(with it the class is a gymnasium.Env, its spaces gymnasium Boxes, and
importing sslsim registers it as "SslSim-v0"; without it sslsim.Box and
the small base class below offer the same attributes).

Observations (a float32 vector; env.obs_layout names its parts; every
value inside env.observation_space, whose bounds come from the field and
the robots' limits in force, env.bounds; a value outside is clipped):
  - "truth": ball x y z vx vy vz, then per observed robot present x y
    orientation vx vy omega (m, m/s, rad, rad/s; present 0 and zeros for
    a robot not on the field);
  - "vision": what the cameras reported, with the realism in force: ball
    age x y, then per observed robot age x y orientation, from the newest
    detection of each (age = seconds from that detection's capture to the
    newest capture of any camera, at most MAX_AGE; -1 and zeros before the
    first one). The ball is the most confident one of the newest frame
    that has any.
Actions: an array (len(controlled), 6) of forward, left, angular,
kick_speed, kick_angle, dribbler_speed (m/s, m/s, rad/s, m/s, degrees,
rpm) for the controlled robots, in the order of env.controlled; the action
space spans the controlled teams' limits (the robots clamp to their own).
Reward and termination are a libsslsim task's when task= names one
(sslsim.TASKS, docs/embedding.md "Tasks"; the task also places the scene
at reset, applies a game's rules after each step, chooses the default
controlled and observed robots, and may add its own floats, such as
dribble's target, at the end of the observation: env.task_size of them),
else the user's: reward_fn(obs, info) -> float and
termination_fn(obs, info) -> bool (defaults: 0.0 and False; refused with
a task, which gives both); truncated after max_steps (a positive integer)
steps. The observation vector is written by libsslsim
(sslsim_obs_write), the same function the vector env uses. info holds plain values only: "truth"
(sslsim.truth_dict), "time", "errors" (protocol errors of the action)
and, for vision, "detections" (a list of sslsim.detection_dict).
"""
import math
from collections.abc import Mapping

import numpy as np

from . import _native as N
from .learn import (MAX_AGE, Observer, action_bounds, cast, check_callbacks, check_dt, check_env_args,
                    check_task, observation_bounds, robot_key, task_args)
from .world import SslSimError, World, detection_dict, number, truth_dict

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # the interface without the package
    _gym = None
    _spaces = None

class Box:
    """The part of gymnasium.spaces.Box this environment needs, with the
    same names and meaning: shape, dtype, low, high, seed(), sample(),
    contains() and `x in box`, np_random."""

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else np.shape(low)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        self.seed(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)
        return [seed]

    def is_bounded(self, manner="both"):
        below, above = bool(np.all(np.isfinite(self.low))), bool(np.all(np.isfinite(self.high)))
        return {"both": below and above, "below": below, "above": above}[manner]

    def sample(self):
        return self.np_random.uniform(self.low, self.high).astype(self.dtype)

    def contains(self, x):
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError):
                return False
        return bool(np.can_cast(x.dtype, self.dtype) and x.shape == self.shape
                    and np.all(x >= self.low) and np.all(x <= self.high))

    def __contains__(self, x):
        return self.contains(x)

    def __repr__(self):
        return "Box(%s, %s, %s, %s)" % (self.low.min(), self.high.max(), self.shape, self.dtype)


class _EnvBase:
    """gymnasium.Env's attributes when Gymnasium is not installed: the
    episode RNG np_random (seeded by reset(seed=...)), render_mode, spec,
    unwrapped, render() and close()."""
    metadata = {"render_modes": []}
    render_mode = None
    spec = None
    _np_random = None

    def reset(self, *, seed=None, options=None):
        # as gymnasium.Env.reset: a seed reseeds, no seed keeps the stream
        if seed is not None:
            self._np_random = np.random.default_rng(seed)

    @property
    def np_random(self):
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @property
    def unwrapped(self):
        return self

    def render(self):
        return None

    def close(self):
        pass


class StepInfo(dict):
    """The info dict of a step: "time" and "errors" at once; "truth" and
    (vision) "detections" decoded from a snapshot taken at the step, the
    first time anything reads them (so a step whose info nobody reads
    pays for no dicts). It is a plain dict once read: every key, lookup,
    copy, comparison and pickle sees all entries."""

    def __init__(self, time, errors, truth_bytes, packets=None):
        super().__init__(time=time, errors=errors)
        self._lazy = (truth_bytes, packets)

    def _fill(self):
        lazy = self.__dict__.pop("_lazy", None)
        if lazy is None:
            return self
        truth_bytes, packets = lazy
        dict.__setitem__(self, "truth", truth_dict(np.frombuffer(truth_bytes, dtype=N.TRUTH)[0]))
        if packets is not None:
            data, offsets, lengths = packets
            rec = np.zeros(1, dtype=N.DETECTION)
            dets = []
            for off, n in zip(offsets, lengths):
                N.lib.sslsim_detection_decode(data[off:off + n], n, N.ptr(rec))
                dets.append(detection_dict(rec[0]))
            dict.__setitem__(self, "detections", dets)
        return self

    def __missing__(self, key):
        if "_lazy" in self.__dict__:
            self._fill()
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key):
        return dict.__contains__(self._fill(), key)

    def __iter__(self):
        return dict.__iter__(self._fill())

    def __len__(self):
        return dict.__len__(self._fill())

    def __eq__(self, other):
        if isinstance(other, StepInfo):
            other._fill()
        return dict.__eq__(self._fill(), other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return dict.__repr__(self._fill())

    def __reduce_ex__(self, protocol):
        return (dict, (dict(self._fill().items()),))

    def keys(self):
        return dict.keys(self._fill())

    def items(self):
        return dict.items(self._fill())

    def values(self):
        return dict.values(self._fill())

    def get(self, key, default=None):
        return dict.get(self._fill(), key, default)

    def copy(self):
        return dict(self._fill().items())


def _box(low, high):
    low, high = np.asarray(low, dtype=np.float32), np.asarray(high, dtype=np.float32)
    if _spaces is not None:
        return _spaces.Box(low=low, high=high, dtype=np.float32)
    return Box(low, high)


def episode_seed(seed, last, base):
    """The seed of the next episode, mod 2**64 (N.seed64): `seed` when
    given, else the base (configured) seed at the first episode, else one
    more than the last."""
    if seed is not None:
        return N.seed64(seed)
    return N.seed64(base if last is None else last + 1)


def _floats(value, counts, name):
    """value as a list of finite floats, as many as one of counts, or
    ValueError naming it."""
    try:
        out = [float(v) for v in value]
    except (TypeError, ValueError):
        out = None
    if out is None or len(out) not in counts or not all(math.isfinite(v) for v in out):
        raise ValueError("%s must be %s finite numbers, not %r" % (name, " or ".join(map(str, counts)), value))
    return out


def placement(options):
    """The reset options, checked before anything is reset: "ball": (x, y[,
    vx, vy]) and "robots": {(team, id): (x, y, orientation)}, as (ball,
    robots), ball (x, y, vx, vy) or None, robots [(team, id, x, y,
    orientation)]. ValueError naming the option for another key, a value
    of another shape, a NaN or infinity, or a robot that is not (team
    0/1, id 0..255): what place() would refuse is refused here, before the
    world or the episode count changes."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError("options must be None or a dict, not %r" % (options,))
    options = dict(options or {})
    unknown = sorted(set(options) - {"ball", "robots"}, key=str)
    if unknown:
        raise ValueError("options: known are ball and robots, not %s" % unknown)
    ball = None
    if "ball" in options:
        ball = tuple(_floats(options["ball"], (2, 4), "options['ball']") + [0.0, 0.0])[:4]
    robots = []
    try:
        poses = dict(options.get("robots", {})).items()
    except (TypeError, ValueError):
        raise ValueError("options['robots'] must be {(team, id): (x, y, orientation)}, not %r"
                         % (options["robots"],)) from None
    for key, pose in poses:
        team, rid = robot_key(key, "options['robots'] key")
        robots.append((team, rid) + tuple(_floats(pose, (3,), "options['robots'][%r]" % (key,))))
    return ball, robots


def place(world, placed):
    """Apply placement(options) to `world`, in the world's frame. Returns
    the protocol errors of the teleports."""
    ball, robots = placed
    errors = world.teleport_ball(*ball) if ball is not None else []
    for team, rid, x, y, o in robots:
        errors += world.teleport_robot(team, rid, x, y, o)
    return errors


_Base = _gym.Env if _gym is not None else _EnvBase


class SslSimEnv(_Base):
    metadata = {"render_modes": []}

    def __init__(self, observation="truth", dt=0.016, max_steps=1000, controlled=None, observed=None,
                 reward_fn=None, termination_fn=None, ini=None, args=None, seed=None, task=None):
        check_env_args(observation, max_steps)
        check_task(task)
        check_callbacks(task, reward_fn, termination_fn)
        self.observation = observation
        self.dt = number(dt, "dt")
        self.max_steps = int(max_steps)
        self.reward_fn = reward_fn
        self.termination_fn = termination_fn
        self._world = World(ini=ini, args=task_args(task, args), seed=seed, vision=observation == "vision")
        check_dt(self._world, self.dt)
        self._base_seed = self._world.seed  # the configuration's, or `seed`
        self._seed = None
        t = self._world.truth()
        present = list(zip(t["team"].tolist(), t["id"].tolist()))
        self._task, self.controlled, self.observed = cast(task, 1, present, controlled, observed)
        self._teams = np.array([r[0] for r in self.controlled], dtype=np.int32)
        self._ids = np.array([r[1] for r in self.controlled], dtype=np.int32)
        per = 7 if observation == "truth" else 4
        head = 6 if observation == "truth" else 3
        self.obs_layout = (["ball"] + ["robot %d/%d" % r for r in self.observed], head, per)
        limits = self._world.limits()
        self.bounds = observation_bounds(limits)
        self._observer = Observer(observation, self.observed, 1, limits)
        self.task_size = self._task.size if self._task is not None else 0
        low, high = self._observer.low, self._observer.high
        if self.task_size:
            tlow, thigh = self._task.bounds(limits)
            low, high = np.concatenate([low, tlow]), np.concatenate([high, thigh])
        self.observation_space = _box(low, high)
        self.action_space = _box(*action_bounds(limits, self._teams))
        self._steps = 0
        self._started = False
        # the step path's arguments, made once
        self._h = self._world._handle()
        self._obs_h = self._observer._h
        self._teams_p, self._ids_p = self._teams.ctypes.data, self._ids.ctypes.data
        self._n = len(self.controlled)
        # buffers the library writes, copied out per step
        self._obs = np.zeros(self._observer.size + self.task_size, dtype=np.float32)
        self._task_out = self._obs[self._observer.size:]
        self._rec = np.zeros(1, dtype=N.TRUTH)
        self._act = np.zeros(self.action_space.shape, dtype=np.float64)
        self._obs_p, self._rec_p, self._act_p = self._obs.ctypes.data, self._rec.ctypes.data, self._act.ctypes.data
        self._vision = observation == "vision"
        lib = N.lib
        self._obs_write, self._truth = lib.sslsim_obs_write, lib.sslsim_world_truth
        self._vision_all, self._env_step = lib.sslsim_world_vision_all, lib.sslsim_world_env_step
        self._vb, self._vu = N.ctypes.c_void_p(), N.ctypes.c_size_t()
        self._voff, self._vlen = (N.ctypes.c_size_t * 64)(), (N.ctypes.c_size_t * 64)()

    @property
    def world(self):
        """The sslsim.World inside (for teleports, saves, raw vision)."""
        return self._world

    def close(self):
        """Free the world, the observer and the task; twice is fine. A
        closed environment refuses reset() and step() with ValueError."""
        self._started = False
        self._h = None
        for part in (getattr(self, "_task", None), getattr(self, "_observer", None), getattr(self, "_world", None)):
            if part is not None:
                part.close()

    # ---- observations ------------------------------------------------------
    def _info(self, errors):
        """The step's StepInfo from the truth in self._rec (and, for vision,
        the step's packets, copied now)."""
        packets = None
        if self._vision:
            h = self._h
            count = min(self._vision_all(h, self._vb, self._vu, self._voff, self._vlen, 64), 64)
            packets = (N.ctypes.string_at(self._vb.value, self._vu.value) if count else b"",
                       self._voff[:count], self._vlen[:count])
        truth = self._rec.tobytes()
        return StepInfo(int.from_bytes(truth[:8], "little") / 1e9, errors, truth, packets)

    def _observe(self, errors):
        """Observation and info of the world as it is (after a reset, or a
        task's step)."""
        self._obs_write(self._obs_h, 0, self._h, self._obs_p)
        if self.task_size:
            self._task.observe(0, 0, self._task_out)
        self._truth(self._h, self._rec_p)
        return self._obs.copy(), self._info(errors)

    # ---- the interface -----------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start an episode from the configuration. seed: the world's seed
        (None: the configured one at the first reset, then one more than
        the last episode's, so reset() after reset(seed=s) is always the
        same episode). options: "ball": (x, y[, vx, vy]) and "robots":
        {(team, id): (x, y, orientation)} place things before the first
        observation (anything else in options is refused before the reset)."""
        if self._h is None:
            raise ValueError("the environment is closed")
        placed = placement(options)
        super().reset(seed=None if seed is None else N.seed64(seed))
        self._seed = episode_seed(seed, self._seed, self._base_seed)
        if self._task is not None:
            self._task.reset(0, self._world, self._seed)
        else:
            self._world.reset(self._seed)
        self._observer.forget(0)
        errors = place(self._world, placed)
        self._steps = 0
        self._started = True
        return self._observe(errors)

    def step(self, action):
        shape = action.shape if type(action) is np.ndarray else np.shape(action)
        if shape != self._act.shape:
            raise ValueError("action must have shape %s, not %s" % (self._act.shape, shape))
        if not self._started:
            if self._h is None:
                raise ValueError("the environment is closed")
            raise RuntimeError("call reset() before step()")
        kind = action.dtype.kind if type(action) is np.ndarray else np.asarray(action).dtype.kind
        if kind not in "fiu":  # not bools, complex numbers (their imaginary part dropped) or strings
            raise TypeError("action must be real numbers, not %s" % np.asarray(action).dtype)
        self._act[...] = action
        if self._task is not None:
            # actions and step; the task's rules (a game's kick-off) before the observation
            n = self._env_step(self._h, self._teams_p, self._ids_p, self._n, self._act_p, self.dt, None, 0, None,
                               None)
            if n < 0:
                raise ValueError("action: " + self._world._reason())
            reward, terminated = self._task.evaluate(0, self._world)
            self._steps += 1
            obs, info = self._observe(self._world._errors(n) if n else [])
        else:
            # actions, step, observation and truth in one call (sslsim_world_env_step)
            n = self._env_step(self._h, self._teams_p, self._ids_p, self._n, self._act_p, self.dt, self._obs_h, 0,
                               self._obs_p, self._rec_p)
            if n < 0:
                raise ValueError("action: " + self._world._reason())
            errors = self._world._errors(n) if n else []
            self._steps += 1
            obs, info = self._obs.copy(), self._info(errors)
            reward = float(self.reward_fn(obs, info)) if self.reward_fn else 0.0
            terminated = bool(self.termination_fn(obs, info)) if self.termination_fn else False
        truncated = self._steps >= self.max_steps
        return obs, reward, terminated, truncated, info


def register():
    """Register "SslSim-v0" with Gymnasium when it is installed (done on
    import of sslsim). Returns whether it registered."""
    if _gym is None:
        return False
    if "SslSim-v0" not in _gym.envs.registry:
        _gym.register(id="SslSim-v0", entry_point="sslsim.env:SslSimEnv")
    return True


__all__ = ["SslSimEnv", "Box", "MAX_AGE", "observation_bounds", "register", "SslSimError"]
