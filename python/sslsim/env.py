"""SslSimEnv: one ssl-sim world behind the Gymnasium interface.

reset(seed=None, options=None) -> obs, info and step(action) -> obs,
reward, terminated, truncated, info, whether Gymnasium is installed or not
(with it the class is a gymnasium.Env, its spaces gymnasium Boxes, and
importing sslsim registers it as "SslSim-v0").

Observations (a float32 vector; env.obs_layout names its parts):
  - "truth": ball x y z vx vy vz, then per observed robot present x y
    orientation vx vy omega (m, m/s, rad, rad/s; present 0 and zeros for
    a robot not on the field);
  - "vision": what the cameras reported, with the realism in force: ball
    age x y, then per observed robot age x y orientation, from the newest
    detection of each (age = seconds from that detection's capture to the
    newest capture of any camera; -1 and zeros before the first one). The ball is the most confident one of the newest
    frame that has any.
Actions: an array (len(controlled), 6) of forward, left, angular,
kick_speed, kick_angle, dribbler_speed (m/s, m/s, rad/s, m/s, degrees,
rpm) for the controlled robots, in the order of env.controlled.
Reward and termination are the user's: reward_fn(obs, info) -> float and
termination_fn(obs, info) -> bool (defaults: 0.0 and False); truncated
after max_steps steps. info holds "truth" (sslsim.truth_dict), "time",
"errors" (protocol errors of the action) and, for vision, "detections".
"""
import numpy as np

from .world import ACTION_FIELDS, SslSimError, World

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # the interface without the package
    _gym = None
    _spaces = None


class Box:
    """The part of gymnasium.spaces.Box this environment needs."""

    def __init__(self, low, high, shape, dtype=np.float32, seed=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        lo = np.where(np.isfinite(self.low), self.low, -1.0)
        hi = np.where(np.isfinite(self.high), self.high, 1.0)
        return self._rng.uniform(lo, hi).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))


def _box(low, high, shape):
    if _spaces is not None:
        return _spaces.Box(low=low, high=high, shape=shape, dtype=np.float32)
    return Box(low, high, shape)


_Base = _gym.Env if _gym is not None else object

# action limits: generous physical bounds; the robots' own limits apply inside
_ACTION_LOW = np.array([-10.0, -10.0, -50.0, 0.0, 0.0, 0.0], dtype=np.float32)
_ACTION_HIGH = np.array([10.0, 10.0, 50.0, 10.0, 89.0, 2000.0], dtype=np.float32)


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
        n_obs = head + per * len(self.observed)
        self.observation_space = _box(-np.inf, np.inf, (n_obs,))
        self.action_space = _box(np.tile(_ACTION_LOW, (len(self.controlled), 1)),
                                 np.tile(_ACTION_HIGH, (len(self.controlled), 1)),
                                 (len(self.controlled), len(ACTION_FIELDS)))
        self._index = {r: i for i, r in enumerate(self.observed)}
        self._steps = 0
        self._seen = None

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
            tc = float(d["t_capture"])
            if d["ball_count"] > 0 and tc >= seen[0, 0]:
                balls = d["balls"][:d["ball_count"]]
                b = balls[int(np.argmax(balls["confidence"]))]
                seen[0] = (tc, b["x"], b["y"], 0.0)
            for r in d["robots"][:d["robot_count"]]:
                i = self._index.get((int(r["team"]), int(r["id"])))
                if i is not None and tc >= seen[1 + i, 0]:
                    seen[1 + i] = (tc, r["x"], r["y"], r["orientation"])
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
            return self._truth_obs(t), info
        dets = self._world.detections()
        info["detections"] = dets
        if len(dets):
            self._newest = max(self._newest, float(np.max(dets["t_capture"])))
        return self._vision_obs(dets, self._newest), info

    # ---- the interface -----------------------------------------------------
    def reset(self, seed=None, options=None):
        """Start an episode. seed: the world's seed (None: the configured one
        first, then one more than the last episode's). options: "ball": (x,
        y[, vx, vy]) and "robots": {(team, id): (x, y, orientation)} place
        things before the first observation."""
        if seed is None:
            seed = (self._seed + 1) if self._seed is not None else self._base_seed
        if seed is None:
            seed = int(self._world.truth_record()["time_ns"]) * 0  # the configuration's seed: reset below
            self._world.close()
            self._world = World(vision=self.observation == "vision")
            self._seed = None
        else:
            self._seed = int(seed)
            self._world.reset(self._seed)
        if _gym is not None:
            super().reset(seed=self._seed)
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


__all__ = ["SslSimEnv", "Box", "register", "SslSimError"]
