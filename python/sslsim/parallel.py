"""SslSimParallelEnv: both teams of one ssl-sim world as two agents,
"blue" and "yellow", with the interface of PettingZoo's parallel API
(the interface only; the package is not needed):

    env = sslsim.SslSimParallelEnv()
    observations, infos = env.reset(seed=1)          # {"blue": obs, "yellow": obs}
    while env.agents:
        actions = {a: policy(observations[a]) for a in env.agents}   # one policy can play both
        observations, rewards, terminations, truncations, infos = env.step(actions)

Each agent's observation is written by libsslsim in its team's own
frame (sslsim_obs_set_frame): blue's is the world's, yellow's the world
turned half a turn about the centre, so both see their own goal at -x,
their own robots first and the opponents after. A policy trained as
blue plays yellow unchanged; actions are per robot (forward, left,
angular, ...) and need no turning. The layouts are those of SslSimEnv
("truth" or "vision").

Match rewards come from a task of libsslsim with both teams on the field:
task="game_a" (11 a side, Division A) or "game_b" (6 a side, Division B)
gives blue +1 and yellow -1 for a goal of blue, and the other way round,
applies the game's rules (kick-off after a goal, a ball out put back) and
places the kick-off at reset; "penalty", "keepaway_1v1" and
"keepaway_2v2" work the same way, zero-sum, blue the task's side.
Without a task rewards are 0 and no episode terminates unless reward_fn /
termination_fn say otherwise; both agents are truncated together after
max_steps. An episode ends for both agents at once, after which
env.agents is empty.
"""
import numpy as np

from . import _native as N
from .env import _box, episode_seed, place, placement
from .learn import (TASKS, Observer, Task, action_bounds, check_callbacks, check_dt, check_env_args,
                    check_task, task_args)
from .world import World, number

AGENTS = ("blue", "yellow")


