"""Observers and tasks of libsslsim (sslsim_obs_t, sslsim_task_t): the
observation vectors and the task rules, computed in C, that SslSimEnv and
SslSimVectorEnv share.
"""
import ctypes
import operator

import numpy as np

from . import _native as N
from .world import ACTION_FIELDS, SslSimError

#: the largest age a vision observation reports (s); older detections read this
MAX_AGE = N.OBS_MAX_AGE


def _task_names():
    names, i = [], 0
    while N.lib.sslsim_task_name(i):
        names.append(N.lib.sslsim_task_name(i).decode())
        i += 1
    return tuple(names)


#: task names libsslsim knows (docs/embedding.md "Tasks")
TASKS = _task_names()


def _constants(task):
    out, i = {}, 0
    while N.lib.sslsim_task_constant_name(task.encode(), i):
        name = N.lib.sslsim_task_constant_name(task.encode(), i)
        out[name.decode()] = N.lib.sslsim_task_constant(task.encode(), name)
        i += 1
    return out


#: every task's constants by name, read from libsslsim (docs/embedding.md "Tasks")
TASK_CONSTANTS = {name: _constants(name) for name in TASKS}

#: go_to_ball's constants: distance (m) and angle (rad) of success, bonus
#: on success, out (the reward when the ball leaves the field), turn (the
#: heading's weight), margin (m inside the lines) and apart (m, robot to
#: ball) of the reset
GO_TO_BALL = TASK_CONSTANTS["go_to_ball"]


def check_task(task):
    """ValueError naming the argument unless task is None or a name in TASKS."""
    if task is not None and task not in TASKS:
        raise ValueError("task must be None or one of %s, not %r" % (", ".join(TASKS), task))


def task_args(task, args):
    """The world's `ssl-sim run` flags for task: args, then the flags the
    task needs (sslsim_task_flags: a game's division), which win."""
    if task is None:
        return args
    flags = N.lib.sslsim_task_flags(task.encode())
    extra = []
    while flags[len(extra)]:
        extra.append(flags[len(extra)].decode())
    return (list(args) if args else []) + extra if extra else args


def check_callbacks(task, reward_fn, termination_fn):
    """ValueError naming the arguments when a task comes with reward_fn or
    termination_fn: the task gives the reward and the termination, so
    either would be ignored."""
    if task is not None and (reward_fn is not None or termination_fn is not None):
        raise ValueError("reward_fn and termination_fn must be None with a task (task %r gives both)" % (task,))


def check_env_args(observation, max_steps):
    """ValueError naming the argument unless observation is a kind
    ("truth", "vision") and max_steps a positive integer."""
    if observation not in N.OBS_KINDS:
        raise ValueError('observation must be "truth" or "vision", not %r' % (observation,))
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise ValueError("max_steps must be a positive integer, not %r" % (max_steps,))


def check_dt(world, dt):
    """ValueError naming dt unless a step of dt seconds is one the world
    takes (a whole number of its substeps, at most 10 s, > 0): an
    environment says so when it is made, not at its first step."""
    if world.substeps(dt) == 0:  # a refused dt: SslSimError, a ValueError naming dt
        raise ValueError("dt must be > 0 s, not %r" % (dt,))


def limits_struct(limits):
    """A Limits struct from the dict World.limits() returns."""
    out = N.Limits()
    for name, kind in N.Limits._fields_:
        value = limits[name]
        if isinstance(kind(), ctypes.Array):
            getattr(out, name)[:] = [float(v) for v in value]
        else:
            setattr(out, name, float(value))
    return out


class Observer:
    """Observation vectors of kind "truth" or "vision" for the robots
    `observed` ([(team, id), ...]) with `slots` slots (one per world),
    bounded by the limits dict `limits` (World.limits()), in the frame of
    team `frame` (0 blue: the world's; 1 yellow: turned half a turn,
    sslsim_obs_set_frame)."""

    def __init__(self, kind, observed, slots, limits, frame=0):
        if kind not in N.OBS_KINDS:
            raise ValueError('observation must be "truth" or "vision", not %r' % (kind,))
        self.kind = kind
        self.observed = [tuple(int(v) for v in r) for r in observed]
        teams = np.ascontiguousarray([r[0] for r in self.observed], dtype=np.int32)
        ids = np.ascontiguousarray([r[1] for r in self.observed], dtype=np.int32)
        err = ctypes.create_string_buffer(256)
        lim = limits_struct(limits)
        self._h = N.lib.sslsim_obs_new(N.OBS_KINDS[kind], N.ptr(teams), N.ptr(ids), len(self.observed),
                                       int(slots), ctypes.byref(lim), err, len(err))
        if not self._h:
            raise ValueError(err.value.decode(errors="replace"))
        if N.lib.sslsim_obs_set_frame(self._h, int(frame)) < 0:
            raise ValueError("frame must be a team, 0 or 1, not %r" % (frame,))
        self.frame = int(frame)
        self.size = N.lib.sslsim_obs_size(self._h)
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        N.lib.sslsim_obs_bounds(self._h, N.ptr(self.low), N.ptr(self.high))

    def close(self):
        if getattr(self, "_h", None):
            N.lib.sslsim_obs_free(self._h)
        self._h = None

    def __del__(self):
        self.close()

    def forget(self, slot):
        N.lib.sslsim_obs_forget(self._h, int(slot))

    def write(self, slot, world, out):
        """Slot's observation of World `world` into the float32 array out."""
        if N.lib.sslsim_obs_write(self._h, slot, world._handle(), N.ptr(out)) < 0:
            raise SslSimError(N.EINVAL, "observation slot %d refused" % slot)


