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
Reward and termination are the user's: reward_fn(obs, info) -> float and
termination_fn(obs, info) -> bool (defaults: 0.0 and False); truncated
after max_steps steps. info holds plain values only: "truth"
(sslsim.truth_dict), "time", "errors" (protocol errors of the action)
and, for vision, "detections" (a list of sslsim.detection_dict).
"""
import numpy as np

from .world import ACTION_FIELDS, SslSimError, World, detection_dict

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # the interface without the package
    _gym = None
    _spaces = None

#: the largest age a vision observation reports (s); older detections read this
MAX_AGE = 10.0
_G = 9.81  # m/s^2, for the highest a ball at the speed bound can fly

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


def _box(low, high):
    low, high = np.asarray(low, dtype=np.float32), np.asarray(high, dtype=np.float32)
    if _spaces is not None:
        return _spaces.Box(low=low, high=high, dtype=np.float32)
    return Box(low, high)


_Base = _gym.Env if _gym is not None else _EnvBase


def observation_bounds(limits):
    """The bounds the observations keep, from World.limits(): a dict of
    (low, high) per quantity. Positions: the field plus its run-off, to the
    walls; robot speeds: twice the faster team's limit (a robot pushed by
    another at full speed); ball speed: the fastest kick plus that robot
    speed; ball height: what a ball thrown up at that speed reaches."""
    x = limits["field_length"] / 2 + max(limits["boundary_width_goal_line"], limits["goal_depth"])
    y = limits["field_width"] / 2 + limits["boundary_width"]
    robot_v = 2.0 * max(limits["robot_speed_max"])
    robot_w = 2.0 * max(limits["robot_angular_max"])
    ball_v = max(limits["kick_speed_max"] + limits["chip_speed_max"]) + robot_v
    return {"x": (-x, x), "y": (-y, y), "z": (0.0, ball_v * ball_v / (2 * _G)),
            "ball_v": (-ball_v, ball_v), "robot_v": (-robot_v, robot_v), "omega": (-robot_w, robot_w),
            "orientation": (-np.pi, np.pi), "present": (0.0, 1.0), "age": (-1.0, MAX_AGE)}


class SslSimEnv(_Base):
    metadata = {"render_modes": []}

    def __init__(self, observation="truth", dt=0.016, max_steps=1000, controlled=None, observed=None,
                 reward_fn=None, termination_fn=None, ini=None, args=None, seed=None):
        if observation not in ("truth", "vision"):
            raise ValueError('observation must be "truth" or "vision", not %r' % (observation,))
        self.observation = observation
        self.dt = float(dt)
        self.max_steps = int(max_steps)
        self.reward_fn = reward_fn
        self.termination_fn = termination_fn
        self._world = World(ini=ini, args=args, seed=seed, vision=observation == "vision")
        self._base_seed = self._world.seed  # the configuration's, or `seed`
        self._seed = None
        t = self._world.truth()
        present = list(zip(t["team"].tolist(), t["id"].tolist()))
        self.observed = [tuple(r) for r in observed] if observed is not None else present
        self.controlled = ([tuple(r) for r in controlled] if controlled is not None
                           else [r for r in present if r[0] == 0])
        for team, rid in self.controlled + self.observed:
            if team not in (0, 1) or not 0 <= rid <= 255:
                raise ValueError("robot (%r, %r) is not (team 0/1, id 0..255)" % (team, rid))
        self._teams = np.array([r[0] for r in self.controlled], dtype=np.int32)
        self._ids = np.array([r[1] for r in self.controlled], dtype=np.int32)
        per = 7 if observation == "truth" else 4
        head = 6 if observation == "truth" else 3
        self.obs_layout = (["ball"] + ["robot %d/%d" % r for r in self.observed], head, per)
        limits = self._world.limits()
        self.bounds = observation_bounds(limits)
        b = self.bounds
        if observation == "truth":
            parts = [b["x"], b["y"], b["z"], b["ball_v"], b["ball_v"], b["ball_v"]] + \
                [b["present"], b["x"], b["y"], b["orientation"], b["robot_v"], b["robot_v"], b["omega"]] \
                * len(self.observed)
        else:
            parts = [b["age"], b["x"], b["y"]] + [b["age"], b["x"], b["y"], b["orientation"]] * len(self.observed)
        self.observation_space = _box([p[0] for p in parts], [p[1] for p in parts])
        self._obs_low, self._obs_high = self.observation_space.low, self.observation_space.high
        self.action_space = _box(*self._action_bounds(limits))
        self._index = {r: i for i, r in enumerate(self.observed)}
        self._steps = 0
        self._seen = None
        self._newest = -np.inf

    def _action_bounds(self, limits):
        """Per controlled robot: its team's speed, turn, kick and dribbler
        limits; kick angle 0..89 degrees (0 = flat)."""
        low, high = [], []
        for team in self._teams:
            v, w = limits["robot_speed_max"][team], limits["robot_angular_max"][team]
            kick = max(limits["kick_speed_max"][team], limits["chip_speed_max"][team])
            low.append([-v, -v, -w, 0.0, 0.0, 0.0])
            high.append([v, v, w, kick, 89.0, limits["dribbler_rpm_max"][team]])
        shape = (len(self.controlled), len(ACTION_FIELDS))
        return np.reshape(low, shape), np.reshape(high, shape)

    @property
    def world(self):
        """The sslsim.World inside (for teleports, saves, raw vision)."""
        return self._world

    def close(self):
        self._world.close()

    # ---- observations ------------------------------------------------------
    def _truth_obs(self, t):
        obs = np.zeros(6 + 7 * len(self.observed), dtype=np.float32)
        obs[:6] = t["ball"]
        for k in range(len(t["id"])):
            i = self._index.get((int(t["team"][k]), int(t["id"][k])))
            if i is not None:
                o = 6 + 7 * i
                obs[o:o + 7] = (1.0, t["pos"][k, 0], t["pos"][k, 1], t["orientation"][k],
                                t["vel"][k, 0], t["vel"][k, 1], t["omega"][k])
        return obs

    def _vision_obs(self, dets, now):
        seen = self._seen  # per entity: t_capture, x, y, orientation
        for d in dets:
            tc = d["t_capture"]
            balls = d["balls"]
            if len(balls["confidence"]) and tc >= seen[0, 0]:
                b = balls["pos"][int(np.argmax(balls["confidence"]))]
                seen[0] = (tc, b[0], b[1], 0.0)
            r = d["robots"]
            for k in range(len(r["id"])):
                i = self._index.get((int(r["team"][k]), int(r["id"][k])))
                if i is not None and tc >= seen[1 + i, 0]:
                    seen[1 + i] = (tc, r["pos"][k, 0], r["pos"][k, 1], r["orientation"][k])
        obs = np.zeros(3 + 4 * len(self.observed), dtype=np.float32)
        never = ~np.isfinite(seen[:, 0])
        age = np.where(never, -1.0, now - np.where(never, 0.0, seen[:, 0]))
        obs[0] = age[0]
        obs[1:3] = np.where(never[0], 0.0, seen[0, 1:3])
        for i in range(len(self.observed)):
            o = 3 + 4 * i
            obs[o] = age[1 + i]
            obs[o + 1:o + 4] = np.where(never[1 + i], 0.0, seen[1 + i, 1:4])
        return obs

    def _observe(self, errors):
        t = self._world.truth()
        info = {"truth": t, "time": t["time"], "errors": errors}
        if self.observation == "truth":
            obs = self._truth_obs(t)
        else:
            dets = [detection_dict(rec) for rec in self._world.detections()]
            info["detections"] = dets
            if dets:
                self._newest = max(self._newest, max(d["t_capture"] for d in dets))
            obs = self._vision_obs(dets, self._newest)
        # the bounds hold what play produces; a ball over the walls or a
        # teleport beyond them reads as the nearest bound
        return np.clip(obs, self._obs_low, self._obs_high), info

    # ---- the interface -----------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start an episode from the configuration. seed: the world's seed
        (None: the configured one at the first reset, then one more than
        the last episode's, so reset() after reset(seed=s) is always the
        same episode). options: "ball": (x, y[, vx, vy]) and "robots":
        {(team, id): (x, y, orientation)} place things before the first
        observation."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
        elif self._seed is None:
            self._seed = self._base_seed
        else:
            self._seed += 1
        self._world.reset(self._seed)
        options = options or {}
        errors = []
        if "ball" in options:
            b = list(options["ball"]) + [0.0, 0.0]
            errors += self._world.teleport_ball(*[float(v) for v in b[:4]])
        for (team, rid), (x, y, o) in dict(options.get("robots", {})).items():
            errors += self._world.teleport_robot(team, rid, float(x), float(y), float(o))
        self._steps = 0
        self._newest = -np.inf
        self._seen = np.full((1 + len(self.observed), 4), np.nan)
        self._seen[:, 0] = -np.inf
        return self._observe(errors)

    def step(self, action):
        action = np.asarray(action, dtype=np.float64)
        if action.shape != self.action_space.shape:
            raise ValueError("action must have shape %s, not %s" % (self.action_space.shape, action.shape))
        if self._seen is None:
            raise RuntimeError("call reset() before step()")
        errors = self._world.robot_commands(self._teams, self._ids, action)
        self._world.step(self.dt)
        self._steps += 1
        obs, info = self._observe(errors)
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