class SslSimParallelEnv:
    """SslSimParallelEnv(observation="truth", dt=0.016, max_steps=1000,
    robots=None, reward_fn=None, termination_fn=None, ini=None, args=None,
    seed=None, task=None).

    task: None or a task of both teams (game_a, game_b, penalty,
    keepaway_1v1, keepaway_2v2): its rewards for blue, their opposite for
    yellow, its terminations, its scene at reset and its rules after each
    step (reward_fn and termination_fn must then be None).
    robots: {"blue": [ids], "yellow": [ids]}, the robots each agent drives
    (default: its team's robots of the task's scene, or on the field at
    the start), in the order
    of its action rows and of its observation's own robots. An agent's
    observation holds the ball, its robots, then every opponent on the
    field at the start. reward_fn(observations, infos) -> {agent: float}
    and termination_fn(observations, infos) -> bool (the episode, for
    both) are called after every step; observations are in each agent's
    frame, infos[agent]["truth"] in the world's."""

    metadata = {"render_modes": [], "name": "sslsim_parallel_v0", "is_parallelizable": True}
    render_mode = None

    def __init__(self, observation="truth", dt=0.016, max_steps=1000, robots=None, reward_fn=None,
                 termination_fn=None, ini=None, args=None, seed=None, task=None):
        check_env_args(observation, max_steps)
        check_task(task)
        check_callbacks(task, reward_fn, termination_fn)
        self._task = None
        if task is not None:
            self._task = Task(task, (0, 0), 1)
            if {team for team, _ in self._task.robots} != {0, 1}:
                both = [n for n in TASKS if {tm for tm, _ in Task(n, (0, 0), 1).robots} == {0, 1}]
                self._task.close()
                raise ValueError("task must have both teams on the field (%s), not %r" % (", ".join(both), task))
        self.task = task
        self.observation = observation
        self.dt = number(dt, "dt")
        self.max_steps = int(max_steps)
        self.reward_fn = reward_fn
        self.termination_fn = termination_fn
        self.possible_agents = list(AGENTS)
        self.agents = []
        self._world = World(ini=ini, args=task_args(task, args), seed=seed, vision=observation == "vision")
        check_dt(self._world, self.dt)
        self._base_seed = self._world.seed
        self._seed = None
        t = self._world.truth()
        cast = self._task.robots if self._task is not None else zip(t["team"].tolist(), t["id"].tolist())
        cast = list(cast)
        present = {team: [int(i) for tm, i in cast if tm == team] for team in (0, 1)}
        robots = dict(robots) if robots is not None else {}
        unknown = sorted(set(robots) - set(AGENTS))
        if unknown:
            raise ValueError("robots: agents are %s, not %s" % (list(AGENTS), unknown))
        limits = self._world.limits()
        self._drives, self._observers, self.observation_spaces, self.action_spaces = {}, {}, {}, {}
        for team, agent in enumerate(AGENTS):
            ids = [int(i) for i in robots.get(agent, present[team])]
            if not ids or len(set(ids)) != len(ids) or not all(0 <= i <= 255 for i in ids):
                raise ValueError("robots[%r] must list distinct ids 0..255, not %r" % (agent, ids))
            self._drives[agent] = [(team, i) for i in ids]
            observed = self._drives[agent] + [(1 - team, i) for i in present[1 - team]]
            obs = Observer(observation, observed, 1, limits, frame=team)
            self._observers[agent] = obs
            self.observation_spaces[agent] = _box(obs.low, obs.high)
            self.action_spaces[agent] = _box(*action_bounds(limits, [team] * len(ids)))
        both = self._drives["blue"] + self._drives["yellow"]
        self._teams = np.array([r[0] for r in both], dtype=np.int32)
        self._ids = np.array([r[1] for r in both], dtype=np.int32)
        self._act = np.zeros((len(both), 6), dtype=np.float64)
        self._rows = {"blue": slice(0, len(self._drives["blue"])),
                      "yellow": slice(len(self._drives["blue"]), len(both))}
        self._bufs = {a: np.zeros(self._observers[a].size, dtype=np.float32) for a in AGENTS}
        self._state = Observer("truth", [(0, i) for i in present[0]] + [(1, i) for i in present[1]], 1, limits)
        self._state_buf = np.zeros(self._state.size, dtype=np.float32)
        self.state_space = _box(self._state.low, self._state.high)
        self._steps = 0

    # ---- PettingZoo's parallel API ----------------------------------------
    @property
    def num_agents(self):
        return len(self.agents)

    @property
    def max_num_agents(self):
        return len(self.possible_agents)

    def observation_space(self, agent):
        """The agent's observation Box (the same object on every call)."""
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        """The agent's action Box, (robots it drives, 6) (the same object on every call)."""
        return self.action_spaces[self._agent(agent)]

    @property
    def world(self):
        """The sslsim.World inside (teleports, saves, raw vision)."""
        return self._world

    @property
    def unwrapped(self):
        return self

    def _agent(self, agent):
        if agent not in AGENTS:
            raise KeyError("no agent %r (agents: %s)" % (agent, ", ".join(AGENTS)))
        return agent

    def _observe(self, errors):
        w = self._world
        observations = {}
        for a in AGENTS:
            self._observers[a].write(0, w, self._bufs[a])
            observations[a] = self._bufs[a].copy()
        time, truth = w.time, w.truth()
        infos = {a: {"time": time, "errors": list(errors), "truth": truth} for a in AGENTS}
        return observations, infos

    def reset(self, seed=None, options=None):
        """Start an episode: seed as SslSimEnv's (None: the configured one,
        then one more per episode); options "ball": (x, y[, vx, vy]) and
        "robots": {(team, id): (x, y, orientation)} in the world's frame.
        Returns (observations, infos), dicts keyed by agent. Bad options
        raise ValueError before anything is reset."""
        placed = placement(options)
        self._seed = episode_seed(seed, self._seed, self._base_seed)
        if self._task is not None:
            self._task.reset(0, self._world, self._seed)
        else:
            self._world.reset(self._seed)
        for obs in self._observers.values():
            obs.forget(0)
        errors = place(self._world, placed)
        self._steps = 0
        self.agents = list(AGENTS)
        return self._observe(errors)

    def step(self, actions):
        """actions: {agent: (k, 6) floats} for every agent in env.agents.
        Returns observations, rewards, terminations, truncations, infos,
        dicts keyed by those agents; when the episode ends (both agents
        at once) env.agents becomes empty."""
        if not self.agents:
            raise RuntimeError("no agent is live: call reset() first (after an episode ends, too)")
        if not isinstance(actions, dict):
            raise TypeError("actions must be a dict {agent: array}, not %s" % type(actions).__name__)
        extra = sorted(set(actions) - set(self.agents), key=str)
        missing = [a for a in self.agents if a not in actions]
        if extra or missing:
            raise ValueError("actions must have one entry per live agent %s (missing %s, unknown %s)"
                             % (self.agents, missing, extra))
        for a in self.agents:
            x = actions[a] if type(actions[a]) is np.ndarray else np.asarray(actions[a])
            rows = self._act[self._rows[a]]
            if x.dtype.kind not in "fiu":
                raise TypeError("actions[%r] must be numbers, not %s" % (a, x.dtype))
            if x.shape != rows.shape:
                raise ValueError("actions[%r] must have shape %s, not %s" % (a, rows.shape, x.shape))
            if not np.isfinite(x).all():
                raise ValueError("actions[%r] must be finite (NaN or infinity)" % a)
            rows[...] = x
        h = self._world._handle()
        n = N.lib.sslsim_world_env_step(h, N.ptr(self._teams), N.ptr(self._ids), len(self._teams),
                                        N.ptr(self._act), self.dt, None, 0, None, None)
        if n < 0:
            raise ValueError("actions: " + self._world._reason())
        errors = self._world._errors(n) if n else []
        self._steps += 1
        if self._task is not None:  # its rules before the observation: a kick-off shows at once
            r, done = self._task.evaluate(0, self._world)
        observations, infos = self._observe(errors)
        if self._task is not None:
            rewards = {"blue": r, "yellow": -r}
            rewards = {a: rewards[a] for a in self.agents}
        elif self.reward_fn is not None:
            got = self.reward_fn(observations, infos)
            rewards = {a: float(got[a]) for a in self.agents}
        else:
            rewards = {a: 0.0 for a in self.agents}
        if self._task is None:
            done = bool(self.termination_fn(observations, infos)) if self.termination_fn else False
        cut = self._steps >= self.max_steps
        terminations = {a: done for a in self.agents}
        truncations = {a: cut for a in self.agents}
        if done or cut:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state(self):
        """The global state: the truth layout of the ball and every robot
        on the field at the start, blue then yellow, in the world's frame."""
        self._state.write(0, self._world, self._state_buf)
        return self._state_buf.copy()

    def render(self):
        return None

    def close(self):
        for obs in list(self._observers.values()) + [self._state]:
            obs.close()
        if self._task is not None:
            self._task.close()
        self._world.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