class Task:
    """A task of libsslsim (TASKS) for robot (team, id), with `slots` slots:
    robots, the scene's robots (driven first, `driven` of them); size, the
    task's own observation floats after the observer's."""

    def __init__(self, name, robot, slots):
        check_task(name)
        err = ctypes.create_string_buffer(512)
        team, rid = (int(v) for v in robot)
        self.name = name
        self.robot = (team, rid)
        self._h = N.lib.sslsim_task_new(str(name).encode(), team, rid, int(slots), err, len(err))
        if not self._h:
            raise ValueError("task %r: %s" % (name, err.value.decode(errors="replace")))
        teams = np.zeros(32, dtype=np.int32)
        ids = np.zeros(32, dtype=np.int32)
        driven = ctypes.c_int()
        n = N.lib.sslsim_task_robots(self._h, N.ptr(teams), N.ptr(ids), 32, ctypes.byref(driven))
        self.robots = [(int(teams[i]), int(ids[i])) for i in range(n)]
        self.driven = driven.value
        self.size = N.lib.sslsim_task_obs_size(self._h)

    def bounds(self, limits):
        """(low, high) of the task's own observation floats, float32 (size,)."""
        low = np.zeros(self.size, dtype=np.float32)
        high = np.zeros(self.size, dtype=np.float32)
        lim = limits_struct(limits)
        N.lib.sslsim_task_obs_bounds(self._h, ctypes.byref(lim), N.ptr(low), N.ptr(high))
        return low, high

    def observe(self, slot, frame, out):
        """Slot's own observation floats into the float32 array out."""
        N.lib.sslsim_task_observe(self._h, int(slot), int(frame), N.ptr(out))

    def close(self):
        if getattr(self, "_h", None):
            N.lib.sslsim_task_free(self._h)
        self._h = None

    def __del__(self):
        self.close()

    def reset(self, slot, world, seed):
        """World reset with `seed`, then the task's scene."""
        status = N.lib.sslsim_task_reset(self._h, int(slot), world._handle(), N.seed64(seed))
        if status < 0:
            raise SslSimError(status, world._reason())

    def evaluate(self, slot, world):
        """(reward, terminated) of world's last step."""
        r = ctypes.c_float()
        t = ctypes.c_uint8()
        N.lib.sslsim_task_evaluate(self._h, int(slot), world._handle(), ctypes.byref(r), ctypes.byref(t))
        return float(r.value), bool(t.value)


def robot_key(robot, name):
    """(team, id) of `robot`: two ints, team 0 (blue) or 1 (yellow) and id
    0..255, or ValueError naming it (`name`): 2**32 + 3 is not quietly
    robot 3, nor 1.5 robot 1."""
    try:
        team, rid = robot
        team, rid = operator.index(team), operator.index(rid)
    except (TypeError, ValueError):
        raise ValueError("%s must be (team, id), two ints, not %r" % (name, robot)) from None
    if team not in (0, 1) or not 0 <= rid <= 255:
        raise ValueError("%s must be (team 0/1, id 0..255), not %r" % (name, robot))
    return team, rid


def robot_list(robots, name):
    """robots ([(team, id), ...]) checked by robot_key, each named name[k]."""
    try:
        items = list(robots)
    except TypeError:
        raise ValueError("%s must be a list of (team, id), not %r" % (name, robots)) from None
    return [robot_key(r, "%s[%d]" % (name, k)) for k, r in enumerate(items)]


def cast(task, slots, present, controlled, observed):
    """(Task or None, controlled, observed) of an environment: the Task
    named `task` (None: none) for the first controlled robot (default
    blue 0); controlled defaults to the task's driven robots (without a
    task every blue robot in `present`), observed to the controlled ones
    then the rest of the task's scene (without a task `present`)."""
    check_task(task)
    if controlled is not None:
        controlled = robot_list(controlled, "controlled")
    if observed is not None:
        observed = robot_list(observed, "observed")
    t = Task(task, controlled[0] if controlled else (0, 0), slots) if task is not None else None
    if controlled is None:
        controlled = t.robots[:t.driven] if t is not None else [r for r in present if r[0] == 0]
    controlled = [tuple(int(v) for v in r) for r in controlled]
    if observed is None:
        observed = controlled + [r for r in t.robots if r not in controlled] if t is not None else present
    return t, controlled, [tuple(int(v) for v in r) for r in observed]


def observation_bounds(limits):
    """The bounds the observations keep, from World.limits(): a dict of
    (low, high) per quantity (x, y, z, ball_v, robot_v, omega, orientation,
    present, age), read from libsslsim's observer so both agree."""
    truth = Observer("truth", [(0, 0)], 1, limits)
    vision = Observer("vision", [], 1, limits)
    names = ("x", "y", "z", "ball_v", None, None, "present", None, None, "orientation", "robot_v", None, "omega")
    out = {n: (float(truth.low[i]), float(truth.high[i])) for i, n in enumerate(names) if n}
    out["age"] = (float(vision.low[0]), float(vision.high[0]))
    return out


def action_bounds(limits, teams):
    """(low, high), each (len(teams), 6): per controlled robot its team's
    speed, turn, kick and dribbler limits (World.limits()); kick angle
    0..89 degrees (0 = flat)."""
    low, high = [], []
    for team in teams:
        v, w = limits["robot_speed_max"][team], limits["robot_angular_max"][team]
        kick = max(limits["kick_speed_max"][team], limits["chip_speed_max"][team])
        low.append([-v, -v, -w, 0.0, 0.0, 0.0])
        high.append([v, v, w, kick, 89.0, limits["dribbler_rpm_max"][team]])
    shape = (len(teams), len(ACTION_FIELDS))
    return np.reshape(low, shape), np.reshape(high, shape)
